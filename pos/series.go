package pos

import (
	"fmt"
	"strconv"
	"time"
)

// Document series (DESIGN.md section 9). Every document is numbered once in its
// series, a series is one kind of document in one financial year, and each series
// starts again at 1 on 1 April:
//
//	TAX INVOICE (and RECEIPT)  T1/2627/000123   counter / FY / six digits
//	BILL OF SUPPLY             T1/B2627/00012   counter / B FY / five digits
//	CREDIT NOTE                T1/C2627/00012   counter / C FY / five digits
//
// The event that makes a sale paid, or a refund done, carries Series and DocNo;
// the journal refuses a DocNo that is not the last of its series plus one, and
// keeps the last number of every series outside the journal file too. Documents
// issued before series existed carry a ReceiptNo alone and keep their old number
// (T1-000123).

// DocKind is the kind of a numbered document.
type DocKind string

// The kinds of numbered document.
const (
	DocInvoice      DocKind = "invoice"        // TAX INVOICE, or RECEIPT for a shop without GSTIN
	DocBillOfSupply DocKind = "bill-of-supply" // exempt goods only, or a composition shop
	DocCreditNote   DocKind = "credit-note"    // a return, refund or price adjustment
)

// prefix is the letter before the financial year in the series.
func (k DocKind) prefix() string {
	switch k {
	case DocBillOfSupply:
		return "B"
	case DocCreditNote:
		return "C"
	}
	return ""
}

// IST is India Standard Time, a fixed +05:30 with no daylight saving: the zone of
// a document's date and financial year, without needing the tz database.
var IST = time.FixedZone("IST", 5*3600+30*60)

// FinancialYear returns the Indian financial year of t, taken in IST, as its two
// two-digit years: 1 April 2026 to 31 March 2027 is "2627".
func FinancialYear(t time.Time) string {
	t = t.In(IST)
	y := t.Year()
	if t.Month() < time.April {
		y--
	}
	return fmt.Sprintf("%02d%02d", y%100, (y+1)%100)
}

// SeriesOf returns the series a document of kind dated t is numbered in: "2627",
// "B2627" or "C2627".
func SeriesOf(kind DocKind, t time.Time) string { return kind.prefix() + FinancialYear(t) }

// SaleDocKind returns what a sale's document is: a BILL OF SUPPLY for a
// composition shop, or a registered shop selling exempt (0%) goods only, else a
// TAX INVOICE. A shop without GSTIN prints RECEIPT, numbered in the invoice series.
func SaleDocKind(shop Shop, lines []Line) DocKind {
	switch shop.Registration() {
	case Unregistered:
		return DocInvoice
	case Composition:
		return DocBillOfSupply
	}
	exempt := len(lines) > 0
	for _, l := range lines {
		if !l.GSTRate.IsZero() || !l.Cess.IsZero() {
			exempt = false
		}
	}
	if exempt {
		return DocBillOfSupply
	}
	return DocInvoice
}

// MaxDocNumber is the longest a printed document number may be (16 characters).
const MaxDocNumber = 16

// MaxTerminal is the longest terminal name that keeps every document number within
// MaxDocNumber: "/C2627/00012" takes 12.
const MaxTerminal = 4

// CheckTerminal checks a terminal's name as documents print it: 1 to MaxTerminal
// letters or digits.
func CheckTerminal(name string) error {
	ok := name != "" && len(name) <= MaxTerminal
	for _, c := range name {
		if !('A' <= c && c <= 'Z' || 'a' <= c && c <= 'z' || '0' <= c && c <= '9') {
			ok = false
		}
	}
	if !ok {
		return Errorf("The terminal name %q must be 1 to %d letters or digits, so that document numbers stay within %d characters; change \"terminal\" in config.json in the data directory.", name, MaxTerminal, MaxDocNumber)
	}
	return nil
}

// DocNumber formats a document number in a series: "T1/2627/000123" for the
// invoice series (six digits), "T1/C2627/00012" for the others (five). A number
// beyond the digits is printed whole. It is "" when no is 0.
func DocNumber(terminal, series string, no uint64) string {
	if no == 0 {
		return ""
	}
	width := 6
	if series != "" && (series[0] < '0' || series[0] > '9') {
		width = 5
	}
	s := series + "/" + fmt.Sprintf("%0*d", width, no)
	if terminal != "" {
		s = terminal + "/" + s
	}
	return s
}

// Number is a sale's or refund's document number as printed: in its series, or
// the receipt number it was issued with before series existed.
func Number(terminal, series string, docNo, receiptNo uint64) string {
	if docNo != 0 {
		return DocNumber(terminal, series, docNo)
	}
	return ReceiptNumber(terminal, receiptNo)
}

// ParseDocNumber reads a printed document number in a series ("T1/C2627/00012",
// or without the terminal "C2627/00012"); ok is false for anything else.
func ParseDocNumber(s string) (series string, no uint64, ok bool) {
	var parts []string
	start := 0
	for i := 0; i <= len(s); i++ {
		if i == len(s) || s[i] == '/' {
			parts = append(parts, s[start:i])
			start = i + 1
		}
	}
	if len(parts) == 3 {
		parts = parts[1:]
	}
	if len(parts) != 2 {
		return "", 0, false
	}
	series = parts[0]
	fy := series
	if len(fy) == 5 && (fy[0] == 'B' || fy[0] == 'C') {
		fy = fy[1:]
	}
	if len(fy) != 4 || !allDigits(fy) || parts[1] == "" || !allDigits(parts[1]) || len(parts[1]) > 12 {
		return "", 0, false
	}
	no, err := strconv.ParseUint(parts[1], 10, 64)
	if err != nil || no == 0 {
		return "", 0, false
	}
	return series, no, true
}

// saleTitle is the title of a sale's document: BILL OF SUPPLY when it was
// numbered in that series (exempt goods only, at a registered shop), else the
// shop's (Shop.DocumentTitle), so that a document's title and number agree.
func saleTitle(shop Shop, o Order) string {
	switch {
	case o.DocNo == 0:
		return shop.TitleFor(o.Lines) // a document numbered before the series
	case len(o.Series) > 0 && o.Series[0] == 'B':
		return "BILL OF SUPPLY"
	}
	return shop.DocumentTitle()
}
