package pos

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"galla/pos/hsn"
)

// The GST rates by the dates they are in force (docs/gst.md, "Rates"). A sale
// takes the rates in force on its date, and a catalog row is imported only at a
// rate in force on the day of the import: a rate or a compensation cess that is
// not is refused with a sentence naming the notification.

// RatePeriod is the GST rates in force from one day until the next period's.
type RatePeriod struct {
	From  string // the first day, YYYY-MM-DD
	Rates []Rate // the GST rates in force, lowest first
	// CessWith is the GST rates a compensation cess goes with: goods at these
	// rates must bear a cess, and no others may. Empty: a cess may go with any
	// rate (CessAny) or with none.
	CessWith []Rate
	CessAny  bool   // a cess may go with any rate (the 2017 schedule)
	Law      string // the notifications
}

// RateSchedule is the GST rates since 1 July 2017, earliest first:
//
//   - 1 July 2017 (Notification 1/2017-Central Tax (Rate), 1/2017-Compensation
//     Cess (Rate)): 0, 0.25, 1.5, 3, 5, 12, 18, 28, a compensation cess on some goods;
//   - 22 September 2025 (Notification 9/2025-Central Tax (Rate)): 0, 0.25, 1.5, 3,
//     5, 18 and 40; 12% gone, and 28% kept only for pan masala and tobacco, which
//     bear the compensation cess (Schedule VII, 14% CGST);
//   - 1 February 2026 (Notification 19/2025-Central Tax (Rate), 03/2025-Compensation
//     Cess (Rate)): pan masala and tobacco at 40% (biris 18%), the 14% schedule
//     omitted, the compensation cess nil on every good.
func RateSchedule() []RatePeriod {
	return []RatePeriod{
		{From: "2017-07-01", Rates: []Rate{Percent(0), RateBP(25), RateBP(150), Percent(3), Percent(5), Percent(12), Percent(18), Percent(28)},
			CessAny: true, Law: "Notification 1/2017-Central Tax (Rate)"},
		{From: "2025-09-22", Rates: []Rate{Percent(0), RateBP(25), RateBP(150), Percent(3), Percent(5), Percent(18), Percent(28), Percent(40)},
			CessWith: []Rate{Percent(28)}, Law: "Notification 9/2025-Central Tax (Rate)"},
		{From: "2026-02-01", Rates: []Rate{Percent(0), RateBP(25), RateBP(150), Percent(3), Percent(5), Percent(18), Percent(40)},
			Law: "Notification 19/2025-Central Tax (Rate) and 03/2025-Compensation Cess (Rate)"},
	}
}

// RatesOn is the period of RateSchedule in force on day (its calendar date in
// its own location); a day before the first period has the first.
func RatesOn(day time.Time) RatePeriod {
	d := ToDay(day)
	s := RateSchedule()
	p := s[0]
	for _, q := range s {
		if q.From <= d {
			p = q
		}
	}
	return p
}

// since is the period's first day as a person reads it: "1 February 2026".
func (p RatePeriod) since() string {
	t, err := time.Parse(DayLayout, p.From)
	if err != nil {
		return p.From
	}
	return t.Format("2 January 2006")
}

// Refusal is why rate with cess is not in force in p, as a clause naming the
// law, or "" when it is.
func (p RatePeriod) Refusal(rate, cess Rate) string {
	if !slices.Contains(p.Rates, rate) {
		msg := fmt.Sprintf("%s is not a GST rate in force since %s (%s; the rates are %s)", rate, p.since(), p.Law, RatesSentence(p.Rates))
		if rate == Percent(28) && !slices.Contains(p.CessWith, rate) {
			msg += "; pan masala and tobacco are 40% and bear no compensation cess"
		}
		return msg
	}
	switch {
	case !cess.IsZero() && !p.CessAny && len(p.CessWith) == 0:
		return fmt.Sprintf("no compensation cess is levied since %s (%s), so a %s cess is not", p.since(), p.Law, cess)
	case !cess.IsZero() && !p.CessAny && !slices.Contains(p.CessWith, rate):
		return fmt.Sprintf("since %s (%s) a compensation cess goes only with %s%%, not with %s", p.since(), p.Law, RatesSentence(p.CessWith), rate)
	case cess.IsZero() && slices.Contains(p.CessWith, rate):
		return fmt.Sprintf("since %s (%s) %s is kept only for goods that also bear a compensation cess (tobacco, pan masala)", p.since(), p.Law, rate)
	}
	return ""
}

// CheckSaleRates refuses a sale on day any of whose lines is at a GST rate or
// cess not in force that day, with a sentence naming the product and the law:
// the catalog row must be corrected before the goods are sold.
func CheckSaleRates(lines []Line, day time.Time) error {
	p := RatesOn(day)
	for _, l := range lines {
		if why := p.Refusal(l.GSTRate, l.Cess); why != "" {
			rate := l.GSTRate.String()
			if !l.Cess.IsZero() {
				rate += " with a " + l.Cess.String() + " cess"
			}
			return Errorf("%s (SKU %s) is in the catalog at %s, which cannot be charged on %s: %s. Correct its row in the catalog (galla catalog import) before selling it.",
				printable(l.Name), printable(l.SKU), rate, day.Format("2 January 2006"), why)
		}
	}
	return nil
}

// CheckRates refuses a catalog imported on day whose products carry a GST rate
// or cess not in force that day (RatesOn), a rate outside the shop's choice
// for that day (Shop.RatesOn), or an HSN code the HSN list m (nil: none
// loaded) does not know or too short for the shop's turnover (hsnRefusal),
// naming each product; nothing is imported. formOnly is the HSN codes, each
// once in order, that were checked for their form only (no list loaded and
// not in the built-in master).
func (c *Catalog) CheckRates(shop Shop, day time.Time, m *hsn.Master) (formOnly []string, err error) {
	law := RatesOn(day)
	list := shop.RatesOn(day)
	ie := &ImportError{}
	for i, p := range c.products {
		msg := law.Refusal(p.GSTRate, p.Cess)
		if p.Supply != SupplyTaxable && (!p.GSTRate.IsZero() || !p.Cess.IsZero()) {
			msg = fmt.Sprintf("a %s supply bears no GST, so its GST rate must be 0 and its cess nothing, not %s", p.Supply, p.GSTRate)
		} else if msg != "" {
			msg = "the row cannot be sold today: " + msg
		} else if !slices.Contains(list, p.GSTRate) {
			msg = fmt.Sprintf("the GST rate %s is not in the shop's rate list (%s); correct the row, or add the rate to the shop's list in Settings (galla shop set --rates)", p.GSTRate, RatesSentence(list))
		}
		if msg == "" {
			var form bool
			if msg, form = hsnRefusal(p.HSN, shop.Turnover, m); form && !slices.Contains(formOnly, p.HSN) {
				formOnly = append(formOnly, p.HSN)
			}
		}
		if msg != "" && !ie.add(Problem{Item: i + 1, SKU: printable(p.SKU), Msg: msg}) {
			break
		}
	}
	if len(ie.Problems) == 0 {
		return formOnly, nil
	}
	return nil, ie
}

// RateChoice is the rates a shop's catalog may carry from a day on, within
// the rates in force (RateSchedule).
type RateChoice struct {
	From  string `json:"from,omitempty"`  // YYYY-MM-DD; "" from the first rates Galla knows
	Rates []Rate `json:"rates,omitempty"` // empty: every rate in force
}

// ShopRates is the shop's choice of GST rates by date, earliest first: on a
// day the latest choice from that day or before applies, within the rates in
// force that day. Empty: every rate in force.
//
// Its JSON is a list of choices ([{"from":"2026-02-01","rates":[0,5,18,40]}]);
// the plain list of rates a shop kept before ([0,5,18]) reads as one choice
// for every day.
type ShopRates []RateChoice

// UnmarshalJSON reads a list of choices, or the plain list of rates of old.
func (sr *ShopRates) UnmarshalJSON(data []byte) error {
	data = bytes.TrimSpace(data)
	if string(data) == "null" {
		*sr = nil
		return nil
	}
	if inner := bytes.TrimSpace(bytes.TrimPrefix(data, []byte("["))); len(inner) > 0 && inner[0] != '{' && inner[0] != ']' {
		var list []Rate
		if err := json.Unmarshal(data, &list); err != nil {
			return err
		}
		*sr = ShopRates{{Rates: list}}
		return nil
	}
	var choices []RateChoice
	if err := json.Unmarshal(data, &choices); err != nil {
		return err
	}
	*sr = choices
	return nil
}

// On is the shop's choice on day: nil for every rate in force.
func (sr ShopRates) On(day time.Time) []Rate {
	d := ToDay(day)
	var out []Rate
	for _, c := range sr {
		if c.From <= d {
			out = c.Rates
		}
	}
	return out
}

// Equal reports whether two schedules are the same.
func (sr ShopRates) Equal(o ShopRates) bool {
	return slices.EqualFunc(sr, o, func(a, b RateChoice) bool { return a.From == b.From && slices.Equal(a.Rates, b.Rates) })
}

// String writes the schedule as Settings shows it and ParseRateList reads it:
// "0, 5, 18, 28; from 2026-02-01: 0, 5, 18, 40"; "all" when empty.
func (sr ShopRates) String() string {
	if len(sr) == 0 {
		return "all"
	}
	parts := make([]string, len(sr))
	for i, c := range sr {
		list := "all"
		if len(c.Rates) > 0 {
			list = strings.ReplaceAll(RatesSentence(c.Rates), " or ", ", ")
		}
		if c.From != "" {
			list = "from " + c.From + ": " + list
		}
		parts[i] = list
	}
	return strings.Join(parts, "; ")
}

// RatesOn is the rates the shop's catalog may carry on day: the rates in force
// (RatesOn) within the shop's choice for that day.
func (s Shop) RatesOn(day time.Time) []Rate {
	law := RatesOn(day).Rates
	choice := s.Rates.On(day)
	if len(choice) == 0 {
		return law
	}
	var out []Rate
	for _, r := range law {
		if slices.Contains(choice, r) {
			out = append(out, r)
		}
	}
	return out
}

// ParseRateList reads the shop's rate schedule as typed in Settings or given to
// galla shop set --rates: choices separated by semicolons, each a list of rates
// ("0, 5, 18") or "all", the later ones after "from YYYY-MM-DD:":
//
//	0, 5, 18, 28; from 2026-02-01: 0, 5, 18, 40
//
// Each rate must be in force on some day the choice covers. "" and "all" are
// every rate in force (nil); a single list of every rate ever in force since 22
// September 2025 is too.
func ParseRateList(s string) (ShopRates, error) {
	s = strings.TrimSpace(s)
	if s == "" || strings.EqualFold(s, "all") {
		return nil, nil
	}
	var out ShopRates
	for n, part := range strings.Split(s, ";") {
		part = strings.TrimSpace(part)
		var c RateChoice
		if rest, ok := strings.CutPrefix(strings.ToLower(part), "from "); ok {
			day, list, found := strings.Cut(rest, ":")
			day = strings.TrimSpace(day)
			if _, err := time.Parse(DayLayout, day); !found || err != nil {
				return nil, Errorf("The rate schedule has %q: a later choice starts with the day it applies from, as \"from 2026-02-01: 0, 5, 18, 40\".", printable(part))
			}
			c.From, part = day, strings.TrimSpace(list)
		} else if n > 0 {
			return nil, Errorf("The rate schedule has %q after its first choice: say from which day it applies, as \"from 2026-02-01: 0, 5, 18, 40\".", printable(part))
		}
		if n > 0 && c.From <= out[n-1].From {
			return nil, Errorf("The rate schedule's choices must go forward in time: %s is not after %s.", c.From, firstNonEmpty(out[n-1].From, "its first choice"))
		}
		out = append(out, c)
		if strings.EqualFold(part, "all") {
			continue
		}
		for _, f := range strings.FieldsFunc(part, func(r rune) bool { return r == ',' || r == ' ' }) {
			r, err := ParseRate(strings.TrimSuffix(f, "%"))
			if err != nil || !out.inForce(n, r) {
				return nil, Errorf("The rate list has %q, which is not a GST rate in force %s (%s). Type the shop's rates separated by commas, or \"all\".", printable(f), out.span(n), rateList())
			}
			if !slices.Contains(out[n].Rates, r) {
				out[n].Rates = append(out[n].Rates, r)
			}
		}
		slices.SortFunc(out[n].Rates, func(a, b Rate) int { return a.Compare(b) })
	}
	if len(out) == 1 && (slices.Equal(out[0].Rates, GSTRates()) || len(out[0].Rates) == 0) && out[0].From == "" {
		return nil, nil
	}
	return out, nil
}

// inForce reports whether r is in force on some day of choice n, whose end is
// not known yet (the choices are read in order): from its first day on, and
// since 22 September 2025 for a choice from the start.
func (sr ShopRates) inForce(n int, r Rate) bool {
	from := sr[n].From
	if from == "" {
		from = "2025-09-22"
	}
	for _, p := range RateSchedule() {
		if next := p.nextFrom(); (next == "" || next > from) && slices.Contains(p.Rates, r) {
			return true
		}
	}
	return false
}

// span says which days choice n covers, for a sentence.
func (sr ShopRates) span(n int) string {
	if sr[n].From == "" {
		return "since 22 September 2025"
	}
	return "from " + sr[n].From
}

// nextFrom is the first day of the period after p ("" for the last).
func (p RatePeriod) nextFrom() string {
	s := RateSchedule()
	for i, q := range s {
		if q.From == p.From && i+1 < len(s) {
			return s[i+1].From
		}
	}
	return ""
}

// Crore is ₹1,00,00,000.00.
const Crore = Paise(1_00_00_000_00)

// EInvoiceTurnover is the aggregate turnover above which HSN codes take six
// digits (Notification 78/2020-Central Tax) and B2B invoices are e-invoiced
// (Notification 10/2023-Central Tax): ₹5 crore.
const EInvoiceTurnover = 5 * Crore

// ParseCrore reads an amount typed in crore of rupees ("12.5", "0.75", "5"):
// at most seven decimals (to the rupee), at most ₹10,00,000 crore.
func ParseCrore(s string) (Paise, error) {
	t := strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(s), "crore"))
	whole, frac, dot := strings.Cut(t, ".")
	if whole == "" || len(whole) > 7 || !allDigits(whole) || (dot && (frac == "" || len(frac) > 7 || !allDigits(frac))) {
		return 0, Errorf("The turnover %q is not a number of crore of rupees; type it as 12.5 for ₹12.5 crore.", printable(s))
	}
	// Decimal digits (a fraction such as "0375" is not octal); both fit: at most
	// seven digits each.
	w, _ := strconv.ParseInt(whole, 10, 64)
	var f int64
	if dot {
		f, _ = strconv.ParseInt(frac+strings.Repeat("0", 7-len(frac)), 10, 64)
	}
	return Paise(w)*Crore + Paise(f)*100, nil // f is in rupees: a crore is 10^7 rupees
}

// CroreText writes an amount in crore of rupees as ParseCrore reads it ("12.5");
// "" for none.
func CroreText(p Paise) string {
	if p <= 0 {
		return ""
	}
	t := fmt.Sprintf("%d", p/Crore)
	if f := (p % Crore) / 100; f != 0 {
		t += "." + strings.TrimRight(fmt.Sprintf("%07d", f), "0")
	}
	return t
}

// Supply is what a catalog row's goods are for GST beside their rate: taxable
// (""), or one of the supplies without GST that GSTR-1 reports apart in table
// 8, each in its own column whatever the document (tax invoice, bill of supply
// or credit note).
type Supply string

// The supplies without GST (CGST Act s.2(78), s.2(47); GSTR-1 table 8).
const (
	SupplyTaxable Supply = ""        // GST at the row's rate
	SupplyNil     Supply = "nil"     // nil-rated: in the rate schedule at 0%
	SupplyExempt  Supply = "exempt"  // exempt by notification (s.2(47))
	SupplyNonGST  Supply = "non-gst" // outside GST (s.2(78)): petrol, alcohol for drinking
)

// ParseSupply reads a catalog row's supply as typed: "" or "taxable", "nil"
// (or "nil-rated"), "exempt", "non-gst".
func ParseSupply(s string) (Supply, error) {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "", "taxable":
		return SupplyTaxable, nil
	case "nil", "nil-rated", "nil rated":
		return SupplyNil, nil
	case "exempt", "exempted":
		return SupplyExempt, nil
	case "non-gst", "non gst", "nongst":
		return SupplyNonGST, nil
	}
	return "", fmt.Errorf("the supply %q must be taxable, nil, exempt or non-gst", printable(s))
}
