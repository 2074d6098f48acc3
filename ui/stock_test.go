package ui

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"fyne.io/fyne/v2"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"galla/pos"
)

// fakeStock is the fake till's stock: the deliveries received, the units
// allowed out of stock, and what is on hand by SKU.
type fakeStock struct {
	received []pos.Delivery
	allowed  []string
	onHand   map[string][]string // SKU → its units' IMEIs ("" for a unit of an item not serialised)
	refuse   map[string]error    // IMEI → why it is refused as scanned, until allowed
}

// stockCheck is CheckIMEIFree's answer for imei: refused as the test set it,
// unless a manager allowed it since.
func (f *fakeTill) stockCheck(imei string) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	if slices.Contains(f.stock.allowed, imei) {
		return nil
	}
	return f.stock.refuse[imei]
}

func (f *fakeStockroom) Enforced(context.Context) (pos.StockStatus, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if len(f.stock.received) == 0 {
		return pos.StockStatus{}, nil
	}
	return pos.StockStatus{Kept: true, Since: time.Date(2026, 11, 22, 11, 30, 0, 0, time.Local)}, nil
}

func (f *fakeStockroom) List(_ context.Context, q string, limit int, units bool) ([]pos.StockRow, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	var out []pos.StockRow
	for _, p := range f.products {
		ims, ok := f.stock.onHand[p.SKU]
		if !ok || !strings.Contains(strings.ToLower(p.SKU+" "+p.Name), strings.ToLower(q)) {
			continue
		}
		r := pos.StockRow{SKU: p.SKU, Name: p.Name, Serialised: p.Serialised, OnHand: int64(len(ims)), Value: pos.Paise(len(ims)) * p.Price}
		if units && p.Serialised {
			r.IMEIs = ims
		}
		out = append(out, r)
	}
	return out, nil
}

func (f *fakeStockroom) ReceiveItems(_ context.Context, supplier, invoice, date, items string, imeis []string, pin string) (pos.Delivery, error) {
	if _, err := f.authorize(pin, Override{}); err != nil {
		return pos.Delivery{}, err
	}
	lines, err := pos.ParseDelivery(items)
	if err != nil {
		return pos.Delivery{}, err
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.stock.onHand == nil {
		f.stock.onHand = map[string][]string{}
	}
	k := 0
	for i, l := range lines {
		for range l.Qty {
			im := ""
			if l.SKU == "S24" {
				if k >= len(imeis) {
					return pos.Delivery{}, pos.Errorf("S24 is serialised: %d units need %d IMEIs; nothing was recorded.", l.Qty, l.Qty)
				}
				im, k = imeis[k], k+1
				lines[i].Units = append(lines[i].Units, pos.Unit{IMEI: im})
			}
			f.stock.onHand[l.SKU] = append(f.stock.onHand[l.SKU], im)
		}
	}
	d := pos.Delivery{Supplier: supplier, Invoice: invoice, Date: date, Lines: lines}
	f.stock.received = append(f.stock.received, d)
	return d, nil
}

func (f *fakeStockroom) Offer(_ context.Context, sku, prefix string, limit int) ([]string, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	var out []string
	for _, m := range f.stock.onHand[sku] {
		if strings.HasPrefix(m, prefix) && (limit == 0 || len(out) < limit) {
			out = append(out, m)
		}
	}
	return out, nil
}

func (f *fakeStockroom) AllowIMEIs(_ context.Context, imeis []string, pin, by string) (pos.StaffMember, error) {
	m, err := f.authorize(pin, Override{})
	if err != nil {
		return pos.StaffMember{}, err
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	f.stock.allowed = append(f.stock.allowed, imeis...)
	return m, nil
}

// TestStockScreen: Ctrl+B opens the Stock screen from the sale screen; it
// says stock is not kept yet; F5's Receive form refuses a wrong PIN with a
// sentence and keeps everything typed; then the goods are received, the list
// shows them and is searched as typed, and Escape goes back to the sale.
func TestStockScreen(t *testing.T) {
	till := newFakeTill()
	h := newHarness(t, till)
	h.signIn("Asha", "4321")
	h.ctrl(fyne.KeyB)
	h.settle()
	s := h.u.stock
	require.Equal(t, screen(s), h.u.current)
	assert.Contains(t, s.status.Text, "Stock is not kept")
	assert.Contains(t, s.list.Text, "Nothing in stock yet")
	assert.Equal(t, fyne.Focusable(s.search), h.focused(), "the search has the focus")

	h.press(fyne.KeyF5)
	p := h.u.dialogs.prompt
	require.NotNil(t, p)
	require.Equal(t, "Receive goods", p.title)
	h.enter("Sai Distributors")
	h.enter("SD/114")
	h.enter("2026-11-21")
	h.enter("S24:2@6500000,CABLE:3")
	h.enter("356938035643809 356938035643817")
	h.enter("0000")
	h.settle()
	assert.False(t, p.closed, "a wrong PIN keeps the form open")
	assert.Equal(t, sentence(errFakeWrongPIN), p.message.Text)
	assert.Equal(t, "Sai Distributors", s.supplier.Text, "nothing typed is lost")
	assert.Equal(t, "356938035643809 356938035643817", s.imeis.Text)
	assert.Empty(t, s.pin.Text, "the PIN is not kept")
	h.u.win.Canvas().Focus(s.pin)
	h.enter("4321")
	h.settle()
	assert.True(t, p.closed)
	require.Len(t, till.stock.received, 1)
	d := till.stock.received[0]
	assert.Equal(t, "SD/114", d.Invoice)
	assert.Equal(t, []pos.Unit{{IMEI: "356938035643809"}, {IMEI: "356938035643817"}}, d.Lines[0].Units)
	assert.Equal(t, "Received 5 units on 2 lines: invoice SD/114 of Sai Distributors.", s.message.Text)
	assert.Contains(t, s.status.Text, "Stock is kept and enforced")
	assert.Contains(t, s.list.Text, "Samsung Galaxy S24")
	assert.Contains(t, s.list.Text, "USB-C cable")

	h.u.win.Canvas().Focus(s.search)
	h.typeText("cab")
	h.settle()
	assert.Contains(t, s.list.Text, "USB-C cable")
	assert.NotContains(t, s.list.Text, "Samsung")
	require.Len(t, s.rows, 1)
	assert.Equal(t, int64(3), s.rows[0].OnHand)
	h.typeText("zz")
	h.settle()
	assert.Contains(t, s.list.Text, `No item in stock matches "cabzz"`)

	h.press(fyne.KeyEscape)
	h.settle()
	assert.Equal(t, screen(h.u.sale), h.u.current)
}

// TestStockOverrideAtTheCart: a phone whose IMEI is not in stock is refused
// in the IMEI prompt with the till's sentence; a manager's PIN allows it and
// the IMEIs are checked again and taken.
func TestStockOverrideAtTheCart(t *testing.T) {
	till := newFakeTill()
	const imei = "356938035643809"
	till.stock.refuse = map[string]error{imei: &pos.NotInStockError{IMEI: imei, SKU: "S24"}}
	h := newHarness(t, till)
	h.signIn("Ravi", "1234")
	h.enter("S24")
	h.settle()
	done := false
	require.False(t, h.u.sale.serials.haveIMEIs(func() { done = true }))
	h.enter(imei)
	h.settle()
	p := h.u.dialogs.prompt
	require.NotNil(t, p)
	require.Equal(t, "Manager override", p.title)
	assert.Contains(t, p.message.Text, fmt.Sprintf("IMEI %s was never received into stock", imei))
	h.enter("1234")
	h.settle()
	assert.False(t, p.closed, "a cashier's PIN allows nothing")
	assert.Empty(t, till.stock.allowed)
	h.enter("4321")
	h.settle()
	assert.True(t, p.closed)
	assert.Equal(t, []string{imei}, till.stock.allowed)
	assert.True(t, done, "the IMEIs were checked again and taken")
	assert.Equal(t, []IMEI{{ProductCode: "SAMSUNG-S24", IMEI: imei}}, h.u.sale.serials.imeis)
}

// TestIMEIFieldOffersUnitsOnHand: as an IMEI is typed, the prompt offers the
// phone's units on hand that begin with the digits typed.
func TestIMEIFieldOffersUnitsOnHand(t *testing.T) {
	till := newFakeTill()
	till.stock.onHand = map[string][]string{"S24": {"356938035643809", "356938035643817"}, "CABLE": {""}}
	h := newHarness(t, till)
	h.signIn("Ravi", "1234")
	h.enter("S24")
	h.settle()
	ci := h.u.sale.serials
	require.False(t, ci.haveIMEIs(func() {}))
	h.typeText("35693803564380")
	h.settle()
	assert.Equal(t, "On hand of Samsung Galaxy S24: 356938035643809", ci.offer.Text)
	h.press(fyne.KeyBackspace)
	h.settle()
	assert.Equal(t, "On hand of Samsung Galaxy S24: 356938035643809, 356938035643817", ci.offer.Text)
	h.typeText("99")
	h.settle()
	assert.Empty(t, ci.offer.Text, "none on hand begins so")
}
