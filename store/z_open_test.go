package store

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"galla/pos"
)

// openSplit journals split sale id of a ₹1,180 charger with cash tendered on
// it (its tender's order id-1), and no more: the sale stays open.
func (c *counter) openSplit(id, day string, cash pos.Paise) {
	lines := []pos.Line{line("CHG", 1, 1180, 18)}
	totals := pos.ComputeTotals(lines)
	c.add(pos.Event{Kind: pos.EvOrderIntent, OrderID: id, Day: day, Staff: "asha",
		Intent: &pos.Intent{Tender: pos.TenderSplit, Lines: lines, Totals: totals, Amount: totals.Total}})
	tid := id + "-1"
	c.add(pos.Event{Kind: pos.EvTenderAdded, OrderID: id, Day: day, Sale: &pos.SaleEvent{Tender: &pos.SaleTender{OrderID: tid, Kind: pos.TenderCash, Amount: cash}}})
	c.add(pos.Event{Kind: pos.EvOrderIntent, OrderID: tid, Day: day, Staff: "asha",
		Intent: &pos.Intent{Tender: pos.TenderCash, Lines: lines, Totals: pos.Totals{Total: cash}, Amount: cash, Sale: id}})
	c.add(pos.Event{Kind: pos.EvCashReceived, OrderID: tid, Day: day, Cash: &pos.CashEvent{Tendered: cash}})
}

// TestDayReportCountsOpenSalesAsTheCounterDoes: T1 sells a ₹1,180 charger for
// cash, opens a split sale with ₹500 paid in cash and leaves it open, and
// opens another with ₹300 in cash and voids it (the cash given back). The
// store's day is the counter's own report: the open sale's ₹500 is in no
// sales total but in the cash expected, and listed apart as paid on open
// sales; the voided sale's ₹300 counts as sold against its cash refund; and
// neither sale is a payment whose outcome is unknown.
func TestDayReportCountsOpenSalesAsTheCounterDoes(t *testing.T) {
	db := newDB(t)
	ctx := t.Context()
	enrolled(t, db, "T1")
	c := newCounter(t, "T1")
	c.cashSale("T1-A", day1, line("CHG", 1, 1180, 18))
	c.openSplit("T1-S", day1, pos.Rupees(500))
	c.openSplit("T1-V", day1, pos.Rupees(300))
	c.add(pos.Event{Kind: pos.EvRefundIntent, OrderID: "T1-V-1", Day: day1, Refund: &pos.RefundEvent{UniqueTxnID: "R-V", Amount: pos.Rupees(300)}})
	c.add(pos.Event{Kind: pos.EvRefundDone, OrderID: "T1-V-1", Day: day1, Refund: &pos.RefundEvent{UniqueTxnID: "R-V", Amount: pos.Rupees(300), Refunded: pos.Rupees(300)}})
	c.add(pos.Event{Kind: pos.EvSaleVoided, OrderID: "T1-V", Day: day1, Staff: "meera", Reason: "customer left"})
	_, err := db.Events.Ingest(ctx, "T1", c.sent())
	require.NoError(t, err)

	r, err := db.Reports.DayReport(ctx, day1)
	require.NoError(t, err)
	require.Len(t, r.Counters, 1)
	got := r.Counters[0]
	own := c.report(day1)
	assert.Equal(t, []pos.TenderTotal{{Tender: pos.TenderCash, Count: 2, Amount: pos.Rupees(1180 + 300)}}, got.Sales, "the open sale's cash is in no sales total")
	assert.Equal(t, own.Sales, got.Sales)
	assert.Equal(t, pos.Rupees(1180+300), got.GrossSales)
	assert.Equal(t, pos.Rupees(1180+500), got.CashExpected, "the open sale's cash is in the drawer")
	assert.Equal(t, own.CashExpected, got.CashExpected)
	assert.Equal(t, pos.Rupees(500), got.OpenPaid)
	assert.Equal(t, own.OpenPaid, got.OpenPaid)
	assert.Zero(t, got.Unknown, "an open or voided sale is no unknown payment")
	assert.Equal(t, own.Unknown, got.Unknown)
	assert.Equal(t, []pos.TenderTotal{{Tender: pos.TenderCash, Count: 1, Amount: pos.Rupees(300)}}, got.Refunds)
}
