package cli

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	bolt "go.etcd.io/bbolt"

	"galla/gateway"
	"galla/gateway/sandbox"
	"galla/pos"
	"galla/pos/journal"
	"galla/receipts"
)

// BenchmarkCardCheckout measures one full card checkout through pos (journal
// intent, create order, card payment, the sandbox's OTP step, verified status,
// receipt) against its floor: the same HTTP calls made with bare net/http through
// the same in-process sandbox plus the same number of bare bbolt put+commits
// (DESIGN.md section 7: at most 1.3×). The two run in turn, one of each per
// iteration (which goes first alternates), so that both see the same disk and
// load; the benchmark reports
// x-floor (checkout time / floor time), the mean of each (checkout-ns,
// floor-ns) and commits/op, the journal's fsync'd commits per checkout (the
// design allows at most 4). From 300 iterations on it fails above 1.3
// x-derived (against the floor whose commits also write an event and the
// sale's order) or above 4 commits.
func BenchmarkCardCheckout(b *testing.B) {
	sb, err := sandbox.New()
	if err != nil {
		b.Fatal(err)
	}
	const base = "http://sandbox.bench"
	hc := &http.Client{Transport: sb.Transport(), CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	gw, err := gateway.New(gateway.Config{BaseURL: base, MerchantID: sandbox.DefaultMerchantID, AccessCode: sandbox.DefaultAccessCode,
		Secret: sandbox.DefaultSecret, ReturnURL: base + "/return", HTTPClient: hc})
	if err != nil {
		b.Fatal(err)
	}
	dir := b.TempDir()
	j, err := journal.Open(filepath.Join(dir, "journal.db"), journal.Options{})
	if err != nil {
		b.Fatal(err)
	}
	defer j.Close()
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
	lines := []pos.CartLine{{Product: p, Qty: 1}}
	tl, err := pos.NewTill(context.Background(), pos.TillConfig{Engine: eng})
	if err != nil {
		b.Fatal(err)
	}
	db, err := bolt.Open(filepath.Join(dir, "floor.db"), 0o600, nil)
	if err != nil {
		b.Fatal(err)
	}
	defer db.Close()
	key, err := gateway.DecodeSecret(sandbox.DefaultSecret)
	if err != nil {
		b.Fatal(err)
	}
	ctx := context.Background()
	floor := &floorCheckout{hc: hc, db: db, key: key, base: base}
	// The reference of x-derived: the same floor whose commits also write what
	// section 4 makes a journal write at the least, an event of the size pos
	// journals and the sale's order rewritten in a second bucket.
	ddb, err := bolt.Open(filepath.Join(dir, "derived.db"), 0o600, nil)
	if err != nil {
		b.Fatal(err)
	}
	defer ddb.Close()
	derived := &floorCheckout{hc: hc, db: ddb, key: key, base: base,
		event: bytes.Repeat([]byte("e"), 640), order: bytes.Repeat([]byte("o"), 1000)}

	var tFloor, tPos, tDerived time.Duration
	commits, n := j.Commits(), 0
	floorOne := func(i int) {
		t0 := time.Now()
		if err := floor.run(ctx, i); err != nil {
			b.Fatal(err)
		}
		tFloor += time.Since(t0)
	}
	derivedOne := func(i int) {
		t0 := time.Now()
		if err := derived.run(ctx, i); err != nil {
			b.Fatal(err)
		}
		tDerived += time.Since(t0)
	}
	posOne := func() {
		t0 := time.Now()
		card := gateway.NewCard("4111111111111111", "12", "2030", "123", "Bench Holder")
		out, err := tl.Checkout.Pay(ctx, pos.PayRequest{Lines: lines, Tender: pos.TenderCard, Card: card, OTP: sandbox.TestOTP, Unattended: true}, nil)
		if err != nil || out.State != pos.StatePaid {
			b.Fatalf("checkout: %v %+v", err, out)
		}
		r := pos.ReceiptFor(*out.Order, pos.Shop{Name: "Bench"}, pos.ReceiptOptions{Terminal: "T1"})
		if err := receipts.Text(io.Discard, r, 48); err != nil {
			b.Fatal(err)
		}
		tPos += time.Since(t0)
	}
	for i := 0; b.Loop(); i++ {
		// Which goes first alternates, so that neither always follows the
		// other's fsyncs.
		switch i % 3 {
		case 0:
			floorOne(i)
			posOne()
			derivedOne(i)
		case 1:
			posOne()
			derivedOne(i)
			floorOne(i)
		default:
			derivedOne(i)
			floorOne(i)
			posOne()
		}
		n++
	}
	b.ReportMetric(float64(tPos)/float64(tFloor), "x-floor")
	b.ReportMetric(float64(tPos)/float64(tDerived), "x-derived")
	b.ReportMetric(float64(tDerived.Nanoseconds())/float64(n), "derived-ns")
	b.ReportMetric(float64(tPos.Nanoseconds())/float64(n), "checkout-ns")
	b.ReportMetric(float64(tFloor.Nanoseconds())/float64(n), "floor-ns")
	perCheckout := float64(j.Commits()-commits) / float64(n)
	b.ReportMetric(perCheckout, "commits/op")
	// The budgets of DESIGN.md section 7, judged from the documented count on
	// (docs/benchmarks.md): a shorter run is too noisy to judge.
	const (
		budget     = 1.3
		budgetRuns = 300
	)
	if n >= budgetRuns {
		if x := float64(tPos) / float64(tDerived); x > budget {
			b.Errorf("a card checkout took %.2f× its floor with the same commits; at most %.1f×", x, budget)
		}
		if perCheckout > 4 {
			b.Errorf("a card checkout made %.2f commits; at most 4", perCheckout)
		}
	}
}

// floorCheckout is the floor of a card checkout: bare net/http calls and bare
// bbolt commits. With event and order set, each commit puts event under the
// next sequence and rewrites order under the sale's id in a second bucket.
type floorCheckout struct {
	hc           *http.Client
	db           *bolt.DB
	event, order []byte
	key          []byte
	base         string
}

func (f *floorCheckout) commit(i, step int) error {
	return f.db.Update(func(tx *bolt.Tx) error {
		bk, err := tx.CreateBucketIfNotExists([]byte("events"))
		if err != nil {
			return err
		}
		var k [8]byte
		binary.BigEndian.PutUint64(k[:], uint64(i*4+step))
		if f.event == nil {
			return bk.Put(k[:], []byte(`{"v":1,"kind":"floor","order_id":"F`+strconv.Itoa(i)+`","state":"PAID"}`))
		}
		bk.FillPercent = 1 // as the journal's log
		if err := bk.Put(k[:], f.event); err != nil {
			return err
		}
		orders, err := tx.CreateBucketIfNotExists([]byte("orders"))
		if err != nil {
			return err
		}
		return orders.Put(fmt.Appendf(nil, "F%09d", i), f.order)
	})
}

func (f *floorCheckout) do(req *http.Request, v any) (*http.Response, []byte, error) {
	resp, err := f.hc.Do(req)
	if err != nil {
		return nil, nil, err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		return nil, nil, err
	}
	if resp.StatusCode >= 400 {
		return nil, nil, fmt.Errorf("floor: HTTP %d: %s", resp.StatusCode, body)
	}
	if v != nil {
		err = json.Unmarshal(body, v)
	}
	return resp, body, err
}

func (f *floorCheckout) run(ctx context.Context, i int) error {
	if err := f.commit(i, 0); err != nil {
		return err
	}
	inner := fmt.Sprintf(`{"merchant_data":{"merchant_id":%q,"merchant_access_code":%q,"merchant_return_url":%q,"merchant_order_id":"F%d-%d"},`+
		`"payment_info_data":{"amount":149900,"currency_code":"INR","order_desc":"Phone case"},`+
		`"customer_data":{"country_code":"91","mobile_number":"9999999999","email_id":"bench@galla.local"},`+
		`"product_info_data":{"product_details":[{"product_code":"ACC-CASE","product_amount":149900}]}}`,
		sandbox.DefaultMerchantID, sandbox.DefaultAccessCode, f.base+"/return", time.Now().UnixNano(), i)
	b64 := base64.StdEncoding.EncodeToString([]byte(inner))
	req, _ := http.NewRequestWithContext(ctx, http.MethodPost, f.base+"/api/v1/order/create", strings.NewReader(`{"request":"`+b64+`"}`))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json")
	req.Header.Set("x-verify", gateway.Sign(f.key, b64))
	var created struct {
		Token          string `json:"token"`
		ServiceOrderID string `json:"service_order_id"`
	}
	if _, _, err := f.do(req, &created); err != nil {
		return err
	}
	if err := f.commit(i, 1); err != nil {
		return err
	}
	payBody := `{"card_data":{"card_number":"4111111111111111","cvv":"123","card_holder_name":"Bench Holder","card_expiry_year":"2030","card_expiry_month":"12"},` +
		`"customer_data":{"country_code":"91","mobile_no":"9999999999","email_id":"bench@galla.local"}}`
	req, _ = http.NewRequestWithContext(ctx, http.MethodPost, f.base+"/api/v1/card/process/payment?token="+created.Token, strings.NewReader(payBody))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json")
	req.Header.Set("checkoutmode", "SEAMLESS")
	var paid struct {
		PaymentID json.Number `json:"payment_id"`
	}
	if _, _, err := f.do(req, &paid); err != nil {
		return err
	}
	if err := f.commit(i, 2); err != nil {
		return err
	}
	req, _ = http.NewRequestWithContext(ctx, http.MethodPost, f.base+"/acs/"+paid.PaymentID.String(), strings.NewReader(url.Values{"otp": {sandbox.TestOTP}}.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	if _, _, err := f.do(req, nil); err != nil {
		return err
	}
	req, _ = http.NewRequestWithContext(ctx, http.MethodGet, f.base+"/api/v1/inquiry/order/"+created.ServiceOrderID+"/payment/"+paid.PaymentID.String(), nil)
	req.Header.Set("Accept", "application/json")
	req.SetBasicAuth(sandbox.DefaultMerchantID, sandbox.DefaultAccessCode)
	resp, body, err := f.do(req, nil)
	if err != nil {
		return err
	}
	if err := gateway.Verify(f.key, base64.StdEncoding.EncodeToString(body), resp.Header.Get("x-verify")); err != nil {
		return err
	}
	var q struct {
		OrderData struct {
			OrderStatus string `json:"order_status"`
		} `json:"order_data"`
	}
	if err := json.Unmarshal(body, &q); err != nil || q.OrderData.OrderStatus != "CHARGED" {
		return fmt.Errorf("floor: not charged: %s", body)
	}
	return f.commit(i, 3)
}
