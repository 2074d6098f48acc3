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

// GST in Galla: prices include GST (and cess, where the catalog sets one). Rates
// are in basis points (hundredths of a percent: 18% is 1800, 0.25% is 25), so every
// step is integer arithmetic. A line's taxable value and cess come from its
// GST-inclusive amount:
//
//	amount  = qty × unit price − line discount        (what the customer pays for the line)
//	d       = 10000 + rate + cess                      (both in basis points)
//	taxable = ⌊(amount × 10000 + ⌊d/2⌋) / d⌋           (amount × 10000/d, rounded half up to the paisa)
//	cess    = ⌊(taxable × cess + 5000) / 10000⌋        (the cess on the taxable value, half up)
//
// and a document's GST is the GST portal's arithmetic (its offline tool computes
// each rate of each invoice so), per rate of the document, never per line:
//
//	CGST = SGST = round(Σ taxable × rate / 200)        (within the state)
//	IGST        = round(Σ taxable × rate / 100)        (a supply to another state)
//
// rounded half away from zero to the paisa (GSTOn). What the customer pays less
// the taxable value, the GST and the cess is the document's round-off, a few
// paise either way (Totals.RoundOff). Each line's own figures (a document's line
// column, the HSN summary, GSTR-1's lines and the CSV) are its share of its
// rate's GST in proportion to its taxable value (DocumentTax), so that they add
// up to the document's figures exactly.
//
// A GST-inclusive price with cess is thus split as amount / (1 + rate + cess): the
// cess is levied on the taxable value, like the GST, and never on the GST.
//
// Whether the tax is CGST + SGST or IGST depends on the place of supply
// (PlaceOfSupply): ComputeTotals splits within the state, as a counter sale is by
// default; Totals.Interstate turns the split into IGST.
//
// TaxOf and TaxWithCess keep the rule by which a single line's amount was split
// when Galla taxed line by line (Tax = amount − taxable − cess, CGST = ⌊Tax/2⌋):
// returns journaled under it are checked against it, so it stays as it was.

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

// GSTRates returns the GST rates a catalog row may carry, lowest first: those in
// force on some day since 22 September 2025 (0, 0.25, 1.5, 3, 5, 18, 40, and 28
// for pan masala and tobacco until 31 January 2026). Which of them may be
// charged on a day is RatesOn's.
func GSTRates() []Rate {
	return []Rate{Percent(0), RateBP(25), RateBP(150), Percent(3), Percent(5), Percent(18), Percent(28), Percent(40)}
}

// ValidGSTRate reports whether rate is one of GSTRates.
func ValidGSTRate(rate Rate) bool { return slices.Contains(GSTRates(), rate) }

// rateList is GSTRates as a sentence: "0, 0.25, 1.5, 3, 5, 18, 28 or 40".
func rateList() string { return RatesSentence(GSTRates()) }

// RatesSentence is rs as a sentence: "0, 5 or 18".
func RatesSentence(rs []Rate) string {
	switch len(rs) {
	case 0:
		return "none"
	case 1:
		return rs[0].Decimal()
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

// roundHalfAway is n/d (d > 0) rounded to the nearest integer, halves away from
// zero.
func roundHalfAway(n, d int64) int64 {
	if n < 0 {
		return -((-n + d/2) / d)
	}
	return (n + d/2) / d
}

// GSTOn returns the GST on a taxable value at rate as the GST portal computes it
// for one rate of one document: within the state CGST = SGST = round(taxable ×
// rate / 200), across states IGST = round(taxable × rate / 100), each rounded
// half away from zero to the paisa. Taxable ₹59,237.29 at 18% is CGST 5,331.36
// and SGST 5,331.36 (5,331.3561 each), or IGST 10,662.71.
func GSTOn(taxable Paise, rate Rate, interstate bool) (cgst, sgst, igst Paise) {
	r := max(int64(rate.bp), 0)
	if interstate {
		return 0, 0, Paise(roundHalfAway(int64(taxable)*r, 10000))
	}
	half := Paise(roundHalfAway(int64(taxable)*r, 20000))
	return half, half, 0
}

// DocumentTax sets the GST of one document's lines by the portal's arithmetic:
// lts are the lines' figures (Amount, Taxable and Cess as TaxWithCess gives them)
// and rates their GST rates. Per rate, the GST of the lines' taxable values
// together (GSTOn) is shared among them in proportion to their taxable values
// (Spread), so the lines of a rate add up to the rate's GST exactly; each line's
// Tax is its CGST + SGST + IGST. The one function by which the documents, the
// reports, GSTR-1 and the CSV state GST.
func DocumentTax(lts []LineTax, rates []Rate, interstate bool) {
	done := make([]bool, len(lts))
	for i := range lts {
		if done[i] {
			continue
		}
		var idx []int
		var parts []Paise
		var taxable Paise
		for k := i; k < len(lts); k++ {
			if !done[k] && rates[k] == rates[i] {
				done[k] = true
				idx = append(idx, k)
				parts = append(parts, lts[k].Taxable)
				taxable += lts[k].Taxable
			}
		}
		cgst, sgst, igst := GSTOn(taxable, rates[i], interstate)
		cs, ss, is := spreadSigned(cgst, parts), spreadSigned(sgst, parts), spreadSigned(igst, parts)
		for n, k := range idx {
			lt := &lts[k]
			lt.CGST, lt.SGST, lt.IGST = cs[n], ss[n], is[n]
			lt.Tax = lt.CGST + lt.SGST + lt.IGST
		}
	}
}

// spreadSigned is Spread for parts of one sign (a credit note's negative values
// too) and an amount of the same sign.
func spreadSigned(amount Paise, parts []Paise) []Paise {
	var total Paise
	for _, p := range parts {
		total += p
	}
	if total >= 0 && amount >= 0 {
		return Spread(amount, parts)
	}
	neg := make([]Paise, len(parts))
	for i, p := range parts {
		neg[i] = -p
	}
	out := Spread(-amount, neg)
	for i := range out {
		out[i] = -out[i]
	}
	return out
}

// DocumentLines returns the figures of each of a document's lines: taxable value
// and cess by TaxWithCess, the GST by DocumentTax (IGST when interstate).
func DocumentLines(lines []Line, interstate bool) []LineTax {
	lts := make([]LineTax, len(lines))
	rates := make([]Rate, len(lines))
	for i, l := range lines {
		lts[i] = l.Tax()
		rates[i] = l.GSTRate
	}
	DocumentTax(lts, rates, interstate)
	return lts
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

// Totals are a cart's money. Gross − Discount == Total == Taxable + Tax + Cess +
// RoundOff, and CGST + SGST + IGST == Tax, exactly; ByRate lists the rates present,
// lowest first, and its entries add up to the totals. Each rate's GST is GSTOn its
// taxable value; RoundOff is the few paise by which that differs from what the
// GST-inclusive prices contain.
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
	RoundOff Paise       `json:"round_off,omitempty"` // Total − Taxable − Tax − Cess
	ByRate   []RateTotal `json:"by_rate"`
}

// ComputeTotals adds up lines as one document within the state (CGST + SGST): the
// taxable value and cess per line (TaxWithCess), the GST per rate by the portal's
// arithmetic (GSTOn). The engine, documents and reports call it on journaled
// lines and get the cart's numbers.
func ComputeTotals(lines []Line) Totals {
	var t Totals
	for _, l := range lines {
		lt := l.Tax()
		t.Items += l.Qty
		t.Gross += l.Gross()
		t.Discount += l.Discount
		i := slices.IndexFunc(t.ByRate, func(r RateTotal) bool { return r.Rate == l.GSTRate })
		if i < 0 {
			t.ByRate = append(t.ByRate, RateTotal{Rate: l.GSTRate})
			i = len(t.ByRate) - 1
		}
		t.ByRate[i].Amount += lt.Amount
		t.ByRate[i].Taxable += lt.Taxable
		t.ByRate[i].Cess += lt.Cess
	}
	slices.SortFunc(t.ByRate, func(a, b RateTotal) int { return a.Rate.Compare(b.Rate) })
	t.Total = t.Gross - t.Discount
	return t.taxed(false)
}

// taxed sets each rate's GST by GSTOn and the totals from the rates.
func (t Totals) taxed(interstate bool) Totals {
	t.ByRate = slices.Clone(t.ByRate)
	t.Taxable, t.Tax, t.CGST, t.SGST, t.IGST, t.Cess = 0, 0, 0, 0, 0, 0
	for i := range t.ByRate {
		r := &t.ByRate[i]
		r.CGST, r.SGST, r.IGST = GSTOn(r.Taxable, r.Rate, interstate)
		r.Tax = r.CGST + r.SGST + r.IGST
		t.Taxable += r.Taxable
		t.Tax += r.Tax
		t.CGST += r.CGST
		t.SGST += r.SGST
		t.IGST += r.IGST
		t.Cess += r.Cess
	}
	t.RoundOff = t.Total - t.Taxable - t.Tax - t.Cess
	return t
}

// Interstate returns t with its tax as IGST instead of CGST + SGST: a supply
// whose place is in another state than the shop's (PlaceOfSupply). IGST is
// computed afresh from each rate's taxable value (GSTOn), so it may differ by a
// paisa from CGST + SGST; the round-off takes the difference.
func (t Totals) Interstate() Totals { return t.taxed(true) }

// HSNSummary adds up lines by HSN code and rate, in the order the codes first
// appear, with each line's share of its rate's GST (DocumentLines); interstate
// splits the tax as IGST.
func HSNSummary(lines []Line, interstate bool) []HSNTotal {
	var out []HSNTotal
	for n, lt := range DocumentLines(lines, interstate) {
		l := lines[n]
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
