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
// subheadings). India's HSN follows the HS to six digits; its 8-digit tariff
// items are not in the HS, so an 8-digit code is checked by its first six.
// Services (SAC, chapter 99) are not goods of a catalog and are refused.

// hsnDescMax is the length of table 12's desc (pos/gstr's hsnDesc).
const hsnDescMax = 30

// HSNDescription is the HSN master's description of code for GSTR-1's table
// 12: that of its subheading (the first six digits) when the master has it,
// else of its heading (the first four), shortened to the 30 characters table
// 12 takes at a word boundary (shortHSNDesc); "" when the master has neither.
func HSNDescription(code string) string {
	for _, n := range []int{6, 4} {
		if len(code) >= n {
			if d, ok := hsn.Description(code[:n]); ok {
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
// subheading and an 8-digit code's first six digits a subheading; and a shop
// whose aggregate turnover is above ₹5 crore gives six digits or more
// (Notification 78/2020-Central Tax), others four or more. Codes of another
// shape are named by the row's own check.
func hsnRefusal(code string, turnover Paise) string {
	n := len(code)
	if n < 4 || n > 8 || n%2 == 1 || !allDigits(code) {
		return ""
	}
	if why := hsnUnknown(code); why != "" {
		return why
	}
	if turnover > EInvoiceTurnover && n < 6 {
		return fmt.Sprintf("the HSN code %s has %d digits; a shop whose aggregate turnover is above %s gives six (Notification 78/2020-Central Tax), such as %sxx", code, n, EInvoiceTurnover, code)
	}
	return ""
}

// hsnUnknown is the sentence refusing a code of 4, 6 or 8 digits the master
// does not have, naming the first part of it that is wrong; "" when the
// master has it.
func hsnUnknown(code string) string {
	const check = "check the code on the invoice from your supplier"
	ch, head := code[:2], code[:4]
	switch _, chOK := hsn.Description(ch); {
	case ch == "99":
		return fmt.Sprintf("the HSN code %s is a services code (SAC, chapter 99), not goods of the HSN master (%s); a catalog row is goods, so %s", code, hsn.Edition, check)
	case !chOK:
		return fmt.Sprintf("the HSN code %s is not in the HSN master (%s): chapter %s does not exist (goods are chapters 01 to 97, without 77); %s", code, hsn.Edition, ch, check)
	}
	if _, ok := hsn.Description(head); !ok {
		if len(code) == 4 {
			return fmt.Sprintf("the HSN code %s is not a heading of the HSN master (%s); %s", code, hsn.Edition, check)
		}
		return fmt.Sprintf("the HSN code %s is not in the HSN master (%s): its heading %s does not exist; %s", code, hsn.Edition, head, check)
	}
	if len(code) == 4 {
		return ""
	}
	sub := code[:6]
	if _, ok := hsn.Description(sub); ok {
		return ""
	}
	if len(code) == 6 {
		return fmt.Sprintf("the HSN code %s is not a subheading of the HSN master (%s): heading %s has no subheading %s; %s", code, hsn.Edition, head, sub, check)
	}
	return fmt.Sprintf("the HSN code %s is not in the HSN master (%s): its first six digits %s are not a subheading of heading %s (an 8-digit tariff item extends a subheading of the HS); %s", code, hsn.Edition, sub, head, check)
}
