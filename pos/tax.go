package pos

import (
	"bytes"
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strconv"
	"strings"
)

// GST in Galla: prices include GST (and cess, where the catalog sets one), and every
// screen, document, journal entry and report derives the tax from GST-inclusive
// amounts with this one rule, per line. Rates are in basis points (hundredths of a
// percent: 18% is 1800, 0.25% is 25), so every step is integer arithmetic:
//
//	amount  = qty × unit price − line discount        (what the customer pays for the line)
//	d       = 10000 + rate + cess                      (both in basis points)
//	taxable = ⌊(amount × 10000 + ⌊d/2⌋) / d⌋           (amount × 10000/d, rounded half up to the paisa)
//	cess    = ⌊(taxable × cess + 5000) / 10000⌋        (the cess on the taxable value, half up)
//	tax     = amount − taxable − cess                  (the GST)
//	CGST    = ⌊tax / 2⌋                                (rounded down to the paisa)
//	SGST    = tax − CGST                               (so SGST takes the odd paisa)
//	IGST    = tax                                      (a supply to another state: Interstate)
//
// A GST-inclusive price with cess is thus split as amount / (1 + rate + cess): the
// cess is levied on the taxable value, like the GST, and never on the GST.
//
// Sums (per rate, per HSN and for the cart) add up the lines' values, never
// recompute from sums, so that for every line, every rate and the cart:
// taxable + tax + cess == amount and CGST + SGST + IGST == tax, exactly.
//
// Whether the tax is CGST + SGST or IGST depends on the place of supply
// (PlaceOfSupply): ComputeTotals splits within the state, as a counter sale is by
// default; Totals.Interstate turns the split into IGST.

// Rate is a tax rate in basis points (hundredths of a percent): Percent(18) is 18%,
// RateBP(25) is 0.25%. The zero Rate is 0%. It is a struct so that a bare number
// (is 18 eighteen percent or eighteen basis points?) does not compile.
//
// Its JSON is a decimal number of percent: 18, 0.25, 1.5. It reads the same, so a
// journal written when rates were whole percents ("gst_rate": 18) decodes to the
// same rates.
type Rate struct{ bp int32 }

// Percent returns a rate of p percent.
func Percent(p int) Rate { return Rate{bp: int32(p * 100)} }

// RateBP returns a rate of bp basis points (hundredths of a percent).
func RateBP(bp int) Rate { return Rate{bp: int32(bp)} }

// BP returns the rate in basis points: 1800 for 18%.
func (r Rate) BP() int { return int(r.bp) }

// IsZero reports whether the rate is 0%.
func (r Rate) IsZero() bool { return r.bp == 0 }

// Compare orders rates, lowest first.
func (r Rate) Compare(o Rate) int { return cmp.Compare(r.bp, o.bp) }

// Decimal writes the rate as a decimal number of percent without trailing zeros:
// "18", "0.25", "1.5".
func (r Rate) Decimal() string {
	bp := int64(r.bp)
	sign := ""
	if bp < 0 {
		sign, bp = "-", -bp
	}
	s := sign + strconv.FormatInt(bp/100, 10)
	if f := bp % 100; f != 0 {
		s += "." + strings.TrimRight(fmt.Sprintf("%02d", f), "0")
	}
	return s
}

// String writes the rate with a percent sign: "18%", "0.25%".
func (r Rate) String() string { return r.Decimal() + "%" }

// ErrBadRate is returned by ParseRate for text that is not a rate.
var ErrBadRate = errors.New("a rate must be a number of percent with at most two decimals, such as 18 or 0.25")

// ParseRate reads a rate written as percent: "18", "0.25", "1.5", "18%". At most two
// decimals; negative rates and rates above 1000% are refused.
func ParseRate(s string) (Rate, error) {
	s = strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(s), "%"))
	whole, frac, dot := strings.Cut(s, ".")
	if whole == "" || len(whole) > 4 || !allDigits(whole) || (dot && (frac == "" || len(frac) > 2 || !allDigits(frac))) {
		return Rate{}, ErrBadRate
	}
	w, _ := strconv.Atoi(whole)
	bp := w * 100
	if dot {
		f, _ := strconv.Atoi(frac)
		if len(frac) == 1 {
			f *= 10
		}
		bp += f
	}
	if bp > 100000 {
		return Rate{}, ErrBadRate
	}
	return RateBP(bp), nil
}

// MarshalJSON writes the rate as a decimal number of percent: 18, 0.25.
func (r Rate) MarshalJSON() ([]byte, error) { return []byte(r.Decimal()), nil }

// UnmarshalJSON reads a number of percent (18, 0.25); null leaves the rate as it is.
func (r *Rate) UnmarshalJSON(data []byte) error {
	data = bytes.TrimSpace(data)
	if string(data) == "null" {
		return nil
	}
	if len(data) > 0 && data[0] == '"' {
		return &json.UnmarshalTypeError{Value: "string", Type: reflect.TypeFor[Rate]()}
	}
	var n json.Number
	if err := json.Unmarshal(data, &n); err != nil {
		return fmt.Errorf("pos: rate %s: %w", data, ErrBadRate)
	}
	v, err := ParseRate(n.String())
	if err != nil {
		return fmt.Errorf("pos: rate %s: %w", data, err)
	}
	*r = v
	return nil
}

// GSTRates returns the GST rates a product may carry, lowest first: those in force
// since 22 September 2025 (0, 0.25, 1.5, 3, 5, 18, 40), and 28 for the goods that
// keep it with a compensation cess (tobacco, pan masala).
func GSTRates() []Rate {
	return []Rate{Percent(0), RateBP(25), RateBP(150), Percent(3), Percent(5), Percent(18), Percent(28), Percent(40)}
}

// ValidGSTRate reports whether rate is one of GSTRates.
func ValidGSTRate(rate Rate) bool { return slices.Contains(GSTRates(), rate) }

// rateList is GSTRates as a sentence: "0, 0.25, 1.5, 3, 5, 18, 28 or 40".
func rateList() string { return RatesSentence(GSTRates()) }

// ParseRateList reads a shop's rate list as typed ("0, 5, 18"): each a rate in
// force (GSTRates), in any order; the list comes back lowest first without
// repeats. "" and "all" are every rate in force (nil).
func ParseRateList(s string) ([]Rate, error) {
	s = strings.TrimSpace(s)
	if s == "" || strings.EqualFold(s, "all") {
		return nil, nil
	}
	var out []Rate
	for _, f := range strings.FieldsFunc(s, func(r rune) bool { return r == ',' || r == ' ' || r == ';' }) {
		r, err := ParseRate(strings.TrimSuffix(f, "%"))
		if err != nil || !ValidGSTRate(r) {
			return nil, Errorf("The rate list has %q, which is not a GST rate in force since 22 September 2025 (%s). Type the shop's rates separated by commas, or \"all\".", printable(f), rateList())
		}
		if !slices.Contains(out, r) {
			out = append(out, r)
		}
	}
	slices.SortFunc(out, func(a, b Rate) int { return a.Compare(b) })
	if slices.Equal(out, GSTRates()) {
		return nil, nil
	}
	return out, nil
}

// RatesSentence is rs as a sentence: "0, 5 or 18".
func RatesSentence(rs []Rate) string {
	if len(rs) == 0 {
		return "none"
	}
	parts := make([]string, len(rs))
	for i, r := range rs {
		parts[i] = r.Decimal()
	}
	return strings.Join(parts[:len(parts)-1], ", ") + " or " + parts[len(parts)-1]
}

// LineTax is the GST (and cess) contained in one GST-inclusive amount.
type LineTax struct {
	Amount  Paise `json:"amount"`         // GST-inclusive
	Taxable Paise `json:"taxable"`        // the value before GST
	Tax     Paise `json:"tax"`            // GST: Amount − Taxable − Cess
	CGST    Paise `json:"cgst"`           // ⌊Tax/2⌋ within the state
	SGST    Paise `json:"sgst"`           // Tax − CGST within the state
	IGST    Paise `json:"igst,omitempty"` // Tax across states
	Cess    Paise `json:"cess,omitempty"` // the compensation cess on Taxable
}

// TaxOf splits a GST-inclusive amount at rate by Galla's one rounding rule (see
// the package's tax.go): taxable rounded half up to the paisa, CGST rounded down,
// SGST the rest. A negative amount (a refund) is split as the negation of its
// absolute value's split.
func TaxOf(amount Paise, rate Rate) LineTax { return TaxWithCess(amount, rate, Rate{}) }

// TaxWithCess is TaxOf for goods that also bear a cess: the amount is split as
// amount / (1 + rate + cess), the cess is levied on the taxable value, and the GST
// is what remains.
func TaxWithCess(amount Paise, rate, cess Rate) LineTax {
	if amount < 0 {
		t := TaxWithCess(-amount, rate, cess)
		return LineTax{Amount: amount, Taxable: -t.Taxable, Tax: -t.Tax, CGST: -t.CGST, SGST: -t.SGST, Cess: -t.Cess}
	}
	r, c := max(int64(rate.bp), 0), max(int64(cess.bp), 0)
	d := 10000 + r + c
	taxable := Paise((int64(amount)*10000 + d/2) / d)
	cs := Paise((int64(taxable)*c + 5000) / 10000)
	tax := amount - taxable - cs
	if tax < 0 { // a 0% rate with a cess: the cess's rounding gives way
		cs += tax
		tax = 0
	}
	cgst := tax / 2
	return LineTax{Amount: amount, Taxable: taxable, Tax: tax, CGST: cgst, SGST: tax - cgst, Cess: cs}
}

// interstate moves CGST + SGST into IGST.
func (t *LineTax) interstate() {
	t.IGST += t.CGST + t.SGST
	t.CGST, t.SGST = 0, 0
}

// RateTotal is the sum of the lines taxed at one GST rate.
type RateTotal struct {
	Rate    Rate  `json:"rate"`           // percent
	Amount  Paise `json:"amount"`         // GST-inclusive, after discounts
	Taxable Paise `json:"taxable"`        //
	Tax     Paise `json:"tax"`            // CGST + SGST (+ IGST)
	CGST    Paise `json:"cgst"`           //
	SGST    Paise `json:"sgst"`           //
	IGST    Paise `json:"igst,omitempty"` // across states
	Cess    Paise `json:"cess,omitempty"` //
}

func (r *RateTotal) add(lt LineTax) {
	r.Amount += lt.Amount
	r.Taxable += lt.Taxable
	r.Tax += lt.Tax
	r.CGST += lt.CGST
	r.SGST += lt.SGST
	r.IGST += lt.IGST
	r.Cess += lt.Cess
}

// HSNTotal is the sum of the lines of one HSN code at one rate: the HSN summary of
// a tax invoice and of GSTR-1's hsn section.
type HSNTotal struct {
	HSN     string `json:"hsn"`
	Rate    Rate   `json:"rate"`
	Qty     int    `json:"qty"`
	Taxable Paise  `json:"taxable"`
	Tax     Paise  `json:"tax"`
	CGST    Paise  `json:"cgst"`
	SGST    Paise  `json:"sgst"`
	IGST    Paise  `json:"igst,omitempty"`
	Cess    Paise  `json:"cess,omitempty"`
}

// Totals are a cart's money. Gross − Discount == Total == Taxable + Tax + Cess, and
// CGST + SGST + IGST == Tax, exactly; ByRate lists the rates present, lowest first,
// and its entries add up to the totals.
type Totals struct {
	Items    int         `json:"items"`    // units: the sum of the quantities
	Gross    Paise       `json:"gross"`    // Σ qty × unit price
	Discount Paise       `json:"discount"` // Σ line discounts
	Total    Paise       `json:"total"`    // what the customer pays, GST included
	Taxable  Paise       `json:"taxable"`
	Tax      Paise       `json:"tax"`
	CGST     Paise       `json:"cgst"`
	SGST     Paise       `json:"sgst"`
	IGST     Paise       `json:"igst,omitempty"`
	Cess     Paise       `json:"cess,omitempty"`
	ByRate   []RateTotal `json:"by_rate"`
}

// ComputeTotals adds up lines by Galla's one GST rule (see LineTax), split within
// the state (CGST + SGST). The engine, documents and reports call it on journaled
// lines and get the cart's numbers.
func ComputeTotals(lines []Line) Totals {
	var t Totals
	for _, l := range lines {
		lt := l.Tax()
		t.Items += l.Qty
		t.Gross += l.Gross()
		t.Discount += l.Discount
		t.Total += lt.Amount
		t.Taxable += lt.Taxable
		t.Tax += lt.Tax
		t.CGST += lt.CGST
		t.SGST += lt.SGST
		t.Cess += lt.Cess
		i := slices.IndexFunc(t.ByRate, func(r RateTotal) bool { return r.Rate == l.GSTRate })
		if i < 0 {
			t.ByRate = append(t.ByRate, RateTotal{Rate: l.GSTRate})
			i = len(t.ByRate) - 1
		}
		t.ByRate[i].add(lt)
	}
	slices.SortFunc(t.ByRate, func(a, b RateTotal) int { return a.Rate.Compare(b.Rate) })
	return t
}

// Interstate returns t with its tax split as IGST instead of CGST + SGST: a
// supply whose place is in another state than the shop's (PlaceOfSupply).
func (t Totals) Interstate() Totals {
	t.IGST += t.CGST + t.SGST
	t.CGST, t.SGST = 0, 0
	t.ByRate = slices.Clone(t.ByRate)
	for i := range t.ByRate {
		r := &t.ByRate[i]
		r.IGST += r.CGST + r.SGST
		r.CGST, r.SGST = 0, 0
	}
	return t
}

// HSNSummary adds up lines by HSN code and rate, in the order the codes first
// appear; interstate splits the tax as IGST.
func HSNSummary(lines []Line, interstate bool) []HSNTotal {
	var out []HSNTotal
	for _, l := range lines {
		lt := l.Tax()
		if interstate {
			lt.interstate()
		}
		i := slices.IndexFunc(out, func(h HSNTotal) bool { return h.HSN == l.HSN && h.Rate == l.GSTRate })
		if i < 0 {
			out = append(out, HSNTotal{HSN: l.HSN, Rate: l.GSTRate})
			i = len(out) - 1
		}
		h := &out[i]
		h.Qty += l.Qty
		h.Taxable += lt.Taxable
		h.Tax += lt.Tax
		h.CGST += lt.CGST
		h.SGST += lt.SGST
		h.IGST += lt.IGST
		h.Cess += lt.Cess
	}
	return out
}
