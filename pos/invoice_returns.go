package pos

import "slices"

// InvoiceReturns is what was given back of a sale's invoice, line by line,
// and what a new return of it is worth (the rules at the top of return.go):
// the units and IMEIs returned so far, at this counter and at others.
type InvoiceReturns struct{ o *Order }

// Returns is o's invoice as returns read it.
func (o *Order) Returns() InvoiceReturns { return InvoiceReturns{o} }

// eachReturned calls f with every item returned of line i: those of the
// invoice's returns at other counters (Origin) and those of o's refunds that
// did not fail.
func (v InvoiceReturns) eachReturned(i int, f func(ReturnItem)) {
	if v.o.Origin != nil {
		for _, it := range v.o.Origin.Returned {
			if it.Line == i {
				f(it)
			}
		}
	}
	for _, r := range v.o.Refunds {
		if r.Status == RefundFailed {
			continue
		}
		for _, it := range r.Items {
			if it.Line == i {
				f(it)
			}
		}
	}
}

// Returned returns how many units of line i were returned by refunds that did
// not fail.
func (v InvoiceReturns) Returned(i int) int {
	n := 0
	v.eachReturned(i, func(it ReturnItem) { n += it.Qty })
	return n
}

// returnedIMEIs returns the IMEIs of line i already returned.
func (v InvoiceReturns) returnedIMEIs(i int) []string {
	var out []string
	v.eachReturned(i, func(it ReturnItem) { out = append(out, it.IMEIs...) })
	return out
}

// returnedIMEI reports whether the unit imei came back from the invoice, by
// the rule the stock book and the store read (returnedIMEIs, StockEffectOf):
// a return that did not fail, here or at another counter. A phone returned
// while the sale's other goods were kept may be sold again.
func (v InvoiceReturns) returnedIMEI(imei string) bool {
	for i := range v.o.Lines {
		if slices.Contains(v.returnedIMEIs(i), imei) {
			return true
		}
	}
	return false
}

// returnItem builds the item for k more units of line i.
func (v InvoiceReturns) returnItem(i, k int, imeis []string) ReturnItem {
	l := v.o.Lines[i]
	r := v.Returned(i)
	before, after := TaxOf(unitsAmount(l, r), l.GSTRate), TaxOf(unitsAmount(l, r+k), l.GSTRate)
	return ReturnItem{Line: i, SKU: l.SKU, Qty: k, Amount: after.Amount - before.Amount, Taxable: after.Taxable - before.Taxable,
		Tax: after.Tax - before.Tax, CGST: after.CGST - before.CGST, Rate: l.GSTRate, IMEIs: imeis}
}

// ReturnItems turns the goods asked back into the items of a return of the invoice,
// checking that each line was sold and is not returned beyond its units, and that
// a serialised line names the IMEIs of the units that come back.
func (v InvoiceReturns) ReturnItems(ask []ReturnQty) ([]ReturnItem, error) {
	var items []ReturnItem
	for _, a := range ask {
		i := slices.IndexFunc(v.o.Lines, func(l Line) bool { return l.SKU == a.SKU })
		if i < 0 {
			return nil, Errorf("%s was not sold on %s; check the item code.", a.SKU, v.o.ID)
		}
		if slices.ContainsFunc(items, func(it ReturnItem) bool { return it.Line == i }) {
			return nil, Errorf("%s is named twice; give its quantity once.", a.SKU)
		}
		l := v.o.Lines[i]
		left := l.Qty - v.Returned(i)
		if a.Qty <= 0 || a.Qty > left {
			return nil, wrapf(ErrNotRefundable, "%s: %d sold, %d returned already, so at most %d can come back (not %d).",
				a.SKU, l.Qty, l.Qty-left, left, a.Qty)
		}
		imeis := a.IMEIs
		if l.Serialised && len(l.IMEIs) > 0 {
			if len(imeis) == 0 && a.Qty == left {
				imeis = slices.DeleteFunc(slices.Clone(l.IMEIs), func(s string) bool { return slices.Contains(v.returnedIMEIs(i), s) })
			}
			if len(imeis) != a.Qty {
				return nil, Errorf("%s is serialised: name the IMEI of each of the %d units that come back.", a.SKU, a.Qty)
			}
			for _, m := range imeis {
				if !slices.Contains(l.IMEIs, m) || slices.Contains(v.returnedIMEIs(i), m) {
					return nil, wrapf(ErrNotRefundable, "IMEI %s was not sold on this invoice or was returned already.", m)
				}
			}
		}
		items = append(items, v.returnItem(i, a.Qty, imeis))
	}
	return items, nil
}

// AdjustmentItems splits a price adjustment of amount, without goods, over the
// invoice's lines in proportion to the money of their units not returned (the last such
// line takes the rest), so that the credit note reverses tax at each line's rate.
func (v InvoiceReturns) AdjustmentItems(amount Paise) []ReturnItem {
	kept := make([]Paise, len(v.o.Lines))
	total, last := Paise(0), -1
	for i, l := range v.o.Lines {
		kept[i] = l.Amount() - unitsAmount(l, v.Returned(i))
		total += kept[i]
		if kept[i] > 0 {
			last = i
		}
	}
	if total <= 0 || amount <= 0 {
		return nil
	}
	var items []ReturnItem
	left := amount
	for i, l := range v.o.Lines {
		share := Paise(int64(amount) * int64(kept[i]) / int64(total))
		if i == last {
			share = left
		}
		left -= share
		if share == 0 {
			continue
		}
		t := TaxOf(share, l.GSTRate)
		items = append(items, ReturnItem{Line: i, SKU: l.SKU, Amount: share, Taxable: t.Taxable, Tax: t.Tax, CGST: t.CGST, Rate: l.GSTRate})
	}
	return items
}
