package store

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"galla/pos"
	"galla/store/api"
)

// Offline never means twice (issue 22, docs/security.md "Offline returns"):
// a refund that reaches the store after another counter returned the same
// goods or money is stored as sent (money moved), and the conflict is an
// alarm with the amount at stake, listed on the day report and the store's Z.

// ownReturn journals at c a refund uid of its own invoice id in cash, of
// items, done.
func (c *counter) ownReturn(id, uid string, items ...pos.ReturnItem) {
	c.t.Helper()
	amount := pos.ItemsAmount(items)
	c.add(pos.Event{Kind: pos.EvRefundIntent, OrderID: id, Day: day1, Staff: "meera",
		Refund: &pos.RefundEvent{UniqueTxnID: uid, Amount: amount, To: pos.RefundToCash, Items: items}})
	c.receipt++
	c.add(pos.Event{Kind: pos.EvRefundDone, OrderID: id, Day: day1, ReceiptNo: c.receipt,
		Refund: &pos.RefundEvent{UniqueTxnID: uid, Amount: amount, RefundID: "RF-" + uid}})
}

// overRefundAlarms returns the details of terminal's over-refund alarms.
func overRefundAlarms(t *testing.T, db *DB, terminal string) []string {
	t.Helper()
	rs, err := db.Pool().Query(t.Context(), "SELECT detail FROM alarms WHERE terminal_id = $1 AND kind = $2 ORDER BY id", terminal, AlarmOverRefund)
	require.NoError(t, err)
	var out []string
	for rs.Next() {
		var d string
		require.NoError(t, rs.Scan(&d))
		out = append(out, d)
	}
	require.NoError(t, rs.Err())
	return out
}

// TestTheSameUnitReturnedAtTwoOfflineCountersIsAnAlarm: T1 sells a cable and
// a charger in cash. T2 reserves the cable's return at the store and pays it
// back, then loses the store; T1, which cannot reach the store, returns the
// same cable from its own journal. Each counter's refund is a fact: both are
// stored. When T1 syncs nothing is wrong yet as far as the events go (T2's
// return is a reservation); when T2 syncs, its refund takes the cable's line
// beyond the unit sold, which is an alarm naming both counters, the invoice
// and the ₹499 at stake, and a row of the day report.
func TestTheSameUnitReturnedAtTwoOfflineCountersIsAnAlarm(t *testing.T) {
	db, base, creds := twoCounters(t)
	c1, c2 := newCounter(t, "T1"), newCounter(t, "T2")
	cable, charger := line("CBL", 1, 499, 18), line("CHG", 1, 2000, 18)
	c1.cashSale("T1-A", day1, cable, charger)
	ingest(t, db, c1)

	back := returnItem(0, "CBL", 1, pos.Rupees(499), 18)
	status, e := ask(t, base, creds, "T2", api.PathReserveReturn, api.ReserveReturn{Document: "T1/000001", RefundID: "R-T2-1", Amount: 49900,
		Lines: []api.ReturnLine{{Line: 0, SKU: "CBL", Qty: 1, Amount: 49900}}})
	require.Equal(t, 200, status, "%+v", e)
	c2.returnAt("T2-RET", "R-T2-1", 1, pos.Origin{Terminal: "T1", OrderID: "T1-A", Number: "T1/000001", Tender: pos.TenderCash},
		[]pos.Line{cable, charger}, []pos.ReturnItem{back})
	c1.ownReturn("T1-A", "R-T1-1", back) // the store down: T1's own journal allows it

	ingest(t, db, c1)
	assert.Empty(t, overRefundAlarms(t, db, "T1"), "T2's return is not an event yet")
	ingest(t, db, c2)
	assert.Equal(t, []string{"invoice T1/000001 was refunded at counter T1 and again at counter T2 (refund R-T2-1, cash): ₹499.00 beyond what was left of it, 1 unit(s) beyond those sold; the money was paid out twice: recover it or write it off"},
		overRefundAlarms(t, db, "T2"))
	assert.Equal(t, 2, rows(t, db, "SELECT count(*) FROM payments WHERE kind LIKE 'refund%'"), "both refunds are stored as sent")

	r, err := db.Reports.DayReport(t.Context(), day1)
	require.NoError(t, err)
	assert.Equal(t, []OverRefund{{Terminal: "T2", RefundID: "R-T2-1", Number: "T1/000001", Others: "T1", Amount: pos.Rupees(499), Units: 1}}, r.OverRefunds)
	assert.Equal(t, pos.Rupees(499), r.OverRefunded)

	// Rebuilt from the events, the conflict is found again and not alarmed twice.
	_, err = db.Projections.Rebuild(t.Context())
	require.NoError(t, err)
	assert.Len(t, overRefundAlarms(t, db, "T2"), 1)
	assert.Equal(t, 1, rows(t, db, "SELECT count(*) FROM over_refunds"))
}

// TestARefundPaidTwiceShowsOnTheStoresZ is the reproduction at the
// store: T1 sells ₹998 in cash, T2 returns it in full to cash and syncs, then
// T1, with the store down, refunds it again from its own journal and syncs.
// The store holds both refunds, raises an alarm naming T2 and T1 with ₹998
// at stake, and its Z of the day shows the ₹998 paid out twice beside the net.
func TestARefundPaidTwiceShowsOnTheStoresZ(t *testing.T) {
	db, base, creds := twoCounters(t)
	c1, c2 := newCounter(t, "T1"), newCounter(t, "T2")
	cables := line("CBL", 2, 499, 18)
	c1.cashSale("T1-A", day1, cables)
	ingest(t, db, c1)

	all := returnItem(0, "CBL", 2, pos.Rupees(998), 18)
	status, e := ask(t, base, creds, "T2", api.PathReserveReturn, api.ReserveReturn{Document: "T1/000001", RefundID: "R-T2-1", Amount: 99800,
		Lines: []api.ReturnLine{{Line: 0, SKU: "CBL", Qty: 2, Amount: 99800}}})
	require.Equal(t, 200, status, "%+v", e)
	c2.returnAt("T2-RET", "R-T2-1", 1, pos.Origin{Terminal: "T1", OrderID: "T1-A", Number: "T1/000001", Tender: pos.TenderCash},
		[]pos.Line{cables}, []pos.ReturnItem{all})
	ingest(t, db, c2)
	assert.Empty(t, overRefundAlarms(t, db, "T2"))

	c1.ownReturn("T1-A", "R-T1-1", all)
	ingest(t, db, c1)
	assert.Equal(t, []string{"invoice T1/000001 was refunded at counter T2 and again at counter T1 (refund R-T1-1, cash): ₹998.00 beyond what was left of it, 2 unit(s) beyond those sold; the money was paid out twice: recover it or write it off"},
		overRefundAlarms(t, db, "T1"))

	c1.closeDay(day1, 1)
	c2.closeDay(day1, 1)
	ingest(t, db, c1)
	ingest(t, db, c2)
	z, err := db.Reports.CloseStoreDay(t.Context(), day1, "meera")
	require.NoError(t, err)
	assert.Equal(t, pos.Rupees(-998), z.NetSales, "the counters' Z reports as they paid")
	assert.Equal(t, pos.Rupees(998), z.OverRefunded)
	assert.Equal(t, []OverRefund{{Terminal: "T1", RefundID: "R-T1-1", Number: "T1/000001", Others: "T2", Amount: pos.Rupees(998), Units: 2}}, z.OverRefunds)
	sealed, err := db.Reports.StoreZReport(t.Context(), day1)
	require.NoError(t, err)
	assert.Equal(t, z.OverRefunds, sealed.OverRefunds, "sealed with the store's Z")
}
