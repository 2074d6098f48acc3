package web

import (
	"encoding/json"
	"errors"
	"html"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"galla/pos"
	"galla/store"
)

// The manager's pages say what is true at a glance (issue 24): returns at
// any counter, open sales apart from unknown payments, the events that came
// after a store Z, the day's overrides with names, what a counter that sent
// nothing is, and the store's address alone opens them.

// emptyStore is a migrated store with manager Meera and counters ids
// enrolled, nothing synced.
func emptyStore(t *testing.T, ids ...string) *store.DB {
	t.Helper()
	db, err := store.Open(t.Context(), cluster.Database(t), storeKey(t))
	require.NoError(t, err)
	t.Cleanup(db.Close)
	_, err = db.Migrate(t.Context())
	require.NoError(t, err)
	for _, id := range ids {
		code, _, err := db.Access.EnrolCode(t.Context(), id)
		require.NoError(t, err)
		_, err = db.Access.Enrol(t.Context(), code, newPublicKey(t))
		require.NoError(t, err)
	}
	_, err = AddManager(t.Context(), db, "Meera", "246810")
	require.NoError(t, err)
	publishShop(t, db)
	return db
}

// pages signs Meera in on a fresh server of db and returns a getter of pages.
func pages(t *testing.T, db *store.DB) func(path string) (int, string) {
	t.Helper()
	p := New(db, nil)
	srv := httptest.NewTLSServer(p)
	t.Cleanup(srv.Close)
	c := client(t)
	r := signin(t, c, srv.URL, "Meera", "246810")
	body(t, r)
	require.Equal(t, http.StatusSeeOther, r.StatusCode)
	return func(path string) (int, string) {
		t.Helper()
		r, err := c.Get(srv.URL + path)
		require.NoError(t, err)
		return r.StatusCode, body(t, r)
	}
}

// ingest stores j's events from event from on.
func ingest(t *testing.T, db *store.DB, j *journal, from int) {
	t.Helper()
	_, err := db.Events.Ingest(t.Context(), j.id, j.events[from:])
	require.NoError(t, err)
	require.NoError(t, db.Projections.Project(t.Context()))
}

var cables = pos.Line{SKU: "CBL", Name: "Cable", HSN: "8544", Qty: 2, UnitPrice: pos.Rupees(499), GSTRate: pos.Percent(18)}

// TestAnInvoiceShowsItsReturnsAtEveryCounter: T1 sold two cables (₹998) in
// cash; T2 took both back on a return order citing T1's invoice. Searched by
// its number, and on its page, T1's invoice says it was returned, at T2,
// with T2's document and where the money went.
func TestAnInvoiceShowsItsReturnsAtEveryCounter(t *testing.T) {
	db := emptyStore(t, "T1", "T2")
	t1 := &journal{t: t, id: "T1", prev: strings.Repeat("0", 64)}
	t1.sale("T1-A", pos.TenderCash, "", "", true, cables)
	ingest(t, db, t1, 0)
	t2 := &journal{t: t, id: "T2", prev: strings.Repeat("0", 64)}
	totals := pos.ComputeTotals([]pos.Line{cables})
	tax := pos.TaxOf(pos.Rupees(998), pos.Percent(18))
	item := pos.ReturnItem{Line: 0, SKU: "CBL", Qty: 2, Amount: pos.Rupees(998), Taxable: tax.Taxable, Tax: tax.Tax, CGST: tax.CGST, Rate: pos.Percent(18)}
	t2.add(pos.Event{Kind: pos.EvOrderIntent, OrderID: "T2-RET", Day: day, Staff: "meera", Intent: &pos.Intent{Tender: pos.TenderCash,
		Lines: []pos.Line{cables}, Totals: totals, Amount: totals.Total,
		Origin: &pos.Origin{Terminal: "T1", OrderID: "T1-A", Number: "T1/000001", Tender: pos.TenderCash, Returnable: pos.Rupees(998)}}})
	t2.add(pos.Event{Kind: pos.EvRefundIntent, OrderID: "T2-RET", Day: day, Staff: "meera",
		Refund: &pos.RefundEvent{UniqueTxnID: "R-T2", Amount: pos.Rupees(998), To: pos.RefundToCash, Items: []pos.ReturnItem{item}}})
	t2.receipt++
	t2.add(pos.Event{Kind: pos.EvRefundDone, OrderID: "T2-RET", Day: day, ReceiptNo: t2.receipt, Refund: &pos.RefundEvent{UniqueTxnID: "R-T2", Amount: pos.Rupees(998)}})
	ingest(t, db, t2, 0)
	get := pages(t, db)

	status, html := get("/manager/search?q=T1%2F000001")
	require.Equal(t, http.StatusOK, status, html)
	row := between(html, `<tr id="row-T1-T1-A">`, `</tr>`)
	assert.Contains(t, row, "PAID, <span class=\"warn\">returned ₹998.00, also at T2</span>", "the invoice's state says it went back elsewhere")
	assert.Contains(t, row, `<td class="num">₹998.00</td><td class="num">₹998.00</td>`, "its amount and what was returned of it")

	status, html = get("/manager/order/T1/T1-A")
	require.Equal(t, http.StatusOK, status, html)
	assert.Contains(t, between(html, `<dd id="returned">`, `</dd>`), "₹998.00 (at this counter ₹0.00; at T2 the rest)")
	returns := between(html, `<table id="returns">`, `</table>`)
	assert.Contains(t, returns, "<td>T2</td><td>T2/000001</td>", "T2's document of the return")
	assert.Contains(t, returns, `<td class="num">₹998.00</td><td>cash</td>`)

	// A sale nothing came back of says so.
	t1.sale("T1-B", pos.TenderCash, "", "", true, cables)
	ingest(t, db, t1, 2)
	_, html = get("/manager/order/T1/T1-B")
	assert.Contains(t, html, `<p id="returns-none">Nothing returned at any counter.</p>`)
	assert.Contains(t, between(html, `<dd id="returned">`, `</dd>`), "₹0.00")
}

// TestAnOpenSaleIsNoUnknownPayment: a ₹1,900 split sale at T1 whose credit
// note tender was refused (its order abandoned) is still open. The day's
// unknown payments are none, in the table as in the list, and the sale is
// listed as open with its refused tender and why; another open sale shows
// what its card tender paid on the order it moved to.
func TestAnOpenSaleIsNoUnknownPayment(t *testing.T) {
	db := emptyStore(t, "T1")
	j := &journal{t: t, id: "T1", prev: strings.Repeat("0", 64)}
	j.refusedNoteSale("T1-S")
	// A second open sale: ₹1,000 of it paid by card on an order its tender
	// moved to (the first order's create answer was lost before any payment).
	phone := pos.Line{SKU: "PHN", Name: "Phone", HSN: "8517", Qty: 1, UnitPrice: pos.Rupees(5000), GSTRate: pos.Percent(18)}
	totals := pos.ComputeTotals([]pos.Line{phone})
	j.add(pos.Event{Kind: pos.EvOrderIntent, OrderID: "T1-P", Day: day, Staff: "asha", Intent: &pos.Intent{Tender: pos.TenderSplit, Lines: []pos.Line{phone}, Totals: totals, Amount: totals.Total}})
	j.add(pos.Event{Kind: pos.EvTenderAdded, OrderID: "T1-P", Day: day, Staff: "asha", Sale: &pos.SaleEvent{Tender: &pos.SaleTender{OrderID: "T1-P-1", Kind: pos.TenderCard, Amount: pos.Rupees(1000)}}})
	part := &pos.Intent{Tender: pos.TenderCard, Lines: []pos.Line{phone}, Totals: totals, Amount: pos.Rupees(1000), Sale: "T1-P"}
	j.add(pos.Event{Kind: pos.EvOrderIntent, OrderID: "T1-P-1", Day: day, Staff: "asha", Intent: part})
	j.add(pos.Event{Kind: pos.EvOrderAbandoned, OrderID: "T1-P-1", Day: day, Reason: "the answer was lost", Abandoned: &pos.Abandoned{Reason: "the answer was lost", NewOrderID: "T1-P-2"}})
	j.add(pos.Event{Kind: pos.EvOrderIntent, OrderID: "T1-P-2", Day: day, Staff: "asha", Intent: part})
	j.add(pos.Event{Kind: pos.EvOrderCreated, OrderID: "T1-P-2", Day: day, Created: &pos.Created{ServiceOrderID: "S-T1-P-2"}})
	j.add(pos.Event{Kind: pos.EvPaymentAttempt, OrderID: "T1-P-2", Day: day, Attempt: &pos.AttemptEvent{N: 1, CardBrand: "VISA", CardLast4: "4242"}})
	j.add(pos.Event{Kind: pos.EvPaymentOutcome, OrderID: "T1-P-2", Day: day, Outcome: &pos.Outcome{MerchantOrderID: "T1-P-2",
		ServiceOrderID: "S-T1-P-2", PaymentID: "P-T1-P-2", OrderStatus: "CHARGED", PaymentStatus: "CAPTURED", Amount: pos.Rupees(1000), Captured: pos.Rupees(1000)}})
	ingest(t, db, j, 0)

	status, html := get200(t, pages(t, db), "/manager/?day="+day)
	require.Equal(t, http.StatusOK, status)
	assert.Contains(t, html, `<th>Unknown payments</th>`)
	assert.Contains(t, between(html, `<tr id="counter-T1">`, `</tr>`), `<td class="num">0</td>`, "no unknown payment in T1's day")
	assert.Contains(t, html, `<p id="unknown-none">`, "the list agrees")
	open := between(html, `<tr id="open-T1-T1-S">`, `</tr>`)
	assert.Contains(t, open, `<td class="num">₹1,900.00</td><td class="num">₹0.00</td>`, "the sale's amount, nothing paid")
	assert.Contains(t, open, "note ₹1,900.00: ABANDONED (the credit note was refused: Credit note T2/C2627/00001 has nothing left to spend.)", "the refused tender and why")
	moved := between(html, `<tr id="open-T1-T1-P">`, `</tr>`)
	assert.Contains(t, moved, `<td class="num">₹5,000.00</td><td class="num">₹1,000.00</td>`, "paid so far on the order the tender moved to")
	assert.Contains(t, moved, "card ₹1,000.00: PAID")
}

// refusedNoteSale journals a ₹1,900 split sale id whose one tender, credit
// note T2/C2627/00001, was refused (its order abandoned): the sale is open.
func (j *journal) refusedNoteSale(id string) {
	line := pos.Line{SKU: "CAS", Name: "Case", HSN: "3926", Qty: 1, UnitPrice: pos.Rupees(1900), GSTRate: pos.Percent(18)}
	totals := pos.ComputeTotals([]pos.Line{line})
	j.add(pos.Event{Kind: pos.EvOrderIntent, OrderID: id, Day: day, Staff: "asha", Intent: &pos.Intent{Tender: pos.TenderSplit, Lines: []pos.Line{line}, Totals: totals, Amount: totals.Total}})
	j.add(pos.Event{Kind: pos.EvTenderAdded, OrderID: id, Day: day, Staff: "asha", Sale: &pos.SaleEvent{Tender: &pos.SaleTender{OrderID: id + "-1", Kind: pos.TenderNote, Amount: totals.Total, NoteNo: "T2/C2627/00001"}}})
	j.add(pos.Event{Kind: pos.EvOrderIntent, OrderID: id + "-1", Day: day, Staff: "asha", Intent: &pos.Intent{Tender: pos.TenderNote, Lines: []pos.Line{line}, Totals: totals, Amount: totals.Total, Sale: id, Note: "T2/C2627/00001"}})
	reason := "the credit note was refused: " + pos.Sentence(pos.Errorf("Credit note T2/C2627/00001 has nothing left to spend."))
	j.add(pos.Event{Kind: pos.EvOrderAbandoned, OrderID: id + "-1", Day: day, Reason: reason, Abandoned: &pos.Abandoned{Reason: reason}})
}

func get200(t *testing.T, get func(string) (int, string), path string) (int, string) {
	t.Helper()
	status, html := get(path)
	require.Equal(t, http.StatusOK, status, html)
	return status, html
}

// TestEventsAfterTheStoreZAreFlagged: T1 sold ₹1,180 and closed its day; the
// store's Z sealed it. Then T1 synced another ₹998 sale of the same day. The
// day page and the Z page both say the day is closed and that an event came
// after, list it, and say how the live totals moved from the Z's.
func TestEventsAfterTheStoreZAreFlagged(t *testing.T) {
	db := emptyStore(t, "T1")
	j := &journal{t: t, id: "T1", prev: strings.Repeat("0", 64)}
	j.sale("T1-A", pos.TenderCash, "", "", true, pos.Line{SKU: "CHG", Name: "Charger", HSN: "8504", Qty: 1, UnitPrice: pos.Rupees(1180), GSTRate: pos.Percent(18)})
	rep, err := json.Marshal(pos.Report{Kind: "Z", ZNo: 1, Day: day, GrossSales: pos.Rupees(1180), NetSales: pos.Rupees(1180), CashExpected: pos.Rupees(1180),
		GST: []pos.RateTotal{{Rate: pos.Percent(18), Amount: pos.Rupees(1180), Taxable: pos.Rupees(1000), Tax: pos.Rupees(180), CGST: pos.Rupees(90), SGST: pos.Rupees(90)}}})
	require.NoError(t, err)
	j.add(pos.Event{Kind: pos.EvDayClosed, Day: day, Staff: "meera", DayClose: &pos.DayClose{Day: day, ZNo: 1, Report: rep}})
	ingest(t, db, j, 0)
	get := pages(t, db)
	_, err = db.Reports.CloseStoreDay(t.Context(), day, "Meera")
	require.NoError(t, err)
	_, page := get200(t, get, "/manager/?day="+day)
	assert.NotContains(t, page, `id="late"`, "nothing came after the Z yet")

	n := len(j.events)
	j.sale("T1-LATE", pos.TenderCash, "", "", true, cables)
	ingest(t, db, j, n)
	for _, path := range []string{"/manager/?day=" + day, "/manager/z?day=" + day} {
		_, page = get200(t, get, path)
		late := html.UnescapeString(between(page, `<section id="late" class="late">`, `</section>`))
		assert.Contains(t, late, "2 event(s) of this day reached the store after its Z was sealed", path)
		assert.Contains(t, late, "Since the Z: gross +₹998.00, refunds ₹0.00, net +₹998.00, GST +₹152.24, cash expected +₹998.00.", path)
		assert.Contains(t, late, `<td>T1</td><td class="num">4</td><td>a sale or order opened (order.intent)</td><td><a href="/manager/order/T1/T1-LATE">T1-LATE</a></td>`, path)
		assert.Contains(t, late, `<td class="num">5</td><td>cash taken (cash.received)</td>`, path)
	}
	assert.Contains(t, between(page, `<p id="z-closed">`, `</p>`), "Closed by Meera", "the sealed Z stays")
	_, page = get200(t, get, "/manager/?day="+day)
	assert.Contains(t, between(page, `<p class="notice" id="closed">`, `</p>`), "2 event(s) came after it: the totals below are not the Z's.")
}

// TestTheDaysOverridesWithNames: T2's manager Ravi Kumar (the store's S001)
// let two IMEIs through while the store could not be reached, one on the day
// (journaled without a day, as a counter's audit events are) and one the day
// before. The day's list has the day's only, with its day, time and the
// manager's name, and the network error said in words.
func TestTheDaysOverridesWithNames(t *testing.T) {
	db := emptyStore(t, "T2")
	ravi, err := db.Staff.AddStaff(t.Context(), "Ravi Kumar", pos.RoleManager, "864213", nil, "Meera")
	require.NoError(t, err)
	j := &journal{t: t, id: "T2", prev: strings.Repeat("0", 64)}
	dial := errors.Join(pos.ErrStoreOffline, errors.New(`Post "https://10.0.0.5:8443/api/v1/reserve/imei": dial tcp 10.0.0.5:8443: connect: connection refused`))
	j.add(pos.Event{Kind: pos.EvOverride, Day: "2026-11-23", Staff: ravi.ID, Extra: pos.IMEIOverride("T2-OLD", []string{"490154203237518"}, pos.ErrStoreOffline)})
	j.add(pos.Event{Kind: pos.EvOverride, Staff: ravi.ID, Extra: pos.IMEIOverride("T2-B", []string{"356938035643809"}, dial)})
	ingest(t, db, j, 0)

	_, html := get200(t, pages(t, db), "/manager/?day="+day)
	ov := between(html, `<table id="overrides">`, `</table>`)
	assert.Contains(t, ov, "<td>T2</td><td>2026-11-24</td><td>"+time.Date(2026, 11, 24, 10, 0, 2, 0, time.UTC).Local().Format("15:04")+"</td><td>Ravi Kumar ("+ravi.ID+")</td>")
	assert.Contains(t, ov, "order T2-B, IMEI 356938035643809 (the store server refused the connection: it was not running, or listens at another port)")
	assert.NotContains(t, ov, "dial tcp", "no raw network error")
	assert.NotContains(t, ov, "T2-OLD", "the day before is not this day's")

	_, html = get200(t, pages(t, db), "/manager/?day=2026-11-23")
	assert.Contains(t, between(html, `<table id="overrides">`, `</table>`), "order T2-OLD, IMEI 490154203237518 (the store server cannot be asked)")
}

// TestACounterThatSentNothingSaysSince and the store's address alone: a
// counter enrolled and silent is "enrolled …, nothing synced yet", not
// "never synced"; / sends the browser to the pages.
func TestACounterThatSentNothingSaysSince(t *testing.T) {
	db := emptyStore(t, "T3")
	var enrolled time.Time
	require.NoError(t, db.Pool().QueryRow(t.Context(), "SELECT enrolled_at FROM terminals WHERE id = 'T3'").Scan(&enrolled))
	_, html := get200(t, pages(t, db), "/manager/")
	row := between(html, `<tr id="sync-T3">`, `</tr>`)
	assert.Contains(t, row, `<td colspan="2">enrolled `+enrolled.Local().Format("2 Jan 15:04")+`, nothing synced yet</td>`)
	assert.NotContains(t, html, "never synced")

	srv := httptest.NewTLSServer(store.NewServer(db, nil, store.WithManagerPages(New(db, nil))))
	defer srv.Close()
	r, err := client(t).Get(srv.URL + "/")
	require.NoError(t, err)
	body(t, r)
	assert.Equal(t, http.StatusSeeOther, r.StatusCode)
	assert.Equal(t, "/manager/", r.Header.Get("Location"))
	r, err = client(t).Get(srv.URL + "/nothing")
	require.NoError(t, err)
	body(t, r)
	assert.Equal(t, http.StatusNotFound, r.StatusCode, "only the address alone is sent on")
}

// TestAZThatDiffersFromTheDayIsFlagged: T1's Z report left its GST out, so
// the store's sealed Z says ₹0 of GST while the day's sales carry ₹180, though
// nothing came after the Z. The day page says the totals differ and by how
// much, not that events came late.
func TestAZThatDiffersFromTheDayIsFlagged(t *testing.T) {
	db := emptyStore(t, "T1")
	j := &journal{t: t, id: "T1", prev: strings.Repeat("0", 64)}
	j.sale("T1-A", pos.TenderCash, "", "", true, pos.Line{SKU: "CHG", Name: "Charger", HSN: "8504", Qty: 1, UnitPrice: pos.Rupees(1180), GSTRate: pos.Percent(18)})
	rep, err := json.Marshal(pos.Report{Kind: "Z", ZNo: 1, Day: day, GrossSales: pos.Rupees(1180), NetSales: pos.Rupees(1180), CashExpected: pos.Rupees(1180)})
	require.NoError(t, err)
	j.add(pos.Event{Kind: pos.EvDayClosed, Day: day, Staff: "meera", DayClose: &pos.DayClose{Day: day, ZNo: 1, Report: rep}})
	ingest(t, db, j, 0)
	_, err = db.Reports.CloseStoreDay(t.Context(), day, "Meera")
	require.NoError(t, err)
	_, page := get200(t, pages(t, db), "/manager/?day="+day)
	late := html.UnescapeString(between(page, `<section id="late" class="late">`, `</section>`))
	assert.Contains(t, late, "The day's live totals differ from its sealed Z, though no event came after it")
	assert.Contains(t, late, "Since the Z: gross ₹0.00, refunds ₹0.00, net ₹0.00, GST +₹180.00, cash expected ₹0.00.")
	assert.NotContains(t, late, "late-events")
	assert.Contains(t, between(page, `<p class="notice" id="closed">`, `</p>`), "the totals below are not the Z's.")
}
