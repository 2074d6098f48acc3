package pos

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// LastSeq and Event make the in-memory journal an EventLog, as pos/journal is.
func (m *memJournal) LastSeq(ctx context.Context) (uint64, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	return uint64(len(m.events)), nil
}

func (m *memJournal) Event(ctx context.Context, seq uint64) (Event, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if seq == 0 || seq > uint64(len(m.events)) {
		return Event{}, fmt.Errorf("memjournal: no event %d", seq)
	}
	var ev Event
	err := json.Unmarshal(m.events[seq-1], &ev)
	return ev, err
}

func newShiftTill(t *testing.T) (*rig, *Till) {
	t.Helper()
	r := newRig(t)
	tl, err := NewTill(t.Context(), TillConfig{Engine: r.e, SampleCatalog: catalogJSON(t)})
	require.NoError(t, err)
	return r, tl
}

func (r *rig) cartLine(t *testing.T, sku string, qty int) CartLine {
	t.Helper()
	p, ok := r.cat.Lookup(sku)
	require.True(t, ok, sku)
	return CartLine{Product: p, Qty: qty}
}

func TestShiftCashDrawer(t *testing.T) {
	r, tl := newShiftTill(t)
	ctx := t.Context()

	s, err := tl.Drawer.OpenShift(ctx, "meera", Rupees(2000))
	require.NoError(t, err)
	_, err = tl.Drawer.OpenShift(ctx, "meera", Rupees(100))
	assert.ErrorIs(t, err, ErrShiftOpen, "one open shift per terminal")

	paid, err := tl.Checkout.Pay(ctx, PayRequest{Lines: []CartLine{r.cartLine(t, "ACC-CASE", 1)}, Tender: TenderCash, Tendered: Rupees(2000), Cashier: "meera"}, nil)
	require.NoError(t, err)
	require.Equal(t, StatePaid, paid.State)
	assert.Equal(t, Rupees(501), paid.Change)

	_, err = tl.Drawer.MoveCash(ctx, "meera", CashIn, Rupees(500), "change from the bank")
	require.NoError(t, err)
	_, err = tl.Drawer.MoveCash(ctx, "meera", CashOut, Rupees(120), "tea")
	require.NoError(t, err)
	_, err = tl.Drawer.MoveCash(ctx, "meera", CashDrop, Rupees(1000), "safe drop")
	require.NoError(t, err)
	_, err = tl.Drawer.MoveCash(ctx, "meera", CashOut, Rupees(50), " ")
	assert.ErrorIs(t, err, ErrBadCashMove, "a paid-out needs its reason")
	_, err = tl.Drawer.MoveCash(ctx, "meera", CashOut, Rupees(99999), "too much")
	assert.ErrorIs(t, err, ErrBadCashMove, "more than the drawer holds")

	_, err = tl.Returns.Refund(ctx, paid.OrderID, Rupees(100), managerPIN)
	require.NoError(t, err)

	// 2,000 float + 1,499 sale − 100 refund + 500 in − 120 out − 1,000 drop.
	x, err := tl.Drawer.ShiftReport(ctx, "")
	require.NoError(t, err)
	assert.Equal(t, Rupees(1499), x.CashSales)
	assert.Equal(t, Rupees(100), x.CashRefunds)
	assert.Equal(t, Rupees(2779), x.Expected)
	require.Len(t, x.ByCashier, 1)
	assert.Equal(t, Rupees(1499), x.ByCashier[0].ByTender[TenderCash])

	_, err = tl.Books.CloseDay(ctx, CloseDayRequest{PIN: managerPIN})
	assert.ErrorIs(t, err, ErrShiftOpenAtClose, "the Z waits for the shift's count")

	count, err := ParseCount("500x5, 200x1, 50x1, 10x1, 5x1, 2x2")
	require.NoError(t, err)
	assert.Equal(t, Rupees(2769), count.Total())
	rep, err := tl.Drawer.CloseShift(ctx, "meera", count)
	require.NoError(t, err)
	assert.Equal(t, Rupees(2779), rep.Expected)
	assert.Equal(t, Rupees(2769), rep.Shift.Counted)
	assert.Equal(t, -Rupees(10), rep.Shift.Variance, "ten rupees short")
	assert.False(t, rep.Shift.Open())
	var text bytes.Buffer
	require.NoError(t, rep.WriteText(&text))
	assert.Contains(t, text.String(), "Variance")
	assert.Contains(t, text.String(), "₹500 × 5 = ₹2,500.00")
	assert.Contains(t, text.String(), "tea")

	// With no shift open, cash is refused (the terminal keeps shifts); a card
	// sale is not.
	_, err = tl.Checkout.Pay(ctx, PayRequest{Lines: []CartLine{r.cartLine(t, "ACC-CBL", 1)}, Tender: TenderCash, Cashier: "meera"}, nil)
	assert.ErrorIs(t, err, ErrNoShift)
	assert.Contains(t, Sentence(err), "open shift")
	_, err = tl.Returns.Refund(ctx, paid.OrderID, Rupees(10), managerPIN)
	assert.ErrorIs(t, err, ErrNoShift, "a cash refund needs an open shift too")

	// A new till over the same journal (a restart) derives the same shift.
	tl2, err := NewTill(ctx, TillConfig{Engine: r.e, SampleCatalog: catalogJSON(t)})
	require.NoError(t, err)
	list, err := tl2.Drawer.Shifts(ctx, "")
	require.NoError(t, err)
	require.Len(t, list, 1)
	assert.Equal(t, s.ID, list[0].ID)
	assert.Equal(t, -Rupees(10), list[0].Variance)
	assert.Len(t, list[0].Moves, 3)
}

func TestParseCount(t *testing.T) {
	tests := []struct {
		in   string
		want Paise
		bad  bool
	}{
		{"500x2,100x3", Rupees(1300), false},
		{"2000x1", 0, true}, // no longer counted at the drawer
		{"500x-1", 0, true},
		{"abc", 0, true},
		{"10x3, 0.50", 3050, false},
		{"", 0, false},
	}
	for _, tt := range tests {
		c, err := ParseCount(tt.in)
		if tt.bad {
			assert.ErrorIs(t, err, ErrBadCount, "ParseCount(%q)", tt.in)
			continue
		}
		require.NoError(t, err, "ParseCount(%q)", tt.in)
		assert.Equal(t, tt.want, c.Total(), "ParseCount(%q).Total()", tt.in)
	}
}

func TestHeldBills(t *testing.T) {
	r, tl := newShiftTill(t)
	ctx := t.Context()
	lines := []CartLine{r.cartLine(t, "ACC-CASE", 2), r.cartLine(t, "ACC-CBL", 1)}
	h, err := tl.Shelf.HoldBill(ctx, lines, nil, "meera", "blue shirt")
	require.NoError(t, err)
	assert.Equal(t, Rupees(2*1499+499), h.Total)
	assert.Equal(t, 3, h.Items)
	_, err = tl.Shelf.HoldBill(ctx, nil, nil, "meera", "")
	assert.ErrorIs(t, err, ErrEmptyCart)
	h2, err := tl.Shelf.HoldBill(ctx, lines[1:], nil, "meera", "")
	require.NoError(t, err)

	// A restart (a crash) loses none: a new till reads them from the journal.
	tl2, err := NewTill(ctx, TillConfig{Engine: r.e, SampleCatalog: catalogJSON(t)})
	require.NoError(t, err)
	held, err := tl2.Shelf.HeldBills(ctx)
	require.NoError(t, err)
	require.Len(t, held, 2)
	assert.Equal(t, "blue shirt", held[0].Note)
	assert.Equal(t, 2, held[0].Lines[0].Qty)
	assert.Equal(t, "ACC-CASE", held[0].Lines[0].Product.SKU)

	got, err := tl2.Shelf.RecallBill(ctx, h.ID, "meera")
	require.NoError(t, err)
	assert.Equal(t, lines, got.Lines)
	_, err = tl2.Shelf.RecallBill(ctx, h.ID, "meera")
	assert.ErrorIs(t, err, ErrHeldNotFound, "a bill is recalled once")
	require.NoError(t, tl2.Shelf.DiscardBill(ctx, h2.ID, "meera"))
	held, err = tl.Shelf.HeldBills(ctx)
	require.NoError(t, err)
	assert.Empty(t, held, "the first till sees the recall and the discard too")
}

func TestIMEIOnEveryPhone(t *testing.T) {
	r, tl := newShiftTill(t)
	ctx := t.Context()
	phone := r.cartLine(t, "PH-SAM-S24", 1)
	const imei = "490154203237518"

	_, err := tl.Checkout.Pay(ctx, PayRequest{Lines: []CartLine{phone}, Tender: TenderCash, Cashier: "meera"}, nil)
	assert.ErrorIs(t, err, ErrIMEIMissing, "a phone without its IMEI is refused before payment")
	_, err = tl.Checkout.Pay(ctx, PayRequest{Lines: []CartLine{phone}, IMEIs: []UnitIMEI{{ProductCode: "SAMSUNG-S24", IMEI: "490154203237519"}}, Tender: TenderCash, Cashier: "meera"}, nil)
	assert.ErrorIs(t, err, ErrIMEICheckDigit)

	out, err := tl.Checkout.Pay(ctx, PayRequest{Lines: []CartLine{phone}, IMEIs: []UnitIMEI{{ProductCode: "SAMSUNG-S24", IMEI: imei}}, Tender: TenderCash, Cashier: "meera"}, nil)
	require.NoError(t, err)
	require.Equal(t, StatePaid, out.State)

	_, err = tl.Checkout.Pay(ctx, PayRequest{Lines: []CartLine{phone}, IMEIs: []UnitIMEI{{ProductCode: "SAMSUNG-S24", IMEI: imei}}, Tender: TenderCash, Cashier: "meera"}, nil)
	var sold *IMEISoldError
	require.True(t, errors.As(err, &sold), "%v", err)
	assert.Equal(t, out.SaleID(), sold.OrderID)
	assert.Contains(t, Sentence(err), "already sold on 22 Nov 10:00 (receipt 2627/000001)")
	assert.ErrorIs(t, tl.IMEIs.CheckIMEIFree(ctx, imei), ErrIMEISold)

	found, err := tl.IMEIs.FindIMEI(ctx, imei)
	require.NoError(t, err)
	require.Len(t, found, 1)
	assert.Equal(t, out.SaleID(), found[0].OrderID)
	none, err := tl.IMEIs.FindIMEI(ctx, "356938035643809")
	require.NoError(t, err)
	assert.Empty(t, none)

	// The unit comes back: its IMEI may be sold again, and the search still
	// finds the first sale.
	require.NoError(t, tl.IMEIs.ReturnIMEIs(ctx, out.SaleID(), "meera", []string{imei}))
	assert.NoError(t, tl.IMEIs.CheckIMEIFree(ctx, imei))
	again, err := tl.Checkout.Pay(ctx, PayRequest{Lines: []CartLine{phone}, IMEIs: []UnitIMEI{{ProductCode: "SAMSUNG-S24", IMEI: imei}}, Tender: TenderCash, Cashier: "meera"}, nil)
	require.NoError(t, err)
	found, err = tl.IMEIs.FindIMEI(ctx, imei)
	require.NoError(t, err)
	require.Len(t, found, 2)
	assert.Equal(t, again.SaleID(), found[0].OrderID, "newest first")
}

func TestBusinessDayNeverBlocksSelling(t *testing.T) {
	r, tl := newShiftTill(t)
	ctx := t.Context()
	day := tl.Books.BusinessDay()
	assert.Equal(t, "2026-11-22", day)
	first, err := tl.Checkout.Pay(ctx, PayRequest{Lines: []CartLine{r.cartLine(t, "ACC-CBL", 1)}, Tender: TenderCash, Cashier: "meera"}, nil)
	require.NoError(t, err)

	// An unknown payment stops the Z unless a manager accepts listing it.
	o, err := openOneTender(ctx, r.e, r.sale(t, "ACC-CASE"), TenderCard, nil, PayOptions{})
	require.NoError(t, err)
	_, err = r.e.core.commit(ctx, o, Event{Kind: EvOrderUnknown, Reason: "the answer was lost"})
	require.NoError(t, err)
	_, err = tl.Books.CloseDay(ctx, CloseDayRequest{PIN: managerPIN})
	var unknown *UnknownPaymentsError
	require.True(t, errors.As(err, &unknown), "%v", err)
	require.Len(t, unknown.Orders, 1)
	assert.Equal(t, o.ID, unknown.Orders[0].OrderID)
	assert.Contains(t, Sentence(err), "22 Nov 10:00 card ₹1,499.00")

	res, err := tl.Books.CloseDay(ctx, CloseDayRequest{PIN: managerPIN, AcceptUnknown: true})
	require.NoError(t, err)
	assert.Equal(t, day, res.Report.Day)
	var accepted []Event
	for _, ev := range r.j.allEvents() {
		if ev.Kind == EvUnknownAccepted {
			accepted = append(accepted, ev)
		}
	}
	require.Len(t, accepted, 1, "the acceptance is journaled")
	var list UnknownList
	require.NoError(t, json.Unmarshal(accepted[0].Data, &list))
	assert.Equal(t, []UnknownPayment{{OrderID: o.ID, Amount: Rupees(1499), Tender: TenderCard, State: StateUnknown}}, list.Orders)

	// Selling and refunds go on at once, on the same calendar date (ADR
	// 0010): the date's next period. The payment left unknown at the Z gets its
	// answer after it, and it is recorded.
	assert.Equal(t, "2026-11-22", tl.Books.BusinessDay())
	next, err := tl.Checkout.Pay(ctx, PayRequest{Lines: []CartLine{r.cartLine(t, "ACC-CBL", 1)}, Tender: TenderCash, Cashier: "meera"}, nil)
	require.NoError(t, err)
	require.Equal(t, StatePaid, next.State)
	assert.Equal(t, "2026-11-22", next.Order.Day)
	assert.Equal(t, 22, next.Order.Opened.Day(), "the document keeps the calendar time")
	_, err = tl.Returns.Refund(ctx, first.OrderID, Rupees(10), managerPIN)
	require.NoError(t, err, "a refund of the closed period's sale goes on")
	late, err := r.e.Order(ctx, o.ID)
	require.NoError(t, err)
	_, err = r.e.core.commit(ctx, late, Event{Kind: EvOrderUnknown, Reason: "the late answer is ambiguous too"})
	require.NoError(t, err, "a late payment answer after the Z is recorded, never refused")
	evs := r.j.allEvents()
	assert.Equal(t, day, evs[len(evs)-1].Day, "dated the calendar date")

	// A second Z of the date closes what came after the first; a third, with
	// nothing after the second, is refused.
	z2, err := tl.Books.CloseDay(ctx, CloseDayRequest{Day: day, PIN: managerPIN, AcceptUnknown: true})
	require.NoError(t, err)
	assert.Equal(t, day, z2.Report.Day)
	assert.Equal(t, 2, z2.Report.Period)
	assert.Equal(t, res.Report.ZNo+1, z2.Report.ZNo)
	_, err = tl.Books.CloseDay(ctx, CloseDayRequest{Day: day, PIN: managerPIN, AcceptUnknown: true})
	assert.ErrorIs(t, err, ErrDayClosed)
	assert.Contains(t, Sentence(err), "is closed (Z 2); nothing was sold after it.")

	// The next date's sales are in its report.
	r.clock.Advance(24 * time.Hour)
	assert.Equal(t, "2026-11-23", tl.Books.BusinessDay())
	_, err = tl.Checkout.Pay(ctx, PayRequest{Lines: []CartLine{r.cartLine(t, "ACC-CBL", 1)}, Tender: TenderCash, Cashier: "meera"}, nil)
	require.NoError(t, err)
	x, err := tl.Books.Report(ctx, "2026-11-23")
	require.NoError(t, err)
	assert.Len(t, x.Orders, 1, "the new date's sale")
	whole, err := tl.Books.Report(ctx, day)
	require.NoError(t, err)
	assert.Len(t, whole.Orders, 3, "the 22nd: both periods' sales and the unknown payment")
}

func TestCashierLimits(t *testing.T) {
	r, tl := newShiftTill(t)
	ctx := t.Context()
	_, err := r.e.Roster().WithIterations(MinPINIterations).AddStaff(ctx, "Ravi", RoleCashier, "2468")
	require.NoError(t, err)
	_, err = tl.Crew.SetStaffLimits(ctx, "Ravi", &StaffLimits{Discount: Rupees(300), Refund: Rupees(1000)}, "000000")
	assert.ErrorIs(t, err, ErrWrongPIN, "limits need a manager's PIN")
	_, err = tl.Crew.SetStaffLimits(ctx, "Meera", &StaffLimits{}, managerPIN)
	assert.Error(t, err, "a manager has no limits to set")
	info, err := tl.Crew.SetStaffLimits(ctx, "Ravi", &StaffLimits{Discount: Rupees(300), Refund: Rupees(1000)}, managerPIN)
	require.NoError(t, err)
	assert.Equal(t, &StaffLimits{Discount: Rupees(300), Refund: Rupees(1000)}, info.Limits)

	assert.Equal(t, DefaultDiscountLimit, tl.Shelf.DiscountLimit(CartLine{}), "nobody signed in: the shop's limit")
	ravi, err := tl.Crew.SignIn(ctx, "Ravi", "2468")
	require.NoError(t, err)
	assert.Equal(t, Rupees(300), tl.Shelf.DiscountLimit(CartLine{}), "Ravi's own limit")
	tv := r.cartLine(t, "TV-LG-OLED55C4", 1)
	tv.Discount = Rupees(300)
	_, err = tl.Shelf.Price([]CartLine{tv})
	require.NoError(t, err)
	tv.Discount = Rupees(300) + 1
	_, err = tl.Shelf.Price([]CartLine{tv})
	assert.ErrorIs(t, err, ErrDiscountNeedsManager)

	paid, err := tl.Checkout.Pay(ctx, PayRequest{Lines: []CartLine{r.cartLine(t, "ACC-CASE", 2)}, Tender: TenderCash, Cashier: "Ravi"}, nil)
	require.NoError(t, err)
	_, err = tl.Returns.Refund(ctx, paid.OrderID, Rupees(1000), "2468")
	require.NoError(t, err, "within Ravi's refund limit, his own PIN")
	_, err = tl.Returns.Refund(ctx, paid.OrderID, Rupees(1000)+1, "2468")
	assert.ErrorIs(t, err, ErrRefundNeedsManager)
	assert.Equal(t, "A refund above ₹1,000.00 needs a manager's PIN.", Sentence(err))
	_, err = tl.Returns.Refund(ctx, paid.OrderID, Rupees(1500), managerPIN)
	require.NoError(t, err, "a manager's PIN at Ravi's counter")
	o, err := tl.Books.Order(ctx, paid.OrderID)
	require.NoError(t, err)
	require.Len(t, o.Refunds, 2)
	assert.Equal(t, ravi.ID, o.Refunds[0].Staff, "the refund names Ravi")
	assert.NotEqual(t, ravi.ID, o.Refunds[1].Staff, "the second names the manager")
	list, err := tl.Crew.StaffList(ctx)
	require.NoError(t, err)
	for _, s := range list {
		assert.True(t, s.LockedUntil.IsZero(), "%s is not locked", s.Name)
	}
	rec, err := r.j.Get(ctx, ravi.ID)
	require.NoError(t, err)
	assert.Zero(t, rec.FailedAttempts, "the manager's PIN typed at Ravi's counter is no wrong PIN of Ravi's")

	// Signed out, the shop's limit applies again.
	require.NoError(t, tl.Crew.SignOut(ctx, ravi, false))
	assert.Equal(t, DefaultDiscountLimit, tl.Shelf.DiscountLimit(CartLine{}))
}
