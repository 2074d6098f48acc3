package pos

import (
	"fmt"
	"strings"
	"unicode/utf8"

	"galla/pos/hsn"
)

// The HSN check at catalog import and the HSN descriptions of GSTR-1's table 12
// (docs/gstr1.md, "HSN master"), both against the master Galla ships
// (package hsn: the HS 2022 nomenclature's chapters, headings and
// subheadings, and India's 8-digit tariff items of the subheadings whose items
// it lists). India's HSN follows the HS to six digits; an 8-digit code must be
// a tariff item of the master where the master lists its subheading's items,
// and is checked by its first six digits where it does not. Services (SAC,
// chapter 99) are not goods of a catalog and are refused.

// hsnDescMax is the length of table 12's desc (pos/gstr's hsnDesc).
const hsnDescMax = 30

// HSNDescription is the HSN master's description of code for GSTR-1's table
// 12: the most precise the master has, that of the tariff item (all eight
// digits), else of its subheading (the first six), else of its heading (the
// first four), shortened to the 30 characters table 12 takes at a word
// boundary (shortHSNDesc); "" when the master has none.
func HSNDescription(code string) string {
	return hsnDescription(hsn.Embedded(), code)
}

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
// "": a 4-digit code must be a heading of the master, a 6-digit code a
// subheading and an 8-digit code a tariff item of the master (its first six
// digits a subheading, where the master lists none of that subheading's
// tariff items); and a shop
// whose aggregate turnover is above ₹5 crore gives six digits or more
// (Notification 78/2020-Central Tax), others four or more. Codes of another
// shape are named by the row's own check.
func hsnRefusal(code string, turnover Paise) string {
	n := len(code)
	if n < 4 || n > 8 || n%2 == 1 || !allDigits(code) {
		return ""
	}
	if why := hsnUnknown(hsn.Embedded(), code); why != "" {
		return why
	}
	if turnover > EInvoiceTurnover && n < 6 {
		return fmt.Sprintf("the HSN code %s has %d digits; a shop whose aggregate turnover is above %s gives six (Notification 78/2020-Central Tax), such as %sxx", code, n, EInvoiceTurnover, code)
	}
	return ""
}

// hsnUnknown is the sentence refusing a code of 4, 6 or 8 digits the master m
// does not have, naming the first part of it that is wrong; "" when m has it.
func hsnUnknown(m *hsn.Master, code string) string {
	const check = "check the code on the invoice from your supplier"
	ch, head := code[:2], code[:4]
	switch _, chOK := m.Description(ch); {
	case ch == "99":
		return fmt.Sprintf("the HSN code %s is a services code (SAC, chapter 99), not goods of the HSN master (%s); a catalog row is goods, so %s", code, hsn.Edition, check)
	case !chOK:
		return fmt.Sprintf("the HSN code %s is not in the HSN master (%s): chapter %s does not exist (goods are chapters 01 to 97, without 77); %s", code, hsn.Edition, ch, check)
	}
	if _, ok := m.Description(head); !ok {
		if len(code) == 4 {
			return fmt.Sprintf("the HSN code %s is not a heading of the HSN master (%s); %s", code, hsn.Edition, check)
		}
		return fmt.Sprintf("the HSN code %s is not in the HSN master (%s): its heading %s does not exist; %s", code, hsn.Edition, head, check)
	}
	if len(code) == 4 {
		return ""
	}
	sub := code[:6]
	if _, ok := m.Description(sub); ok {
		items := m.TariffItems(sub)
		if _, known := m.Description(code); len(code) == 6 || known || len(items) == 0 {
			return ""
		}
		return fmt.Sprintf("the HSN code %s is not a tariff item of India's tariff in the HSN master: subheading %s has %s; %s", code, sub, tariffItemList(items), check)
	}
	if len(code) == 6 {
		return fmt.Sprintf("the HSN code %s is not a subheading of the HSN master (%s): heading %s has no subheading %s; %s", code, hsn.Edition, head, sub, check)
	}
	return fmt.Sprintf("the HSN code %s is not in the HSN master (%s): its first six digits %s are not a subheading of heading %s (an 8-digit tariff item extends a subheading of the HS); %s", code, hsn.Edition, sub, head, check)
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
