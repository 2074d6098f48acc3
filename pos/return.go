package pos

import (
	"fmt"
	"slices"
)

// Returns (DESIGN.md section 9, issue 13 item 8): goods or money given back after
// the invoice. Every return is a refund of the sale's order (refund.intent, then
// refund.done) and issues one CREDIT NOTE in the C series when it is done. A return
// names the goods (ReturnItem, one per sale line and quantity) or, without goods,
// only an amount (a price adjustment), and where the money goes (RefundTo).
//
// The rules, checked by the order's state machine so that the journal refuses what
// breaks them:
//
//   - A line's units are returned at most once: the units returned of a line,
//     over every refund that did not fail, never exceed the units sold.
//   - The money of k more units of a line, after r were returned already, is
//     ⌊A×(r+k)/Q⌋ − ⌊A×r/Q⌋ for a line of Q units that cost A in all (GST
//     included, after its discount): the returns of a line add up to its amount
//     exactly, and the last unit takes the odd paisa.
//   - The taxable value, the tax and its CGST half reversed by those units are
//     likewise the differences of TaxOf (the rule of the sale's document) of the
//     money of the first r+k and the first r units: the returns of a line
//     reverse, added up, exactly the taxable value and tax the invoice charged on
//     it, never a paisa more. A price adjustment without goods reverses TaxOf of
//     its money at the line's rate.
//   - Nothing beyond what was paid: a refund never exceeds what is left of the
//     captured amount (Order.Refundable), and goes back the way the sale was paid
//     (card through the service, cash) or as a credit note to spend: where it
//     may go and whether it moves cash is one rule (refundrule.go).

// RefundTo is where the money of a return goes.
type RefundTo string

// The destinations of a return.
const (
	RefundToCard RefundTo = "card" // to the card, through the payment service
	RefundToCash RefundTo = "cash" // from the drawer
	RefundToNote RefundTo = "note" // a credit note the customer spends later
)

// ParseRefundTo reads a destination as typed ("card", "cash", "note").
func ParseRefundTo(s string) (RefundTo, error) {
	if to := RefundTo(s); to.known() {
		return to, nil
	}
	return "", Errorf("Say where the money goes back: card, cash or note (not %q).", s)
}

// ReturnItem is what a return gives back of one line of the sale: Qty units (0 for
// a price adjustment without goods), the money and its tax split.
type ReturnItem struct {
	Line    int      `json:"line"` // the index of the sale's line
	SKU     string   `json:"sku"`
	Qty     int      `json:"qty"`
	Amount  Paise    `json:"amount"`  // GST-inclusive
	Taxable Paise    `json:"taxable"` // the taxable value reversed
	Tax     Paise    `json:"tax"`     // the GST reversed
	CGST    Paise    `json:"cgst"`    // its central half; SGST is Tax − CGST
	Rate    Rate     `json:"rate"`    // the line's GST rate
	IMEIs   []string `json:"imeis,omitempty"`
}

// ReturnQty asks for Qty units of the sale's line with SKU back (returned by the
// customer), and names the serialised units by IMEI when the line has them.
type ReturnQty struct {
	SKU   string
	Qty   int
	IMEIs []string
}

// unitsAmount is the money of the first n units of line l: ⌊A×n/Q⌋.
func unitsAmount(l Line, n int) Paise {
	if l.Qty <= 0 {
		return 0
	}
	return Paise(int64(l.Amount()) * int64(n) / int64(l.Qty))
}

// brandIMEIs reports whether o is a brand-EMI sale whose IMEIs the service
// blocked for it.
func brandIMEIs(o *Order) bool { return o.EMI != nil && o.EMI.IMEIRequired && o.IMEIsValidated }

// ItemsAmount is the money of items.
func ItemsAmount(items []ReturnItem) Paise {
	var s Paise
	for _, it := range items {
		s += it.Amount
	}
	return s
}

// checkReturn is the state machine's check of a refund.intent's items and
// destination against o (see the rules above).
func (o *Order) checkReturn(r *RefundEvent) error {
	split := paidApart(o)
	switch {
	case split && r.To == "":
		return fmt.Errorf("%w: a split sale's refund names where the money goes", ErrBadEvent)
	case split && r.To == RefundToCard && r.Tender == "":
		return fmt.Errorf("%w: a split sale's card refund names its tender", ErrBadEvent)
	case split && r.To != RefundToCard && r.Tender != "":
		return fmt.Errorf("%w: only a card refund goes through a tender", ErrBadEvent)
	case !split && r.Tender != "":
		return fmt.Errorf("%w: a %s sale has no tenders", ErrBadEvent, o.Tender)
	}
	if r.To != "" && !r.To.known() {
		return fmt.Errorf("%w: refund to %q", ErrBadEvent, r.To)
	}
	if err := CheckRefundTo(o, r.To); err != nil {
		return err
	}
	if len(r.Items) == 0 {
		return nil
	}
	seen := map[int]bool{}
	var sum Paise
	for _, it := range r.Items {
		if it.Line < 0 || it.Line >= len(o.Lines) || o.Lines[it.Line].SKU != it.SKU || it.Qty < 0 {
			return fmt.Errorf("%w: item %d %q is not a line of the sale", ErrBadEvent, it.Line, it.SKU)
		}
		l := o.Lines[it.Line]
		if it.Qty > 0 {
			if seen[it.Line] {
				return fmt.Errorf("%w: line %d twice", ErrBadEvent, it.Line)
			}
			seen[it.Line] = true
			if o.Returns().Returned(it.Line)+it.Qty > l.Qty {
				return fmt.Errorf("%w: %s: %d of %d units returned already, %d more asked", ErrNotRefundable, it.SKU, o.Returns().Returned(it.Line), l.Qty, it.Qty)
			}
			want := o.Returns().returnItem(it.Line, it.Qty, it.IMEIs)
			if it.Amount != want.Amount || it.Taxable != want.Taxable || it.Tax != want.Tax || it.CGST != want.CGST || it.Rate != l.GSTRate {
				return fmt.Errorf("%w: %s: %s (tax %s) for %d units; they cost %s (tax %s)", ErrBadEvent, it.SKU, it.Amount, it.Tax, it.Qty, want.Amount, want.Tax)
			}
			for _, m := range it.IMEIs {
				if !slices.Contains(l.IMEIs, m) || slices.Contains(o.Returns().returnedIMEIs(it.Line), m) {
					return fmt.Errorf("%w: IMEI %s not sold or returned already", ErrNotRefundable, m)
				}
			}
		}
		if t := TaxOf(it.Amount, l.GSTRate); it.Qty == 0 && (it.Taxable != t.Taxable || it.Tax != t.Tax || it.CGST != t.CGST || it.Rate != l.GSTRate) {
			return fmt.Errorf("%w: %s: tax split of %s", ErrBadEvent, it.SKU, it.Amount)
		}
		sum += it.Amount
	}
	if sum != r.Amount {
		return fmt.Errorf("%w: items make %s, the refund is %s", ErrBadEvent, sum, r.Amount)
	}
	return nil
}

// tax is the item's reversal as a LineTax.
func (it ReturnItem) tax() LineTax {
	return LineTax{Amount: it.Amount, Taxable: it.Taxable, Tax: it.Tax, CGST: it.CGST, SGST: it.Tax - it.CGST}
}
