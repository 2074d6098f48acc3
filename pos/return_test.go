package pos

import (
	"bytes"
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"galla/receipts"
)

// returnLines are three cables at ₹499 with ₹1 off the line, and a case at
// ₹1,499: 1,496.00 + 1,499.00 = ₹2,995.00, all at 18%.
func returnLines() []Line {
	return []Line{
		{SKU: "ACC-CBL", Name: "Cable", HSN: "8544", Qty: 3, UnitPrice: 49900, Discount: 100, GSTRate: Percent(18)},
		{SKU: "ACC-CASE", Name: "Phone case", HSN: "3926", Qty: 1, UnitPrice: 149900, GSTRate: Percent(18)},
	}
}

func newReturnTill(t *testing.T) (*rig, *Till) {
	t.Helper()
	r := newRig(t)
	tl, err := NewTill(t.Context(), TillConfig{Engine: r.e, SampleCatalog: catalogJSON(t)})
	require.NoError(t, err)
	return r, tl
}

// registerShop makes tl's shop a regular GST registrant, whose documents and
// reports state the tax (a shop without a GSTIN states none).
func registerShop(t *testing.T, tl *Till) {
	t.Helper()
	_, _, err := tl.Setup.SetShop(t.Context(), ShopDetails{Name: "Galla Mobiles", Address: "1 MG Road, Pune", State: "27", GSTIN: "27AAPFU0939F1ZV"}, managerPIN)
	require.NoError(t, err)
}

func creditNoteText(t *testing.T, tl *Till, number string) string {
	t.Helper()
	d, err := tl.Returns.CreditNoteDocument(t.Context(), number)
	require.NoError(t, err)
	var b bytes.Buffer
	require.NoError(t, receipts.Text(&b, d.Receipt, 48))
	return b.String()
}

// TestPartialReturn returns the cables of a cash sale in two goes, checks each
// credit note's money and tax against hand-computed values, and that nothing is
// returned twice.
func TestPartialReturn(t *testing.T) {
	r, tl := newReturnTill(t)
	registerShop(t, tl)
	ctx := t.Context()
	res, err := sellCash(ctx, r.e, Sale{Lines: returnLines()}, 299500)
	require.NoError(t, err)
	inv := res.Order.Number("T1")
	require.Equal(t, "T1/2627/000001", inv, "22 Nov 2026 is in FY 2026-27")

	// One cable of three: ⌊149600×1/3⌋ = 49866 paise. Taxable at 18%:
	// ⌊(4986600+59)/118⌋ = 42259; tax 49866−42259 = 7607 (CGST ⌊7607/2⌋ = 3803,
	// SGST 3804).
	one, err := tl.Returns.Return(ctx, ReturnRequest{Document: inv, Items: []ReturnQty{{SKU: "ACC-CBL", Qty: 1}},
		To: RefundToCash, Reason: "faulty", PIN: managerPIN})
	require.NoError(t, err)
	assert.Equal(t, RefundDone, one.Status)
	assert.Equal(t, "T1/C2627/00001", one.CreditNote)
	assert.Equal(t, []ReturnItem{{Line: 0, SKU: "ACC-CBL", Qty: 1, Amount: 49866, Taxable: 42259, Tax: 7607, CGST: 3803, Rate: Percent(18)}}, one.Refund.Items)
	assert.Equal(t, Paise(49866), one.Refund.Amount)
	text := creditNoteText(t, tl, one.CreditNote)
	for _, want := range []string{"CREDIT NOTE", "Credit note", "T1/C2627/00001", "Against invoice", inv, "22 Nov 2026",
		"Returned 1 NOS x 499.00", "498.66", "Taxable 422.59", "CGST @9%", "38.03", "Refunded to cash", "Reason: faulty"} {
		assert.Contains(t, text, want)
	}
	assert.NotContains(t, text, "PAYMENT VERIFIED")
	// The credit note states the GST the portal computes on its own taxable
	// value: 422.59 × 9% = 38.0331 → 38.03 for CGST and for SGST, 76.06 on the
	// line; 422.59 + 76.06 = 498.65, 0.01 short of what is given back.
	assert.Contains(t, text, "GST 18%                  76.06")
	assert.Regexp(t, `SGST @9% +38\.03\n`, text)

	// The other two: 149600 − 49866 = 99734 (the odd paisa goes to the last
	// units). The whole line was taxable ⌊(14960000+59)/118⌋ = 126780, tax 22820,
	// CGST 11410; less the first return's: taxable 126780 − 42259 = 84521, tax
	// 22820 − 7607 = 15213, CGST 11410 − 3803 = 7607. Both credit notes reverse
	// the line's tax exactly.
	two, err := tl.Returns.Return(ctx, ReturnRequest{Document: inv, Items: []ReturnQty{{SKU: "ACC-CBL", Qty: 2}}, To: RefundToNote, PIN: managerPIN})
	require.NoError(t, err)
	assert.Equal(t, "T1/C2627/00002", two.CreditNote)
	assert.Equal(t, []ReturnItem{{Line: 0, SKU: "ACC-CBL", Qty: 2, Amount: 99734, Taxable: 84521, Tax: 15213, CGST: 7607, Rate: Percent(18)}}, two.Refund.Items)
	assert.Equal(t, RefundToNote, two.Refund.To)
	left, err := tl.Returns.NoteBalance(ctx, two.CreditNote)
	require.NoError(t, err)
	assert.Equal(t, Paise(99734), left, "the note is worth what came back")

	// Nothing is returned twice, nor beyond what was sold.
	_, err = tl.Returns.Return(ctx, ReturnRequest{Document: inv, Items: []ReturnQty{{SKU: "ACC-CBL", Qty: 1}}, To: RefundToCash, PIN: managerPIN})
	assert.ErrorIs(t, err, ErrNotRefundable)
	assert.Contains(t, Sentence(err), "3 sold, 3 returned already")
	_, err = tl.Returns.Return(ctx, ReturnRequest{Document: inv, Items: []ReturnQty{{SKU: "ACC-CASE", Qty: 2}}, To: RefundToCash, PIN: managerPIN})
	assert.ErrorIs(t, err, ErrNotRefundable)
	_, err = tl.Returns.Return(ctx, ReturnRequest{Document: inv, Items: []ReturnQty{{SKU: "ACC-CASE", Qty: 1}}, To: RefundToCard, PIN: managerPIN})
	assert.ErrorIs(t, err, ErrNotRefundable, "a cash sale has no card to refund to")

	// A price adjustment without goods falls on what was kept, the case:
	// 10000 at 18%: taxable ⌊(1000000+59)/118⌋ = ⌊8475.08⌋ = 8475, tax 1525,
	// CGST 762.
	adj, err := tl.Returns.Return(ctx, ReturnRequest{Document: inv, Amount: 10000, To: RefundToCash, PIN: managerPIN})
	require.NoError(t, err)
	assert.Equal(t, "T1/C2627/00003", adj.CreditNote)
	assert.Equal(t, []ReturnItem{{Line: 1, SKU: "ACC-CASE", Amount: 10000, Taxable: 8475, Tax: 1525, CGST: 762, Rate: Percent(18)}}, adj.Refund.Items)
	assert.Contains(t, creditNoteText(t, tl, adj.CreditNote), "Price adjustment, no goods returned")

	// Beyond what is left of the sale: 299500 − 49866 − 99734 − 10000 = 139900.
	_, err = tl.Returns.Return(ctx, ReturnRequest{Document: inv, Amount: 139901, To: RefundToCash, PIN: managerPIN})
	assert.ErrorIs(t, err, ErrNotRefundable)
	o, err := tl.Returns.FindSale(ctx, inv)
	require.NoError(t, err)
	assert.Equal(t, Paise(139900), o.Refundable())
	assert.Equal(t, 3, o.Returns().Returned(0))
	assert.Equal(t, 0, o.Returns().Returned(1))

	// A wrong PIN returns nothing.
	_, err = tl.Returns.Return(ctx, ReturnRequest{Document: inv, Items: []ReturnQty{{SKU: "ACC-CASE", Qty: 1}}, To: RefundToCash, PIN: "999999"})
	assert.ErrorIs(t, err, ErrWrongPIN)
	_, err = tl.Returns.FindSale(ctx, "T1/C2627/00001")
	assert.ErrorIs(t, err, ErrNotRefundable, "a credit note is not an invoice")
	_, err = tl.Returns.FindSale(ctx, "T1/2627/000009")
	assert.ErrorIs(t, err, ErrOrderNotFound)
	_, err = tl.Returns.FindSale(ctx, "T2/2627/000001")
	assert.ErrorIs(t, err, ErrOrderNotFound, "invoice 1 of another terminal is not this one's")
	assert.Contains(t, Sentence(err), "issued by terminal T2")
	o, err = tl.Returns.FindSale(ctx, "2627/000001")
	require.NoError(t, err, "without the terminal: this one's")
	assert.Equal(t, inv, o.Number("T1"))
}

// TestJournalRefusesAReturnTwice sends the state machine a refund.intent for
// units already returned, as a second terminal or a replayed event would.
func TestJournalRefusesAReturnTwice(t *testing.T) {
	o := &Order{ID: "G-1", State: StatePaid, Tender: TenderCash, Lines: returnLines(), Captured: 299500, Amount: 299500}
	item := ReturnItem{Line: 0, SKU: "ACC-CBL", Qty: 3, Amount: 149600, Taxable: 126780, Tax: 22820, CGST: 11410, Rate: Percent(18)}
	ev := Event{Kind: EvRefundIntent, OrderID: "G-1", Refund: &RefundEvent{UniqueTxnID: "U1", Amount: 149600, To: RefundToCash, Items: []ReturnItem{item}}}
	require.NoError(t, o.Apply(ev))
	ev.Refund = &RefundEvent{UniqueTxnID: "U1", Amount: 149600}
	require.NoError(t, o.Apply(Event{Kind: EvRefundDone, OrderID: "G-1", Refund: &RefundEvent{UniqueTxnID: "U1", Amount: 149600}}))
	again := Event{Kind: EvRefundIntent, OrderID: "G-1", Refund: &RefundEvent{UniqueTxnID: "U2", Amount: 49866, To: RefundToCash,
		Items: []ReturnItem{{Line: 0, SKU: "ACC-CBL", Qty: 1, Amount: 49866, Taxable: 42259, Tax: 7607, CGST: 3803, Rate: Percent(18)}}}}
	assert.ErrorIs(t, o.Apply(again), ErrNotRefundable)
	cheap := Event{Kind: EvRefundIntent, OrderID: "G-1", Refund: &RefundEvent{UniqueTxnID: "U3", Amount: 100000, To: RefundToCash,
		Items: []ReturnItem{{Line: 1, SKU: "ACC-CASE", Qty: 1, Amount: 100000, Taxable: 84746, Tax: 15254, CGST: 7627, Rate: Percent(18)}}}}
	assert.ErrorIs(t, o.Apply(cheap), ErrBadEvent, "a unit's money is fixed by the sale")
}

// TestReturnToCard returns one unit of a card sale through the service.
func TestReturnToCard(t *testing.T) {
	r, tl := newReturnTill(t)
	ctx := t.Context()
	res, err := sellCard(ctx, r.e, r.sale(t, "ACC-CASE", "ACC-CBL"), card("4111111111111111"), r.otp())
	require.NoError(t, err)
	require.Equal(t, ResultPaid, res.Status)
	_, err = tl.Returns.Return(ctx, ReturnRequest{Document: res.Order.ID, Items: []ReturnQty{{SKU: "ACC-CBL", Qty: 1}}, To: RefundToCash, PIN: managerPIN})
	assert.ErrorIs(t, err, ErrNotRefundable, "a card sale is not refunded in cash")
	ret, err := tl.Returns.Return(ctx, ReturnRequest{Document: res.Order.Number("T1"), Items: []ReturnQty{{SKU: "ACC-CBL", Qty: 1}}, To: RefundToCard, PIN: managerPIN})
	require.NoError(t, err)
	assert.Equal(t, RefundDone, ret.Status, ret.Reason)
	assert.Equal(t, "T1/C2627/00001", ret.CreditNote)
	// 49900 at 18%: taxable ⌊(4990000+59)/118⌋ = 42288, tax 7612, CGST 3806.
	assert.Equal(t, []ReturnItem{{Line: 1, SKU: "ACC-CBL", Qty: 1, Amount: 49900, Taxable: 42288, Tax: 7612, CGST: 3806, Rate: Percent(18)}}, ret.Refund.Items)
	text := creditNoteText(t, tl, ret.CreditNote)
	assert.Contains(t, text, "Refunded to VISA •••• 1111")

	// Found by the card's last four digits, while it is the only sale with them.
	found, err := tl.Returns.FindSale(ctx, "1111")
	require.NoError(t, err)
	assert.Equal(t, res.Order.ID, found.ID)
	_, err = tl.Returns.FindSale(ctx, "0004")
	assert.ErrorIs(t, err, ErrOrderNotFound)
	again, err := sellCard(ctx, r.e, r.sale(t, "ACC-CBL"), card("4111111111111111"), r.otp())
	require.NoError(t, err)
	_, err = tl.Returns.FindSale(ctx, "1111")
	require.Error(t, err)
	assert.Contains(t, Sentence(err), "Several sales match 1111: T1/2627/000001 of 22 Nov, "+again.Order.Number("T1"))
	assert.Contains(t, text, "REFUND VERIFIED")
	assert.NotContains(t, text, "PAYMENT VERIFIED")
}

// TestExchange returns a case to a credit note and spends the note on cables:
// the note pays sales up to its value, keeps the rest, and is never spent twice.
func TestExchange(t *testing.T) {
	r, tl := newReturnTill(t)
	ctx := t.Context()
	sold, err := sellCash(ctx, r.e, r.sale(t, "ACC-CASE"), 149900)
	require.NoError(t, err)
	ret, err := tl.Returns.Return(ctx, ReturnRequest{Document: sold.Order.Number("T1"), Items: []ReturnQty{{SKU: "ACC-CASE", Qty: 1}},
		To: RefundToNote, Reason: "exchange", PIN: managerPIN})
	require.NoError(t, err)
	note := ret.CreditNote
	require.Equal(t, "T1/C2627/00001", note)

	cable := r.sale(t, "ACC-CBL")
	o, _, err := tl.Checkout.PayByNote(ctx, cable, note)
	require.NoError(t, err)
	assert.Equal(t, StatePaid, o.State)
	st, err := r.e.Sales.SaleStatus(ctx, o.ID)
	require.NoError(t, err)
	require.Len(t, st.Tenders, 1, "a sale of one tender")
	assert.Equal(t, TenderNote, st.Tenders[0].Kind)
	tender := st.Tenders[0].Order.ID
	assert.Equal(t, "T1/2627/000002", o.Number("T1"), "the new sale is the next invoice")
	d, err := tl.Documents.ReceiptDocument(ctx, o.ID, -1)
	require.NoError(t, err)
	var b bytes.Buffer
	require.NoError(t, receipts.Text(&b, d.Receipt, 48))
	assert.Contains(t, b.String(), "Paid by credit note")
	assert.Contains(t, b.String(), note)
	assert.NotContains(t, b.String(), "Paid by card")
	left, err := tl.Returns.NoteBalance(ctx, note)
	require.NoError(t, err)
	assert.Equal(t, Paise(149900-49900), left)

	// The rest (₹1,000) does not pay three cables (₹1,497) ...
	three := r.sale(t, "ACC-CBL", "ACC-CBL", "ACC-CBL")
	_, _, err = tl.Checkout.PayByNote(ctx, three, note)
	assert.ErrorIs(t, err, ErrNoteSpent)
	// ... but pays two (₹998), leaving ₹2.
	two := r.sale(t, "ACC-CBL", "ACC-CBL")
	_, _, err = tl.Checkout.PayByNote(ctx, two, note)
	require.NoError(t, err)
	left, err = tl.Returns.NoteBalance(ctx, note)
	require.NoError(t, err)
	assert.Equal(t, Paise(200), left)

	// Redeeming for a tender already paid by it takes nothing more; more than
	// is left is refused by the journal itself.
	require.NoError(t, tl.Returns.RedeemNote(ctx, note, 200, tender))
	left, _ = tl.Returns.NoteBalance(ctx, note)
	assert.Equal(t, Paise(200), left)
	assert.ErrorIs(t, tl.Returns.RedeemNote(ctx, note, 201, "G-other"), ErrNoteSpent)

	// The journal: the note is redeemed before the tender it pays is paid.
	var kinds []EventKind
	for _, ev := range r.j.allEvents() {
		if ev.Kind == EvNoteRedeemed || ev.Kind == EvTenderNoteRedeemed {
			kinds = append(kinds, ev.Kind)
		}
	}
	assert.Equal(t, []EventKind{EvNoteRedeemed, EvTenderNoteRedeemed, EvNoteRedeemed, EvTenderNoteRedeemed}, kinds)
}

// TestNoteSaleFinishedAfterACrash stops a note sale before its redemption is
// written and after it: reconciling finishes each without spending the note twice.
func TestNoteSaleFinishedAfterACrash(t *testing.T) {
	r, tl := newReturnTill(t)
	ctx := t.Context()
	sold, err := sellCash(ctx, r.e, r.sale(t, "ACC-CASE"), 149900)
	require.NoError(t, err)
	ret, err := tl.Returns.Return(ctx, ReturnRequest{Document: sold.Order.ID, Items: []ReturnQty{{SKU: "ACC-CASE", Qty: 1}}, To: RefundToNote, PIN: managerPIN})
	require.NoError(t, err)

	// The terminal stops at the first write of kind: it and every write after
	// it never happen.
	crash := func(kind EventKind) func(Event) error {
		stopped := false
		return func(ev Event) error {
			if stopped = stopped || ev.Kind == kind; stopped {
				return errCrash
			}
			return nil
		}
	}
	// Stopped before the redemption: the note is untouched until the sale is
	// finished by reconciling.
	r.j.failNext = crash(EvNoteRedeemed)
	_, _, err = tl.Checkout.PayByNote(ctx, r.sale(t, "ACC-CBL"), ret.CreditNote)
	require.Error(t, err)
	r.j.failNext = nil
	left, _ := tl.Returns.NoteBalance(ctx, ret.CreditNote)
	assert.Equal(t, Paise(149900), left)
	_, err = r.e.Payments.Reconcile(ctx)
	require.NoError(t, err)
	left, _ = tl.Returns.NoteBalance(ctx, ret.CreditNote)
	assert.Equal(t, Paise(100000), left, "the sale finished: one cable (₹499) spent")

	// Stopped after the redemption, before its tender was paid.
	r.j.failNext = crash(EvTenderNoteRedeemed)
	_, _, err = tl.Checkout.PayByNote(ctx, r.sale(t, "ACC-CBL"), ret.CreditNote)
	require.Error(t, err)
	r.j.failNext = nil
	left, _ = tl.Returns.NoteBalance(ctx, ret.CreditNote)
	assert.Equal(t, Paise(50100), left, "the redemption was journaled before the crash")

	_, err = r.e.Payments.Reconcile(ctx)
	require.NoError(t, err)
	left, _ = tl.Returns.NoteBalance(ctx, ret.CreditNote)
	assert.Equal(t, Paise(50100), left, "reconciling does not spend the note again")
	un, err := r.j.Unresolved(ctx)
	require.NoError(t, err)
	assert.Empty(t, un, "the sale is paid")
}

// errCrash is a journal write that never happened: the terminal stopped.
var errCrash = errors.New("the terminal stopped before the write")

// TestReportCountsReturns checks the X report of a day with a sale and two
// returns of it: sales, credit notes and net tax by rate, tenders, discounts and
// the numbers used.
func TestReportCountsReturns(t *testing.T) {
	r, tl := newReturnTill(t)
	registerShop(t, tl)
	ctx := t.Context()
	res, err := sellCash(ctx, r.e, Sale{Lines: returnLines()}, 299500)
	require.NoError(t, err)
	inv := res.Order.Number("T1")
	_, err = tl.Returns.Return(ctx, ReturnRequest{Document: inv, Items: []ReturnQty{{SKU: "ACC-CBL", Qty: 1}}, To: RefundToCash, PIN: managerPIN})
	require.NoError(t, err)
	_, err = tl.Returns.Return(ctx, ReturnRequest{Document: inv, Items: []ReturnQty{{SKU: "ACC-CBL", Qty: 2}}, To: RefundToNote, PIN: managerPIN})
	require.NoError(t, err)

	rep, err := r.e.Ledger.Report(ctx, r.e.Today())
	require.NoError(t, err)
	// Sold at 18%: the cables 149600 (taxable ⌊(14960000+59)/118⌋ = 126780, tax
	// 22820, CGST 11410) and the case 149900 (taxable ⌊(14990000+59)/118⌋ =
	// 127034, tax 22866, CGST 11433).
	assert.Equal(t, []RateTotal{{Rate: Percent(18), Amount: 299500, Taxable: 253814, Tax: 45686, CGST: 22843, SGST: 22843}}, rep.GST)
	// Reversed: 49866 (42259 + 7607) and 99734 (84521 + 15213): the cables' line
	// exactly, CGST 3803 + 7607 = 11410, SGST 3804 + 7606 = 11410.
	assert.Equal(t, []RateTotal{{Rate: Percent(18), Amount: 149600, Taxable: 126780, Tax: 22820, CGST: 11410, SGST: 11410}}, rep.ReturnsGST)
	assert.Equal(t, []RateTotal{{Rate: Percent(18), Amount: 149900, Taxable: 127034, Tax: 22866, CGST: 11433, SGST: 11433}}, rep.NetGST)
	assert.Equal(t, []TenderTotal{{Tender: "cash", Count: 1, Amount: 49866}, {Tender: "note", Count: 1, Amount: 99734}}, rep.Refunds)
	assert.Equal(t, Paise(299500-49866), rep.CashExpected, "a credit note to spend takes no cash from the drawer")
	assert.Equal(t, Paise(100), rep.Discounts)
	assert.Equal(t, []SeriesRange{{Series: "2627", FirstNo: 1, LastNo: 1}, {Series: "C2627", FirstNo: 1, LastNo: 2}}, rep.Documents)

	d, err := tl.Documents.ReportDocument(ctx, rep)
	require.NoError(t, err)
	var b bytes.Buffer
	require.NoError(t, receipts.Text(&b, d.Receipt, 48))
	for _, want := range []string{"GST reversed (credit notes)", "Net GST", "1,270.34", "Discounts given", "T1/2627/000001 to 2627/000001", "T1/C2627/00001 to C2627/00002"} {
		assert.Contains(t, b.String(), want)
	}
}

func TestReturnDestinations(t *testing.T) {
	brand := &EMIPlan{Program: ProgramBrand, IMEIRequired: true}
	tests := []struct {
		name string
		o    Order
		want []RefundTo
	}{
		{"cash", Order{Tender: TenderCash}, []RefundTo{RefundToCash, RefundToNote}},
		{"card", Order{Tender: TenderCard}, []RefundTo{RefundToCard, RefundToNote}},
		{"paid by a note", Order{Tender: TenderNote}, []RefundTo{RefundToNote}},
		{"brand EMI, IMEIs blocked", Order{Tender: TenderEMI, EMI: brand, IMEIsValidated: true}, []RefundTo{RefundToCard}},
		{"bank EMI", Order{Tender: TenderEMI, EMI: &EMIPlan{Program: ProgramBank}}, []RefundTo{RefundToCard, RefundToNote}},
	}
	for _, tt := range tests {
		assert.Equal(t, tt.want, ReturnDestinations(&tt.o), tt.name)
	}
	o := &Order{ID: "G-1", State: StatePaid, Tender: TenderEMI, EMI: brand, IMEIsValidated: true, Lines: returnLines(), Captured: 299500}
	err := o.Apply(Event{Kind: EvRefundIntent, OrderID: "G-1", Refund: &RefundEvent{UniqueTxnID: "U1", Amount: 100, To: RefundToNote}})
	assert.ErrorIs(t, err, ErrNotRefundable, "the journal refuses a brand-EMI sale onto a note")
}

// TestReturnByIMEI returns one phone of two by its IMEI and refuses it again,
// an IMEI not sold, and a serialised unit without its IMEI.
func TestReturnByIMEI(t *testing.T) {
	o := &Order{ID: "G-1", State: StatePaid, Tender: TenderCard, Captured: 14999800, Amount: 14999800, Lines: []Line{{
		SKU: "PH-S24", Name: "Galaxy S24", Qty: 2, UnitPrice: 7499900, GSTRate: Percent(18), Serialised: true,
		IMEIs: []string{"356938035643809", "356938035643817"}}}}
	_, err := o.Returns().ReturnItems([]ReturnQty{{SKU: "PH-S24", Qty: 1}})
	assert.Error(t, err, "which phone comes back must be named")
	_, err = o.Returns().ReturnItems([]ReturnQty{{SKU: "PH-S24", Qty: 1, IMEIs: []string{"356938035643825"}}})
	assert.ErrorIs(t, err, ErrNotRefundable, "an IMEI this invoice did not sell")
	items, err := o.Returns().ReturnItems([]ReturnQty{{SKU: "PH-S24", Qty: 1, IMEIs: []string{"356938035643817"}}})
	require.NoError(t, err)
	// 7499900 at 18%: taxable ⌊(749990000+59)/118⌋ = 6355847, tax 1144053, CGST 572026.
	assert.Equal(t, []ReturnItem{{Line: 0, SKU: "PH-S24", Qty: 1, Amount: 7499900, Taxable: 6355847, Tax: 1144053, CGST: 572026,
		Rate: Percent(18), IMEIs: []string{"356938035643817"}}}, items)
	require.NoError(t, o.Apply(Event{Kind: EvRefundIntent, OrderID: "G-1", Refund: &RefundEvent{UniqueTxnID: "U1", Amount: 7499900, To: RefundToCard, Items: items}}))
	_, err = o.Returns().ReturnItems([]ReturnQty{{SKU: "PH-S24", Qty: 1, IMEIs: []string{"356938035643817"}}})
	assert.ErrorIs(t, err, ErrNotRefundable, "the same phone twice")
	rest, err := o.Returns().ReturnItems([]ReturnQty{{SKU: "PH-S24", Qty: 1}})
	require.NoError(t, err, "the last unit needs no IMEI: only one is left")
	assert.Equal(t, []string{"356938035643809"}, rest[0].IMEIs)
}

func TestReturnEventSentences(t *testing.T) {
	n := &NoteEvent{Number: "T1/C2627/00001", Amount: 49900, SaleID: "G-2"}
	tests := []struct {
		ev   Event
		want string
	}{
		{Event{Kind: EvRefundDone, Series: "C2627", DocNo: 1, Refund: &RefundEvent{Amount: 10000}}, "Refund of ₹100.00 done: credit note T1/C2627/00001"},
		{Event{Kind: EvSaleCompleted, Series: "2627", DocNo: 7}, "The sale is paid in full: invoice T1/2627/000007"},
		// Every sale is journaled as a sale with its tenders (ADR 0008): one
		// paid by a single card reads as a sale, not as a split.
		{Event{Kind: EvOrderIntent, Intent: &Intent{Tender: TenderSplit, Amount: 14999000}}, "Sale of ₹1,49,990.00 journaled"},
		{Event{Kind: EvOrderIntent, Intent: &Intent{Tender: TenderCard, Amount: 14999000}}, "Sale of ₹1,49,990.00 journaled, paid by card"},
		{Event{Kind: EvTenderAdded, Sale: &SaleEvent{Tender: &SaleTender{Kind: TenderCard, Amount: 14999000}}}, "Tender added to the sale: card ₹1,49,990.00"},
		{Event{Kind: EvNoteRedeemed, Note: n}, "₹499.00 of credit note T1/C2627/00001 spent on sale G-2"},
		{Event{Kind: EvNoteTendered, Note: n}, "Paid ₹499.00 by credit note T1/C2627/00001"},
		{Event{Kind: EvNoteRedeemed}, "Credit note spent"},
		{Event{Kind: EvNoteTendered}, "Paid by credit note"},
	}
	for _, tt := range tests {
		assert.Equal(t, tt.want, EventSentence(tt.ev, "T1"), tt.ev.Kind)
	}
}

// A credit note against an invoice that charged IGST reverses IGST, and names
// the invoice's buyer and place of supply (CGST Rule 53).
func TestCreditNoteOfAnInterstateInvoice(t *testing.T) {
	shop := Shop{Name: "Sharma Mobiles", Address: []string{"FC Road, Pune"}, State: "27", GSTIN: "27AAPFU0939F1ZV"}
	lines := []Line{{SKU: "ACC-CBL", Name: "Cable", HSN: "8544", Qty: 2, UnitPrice: 499_00, GSTRate: Percent(18)}}
	o := Order{ID: "G-9", State: StatePartlyRefunded, Tender: TenderCash, Lines: lines, Totals: ComputeTotals(lines),
		Amount: 998_00, Captured: 998_00, Series: "2627", DocNo: 1,
		Buyer: &Buyer{Name: "Asha Rao", Address: "12 MG Road, Bengaluru", State: "29"}}
	// One cable of two at ₹499.00: taxable ⌊(4990000+59)/118⌋ = 422.88, tax 76.12.
	ref := Refund{UniqueTxnID: "R1", Amount: 499_00, Status: RefundDone, To: RefundToCash, Series: "C2627", DocNo: 1,
		Items: []ReturnItem{{Line: 0, SKU: "ACC-CBL", Qty: 1, Amount: 499_00, Taxable: 422_88, Tax: 76_12, CGST: 38_06, Rate: Percent(18)}}}
	r := CreditNoteFor(o, ref, shop, ReceiptOptions{Terminal: "T1"})
	assert.Equal(t, "T1/C2627/00001", r.Number)
	assert.Equal(t, []receipts.TaxLine{{Rate: 1800, Taxable: 422_88, IGST: 76_12}}, r.Taxes, "IGST reversed, as the invoice charged")
	assert.True(t, r.Interstate)
	require.NotNil(t, r.Buyer)
	assert.Equal(t, "Asha Rao", r.Buyer.Name)
	assert.Contains(t, r.PlaceOfSupply, "29")

	// Within the state: CGST and SGST, as the invoice charged.
	o.Buyer = nil
	r = CreditNoteFor(o, ref, shop, ReceiptOptions{Terminal: "T1"})
	assert.Equal(t, []receipts.TaxLine{{Rate: 1800, Taxable: 422_88, CGST: 38_06, SGST: 38_06}}, r.Taxes)
}
