package pos

// EMIFigures are the figures of an EMI plan as the customer is told them, the
// one computation that the offers screen, the sale screen's "EMI from" hint,
// the receipt and the command line all show (DESIGN.md section 2).
//
// The bank lends the price (Principal) and charges its interest on it at the
// plan's rate (Interest, the payment service's interest_pay_to_bank). On a
// no-cost or low-cost plan the brand or the shop pays the bank all or part of
// that interest (Discount, the service's total_offerred_discount_cashback_amount
// given as an upfront discount): the customer repays the rest, Total, in Months
// instalments. So a no-cost plan's instalments add up to the price and its
// Discount equals its Interest, and a standard plan's are the bank's own
// instalment with interest (contract section 5).
//
// Total does not always divide by Months: every instalment but the last is
// Total ÷ Months rounded down to the paisa, and the last takes the paise left
// over, so that Instalment × (Months − 1) + Last == Total exactly.
type EMIFigures struct {
	Months     int
	Principal  Paise // the amount financed: the price, or the part of a split sale
	Interest   Paise // the bank's interest over the tenure at the plan's rate
	Discount   Paise // what the brand or the shop pays of that interest
	Total      Paise // what the customer pays in all: Principal + Interest − Discount
	Instalment Paise // each monthly instalment but the last
	Last       Paise // the last instalment: Instalment and the paise left over
	// NoCost reports a no-cost plan whose discount pays all the interest: the
	// customer pays the price and nothing more.
	NoCost bool
}

// Figures computes the plan's figures for the customer (EMIFigures) from what
// the payment service said of it: the loan, the interest and the discount. A
// plan journaled without its loan takes its authorised amount, else its total
// payable less the interest it was given back.
func (p EMIPlan) Figures() EMIFigures {
	f := EMIFigures{Months: p.TenureMonths, Principal: p.Loan, Interest: max(p.Interest, 0), Discount: max(p.Benefit, 0)}
	if f.Principal <= 0 {
		f.Principal = p.AuthAmount
	}
	if f.Principal <= 0 {
		f.Principal = p.TotalPayable + f.Discount - f.Interest
	}
	// A discount beyond the interest would be a price cut the service does not
	// make; the customer never repays less than the amount financed.
	f.Discount = min(f.Discount, f.Interest)
	f.Total = f.Principal + f.Interest - f.Discount
	f.NoCost = p.Subvention == SubventionNoCost && f.Discount == f.Interest
	if f.Months <= 0 {
		f.Instalment, f.Last = f.Total, f.Total
		return f
	}
	n := Paise(f.Months)
	f.Instalment = f.Total / n
	f.Last = f.Total - f.Instalment*(n-1)
	return f
}
