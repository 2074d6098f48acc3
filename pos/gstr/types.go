package gstr

import (
	"fmt"
	"strconv"
	"strings"
	"time"
)

// Paise is an amount of money in paise (1/100 rupee). In the JSON it is written
// as rupees with two decimals, a number: 1234.50.
type Paise int64

// MarshalJSON writes p as a JSON number of rupees with exactly two decimals.
func (p Paise) MarshalJSON() ([]byte, error) { return []byte(p.Rupees()), nil }

// Rupees formats p as rupees with two decimals and no grouping: "-1234.50".
func (p Paise) Rupees() string {
	sign := ""
	v := int64(p)
	if v < 0 {
		sign, v = "-", -v
	}
	return fmt.Sprintf("%s%d.%02d", sign, v/100, v%100)
}

// Rate is a GST rate in hundredths of a percent: 1800 is 18%, 25 is 0.25%.
type Rate int

// MarshalJSON writes r as a JSON number of percent: 18, 0.25, 1.5.
func (r Rate) MarshalJSON() ([]byte, error) { return []byte(r.String()), nil }

// String formats r as percent without trailing zeros: "18", "0.25", "1.5".
func (r Rate) String() string {
	s := strconv.Itoa(int(r) / 100)
	if f := int(r) % 100; f != 0 {
		if f < 0 {
			f = -f
		}
		s += strings.TrimRight(fmt.Sprintf(".%02d", f), "0")
	}
	return s
}

// Kind is what a document is.
type Kind string

// The kinds of document a counter issues (DESIGN.md section 9).
const (
	Invoice      Kind = "invoice"        // a tax invoice
	BillOfSupply Kind = "bill-of-supply" // exempt goods only, or a composition shop: no GST charged
	CreditNote   Kind = "credit-note"    // a return, refund or price adjustment after an invoice
)

// Document is one sales document as GSTR-1 and the accountant's CSV need it.
// A credit note's lines carry positive values: the amounts it reverses.
type Document struct {
	Kind      Kind
	Number    string // "T1/2627/000123"
	Date      time.Time
	Cancelled bool // a voided document: it keeps its number, counts in doc_issue, and nothing else

	// Of a credit note: the invoice it reverses, and that invoice's value (which
	// decides whether a credit note to an unregistered buyer of an inter-state
	// invoice is reported in cdnur as B2CL or netted in b2cs).
	OriginalNumber string
	OriginalDate   time.Time
	OriginalValue  Paise

	BuyerGSTIN string // "" for an unregistered buyer
	BuyerName  string

	// PlaceOfSupply is the GST state code of the place of supply ("27"); the
	// shop's state unless the buyer's address or the delivery is in another.
	PlaceOfSupply string
	ShopState     string // the GST state code of the shop

	Lines    []Line
	RoundOff Paise // the document's round-off to the rupee, if any

	Tender  string // how it was paid or refunded: "cash", "card", "emi VISA 1111"
	Cashier string // who issued it

	// Seller is the shop's registration when it issued the document; nil
	// where the caller does not say, which GSTR-1 reads as the return's own
	// GSTIN.
	Seller *Seller
}

// Seller is the registration a shop issued a document under: its GSTIN ("" while
// it had none) and whether it was under the composition scheme. GSTR-1 is filed
// per GSTIN by a regular taxpayer, so a document belongs in the GSTR-1 of the
// GSTIN it was issued under, issued outside the composition scheme (Files); one
// issued while the shop had no GSTIN belongs in none.
type Seller struct {
	GSTIN       string
	Composition bool
}

// Files reports whether a document issued under s belongs in the GSTR-1 of gstin.
func (s Seller) Files(gstin string) bool { return s.GSTIN != "" && s.GSTIN == gstin && !s.Composition }

// Under reports whether d belongs in the GSTR-1 of gstin: it was issued under
// that GSTIN outside the composition scheme, or it does not say (Seller nil).
func (d Document) Under(gstin string) bool { return d.Seller == nil || d.Seller.Files(gstin) }

// Line is one line of a document: the goods, their HSN and the tax on them.
// Taxable + IGST + CGST + SGST + Cess is what the buyer pays for the line.
type Line struct {
	Description string
	HSN         string
	HSNDesc     string // the HSN master's description of HSN, "" when it has none
	UQC         string // the unit quantity code of the portal ("NOS"); "" is NOS
	// Supply is a 0% line's column in table 8: "nil" (and a 0% line that
	// does not say), "exempt" or "non-gst"; the same on every document.
	Supply  string
	Qty     int // 0 for a credit note of value only (a price adjustment)
	Rate    Rate
	Taxable Paise
	IGST    Paise
	CGST    Paise
	SGST    Paise
	Cess    Paise
	IMEIs   []string
}

// Total is what the buyer pays for the line: its taxable value and every tax.
func (l Line) Total() Paise { return l.Taxable + l.IGST + l.CGST + l.SGST + l.Cess }

// Value is the document's value: its lines' totals and its round-off.
func (d Document) Value() Paise {
	v := d.RoundOff
	for _, l := range d.Lines {
		v += l.Total()
	}
	return v
}

// Registered reports whether the buyer gave a GSTIN (a B2B document).
func (d Document) Registered() bool { return d.BuyerGSTIN != "" }

// InterState reports whether the place of supply is outside the shop's state
// (IGST applies).
func (d Document) InterState() bool {
	return d.PlaceOfSupply != "" && d.ShopState != "" && d.PlaceOfSupply != d.ShopState
}

// Month is a return period: a calendar month.
type Month struct {
	Year  int
	Month time.Month
}

// ParseMonth reads a month written YYYY-MM ("2026-07").
func ParseMonth(s string) (Month, error) {
	t, err := time.Parse("2006-01", strings.TrimSpace(s))
	if err != nil {
		return Month{}, fmt.Errorf("gstr: month %q is not YYYY-MM", s)
	}
	return Month{Year: t.Year(), Month: t.Month()}, nil
}

// String writes m as YYYY-MM.
func (m Month) String() string { return fmt.Sprintf("%04d-%02d", m.Year, int(m.Month)) }

// FP is the portal's return period: MMYYYY ("072026").
func (m Month) FP() string { return fmt.Sprintf("%02d%04d", int(m.Month), m.Year) }

// Contains reports whether t's calendar date (in t's own location) falls in m.
func (m Month) Contains(t time.Time) bool { return t.Year() == m.Year && t.Month() == m.Month }

// Days returns the first and the last day of m, at midnight in loc.
func (m Month) Days(loc *time.Location) (first, last time.Time) {
	first = time.Date(m.Year, m.Month, 1, 0, 0, 0, 0, loc)
	return first, first.AddDate(0, 1, -1)
}

// before reports whether m is before the month y-mo.
func (m Month) before(y int, mo time.Month) bool {
	return m.Year < y || m.Year == y && m.Month < mo
}
