package pos

import "slices"

// GST in Galla: prices include GST, and every screen, receipt, journal entry and
// report derives the tax from GST-inclusive amounts with this one rule, per line:
//
//	amount  = qty × unit price − line discount         (what the customer pays for the line)
//	taxable = ⌊(amount × 100 + (100+rate)/2) / (100+rate)⌋   (amount × 100/(100+rate), rounded half up to the paisa)
//	tax     = amount − taxable
//	CGST    = ⌊tax / 2⌋                                (rounded down to the paisa)
//	SGST    = tax − CGST                               (so SGST takes the odd paisa)
//
// Sums (per rate and for the cart) add up the lines' values, never recompute from
// sums, so that for every line, every rate and the cart:
// taxable + tax == amount and CGST + SGST == tax, exactly. A counter sale is within
// one state, so the tax is always split as CGST and SGST (no IGST).

// LineTax is the GST contained in one GST-inclusive amount.
type LineTax struct {
	Amount  Paise `json:"amount"`  // GST-inclusive
	Taxable Paise `json:"taxable"` // the value before GST
	Tax     Paise `json:"tax"`     // Amount − Taxable
	CGST    Paise `json:"cgst"`    // ⌊Tax/2⌋
	SGST    Paise `json:"sgst"`    // Tax − CGST
}

// TaxOf splits a GST-inclusive amount at rate percent by Galla's one rounding rule
// (see the package's tax.go): taxable rounded half up to the paisa, CGST rounded
// down, SGST the rest. A negative amount (a refund) is split as the negation of its
// absolute value's split.
func TaxOf(amount Paise, rate int) LineTax {
	if amount < 0 {
		t := TaxOf(-amount, rate)
		return LineTax{Amount: amount, Taxable: -t.Taxable, Tax: -t.Tax, CGST: -t.CGST, SGST: -t.SGST}
	}
	if rate < 0 {
		rate = 0
	}
	d := int64(100 + rate)
	taxable := Paise((int64(amount)*100 + d/2) / d)
	tax := amount - taxable
	cgst := tax / 2
	return LineTax{Amount: amount, Taxable: taxable, Tax: tax, CGST: cgst, SGST: tax - cgst}
}

// RateTotal is the sum of the lines taxed at one GST rate.
type RateTotal struct {
	Rate    int   `json:"rate"`    // percent
	Amount  Paise `json:"amount"`  // GST-inclusive, after discounts
	Taxable Paise `json:"taxable"` //
	Tax     Paise `json:"tax"`     // CGST + SGST
	CGST    Paise `json:"cgst"`
	SGST    Paise `json:"sgst"`
}

// Totals are a cart's money. Gross − Discount == Total == Taxable + Tax, and
// CGST + SGST == Tax, exactly; ByRate lists the rates present, lowest first, and its
// entries add up to the totals.
type Totals struct {
	Items    int         `json:"items"`    // units: the sum of the quantities
	Gross    Paise       `json:"gross"`    // Σ qty × unit price
	Discount Paise       `json:"discount"` // Σ line discounts
	Total    Paise       `json:"total"`    // what the customer pays, GST included
	Taxable  Paise       `json:"taxable"`
	Tax      Paise       `json:"tax"`
	CGST     Paise       `json:"cgst"`
	SGST     Paise       `json:"sgst"`
	ByRate   []RateTotal `json:"by_rate"`
}

// ComputeTotals adds up lines by Galla's one GST rule (see LineTax). The engine,
// receipts and reports call it on journaled lines and get the cart's numbers.
func ComputeTotals(lines []Line) Totals {
	var t Totals
	for _, l := range lines {
		lt := TaxOf(l.Amount(), l.GSTRate)
		t.Items += l.Qty
		t.Gross += l.Gross()
		t.Discount += l.Discount
		t.Total += lt.Amount
		t.Taxable += lt.Taxable
		t.Tax += lt.Tax
		t.CGST += lt.CGST
		t.SGST += lt.SGST
		i := slices.IndexFunc(t.ByRate, func(r RateTotal) bool { return r.Rate == l.GSTRate })
		if i < 0 {
			t.ByRate = append(t.ByRate, RateTotal{Rate: l.GSTRate})
			i = len(t.ByRate) - 1
		}
		r := &t.ByRate[i]
		r.Amount += lt.Amount
		r.Taxable += lt.Taxable
		r.Tax += lt.Tax
		r.CGST += lt.CGST
		r.SGST += lt.SGST
	}
	slices.SortFunc(t.ByRate, func(a, b RateTotal) int { return a.Rate - b.Rate })
	return t
}
