package pos

import "fmt"

// The HSN check at catalog import and the HSN descriptions of GSTR-1's table 12
// (docs/gstr1.md, "HSN master"). The portal's full master (the HSN sheet of
// tutorial.gst.gov.in/downloads/HSN_SAC.xlsx) could not be fetched from a
// public repository here; what ships is the structure every code must have
// (a chapter of the HS nomenclature, 01 to 98 without 77) and a subset of
// headings, those of the goods phone, electronics and general stores sell,
// with their descriptions shortened to the 30 characters table 12 takes.

// hsnHeadings is the subset of the HSN master Galla carries: 4-digit headings
// and their descriptions.
var hsnHeadings = map[string]string{
	"0701": "Potatoes, fresh or chilled",
	"1006": "Rice",
	"2106": "Food preparations n.e.s.",
	"2401": "Unmanufactured tobacco",
	"2402": "Cigars, cheroots, cigarettes",
	"2403": "Other manufactured tobacco",
	"2404": "Products for inhalation",
	"3926": "Other articles of plastics",
	"4202": "Cases, bags and containers",
	"4901": "Printed books, brochures",
	"8414": "Air pumps, fans",
	"8415": "Air conditioning machines",
	"8418": "Refrigerators, freezers",
	"8443": "Printers, copying machines",
	"8450": "Washing machines",
	"8471": "Computers and units thereof",
	"8473": "Parts of computers",
	"8504": "Transformers, chargers",
	"8506": "Primary cells and batteries",
	"8507": "Electric accumulators",
	"8516": "Electric heaters, ovens",
	"8517": "Telephone sets",
	"8518": "Microphones, headphones",
	"8519": "Sound recording apparatus",
	"8521": "Video recording apparatus",
	"8523": "Storage media, memory cards",
	"8525": "Cameras, transmitters",
	"8527": "Radio receivers",
	"8528": "Monitors and televisions",
	"8529": "Parts of TVs and radios",
	"8544": "Insulated wire and cable",
	"9006": "Photographic cameras",
	"9102": "Wrist watches",
	"9504": "Video game consoles, games",
}

// HSNDescription is the master's description of code's heading, "" when the
// subset Galla carries does not have it.
func HSNDescription(code string) string {
	if len(code) < 4 {
		return ""
	}
	return hsnHeadings[code[:4]]
}

// hsnRefusal is why an HSN code cannot be imported for a shop of turnover, or
// "": its chapter must be one of the HS nomenclature's (01 to 98, 77 unused),
// and a shop whose aggregate turnover is above ₹5 crore gives six digits or
// more (Notification 78/2020-Central Tax), others four or more.
func hsnRefusal(code string, turnover Paise) string {
	if len(code) < 4 || !allDigits(code) {
		return "" // the row's own check names it
	}
	if ch := code[:2]; ch == "00" || ch == "77" || ch > "98" {
		return fmt.Sprintf("the HSN code %s is not in the GST portal's HSN master: chapter %s does not exist (goods are chapters 01 to 98)", code, ch)
	}
	if turnover > EInvoiceTurnover && len(code) < 6 {
		return fmt.Sprintf("the HSN code %s has %d digits; a shop whose aggregate turnover is above %s gives six (Notification 78/2020-Central Tax), such as %sxx", code, len(code), EInvoiceTurnover, code)
	}
	return ""
}
