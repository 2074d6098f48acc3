package receipts

import (
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"
)

// The layout is shared by every renderer: a receipt becomes rows of a fixed number of
// columns, so that text, ESC/POS, PNG and PDF print the same thing in the same place.

type align uint8

const (
	alignLeft align = iota
	alignCenter
	alignRight
)

type rowKind uint8

const (
	rowText rowKind = iota
	rowRule         // a horizontal rule drawn with ruleChar
	rowQR           // the receipt's QR code
)

// row is one printed line. A text row is either left and right parts (right aligned
// to the edge) or one text with an alignment. A big row is printed at double width
// and height and must fit half the columns.
type row struct {
	kind     rowKind
	left     string
	right    string
	align    align
	bold     bool
	big      bool
	ruleChar byte
}

// compose returns the row's text padded to width columns (for a left/right row) or
// aligned within width (for an aligned row).
func (rw row) compose(width int) string {
	if rw.kind == rowRule {
		return strings.Repeat(string(rw.ruleChar), width)
	}
	if rw.right != "" {
		gap := width - runeLen(rw.left) - runeLen(rw.right)
		return rw.left + strings.Repeat(" ", max(gap, 1)) + rw.right
	}
	pad := width - runeLen(rw.left)
	switch {
	case pad <= 0 || rw.align == alignLeft:
		return rw.left
	case rw.align == alignRight:
		return strings.Repeat(" ", pad) + rw.left
	default:
		return strings.Repeat(" ", pad/2) + rw.left
	}
}

func runeLen(s string) int { return utf8.RuneCountInString(s) }

// layouter collects the rows of one receipt at one width.
type layouter struct {
	cols int
	sign string // "₹" or "Rs."
	rows []row
}

// layout turns r into rows of cols columns, writing amounts with sign.
func layout(r Receipt, cols int, sign string) []row {
	l := &layouter{cols: cols, sign: sign, rows: make([]row, 0, 64)}
	l.header(r)
	switch r.Kind {
	case KindXReport, KindZReport:
		l.report(r)
	case KindTestPage:
		l.testPage()
	case KindRefund:
		l.refund(r)
	case KindCreditNote:
		l.creditNote(r)
	default:
		l.sale(r)
	}
	if isDocument(r) {
		l.signature(r.Shop.Name)
	}
	if r.QR != "" {
		l.blank()
		l.rows = append(l.rows, row{kind: rowQR})
	}
	if len(r.Footer) > 0 {
		l.blank()
		for _, f := range r.Footer {
			l.center(f, false)
		}
	}
	if r.Cancelled != nil {
		l.blank()
		l.cancelMark(r)
	}
	if r.Sandbox {
		l.blank()
		l.sandboxMark()
	}
	return l.rows
}

// testPage shows what the printer prints: its width in columns, a rule across
// it, the digits and letters, an amount with the rupee sign as this printer
// writes it. It is no document: no number, no total, no tax.
func (l *layouter) testPage() {
	l.lr("Columns", strconv.Itoa(l.cols), false)
	l.rule('=')
	l.text("0123456789 ABCDEFGHIJKLMNOPQRSTUVWXYZ", 0, false)
	l.text("abcdefghijklmnopqrstuvwxyz .,:;-/()", 0, false)
	l.lr("Bold", "left and right", true)
	l.lr("An amount", l.sign+"1,234.50", false)
	l.rule('-')
}

// isDocument reports whether r is a numbered document issued to a customer (a
// sale's, a credit note, a refund receipt), which carries the copy it is and a
// signature line; a report or a test page does not.
func isDocument(r Receipt) bool {
	switch r.Kind {
	case KindSale, "", KindCreditNote, KindRefund:
		return r.Number != ""
	}
	return false
}

// OriginalMark is what the first print of a document says (CGST Rule 48(1)).
const OriginalMark = "ORIGINAL FOR RECIPIENT"

// copyMark prints which copy r is: ORIGINAL FOR RECIPIENT on the first print of a
// document, "DUPLICATE — reprint N" on every later one.
func (l *layouter) copyMark(r Receipt) {
	switch {
	case r.Reprint > 0:
		l.rule('*')
		l.center("DUPLICATE — reprint "+strconv.Itoa(r.Reprint), true)
		l.rule('*')
	case isDocument(r):
		l.center(OriginalMark, true)
	}
}

// signature closes a document with the seller's signature line (CGST Rules
// 46(q), 49 and 53): "for SHOP", room to sign, "Authorised signatory".
func (l *layouter) signature(shop string) {
	l.blank()
	if shop != "" {
		l.rows = append(l.rows, row{left: "for " + shop, align: alignRight})
	}
	l.blank()
	l.rows = append(l.rows, row{left: "Authorised signatory", align: alignRight})
}

// sandboxMark says in a box of '#' that the document is the sandbox's.
func (l *layouter) sandboxMark() {
	l.rule('#')
	l.center(SandboxMark, true)
	l.rule('#')
}

func (l *layouter) blank() { l.rows = append(l.rows, row{}) }

func (l *layouter) rule(c byte) { l.rows = append(l.rows, row{kind: rowRule, ruleChar: c}) }

// closeRule draws the double rule above a total, in place of a single rule just
// drawn (the end of the items when no tax follows them).
func (l *layouter) closeRule() {
	if n := len(l.rows); n > 0 && l.rows[n-1].kind == rowRule && l.rows[n-1].ruleChar == '-' {
		l.rows = l.rows[:n-1]
	}
	l.rule('=')
}

// text adds s wrapped to the width, indented by indent spaces on every line.
// buyer prints the buyer named on a document under head, a field a line; strong
// sets the name, the GSTIN and the state delivered to in bold (the A4 invoice).
func (l *layouter) buyer(b Buyer, head string, strong bool) {
	l.text(head, 0, true)
	labelled := func(label, v string) string {
		if v == "" {
			return ""
		}
		return label + v
	}
	for _, f := range []struct {
		s    string
		bold bool
	}{
		{b.Name, strong},
		{b.Address, false},
		{labelled("State ", b.State), false},
		{labelled("GSTIN ", b.GSTIN), strong},
		{labelled("Ph ", b.Phone), false},
		{labelled("Delivered to ", deliveredTo(b)), strong},
	} {
		if f.s != "" {
			l.text(f.s, 2, f.bold)
		}
	}
}

// deliveredTo is where the goods are delivered, as printed: the address and
// the state, either of them, or "".
func deliveredTo(b Buyer) string {
	switch {
	case b.DeliveryAddress != "" && b.DeliveredTo != "":
		return b.DeliveryAddress + ", " + b.DeliveredTo
	case b.DeliveryAddress != "":
		return b.DeliveryAddress
	}
	return b.DeliveredTo
}

func (l *layouter) text(s string, indent int, bold bool) {
	pre := strings.Repeat(" ", indent)
	for _, w := range wrap(s, l.cols-indent) {
		l.rows = append(l.rows, row{left: pre + w, bold: bold})
	}
}

// center adds s wrapped and centred.
func (l *layouter) center(s string, bold bool) {
	for _, w := range wrap(s, l.cols) {
		l.rows = append(l.rows, row{left: w, align: alignCenter, bold: bold})
	}
}

// bigCenter adds s at double size, centred; it wraps to half the columns.
func (l *layouter) bigCenter(s string) {
	for _, w := range wrap(s, l.cols/2) {
		l.rows = append(l.rows, row{left: w, align: alignCenter, bold: true, big: true})
	}
}

// lr adds a label on the left and a value on the right. When both do not fit on one
// line, the label wraps and the value goes right-aligned on a line of its own.
func (l *layouter) lr(left, right string, bold bool) {
	if right == "" {
		l.text(left, 0, bold)
		return
	}
	if runeLen(left)+1+runeLen(right) <= l.cols {
		l.rows = append(l.rows, row{left: left, right: right, bold: bold})
		return
	}
	indent := len(left) - len(strings.TrimLeft(left, " "))
	l.text(strings.TrimLeft(left, " "), indent, bold)
	if runeLen(right) > l.cols {
		l.text(right, 0, bold)
		return
	}
	l.rows = append(l.rows, row{left: right, align: alignRight, bold: bold})
}

// bigLR adds a label and an amount at double size if they fit half the width, else
// the label and the amount on big lines of their own, else at normal size.
func (l *layouter) bigLR(left, right string) {
	half := l.cols / 2
	switch {
	case runeLen(left)+1+runeLen(right) <= half:
		l.rows = append(l.rows, row{left: left, right: right, bold: true, big: true})
	case runeLen(left) <= half && runeLen(right) <= half:
		l.rows = append(l.rows, row{left: left, bold: true, big: true})
		l.rows = append(l.rows, row{left: right, align: alignRight, bold: true, big: true})
	default:
		l.lr(left, right, true)
	}
}

func (l *layouter) money(p int64) string { return Money(p, l.sign) }

func (l *layouter) header(r Receipt) {
	if r.Shop.Name != "" {
		l.bigCenter(r.Shop.Name)
	}
	for _, a := range r.Shop.Address {
		l.center(a, false)
	}
	if r.Shop.Phone != "" {
		l.center("Ph "+r.Shop.Phone, false)
	}
	if r.Shop.GSTIN != "" {
		l.center("GSTIN "+r.Shop.GSTIN, false)
	}
	if r.Shop.State != "" {
		l.center("State "+r.Shop.State, false)
	}
	l.blank()
	switch r.Kind {
	case KindXReport:
		l.bigCenter("X REPORT")
	case KindZReport:
		title := "Z REPORT"
		if r.Report != nil && r.Report.ZNumber > 0 {
			title += " No. " + strconv.Itoa(r.Report.ZNumber)
		}
		l.bigCenter(title)
	case KindRefund:
		l.bigCenter("REFUND")
		l.center("Credit note", false)
	case KindCreditNote:
		l.bigCenter("CREDIT NOTE")
	case KindTestPage:
		l.bigCenter("PRINTER TEST")
	default:
		title := r.Title
		if title == "" {
			title = "TAX INVOICE"
		}
		l.center(title, true)
	}
	if r.Legend != "" {
		l.center(r.Legend, true)
	}
	if r.Sandbox {
		l.sandboxMark()
	}
	l.cancelMark(r)
	l.copyMark(r)
	l.rule('-')
	if r.Number != "" {
		label := numberLabel(r)
		if r.Kind == KindCreditNote {
			label = "Credit note"
		}
		l.lr(label, r.Number, false)
	}
	if !r.Time.IsZero() {
		label := "Date"
		if r.Kind == KindXReport || r.Kind == KindZReport || r.Kind == KindTestPage {
			label = "Printed"
		}
		l.lr(label, r.Time.Format("02 Jan 2006 15:04"), false)
	}
	if r.NoReverseCharge {
		l.lr("Reverse charge", "No", false)
	}
	if r.Terminal != "" || r.Cashier != "" {
		t, c := "Terminal "+r.Terminal, "Cashier "+r.Cashier
		if runeLen(t)+2+runeLen(c) <= l.cols && r.Terminal != "" && r.Cashier != "" {
			l.lr(t, c, false)
		} else {
			if r.Terminal != "" {
				l.lr("Terminal", r.Terminal, false)
			}
			if r.Cashier != "" {
				l.lr("Cashier", r.Cashier, false)
			}
		}
	}
	if r.MerchantOrderID != "" {
		l.lr("Order", r.MerchantOrderID, false)
	}
	l.billedTo(r)
}

// walkIn names the recipient of a document that records none: a walk-in buyer,
// unregistered, as on the invoice.
const walkIn = "Buyer: walk-in customer (unregistered), as on the invoice"

// billedTo prints who the document is issued to and the place of supply.
func (l *layouter) billedTo(r Receipt) {
	if b := r.Buyer; b != nil {
		l.rule('-')
		head := "Buyer (unregistered)"
		if b.GSTIN != "" {
			head = "Buyer (registered)"
		}
		l.buyer(*b, head, false)
	} else if r.Kind == KindCreditNote {
		// Rule 53(1A): the recipient as on the invoice, named or not.
		l.rule('-')
		l.text(walkIn, 0, false)
	}
	if r.PlaceOfSupply != "" {
		l.lr("Place of supply", r.PlaceOfSupply, false)
	}
}

// quantity is a line's quantity with its unit: "2 PCS", or "2" without one.
func quantity(qty int, unit string) string {
	if unit == "" {
		return strconv.Itoa(qty)
	}
	return strconv.Itoa(qty) + " " + unit
}

// items lists the lines; noTax leaves out every tax figure (Receipt.NoTax).
func (l *layouter) items(lines []Line, noTax bool) {
	if len(lines) == 0 {
		return
	}
	l.rule('-')
	units, sum := 0, int64(0)
	for _, it := range lines {
		units += it.Qty
		sum += it.Amount
		l.text(it.Name, 0, true)
		qty := quantity(it.Qty, it.Unit) + " x " + Amount(it.UnitPrice)
		hsn := ""
		if it.HSN != "" {
			hsn = "HSN " + it.HSN
		}
		// A taxed line shows its taxable value and tax; an exempt one (0%, no
		// cess) has none to show.
		detailed := !noTax && (it.GSTRate != 0 || it.CessRate != 0) && (it.Taxable != 0 || it.Tax != 0)
		if it.GSTRate > 0 && !detailed && !noTax {
			hsn = strings.TrimSpace(hsn + " GST " + percent(it.GSTRate))
		}
		amount := Amount(it.Amount)
		gross := amount
		if it.Discount != 0 {
			gross = Amount(it.Amount + it.Discount)
		}
		switch {
		case hsn == "":
			l.lr("  "+qty, gross, false)
		case 2+runeLen(hsn)+2+runeLen(qty)+1+runeLen(gross) <= l.cols:
			l.lr("  "+hsn+"  "+qty, gross, false)
		default:
			l.text(hsn, 2, false)
			l.lr("  "+qty, gross, false)
		}
		if it.Discount != 0 {
			l.lr("  Discount", Amount(-it.Discount), false)
		}
		if detailed {
			l.lr("  Taxable value", Amount(it.Taxable), false)
			l.lr("  GST @"+percent(it.GSTRate), Amount(it.Tax), false)
			if it.CessRate > 0 || it.Cess != 0 {
				l.lr("  Cess @"+percent(it.CessRate), Amount(it.Cess), false)
			}
		}
		for _, imei := range it.IMEIs {
			l.text("IMEI "+imei, 2, false)
		}
	}
	l.lr("Items "+strconv.Itoa(len(lines))+"  Qty "+strconv.Itoa(units), Amount(sum), false)
	l.rule('-')
}

func (l *layouter) taxes(taxes []TaxLine, heading string) {
	if len(taxes) == 0 {
		return
	}
	if heading != "" {
		l.text(heading, 0, true)
	}
	for _, t := range taxes {
		l.lr("Taxable value @"+percent(t.Rate), Amount(t.Taxable), false)
		if t.IGST != 0 {
			l.lr("  IGST @"+percent(t.Rate), Amount(t.IGST), false)
			continue
		}
		l.lr("  CGST @"+halfPercent(t.Rate), Amount(t.CGST), false)
		l.lr("  SGST @"+halfPercent(t.Rate), Amount(t.SGST), false)
	}
	for _, t := range taxes {
		if t.Cess != 0 {
			l.lr("Cess on goods @"+percent(t.Rate), Amount(t.Cess), false)
		}
	}
}

// hsnSummary prints the taxable value and tax per HSN code and rate.
func (l *layouter) hsnSummary(rows []HSNLine) {
	if len(rows) == 0 {
		return
	}
	l.text("HSN summary", 0, true)
	for _, h := range rows {
		l.lr(fmt.Sprintf("%s @%s  Qty %d", h.HSN, percent(h.Rate), h.Qty), Amount(h.Taxable), false)
		tax := h.CGST + h.SGST + h.IGST
		label := "  CGST+SGST"
		if h.IGST != 0 {
			label = "  IGST"
		}
		l.lr(label, Amount(tax), false)
		if h.Cess != 0 {
			l.lr("  Cess", Amount(h.Cess), false)
		}
	}
}

func (l *layouter) sale(r Receipt) {
	l.items(r.Lines, r.NoTax)
	if !r.NoTax {
		l.taxes(r.Taxes, "")
		if len(r.HSN) > 0 {
			l.rule('-')
			l.hsnSummary(r.HSN)
		}
	}
	if r.RoundOff != 0 {
		l.rule('-')
		l.lr("Invoice value", Amount(r.Total-r.RoundOff), false)
		l.lr("Round off", signed(r.RoundOff), false)
	}
	l.closeRule()
	l.bigLR("TOTAL", l.money(r.Total))
	l.text(Words(r.Total), 0, false)
	l.rule('=')
	for _, t := range r.Tenders {
		l.tender(t, "Paid by ")
	}
}

func (l *layouter) refund(r Receipt) {
	if f := r.Refund; f != nil {
		l.lr("Against receipt", f.OriginalNumber, false)
		if f.OriginalOrderID != r.MerchantOrderID {
			// A refund is made on the sale's own order: name it once.
			l.lr("Sale order", f.OriginalOrderID, false)
		}
		if !f.OriginalTime.IsZero() {
			l.lr("Sale date", f.OriginalTime.Format("02 Jan 2006 15:04"), false)
		}
		l.lr("Refund id", f.UniqueTxnID, false)
		if f.Partial {
			l.text("Partial refund", 0, true)
		}
	}
	l.items(r.Lines, r.NoTax)
	if !r.NoTax {
		l.taxes(r.Taxes, "GST reversed")
	}
	l.rule('=')
	l.bigLR("REFUND", l.money(r.Total))
	l.text(Words(r.Total), 0, false)
	l.rule('=')
	for _, t := range r.Tenders {
		l.tender(t, "Refunded to ")
	}
	if r.Refund != nil && r.Refund.Reason != "" {
		l.text("Reason: "+r.Refund.Reason, 0, false)
	}
}

// cardName is the brand and the last four digits. Only the last four characters
// of CardLast4 are ever printed, whatever a caller put there.
func cardName(t Tender) string {
	s := strings.TrimSpace(t.CardBrand)
	if last := []rune(strings.TrimSpace(t.CardLast4)); len(last) > 0 {
		s = strings.TrimSpace(s + " •••• " + string(last[max(len(last)-4, 0):]))
	}
	return s
}

func (l *layouter) tender(t Tender, verb string) {
	switch t.Kind {
	case TenderCash:
		l.lr(verb+"cash", Amount(t.Amount), true)
		if t.Tendered > 0 {
			l.lr("  Cash tendered", Amount(t.Tendered), false)
			l.lr("  Change", Amount(t.Change), false)
		}
		return
	case TenderUPI:
		l.lr(verb+"UPI", Amount(t.Amount), true)
		l.center("confirmed by the cashier", false)
		return
	case TenderNote:
		l.lr(verb+"credit note", Amount(t.Amount), true)
		if t.Method != "" {
			l.lr("  Credit note", t.Method, false)
		}
		return
	case TenderPhone:
		what := "phone"
		if t.Method != "" {
			what += " (" + t.Method + ")"
		}
		l.lr(verb+what, Amount(t.Amount), true)
	case TenderEMI:
		l.lr(verb+"EMI", Amount(t.Amount), true)
		if c := cardName(t); c != "" {
			l.lr("  Card", c, false)
		}
		if t.EMI != nil {
			l.emi(*t.EMI)
		}
	default:
		label := verb + "card"
		if c := cardName(t); c != "" {
			label = verb + c
		}
		l.lr(label, Amount(t.Amount), true)
	}
	if t.AuthCode != "" {
		l.lr("  Auth code", t.AuthCode, false)
	}
	if t.RRN != "" {
		label := "  RRN"
		if t.Kind == TenderPhone && strings.EqualFold(t.Method, "UPI") {
			label = "  UPI ref" // the UPI transaction's reference number
		}
		l.lr(label, t.RRN, false)
	}
	if t.ServiceOrderID != "" {
		l.lr("  Service order", t.ServiceOrderID, false)
	}
	if t.PaymentID != "" {
		l.lr("  Payment id", t.PaymentID, false)
	}
	refund := verb == "Refunded to "
	switch {
	case t.Verified && refund:
		l.center("** REFUND VERIFIED **", true)
	case t.Verified:
		l.center("** PAYMENT VERIFIED **", true)
	case refund:
		l.center("refund not verified", false)
	default:
		l.center("payment not verified", false)
	}
}

func (l *layouter) emi(e EMIPlan) {
	head := "EMI"
	if e.Issuer != "" {
		head += " " + e.Issuer
	}
	if e.TenureMonths > 0 {
		head += ", " + strconv.Itoa(e.TenureMonths) + " months"
	}
	l.text(head, 2, true)
	if e.Program != "" {
		l.lr("  Plan", e.Program, false)
	}
	if e.Financed > 0 {
		l.lr("  Amount financed", Amount(e.Financed), false)
	}
	interest := "  Interest"
	if e.InterestRate > 0 {
		interest += " @" + percent(e.InterestRate) + " p.a."
	}
	l.lr(interest, Amount(e.Interest), false)
	if e.Discount > 0 {
		l.lr("  Less discount", Amount(-e.Discount), false)
	}
	if e.TotalCost > 0 {
		l.lr("  You pay in all", Amount(e.TotalCost), true)
	}
	l.lr("  Monthly instalment", Amount(e.Monthly), true)
	if e.TenureMonths > 0 {
		l.text(instalments(e), 4, false)
	}
	if e.NoCost {
		l.text("No-cost EMI: the discount pays the bank's interest.", 4, false)
	}
}

// instalments says how the instalments add up to the total: "6 instalments of
// 13,015.18", or, when the total does not divide by the tenure, "5 of 12,499.83
// and a last of 12,499.85".
func instalments(e EMIPlan) string {
	last := e.LastMonthly
	if last == 0 {
		last = e.Monthly
	}
	switch {
	case e.TenureMonths == 1:
		return "1 instalment of " + Amount(last)
	case last == e.Monthly:
		return strconv.Itoa(e.TenureMonths) + " instalments of " + Amount(last)
	}
	return strconv.Itoa(e.TenureMonths-1) + " of " + Amount(e.Monthly) + " and a last of " + Amount(last)
}

func reportLabel(rw ReportRow) string {
	if rw.Count == 0 {
		return rw.Label
	}
	return rw.Label + " (" + strconv.Itoa(rw.Count) + ")"
}

func (l *layouter) report(r Receipt) {
	rep := r.Report
	if rep == nil {
		return
	}
	if !rep.Day.IsZero() {
		l.lr("Business day", rep.Day.Format("02 Jan 2006"), true)
	}
	if rep.FirstReceipt != "" {
		l.lr("Receipts", rep.FirstReceipt+" to "+rep.LastReceipt, false)
	}
	l.rule('-')
	for _, rw := range []ReportRow{rep.Sales, rep.Refunds, rep.Failed, rep.Unknown, rep.Abandoned} {
		if rw.Label != "" {
			l.lr(reportLabel(rw), Amount(rw.Amount), false)
		}
	}
	section := func(title string, rows []ReportRow) {
		if len(rows) == 0 {
			return
		}
		l.rule('-')
		l.text(title, 0, true)
		for _, rw := range rows {
			l.lr("  "+reportLabel(rw), Amount(rw.Amount), false)
		}
	}
	section("By tender", rep.ByTender)
	section("By EMI plan", rep.ByEMI)
	if len(rep.Taxes) > 0 && !r.NoTax {
		l.rule('-')
		l.taxes(rep.Taxes, "GST collected")
	}
	l.reportReturns(rep, r.NoTax)
	l.rule('=')
	l.bigLR("NET", l.money(rep.Net))
	l.lr("Cash expected in drawer", l.money(rep.CashExpected), true)
	l.rule('=')
	if r.Kind == KindZReport {
		l.center("Day closed. This report is final.", true)
	} else {
		l.center("X report: the day is still open.", false)
	}
}

// wrap breaks s into lines of at most width runes at spaces, splitting words longer
// than a line.
func wrap(s string, width int) []string {
	if width < 1 {
		width = 1
	}
	var out []string
	var cur []rune
	for _, w := range strings.Fields(s) {
		rw := []rune(w)
		for len(rw) > width {
			if len(cur) > 0 {
				out = append(out, string(cur))
				cur = cur[:0]
			}
			out = append(out, string(rw[:width]))
			rw = rw[width:]
		}
		switch {
		case len(cur) == 0:
			cur = append(cur, rw...)
		case len(cur)+1+len(rw) <= width:
			cur = append(append(cur, ' '), rw...)
		default:
			out = append(out, string(cur))
			cur = append(cur[:0], rw...)
		}
	}
	if len(cur) > 0 {
		out = append(out, string(cur))
	}
	if len(out) == 0 {
		out = append(out, "")
	}
	return out
}

// signed formats paise with an explicit sign: "+0.50", "-0.49".
func signed(p int64) string {
	if p < 0 {
		return Amount(p)
	}
	return "+" + Amount(p)
}

// numberLabel names a document's number: an invoice's, a bill's, or a receipt's.
func numberLabel(r Receipt) string {
	if r.Kind != KindSale && r.Kind != "" {
		return "Receipt"
	}
	switch r.Title {
	case "", "TAX INVOICE":
		return "Invoice No."
	case "BILL OF SUPPLY":
		return "Bill No."
	}
	return "Receipt"
}
