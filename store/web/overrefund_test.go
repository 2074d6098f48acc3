package web

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"galla/pos"
	"galla/store"
)

// TestTheDayPageListsARefundPaidTwice: T1 sold two cables (₹998) in cash; T2
// took them back in cash on a return order citing T1's invoice, and T1,
// without the store, refunded the same invoice from its own journal. The
// store's day page lists the open alarm with its detail and the money paid
// out twice, with the invoice and both counters.
func TestTheDayPageListsARefundPaidTwice(t *testing.T) {
	db, err := store.Open(t.Context(), cluster.Database(t), storeKey(t))
	require.NoError(t, err)
	t.Cleanup(db.Close)
	_, err = db.Migrate(t.Context())
	require.NoError(t, err)
	cables := pos.Line{SKU: "CBL", Name: "Cable", HSN: "8544", Qty: 2, UnitPrice: pos.Rupees(499), GSTRate: pos.Percent(18)}
	tax := pos.TaxOf(pos.Rupees(998), pos.Percent(18))
	item := pos.ReturnItem{Line: 0, SKU: "CBL", Qty: 2, Amount: pos.Rupees(998), Taxable: tax.Taxable, Tax: tax.Tax, CGST: tax.CGST, Rate: pos.Percent(18)}
	t1 := &journal{t: t, id: "T1", prev: strings.Repeat("0", 64)}
	t1.sale("T1-A", pos.TenderCash, "", "", true, cables)
	t2 := &journal{t: t, id: "T2", prev: strings.Repeat("0", 64)}
	totals := pos.ComputeTotals([]pos.Line{cables})
	t2.add(pos.Event{Kind: pos.EvOrderIntent, OrderID: "T2-RET", Day: day, Staff: "meera", Intent: &pos.Intent{Tender: pos.TenderCash,
		Lines: []pos.Line{cables}, Totals: totals, Amount: totals.Total,
		Origin: &pos.Origin{Terminal: "T1", OrderID: "T1-A", Number: "T1/000001", Tender: pos.TenderCash, Returnable: pos.Rupees(998)}}})
	for _, j := range []*journal{t2, t1} { // T2's return first, then T1's own
		id := map[string]string{"T1": "T1-A", "T2": "T2-RET"}[j.id]
		j.add(pos.Event{Kind: pos.EvRefundIntent, OrderID: id, Day: day, Staff: "meera",
			Refund: &pos.RefundEvent{UniqueTxnID: "R-" + j.id, Amount: pos.Rupees(998), To: pos.RefundToCash, Items: []pos.ReturnItem{item}}})
		j.receipt++
		j.add(pos.Event{Kind: pos.EvRefundDone, OrderID: id, Day: day, ReceiptNo: j.receipt, Refund: &pos.RefundEvent{UniqueTxnID: "R-" + j.id, Amount: pos.Rupees(998)}})
	}
	for _, j := range []*journal{t2, t1} {
		code, _, err := db.Access.EnrolCode(t.Context(), j.id)
		require.NoError(t, err)
		_, err = db.Access.Enrol(t.Context(), code, newPublicKey(t))
		require.NoError(t, err)
	}
	// T1's sale must be held before T2's return order can cite it.
	_, err = db.Events.Ingest(t.Context(), "T1", t1.events[:2])
	require.NoError(t, err)
	require.NoError(t, db.Projections.Project(t.Context()))
	_, err = db.Events.Ingest(t.Context(), "T2", t2.events)
	require.NoError(t, err)
	require.NoError(t, db.Projections.Project(t.Context()))
	_, err = db.Events.Ingest(t.Context(), "T1", t1.events[2:])
	require.NoError(t, err)
	_, err = AddManager(t.Context(), db, "Meera", "246810")
	require.NoError(t, err)

	srv := httptest.NewTLSServer(New(db, nil))
	defer srv.Close()
	c := client(t)
	body(t, signin(t, c, srv.URL, "Meera", "246810"))
	r, err := c.Get(srv.URL + "/manager/?day=" + day)
	require.NoError(t, err)
	page := body(t, r)
	require.Equal(t, http.StatusOK, r.StatusCode, page)
	over := between(page, `<table id="over-refunds">`, `</table>`)
	assert.Contains(t, over, "<td>T1/000001</td><td>T2</td><td>T1</td><td>R-T1</td>")
	assert.Contains(t, between(over, `<tr id="over-refunded">`, `</tr>`), "₹998.00")
	alarms := between(page, `<table id="alarms">`, `</table>`)
	assert.Contains(t, alarms, "<td>T1</td><td>over_refund</td><td>invoice T1/000001 was refunded at counter T2 and again at counter T1 (refund R-T1, cash): ₹998.00 beyond what was left of it")
}
