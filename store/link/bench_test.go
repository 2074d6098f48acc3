package link_test

import (
	"context"
	"net/http"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"galla/gateway"
	"galla/gateway/sandbox"
	"galla/pos"
	"galla/store/link"
)

// counter is a terminal for the benchmark: an engine over its own journal and
// embedded sandbox.
type counter struct {
	tl    *pos.Till
	lines []pos.CartLine
}

func newCounter(b *testing.B, dir string) (*counter, *pos.Engine) {
	b.Helper()
	sb, err := sandbox.New()
	if err != nil {
		b.Fatal(err)
	}
	const base = "http://sandbox.bench"
	gw, err := gateway.New(gateway.Config{BaseURL: base, MerchantID: sandbox.DefaultMerchantID, AccessCode: sandbox.DefaultAccessCode,
		Secret: sandbox.DefaultSecret, ReturnURL: base + "/return", HTTPClient: &http.Client{Transport: sb.Transport()}})
	if err != nil {
		b.Fatal(err)
	}
	j := openJournal(b, dir)
	eng, err := pos.New(pos.Config{Journal: j.Port(), Gateway: gw, Customer: pos.Customer{Mobile: "9999999999", Email: "bench@galla.local"}})
	if err != nil {
		b.Fatal(err)
	}
	cat, err := pos.LoadCatalogJSON([]byte(`[{"sku":"ACC-CASE","name":"Phone case","price":"1499.00","gst_rate":18,"hsn":"3926"}]`))
	if err != nil {
		b.Fatal(err)
	}
	p, ok := cat.Lookup("ACC-CASE")
	if !ok {
		b.Fatal("no phone case in the catalog")
	}
	tl, err := pos.NewTill(context.Background(), pos.TillConfig{Engine: eng})
	if err != nil {
		b.Fatal(err)
	}
	return &counter{tl: tl, lines: []pos.CartLine{{Product: p, Qty: 1}}}, eng
}

func (c *counter) checkout(b *testing.B) time.Duration {
	t0 := time.Now()
	card := gateway.NewCard("4111111111111111", "12", "2030", "123", "Bench Holder")
	out, err := c.tl.Checkout.Pay(context.Background(), pos.PayRequest{Lines: c.lines, Tender: pos.TenderCard, Card: card,
		OTP: sandbox.TestOTP, Unattended: true}, nil)
	if err != nil || out.State != pos.StatePaid {
		b.Fatalf("checkout: %v %+v", err, out)
	}
	return time.Since(t0)
}

// BenchmarkCheckoutWhileSyncing measures a card checkout (through the
// embedded sandbox) while the terminal's link sends its journal's events to a
// real store server, against the same checkout of another terminal while no
// sync runs (DESIGN.md section 11: the sync adds nothing to checkout time; it
// runs beside it, never inside a payment). The sync polls every 2 ms, far more
// often than the window's 15 s, so that it is at work during the checkouts.
// The two checkouts run in turn in each iteration (which goes first
// alternates); during the floor's checkout the sync is held off. It reports
// x-floor (syncing / alone), both means, and synced-events/op (how many events
// went up per iteration: the sync did run).
func BenchmarkCheckoutWhileSyncing(b *testing.B) {
	s := newStoreServer(b)
	alone, _ := newCounter(b, b.TempDir())
	dir := b.TempDir()
	cfg := s.enrol(b, "T1", dir)
	syncing, eng := newCounter(b, dir)
	l, err := link.New(cfg, eng.Journal().(link.Source))
	if err != nil {
		b.Fatal(err)
	}
	var gate sync.Mutex // held by the sync while it sends, by the floor while it runs
	var sent atomic.Int64
	ctx, stop := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		for ctx.Err() == nil {
			gate.Lock()
			res, _ := l.Sync(ctx)
			gate.Unlock()
			sent.Add(int64(res.Sent))
			time.Sleep(2 * time.Millisecond)
		}
	}()
	var tAlone, tSync time.Duration
	n := 0
	floor := func() {
		gate.Lock()
		tAlone += alone.checkout(b)
		gate.Unlock()
	}
	for i := 0; b.Loop(); i++ {
		if i%2 == 0 {
			floor()
			tSync += syncing.checkout(b)
		} else {
			tSync += syncing.checkout(b)
			floor()
		}
		n++
	}
	stop()
	<-done
	b.ReportMetric(float64(tSync)/float64(tAlone), "x-floor")
	b.ReportMetric(float64(tSync.Nanoseconds())/float64(n), "checkout-ns")
	b.ReportMetric(float64(tAlone.Nanoseconds())/float64(n), "floor-ns")
	b.ReportMetric(float64(sent.Load())/float64(n), "synced-events/op")
}

// stalled is a store that takes each request and never answers until the
// request is given up: the sync waits on the network for the whole benchmark.
type stalled struct{ calls atomic.Int64 }

func (s *stalled) RoundTrip(r *http.Request) (*http.Response, error) {
	s.calls.Add(1)
	<-r.Context().Done()
	return nil, r.Context().Err()
}

// BenchmarkCheckoutWhileTheStoreStalls measures a card checkout at a terminal
// whose sync is stuck waiting on a store that does not answer, against the
// same checkout at a terminal without a store, in turn (which goes first
// alternates). The sync runs beside the payment and never inside it (DESIGN.md
// section 11), so nothing it holds may slow a checkout: with no CPU spent on
// the sync the two are the same, and the benchmark fails when the stalled
// terminal's checkouts take over 1.3 times the floor's over 20 or more pairs.
func BenchmarkCheckoutWhileTheStoreStalls(b *testing.B) {
	s := newStoreServer(b)
	alone, _ := newCounter(b, b.TempDir())
	dir := b.TempDir()
	cfg := s.enrol(b, "T1", dir)
	st := &stalled{}
	cfg.Transport = st
	stuck, eng := newCounter(b, dir)
	l, err := link.New(cfg, eng.Journal().(link.Source))
	if err != nil {
		b.Fatal(err)
	}
	ctx, stop := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		for ctx.Err() == nil {
			_, _ = l.Sync(ctx)
		}
	}()
	for st.calls.Load() == 0 { // the sync is waiting on the store before the first checkout
		time.Sleep(time.Millisecond)
	}
	var tAlone, tStuck time.Duration
	n := 0
	for i := 0; b.Loop(); i++ {
		if i%2 == 0 {
			tAlone += alone.checkout(b)
			tStuck += stuck.checkout(b)
		} else {
			tStuck += stuck.checkout(b)
			tAlone += alone.checkout(b)
		}
		n++
	}
	stop()
	<-done
	ratio := float64(tStuck) / float64(tAlone)
	b.ReportMetric(ratio, "x-floor")
	b.ReportMetric(float64(tStuck.Nanoseconds())/float64(n), "checkout-ns")
	b.ReportMetric(float64(tAlone.Nanoseconds())/float64(n), "floor-ns")
	if n >= 20 && ratio > 1.3 {
		b.Fatalf("a checkout took %.2f× the floor while the store stalled the sync (over %d pairs): the sync is inside the payment", ratio, n)
	}
}
