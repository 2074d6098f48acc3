package ui

import (
	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/widget"

	"galla/pos"
)

// saleCustomer is who the sale's invoice names, shown under the totals with
// Customer [Ctrl+U], which opens the customer panel (customerPanel).
type saleCustomer struct {
	s *saleScreen
	// buyer is who the invoice names (the customer panel); nil: a walk-in.
	buyer      *pos.Buyer
	interstate bool // the buyer's place of supply is another state: IGST
	buyerInfo  *widget.Label
	customerA  *action
}

func newSaleCustomer(s *saleScreen) *saleCustomer {
	sc := &saleCustomer{s: s}
	sc.customerA = s.u.newAction("Customer", fyne.KeyU, fyne.KeyModifierControl, func() { sc.askCustomer("") })
	sc.buyerInfo = widget.NewLabel("")
	sc.buyerInfo.Wrapping = fyne.TextWrapWord
	return sc
}

// askCustomer opens the customer panel over the sale; why, when set, says why
// it is needed.
func (sc *saleCustomer) askCustomer(why string) {
	u := sc.s.u
	c := &customerPanel{s: sc.s, phone: newKeyEntry(u), name: newKeyEntry(u), address: newKeyEntry(u), state: newKeyEntry(u), gstin: newKeyEntry(u), ship: newKeyEntry(u), shipAt: newKeyEntry(u)}
	c.phone.SetPlaceHolder("Mobile number (Enter finds a customer seen before)")
	c.name.SetPlaceHolder("Name")
	c.address.SetPlaceHolder("Address")
	c.state.SetPlaceHolder("State: name or code, e.g. Karnataka or 29")
	c.gstin.SetPlaceHolder("GSTIN of a registered buyer (a B2B sale)")
	c.ship.SetPlaceHolder("Delivered to state (empty: taken at the counter)")
	c.shipAt.SetPlaceHolder("Delivery address, printed on the invoice")
	if b := sc.buyer; b != nil {
		c.fill(*b)
	}
	text := "The customer on this sale's invoice. Name, address and state are needed for a taxable value of ₹50,000 or more, and with a GSTIN."
	if why != "" {
		text = why
	}
	c.prompt = u.dialogs.ask("Customer", text, []*keyEntry{c.phone, c.name, c.address, c.state, c.gstin, c.ship, c.shipAt}, c.confirm)
	c.phone.OnSubmitted = func(string) { c.lookUp() }
	c.fit()
}

// taxLine is the cart's taxable value and GST as the sale screen shows them:
// CGST and SGST, or IGST when the buyer's place of supply is another state. A
// shop that may not charge GST (not registered, or under the composition
// scheme) shows no tax, as its documents do (pos.Registration).
func (sc *saleCustomer) taxLine() string {
	// A read of the shop's settings: quick enough for the counter's thread.
	if reg, err := sc.s.u.till.Customers.Registration(sc.s.u.ctx); err == nil && !reg.ShowsTax() {
		if reg == pos.Composition {
			return "Bill of supply: composition scheme, no GST charged"
		}
		return "No GST charged: the seller is not registered"
	}
	txt := "Taxable " + sc.s.bill.Taxable.String()
	if sc.interstate {
		return txt + "   IGST " + sc.s.bill.IGST.String()
	}
	return txt + "   CGST " + sc.s.bill.CGST.String() + "   SGST " + sc.s.bill.SGST.String()
}

// showBuyer says on the sale screen who the invoice names.
func (sc *saleCustomer) showBuyer() {
	b := sc.buyer
	if b == nil {
		sc.buyerInfo.SetText("Walk-in customer")
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
	sc.buyerInfo.SetText("Customer: " + who)
}

// checkBuyer asks pos whether the invoice of the cart can be issued to the buyer
// recorded; when not, it says why and opens the customer panel.
func (sc *saleCustomer) checkBuyer() bool {
	cs := sc.s.u.till.Customers
	// A read of the shop's settings: quick enough for the counter's thread.
	if err := cs.CheckBuyer(sc.s.u.ctx, sc.s.lines, sc.buyer); err != nil {
		sc.askCustomer(sentence(err))
		return false
	}
	return true
}
