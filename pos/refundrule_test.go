package pos

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestRefundDestination(t *testing.T) {
	tests := []struct {
		name   string
		tender TenderKind
		to     RefundTo
		want   RefundTo
		cash   bool
	}{
		{"cash sale, none named", TenderCash, "", RefundToCash, true},
		{"UPI to the shop's VPA, none named", TenderUPI, "", RefundToCash, true},
		{"note sale, none named", TenderNote, "", RefundToNote, false},
		{"card sale, none named", TenderCard, "", RefundToCard, false},
		{"EMI sale, none named", TenderEMI, "", RefundToCard, false},
		{"phone sale, none named", TenderPhone, "", RefundToCard, false},
		{"cash sale onto a note", TenderCash, RefundToNote, RefundToNote, false},
		{"card sale onto a note", TenderCard, RefundToNote, RefundToNote, false},
		{"split sale in cash", TenderSplit, RefundToCash, RefundToCash, true},
		{"split sale to a card", TenderSplit, RefundToCard, RefundToCard, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := RefundDestination(&Order{Tender: tt.tender}, tt.to)
			assert.Equal(t, tt.want, got, "RefundDestination(%s, %q)", tt.tender, tt.to)
			assert.Equal(t, tt.cash, got.MovesCash(), "RefundDestination(%s, %q).MovesCash()", tt.tender, tt.to)
		})
	}
}

// TestNoteReturnLeavesTheShiftsCash: a ₹1,499 case sold for cash in an open
// shift and returned onto a credit note leaves the drawer's cash as it was:
// expected ₹2,000 float + ₹1,499, and the X report's cash agrees and lists the
// refund under note. A cash return of a cable later does take cash out.
func TestNoteReturnLeavesTheShiftsCash(t *testing.T) {
	r, tl := newShiftTill(t)
	ctx := t.Context()
	_, err := tl.Drawer.OpenShift(ctx, "meera", Rupees(2000))
	require.NoError(t, err)
	paid, err := tl.Checkout.Pay(ctx, PayRequest{Lines: []CartLine{r.cartLine(t, "ACC-CASE", 1), r.cartLine(t, "ACC-CBL", 1)}, Tender: TenderCash,
		Tendered: Rupees(2000), Cashier: "meera"}, nil)
	require.NoError(t, err)
	require.Equal(t, StatePaid, paid.State)

	ret, err := tl.Returns.Return(ctx, ReturnRequest{Document: paid.OrderID, Items: []ReturnQty{{SKU: "ACC-CASE", Qty: 1}}, To: RefundToNote, PIN: managerPIN})
	require.NoError(t, err)
	require.Equal(t, RefundDone, ret.Status)

	x, err := tl.Drawer.ShiftReport(ctx, "")
	require.NoError(t, err)
	assert.Equal(t, Rupees(1998), x.CashSales)
	assert.Equal(t, Paise(0), x.CashRefunds, "a credit note pays out no cash")
	assert.Equal(t, Rupees(2000+1998), x.Expected)
	rep, err := tl.Books.Report(ctx, tl.Books.BusinessDay())
	require.NoError(t, err)
	assert.Equal(t, Rupees(1998), rep.CashExpected)
	assert.Equal(t, []TenderTotal{{Tender: TenderKind(RefundToNote), Count: 1, Amount: Rupees(1499)}}, rep.Refunds)

	_, err = tl.Returns.Return(ctx, ReturnRequest{Document: paid.OrderID, Items: []ReturnQty{{SKU: "ACC-CBL", Qty: 1}}, To: RefundToCash, PIN: managerPIN})
	require.NoError(t, err)
	x, err = tl.Drawer.ShiftReport(ctx, "")
	require.NoError(t, err)
	assert.Equal(t, Rupees(499), x.CashRefunds)
	assert.Equal(t, Rupees(2000+1998-499), x.Expected)
}

// TestNoteReturnNeedsNoOpenShift: with shifts kept and none open, a cash sale
// returned onto a credit note is taken (no cash leaves the drawer), by Return
// and by RefundOrder; a return in cash is refused.
func TestNoteReturnNeedsNoOpenShift(t *testing.T) {
	r, tl := newShiftTill(t)
	ctx := t.Context()
	_, err := tl.Drawer.OpenShift(ctx, "meera", Rupees(500))
	require.NoError(t, err)
	paid, err := tl.Checkout.Pay(ctx, PayRequest{Lines: []CartLine{r.cartLine(t, "ACC-CASE", 1), r.cartLine(t, "ACC-CBL", 2)}, Tender: TenderCash,
		Tendered: Rupees(2497), Cashier: "meera"}, nil)
	require.NoError(t, err)
	count, err := ParseCount("500x5, 200x2, 50x1, 20x2, 5x1, 2x1")
	require.NoError(t, err)
	rep, err := tl.Drawer.CloseShift(ctx, "meera", count)
	require.NoError(t, err)
	require.Equal(t, Paise(0), rep.Shift.Variance)

	_, err = tl.Returns.Return(ctx, ReturnRequest{Document: paid.OrderID, Items: []ReturnQty{{SKU: "ACC-CBL", Qty: 1}}, To: RefundToCash, PIN: managerPIN})
	assert.ErrorIs(t, err, ErrNoShift, "cash paid back needs an open shift")
	ret, err := tl.Returns.Return(ctx, ReturnRequest{Document: paid.OrderID, Items: []ReturnQty{{SKU: "ACC-CASE", Qty: 1}}, To: RefundToNote, PIN: managerPIN})
	require.NoError(t, err, "a credit note moves no cash")
	assert.Equal(t, RefundDone, ret.Status)
	res, err := tl.Returns.RefundOrder(ctx, RefundRequest{OrderID: paid.OrderID, Amount: Rupees(100), To: RefundToNote, PIN: managerPIN})
	require.NoError(t, err, "nor a refund onto a note")
	assert.Equal(t, RefundDone, res.Status)
	_, err = tl.Returns.Refund(ctx, paid.OrderID, Rupees(10), managerPIN)
	assert.ErrorIs(t, err, ErrNoShift, "a cash sale's refund with no destination named goes back in cash")
}

// invoiceStore is a store server holding one paid invoice of counter T2 and
// approving every return of it.
type invoiceStore struct {
	releasingStore
	inv StoreInvoice
}

func (s *invoiceStore) ReserveReturn(context.Context, string, string, Paise) (Paise, error) {
	return s.inv.Returnable, nil
}

func (s *invoiceStore) ReserveReturnItems(context.Context, string, string, Paise, []ReturnItem) (Paise, error) {
	return s.inv.Returnable, nil
}

func (s *invoiceStore) Invoice(_ context.Context, ref string) (*StoreInvoice, error) {
	if ref != s.inv.Number && ref != s.inv.Order.ID {
		return nil, &StoreRefusal{Code: "not_found", Msg: "no invoice " + ref}
	}
	inv := s.inv
	inv.Order = s.inv.Order.Clone()
	return &inv, nil
}

// otherCountersCashSale is T2's cash sale of returnLines, invoice
// T2/2627/000001, as the store holds it.
func otherCountersCashSale() *invoiceStore {
	lines := returnLines()
	paid := time.Date(2026, 11, 22, 9, 0, 0, 0, IST)
	o := &Order{ID: "T2-1", State: StatePaid, Tender: TenderCash, Lines: lines, Totals: ComputeTotals(lines), Amount: 299500, Captured: 299500,
		Verified: true, Series: "2627", DocNo: 1, Day: "2026-11-22", PaidDay: "2026-11-22", PaidAt: paid, Opened: paid}
	return &invoiceStore{inv: StoreInvoice{Number: "T2/2627/000001", Terminal: "T2", Order: o, Returnable: 299500}}
}

// TestStoreReturnNeedsAShiftForCashOnly: another counter's cash invoice, like
// this counter's own, is returned onto a credit note with no shift open, and
// in cash only with one.
func TestStoreReturnNeedsAShiftForCashOnly(t *testing.T) {
	_, tl := newShiftTill(t)
	ctx := t.Context()
	st := otherCountersCashSale()
	tl.c.eng.StoreDesk.SetDecisions(st)
	_, err := tl.Drawer.OpenShift(ctx, "meera", Rupees(500))
	require.NoError(t, err)
	_, err = tl.Drawer.CloseShift(ctx, "meera", CashCount{Pieces: map[int]int{500: 1}})
	require.NoError(t, err)

	_, err = tl.Returns.Return(ctx, ReturnRequest{Document: st.inv.Number, Items: []ReturnQty{{SKU: "ACC-CBL", Qty: 1}}, To: RefundToCash, PIN: managerPIN})
	assert.ErrorIs(t, err, ErrNoShift)
	ret, err := tl.Returns.Return(ctx, ReturnRequest{Document: st.inv.Number, Items: []ReturnQty{{SKU: "ACC-CASE", Qty: 1}}, To: RefundToNote, PIN: managerPIN})
	require.NoError(t, err)
	assert.Equal(t, RefundDone, ret.Status)
	assert.Equal(t, "T2/2627/000001", ret.Order.InvoiceNumber("T1"))
}

// TestStoreReturnCountsWrongPINs: wrong manager PINs on returns of another
// counter's invoice count towards the till's stop, as on its own invoices;
// past the stop even the right PIN is refused until a manager signs in.
func TestStoreReturnCountsWrongPINs(t *testing.T) {
	_, tl := newReturnTill(t)
	ctx := t.Context()
	st := otherCountersCashSale()
	tl.c.eng.StoreDesk.SetDecisions(st)
	req := ReturnRequest{Document: st.inv.Number, Items: []ReturnQty{{SKU: "ACC-CBL", Qty: 1}}, To: RefundToNote, PIN: "999999"}
	for i := range MaxOverrideAttempts {
		_, err := tl.Returns.Return(ctx, req)
		require.ErrorIs(t, err, ErrWrongPIN, "attempt %d", i+1)
	}
	req.PIN = managerPIN
	_, err := tl.Returns.Return(ctx, req)
	assert.ErrorIs(t, err, ErrTooManyOverrides)
}

// TestRefundNamingNoDestination: a refund of a cash sale journaled before
// refunds named their destination (no to) went back the way the sale was paid,
// in cash: the shift and the X report count it out of the drawer as before.
func TestRefundNamingNoDestination(t *testing.T) {
	r, tl := newShiftTill(t)
	ctx := t.Context()
	_, err := tl.Drawer.OpenShift(ctx, "meera", Rupees(2000))
	require.NoError(t, err)
	paid, err := tl.Checkout.Pay(ctx, PayRequest{Lines: []CartLine{r.cartLine(t, "ACC-CASE", 1)}, Tender: TenderCash, Tendered: Rupees(1499), Cashier: "meera"}, nil)
	require.NoError(t, err)
	o, err := r.e.Order(ctx, paid.OrderID)
	require.NoError(t, err)
	_, err = r.e.core.commit(ctx, o, Event{Kind: EvRefundIntent, Staff: "meera",
		Refund: &RefundEvent{UniqueTxnID: "R-old", Amount: Rupees(100), Items: o.Returns().AdjustmentItems(Rupees(100))}})
	require.NoError(t, err)
	_, err = r.e.core.commit(ctx, o, Event{Kind: EvRefundDone, Refund: &RefundEvent{UniqueTxnID: "R-old", Amount: Rupees(100), Refunded: Rupees(100)}})
	require.NoError(t, err)

	x, err := tl.Drawer.ShiftReport(ctx, "")
	require.NoError(t, err)
	assert.Equal(t, Rupees(100), x.CashRefunds)
	assert.Equal(t, Rupees(2000+1499-100), x.Expected)
	rep, err := tl.Books.Report(ctx, tl.Books.BusinessDay())
	require.NoError(t, err)
	assert.Equal(t, Rupees(1399), rep.CashExpected)
	assert.Equal(t, []TenderTotal{{Tender: TenderCash, Count: 1, Amount: Rupees(100)}}, rep.Refunds)
}
