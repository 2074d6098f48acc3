package pos

import (
	"bytes"
	"context"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"galla/gateway/sandbox"
	"galla/pos/gstr"
	"galla/receipts"
)

// TestCancelCardInvoice sells a cable for cash (T1/2627/000001) and a case by
// card (T1/2627/000002), and cancels the card invoice: the card is refunded in
// full at the service, no credit note is issued, the invoice keeps its number
// and prints CANCELLED, the X report and GSTR-1 hold the cable only, and a
// second cancellation is refused.
func TestCancelCardInvoice(t *testing.T) {
	r, tl := newReturnTill(t)
	ctx := t.Context()
	_, _, err := tl.Setup.SetShop(ctx, ShopDetails{Name: "Galla Mobiles", Address: "1 MG Road, Pune", State: "27", GSTIN: "27AAPFU0939F1ZV"}, managerPIN)
	require.NoError(t, err)
	cash, err := sellCash(ctx, r.e, r.sale(t, "ACC-CBL"), Rupees(499))
	require.NoError(t, err)
	require.Equal(t, "T1/2627/000001", cash.Order.Number("T1"))
	paid, err := sellCard(ctx, r.e, r.sale(t, "ACC-CASE"), card("4111111111111111"), r.otp())
	require.NoError(t, err)
	require.Equal(t, ResultPaid, paid.Status, paid.Reason)
	inv := paid.Order.Number("T1")
	require.Equal(t, "T1/2627/000002", inv)

	_, err = tl.Returns.CancelDocument(ctx, inv, managerPIN, " ")
	require.Error(t, err, "a cancellation needs a reason")
	_, err = tl.Returns.CancelDocument(ctx, inv, "999999", "customer left")
	require.ErrorIs(t, err, ErrWrongPIN)
	assert.Zero(t, r.ledger(t, paid.Order.Tenders[0].OrderID).RefundedAmount, "nothing refunded on a wrong PIN")

	res, err := tl.Returns.CancelDocument(ctx, inv, managerPIN, "customer left before delivery")
	require.NoError(t, err)
	assert.Equal(t, CancelDone, res.Status, res.Pending)
	assert.Equal(t, inv, res.Number)
	require.Len(t, res.Tenders, 1)
	require.Len(t, paid.Order.Tenders, 1, "a sale of one tender")
	tender := paid.Order.Tenders[0].OrderID
	assert.Equal(t, CancelTender{OrderID: tender, Tender: TenderCard, Amount: 149900, Status: RefundDone}, res.Tenders[0])
	lo := r.ledger(t, paid.Order.Tenders[0].OrderID)
	assert.Equal(t, int64(149900), lo.RefundedAmount, "the card got all of it back")
	assert.Equal(t, 1, lo.CapturedPayments)

	o, err := r.e.Order(ctx, paid.Order.ID)
	require.NoError(t, err)
	require.NotNil(t, o.Cancelled)
	assert.Equal(t, "customer left before delivery", o.Cancelled.Reason)
	assert.Equal(t, inv, o.Number("T1"), "it keeps its number")
	to, err := r.e.Order(ctx, tender) // the card's money went back on its tender
	require.NoError(t, err)
	require.Len(t, to.Refunds, 1)
	assert.Zero(t, to.Refunds[0].DocNo, "no credit note")
	assert.True(t, to.Refunds[0].Cancel)

	_, err = tl.Returns.CancelDocument(ctx, inv, managerPIN, "again")
	assert.ErrorIs(t, err, ErrAlreadyCancelled)
	assert.Equal(t, "Invoice T1/2627/000002 is already cancelled (customer left before delivery).", Sentence(err))
	assert.Equal(t, int64(149900), r.ledger(t, paid.Order.Tenders[0].OrderID).RefundedAmount, "nothing refunded twice")

	// The X report: the cable only. 499.00 at 18%: taxable ⌊(4990000+59)/118⌋
	// = 42288, tax 7612.
	rep, err := r.e.Ledger.Report(ctx, "2026-11-22")
	require.NoError(t, err)
	assert.Equal(t, Paise(49900), rep.GrossSales)
	assert.Equal(t, []TenderTotal{{Tender: TenderCash, Count: 1, Amount: 49900}}, rep.Sales)
	assert.Equal(t, Paise(0), rep.Refunded)
	assert.Empty(t, rep.Refunds)
	assert.Equal(t, Paise(49900), rep.NetSales)
	assert.Equal(t, Paise(49900), rep.CashExpected)
	require.Len(t, rep.GST, 1)
	assert.Equal(t, Paise(42288), rep.GST[0].Taxable)
	assert.Equal(t, Paise(7612), rep.GST[0].Tax)
	assert.Equal(t, Count{Count: 1, Amount: 149900}, rep.Cancelled)
	assert.Equal(t, []SeriesRange{{Series: "2627", FirstNo: 1, LastNo: 2}}, rep.Documents, "the cancelled number stays in the range")
	var text bytes.Buffer
	require.NoError(t, rep.WriteText(&text))
	assert.Contains(t, text.String(), "Cancelled invoices (1)")

	// GSTR-1: two invoices issued, one cancelled; b2cs the cable only
	// (CGST = SGST = 7612/2 = 38.06).
	ret, err := tl.Documents.GSTR1(ctx, gstr.Month{Year: 2026, Month: time.November})
	require.NoError(t, err)
	require.NotNil(t, ret.DocIssue)
	assert.Equal(t, []gstr.DocDet{{DocNum: 1, DocTyp: "Invoices for outward supply", Docs: []gstr.DocSeries{
		{Num: 1, From: "T1/2627/000001", To: "T1/2627/000002", TotNum: 2, Cancel: 1, NetIssue: 1}}}}, ret.DocIssue.DocDet)
	require.Len(t, ret.B2CS, 1)
	assert.Equal(t, gstr.Paise(42288), ret.B2CS[0].TxVal)
	require.NotNil(t, ret.B2CS[0].CAmt)
	assert.Equal(t, gstr.Paise(3806), *ret.B2CS[0].CAmt)
	assert.Empty(t, ret.CDNUR)
	require.NotNil(t, ret.HSN)

	var csv bytes.Buffer
	require.NoError(t, tl.Documents.WriteLinesCSV(ctx, time.Date(2026, 11, 22, 0, 0, 0, 0, time.Local), time.Date(2026, 11, 22, 0, 0, 0, 0, time.Local), &csv))
	assert.Contains(t, csv.String(), "T1/2627/000002,2026-11-22,invoice (cancelled)")

	// The document prints CANCELLED with the reason.
	d, err := tl.Documents.ReceiptDocument(ctx, paid.Order.ID, -1)
	require.NoError(t, err)
	var b bytes.Buffer
	require.NoError(t, receipts.Text(&b, d.Receipt, 48))
	require.NotNil(t, d.Receipt.Cancelled)
	assert.Contains(t, b.String(), "                   CANCELLED\n")
	assert.Contains(t, b.String(), "Reason: customer left before delivery")
	assert.Contains(t, b.String(), "Refunded ₹1,499.00 to VISA •••• 1111, verified\n")
	assert.Contains(t, b.String(), inv)

	// A later return on the other invoice is the first credit note: the
	// cancellation used no credit-note number.
	rt, err := tl.Returns.Return(ctx, ReturnRequest{Document: "T1/2627/000001", Amount: 10000, To: RefundToCash, PIN: managerPIN})
	require.NoError(t, err)
	assert.Equal(t, "T1/C2627/00001", rt.CreditNote)
}

// TestCancelRefused: a returned invoice, an invoice of an earlier day, and an
// open split sale cannot be cancelled, each with a sentence that says what to
// do. The returned invoice, a sale paid by its one cash tender, is refused
// before anything is given back, named by its number or by the sale's id.
func TestCancelRefused(t *testing.T) {
	r, tl := newReturnTill(t)
	ctx := t.Context()
	sold, err := sellCash(ctx, r.e, r.sale(t, "ACC-CBL", "ACC-CASE"), Rupees(1998))
	require.NoError(t, err)
	require.Equal(t, TenderSplit, sold.Order.Tender, "a sale, paid by its tender")
	inv := sold.Order.Number("T1")
	_, err = tl.Returns.Return(ctx, ReturnRequest{Document: inv, Items: []ReturnQty{{SKU: "ACC-CBL", Qty: 1}}, To: RefundToCash, PIN: managerPIN})
	require.NoError(t, err)
	before := len(r.j.events)
	for _, doc := range []string{inv, sold.Order.ID} {
		_, err = tl.Returns.CancelDocument(ctx, doc, managerPIN, "customer left")
		require.ErrorIs(t, err, ErrNoCancel, doc)
		assert.Equal(t, "Invoice T1/2627/000001 has a credit note against it, so it can no longer be cancelled; make a return (credit note) for the rest instead.", Sentence(err), doc)
	}
	assert.Equal(t, before, len(r.j.events), "nothing given back, nothing journaled by the refused cancellation")
	st, err := r.e.Sales.SaleStatus(ctx, sold.Order.ID)
	require.NoError(t, err)
	assert.Nil(t, st.Sale.Cancelled)
	assert.Len(t, st.Sale.Refunds, 1, "the return alone")
	require.Len(t, st.Tenders, 1)
	assert.Equal(t, StatePaid, st.Tenders[0].Order.State, "the cash tender is not given back")

	old, err := sellCash(ctx, r.e, r.sale(t, "ACC-CASE"), Rupees(1499))
	require.NoError(t, err)
	r.clock.Advance(24 * time.Hour)
	_, err = tl.Returns.CancelDocument(ctx, old.Order.Number("T1"), managerPIN, "customer left")
	require.ErrorIs(t, err, ErrNoCancel)
	assert.Equal(t, "Invoice T1/2627/000002 was issued on 2026-11-22; only an invoice of today's business day can be cancelled: make a return (credit note) instead.", Sentence(err))

	open, err := r.e.Sales.OpenSale(ctx, r.sale(t, "ACC-CASE"))
	require.NoError(t, err)
	_, err = r.e.Refunds.CancelDocument(ctx, open.ID, managerPIN, "customer left")
	require.ErrorIs(t, err, ErrNoCancel)
	assert.Contains(t, Sentence(err), "void the sale instead")
}

// TestCancelSplitInvoice cancels a split sale paid ₹300 cash, ₹200 UPI and the
// rest (₹999) by card: the card is refunded at the service, cash and UPI are
// given back at the counter, none issues a credit note, the report holds
// nothing, and the phone-free sale's tenders are all REFUNDED.
func TestCancelSplitInvoice(t *testing.T) {
	r, tl := newReturnTill(t)
	ctx := t.Context()
	s, err := r.e.Sales.OpenSale(ctx, r.sale(t, "ACC-CASE"))
	require.NoError(t, err)
	_, _, err = r.e.Sales.SaleCash(ctx, s.ID, 30000, 0, "001")
	require.NoError(t, err)
	_, _, err = r.e.Sales.SaleUPI(ctx, s.ID, 20000, "001")
	require.NoError(t, err)
	o, err := r.e.Sales.OpenSaleTender(ctx, s.ID, TenderCard, 0, nil, "001", r.otp())
	require.NoError(t, err)
	pay, err := r.e.Payments.PayCard(ctx, o.ID, card("4111111111111111"), r.otp())
	require.NoError(t, err)
	require.Equal(t, ResultPaid, pay.Status, pay.Reason)
	st, err := r.e.Sales.SettleSale(ctx, s.ID)
	require.NoError(t, err)
	require.True(t, st.Complete())
	inv := st.Sale.Number("T1")
	require.Equal(t, "T1/2627/000001", inv)

	res, err := tl.Returns.CancelDocument(ctx, inv, managerPIN, "customer changed mind at the counter")
	require.NoError(t, err)
	require.Equal(t, CancelDone, res.Status, res.Pending)
	require.Len(t, res.Tenders, 3)
	assert.Equal(t, []TenderKind{TenderCash, TenderUPI, TenderCard}, []TenderKind{res.Tenders[0].Tender, res.Tenders[1].Tender, res.Tenders[2].Tender})
	assert.Equal(t, []Paise{30000, 20000, 99900}, []Paise{res.Tenders[0].Amount, res.Tenders[1].Amount, res.Tenders[2].Amount})
	assert.Equal(t, int64(99900), r.ledger(t, o.ID).RefundedAmount)

	st, err = r.e.Sales.SaleStatus(ctx, s.ID)
	require.NoError(t, err)
	require.NotNil(t, st.Sale.Cancelled)
	for _, tv := range st.Tenders {
		assert.Equal(t, StateRefunded, tv.Order.State, tv.Kind)
		for _, rf := range tv.Order.Refunds {
			assert.Zero(t, rf.DocNo, "no credit note for the %s tender", tv.Kind)
		}
	}
	rep, err := r.e.Ledger.Report(ctx, "2026-11-22")
	require.NoError(t, err)
	assert.Zero(t, rep.GrossSales)
	assert.Zero(t, rep.Refunded)
	assert.Zero(t, rep.CashExpected, "₹300 in, ₹300 back")
	assert.Empty(t, rep.GST)
	assert.Equal(t, Count{Count: 1, Amount: 149900}, rep.Cancelled)

	_, err = tl.Returns.CancelDocument(ctx, inv, managerPIN, "again")
	assert.ErrorIs(t, err, ErrAlreadyCancelled)
}

// TestCancelFreesIMEI cancels the sale of a phone: its IMEI can be sold again.
func TestCancelFreesIMEI(t *testing.T) {
	r, tl := newReturnTill(t)
	ctx := t.Context()
	sale := r.sale(t, "PH-SAM-S24")
	sale.Lines[0].IMEIs = []string{"356938035643809"}
	sold, err := sellCash(ctx, r.e, sale, Rupees(74999))
	require.NoError(t, err)
	again := r.sale(t, "PH-SAM-S24")
	again.Lines[0].IMEIs = []string{"356938035643809"}
	require.ErrorIs(t, tl.IMEIs.CheckSerials(ctx, again.Lines, ""), ErrIMEISold)
	_, err = tl.Returns.CancelDocument(ctx, sold.Order.Number("T1"), managerPIN, "customer left")
	require.NoError(t, err)
	assert.NoError(t, tl.IMEIs.CheckSerials(ctx, again.Lines, ""), "the phone can be sold again")
}

// TestCancelCashNeedsAnOpenShift: at a counter that keeps shifts, the cash of a
// cancelled invoice is handed back from a counted drawer, as a cash refund is:
// with the shift closed the cancellation is refused and nothing is given back;
// once a shift is open it goes through.
func TestCancelCashNeedsAnOpenShift(t *testing.T) {
	r, tl := newShiftTill(t)
	ctx := t.Context()
	_, err := tl.Drawer.OpenShift(ctx, "meera", Rupees(2000))
	require.NoError(t, err)
	paid, err := tl.Checkout.Pay(ctx, PayRequest{Lines: []CartLine{r.cartLine(t, "ACC-CASE", 1)}, Tender: TenderCash, Tendered: Rupees(2000), Cashier: "meera"}, nil)
	require.NoError(t, err)
	count, err := ParseCount("500x7")
	require.NoError(t, err)
	_, err = tl.Drawer.CloseShift(ctx, "meera", count)
	require.NoError(t, err)

	inv := paid.ReceiptNo
	require.NotEmpty(t, inv)
	_, err = tl.Returns.CancelDocument(ctx, inv, managerPIN, "customer left")
	require.ErrorIs(t, err, ErrNoShift)
	o, err := r.e.Order(ctx, paid.OrderID)
	require.NoError(t, err)
	assert.Nil(t, o.Cancelled)
	assert.Empty(t, o.Refunds, "no cash went out of a closed drawer")

	_, err = tl.Drawer.OpenShift(ctx, "meera", Rupees(2000))
	require.NoError(t, err)
	res, err := tl.Returns.CancelDocument(ctx, inv, managerPIN, "customer left")
	require.NoError(t, err)
	assert.Equal(t, CancelDone, res.Status)
}

// releasingStore is a store that approves every IMEI and records what it is
// asked to release.
type releasingStore struct {
	mu       sync.Mutex
	released []string
}

func (s *releasingStore) ReserveIMEIs(context.Context, string, []string) error { return nil }
func (s *releasingStore) RedeemCreditNote(context.Context, string, string, Paise) (Paise, error) {
	return 0, ErrStoreOffline
}
func (s *releasingStore) ReserveReturn(context.Context, string, string, Paise) (Paise, error) {
	return 0, ErrStoreOffline
}
func (s *releasingStore) Release(_ context.Context, order, _ string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.released = append(s.released, order)
	return nil
}

// ReserveReturnItems cannot be asked either.
func (s *releasingStore) ReserveReturnItems(context.Context, string, string, Paise, []ReturnItem) (Paise, error) {
	return 0, ErrStoreOffline
}

// Invoice cannot be asked either.
func (s *releasingStore) Invoice(context.Context, string) (*StoreInvoice, error) {
	return nil, ErrStoreOffline
}

// ReturnedElsewhere says the store never named an invoice of this counter
// returned at another counter.
func (s *releasingStore) ReturnedElsewhere(string) (ElsewhereReturn, bool, error) {
	return ElsewhereReturn{}, false, nil
}

// TestCancelReleasesThePhoneAtTheStore: at an enrolled counter the phone of a
// cancelled invoice is given back at the store at once, so that any counter
// may sell it before this one syncs.
func TestCancelReleasesThePhoneAtTheStore(t *testing.T) {
	r, tl := newReturnTill(t)
	ctx := t.Context()
	st := &releasingStore{}
	r.e.StoreDesk.SetDecisions(st)
	sale := r.sale(t, "PH-SAM-S24")
	sale.Lines[0].IMEIs = []string{"356938035643809"}
	sold, err := sellCash(ctx, r.e, sale, Rupees(74999))
	require.NoError(t, err)
	assert.Empty(t, st.released)
	_, err = tl.Returns.CancelDocument(ctx, sold.Order.Number("T1"), managerPIN, "customer left")
	require.NoError(t, err)
	assert.Equal(t, []string{sold.Order.ID}, st.released)
}

// TestAPendingCancellationIsFinishedByTheReconciler: the card refund of a
// cancellation gets no answer, so the invoice stays issued with its refund
// pending; once the service answers again the reconciler settles the refund
// (once) and the invoice is cancelled with the manager's reason, without the
// manager cancelling it again.
func TestAPendingCancellationIsFinishedByTheReconciler(t *testing.T) {
	r, tl := newReturnTill(t)
	ctx := t.Context()
	paid, err := sellCard(ctx, r.e, r.sale(t, "ACC-CASE"), card("4111111111111111"), r.otp())
	require.NoError(t, err)
	require.Equal(t, ResultPaid, paid.Status)
	r.sb.Controls.Inject(sandbox.EndpointRefund, sandbox.Fault{Kind: sandbox.FaultReset}, 10)
	r.sb.Controls.Inject(sandbox.EndpointInquireOrder, sandbox.Fault{Kind: sandbox.FaultReset}, 10)
	res, err := tl.Returns.CancelDocument(ctx, paid.Order.Number("T1"), managerPIN, "customer left before delivery")
	require.NoError(t, err)
	require.Equal(t, CancelPending, res.Status)
	o, err := r.e.Order(ctx, paid.Order.ID)
	require.NoError(t, err)
	assert.Nil(t, o.Cancelled, "not cancelled while the card's money may not be back")

	r.sb.Controls.ClearFaults()
	_, err = r.e.Payments.Reconcile(ctx)
	require.NoError(t, err)
	o, err = r.e.Order(ctx, paid.Order.ID)
	require.NoError(t, err)
	require.NotNil(t, o.Cancelled)
	assert.Equal(t, "customer left before delivery", o.Cancelled.Reason)
	assert.Equal(t, int64(149900), r.ledger(t, paid.Order.Tenders[0].OrderID).RefundedAmount, "refunded once")
	_, err = tl.Returns.CancelDocument(ctx, paid.Order.Number("T1"), managerPIN, "again")
	assert.ErrorIs(t, err, ErrAlreadyCancelled)
}
