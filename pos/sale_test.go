package pos

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"galla/gateway"
)

// memNotes is an in-memory credit-note ledger for the tests: balances by note
// and the redemptions by reference.
type memNotes struct {
	mu       sync.Mutex
	balance  map[string]Paise
	redeemed map[string]Paise // ref -> amount
}

func newMemNotes(notes map[string]Paise) *memNotes {
	return &memNotes{balance: notes, redeemed: map[string]Paise{}}
}

func (m *memNotes) Redeem(_ context.Context, no string, amount Paise, ref string) (Paise, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if _, ok := m.redeemed[ref]; ok {
		return m.balance[no], nil
	}
	bal, ok := m.balance[no]
	if !ok {
		return 0, sentenceErr("No credit note " + no + " exists; check the number on the note.")
	}
	if bal < amount {
		return 0, sentenceErr("The credit note " + no + " has only " + bal.String() + " left.")
	}
	m.balance[no] = bal - amount
	m.redeemed[ref] = amount
	return m.balance[no], nil
}

func (m *memNotes) Restore(_ context.Context, no string, amount Paise, ref string) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if _, ok := m.redeemed[ref]; !ok {
		return nil
	}
	delete(m.redeemed, ref)
	m.balance[no] += amount
	return nil
}

func TestSplitTenderCashUPICard(t *testing.T) {
	r := newRig(t)
	ctx := t.Context()
	// Phone case 1499.00 + cable 499.00 = 1998.00.
	s, err := r.e.Sales.OpenSale(ctx, r.sale(t, "ACC-CASE", "ACC-CBL"))
	require.NoError(t, err)
	assert.Equal(t, StateOpen, s.State)
	assert.Equal(t, Paise(199800), s.Amount)

	res, st, err := r.e.Sales.SaleCash(ctx, s.ID, 50000, 100000, "001")
	require.NoError(t, err)
	assert.Equal(t, Paise(50000), res.Order.Change, "₹1000 handed over for ₹500: ₹500 change")
	assert.Equal(t, Paise(50000), st.Paid)
	assert.Equal(t, Paise(149800), st.Due)
	assert.Zero(t, st.Sale.DocNo, "no document number while part paid")
	assert.Zero(t, res.Order.ReceiptNo, "a tender's order has no document number")

	_, st, err = r.e.Sales.SaleUPI(ctx, s.ID, 30000, "001")
	require.NoError(t, err)
	assert.Equal(t, Paise(119800), st.Due)
	upi := st.Tenders[1]
	assert.Equal(t, TenderUPI, upi.Kind)
	assert.True(t, upi.Paid())
	assert.False(t, upi.Verified, "UPI is confirmed by the cashier, not verified")
	assert.Equal(t, "001", upi.Order.ConfirmedBy)

	_, _, err = r.e.Sales.SaleCash(ctx, s.ID, 119801, 0, "001")
	assert.ErrorIs(t, err, ErrTenderTooLarge)
	assert.Equal(t, "Only ₹1,198.00 is left to pay; type at most that for this tender.", Sentence(err))

	o, err := r.e.Sales.OpenSaleTender(ctx, s.ID, TenderCard, 0, nil, "001", r.otp())
	require.NoError(t, err)
	assert.Equal(t, Paise(119800), o.Amount, "the tender without an amount takes the rest")
	assert.Equal(t, s.ID, o.Sale)
	pay, err := r.e.Payments.PayCard(ctx, o.ID, card("4111111111111111"), r.otp())
	require.NoError(t, err)
	require.Equal(t, ResultPaid, pay.Status, pay.Reason)
	assert.Zero(t, pay.Order.DocNo)
	assert.Equal(t, int64(119800), r.ledger(t, o.ID).Amount, "the card tender is its own order at the service for its part")

	st, err = r.e.Sales.SettleSale(ctx, s.ID)
	require.NoError(t, err)
	assert.True(t, st.Complete())
	assert.Equal(t, uint64(1), st.Sale.DocNo, "the document number is issued once, when covered")
	assert.False(t, st.Sale.Verified, "one tender was cashier-confirmed UPI")
	assert.Len(t, st.Tenders, 3)

	_, _, err = r.e.Sales.SaleCash(ctx, s.ID, 100, 0, "001")
	assert.ErrorIs(t, err, ErrSaleClosed)

	day, err := r.j.OrdersByDay(ctx, r.e.Today())
	require.NoError(t, err)
	rep := ShopReport(r.e.Today(), day, r.e.Now(), registeredShop)
	assert.Equal(t, Paise(199800), rep.GrossSales, "each rupee counted once")
	assert.Equal(t, Paise(50000), rep.CashExpected)
	byTender := map[TenderKind]Paise{}
	for _, tt := range rep.Sales {
		byTender[tt.Tender] = tt.Amount
	}
	assert.Equal(t, Paise(30000), byTender[TenderUPI], "UPI kept apart from the service's payments")
	assert.Equal(t, Paise(119800), byTender[TenderCard])
	var tax Paise
	for _, g := range rep.GST {
		tax += g.Tax
	}
	assert.Equal(t, st.Sale.Totals.Tax, tax, "the sale's GST counted once")
}

func TestSplitTenderEMIOnTheRest(t *testing.T) {
	r := newRig(t)
	ctx := t.Context()
	s, err := r.e.Sales.OpenSale(ctx, r.sale(t, "TV-LG-OLED55C4"))
	require.NoError(t, err)
	_, st, err := r.e.Sales.SaleCash(ctx, s.ID, 2000000, 0, "001")
	require.NoError(t, err)
	require.Equal(t, Paise(12999000), st.Due)
	set, err := r.e.Payments.EMIOffers(ctx, partLines(s.Lines, st.Due))
	require.NoError(t, err)
	assert.Equal(t, Paise(12999000), set.Amount, "the offers are for the part on EMI")
	plan, ok := set.Find("ICICI", 6, ProgramBrand)
	require.True(t, ok, "LG's low-cost offer")
	require.NoError(t, r.e.Payments.ValidateScheme(ctx, plan, st.Due, card("5522600000000005")))
	o, err := r.e.Sales.OpenSaleTender(ctx, s.ID, TenderEMI, 0, &plan, "001", r.otp())
	require.NoError(t, err)
	assert.Equal(t, Paise(12999000), o.Amount)
	res, err := r.e.Payments.PayEMI(ctx, o.ID, card("5522600000000005"), r.otp())
	require.NoError(t, err)
	require.Equal(t, ResultPaid, res.Status, res.Reason)
	st, err = r.e.Sales.SettleSale(ctx, s.ID)
	require.NoError(t, err)
	assert.True(t, st.Complete())
	assert.Equal(t, uint64(1), st.Sale.DocNo)
}

func TestSplitTenderVoidRefundsEachTender(t *testing.T) {
	r := newRig(t)
	ctx := t.Context()
	notes := newMemNotes(map[string]Paise{"CN-7": 20000})
	r.e.core.cfg.Notes = notes
	s, err := r.e.Sales.OpenSale(ctx, r.sale(t, "ACC-CASE", "ACC-CBL"))
	require.NoError(t, err)
	_, _, err = r.e.Sales.SaleCash(ctx, s.ID, 50000, 0, "001")
	require.NoError(t, err)
	_, _, err = r.e.Sales.SaleNote(ctx, s.ID, "CN-7", 30000, "001")
	assert.Equal(t, "The credit note CN-7 has only ₹200.00 left.", Sentence(err))
	_, st, err := r.e.Sales.SaleNote(ctx, s.ID, "CN-7", 20000, "001")
	require.NoError(t, err)
	assert.Zero(t, notes.balance["CN-7"])
	assert.Equal(t, Paise(129800), st.Due, "the refused note counts for nothing")
	o, err := r.e.Sales.OpenSaleTender(ctx, s.ID, TenderCard, 100000, nil, "001", r.otp())
	require.NoError(t, err)
	res, err := r.e.Payments.PayCard(ctx, o.ID, card("4111111111111111"), r.otp())
	require.NoError(t, err)
	require.Equal(t, ResultPaid, res.Status)
	st, err = r.e.Sales.SettleSale(ctx, s.ID)
	require.NoError(t, err)
	require.False(t, st.Complete(), "₹298 is still due")
	assert.Equal(t, Paise(29800), st.Due)

	_, err = r.e.Sales.VoidSale(ctx, s.ID, "999999", "customer left")
	assert.Error(t, err, "a void needs a manager's PIN")
	st, err = r.e.Sales.VoidSale(ctx, s.ID, managerPIN, "customer left")
	require.NoError(t, err)
	assert.Equal(t, StateVoided, st.Sale.State)
	assert.Zero(t, st.Sale.DocNo, "a voided sale has no invoice")
	lo := r.ledger(t, o.ID)
	assert.Equal(t, int64(100000), lo.RefundedAmount, "the card tender refunded through the service")
	assert.Equal(t, Paise(20000), notes.balance["CN-7"], "the credit note given back")
	var docs []uint64
	for _, tv := range st.Tenders {
		if tv.Order == nil || !tv.Order.State.Paid() {
			continue
		}
		assert.Equal(t, StateRefunded, tv.State, tv.Kind)
		for _, rf := range tv.Order.Refunds {
			docs = append(docs, rf.DocNo)
		}
	}
	assert.ElementsMatch(t, []uint64{1, 2, 3}, docs, "each refund has its document")
	day, err := r.j.OrdersByDay(ctx, r.e.Today())
	require.NoError(t, err)
	rep := BuildReport(r.e.Today(), day, r.e.Now())
	assert.Equal(t, Paise(0), rep.NetSales)
	assert.Equal(t, Paise(0), rep.CashExpected, "the cash given back")
	_, err = r.e.Sales.VoidSale(ctx, s.ID, managerPIN, "again")
	assert.ErrorIs(t, err, ErrSaleClosed)
}

func TestSplitTenderCompletedAfterRestart(t *testing.T) {
	r := newRig(t)
	ctx := t.Context()
	s, err := r.e.Sales.OpenSale(ctx, r.sale(t, "ACC-CASE"))
	require.NoError(t, err)
	_, _, err = r.e.Sales.SaleCash(ctx, s.ID, 49900, 0, "001")
	require.NoError(t, err)
	o, err := r.e.Sales.OpenSaleTender(ctx, s.ID, TenderCard, 0, nil, "001", r.otp())
	require.NoError(t, err)
	// The terminal stops once the card is sent (the answer never read): a new
	// engine on the same journal finds the sale open and the card in flight.
	sent := errors.New("stopped")
	r.j.failNext = func(ev Event) error {
		if ev.Kind == EvPaymentAccepted {
			return sent
		}
		return nil
	}
	pctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	_, _ = r.e.Payments.PayCard(pctx, o.ID, card("5555555555554444"), PayOptions{})
	r.j.failNext = nil
	e2, err := New(Config{Journal: r.j, Gateway: r.gw, Clock: r.clock})
	require.NoError(t, err)
	open, err := e2.Sales.OpenSales(ctx)
	require.NoError(t, err)
	require.Len(t, open, 1)
	assert.Equal(t, s.ID, open[0].ID)
	_, err = e2.Payments.Reconcile(ctx)
	require.NoError(t, err)
	st, err := e2.Sales.SaleStatus(ctx, s.ID)
	require.NoError(t, err)
	assert.True(t, st.Complete(), "the reconciler found the card paid and completed the sale")
	assert.Equal(t, uint64(1), st.Sale.DocNo)
	assert.Equal(t, 1, r.captures(), "charged once")
}

func TestSplitTenderCashDownBrandEMI(t *testing.T) {
	r := newRig(t)
	ctx := t.Context()
	s, err := r.e.Sales.OpenSale(ctx, r.sale(t, "PH-SAM-S24")) // ₹74,999.00, its IMEI not yet typed
	require.NoError(t, err)
	_, st, err := r.e.Sales.SaleCash(ctx, s.ID, 1499900, 0, "001")
	require.NoError(t, err)
	require.Equal(t, Paise(6000000), st.Due)
	set, err := r.e.Payments.EMIOffers(ctx, partLines(s.Lines, st.Due))
	require.NoError(t, err)
	plan, ok := set.Find("HDFC", 6, ProgramBrand)
	require.True(t, ok, "Samsung's no-cost offer on the ₹60,000.00 left")
	require.True(t, plan.IMEIRequired)
	var imei string
	for _, b := range r.td.Brands {
		if b.Brand == "SAMSUNG" {
			imei = b.TestIMEI
		}
	}
	o, err := r.e.Sales.OpenSaleTender(ctx, s.ID, TenderEMI, 0, &plan, "001", r.otp(), UnitIMEI{ProductCode: "SAMSUNG-S24", IMEI: imei})
	require.NoError(t, err)
	assert.Equal(t, []string{imei}, o.IMEIs, "the tender's order carries the phone's IMEI")
	res, err := r.e.Payments.PayEMI(ctx, o.ID, card("4386280000000004"), r.otp())
	require.NoError(t, err)
	require.Equal(t, ResultPaid, res.Status, res.Reason)
	assert.True(t, res.Order.IMEIsValidated)
	assert.Equal(t, int64(6000000), r.ledger(t, o.ID).Amount)
	st, err = r.e.Sales.SettleSale(ctx, s.ID)
	require.NoError(t, err)
	assert.True(t, st.Complete())
}

func TestSplitTenderPhoneAndUPI(t *testing.T) {
	r := newRig(t)
	ctx := t.Context()
	s, err := r.e.Sales.OpenSale(ctx, r.sale(t, "ACC-CASE", "ACC-CBL"))
	require.NoError(t, err)
	o, err := r.e.Sales.OpenSaleTender(ctx, s.ID, TenderPhone, 150000, nil, "001", PayOptions{})
	require.NoError(t, err)
	st, err := r.e.Sales.SaleStatus(ctx, s.ID)
	require.NoError(t, err)
	assert.Equal(t, Paise(150000), st.Pending, "the phone tender waits for the customer")
	assert.Equal(t, Paise(49800), st.Due)
	_, _, err = r.e.Sales.SaleUPI(ctx, s.ID, 49801, "001")
	assert.ErrorIs(t, err, ErrTenderTooLarge, "the amount on the phone is reserved")

	_, err = r.gw.CardPayment(ctx, o.Token, card("5555555555554444"), gateway.Customer{Mobile: "9000000002", Email: "c@example.com"})
	require.NoError(t, err)
	res, err := r.e.Payments.Await(ctx, o.ID, PayOptions{})
	require.NoError(t, err)
	require.Equal(t, ResultPaid, res.Status, res.Reason)
	st, err = r.e.Sales.SettleSale(ctx, s.ID)
	require.NoError(t, err)
	assert.False(t, st.Complete())
	_, st, err = r.e.Sales.SaleUPI(ctx, s.ID, 0, "001")
	require.NoError(t, err)
	assert.True(t, st.Complete())
	assert.Equal(t, uint64(1), st.Sale.DocNo)
	assert.Equal(t, int64(150000), r.ledger(t, o.ID).CapturedAmount)
}

// TestReturnByATendersID: a return asked by the id of a sale's tender (what
// the payment service knows, printed with the tender) is the sale's return:
// the goods come back on the sale, and what is left of it is the sale's.
func TestReturnByATendersID(t *testing.T) {
	r := newRig(t)
	tl := r.till(t)
	ctx := t.Context()
	lines := []CartLine{{Product: Product{SKU: "CBL", Name: "Cable", HSN: "8544", Price: 499_00, GSTRate: Percent(18)}, Qty: 2}}
	out, err := tl.Checkout.Pay(ctx, PayRequest{Lines: lines, Tender: TenderCash, Cashier: "Meera"}, nil)
	require.NoError(t, err)
	require.NotEqual(t, out.OrderID, out.SaleID(), "a sale and its tender")
	res, err := tl.Returns.Return(ctx, ReturnRequest{Document: out.OrderID, Items: []ReturnQty{{SKU: "CBL", Qty: 1}}, To: RefundToCash, Reason: "one too many", PIN: managerPIN})
	require.NoError(t, err)
	assert.Equal(t, out.SaleID(), res.Order.ID, "returned on the sale")
	sale, err := tl.Returns.FindSale(ctx, out.OrderID)
	require.NoError(t, err)
	assert.Equal(t, out.SaleID(), sale.ID)
	assert.Equal(t, 1, sale.Returns().Returned(0), "the sale's line counts the unit back")
	_, err = tl.Returns.Return(ctx, ReturnRequest{Document: out.SaleID(), Items: []ReturnQty{{SKU: "CBL", Qty: 2}}, To: RefundToCash, Reason: "both", PIN: managerPIN})
	require.Error(t, err, "one unit is left, not two")
}

// TestLinesCSVNamesTheSalesTenders: the accountant's lines CSV says how a sale
// was paid by its tenders ("cash", the card's brand and last four), not
// "split", the sale's own tender.
func TestLinesCSVNamesTheSalesTenders(t *testing.T) {
	r := newRig(t)
	tl := r.till(t)
	ctx := t.Context()
	lines := []CartLine{{Product: Product{SKU: "CBL", Name: "Cable", HSN: "8544", Price: 499_00, GSTRate: Percent(18)}, Qty: 1}}
	out, err := tl.Checkout.Pay(ctx, PayRequest{Lines: lines, Tender: TenderCash, Cashier: "Meera"}, nil)
	require.NoError(t, err)
	require.Equal(t, StatePaid, out.State)
	var csv strings.Builder
	require.NoError(t, tl.Documents.WriteLinesCSV(ctx, r.clock.Now(), r.clock.Now(), &csv))
	assert.Contains(t, csv.String(), ",cash,", csv.String())
	assert.NotContains(t, csv.String(), ",split,")
}

// TestReturnFindsASaleByItsCardsLastFour: the card's last four (carried by the
// sale's card tender) find the sale, with its invoice, once.
func TestReturnFindsASaleByItsCardsLastFour(t *testing.T) {
	r := newRig(t)
	tl := r.till(t)
	ctx := t.Context()
	out, err := tl.Checkout.Pay(ctx, PayRequest{Lines: []CartLine{r.cartLine(t, "ACC-CASE", 1)}, Tender: TenderCard, Card: card("4111111111111111"),
		OTP: r.td.OTP, Unattended: true, Cashier: "001"}, nil)
	require.NoError(t, err)
	require.Equal(t, StatePaid, out.State)
	sale, err := tl.Returns.FindSale(ctx, "1111")
	require.NoError(t, err)
	assert.Equal(t, out.SaleID(), sale.ID)
	assert.NotZero(t, sale.DocNo, "the sale, which holds the invoice")
}

// TestCancelAfterACreditNoteIsRefusedFirst: an invoice with a credit note
// against it is refused cancellation with a sentence before anything is given
// back (the sale's returns are the sale's, not its cash tender's), and the
// journal screen is told so too.
func TestCancelAfterACreditNoteIsRefusedFirst(t *testing.T) {
	r := newRig(t)
	tl := r.till(t)
	ctx := t.Context()
	lines := []CartLine{{Product: Product{SKU: "CBL", Name: "Cable", HSN: "8544", Price: 499_00, GSTRate: Percent(18)}, Qty: 2}}
	out, err := tl.Checkout.Pay(ctx, PayRequest{Lines: lines, Tender: TenderCash, Cashier: "Meera"}, nil)
	require.NoError(t, err)
	_, err = tl.Returns.Return(ctx, ReturnRequest{Document: out.SaleID(), Items: []ReturnQty{{SKU: "CBL", Qty: 1}}, To: RefundToNote, Reason: "one back", PIN: managerPIN})
	require.NoError(t, err)
	sale, err := tl.Returns.FindSale(ctx, out.SaleID())
	require.NoError(t, err)
	assert.Contains(t, tl.Returns.CanCancel(ctx, sale), "credit note against it")
	before := len(r.j.events)
	_, err = tl.Returns.CancelDocument(ctx, sale.Number("T1"), managerPIN, "mistake")
	require.ErrorIs(t, err, ErrNoCancel)
	assert.Contains(t, Sentence(err), "has a credit note against it")
	assert.Equal(t, before, len(r.j.events), "nothing given back, nothing journaled")
}
