package ui

import (
	"strings"

	"galla/pos"
)

// emiPartOf is what the EMI offers of a split sale's tender are for: "₹29,999.00
// of the ₹39,999.00 sale", the part and the sale's total.
func emiPartOf(part, sale pos.Paise) string {
	return part.String() + " of the " + sale.String() + " sale"
}

// emiTitle is the EMI offers screen's title for what (a product's name, "the
// whole cart", or a part of the sale from emiPartOf) of amount: "EMI offers for
// the whole cart (₹74,999.00)", or "EMI offers for ₹29,999.00 of the ₹39,999.00
// sale", which names its amount already.
func emiTitle(what string, amount pos.Paise) string {
	if strings.HasPrefix(what, amount.String()+" of the ") {
		return "EMI offers for " + what
	}
	return "EMI offers for " + what + " (" + amount.String() + ")"
}
