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
	// Registration is the shop's GST registration: whether a sale states tax.
	Registration(ctx context.Context) (pos.Registration, error)
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
	// shipAt is the address the goods are delivered to, printed with ship.
	shipAt *keyEntry
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
	c.shipAt.SetText(b.ShipAddress)
}

func (c *customerPanel) buyer() pos.Buyer {
	return pos.Buyer{Phone: c.phone.Text, Name: c.name.Text, Address: c.address.Text, State: c.state.Text, GSTIN: c.gstin.Text, ShipState: c.ship.Text, ShipAddress: c.shipAt.Text}.Normal()
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
		s.customer.buyer = nil
	} else {
		s.customer.buyer = &b
	}
	s.customer.interstate = false
	s.customer.showBuyer()
	s.refresh()
	p.close()
	cs := s.u.till.Customers
	by, buyer := s.u.user.ID, s.customer.buyer
	s.u.async(func(ctx context.Context) func() {
		place, perr := cs.PlaceOf(ctx, buyer)
		var rerr error
		if b.Phone != "" {
			rerr = cs.RememberBuyer(ctx, by, b)
		}
		return func() {
			if perr == nil && s.customer.buyer == buyer {
				s.customer.interstate = place.Interstate
				s.refresh()
			}
			if rerr != nil {
				s.message.SetText(sentence(rerr))
			}
		}
	})
}
