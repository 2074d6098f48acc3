package store

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"galla/pos"
)

// shiftEvent journals a shift event with its record.
func (c *counter) shiftEvent(kind pos.EventKind, day, staff string, rec pos.ShiftRecord) {
	data, err := json.Marshal(rec)
	require.NoError(c.t, err)
	c.add(pos.Event{Kind: kind, Day: day, Staff: staff, Data: data})
}

// noteReturn journals the return of one ₹1,180 charger at 18% of sale id as a
// credit note to spend, numbered C2627/docNo.
func (c *counter) noteReturn(id, day string, docNo uint64) string {
	uid := "R-" + id
	item := pos.ReturnItem{Line: 0, SKU: "CHG", Qty: 1, Amount: pos.Rupees(1180), Taxable: pos.Rupees(1000), Tax: pos.Rupees(180), CGST: pos.Rupees(90), Rate: pos.Percent(18)}
	c.add(pos.Event{Kind: pos.EvRefundIntent, OrderID: id, Day: day, Staff: "meera",
		Refund: &pos.RefundEvent{UniqueTxnID: uid, Amount: pos.Rupees(1180), To: pos.RefundToNote, Items: []pos.ReturnItem{item}}})
	c.receipt++
	c.add(pos.Event{Kind: pos.EvRefundDone, OrderID: id, Day: day, ReceiptNo: c.receipt, Series: "C2627", DocNo: docNo,
		Refund: &pos.RefundEvent{UniqueTxnID: uid, Amount: pos.Rupees(1180)}})
	return uid
}

func TestCreditNotesAndShiftsAreProjected(t *testing.T) {
	db := newDB(t)
	ctx := t.Context()
	enrolled(t, db, "T1")
	c := newCounter(t, "T1")
	c.shiftEvent(pos.EvShiftOpened, day1, "asha", pos.ShiftRecord{ID: "S1", Float: pos.Rupees(2000)})
	c.cashSale("T1-A", day1, line("CHG", 1, 1180, 18), line("TEA", 2, 105, 5))
	c.shiftEvent(pos.EvShiftCash, day1, "asha", pos.ShiftRecord{ID: "S1", Move: &pos.CashMove{Kind: pos.CashIn, Amount: pos.Rupees(500), Reason: "change"}})
	c.shiftEvent(pos.EvShiftCash, day1, "asha", pos.ShiftRecord{ID: "S1", Move: &pos.CashMove{Kind: pos.CashOut, Amount: pos.Rupees(40), Reason: "tea"}})
	c.shiftEvent(pos.EvShiftCash, day1, "asha", pos.ShiftRecord{ID: "S1", Move: &pos.CashMove{Kind: pos.CashDrop, Amount: pos.Rupees(1000), Reason: "safe"}})
	uid := c.noteReturn("T1-A", day1, 1)
	_, err := db.Events.Ingest(ctx, "T1", c.sent())
	require.NoError(t, err)
	require.NoError(t, db.Projections.Project(ctx))

	// Spend ₹300 of the note in a later batch; close the shift.
	c.add(pos.Event{Kind: pos.EvNoteRedeemed, OrderID: "T1-A", Day: day1,
		Note: &pos.NoteEvent{Number: "T1/C2627/00001", IssueID: "T1-A", Refund: uid, Amount: pos.Rupees(300), SaleID: "T1-B"}})
	// Expected: float 2,000 + cash sale 1,390 + in 500 − out 40 − drop 1,000 = 2,850
	// (the return went to a note, not out of the drawer); counted 2,840.
	c.shiftEvent(pos.EvShiftClosed, day1, "asha", pos.ShiftRecord{ID: "S1", Counted: pos.Rupees(2840), Expected: pos.Rupees(2850), Variance: pos.Rupees(-10)})
	_, err = db.Events.Ingest(ctx, "T1", c.sent())
	require.NoError(t, err)
	require.NoError(t, db.Projections.Project(ctx))

	var number, series, to, order string
	var docNo, value, taxable, tax, redeemed int64
	require.NoError(t, db.Pool().QueryRow(ctx, `SELECT number, series, doc_no, refund_to, order_id, value, taxable, tax, redeemed
		FROM credit_notes WHERE terminal_id = 'T1'`).Scan(&number, &series, &docNo, &to, &order, &value, &taxable, &tax, &redeemed))
	assert.Equal(t, "T1/C2627/00001", number)
	assert.Equal(t, "C2627", series)
	assert.Equal(t, int64(1), docNo)
	assert.Equal(t, "note", to)
	assert.Equal(t, "T1-A", order)
	assert.Equal(t, int64(118000), value)
	assert.Equal(t, int64(100000), taxable)
	assert.Equal(t, int64(18000), tax)
	assert.Equal(t, int64(30000), redeemed)

	var kind string
	var amount int64
	require.NoError(t, db.Pool().QueryRow(ctx, "SELECT kind, amount FROM documents WHERE number = 'T1/C2627/00001'").Scan(&kind, &amount))
	assert.Equal(t, "credit note", kind)
	assert.Equal(t, int64(118000), amount)

	var staff string
	var float, in, out, drops, counted, expected, variance int64
	var closed bool
	require.NoError(t, db.Pool().QueryRow(ctx, `SELECT staff, float, cash_in, cash_out, drops, counted, expected, variance, closed_at IS NOT NULL
		FROM shifts WHERE terminal_id = 'T1' AND shift_id = 'S1'`).Scan(&staff, &float, &in, &out, &drops, &counted, &expected, &variance, &closed))
	assert.Equal(t, "asha", staff)
	assert.Equal(t, []int64{200000, 50000, 4000, 100000, 284000, 285000, -1000}, []int64{float, in, out, drops, counted, expected, variance})
	assert.True(t, closed)

	before := dump(t, db)
	_, err = db.Projections.Rebuild(ctx)
	require.NoError(t, err)
	assert.Equal(t, before, dump(t, db), "a rebuild gives the same credit notes and shifts")
}
