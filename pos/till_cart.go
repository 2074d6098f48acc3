package pos

import (
	"context"
	"fmt"
	"strconv"
	"strings"
)

// CartLine is one cart line as a front end holds it: the product, how many, and
// the discount; pos prices it.
type CartLine struct {
	Product    Product
	Qty        int
	Discount   Paise  // off the whole line, GST included
	ApprovedBy string // the manager who approved a discount above the limit (by PIN, through Authorize)
}

// UnitIMEI is one serialised unit's IMEI, given for the product it belongs to.
type UnitIMEI struct {
	ProductCode string
	IMEI        string
}

// Bill is a cart priced by pos.
type Bill struct {
	Lines    []Paise // each line's amount after discount, GST included
	Gross    Paise   // before discounts
	Discount Paise
	Taxable  Paise
	CGST     Paise
	SGST     Paise
	Total    Paise
}

// AddToCart puts one of p in the cart: one more on its line when the product is
// there already without a discount, else a new line. It returns the lines and the
// index of the line that changed.
func AddToCart(lines []CartLine, p Product) ([]CartLine, int) {
	for i := range lines {
		if lines[i].Product.SKU == p.SKU && lines[i].Discount == 0 {
			lines[i].Qty++
			return lines, i
		}
	}
	return append(lines, CartLine{Product: p, Qty: 1}), len(lines)
}

// SaleLines turns a front end's lines into the sale's, giving each serialised
// line the IMEIs of its product in the order given, one per unit.
func SaleLines(lines []CartLine, imeis []UnitIMEI) []Line {
	out := make([]Line, 0, len(lines))
	used := make([]bool, len(imeis))
	for _, l := range lines {
		pl := LineFor(l.Product, l.Qty)
		pl.Discount, pl.ApprovedBy = l.Discount, l.ApprovedBy
		for i, m := range imeis {
			if !used[i] && m.ProductCode == l.Product.ProductCode && len(pl.IMEIs) < pl.Qty {
				pl.IMEIs = append(pl.IMEIs, m.IMEI)
				used[i] = true
			}
		}
		out = append(out, pl)
	}
	return out
}

// ParseItems reads the command line's cart, "SKU[:QTY],...", and the IMEIs of its
// serialised units in cart order, checked as the cart checks them (codes,
// quantities, IMEI digits, repeats).
func (t *Till) ParseItems(ctx context.Context, items string, imeis []string) ([]CartLine, []UnitIMEI, error) {
	cat, err := t.Catalog(ctx)
	if err != nil {
		return nil, nil, err
	}
	cart := NewCart(cat)
	for it := range strings.SplitSeq(items, ",") {
		it = strings.TrimSpace(it)
		if it == "" {
			continue
		}
		code, qtyText, hasQty := strings.Cut(it, ":")
		qty := 1
		if hasQty {
			n, err := strconv.Atoi(qtyText)
			if err != nil {
				return nil, nil, fmt.Errorf("quantity %q: %w", qtyText, ErrBadQuantity)
			}
			qty = n
		}
		if _, err := cart.Add(code, qty); err != nil {
			return nil, nil, err
		}
	}
	if cart.Len() == 0 {
		return nil, nil, ErrEmptyCart
	}
	var units []UnitIMEI
	for _, l := range cart.Lines() {
		if !l.Serialised || len(imeis) == 0 {
			continue
		}
		n := min(l.Qty, len(imeis))
		if err := cart.SetIMEIs(l.SKU, imeis[:n]); err != nil {
			return nil, nil, err
		}
		for _, s := range imeis[:n] {
			units = append(units, UnitIMEI{ProductCode: l.ProductCode, IMEI: s})
		}
		imeis = imeis[n:]
	}
	if len(imeis) > 0 {
		return nil, nil, ErrTooManyIMEIs
	}
	var out []CartLine
	for _, l := range cart.Lines() {
		p, _ := cat.Lookup(l.SKU)
		out = append(out, CartLine{Product: p, Qty: l.Qty})
	}
	return out, units, nil
}

// checkDiscounts applies the cart's bounds and the manager's discount policy to
// each line. An approval counts only from a manager whose PIN Authorize checked;
// the name a screen puts on a line proves nothing by itself.
func (t *Till) checkDiscounts(pl []Line) error {
	t.mu.Lock()
	defer t.mu.Unlock()
	pol := t.discountPolicy()
	for _, l := range pl {
		if l.Discount < 0 {
			return ErrBadDiscount
		}
		if l.Discount > l.Gross() {
			return ErrDiscountTooLarge
		}
		var by *Staff
		if m, ok := t.approvers[l.ApprovedBy]; ok && l.ApprovedBy != "" {
			by = &m
		}
		if err := pol.Check(l, l.Discount, by); err != nil {
			return err
		}
	}
	return nil
}

// Price totals the lines with their GST; it refuses a discount above the limit
// that no manager approved with an error matching ErrDiscountNeedsManager.
func (t *Till) Price(lines []CartLine) (Bill, error) {
	var b Bill
	pl := SaleLines(lines, nil)
	if err := t.checkDiscounts(pl); err != nil {
		return Bill{}, err
	}
	for _, l := range pl {
		b.Lines = append(b.Lines, l.Amount())
	}
	tt := ComputeTotals(pl)
	b.Gross, b.Discount, b.Taxable, b.CGST, b.SGST, b.Total = tt.Gross, tt.Discount, tt.Taxable, tt.CGST, tt.SGST, tt.Total
	return b, nil
}

// DiscountLimit is the largest line discount a cashier may give alone, as a
// manager set it in the settings; 0 means every discount needs a manager.
func (t *Till) DiscountLimit(CartLine) Paise {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.discountPolicy().Limit
}

// discountPolicy is the shop's discount policy, with the limit of the cashier
// signed in here when a manager set them one. t.mu is held.
func (t *Till) discountPolicy() DiscountPolicy {
	pol := t.discount
	if c := t.signedCashier(); c != nil {
		pol.Limit = c.Limits.Discount
	}
	return pol
}

// checkSale is what a new sale must pass before any payment: the IMEI of every
// serialised unit (CheckSerials) and, for cash, an open shift where shifts are
// kept (CashNeedsShift).
func (t *Till) checkSale(ctx context.Context, lines []Line, tender TenderKind) error {
	if err := t.eng.journalReady(ctx); err != nil {
		return err // a damaged or unchecked journal says so first
	}
	if err := t.CheckSerials(ctx, lines, ""); err != nil {
		return err
	}
	if tender == TenderCash {
		return t.CashNeedsShift(ctx)
	}
	return nil
}
