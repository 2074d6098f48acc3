package store

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"galla/pos"
	"galla/store/api"
)

// counter writes a terminal's journal as pos would: events in sequence with a
// hash chain, and the orders they make (pos.Order.Apply), so that a test can
// ask for the counter's own report (pos.BuildReport).
type counter struct {
	t       testing.TB
	id      string
	seq     uint64
	prev    string
	receipt uint64
	clock   time.Time
	events  []api.Event
	orders  map[string]*pos.Order
	ids     []string
	// buyer is the buyer the next intent names (then nil).
	buyer *pos.Buyer
}

func newCounter(t testing.TB, id string) *counter {
	return &counter{t: t, id: id, prev: zero, clock: time.Date(2026, 11, 24, 10, 0, 0, 0, time.UTC), orders: map[string]*pos.Order{}}
}

// add journals ev: its sequence, time and hashes, applied to its order.
func (c *counter) add(ev pos.Event) {
	c.t.Helper()
	c.seq++
	c.clock = c.clock.Add(time.Minute)
	ev.V, ev.Seq, ev.Time, ev.PrevHash = pos.EventVersion, c.seq, c.clock, c.prev
	h := sha256.Sum256(fmt.Appendf(nil, "%s|%s|%d|%s", c.id, c.prev, c.seq, ev.Kind))
	ev.Hash = hex.EncodeToString(h[:])
	if ev.Kind.IsOrderEvent() {
		o := c.orders[ev.OrderID]
		if o == nil {
			o = &pos.Order{}
			c.orders[ev.OrderID] = o
			c.ids = append(c.ids, ev.OrderID)
		}
		require.NoError(c.t, o.Apply(ev))
	}
	body, err := json.Marshal(ev)
	require.NoError(c.t, err)
	c.events = append(c.events, api.Event{Seq: ev.Seq, Hash: ev.Hash, PrevHash: ev.PrevHash, Kind: string(ev.Kind), Day: ev.Day, Body: body})
	c.prev = ev.Hash
}

// sent returns the events not yet taken and forgets them.
func (c *counter) sent() []api.Event {
	out := c.events
	c.events = nil
	return out
}

func line(sku string, qty int, rupees int64, rate int, imeis ...string) pos.Line {
	return pos.Line{SKU: sku, Name: "Item " + sku, HSN: "8517", Qty: qty, UnitPrice: pos.Rupees(rupees), GSTRate: pos.Percent(rate), Serialised: len(imeis) > 0, IMEIs: imeis}
}

func (c *counter) intent(id, day string, tender pos.TenderKind, phone string, lines ...pos.Line) pos.Paise {
	totals := pos.ComputeTotals(lines)
	in := &pos.Intent{Tender: tender, Lines: lines, Totals: totals, Amount: totals.Total}
	if phone != "" {
		in.Customer = &pos.Customer{CountryCode: "+91", Mobile: phone}
	}
	in.Buyer, c.buyer = c.buyer, nil
	c.add(pos.Event{Kind: pos.EvOrderIntent, OrderID: id, Day: day, Staff: "asha", Intent: in})
	return totals.Total
}

// cashSale journals a cash sale on day.
func (c *counter) cashSale(id, day string, lines ...pos.Line) {
	amount := c.intent(id, day, pos.TenderCash, "", lines...)
	c.receipt++
	c.add(pos.Event{Kind: pos.EvCashReceived, OrderID: id, Day: day, ReceiptNo: c.receipt, Cash: &pos.CashEvent{Tendered: amount}})
}

// cardSale journals a card sale up to its payment: charged, or left unknown.
func (c *counter) cardSale(id, day, last4, phone string, charged bool, lines ...pos.Line) {
	amount := c.intent(id, day, pos.TenderCard, phone, lines...)
	c.add(pos.Event{Kind: pos.EvOrderCreated, OrderID: id, Day: day, Created: &pos.Created{ServiceOrderID: "S-" + id, Token: "tok"}})
	c.add(pos.Event{Kind: pos.EvPaymentAttempt, OrderID: id, Day: day, Attempt: &pos.AttemptEvent{N: 1, CardBrand: "VISA", CardLast4: last4}})
	if !charged {
		c.add(pos.Event{Kind: pos.EvOrderUnknown, OrderID: id, Day: day, Reason: "the answer was lost"})
		return
	}
	c.receipt++
	c.add(pos.Event{Kind: pos.EvPaymentOutcome, OrderID: id, Day: day, ReceiptNo: c.receipt, Outcome: &pos.Outcome{
		MerchantOrderID: id, ServiceOrderID: "S-" + id, PaymentID: "P-" + id, OrderStatus: "CHARGED", PaymentStatus: "CAPTURED",
		Amount: amount, Captured: amount, MaskedCard: "XXXX" + last4}})
}

// refund journals a refund of amount done on day.
func (c *counter) refund(id, day string, amount pos.Paise) {
	uid := fmt.Sprintf("R-%s-%d", id, c.seq)
	c.add(pos.Event{Kind: pos.EvRefundIntent, OrderID: id, Day: day, Refund: &pos.RefundEvent{UniqueTxnID: uid, Amount: amount}})
	c.receipt++
	c.add(pos.Event{Kind: pos.EvRefundDone, OrderID: id, Day: day, ReceiptNo: c.receipt, Refund: &pos.RefundEvent{UniqueTxnID: uid, Amount: amount, RefundID: "RF-" + uid}})
}

// storeShop is the shop of the store and its counters: a regular registrant,
// whose documents and reports state their GST.
var storeShop = pos.Shop{Name: "Galla Mobiles", Address: []string{"FC Road, Pune"}, GSTIN: storeGSTIN, State: "27"}

// report is the counter's own report of day (what its till prints), for
// storeShop.
func (c *counter) report(day string) *pos.Report {
	var os []*pos.Order
	for _, id := range c.ids {
		os = append(os, c.orders[id])
	}
	return pos.ShopReport(day, os, c.clock, storeShop)
}

// closeDay journals day.closed with the counter's report sealed as Z.
func (c *counter) closeDay(day string, zno uint64) *pos.Report {
	c.t.Helper()
	r := c.report(day)
	r.Kind, r.ZNo = "Z", zno
	sealed, err := pos.SealedReport(r)
	require.NoError(c.t, err)
	c.add(pos.Event{Kind: pos.EvDayClosed, Day: day, Staff: "meera", DayClose: &pos.DayClose{Day: day, ZNo: zno, Report: sealed}})
	return r
}

const day1 = "2026-11-24"

// storeDay fills two counters with a day of sales: cash, card, a refund, an
// unknown payment, IMEIs, and sends their events.
func storeDay(t *testing.T, db *DB) (t1, t2 *counter) {
	_, err := db.Master.PublishShop(t.Context(), storeShop, "meera") // a regular registrant: the reports state GST
	require.NoError(t, err)
	enrolled(t, db, "T1")
	enrolled(t, db, "T2")
	t1, t2 = newCounter(t, "T1"), newCounter(t, "T2")
	// T1: ₹1,180 at 18% and 2 × ₹105 at 5% in cash; a ₹59,000 phone by card,
	// ₹1,000 of it refunded; a ₹500 card sale whose answer was lost.
	t1.cashSale("T1-A", day1, line("CHG", 1, 1180, 18), line("TEA", 2, 105, 5))
	t1.cardSale("T1-B", day1, "4242", "9876543210", true, line("PHN", 1, 59000, 18, "356938035643809"))
	t1.refund("T1-B", day1, pos.Rupees(1000))
	t1.cardSale("T1-C", day1, "1111", "", false, line("CAS", 1, 500, 12))
	// T2: ₹2,360 cash at 18% (2 × ₹1,180), ₹11,800 by card.
	t2.cashSale("T2-A", day1, line("CHG", 2, 1180, 18))
	t2.cardSale("T2-B", day1, "5555", "", true, line("WAT", 1, 11800, 18))
	for _, c := range []*counter{t1, t2} {
		_, err := db.Events.Ingest(t.Context(), c.id, c.sent())
		require.NoError(t, err)
	}
	require.NoError(t, db.Projections.Project(t.Context()))
	return t1, t2
}

func TestProjectionsOfADay(t *testing.T) {
	db := newDB(t)
	t1, t2 := storeDay(t, db)
	ctx := t.Context()

	var n int
	require.NoError(t, db.Pool().QueryRow(ctx, "SELECT count(*) FROM orders").Scan(&n))
	assert.Equal(t, 5, n)
	var state string
	var captured, refunded int64
	require.NoError(t, db.Pool().QueryRow(ctx, "SELECT state, captured, refunded FROM orders WHERE terminal_id = 'T1' AND order_id = 'T1-B'").Scan(&state, &captured, &refunded))
	assert.Equal(t, "PARTLY_REFUNDED", state)
	assert.Equal(t, int64(5900000), captured)
	assert.Equal(t, int64(100000), refunded)
	require.NoError(t, db.Pool().QueryRow(ctx, "SELECT state FROM orders WHERE order_id = 'T1-C'").Scan(&state))
	assert.Equal(t, "UNKNOWN", state)

	require.NoError(t, db.Pool().QueryRow(ctx, "SELECT count(*) FROM order_lines WHERE terminal_id = 'T1' AND order_id = 'T1-A'").Scan(&n))
	assert.Equal(t, 2, n)
	var imeiOrder string
	require.NoError(t, db.Pool().QueryRow(ctx, "SELECT order_id FROM imei_units WHERE imei = '356938035643809'").Scan(&imeiOrder))
	assert.Equal(t, "T1-B", imeiOrder)
	// Receipts 1 (A), 2 (B) and 3 (B's refund) on T1; 1 and 2 on T2.
	var docs []string
	rs, err := db.Pool().Query(ctx, "SELECT number || ' ' || kind || ' ' || amount FROM documents ORDER BY number")
	require.NoError(t, err)
	for rs.Next() {
		var s string
		require.NoError(t, rs.Scan(&s))
		docs = append(docs, s)
	}
	require.NoError(t, rs.Err())
	assert.Equal(t, []string{"T1/000001 receipt 139000", "T1/000002 receipt 5900000", "T1/000003 refund receipt 100000",
		"T2/000001 receipt 236000", "T2/000002 receipt 1180000"}, docs)

	r, err := db.Reports.DayReport(ctx, day1)
	require.NoError(t, err)
	require.Len(t, r.Counters, 2)
	// Hand-computed: T1 sold ₹1,390 cash + ₹59,000 card, refunded ₹1,000;
	// T2 sold ₹2,360 cash + ₹11,800 card.
	c1, c2 := r.Counters[0], r.Counters[1]
	assert.Equal(t, "T1", c1.Terminal)
	assert.Equal(t, pos.Rupees(60390), c1.GrossSales)
	assert.Equal(t, pos.Rupees(1000), c1.Refunded)
	assert.Equal(t, pos.Rupees(59390), c1.NetSales)
	assert.Equal(t, pos.Rupees(1390), c1.CashExpected)
	assert.Equal(t, pos.Count{Count: 1, Amount: pos.Rupees(500)}, c1.Unknown)
	assert.Equal(t, pos.Rupees(14160), c2.GrossSales)
	assert.Equal(t, pos.Rupees(74550), r.Store.GrossSales)
	assert.Equal(t, pos.Rupees(73550), r.Store.NetSales)
	// 18% GST in ₹1,180 is ₹180; in ₹59,000 ₹9,000; 5% in ₹210 is ₹10; T2: ₹360 + ₹1,800.
	assert.Equal(t, pos.Rupees(180+9000+10), c1.Tax)
	assert.Equal(t, pos.Rupees(2160), c2.Tax)
	assert.Equal(t, []pos.TenderTotal{{Tender: pos.TenderCard, Count: 2, Amount: pos.Rupees(70800)}, {Tender: pos.TenderCash, Count: 2, Amount: pos.Rupees(3750)}}, r.Store.Sales)

	// Each counter's totals are its own report's, and the store's their sum.
	for i, c := range []*counter{t1, t2} {
		own := c.report(day1)
		got := r.Counters[i]
		assert.Equal(t, own.GrossSales, got.GrossSales, c.id)
		assert.Equal(t, own.Refunded, got.Refunded, c.id)
		assert.Equal(t, own.NetSales, got.NetSales, c.id)
		assert.Equal(t, own.CashExpected, got.CashExpected, c.id)
		assert.Equal(t, own.Unknown, got.Unknown, c.id)
		assert.Equal(t, own.Failed, got.Failed, c.id)
		assert.Equal(t, own.Sales, got.Sales, c.id)
		assert.Equal(t, own.Refunds, got.Refunds, c.id)
		assert.Equal(t, own.GST, got.GST, c.id)
	}
}

// dump is every projected row, as text, table by table.
func dump(t *testing.T, db *DB) map[string][]string {
	out := map[string][]string{}
	for _, table := range projectedTables {
		rs, err := db.Pool().Query(t.Context(), fmt.Sprintf("SELECT to_jsonb(x)::text FROM %s x ORDER BY 1", table))
		require.NoError(t, err)
		for rs.Next() {
			var s string
			require.NoError(t, rs.Scan(&s))
			out[table] = append(out[table], s)
		}
		require.NoError(t, rs.Err())
	}
	return out
}

func TestRebuildGivesTheRowsOfIncrementalProjection(t *testing.T) {
	db := newDB(t)
	t1, t2 := storeDay(t, db)
	// More batches: T1 settles nothing new but closes its day; T2 sells again
	// the next day in two batches.
	t1.closeDay(day1, 1)
	_, err := db.Events.Ingest(t.Context(), "T1", t1.sent())
	require.NoError(t, err)
	t2.cashSale("T2-C", "2026-11-25", line("TEA", 3, 105, 5))
	_, err = db.Events.Ingest(t.Context(), "T2", t2.sent())
	require.NoError(t, err)
	t2.refund("T2-C", "2026-11-25", pos.Rupees(105))
	_, err = db.Events.Ingest(t.Context(), "T2", t2.sent())
	require.NoError(t, err)

	require.NoError(t, db.Decisions.ReserveIMEIs(t.Context(), "T2", "T2-D", []string{"490154203237518"})) // projects
	before := dump(t, db)
	require.Len(t, before["z_reports"], 1)
	require.NotEmpty(t, before["payments"])
	st, err := db.Projections.Rebuild(t.Context())
	require.NoError(t, err)
	assert.Equal(t, 2, st.Terminals)
	assert.Equal(t, int64(6), st.Orders)
	assert.Equal(t, before, dump(t, db))
	err = db.Decisions.ReserveIMEIs(t.Context(), "T1", "T1-X", []string{"490154203237518"})
	require.Error(t, err, "a rebuild leaves the reservations alone")
}

func TestProjectionSkipsUnknownKindsAndBadBodies(t *testing.T) {
	db := newDB(t)
	enrolled(t, db, "T1")
	c := newCounter(t, "T1")
	c.add(pos.Event{Kind: "shelf.counted", Day: day1, Extra: map[string]string{"shelf": "A3"}}) // a kind this store does not know
	c.cashSale("T1-A", day1, line("TEA", 1, 105, 5))
	// An order event for an order whose intent the store never saw.
	c.add(pos.Event{Kind: pos.EvReceiptReprinted, OrderID: "T1-A", Day: day1, Print: &pos.PrintEvent{}})
	evs := c.sent()
	// A refund.done for an order nobody journaled: pos refuses it; the store too.
	ghost, _ := json.Marshal(pos.Event{V: 1, Seq: c.seq + 1, Kind: pos.EvRefundDone, OrderID: "nobody", Day: day1,
		PrevHash: c.prev, Hash: hex.EncodeToString(make([]byte, 31)) + "01", Refund: &pos.RefundEvent{UniqueTxnID: "u", Amount: 5}})
	evs = append(evs, api.Event{Seq: c.seq + 1, Hash: hex.EncodeToString(make([]byte, 31)) + "01", PrevHash: c.prev, Kind: "refund.done", Day: day1, Body: ghost})
	resp, err := db.Events.Ingest(t.Context(), "T1", evs)
	require.NoError(t, err)
	assert.Equal(t, len(evs), resp.Stored, "every event is stored, projected or not")
	require.NoError(t, db.Projections.Project(t.Context()))
	var n int
	require.NoError(t, db.Pool().QueryRow(t.Context(), "SELECT count(*) FROM orders").Scan(&n))
	assert.Equal(t, 1, n)
	require.NoError(t, db.Pool().QueryRow(t.Context(), "SELECT count(*) FROM payments").Scan(&n))
	assert.Equal(t, 1, n)
}

func TestTheServerProjectsEachBatchAndCatchUpsTakeTurns(t *testing.T) {
	db := newDB(t)
	srv := httptest.NewServer(NewServer(db, nil))
	defer srv.Close()
	cred := enrolled(t, db, "T1")
	c := newCounter(t, "T1")
	c.cashSale("T1-A", day1, line("TEA", 2, 105, 5))
	body, err := json.Marshal(api.Batch{TerminalID: "T1", Events: c.sent()})
	require.NoError(t, err)
	var br api.BatchResponse
	require.Equal(t, 200, post(t, srv.URL, "POST", api.PathEvents, "T1", cred, time.Now(), newNonce(), body, &br))
	var state string
	require.NoError(t, db.Pool().QueryRow(t.Context(), "SELECT state FROM orders WHERE order_id = 'T1-A'").Scan(&state))
	assert.Equal(t, "PAID", state, "projected when the batch was answered")

	// Events stored by another copy of the server: two catch-ups at once
	// project them once.
	for i := range 5 {
		c.cardSale(fmt.Sprintf("T1-C%d", i), day1, "4242", "", true, line("PHN", 1, 1000, 18))
	}
	_, err = db.Events.Ingest(t.Context(), "T1", c.sent())
	require.NoError(t, err)
	errs := make(chan error, 2)
	for range 2 {
		go func() { errs <- db.Projections.Project(t.Context()) }()
	}
	require.NoError(t, <-errs)
	require.NoError(t, <-errs)
	once := dump(t, db)
	require.Len(t, once["payments"], 6)
	_, err = db.Projections.Rebuild(t.Context())
	require.NoError(t, err)
	assert.Equal(t, once, dump(t, db))
}

func TestAnEventTheProjectionsCannotHoldIsSkippedWithAnAlarm(t *testing.T) {
	db := newDB(t)
	enrolled(t, db, "T1")
	c := newCounter(t, "T1")
	c.cashSale("T1-A", day1, line("TEA", 1, 105, 5))
	// A quantity beyond what a line's row holds: pos takes it, the table cannot.
	big := line("BIG", 1, 1, 5)
	big.Qty = 1 << 40
	c.add(pos.Event{Kind: pos.EvOrderIntent, OrderID: "T1-BIG", Day: day1, Intent: &pos.Intent{Tender: pos.TenderCash,
		Lines: []pos.Line{big}, Totals: pos.Totals{Total: 100}, Amount: 100}})
	c.cashSale("T1-B", day1, line("TEA", 2, 105, 5))
	_, err := db.Events.Ingest(t.Context(), "T1", c.sent())
	require.NoError(t, err)
	require.NoError(t, db.Projections.Project(t.Context()))

	var ids []string
	rs, err := db.Pool().Query(t.Context(), "SELECT order_id FROM orders ORDER BY order_id")
	require.NoError(t, err)
	for rs.Next() {
		var id string
		require.NoError(t, rs.Scan(&id))
		ids = append(ids, id)
	}
	assert.Equal(t, []string{"T1-A", "T1-B"}, ids, "the events around the bad one are projected")
	var kind string
	var seq int64
	require.NoError(t, db.Pool().QueryRow(t.Context(), "SELECT kind, seq FROM alarms WHERE terminal_id = 'T1'").Scan(&kind, &seq))
	assert.Equal(t, AlarmProjection, kind)
	assert.Equal(t, int64(3), seq)
	var mark int64
	require.NoError(t, db.Pool().QueryRow(t.Context(), "SELECT seq FROM projection_marks WHERE terminal_id = 'T1'").Scan(&mark))
	assert.Equal(t, int64(5), mark)
}
