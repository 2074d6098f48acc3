package pos

import (
	"fmt"
	"strings"
	"unicode/utf8"

	"galla/pos/hsn"
)

// The HSN check at catalog import and the HSN descriptions of GSTR-1's table 12
// (docs/gstr1.md, "HSN master"). With the HSN list a shop loaded (galla hsn
// import: the GST portal's HSN directory, Setup.HSNMaster) a code is checked
// against it: a 4-digit code must be a heading of it, a 6-digit code a
// subheading, and an 8-digit code a tariff item where the list gives its
// subheading's items (by its first six digits where it does not). Without one,
// the small master Galla ships (hsn.Builtin) accepts the codes it lists, and
// any other code is checked for its form only (hsnForm) and accepted: the
// import says so. Services (SAC, chapter 99) are not goods of a catalog and
// are refused.

// hsnDescMax is the length of table 12's desc (pos/gstr's hsnDesc).
const hsnDescMax = 30

// HSNDescription is the built-in HSN master's description of code for
// GSTR-1's table 12 (hsnDescription); "" when it has none. The counter's
// GSTR-1 takes the text of the HSN list the shop loaded over it
// (Documents.GSTR1Period).
func HSNDescription(code string) string {
	return hsnDescription(hsn.Builtin(), code)
}

// hsnDescription is m's description of code for table 12: the most precise
// m has, that of the tariff item (all eight digits), else of its subheading
// (the first six), else of its heading (the first four), shortened to the 30
// characters table 12 takes at a word boundary (shortHSNDesc); "" when m has
// none.
func hsnDescription(m *hsn.Master, code string) string {
	for _, n := range []int{8, 6, 4} {
		if len(code) >= n {
			if d, ok := m.Description(code[:n]); ok {
				return shortHSNDesc(d)
			}
		}
	}
	return ""
}

// trailingHSNWords are the words a shortened description does not end on:
// they only join what was cut off.
var trailingHSNWords = map[string]bool{
	"and": true, "or": true, "of": true, "for": true, "with": true, "without": true,
	"including": true, "excluding": true, "other": true, "than": true, "not": true,
	"whether": true, "in": true, "on": true, "by": true, "to": true, "the": true,
	"a": true, "an": true, "e.g.": true, "n.e.c.": true, "their": true, "its": true,
	"such": true, "any": true, "kind": true, "containing": true, "elsewhere": true,
	"which": true, "from": true, "at": true, "as": true, "but": true, "nor": true,
}

// shortHSNDesc shortens a description of the master to at most hsnDescMax
// characters at a word boundary, without a parenthesis left open, a
// trailing comma or semicolon, or a last word that only joins what was cut
// ("Telephone sets, including smartphones and …" is "Telephone sets").
func shortHSNDesc(d string) string {
	n, end := 0, len(d)
	for i := range d {
		if n == hsnDescMax+1 {
			end = i
			break
		}
		n++
	}
	if n <= hsnDescMax {
		return d
	}
	head := d[:end] // its first hsnDescMax+1 characters
	// The last space in head ends the last whole word.
	cut := strings.LastIndexByte(head, ' ')
	if cut <= 0 { // one long word: its first hsnDescMax characters
		_, size := utf8.DecodeLastRuneInString(head)
		return head[:len(head)-size]
	}
	s := head[:cut]
	if open := strings.LastIndexByte(s, '('); open > 0 && open > strings.LastIndexByte(s, ')') {
		s = s[:open]
	}
	for {
		s = strings.TrimRight(s, " ,;:-")
		i := strings.LastIndexByte(s, ' ')
		if i <= 0 || !trailingHSNWords[strings.ToLower(s[i+1:])] {
			return s
		}
		s = s[:i]
	}
}

// hsnRefusal is why an HSN code cannot be imported for a shop of turnover, or
// "": checked against the HSN list the shop loaded, m (hsnUnknown), or
// without one (m nil) against the built-in master where it lists the code
// (an 8-digit code by its first six digits), and otherwise by its form only
// (hsnForm), which formOnly then says. A shop whose aggregate turnover is
// above ₹5 crore gives six digits or more (Notification 78/2020-Central Tax),
// others four or more. Codes of another shape are named by the row's own
// check.
func hsnRefusal(code string, turnover Paise, m *hsn.Master) (why string, formOnly bool) {
	n := len(code)
	if n < 4 || n > 8 || n%2 == 1 || !allDigits(code) {
		return "", false
	}
	switch {
	case m != nil:
		why = hsnUnknown(m, code)
	case builtinHas(code):
	default:
		why = hsnForm(code)
		formOnly = why == ""
	}
	if why == "" && turnover > EInvoiceTurnover && n < 6 {
		return fmt.Sprintf("the HSN code %s has %d digits; a shop whose aggregate turnover is above %s gives six (Notification 78/2020-Central Tax), such as %sxx", code, n, EInvoiceTurnover, code), false
	}
	return why, formOnly && why == ""
}

// builtinHas says whether the built-in master lists code (4 or 6 digits), or
// the subheading of an 8-digit code.
func builtinHas(code string) bool {
	if len(code) == 8 {
		code = code[:6]
	}
	_, ok := hsn.Builtin().Description(code)
	return ok
}

// hsnCheckCode ends every refusal of an HSN code.
const hsnCheckCode = "check the code on the invoice from your supplier"

// hsnForm is the sentence refusing a code of 4, 6 or 8 digits whose chapter
// (its first two digits) is not one of goods: 01 to 97, without 77; "" when
// it is. Chapter 98 is India's for special cases (project imports, baggage),
// 99 the services' (SAC).
func hsnForm(code string) string {
	switch ch := code[:2]; {
	case ch == "99":
		return fmt.Sprintf("the HSN code %s is a services code (SAC, chapter 99), not goods; a catalog row is goods, so %s", code, hsnCheckCode)
	case ch == "98":
		return fmt.Sprintf("the HSN code %s is of chapter 98, India's chapter for special cases such as project imports and baggage, not goods sold from a catalog; %s", code, hsnCheckCode)
	case ch == "00" || ch == "77" || ch > "98":
		return fmt.Sprintf("the HSN code %s is not an HSN code of goods: chapter %s does not exist (goods are chapters 01 to 97, without 77); %s", code, ch, hsnCheckCode)
	}
	return ""
}

// hsnUnknown is the sentence refusing a code of 4, 6 or 8 digits the HSN
// list m does not have, naming the first part of it that is wrong; "" when m
// has it. A 6-digit code is a subheading of m when m names it or lists tariff
// items under it.
func hsnUnknown(m *hsn.Master, code string) string {
	if why := hsnForm(code); why != "" {
		return why
	}
	const list = "the HSN list loaded (galla hsn import)"
	head := code[:4]
	if _, ok := m.Description(head); !ok {
		if len(code) == 4 {
			return fmt.Sprintf("the HSN code %s is not a heading of %s; %s", code, list, hsnCheckCode)
		}
		return fmt.Sprintf("the HSN code %s is not in %s: its heading %s is not; %s", code, list, head, hsnCheckCode)
	}
	if len(code) == 4 {
		return ""
	}
	sub := code[:6]
	items := m.TariffItems(sub)
	if _, ok := m.Description(sub); ok || len(items) > 0 {
		if _, known := m.Description(code); len(code) == 6 || known || len(items) == 0 {
			return ""
		}
		return fmt.Sprintf("the HSN code %s is not a tariff item of %s: subheading %s has %s; %s", code, list, sub, tariffItemList(items), hsnCheckCode)
	}
	if len(code) == 6 {
		return fmt.Sprintf("the HSN code %s is not a subheading of %s: heading %s has no subheading %s; %s", code, list, head, sub, hsnCheckCode)
	}
	return fmt.Sprintf("the HSN code %s is not in %s: its first six digits %s are not a subheading of heading %s (an 8-digit tariff item extends a subheading); %s", code, list, sub, head, hsnCheckCode)
}

// tariffItemList names the tariff items of a subheading in a sentence, at
// most five: "the tariff item 85171300", "the tariff items 84713010 and
// 84713090"; of more, the first four and how many more.
func tariffItemList(items []string) string {
	const most = 5
	switch n := len(items); {
	case n == 1:
		return "the tariff item " + items[0]
	case n <= most:
		return "the tariff items " + strings.Join(items[:n-1], ", ") + " and " + items[n-1]
	default:
		return fmt.Sprintf("%d tariff items, %s and %d more", n, strings.Join(items[:most-1], ", "), n-most+1)
	}
}
