package pos

import (
	"bufio"
	"bytes"
	"encoding/json"
	"flag"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"galla/gateway"
	"galla/gateway/sandbox"
	"galla/internal/testclock"
	"galla/receipts"
)

// A journal written by the sale path of one tender (an order whose Tender is
// card, EMI, cash or a credit note, numbered itself) must open and read the same
// for as long as the terminal runs: old orders stay in real journals forever.
// testdata/oldjournal holds such a journal as that path wrote it (events.jsonl,
// with staff.json, the staff store beside it, and sandbox.state, the payment
// service's state at that moment) and what this build read of it then (the X
// report, each sale's receipt and what of it can be returned) and after a card
// refund, a return in cash and a declined card order paid again (the *.golden
// files). TestOldJournal opens a copy and asserts it reads and behaves the same;
// the tests of a sale of one tender (onetender_test.go) compare it with the
// orders of one tender this journal holds.
//
// The journal is a fixture: the path that wrote it (the engine's entry points
// of one tender) is gone, so it cannot be written again, only read.

// -update-oldjournal rewrites the golden files from the stored journal, for a
// change that means them to read otherwise (reviewed in the diff).
var updateOldJournal = flag.Bool("update-oldjournal", false, "rewrite testdata/oldjournal/*.golden from its journal")

const oldJournalDir = "testdata/oldjournal"

// oldJournalAt is the moment the old journal is read and acted on.
var oldJournalAt = time.Date(2026, 11, 22, 10, 10, 0, 0, time.UTC)

// oldJournalFixture names the orders of the old journal.
type oldJournalFixture struct {
	Cash, Card, EMI, Note, Declined string // order ids
}

// offsetIDs is the sandbox's id source when the old journal is opened: ids of
// each kind after the ones its state holds, the same on every run.
type offsetIDs struct{ sandbox.IDSource }

func newOffsetIDs() offsetIDs {
	src := sandbox.Sequential()
	for _, k := range []sandbox.IDKind{sandbox.IDOrder, sandbox.IDPayment, sandbox.IDToken, sandbox.IDRefund, sandbox.IDAuthCode, sandbox.IDRRN} {
		for range 500 {
			src.NewID(k)
		}
	}
	return offsetIDs{src}
}

// countingReader is a deterministic source of the engine's ids.
type countingReader struct{ n byte }

func (c *countingReader) Read(p []byte) (int, error) {
	for i := range p {
		c.n++
		p[i] = c.n
	}
	return len(p), nil
}

// oldJournalTill opens the engine and till on journal j with the sandbox whose
// state is in stateFile; qrKey, when set, signs the receipts' QR codes.
func oldJournalTill(t *testing.T, j *memJournal, stateFile string, clock *testclock.Clock, ids sandbox.IDSource, rnd *countingReader, qrKey []byte) (*rig, *Till) {
	t.Helper()
	sb, err := sandbox.New(sandbox.WithClock(clock.Now), sandbox.WithStateFile(stateFile), sandbox.WithIDs(ids))
	require.NoError(t, err)
	t.Cleanup(func() { _ = sb.Close() })
	gw, err := gateway.New(gateway.Config{
		BaseURL: "http://sandbox.test", MerchantID: sandbox.DefaultMerchantID, AccessCode: sandbox.DefaultAccessCode,
		Secret: sandbox.DefaultSecret, ReturnURL: "http://127.0.0.1/return", HTTPClient: &http.Client{Transport: sb.Transport()},
		Now: clock.Now, Timeout: 2 * time.Second, Retry: gateway.Retry{Max: 2, Base: time.Millisecond, Cap: 2 * time.Millisecond},
	})
	require.NoError(t, err)
	cfg := Config{Journal: j, Gateway: gw, Clock: clock, Customer: Customer{Mobile: "9000000001", Email: "counter@example.com"}}
	if rnd != nil {
		cfg.Rand = rnd
	}
	e, err := New(cfg)
	require.NoError(t, err)
	cat, err := LoadCatalogJSON(catalogJSON(t))
	require.NoError(t, err)
	r := &rig{e: e, sb: sb, j: j, clock: clock, gw: gw, td: sandbox.TestData(), cat: cat}
	tl, err := NewTill(t.Context(), TillConfig{Engine: e, SampleCatalog: catalogJSON(t), QRKey: qrKey})
	require.NoError(t, err)
	return r, tl
}

// oldJournalReads are what the till reads of the old journal's sales: the X
// report of their day, each paid sale's receipt and what of it can be
// returned. after adds the refund receipts of the card and cash sales.
func oldJournalReads(t *testing.T, tl *Till, f oldJournalFixture, after bool) map[string]string {
	t.Helper()
	ctx := t.Context()
	out := map[string]string{}
	rep, err := tl.Books.Report(ctx, ToDay(oldJournalAt))
	require.NoError(t, err)
	b, err := json.MarshalIndent(rep, "", "  ")
	require.NoError(t, err)
	out["x-report.json"] = string(b)
	sales := map[string]string{"cash": f.Cash, "card": f.Card, "emi": f.EMI, "note": f.Note}
	if after {
		sales["declined"] = f.Declined
	}
	for name, id := range sales {
		d, err := tl.Documents.ReceiptDocument(ctx, id, -1)
		require.NoError(t, err, name)
		var w bytes.Buffer
		require.NoError(t, receipts.Text(&w, d.Receipt, 48))
		out["receipt-"+name+".txt"] = w.String()
		v, err := tl.Returns.ReturnView(ctx, id)
		require.NoError(t, err, name)
		b, err := json.MarshalIndent(v, "", "  ")
		require.NoError(t, err)
		out["return-"+name+".json"] = string(b)
	}
	if after {
		for name, id := range map[string]string{"card": f.Card, "cash": f.Cash} {
			d, err := tl.Documents.ReceiptDocument(ctx, id, 0)
			require.NoError(t, err, name)
			var w bytes.Buffer
			require.NoError(t, receipts.Text(&w, d.Receipt, 48))
			out["refund-"+name+".txt"] = w.String()
		}
	}
	return out
}

// oldJournalActs refunds part of the card sale to its card, returns the cash
// sale's cable in cash and pays the declined card order again with a good card.
func oldJournalActs(t *testing.T, r *rig, tl *Till, f oldJournalFixture) {
	t.Helper()
	ctx := t.Context()
	ref, err := tl.Returns.RefundOrder(ctx, RefundRequest{OrderID: f.Card, Amount: 20000, PIN: managerPIN, Reason: "scratched"})
	require.NoError(t, err)
	require.Equal(t, RefundDone, ref.Status, ref.Reason)
	assert.Equal(t, RefundToCard, ref.Refund.To, "a card sale's refund goes back to its card")
	ret, err := tl.Returns.Return(ctx, ReturnRequest{Document: f.Cash, Items: []ReturnQty{{SKU: "ACC-CBL", Qty: 1}}, To: RefundToCash, PIN: managerPIN})
	require.NoError(t, err)
	require.Equal(t, RefundDone, ret.Status)
	o, err := tl.Checkout.PayAgainOrder(ctx, f.Declined)
	require.NoError(t, err, "a declined order of one tender is paid again on itself")
	out, err := tl.Checkout.Pay(ctx, PayRequest{OrderID: o.ID, Tender: TenderCard, Card: card("4111111111111111"), OTP: r.td.OTP,
		Unattended: true, Cashier: "001"}, nil)
	require.NoError(t, err)
	require.Equal(t, StatePaid, out.State, out.Reason)
	assert.Equal(t, f.Declined, out.OrderID)
}

// idRE matches the engine's ids made after the journal was opened (refunds'
// unique_txn_ids): they are deterministic, but their time part is the clock's.
var idRE = regexp.MustCompile(`\b(R)\d{14}-[0-9a-f]{8}\b`)

// TestOldJournal opens the journal the sale path of one tender wrote and reads
// the same X report, receipts and returnable amounts as that build did, and a
// refund, a return and a declined order paid again give the same documents and
// report.
func TestOldJournal(t *testing.T) {
	r, tl, f := openOldJournal(t, func(Event) bool { return true }, oldJournalAt, nil)
	for _, id := range []string{f.Cash, f.Card, f.EMI, f.Note} {
		o, err := r.e.Order(t.Context(), id)
		require.NoError(t, err)
		require.NotEqual(t, TenderSplit, o.Tender, "the old journal's sales are orders of one tender")
		require.Empty(t, o.Tenders)
	}
	checkOldJournal(t, "before", oldJournalReads(t, tl, f, false))
	oldJournalActs(t, r, tl, f)
	checkOldJournal(t, "after", oldJournalReads(t, tl, f, true))
}

// oldJournalEvents is the old journal's events, in order.
func oldJournalEvents(t *testing.T) []Event {
	t.Helper()
	ev, err := os.Open(filepath.Join(oldJournalDir, "events.jsonl"))
	require.NoError(t, err)
	defer ev.Close()
	var out []Event
	sc := bufio.NewScanner(ev)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var e Event
		require.NoError(t, json.Unmarshal(sc.Bytes(), &e), "event %d of the old journal", len(out)+1)
		out = append(out, e)
	}
	require.NoError(t, sc.Err())
	require.NotEmpty(t, out)
	return out
}

// openOldJournal opens a copy of the old journal holding the events keep
// keeps, with its staff and the payment service's state, on a clock at at;
// qrKey, when set, signs the receipts' QR codes. It returns the rig, the till
// and the old journal's orders.
func openOldJournal(t *testing.T, keep func(Event) bool, at time.Time, qrKey []byte) (*rig, *Till, oldJournalFixture) {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join(oldJournalDir, "sandbox.state"))
	require.NoError(t, err)
	state := filepath.Join(t.TempDir(), "sandbox.state")
	require.NoError(t, os.WriteFile(state, raw, 0o600))
	var f oldJournalFixture
	readJSON(t, filepath.Join(oldJournalDir, "orders.json"), &f)
	j := newMemJournal()
	var staff []Staff
	readJSON(t, filepath.Join(oldJournalDir, "staff.json"), &staff)
	for _, s := range staff {
		require.NoError(t, j.Put(t.Context(), s))
	}
	n := 0
	for _, e := range oldJournalEvents(t) {
		if !keep(e) {
			continue
		}
		_, err := j.Append(t.Context(), e)
		require.NoError(t, err, "event %d (%s) of the old journal", e.Seq, e.Kind)
		n++
	}
	require.Positive(t, n)
	r, tl := oldJournalTill(t, j, state, testclock.New(at), newOffsetIDs(), &countingReader{}, qrKey)
	return r, tl, f
}

// checkOldJournal compares what was read with the golden files of stage.
func checkOldJournal(t *testing.T, stage string, got map[string]string) {
	t.Helper()
	names := make([]string, 0, len(got))
	for name := range got {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		path := filepath.Join(oldJournalDir, stage+"-"+name+".golden")
		text := idRE.ReplaceAllString(got[name], "${1}ID")
		if *updateOldJournal {
			require.NoError(t, os.WriteFile(path, []byte(text), 0o644))
			continue
		}
		want, err := os.ReadFile(path)
		require.NoError(t, err)
		assert.Equal(t, string(want), text, "%s of the old journal (%s)", strings.TrimSuffix(name, filepath.Ext(name)), stage)
	}
}

func readJSON(t *testing.T, path string, v any) {
	t.Helper()
	b, err := os.ReadFile(path)
	require.NoError(t, err)
	require.NoError(t, json.Unmarshal(b, v))
}
