package pos

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"galla/gateway/sandbox"
)

// splitRig is a till selling a charger (₹1,299) and a cable (₹499), both at
// GST 18%, and a split sale of both: ₹500 in cash, the rest (₹1,298) by card.
func splitRig(t *testing.T) (*rig, *Till, *Order, TenderView, TenderView) {
	t.Helper()
	r := newRig(t)
	cat := []byte(`[
 {"sku":"ACC-CHG-SAM25W","name":"Samsung 25W Charger","price":"1299.00","gst_rate":18,"hsn":"8504"},
 {"sku":"ACC-CBL-CC1M","name":"USB-C Cable 1 m","price":"499.00","gst_rate":18,"hsn":"8544"}
]`)
	tl, err := NewTill(t.Context(), TillConfig{Engine: r.e, SampleCatalog: cat, Service: &fakeService{}})
	require.NoError(t, err)
	ctx := t.Context()
	mgr, err := tl.Crew.SignIn(ctx, "Meera", managerPIN)
	require.NoError(t, err)
	lines, _, err := tl.Shelf.ParseItems(ctx, "ACC-CHG-SAM25W,ACC-CBL-CC1M", nil)
	require.NoError(t, err)
	st, err := tl.Checkout.OpenSale(ctx, PayRequest{Lines: lines, Cashier: mgr.ID})
	require.NoError(t, err)
	id := st.Sale.ID
	_, err = tl.Checkout.Pay(ctx, PayRequest{Sale: id, Tender: TenderCash, Amount: 50000, Tendered: 50000, Cashier: mgr.ID}, nil)
	require.NoError(t, err)
	out, err := tl.Checkout.Pay(ctx, PayRequest{Sale: id, Tender: TenderCard, Card: tl.Checkout.NewCard("4111111111111111", "12", "2030", "123", "Ravi Kumar"),
		OTP: r.td.OTP, Cashier: mgr.ID}, nil)
	require.NoError(t, err)
	require.True(t, out.Sale.Complete())
	require.Equal(t, "T1/2627/000001", out.ReceiptNo)
	s, err := r.e.Sales.SaleStatus(ctx, id)
	require.NoError(t, err)
	require.Len(t, s.Tenders, 2)
	require.Equal(t, Paise(50000), s.Tenders[0].Amount)
	require.Equal(t, Paise(129800), s.Tenders[1].Amount)
	return r, tl, s.Sale, s.Tenders[0], s.Tenders[1]
}

// TestSplitSaleReturnToNoteThenRefused returns the cable of a split sale to a
// credit note, then refuses the charger in cash (₹500 was paid in cash) and to
// the card (₹1,298 was paid by card), takes it back on a note, and refuses a
// third return.
func TestSplitSaleReturnToNoteThenRefused(t *testing.T) {
	r, tl, sale, _, _ := splitRig(t)
	ctx := t.Context()
	inv := "T1/2627/000001"

	res, err := tl.Returns.Return(ctx, ReturnRequest{Document: inv, Items: []ReturnQty{{SKU: "ACC-CBL-CC1M", Qty: 1}}, To: RefundToNote, Reason: "faulty", PIN: managerPIN})
	require.NoError(t, err)
	require.Equal(t, RefundDone, res.Status)
	assert.Equal(t, "T1/C2627/00001", res.CreditNote)
	assert.Equal(t, Paise(49900), res.Refund.Amount)
	require.Len(t, res.Refund.Items, 1)
	// ₹499 at 18%: taxable 499/1.18 = 422.88, tax 76.12, CGST 38.06.
	assert.Equal(t, ReturnItem{Line: 1, SKU: "ACC-CBL-CC1M", Qty: 1, Amount: 49900, Taxable: 42288, Tax: 7612, CGST: 3806, Rate: res.Refund.Items[0].Rate}, res.Refund.Items[0])
	left, err := tl.Returns.NoteBalance(ctx, "T1/C2627/00001")
	require.NoError(t, err)
	assert.Equal(t, Paise(49900), left)

	doc, err := tl.Returns.CreditNoteDocument(ctx, "T1/C2627/00001")
	require.NoError(t, err)
	assert.Equal(t, inv, doc.Receipt.Credit.InvoiceNumber, "the credit note cites the sale's invoice")
	assert.Equal(t, int64(49900), doc.Receipt.Total)
	require.Len(t, doc.Receipt.Tenders, 1)
	assert.EqualValues(t, TenderNote, doc.Receipt.Tenders[0].Kind)

	_, err = tl.Returns.Return(ctx, ReturnRequest{Document: inv, Items: []ReturnQty{{SKU: "ACC-CHG-SAM25W", Qty: 1}}, To: RefundToCash, PIN: managerPIN})
	require.ErrorIs(t, err, ErrNotRefundable)
	assert.Equal(t, "Only ₹500.00 of sale 2627/000001 can go back in cash: that much was paid in cash and not given back yet. "+
		"The return comes to ₹1,299.00: refund it to the card (up to ₹1,298.00) or give a credit note.", Sentence(err))
	_, err = tl.Returns.Return(ctx, ReturnRequest{Document: inv, Items: []ReturnQty{{SKU: "ACC-CHG-SAM25W", Qty: 1}}, To: RefundToCard, PIN: managerPIN})
	require.ErrorIs(t, err, ErrNotRefundable)
	assert.Equal(t, "Only ₹1,298.00 of sale 2627/000001 can go back to the card: that much was paid by card and not refunded yet. "+
		"The return comes to ₹1,299.00: give it in cash (up to ₹500.00) or as a credit note.", Sentence(err))
	for _, lo := range r.sb.Controls.Ledger() {
		assert.Zero(t, lo.RefundedAmount, "nothing was sent to the service")
	}

	res, err = tl.Returns.Return(ctx, ReturnRequest{Document: inv, Items: []ReturnQty{{SKU: "ACC-CHG-SAM25W", Qty: 1}}, To: RefundToNote, PIN: managerPIN})
	require.NoError(t, err)
	assert.Equal(t, "T1/C2627/00002", res.CreditNote)
	assert.Equal(t, Paise(129900), res.Refund.Amount)
	assert.Equal(t, StateRefunded, res.Order.State, "₹499 + ₹1,299 is all the sale's ₹1,798")

	_, err = tl.Returns.Return(ctx, ReturnRequest{Document: inv, Amount: 100, To: RefundToNote, PIN: managerPIN})
	assert.ErrorIs(t, err, ErrNotRefundable, "nothing is left")
	_, err = tl.Returns.Return(ctx, ReturnRequest{Document: inv, Items: []ReturnQty{{SKU: "ACC-CBL-CC1M", Qty: 1}}, To: RefundToNote, PIN: managerPIN})
	assert.ErrorIs(t, err, ErrNotRefundable)
	o, err := r.e.Order(ctx, sale.ID)
	require.NoError(t, err)
	assert.Equal(t, Paise(179800), o.Refunded)
}

// TestSplitSaleReturnToCard returns the cable of a split sale to its card: the
// card tender's order is refunded ₹499 at the service once, though the answer
// is lost and inquired; then the charger is refused in cash (₹500) and to the
// card (₹799 left on it), and goes on a note.
func TestSplitSaleReturnToCard(t *testing.T) {
	r, tl, sale, cash, cardT := splitRig(t)
	ctx := t.Context()
	inv := "T1/2627/000001"

	v, err := tl.Returns.ReturnView(ctx, inv)
	require.NoError(t, err)
	assert.Equal(t, Paise(179800), v.Refundable)
	assert.Equal(t, []RefundTo{RefundToCard, RefundToCash, RefundToNote}, v.To)

	r.sb.Controls.Inject(sandbox.EndpointRefund, sandbox.Fault{Kind: sandbox.FaultDrop}, 1)
	res, err := tl.Returns.Return(ctx, ReturnRequest{Document: inv, Items: []ReturnQty{{SKU: "ACC-CBL-CC1M", Qty: 1}}, To: RefundToCard, Reason: "faulty", PIN: managerPIN})
	require.NoError(t, err)
	require.Equal(t, RefundDone, res.Status, "the lost answer is settled by inquiry")
	assert.Equal(t, "T1/C2627/00001", res.CreditNote)
	assert.Equal(t, cardT.Order.ID, res.Refund.Tender)
	assert.Equal(t, Paise(42288), res.Refund.Items[0].Taxable)
	assert.Equal(t, Paise(7612), res.Refund.Items[0].Tax)
	assert.Equal(t, int64(49900), r.ledger(t, cardT.Order.ID).RefundedAmount, "the card tender refunded once")
	assert.Len(t, eventsOf(t, r, EvRefundIntent, 0), 1)

	doc, err := tl.Returns.CreditNoteDocument(ctx, res.CreditNote)
	require.NoError(t, err)
	require.Len(t, doc.Receipt.Tenders, 1)
	assert.EqualValues(t, TenderCard, doc.Receipt.Tenders[0].Kind, "the money went back to the card tender")
	assert.Equal(t, "1111", doc.Receipt.Tenders[0].CardLast4)

	_, err = tl.Returns.Return(ctx, ReturnRequest{Document: inv, Items: []ReturnQty{{SKU: "ACC-CHG-SAM25W", Qty: 1}}, To: RefundToCash, PIN: managerPIN})
	require.ErrorIs(t, err, ErrNotRefundable)
	assert.Contains(t, Sentence(err), "Only ₹500.00 of sale 2627/000001 can go back in cash")
	assert.Contains(t, Sentence(err), "to the card (up to ₹799.00)")
	_, err = tl.Returns.Return(ctx, ReturnRequest{Document: inv, Items: []ReturnQty{{SKU: "ACC-CHG-SAM25W", Qty: 1}}, To: RefundToCard, PIN: managerPIN})
	require.ErrorIs(t, err, ErrNotRefundable)
	assert.Contains(t, Sentence(err), "Only ₹799.00 of sale 2627/000001 can go back to the card")
	assert.Equal(t, int64(49900), r.ledger(t, cardT.Order.ID).RefundedAmount)

	// A price adjustment of ₹300 fits the cash tender.
	res, err = tl.Returns.Return(ctx, ReturnRequest{Document: inv, Amount: 30000, To: RefundToCash, PIN: managerPIN})
	require.NoError(t, err)
	assert.Equal(t, RefundDone, res.Status)
	v, err = tl.Returns.ReturnView(ctx, inv)
	require.NoError(t, err)
	assert.Equal(t, Paise(179800-49900-30000), v.Refundable)

	rep, err := r.e.Ledger.Report(ctx, r.e.Today())
	require.NoError(t, err)
	assert.Equal(t, Paise(79900), rep.Refunded, "₹499 to the card and ₹300 in cash")
	assert.Equal(t, []TenderTotal{{Tender: "card", Count: 1, Amount: 49900}, {Tender: "cash", Count: 1, Amount: 30000}}, rep.Refunds)

	docs := GSTRDocuments(*res.Order, Shop{State: "27"}, "T1", IST, nil)
	require.Len(t, docs, 3, "the invoice and its two credit notes")
	assert.Equal(t, "T1/2627/000001", docs[1].OriginalNumber)
	_ = sale
	_ = cash
}

// TestSplitSaleHistoryNamesItsInvoice: the journal screen's history of a split
// sale says which invoice it was numbered, with the terminal, as printed.
func TestSplitSaleHistoryNamesItsInvoice(t *testing.T) {
	_, tl, sale, _, _ := splitRig(t)
	h, err := tl.Books.History(t.Context(), sale.ID)
	require.NoError(t, err)
	var found bool
	for _, e := range h {
		if e.Kind == string(EvSaleCompleted) {
			found = true
			assert.Equal(t, "The sale is paid in full: invoice T1/"+FinancialYear(sale.Opened)+"/000001", e.Detail)
		}
	}
	assert.True(t, found, "the history has the sale's completion")
}
