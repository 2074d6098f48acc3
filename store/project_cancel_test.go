package store

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"galla/pos"
	"galla/pos/gstr"
)

// cancelCash journals the cancellation of cash sale id on day: its cash given
// back by a cancellation's refund (no credit note), then document.cancelled.
func (c *counter) cancelCash(id, day string, amount pos.Paise, reason string) {
	uid := "X-" + id
	c.add(pos.Event{Kind: pos.EvRefundIntent, OrderID: id, Day: day, Staff: "meera",
		Refund: &pos.RefundEvent{UniqueTxnID: uid, Amount: amount, Reason: reason, Cancel: true}})
	c.add(pos.Event{Kind: pos.EvRefundDone, OrderID: id, Day: day, Staff: "meera", Refund: &pos.RefundEvent{UniqueTxnID: uid, Amount: amount, Cancel: true}})
	c.add(pos.Event{Kind: pos.EvDocumentCancelled, OrderID: id, Day: day, Staff: "meera", Reason: reason})
}

// TestCancelledInvoiceIsProjected: T1 sells two ₹1,180 chargers at 18% in cash
// (T1/2627/000001) and an ₹11,800 watch at 18% in cash (T1/2627/000002), and
// cancels the watch's invoice. The store marks that document cancelled with
// its reason, its day counts the chargers only (gross ₹2,360, no refund) and
// one cancelled document, and its GSTR-1 shows two invoices issued, one
// cancelled, and b2cs the chargers only (taxable 2,000, CGST = SGST = 180).
func TestCancelledInvoiceIsProjected(t *testing.T) {
	db := newDB(t)
	ctx := t.Context()
	enrolled(t, db, "T1")
	c := newCounter(t, "T1")
	total := c.intent("T1-A", day1, pos.TenderCash, "", line("CHG", 2, 1180, 18))
	c.add(pos.Event{Kind: pos.EvCashReceived, OrderID: "T1-A", Day: day1, Series: "2627", DocNo: 1, Cash: &pos.CashEvent{Tendered: total}})
	total = c.intent("T1-B", day1, pos.TenderCash, "", line("WAT", 1, 11800, 18))
	c.add(pos.Event{Kind: pos.EvCashReceived, OrderID: "T1-B", Day: day1, Series: "2627", DocNo: 2, Cash: &pos.CashEvent{Tendered: total}})
	_, err := db.Events.Ingest(ctx, "T1", c.sent())
	require.NoError(t, err)
	require.NoError(t, db.Projections.Project(ctx))
	c.cancelCash("T1-B", day1, total, "customer left before delivery")
	_, err = db.Events.Ingest(ctx, "T1", c.sent())
	require.NoError(t, err)
	require.NoError(t, db.Projections.Project(ctx))

	var cancelled bool
	var reason string
	require.NoError(t, db.Pool().QueryRow(ctx, "SELECT cancelled, cancel_reason FROM documents WHERE number = 'T1/2627/000002'").Scan(&cancelled, &reason))
	assert.True(t, cancelled)
	assert.Equal(t, "customer left before delivery", reason)
	require.NoError(t, db.Pool().QueryRow(ctx, "SELECT cancelled FROM documents WHERE number = 'T1/2627/000001'").Scan(&cancelled))
	assert.False(t, cancelled)
	var notes int
	require.NoError(t, db.Pool().QueryRow(ctx, "SELECT count(*) FROM credit_notes").Scan(&notes))
	assert.Zero(t, notes, "a cancellation issues no credit note")

	_, err = db.Master.PublishShop(ctx, storeShop, "meera") // a regular registrant: the report states GST
	require.NoError(t, err)
	day, err := db.Reports.DayReport(ctx, day1)
	require.NoError(t, err)
	s := day.Store
	assert.Equal(t, pos.Paise(236000), s.GrossSales)
	assert.Equal(t, pos.Paise(0), s.Refunded)
	assert.Equal(t, pos.Paise(236000), s.CashExpected)
	assert.Equal(t, pos.Paise(36000), s.Tax)
	assert.Equal(t, pos.Count{Count: 1, Amount: 1180000}, s.Cancelled)
	assert.Zero(t, s.Unknown.Count)
	require.Len(t, s.GST, 1)
	assert.Equal(t, pos.Paise(200000), s.GST[0].Taxable)

	r, err := db.Reports.GSTR1(ctx, gstr.Month{Year: 2026, Month: time.November}, time.UTC)
	require.NoError(t, err)
	require.Len(t, r.B2CS, 1)
	assert.Equal(t, gstr.Paise(2_000_00), r.B2CS[0].TxVal)
	require.NotNil(t, r.B2CS[0].CAmt)
	assert.Equal(t, gstr.Paise(180_00), *r.B2CS[0].CAmt)
	assert.Empty(t, r.CDNUR)
	require.NotNil(t, r.DocIssue)
	raw, err := json.Marshal(r.DocIssue)
	require.NoError(t, err)
	assert.JSONEq(t, `{"doc_det":[{"doc_num":1,"doc_typ":"Invoices for outward supply","docs":[
		{"num":1,"from":"T1/2627/000001","to":"T1/2627/000002","totnum":2,"cancel":1,"net_issue":1}]}]}`, string(raw))
}

// TestACancelledInvoiceFreesItsIMEIAtTheStore: a phone reserved and sold at T1
// is refused at T2; once T1's invoice is cancelled (the phone never left the
// shop) and synced, T2 may sell it.
func TestACancelledInvoiceFreesItsIMEIAtTheStore(t *testing.T) {
	db := newDB(t)
	ctx := t.Context()
	enrolled(t, db, "T1")
	enrolled(t, db, "T2")
	const imei = "356938035643809"
	require.NoError(t, db.Decisions.ReserveIMEIs(ctx, "T1", "T1-P", []string{imei}))
	c := newCounter(t, "T1")
	total := c.intent("T1-P", day1, pos.TenderCash, "", line("PH", 1, 17999, 18))
	c.add(pos.Event{Kind: pos.EvCashReceived, OrderID: "T1-P", Day: day1, Series: "2627", DocNo: 1, Cash: &pos.CashEvent{Tendered: total}})
	_, err := db.Events.Ingest(ctx, "T1", c.sent())
	require.NoError(t, err)
	require.NoError(t, db.Projections.Project(ctx))
	err = db.Decisions.ReserveIMEIs(ctx, "T2", "T2-Q", []string{imei})
	require.Error(t, err)
	assert.Contains(t, err.Error(), "is sold already at counter T1")

	c.cancelCash("T1-P", day1, total, "customer left before delivery")
	_, err = db.Events.Ingest(ctx, "T1", c.sent())
	require.NoError(t, err)
	require.NoError(t, db.Projections.Project(ctx))
	require.NoError(t, db.Decisions.ReserveIMEIs(ctx, "T2", "T2-Q", []string{imei}), "the cancelled sale's phone is in stock again")
}
