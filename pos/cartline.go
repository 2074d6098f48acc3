package pos

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
	IGST     Paise // the GST as IGST, were the supply to another state (Totals.Interstate)
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
