package ui

import (
	"context"
	"strings"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/layout"
	"fyne.io/fyne/v2/theme"

	"galla/pos"
)

// Customers is what the customer panel needs from pos: whether the cart's
// invoice needs the buyer, and a customer remembered for the next visit.
type Customers interface {
	// CheckBuyer says whether the cart's document can name b (nil: nobody): a
	// tax invoice of ₹50,000 taxable or more needs the buyer.
	CheckBuyer(ctx context.Context, lines []Line, b *pos.Buyer) error
	// FindBuyer returns the customer remembered under a phone number.
	FindBuyer(ctx context.Context, phone string) (pos.Buyer, bool, error)
	// RememberBuyer journals the customer under their phone number.
	RememberBuyer(ctx context.Context, by string, b pos.Buyer) error
	// PlaceOf is where a sale to b is supplied: IGST when another state.
	PlaceOf(ctx context.Context, b *pos.Buyer) (pos.Place, error)
}

// customerPanel is the sale's customer: phone number first (a number seen before
// fills in the rest), then name, address, state and GSTIN. pos checks what is
// typed (Buyer.Check) and, at payment, whether the invoice needs the buyer
// (CheckBuyer).
type customerPanel struct {
	s       *saleScreen
	prompt  *prompt
	phone   *keyEntry
	name    *keyEntry
	address *keyEntry
	state   *keyEntry
	gstin   *keyEntry
	ship    *keyEntry
}

// askCustomer opens the customer panel over the sale; why, when set, says why
// it is needed.
func (s *saleScreen) askCustomer(why string) {
	u := s.u
	c := &customerPanel{s: s, phone: newKeyEntry(u), name: newKeyEntry(u), address: newKeyEntry(u), state: newKeyEntry(u), gstin: newKeyEntry(u), ship: newKeyEntry(u)}
	c.phone.SetPlaceHolder("Mobile number (Enter finds a customer seen before)")
	c.name.SetPlaceHolder("Name")
	c.address.SetPlaceHolder("Address")
	c.state.SetPlaceHolder("State: name or code, e.g. Karnataka or 29")
	c.gstin.SetPlaceHolder("GSTIN of a registered buyer (a B2B sale)")
	c.ship.SetPlaceHolder("Delivered to state (empty: taken at the counter)")
	if b := s.buyer; b != nil {
		c.fill(*b)
	}
	text := "The customer on this sale's invoice. Name, address and state are needed for a taxable value of ₹50,000 or more, and with a GSTIN."
	if why != "" {
		text = why
	}
	c.prompt = u.dialogs.ask("Customer", text, []*keyEntry{c.phone, c.name, c.address, c.state, c.gstin, c.ship}, c.confirm)
	c.phone.OnSubmitted = func(string) { c.lookUp() }
	c.fit()
}

// fit grows the panel to hold its message as wrapped at the panel's width (a
// wrapping label asks for one line until it is laid out).
func (c *customerPanel) fit() {
	box, ok := c.prompt.pop.Content.(*fyne.Container)
	if !ok || len(box.Objects) == 0 {
		return
	}
	cell := box.MinSize()
	inner := box.Objects[0]
	c.prompt.message.Resize(fyne.NewSize(cell.Width-20-2*theme.InnerPadding(), c.prompt.message.MinSize().Height))
	if h := inner.MinSize().Height + 20; h > cell.Height {
		box.Layout = layout.NewGridWrapLayout(fyne.NewSize(cell.Width, h))
		box.Refresh()
		c.prompt.pop.Refresh()
	}
}

func (c *customerPanel) fill(b pos.Buyer) {
	c.phone.SetText(b.Phone)
	c.name.SetText(b.Name)
	c.address.SetText(b.Address)
	if b.State != "" {
		c.state.SetText(pos.States[b.State])
	}
	c.gstin.SetText(b.GSTIN)
	if b.ShipState != "" {
		c.ship.SetText(pos.States[b.ShipState])
	}
}

func (c *customerPanel) buyer() pos.Buyer {
	return pos.Buyer{Phone: c.phone.Text, Name: c.name.Text, Address: c.address.Text, State: c.state.Text, GSTIN: c.gstin.Text, ShipState: c.ship.Text}.Normal()
}

// lookUp fills in a customer remembered under the phone number typed, then moves
// on to the name.
func (c *customerPanel) lookUp() {
	u := c.s.u
	next := func() { u.win.Canvas().Focus(c.name) }
	cs := u.till.Customers
	phone := strings.TrimSpace(c.phone.Text)
	if phone == "" || c.name.Text != "" {
		next()
		return
	}
	u.async(func(ctx context.Context) func() {
		b, found, err := cs.FindBuyer(ctx, phone)
		return func() {
			if err == nil && found && c.name.Text == "" {
				c.fill(b)
				c.prompt.message.SetText("Welcome back: " + b.Name + ". Check the details, then Enter.")
			}
			next()
		}
	})
}

func (c *customerPanel) confirm(p *prompt) {
	b := c.buyer()
	if err := b.Check(); err != nil {
		p.say(sentence(err))
		c.fit()
		return
	}
	s := c.s
	if b.IsZero() {
		s.buyer = nil
	} else {
		s.buyer = &b
	}
	s.interstate = false
	s.showBuyer()
	s.refresh()
	p.close()
	cs := s.u.till.Customers
	by, buyer := s.u.user.ID, s.buyer
	s.u.async(func(ctx context.Context) func() {
		place, perr := cs.PlaceOf(ctx, buyer)
		var rerr error
		if b.Phone != "" {
			rerr = cs.RememberBuyer(ctx, by, b)
		}
		return func() {
			if perr == nil && s.buyer == buyer {
				s.interstate = place.Interstate
				s.refresh()
			}
			if rerr != nil {
				s.message.SetText(sentence(rerr))
			}
		}
	})
}

// taxLine is the cart's taxable value and GST as the sale screen shows them:
// CGST and SGST, or IGST when the buyer's place of supply is another state.
func (s *saleScreen) taxLine() string {
	txt := "Taxable " + s.bill.Taxable.String()
	if s.interstate {
		return txt + "   IGST " + (s.bill.CGST + s.bill.SGST).String()
	}
	return txt + "   CGST " + s.bill.CGST.String() + "   SGST " + s.bill.SGST.String()
}

// showBuyer says on the sale screen who the invoice names.
func (s *saleScreen) showBuyer() {
	b := s.buyer
	if b == nil {
		s.buyerInfo.SetText("Walk-in customer")
		return
	}
	who := b.Name
	if who == "" {
		who = b.Phone
	}
	if b.State != "" {
		who += ", " + pos.States[b.State]
	}
	if b.GSTIN != "" {
		who += " · GSTIN " + b.GSTIN
	}
	if b.ShipState != "" {
		who += " · delivered to " + pos.States[b.ShipState]
	}
	s.buyerInfo.SetText("Customer: " + who)
}

// checkBuyer asks pos whether the invoice of the cart can be issued to the buyer
// recorded; when not, it says why and opens the customer panel.
func (s *saleScreen) checkBuyer() bool {
	cs := s.u.till.Customers
	// A read of the shop's settings: quick enough for the counter's thread.
	if err := cs.CheckBuyer(s.u.ctx, s.lines, s.buyer); err != nil {
		s.askCustomer(sentence(err))
		return false
	}
	return true
}
