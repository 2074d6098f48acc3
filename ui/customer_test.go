package ui

import (
	"context"
	"testing"
	"time"

	"galla/internal/testclock"
	"galla/pos"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/test"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// customersTill is the Customers of a registered shop that remembers customers,
// on the fake till's state; its Registration is the fake's.
type customersTill struct {
	*fakeCustomers
	known      map[string]pos.Buyer
	remembered []pos.Buyer
}

func (c *customersTill) CheckBuyer(_ context.Context, lines []Line, b *pos.Buyer) error {
	var buyer pos.Buyer
	if b != nil {
		buyer = *b
	}
	return pos.CheckBuyer("TAX INVOICE", pos.ComputeTotals(pos.SaleLines(lines, nil)).Taxable, buyer)
}

func (c *customersTill) FindBuyer(_ context.Context, phone string) (pos.Buyer, bool, error) {
	b, ok := c.known[pos.Buyer{Phone: phone}.Normal().Phone]
	return b, ok, nil
}

func (c *customersTill) PlaceOf(_ context.Context, b *pos.Buyer) (pos.Place, error) {
	var buyer pos.Buyer
	if b != nil {
		buyer = *b
	}
	return pos.PlaceOfSupply("27", buyer), nil // a shop in Maharashtra
}

func (c *customersTill) RememberBuyer(_ context.Context, _ string, b pos.Buyer) error {
	c.remembered = append(c.remembered, b)
	return nil
}

// TestCustomerPanel sells a ₹1,39,990 television: the cash key opens the
// customer panel with pos's sentence, since the invoice must name the buyer; the
// phone number of a customer seen before fills in the rest; a bad GSTIN is
// refused in the panel; the payment then carries the buyer.
func TestCustomerPanel(t *testing.T) {
	f := newFakeTill()
	till := &customersTill{fakeCustomers: &fakeCustomers{f}, known: map[string]pos.Buyer{
		"9845012345": {Name: "Asha Rao", Phone: "9845012345", Address: "12 MG Road, Bengaluru", State: "29"},
	}}
	h := &harness{t: t, till: f, clock: testclock.New(time.Date(2026, 11, 22, 11, 30, 0, 0, time.Local))}
	f.now = h.clock.Now
	services := servicesOf(f)
	services.Customers = till
	h.u = New(test.NewTempApp(t), services, Options{Do: h.enqueue, Now: h.clock.Now})
	h.u.win.Resize(fyne.NewSize(1366, 768))
	t.Cleanup(func() {
		h.u.stop()
		h.settle()
	})
	h.settle()
	u := h.u
	h.signIn("Ravi", "1234")
	assert.Equal(t, "Walk-in customer", u.sale.customer.buyerInfo.Text)

	h.enter("8806090000019") // the television
	h.settle()
	require.Len(t, u.sale.lines, 1)
	h.press(fyne.KeyF7) // cash
	h.settle()
	require.NotNil(t, u.dialogs.prompt, "the customer panel opens")
	assert.Equal(t, "Customer", u.dialogs.prompt.title)
	assert.Contains(t, u.dialogs.prompt.message.Text, "₹50,000.00 or more: the invoice must name the buyer")
	assert.Equal(t, u.sale, u.current, "no tender screen yet")

	h.enter("98450 12345")
	h.settle()
	fields := u.dialogs.prompt.fields
	assert.Equal(t, "Asha Rao", fields[1].Text, "the customer seen before")
	assert.Equal(t, "Karnataka", fields[3].Text)
	assert.Contains(t, u.dialogs.prompt.message.Text, "Welcome back: Asha Rao")
	require.Equal(t, fields[1], h.focused())

	fields[4].SetText("29AAPFU0939F1ZX") // a wrong check character
	u.dialogs.prompt.confirm()
	require.NotNil(t, u.dialogs.prompt)
	assert.Contains(t, u.dialogs.prompt.message.Text, "The buyer's GSTIN is not valid")
	fields[4].SetText("")
	require.Len(t, fields, 7, "phone, name, address, state, GSTIN, delivery state and address")
	fields[6].SetText("House 3,  Indiranagar") // delivered within the buyer's state: still IGST
	u.dialogs.prompt.confirm()
	h.settle()
	assert.Nil(t, u.dialogs.prompt)
	assert.Equal(t, "Customer: Asha Rao, Karnataka", u.sale.customer.buyerInfo.Text)
	require.Len(t, till.remembered, 1)
	// ₹1,39,990 at 28%: taxable 1,09,367.19, IGST 28% of it 30,622.8132 →
	// 30,622.81 for Karnataka (not twice the 14% CGST, 2 × 15,311.41).
	assert.Equal(t, "Taxable ₹1,09,367.19   IGST ₹30,622.81", u.sale.gst.Text)

	h.press(fyne.KeyF7)
	h.settle()
	require.Equal(t, u.cash, u.current)
	require.NotNil(t, u.cash.req.Buyer)
	assert.Equal(t, pos.Buyer{Name: "Asha Rao", Phone: "9845012345", Address: "12 MG Road, Bengaluru", State: "29", ShipAddress: "House 3, Indiranagar"}, *u.cash.req.Buyer,
		"the delivery address goes with the sale, to be printed")

	// A new sale forgets the customer.
	h.press(fyne.KeyEscape)
	h.settle()
	u.sale.clear()
	assert.Equal(t, "Walk-in customer", u.sale.customer.buyerInfo.Text)
	assert.Nil(t, u.sale.customer.buyer)
}
