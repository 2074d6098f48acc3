package ui

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/test"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"galla/internal/testclock"
	"galla/pos"
)

// splitTill is the fake till with split tender (docs/adr/0005-split-tender.md):
// its sales and their tenders are kept as pos keeps them in the journal, so a
// window opened anew on it finds the open sales again (a restart). A tender's
// outcome is decided here: cash and UPI are paid; a card or EMI tender is FAILED
// (verified, not charged) when the card ends in 0002 or refuseEMI is set, else
// PAID; hold, when set, keeps the next tender's Pay waiting until it is closed.
type splitTill struct {
	*fakeTill
	smu       sync.Mutex
	sales     map[string]*pos.Order
	tenders   map[string]*pos.Order
	ids       []string // the sales, oldest first
	events    int      // what was journaled: a sale opened, a tender, a void
	voids     []string
	drops     []string // the sales dropped (no PIN)
	refuseEMI bool
	hold      chan struct{}
}

// splitCheckout is the Checkout of a splitTill: the split sales (Tenderer) and
// their tenders' Pay are the splitTill's; the rest is the fake till's.
type splitCheckout struct {
	*splitTill
	*fakeCheckout
}

// splitBooks is the Books of a splitTill: its Orders adds the split sales to
// the fake till's orders.
type splitBooks struct {
	*splitTill
	*fakeBooks
}

// checkout is the Checkout of f, books its Books.
func (f *splitTill) checkout() *splitCheckout { return &splitCheckout{f, &fakeCheckout{f.fakeTill}} }
func (f *splitTill) books() *splitBooks       { return &splitBooks{f, &fakeBooks{f.fakeTill}} }

func newSplitTill() *splitTill {
	return &splitTill{fakeTill: newFakeTill(), sales: map[string]*pos.Order{}, tenders: map[string]*pos.Order{}}
}

func (f *splitCheckout) OpenSale(_ context.Context, req PayRequest) (*SaleStatus, error) {
	f.smu.Lock()
	defer f.smu.Unlock()
	o := &pos.Order{ID: fmt.Sprintf("T1-20261122-%04d", len(f.ids)+1), Tender: pos.TenderSplit, State: pos.StateOpen, Staff: req.Cashier}
	for _, l := range req.Lines {
		o.Lines = append(o.Lines, pos.Line{SKU: l.Product.SKU, Name: l.Product.Name, ProductCode: l.Product.ProductCode, Qty: l.Qty,
			UnitPrice: l.Product.Price, Discount: l.Discount, GSTRate: l.Product.GSTRate, Serialised: l.Product.Serialised})
		o.Amount += pos.Paise(l.Qty)*l.Product.Price - l.Discount
	}
	f.sales[o.ID] = o
	f.ids = append(f.ids, o.ID)
	f.events++
	return f.status(o.ID), nil
}

// status is where sale id stands, as pos's SaleStatus reads it; f.smu is held.
func (f *splitTill) status(id string) *SaleStatus {
	s := *f.sales[id]
	st := &SaleStatus{Sale: &s}
	for _, t := range s.Tenders {
		o := *f.tenders[t.OrderID]
		v := pos.TenderView{SaleTender: t, Order: &o, State: o.State, Verified: o.State.Paid() && o.Verified}
		switch {
		case v.Paid():
			st.Paid += t.Amount
		case v.Pending():
			st.Pending += t.Amount
		}
		st.Tenders = append(st.Tenders, v)
	}
	st.Due = max(s.Amount-st.Paid-st.Pending, 0)
	return st
}

func (f *splitCheckout) SaleStatus(_ context.Context, id string) (*SaleStatus, error) {
	f.smu.Lock()
	defer f.smu.Unlock()
	if f.sales[id] == nil {
		return nil, pos.ErrOrderNotFound
	}
	return f.status(id), nil
}

func (f *splitCheckout) OpenSales(context.Context) ([]*SaleStatus, error) {
	f.smu.Lock()
	defer f.smu.Unlock()
	var out []*SaleStatus
	for _, id := range f.ids {
		if f.sales[id].State == pos.StateOpen {
			out = append(out, f.status(id))
		}
	}
	return out, nil
}

func (f *splitCheckout) VoidSale(ctx context.Context, id, pin, reason string) (*SaleStatus, error) {
	if _, err := f.splitTill.authorize(pin, Override{}); err != nil {
		return nil, err
	}
	f.smu.Lock()
	defer f.smu.Unlock()
	for _, t := range f.sales[id].Tenders {
		if o := f.tenders[t.OrderID]; o.State.Paid() {
			o.Refunded, o.State = o.Amount, pos.StateRefunded
		}
	}
	f.sales[id].State = pos.StateVoided
	f.voids = append(f.voids, id)
	f.events++
	return f.status(id), nil
}

func (f *splitCheckout) DropSale(_ context.Context, id, staff, reason string) (*SaleStatus, error) {
	f.smu.Lock()
	defer f.smu.Unlock()
	if st := f.status(id); !st.HoldsNoMoney() {
		return nil, pos.ErrHoldsMoney
	}
	f.sales[id].State = pos.StateVoided
	f.drops = append(f.drops, id)
	f.events++
	return f.status(id), nil
}

func (f *splitCheckout) UPIRequest(_ context.Context, id string, amount pos.Paise) (UPIRequest, error) {
	ref := "GALLA" + strings.ReplaceAll(id, "-", "")
	return UPIRequest{Link: "upi://pay?pa=sharma@okaxis&am=" + amount.Plain() + "&tr=" + ref, Ref: ref, Amount: amount, VPA: "sharma@okaxis"}, nil
}

func (f *splitCheckout) SaleEMIOffers(context.Context, string, pos.Paise) ([]EMIOffer, error) {
	f.splitTill.mu.Lock()
	defer f.splitTill.mu.Unlock()
	return append([]EMIOffer(nil), f.splitTill.offers...), nil
}

// Pay takes a tender of a split sale (req.Sale); any other payment is the
// fake till's.
func (f *splitCheckout) Pay(ctx context.Context, req PayRequest, progress func(Progress)) (Outcome, error) {
	if req.Sale == "" {
		return f.fakeCheckout.Pay(ctx, req, progress)
	}
	f.splitTill.mu.Lock()
	f.splitTill.requests = append(f.splitTill.requests, req)
	f.splitTill.mu.Unlock()
	last4 := ""
	if req.Card != nil {
		last4 = req.Card.Last4()
		req.Card.Zero()
	}
	f.smu.Lock()
	hold := f.hold
	f.hold = nil
	f.smu.Unlock()
	if hold != nil {
		select {
		case <-hold:
		case <-ctx.Done():
			return Outcome{}, ctx.Err()
		}
	}
	f.smu.Lock()
	defer f.smu.Unlock()
	sale := f.sales[req.Sale]
	if sale == nil || sale.State != pos.StateOpen {
		return Outcome{}, pos.ErrSaleClosed
	}
	if due := f.status(req.Sale).Due; req.Amount > due {
		return Outcome{}, pos.ErrTenderTooLarge
	}
	o := f.tenders[req.OrderID]
	if o == nil { // a new tender: journaled on the sale before its order
		o = &pos.Order{ID: fmt.Sprintf("%s-%d", sale.ID, len(sale.Tenders)+1), Tender: req.Tender, Amount: req.Amount, Sale: sale.ID, EMI: req.Offer}
		f.tenders[o.ID] = o
		sale.Tenders = append(sale.Tenders, pos.SaleTender{OrderID: o.ID, Kind: req.Tender, Amount: req.Amount})
	}
	f.events++
	out := Outcome{OrderID: o.ID, Amount: o.Amount}
	switch {
	case req.Tender == pos.TenderEMI && f.refuseEMI, last4 == "0002":
		o.State, o.Verified, o.Reason = pos.StateFailed, true, "The card's bank does not give this offer on this card; nothing was charged."
		o.CardLast4 = last4
		out.State, out.Verified, out.Reason, out.CanRetry = o.State, true, o.Reason, true
	default:
		o.State, o.Verified, o.Reason, o.CardLast4 = pos.StatePaid, req.Tender != pos.TenderUPI, "", last4
		if req.Tender == pos.TenderCash {
			o.Change = req.Tendered - req.Amount
			out.Change = o.Change
		}
		out.State, out.Verified = pos.StatePaid, o.Verified
	}
	if st := f.status(sale.ID); st.Paid >= sale.Amount {
		sale.State, sale.DocNo = pos.StatePaid, 1
		out.ReceiptNo = "T1/2026-27/000001"
	}
	out.Sale = f.status(sale.ID)
	return out, nil
}

// Orders lists the fake till's orders and the split sales, as the journal
// screen shows them.
func (f *splitBooks) Orders(ctx context.Context, day time.Time) ([]OrderSummary, error) {
	out, err := f.fakeBooks.Orders(ctx, day)
	f.smu.Lock()
	defer f.smu.Unlock()
	for _, id := range f.ids {
		s := f.sales[id]
		out = append(out, OrderSummary{OrderID: id, At: day, State: s.State, Tender: pos.TenderSplit, Amount: s.Amount, Cashier: s.Staff,
			NoRefund: "Only a paid order can be refunded; this one is " + string(s.State) + "."})
	}
	return out, err
}

// newSplitHarness is a window on f.
func newSplitHarness(t *testing.T, f *splitTill) *harness {
	t.Helper()
	h := &harness{t: t, till: f.fakeTill, clock: testclock.New(time.Date(2026, 11, 22, 11, 30, 0, 0, time.Local))}
	services := servicesOf(f.fakeTill)
	services.Checkout, services.Books = f.checkout(), f.books()
	h.u = New(test.NewTempApp(t), services, Options{Do: h.enqueue, Now: h.clock.Now})
	h.u.win.Resize(fyne.NewSize(1366, 768))
	t.Cleanup(func() {
		h.u.stop()
		h.settle()
	})
	h.settle()
	return h
}

// openSplitSale puts the TV in the cart and opens it as a split sale with
// ₹10,000.00 in cash down: the tender screen shows it, ₹1,29,990.00 left.
func (h *harness) openSplitSale() *SaleStatus {
	h.t.Helper()
	h.enter("TV55")
	h.press(fyne.KeyF11)
	h.settle()
	require.Equal(h.t, h.u.tender, h.u.current, h.u.sale.message.Text)
	h.typeText("10000")
	h.press(fyne.KeyF7)
	require.Equal(h.t, h.u.cash, h.u.current, h.u.tender.message.Text)
	h.enter("10000")
	h.settle()
	require.Equal(h.t, h.u.tender, h.u.current, h.u.cash.message.Text)
	require.Equal(h.t, "₹1,29,990.00", h.u.tender.due.Text)
	return h.u.tender.sale
}

// TestEscLeavesTheOpenSale: Esc on the split screen goes back to the counter
// and journals nothing; the sale screen says an open sale is waiting, with its
// amounts and the key back to it, also while the next customer's cart is
// filled; F1 continues it and Esc leaves that cart as it was.
func TestEscLeavesTheOpenSale(t *testing.T) {
	f := newSplitTill()
	h := newSplitHarness(t, f)
	h.signIn("Ravi", "1234")
	st := h.openSplitSale()
	journaled := f.events

	h.press(fyne.KeyEscape)
	h.settle()
	s := h.u.sale
	require.Equal(t, s, h.u.current)
	assert.Equal(t, journaled, f.events, "Esc journals nothing")
	assert.Empty(t, f.voids)
	open, _ := f.checkout().OpenSales(t.Context())
	require.Len(t, open, 1, "the sale stays open")
	assert.True(t, s.openRow.Visible(), "the open sale is shown on the sale screen")
	assert.Equal(t, "Open sale "+st.Sale.ID+": ₹10,000.00 of ₹1,39,990.00 paid, ₹1,29,990.00 left to pay", s.openText.Text)
	assert.Equal(t, "Continue it  [F1]", s.openA.btn.Text)
	assert.Empty(t, s.message.Text, "the banner says it; the message line says nothing more")

	h.enter("CABLE") // the next customer, meanwhile
	h.settle()
	require.Len(t, s.lines, 1)
	assert.True(t, s.openRow.Visible(), "the open sale stays shown with a cart on the counter")

	h.press(fyne.KeyF1)
	h.settle()
	require.Equal(t, h.u.tender, h.u.current)
	assert.Equal(t, st.Sale.ID, h.u.tender.sale.Sale.ID)
	assert.Equal(t, "₹1,29,990.00", h.u.tender.due.Text)
	assert.Contains(t, h.u.tender.list.Text, "1. Cash ₹10,000.00 — paid")
	assert.False(t, h.u.tender.retryA.btn.Visible(), "no failed tender: no key to try one again")

	h.press(fyne.KeyEscape)
	h.settle()
	require.Equal(t, s, h.u.current)
	require.Len(t, s.lines, 1, "the next customer's cart is as it was")
	assert.Equal(t, "USB-C cable", s.lines[0].Product.Name)
	assert.Equal(t, journaled, f.events)
}

// TestOpenSaleAfterRestart: a window opened anew on the same journal shows the
// open sale; F11 on the empty cart continues it (not "the cart is empty"), and
// so does F1.
func TestOpenSaleAfterRestart(t *testing.T) {
	f := newSplitTill()
	h := newSplitHarness(t, f)
	h.signIn("Ravi", "1234")
	st := h.openSplitSale()
	h.press(fyne.KeyEscape)
	h.settle()
	h.u.stop()
	h.settle()

	h2 := newSplitHarness(t, f)
	h2.signIn("Ravi", "1234")
	s := h2.u.sale
	require.True(t, s.openRow.Visible(), "the open sale is shown after a restart")
	assert.Contains(t, s.openText.Text, st.Sale.ID)
	h2.press(fyne.KeyF11)
	h2.settle()
	require.Equal(t, h2.u.tender, h2.u.current, s.message.Text)
	assert.Equal(t, st.Sale.ID, h2.u.tender.sale.Sale.ID)
	h2.press(fyne.KeyEscape)
	h2.press(fyne.KeyF1)
	h2.settle()
	require.Equal(t, h2.u.tender, h2.u.current)
}

// TestSeveralOpenSales: with two sales open, F1 asks which one to continue by
// its number.
func TestSeveralOpenSales(t *testing.T) {
	f := newSplitTill()
	h := newSplitHarness(t, f)
	h.signIn("Ravi", "1234")
	first := h.openSplitSale()
	h.press(fyne.KeyEscape)
	second := h.openSplitSale()
	h.press(fyne.KeyEscape)
	h.settle()
	s := h.u.sale
	assert.Contains(t, s.openText.Text, "2 open sales")
	assert.Equal(t, "Choose one  [F1]", s.openA.btn.Text)
	h.press(fyne.KeyF1)
	h.settle()
	require.NotNil(t, h.u.dialogs.prompt, "F1 lists the open sales")
	assert.Contains(t, h.u.dialogs.prompt.message.Text, "1.  "+first.Sale.ID)
	assert.Contains(t, h.u.dialogs.prompt.message.Text, "2.  "+second.Sale.ID)
	h.enter("2")
	h.settle()
	require.Equal(t, h.u.tender, h.u.current)
	assert.Equal(t, second.Sale.ID, h.u.tender.sale.Sale.ID)
}

// TestJournalContinuesOpenSale: the journal's row of an open sale says so and
// F1 opens it to be finished or voided; Refund and Cancel point there instead
// of refusing as for a paid order.
func TestJournalContinuesOpenSale(t *testing.T) {
	f := newSplitTill()
	h := newSplitHarness(t, f)
	h.signIn("Asha", "4321")
	st := h.openSplitSale()
	h.press(fyne.KeyEscape)
	h.press(fyne.KeyF9)
	h.settle()
	j := h.u.journal
	require.Equal(t, j, h.u.current)
	i := -1
	for n, o := range j.visible {
		if o.OrderID == st.Sale.ID {
			i = n
		}
	}
	require.GreaterOrEqual(t, i, 0, "the open sale is in the journal")
	j.list.Select(i)
	h.settle()
	assert.Contains(t, j.detail.Text, "open: F1 continues it")
	h.press(fyne.KeyF5)
	assert.Contains(t, j.message.Text, "Sale "+st.Sale.ID+" is open")
	assert.NotContains(t, j.message.Text, "Only a paid order")
	h.ctrl(fyne.KeyD)
	assert.Contains(t, j.message.Text, "Sale "+st.Sale.ID+" is open")
	h.press(fyne.KeyF1)
	h.settle()
	require.Equal(t, h.u.tender, h.u.current)
	assert.Equal(t, st.Sale.ID, h.u.tender.sale.Sale.ID)
}

// TestFailedTenderRetriedOrReplaced: an EMI tender refused by the card's bank
// is FAILED: the split screen shows it failed with the reason (not "being
// checked"), counts none of it, and F3 tries it again on its own order with
// another card; another tender can take its part instead.
func TestFailedTenderRetriedOrReplaced(t *testing.T) {
	f := newSplitTill()
	f.refuseEMI = true
	h := newSplitHarness(t, f)
	h.signIn("Ravi", "1234")
	h.openSplitSale()

	h.press(fyne.KeyF6) // EMI on the rest
	h.settle()
	require.Equal(t, h.u.emi, h.u.current)
	h.typeText("hdfc 6")
	h.press(fyne.KeyReturn)
	require.Equal(t, h.u.card, h.u.current)
	h.enter("4111111111111111")
	h.enter("08/31")
	h.enter("123")
	h.enter("A Customer")
	h.settle()
	require.Equal(t, "FAILED", h.u.pay.result.Text)
	h.press(fyne.KeyEscape) // back to the sale's tenders
	h.settle()
	ts := h.u.tender
	require.Equal(t, ts, h.u.current)
	assert.Contains(t, ts.list.Text, "2. EMI ₹1,29,990.00 (HDFC 6 months) — FAILED: The card's bank does not give this offer on this card; nothing was charged.")
	assert.NotContains(t, ts.list.Text, "being checked")
	assert.Equal(t, "₹1,29,990.00", ts.due.Text, "a failed tender keeps nothing of what is due")
	assert.Contains(t, ts.message.Text, "F3 tries it again")
	require.False(t, ts.retryA.btn.Disabled())
	assert.True(t, ts.retryA.btn.Visible(), "the key to try it again is shown")

	// The sale screen says so too.
	h.press(fyne.KeyEscape)
	h.settle()
	assert.Contains(t, h.u.sale.openText.Text, "the EMI tender failed")
	h.press(fyne.KeyF1)
	h.settle()

	f.refuseEMI = false
	h.press(fyne.KeyF3) // the same tender again, another card
	require.Equal(t, h.u.card, h.u.current)
	assert.Equal(t, "EMI: card of HDFC", h.u.card.title.Text)
	assert.Contains(t, h.u.card.plan.Text, "Another attempt on order "+ts.sale.Tenders[1].OrderID)
	h.enter("4386280000000004")
	h.enter("08/31")
	h.enter("123")
	h.enter("A Customer")
	h.settle()
	last := f.requests[len(f.requests)-1]
	assert.Equal(t, ts.sale.Tenders[1].OrderID, last.OrderID, "tried again on its own order")
	require.NotNil(t, last.Offer)
	assert.Equal(t, "HDFC", last.Offer.Issuer)
	require.Equal(t, "PAID", h.u.pay.result.Text)
	assert.Empty(t, mustOpen(t, f), "the sale is paid")
}

// TestFailedTenderReplacedByCash: the part a failed tender did not pay is
// taken in cash instead, and the sale is complete.
func TestFailedTenderReplacedByCash(t *testing.T) {
	f := newSplitTill()
	f.refuseEMI = true
	h := newSplitHarness(t, f)
	h.signIn("Ravi", "1234")
	h.openSplitSale()
	h.press(fyne.KeyF6)
	h.settle()
	h.typeText("hdfc 6")
	h.press(fyne.KeyReturn)
	h.enter("4111111111111111")
	h.enter("08/31")
	h.enter("123")
	h.enter("A Customer")
	h.settle()
	h.press(fyne.KeyEscape)
	h.settle()
	require.Equal(t, h.u.tender, h.u.current)
	h.press(fyne.KeyF7) // cash for all that is left
	require.Equal(t, h.u.cash, h.u.current)
	h.enter("129990")
	h.settle()
	assert.Equal(t, h.u.receipt, h.u.current, "the sale is paid: its receipt")
	assert.Empty(t, mustOpen(t, f))
}

// TestSplitTenderLeavesTheCounterCart: a tender of an open sale in flight does
// not lock the counter's cart (that is the next customer's), and its outcome
// does not empty it.
func TestSplitTenderLeavesTheCounterCart(t *testing.T) {
	f := newSplitTill()
	h := newSplitHarness(t, f)
	h.signIn("Ravi", "1234")
	h.openSplitSale()
	hold := make(chan struct{})
	f.hold = hold
	h.typeText("5000")
	h.press(fyne.KeyF5)
	require.Equal(t, h.u.card, h.u.current)
	h.enter("5555555555554444")
	h.enter("08/31")
	h.enter("123")
	h.enter("A Customer")
	require.Equal(t, h.u.pay, h.u.current)
	h.press(fyne.KeyEscape) // the card tender goes on in the background
	s := h.u.sale
	require.Equal(t, s, h.u.current)
	h.enter("CABLE")
	require.Len(t, s.lines, 1, "the counter's cart takes the next customer's goods")
	assert.False(t, s.cashA.btn.Disabled())
	close(hold)
	h.settle()
	require.Len(t, s.lines, 1, "the tender's outcome leaves the counter's cart alone")
}

func mustOpen(t *testing.T, f *splitTill) []*SaleStatus {
	t.Helper()
	open, err := f.checkout().OpenSales(t.Context())
	require.NoError(t, err)
	return open
}

// TestOpenSaleFinishedKeepsTheCounterCart: an open sale continued while the
// next customer's goods are in the cart is paid in full; its receipt reads as
// every sale's (Escape for the next customer), and Esc on it goes back to the
// counter with that cart as it was.
func TestOpenSaleFinishedKeepsTheCounterCart(t *testing.T) {
	f := newSplitTill()
	h := newSplitHarness(t, f)
	h.signIn("Ravi", "1234")
	h.openSplitSale()
	h.press(fyne.KeyEscape)
	h.enter("CABLE")
	s := h.u.sale
	require.Len(t, s.lines, 1)
	h.press(fyne.KeyF1)
	h.settle()
	require.Equal(t, h.u.tender, h.u.current)
	h.press(fyne.KeyF7) // cash for all that is left
	h.enter("129990")
	h.settle()
	require.Equal(t, h.u.receipt, h.u.current, "the open sale is paid: its receipt")
	assert.Equal(t, "Next customer  [Esc]", h.u.receipt.done.btn.Text)
	assert.False(t, h.u.receipt.print.btn.Disabled(), "not printed yet")
	h.press(fyne.KeyF5)
	h.settle()
	assert.Equal(t, "Printed. Press Escape for the next customer.", h.u.receipt.message.Text)
	h.press(fyne.KeyEscape)
	h.settle()
	require.Equal(t, s, h.u.current)
	require.Len(t, s.lines, 1, "the next customer's cart is as it was")
	assert.Equal(t, "USB-C cable", s.lines[0].Product.Name)
	assert.False(t, s.openRow.Visible(), "no sale is open any more")
}

// TestTenderNoun: a tender named inside a sentence is lower case, its
// abbreviations kept ("the card tender failed", "the EMI tender failed").
func TestTenderNoun(t *testing.T) {
	for k, want := range map[pos.TenderKind]string{pos.TenderCard: "card", pos.TenderCash: "cash", pos.TenderEMI: "EMI",
		pos.TenderUPI: "UPI", pos.TenderNote: "credit note", pos.TenderPhone: "phone"} {
		assert.Equal(t, want, tenderNoun(k))
	}
}

// TestVoidDropsSaleWithNothingPaid: F4 on a sale with nothing paid drops it
// with the cashier's Enter, no manager's PIN (it holds no money); on a sale
// with cash paid it asks the manager's PIN as before.
func TestVoidDropsSaleWithNothingPaid(t *testing.T) {
	f := newSplitTill()
	h := newSplitHarness(t, f)
	h.signIn("Ravi", "1234")
	h.enter("TV55")
	h.press(fyne.KeyF11)
	h.settle()
	require.Equal(t, h.u.tender, h.u.current, h.u.sale.message.Text)
	id := h.u.tender.sale.Sale.ID
	h.press(fyne.KeyF4)
	h.settle()
	require.NotNil(t, h.u.dialogs.prompt)
	assert.Equal(t, "Drop sale "+id, h.u.dialogs.prompt.title)
	assert.Empty(t, h.u.dialogs.prompt.fields, "no PIN for a sale that holds no money")
	assert.Equal(t, "Drop it  [Enter]", h.u.dialogs.prompt.ok.Text)
	assert.Equal(t, "Keep it open  [Esc]", h.u.dialogs.prompt.cancel.Text)
	assert.True(t, h.u.dialogs.prompt.cancel.Visible(), "the way back is shown, not only said")

	// Esc keeps the sale open; F4 asks again.
	h.press(fyne.KeyEscape)
	h.settle()
	assert.Empty(t, f.drops)
	require.Equal(t, h.u.tender, h.u.current)
	h.press(fyne.KeyF4)
	h.settle()
	require.NotNil(t, h.u.dialogs.prompt)
	h.press(fyne.KeyReturn)
	h.settle()
	assert.Equal(t, []string{id}, f.drops)
	assert.Empty(t, f.voids)
	require.Equal(t, h.u.sale, h.u.current)
	assert.Equal(t, "Sale "+id+" dropped: nothing was paid on it.", h.u.sale.message.Text)
	open, _ := f.checkout().OpenSales(t.Context())
	assert.Empty(t, open)

	st := h.openSplitSale()
	h.press(fyne.KeyF4)
	h.settle()
	require.NotNil(t, h.u.dialogs.prompt)
	assert.Equal(t, "Void sale "+st.Sale.ID, h.u.dialogs.prompt.title)
	assert.Len(t, h.u.dialogs.prompt.fields, 1, "a sale with money on it asks the manager's PIN")

	// A cashier's PIN voids nothing; the manager's gives the cash back and
	// leaves the counter with the sale voided.
	h.enter("1234")
	h.settle()
	require.NotNil(t, h.u.dialogs.prompt, "the dialog stays with the refusal")
	assert.Empty(t, f.voids)
	h.enter("4321")
	h.settle()
	assert.Equal(t, []string{st.Sale.ID}, f.voids)
	require.Equal(t, h.u.sale, h.u.current)
	assert.Equal(t, "Sale "+st.Sale.ID+" voided: ₹10,000.00 refunded. Hand back ₹10,000.00 in cash.", h.u.sale.message.Text)
}
