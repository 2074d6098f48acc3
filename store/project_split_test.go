package store

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"galla/pos"
	"galla/store/api"
)

// splitSale journals sale id of a charger (₹1,180 at 18%) and two teas (₹105
// at 5%), ₹1,390 in all, paid ₹390 in cash (₹500 handed over) and ₹1,000 by
// credit note note of order issue (refund uid): tender.added, each tender's
// intent and payment, the note's redemption on its issuing order, and
// sale.completed with invoice 2627/docNo.
func (c *counter) splitSale(id, day, note, issue, uid string, docNo uint64) {
	lines := []pos.Line{line("CHG", 1, 1180, 18), line("TEA", 2, 105, 5)}
	totals := pos.ComputeTotals(lines)
	c.add(pos.Event{Kind: pos.EvOrderIntent, OrderID: id, Day: day, Staff: "asha",
		Intent: &pos.Intent{Tender: pos.TenderSplit, Lines: lines, Totals: totals, Amount: totals.Total}})
	cash, byNote := id+"-1", id+"-2"
	c.add(pos.Event{Kind: pos.EvTenderAdded, OrderID: id, Day: day, Sale: &pos.SaleEvent{Tender: &pos.SaleTender{OrderID: cash, Kind: pos.TenderCash, Amount: pos.Rupees(390)}}})
	c.add(pos.Event{Kind: pos.EvOrderIntent, OrderID: cash, Day: day, Staff: "asha",
		Intent: &pos.Intent{Tender: pos.TenderCash, Lines: lines, Totals: pos.Totals{Total: pos.Rupees(390)}, Amount: pos.Rupees(390), Sale: id}})
	c.add(pos.Event{Kind: pos.EvCashReceived, OrderID: cash, Day: day, Cash: &pos.CashEvent{Tendered: pos.Rupees(500), Change: pos.Rupees(110)}})
	c.add(pos.Event{Kind: pos.EvTenderAdded, OrderID: id, Day: day, Sale: &pos.SaleEvent{Tender: &pos.SaleTender{OrderID: byNote, Kind: pos.TenderNote, Amount: pos.Rupees(1000), NoteNo: note}}})
	c.add(pos.Event{Kind: pos.EvOrderIntent, OrderID: byNote, Day: day, Staff: "asha",
		Intent: &pos.Intent{Tender: pos.TenderNote, Lines: lines, Totals: pos.Totals{Total: pos.Rupees(1000)}, Amount: pos.Rupees(1000), Sale: id}})
	c.add(pos.Event{Kind: pos.EvNoteRedeemed, OrderID: issue, Day: day,
		Note: &pos.NoteEvent{Number: note, IssueID: issue, Refund: uid, Amount: pos.Rupees(1000), SaleID: byNote}})
	c.add(pos.Event{Kind: pos.EvTenderNoteRedeemed, OrderID: byNote, Day: day, Sale: &pos.SaleEvent{NoteNo: note}})
	c.receipt++
	c.add(pos.Event{Kind: pos.EvSaleCompleted, OrderID: id, Day: day, ReceiptNo: c.receipt, Series: "2627", DocNo: docNo,
		Sale: &pos.SaleEvent{Covered: []string{cash, byNote}, Verified: true}})
}

// TestSplitSaleIsProjected sends a sale paid in cash and by a credit note and
// checks each table against hand-computed values: the sale is paid under its
// invoice number with its GST once (its tenders carry none), each tender is
// paid for its part, the note is spent by ₹1,000, and the invoice can be read
// and returned store-wide up to ₹1,390.
func TestSplitSaleIsProjected(t *testing.T) {
	db := newDB(t)
	ctx := t.Context()
	enrolled(t, db, "T1")
	c := newCounter(t, "T1")
	c.cashSale("T1-A", day1, line("CHG", 2, 1180, 18))
	uid := c.noteReturn("T1-A", day1, 1) // a ₹1,180 note to spend
	c.splitSale("T1-S", day1, "T1/C2627/00001", "T1-A", uid, 1)
	_, err := db.Events.Ingest(ctx, "T1", c.sent())
	require.NoError(t, err)
	require.NoError(t, db.Projections.Project(ctx))

	type row struct {
		state, tender    string
		amount, captured int64
	}
	orders := map[string]row{}
	rs, err := db.Pool().Query(ctx, "SELECT order_id, state, tender, amount, captured FROM orders WHERE terminal_id = 'T1' AND order_id LIKE 'T1-S%'")
	require.NoError(t, err)
	for rs.Next() {
		var id string
		var r row
		require.NoError(t, rs.Scan(&id, &r.state, &r.tender, &r.amount, &r.captured))
		orders[id] = r
	}
	require.NoError(t, rs.Err())
	assert.Equal(t, map[string]row{
		"T1-S":   {"PAID", "split", 139000, 0}, // the sale: its tenders hold the money
		"T1-S-1": {"PAID", "cash", 39000, 39000},
		"T1-S-2": {"PAID", "note", 100000, 100000},
	}, orders)

	var doc string
	var amount int64
	require.NoError(t, db.Pool().QueryRow(ctx, "SELECT order_id, amount FROM documents WHERE number = 'T1/2627/000001' AND kind = 'receipt'").Scan(&doc, &amount))
	assert.Equal(t, "T1-S", doc)
	assert.Equal(t, int64(139000), amount)

	// GST once, on the sale: 18% of ₹1,180 is ₹1,000 + ₹180; 5% of ₹210 is
	// ₹200 + ₹10.
	var rates []string
	rs, err = db.Pool().Query(ctx, `SELECT order_id || ' ' || rate || ' ' || amount || ' ' || taxable || ' ' || tax || ' ' || cgst || ' ' || sgst
		FROM order_rates WHERE order_id LIKE 'T1-S%' ORDER BY 1`)
	require.NoError(t, err)
	for rs.Next() {
		var s string
		require.NoError(t, rs.Scan(&s))
		rates = append(rates, s)
	}
	require.NoError(t, rs.Err())
	assert.Equal(t, []string{"T1-S 1800 118000 100000 18000 9000 9000", "T1-S 500 21000 20000 1000 500 500"}, rates)

	var cash int64
	require.NoError(t, db.Pool().QueryRow(ctx, "SELECT amount FROM payments WHERE order_id = 'T1-S-1' AND kind = 'cash.received'").Scan(&cash))
	assert.Equal(t, int64(39000), cash)
	var redeemed int64
	require.NoError(t, db.Pool().QueryRow(ctx, "SELECT redeemed FROM credit_notes WHERE number = 'T1/C2627/00001'").Scan(&redeemed))
	assert.Equal(t, int64(100000), redeemed)

	// The note's balance at the store starts from the projections: ₹1,180 less
	// the ₹1,000 spent before it was ever redeemed through the store.
	_, err = db.Decisions.RedeemCreditNote(ctx, "T2", "T1/C2627/00001", "T2-X", pos.Rupees(181))
	ae := apiErr(t, err)
	assert.Equal(t, api.CodeExceeded, ae.Code)
	assert.Equal(t, "credit note T1/C2627/00001 has ₹180.00 left of ₹1,180.00; ₹181.00 cannot be taken from it", ae.Message)
	left, err := db.Decisions.RedeemCreditNote(ctx, "T2", "T1/C2627/00001", "T2-X", pos.Rupees(180))
	require.NoError(t, err)
	assert.Equal(t, pos.Paise(0), left)

	// The invoice as a return at another counter reads it.
	inv, err := db.Decisions.Invoice(ctx, "T1/2627/000001")
	require.NoError(t, err)
	assert.Equal(t, "T1", inv.Terminal)
	assert.Equal(t, "T1-S", inv.OrderID)
	byID, err := db.Decisions.Invoice(ctx, "T1-S")
	require.NoError(t, err)
	assert.Equal(t, "T1/2627/000001", byID.Number)
	_, err = db.Decisions.Invoice(ctx, "T1/2627/000099")
	assert.Equal(t, api.CodeNotFound, apiErr(t, err).Code)
}
