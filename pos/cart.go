package pos

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
)

// The cart's errors, matched with errors.Is.
var (
	ErrEmptyCart        = errors.New("the cart is empty")
	ErrUnknownProduct   = errors.New("no product has this barcode or SKU")
	ErrNotInCart        = errors.New("the product is not in the cart")
	ErrBadQuantity      = errors.New("quantity out of range")
	ErrBadDiscount      = errors.New("a discount cannot be negative")
	ErrDiscountTooLarge = errors.New("the discount is more than the line's amount")
	ErrNotSerialised    = errors.New("the product carries no IMEI")
	ErrTooManyIMEIs     = errors.New("more IMEIs than units")
	ErrDuplicateIMEI    = errors.New("the IMEI is already in the cart")
	ErrIMEIMissing      = errors.New("an IMEI is missing")
)

// MaxQty is the largest quantity of one line.
const MaxQty = 999

// Line is one product in a cart or a journaled order: a snapshot of the product taken
// when it was added, so later catalog changes do not alter a sale.
type Line struct {
	SKU         string   `json:"sku"`
	Name        string   `json:"name"`
	Brand       string   `json:"brand,omitempty"`
	ProductCode string   `json:"product_code,omitempty"`
	HSN         string   `json:"hsn"`
	Qty         int      `json:"qty"`
	Unit        UQC      `json:"unit,omitempty"` // the catalog's unit of Qty; "" is NOS
	UnitPrice   Paise    `json:"unit_price"`     // GST-inclusive
	Discount    Paise    `json:"discount,omitempty"`
	ApprovedBy  string   `json:"approved_by,omitempty"` // the manager who approved a discount above the DiscountPolicy's limit
	GSTRate     Rate     `json:"gst_rate"`
	Cess        Rate     `json:"cess_rate,omitzero"` // the compensation cess, on the taxable value
	Serialised  bool     `json:"serialised,omitempty"`
	IMEIs       []string `json:"imeis,omitempty"`  // at most Qty; one per unit once all are entered
	Supply      Supply   `json:"supply,omitempty"` // the catalog's: a 0% line's column in GSTR-1 table 8
}

// Gross returns Qty × UnitPrice.
func (l Line) Gross() Paise { return Paise(l.Qty) * l.UnitPrice }

// Amount returns what the customer pays for the line: Qty × UnitPrice − Discount,
// GST included.
func (l Line) Amount() Paise { return l.Gross() - l.Discount }

// Tax returns the GST in the line's amount by Galla's one rounding rule.
func (l Line) Tax() LineTax { return TaxWithCess(l.Amount(), l.GSTRate, l.Cess) }

// MissingIMEIs returns how many units of a serialised line still need an IMEI (0 for
// a line that is not serialised).
func (l Line) MissingIMEIs() int {
	if !l.Serialised {
		return 0
	}
	n := l.Qty
	for _, s := range l.IMEIs {
		if s != "" {
			n--
		}
	}
	return max(n, 0)
}

func (l Line) clone() Line {
	l.IMEIs = slices.Clone(l.IMEIs)
	return l
}

// LineFor returns a line of qty units of p at its catalog price.
func LineFor(p Product, qty int) Line {
	return Line{
		SKU: p.SKU, Name: p.Name, Brand: p.Brand, ProductCode: p.ProductCode, HSN: p.HSN,
		Qty: qty, Unit: p.Unit, UnitPrice: p.Price, GSTRate: p.GSTRate, Cess: p.Cess, Serialised: p.Serialised, Supply: p.Supply,
	}
}

// Cart is the sale being built at the counter: one line per product, in the order
// the products were first added. It is safe for concurrent use.
type Cart struct {
	catalog *Catalog
	mu      sync.Mutex
	lines   []Line
}

// NewCart returns an empty cart that finds products in catalog.
func NewCart(catalog *Catalog) *Cart { return &Cart{catalog: catalog} }

// Scan adds one unit of the product whose barcode or SKU is code, as a scanner types
// it, and returns the product's line.
func (c *Cart) Scan(code string) (Line, error) { return c.Add(code, 1) }

// Add adds qty units of the product whose barcode or SKU is code and returns its
// line. A product already in the cart gets more units on its line. The error matches
// ErrUnknownProduct or ErrBadQuantity (qty < 1 or a line above MaxQty).
func (c *Cart) Add(code string, qty int) (Line, error) {
	p, ok := c.catalog.Lookup(code)
	if !ok {
		// The code is left out of the error: a card number typed into the scan
		// field must not reach an error's text.
		return Line{}, fmt.Errorf("pos: add: %w", ErrUnknownProduct)
	}
	if qty < 1 || qty > MaxQty {
		return Line{}, fmt.Errorf("pos: add %s: %d units: %w", p.SKU, qty, ErrBadQuantity)
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if i := c.find(p.SKU); i >= 0 {
		l := &c.lines[i]
		if l.Qty+qty > MaxQty {
			return Line{}, fmt.Errorf("pos: add %s: %d units: %w", p.SKU, l.Qty+qty, ErrBadQuantity)
		}
		l.Qty += qty
		return l.clone(), nil
	}
	c.lines = append(c.lines, LineFor(p, qty))
	return c.lines[len(c.lines)-1].clone(), nil
}

func (c *Cart) find(sku string) int {
	return slices.IndexFunc(c.lines, func(l Line) bool { return strings.EqualFold(l.SKU, sku) })
}

func (c *Cart) line(op, sku string) (*Line, error) {
	i := c.find(sku)
	if i < 0 {
		return nil, fmt.Errorf("pos: %s %q: %w", op, printable(sku), ErrNotInCart)
	}
	return &c.lines[i], nil
}

// SetQty sets the quantity of the line of sku (1..MaxQty; use Remove to take a line
// out). IMEIs beyond the new quantity are dropped. A quantity whose line amount would
// fall below the line's discount is refused with ErrDiscountTooLarge: lower the
// discount first.
func (c *Cart) SetQty(sku string, qty int) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	l, err := c.line("set quantity", sku)
	if err != nil {
		return err
	}
	if qty < 1 || qty > MaxQty {
		return fmt.Errorf("pos: set quantity of %s to %d: %w", l.SKU, qty, ErrBadQuantity)
	}
	if Paise(qty)*l.UnitPrice < l.Discount {
		return fmt.Errorf("pos: set quantity of %s to %d: %w", l.SKU, qty, ErrDiscountTooLarge)
	}
	l.Qty = qty
	if len(l.IMEIs) > qty {
		l.IMEIs = l.IMEIs[:qty:qty]
	}
	return nil
}

// Remove takes the line of sku out of the cart.
func (c *Cart) Remove(sku string) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	i := c.find(sku)
	if i < 0 {
		return fmt.Errorf("pos: remove %q: %w", printable(sku), ErrNotInCart)
	}
	c.lines = slices.Delete(c.lines, i, i+1)
	return nil
}

// SetDiscount sets the discount of the line of sku, from zero up to the line's gross
// amount (Qty × UnitPrice).
func (c *Cart) SetDiscount(sku string, d Paise) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	l, err := c.line("set discount", sku)
	if err != nil {
		return err
	}
	switch {
	case d < 0:
		return fmt.Errorf("pos: set discount of %s: %w", l.SKU, ErrBadDiscount)
	case d > l.Gross():
		return fmt.Errorf("pos: set discount of %s to %s: %w", l.SKU, d, ErrDiscountTooLarge)
	}
	l.Discount = d
	return nil
}

// SetIMEI sets the IMEI of unit (0..Qty−1) of the serialised line of sku; an empty
// imei clears it. The IMEI must pass CheckIMEI and not be on another unit of the cart
// (ErrDuplicateIMEI).
func (c *Cart) SetIMEI(sku string, unit int, imei string) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	l, err := c.line("set IMEI", sku)
	if err != nil {
		return err
	}
	if !l.Serialised {
		return fmt.Errorf("pos: set IMEI of %s: %w", l.SKU, ErrNotSerialised)
	}
	if unit < 0 || unit >= l.Qty {
		return fmt.Errorf("pos: set IMEI of %s unit %d: %w", l.SKU, unit+1, ErrTooManyIMEIs)
	}
	if imei != "" {
		if err := CheckIMEI(imei); err != nil {
			return fmt.Errorf("pos: set IMEI of %s: %w", l.SKU, err)
		}
		for _, o := range c.lines {
			for u, s := range o.IMEIs {
				if s == imei && (o.SKU != l.SKU || u != unit) {
					return fmt.Errorf("pos: set IMEI of %s: %w", l.SKU, ErrDuplicateIMEI)
				}
			}
		}
	}
	for len(l.IMEIs) <= unit {
		l.IMEIs = append(l.IMEIs, "")
	}
	l.IMEIs[unit] = imei
	for len(l.IMEIs) > 0 && l.IMEIs[len(l.IMEIs)-1] == "" {
		l.IMEIs = l.IMEIs[:len(l.IMEIs)-1]
	}
	return nil
}

// SetIMEIs replaces the IMEIs of the serialised line of sku, one per unit (fewer
// than Qty leaves the rest to be entered). Each must pass CheckIMEI, and none may be
// repeated in the cart. On error nothing changes.
func (c *Cart) SetIMEIs(sku string, imeis []string) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	l, err := c.line("set IMEIs", sku)
	if err != nil {
		return err
	}
	if !l.Serialised {
		return fmt.Errorf("pos: set IMEIs of %s: %w", l.SKU, ErrNotSerialised)
	}
	if len(imeis) > l.Qty {
		return fmt.Errorf("pos: set IMEIs of %s: %d for %d units: %w", l.SKU, len(imeis), l.Qty, ErrTooManyIMEIs)
	}
	seen := map[string]bool{}
	for _, o := range c.lines {
		if o.SKU != l.SKU {
			for _, s := range o.IMEIs {
				seen[s] = true
			}
		}
	}
	for i, s := range imeis {
		if err := CheckIMEI(s); err != nil {
			return fmt.Errorf("pos: set IMEIs of %s unit %d: %w", l.SKU, i+1, err)
		}
		if seen[s] {
			return fmt.Errorf("pos: set IMEIs of %s unit %d: %w", l.SKU, i+1, ErrDuplicateIMEI)
		}
		seen[s] = true
	}
	l.IMEIs = slices.Clone(imeis)
	return nil
}

// CheckIMEIs returns an error matching ErrIMEIMissing naming the first serialised
// line that still lacks an IMEI for a unit, or nil. Brand EMI offers that make IMEI
// mandatory call it before payment.
func (c *Cart) CheckIMEIs() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, l := range c.lines {
		if n := l.MissingIMEIs(); n > 0 {
			return fmt.Errorf("pos: %s needs %d more: %w", l.SKU, n, ErrIMEIMissing)
		}
	}
	return nil
}

// Lines returns a copy of the cart's lines.
func (c *Cart) Lines() []Line {
	c.mu.Lock()
	defer c.mu.Unlock()
	out := make([]Line, len(c.lines))
	for i, l := range c.lines {
		out[i] = l.clone()
	}
	return out
}

// Len returns the number of lines.
func (c *Cart) Len() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.lines)
}

// Totals adds up the cart by ComputeTotals.
func (c *Cart) Totals() Totals { return ComputeTotals(c.Lines()) }

// Checkout returns a copy of the lines and their totals for a sale, or ErrEmptyCart.
func (c *Cart) Checkout() ([]Line, Totals, error) {
	lines := c.Lines()
	if len(lines) == 0 {
		return nil, Totals{}, fmt.Errorf("pos: checkout: %w", ErrEmptyCart)
	}
	return lines, ComputeTotals(lines), nil
}

// Clear empties the cart.
func (c *Cart) Clear() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.lines = nil
}
