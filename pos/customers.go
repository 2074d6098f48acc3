package pos

import (
	"context"
	"encoding/json"
	"fmt"
)

// settingBuyer prefixes the setting that remembers a customer by phone number:
// "buyer/9845012345".
const settingBuyer = "buyer/"

// Customers is the shop's customers at this counter: the buyers remembered by
// their phone numbers for the next visit, and what a sale to a buyer needs of
// them (their details on the invoice, CheckBuyer; where it is supplied,
// PlaceOf). A buyer's details are a Buyer.
type Customers struct{ *core }

// CheckBuyer is CheckBuyer for a cart of this till's shop, and the supply the
// shop's registration allows (Shop.CheckSupply: no sale to another state by a
// composition shop): the window asks it before it opens a tender, Pay before it
// journals anything. b may be nil (a
// walk-in customer).
func (cu *Customers) CheckBuyer(ctx context.Context, lines []CartLine, b *Buyer) error {
	shop, err := LoadShop(ctx, cu.j)
	if err != nil {
		return err
	}
	var buyer Buyer
	if b != nil {
		buyer = *b
	}
	sl := SaleLines(lines, nil)
	if err := CheckSaleRates(sl, cu.eng.Now()); err != nil {
		return err
	}
	if err := CheckBuyer(shop.TitleFor(sl), ComputeTotals(sl).Taxable, buyer); err != nil {
		return err
	}
	return shop.CheckSupply(PlaceOfSupply(shop.State, buyer.Normal()))
}

// Registration is the shop's GST registration, which decides whether a sale
// states tax (Shop.Registration).
func (cu *Customers) Registration(ctx context.Context) (Registration, error) {
	shop, err := LoadShop(ctx, cu.j)
	if err != nil {
		return Regular, err
	}
	return shop.Registration(), nil
}

// PlaceOf is where a sale of this till's shop to b (nil: a walk-in) is supplied
// (PlaceOfSupply).
func (cu *Customers) PlaceOf(ctx context.Context, b *Buyer) (Place, error) {
	shop, err := LoadShop(ctx, cu.j)
	if err != nil {
		return Place{}, err
	}
	var buyer Buyer
	if b != nil {
		buyer = b.Normal()
	}
	return PlaceOfSupply(shop.State, buyer), nil
}

// RememberBuyer journals the buyer under their phone number, so that the next
// visit finds them (FindBuyer); by is the cashier. A buyer without a phone number
// is not remembered. The details are checked first.
func (cu *Customers) RememberBuyer(ctx context.Context, by string, b Buyer) error {
	b = b.Normal()
	if err := b.Check(); err != nil {
		return err
	}
	if b.Phone == "" {
		return nil
	}
	b.ShipState, b.ShipAddress = "", "" // a delivery is of one sale, not of the customer
	if old, ok, err := cu.FindBuyer(ctx, b.Phone); err == nil && ok && old == b {
		return nil // nothing new to journal
	}
	return cu.saveSetting(ctx, by, settingBuyer+b.Phone, b)
}

// FindBuyer returns the customer remembered under phone (any spacing, with or
// without +91); ok is false for a number never recorded.
func (cu *Customers) FindBuyer(ctx context.Context, phone string) (b Buyer, ok bool, err error) {
	phone = Buyer{Phone: phone}.Normal().Phone
	if len(phone) != 10 {
		return Buyer{}, false, nil
	}
	raw, err := cu.j.Setting(ctx, settingBuyer+phone)
	if err != nil || raw == nil {
		return Buyer{}, false, err
	}
	if err := json.Unmarshal(raw, &b); err != nil {
		return Buyer{}, false, fmt.Errorf("pos: setting %q: %w", settingBuyer+phone, err)
	}
	return b, true, nil
}
