package pos

import (
	"fmt"
	"slices"
	"strings"
)

// UQC is a unit quantity code of the GST portal: the unit a catalog row is sold
// in, printed with the quantity on every document (CGST Rule 46(i)) and reported
// in GSTR-1's HSN summary. "" is NOS (numbers), the unit of most goods a counter
// sells.
type UQC string

// NOS is numbers: the unit of a catalog row that names none.
const NOS UQC = "NOS"

// uqcs are the unit quantity codes the GST portal accepts, with what each is.
var uqcs = map[UQC]string{
	"BAG": "bags", "BAL": "bale", "BDL": "bundles", "BKL": "buckles", "BOU": "billion of units",
	"BOX": "box", "BTL": "bottles", "BUN": "bunches", "CAN": "cans", "CBM": "cubic meters",
	"CCM": "cubic centimeters", "CMS": "centimeters", "CTN": "cartons", "DOZ": "dozens",
	"DRM": "drums", "GGK": "great gross", "GMS": "grammes", "GRS": "gross", "GYD": "gross yards",
	"KGS": "kilograms", "KLR": "kilolitre", "KME": "kilometre", "LTR": "litres", "MLT": "millilitre",
	"MTR": "meters", "MTS": "metric ton", "NOS": "numbers", "OTH": "others", "PAC": "packs",
	"PCS": "pieces", "PRS": "pairs", "QTL": "quintal", "ROL": "rolls", "SET": "sets",
	"SQF": "square feet", "SQM": "square meters", "SQY": "square yards", "TBS": "tablets",
	"TGM": "ten gross", "THD": "thousands", "TON": "tonnes", "TUB": "tubes", "UGS": "US gallons",
	"UNT": "units", "YDS": "yards",
}

// UQCs lists the unit quantity codes the GST portal accepts, in order.
func UQCs() []UQC {
	out := make([]UQC, 0, len(uqcs))
	for u := range uqcs {
		out = append(out, u)
	}
	slices.Sort(out)
	return out
}

// ParseUQC reads a catalog row's unit: one of the GST portal's unit quantity codes,
// without regard to case or spaces ("pcs" is PCS). "" is the default, NOS. An
// unknown code is refused with the reason, which names the codes most shops use.
func ParseUQC(s string) (UQC, error) {
	u := UQC(strings.ToUpper(strings.TrimSpace(s)))
	if u == "" {
		return "", nil
	}
	if _, ok := uqcs[u]; !ok {
		return "", fmt.Errorf("the unit %q is not one of the GST portal's unit quantity codes (NOS numbers, PCS pieces, BOX, PAC packs, SET, PRS pairs, KGS, GMS, LTR, MTR…; %d in all)", printable(s), len(uqcs))
	}
	return u, nil
}

// OrNOS is the unit as printed: u, or NOS when the row named none.
func (u UQC) OrNOS() UQC {
	if u == "" {
		return NOS
	}
	return u
}
