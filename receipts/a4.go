package receipts

import (
	"fmt"
	"strconv"
	"strings"
)

// The A4 tax invoice: a sale's document on an A4 page for a business buyer or an
// e-mail, laid out on a grid of a4Cols monospaced columns: the title, the seller
// and the document's number, date and place of supply side by side, the buyer,
// the table of lines (HSN, quantity, unit price, discount, taxable value, rate,
// tax, amount), the HSN summary, the totals with round-off, the total in words,
// the tenders, the QR code and the footer.
const (
	a4Cols     = 100
	a4FontSize = 8.0 // points: 100 columns of DejaVu Sans Mono are 481.6 pt
	a4LineH    = 11.0
)

// a4Table is one column of a table: its heading, its width (the cell includes
// the space before it) and whether it is right-aligned.
type a4Col struct {
	head  string
	width int
	right bool
}

// a4Row formats cells under cols.
func a4Row(cols []a4Col, cells ...string) string {
	var b strings.Builder
	for i, c := range cols {
		s := ""
		if i < len(cells) {
			s = cells[i]
		}
		pad := max(c.width-runeLen(s), 0) // a figure wider than its column pushes the rest right, never cut
		if c.right {
			b.WriteString(strings.Repeat(" ", pad) + s)
		} else {
			b.WriteString(s + strings.Repeat(" ", pad))
		}
	}
	return strings.TrimRight(b.String(), " ")
}

func a4Heads(cols []a4Col) []string {
	out := make([]string, len(cols))
	for i, c := range cols {
		out[i] = c.head
	}
	return out
}

// a4Layout turns a sale into the rows of the A4 invoice.
func a4Layout(r Receipt) []row {
	l := &layouter{cols: a4Cols, sign: "₹", rows: make([]row, 0, 96)}
	title := r.Title
	if title == "" {
		title = "TAX INVOICE"
	}
	l.a4Top(r, title)
	doc := a4KV{}
	doc.add(numberLabel(r), r.Number)
	if !r.Time.IsZero() {
		doc.add("Date", r.Time.Format("02 Jan 2006 15:04"))
	}
	doc.add("Place of supply", r.PlaceOfSupply)
	if r.Interstate && !r.NoTax {
		doc.add("Supply", "inter-state (IGST)")
	}
	if r.NoReverseCharge {
		doc.add("Reverse charge", "No")
	}
	doc.add("Order", r.MerchantOrderID)
	doc.add("Terminal", r.Terminal)
	doc.add("Cashier", r.Cashier)
	l.a4Parties(r, doc)
	l.a4Buyer(r, "Billed to: walk-in customer")

	// The lines.
	taxHead := "CGST+SGST"
	if r.Interstate {
		taxHead = "IGST"
	}
	cols := []a4Col{
		{"#", 3, false}, {"Description", 19, false}, {"HSN", 9, false}, {"Qty", 8, true},
		{"Unit price", 11, true}, {"Discount", 9, true}, {"Taxable", 11, true}, {"Rate", 6, true},
		{taxHead, 11, true}, {"Amount", 0, true},
	}
	// A bill of supply, or any document of a seller who states no tax, has no
	// taxable, rate or tax columns.
	bill := r.Title == "BILL OF SUPPLY" || r.NoTax
	if bill {
		cols = []a4Col{{"#", 3, false}, {"Description", 34, false}, {"HSN", 10, false}, {"Qty", 8, true},
			{"Unit price", 15, true}, {"Discount", 14, true}, {"Amount", 0, true}}
	}
	fillLast(cols)
	l.rows = append(l.rows, row{left: a4Row(cols, a4Heads(cols)...), bold: true})
	l.rule('-')
	for i, it := range r.Lines {
		name := wrap(it.Name, cols[1].width-1)
		disc, taxable, rate, tax := "", "", "", ""
		if it.Discount != 0 {
			disc = Amount(it.Discount)
		}
		if it.Taxable != 0 || it.Tax != 0 {
			taxable, tax = Amount(it.Taxable), Amount(it.Tax)
		}
		rate = percent(it.GSTRate)
		cells := []string{strconv.Itoa(i + 1), name[0], it.HSN, quantity(it.Qty, it.Unit), Amount(it.UnitPrice), disc, taxable, rate, tax, Amount(it.Amount)}
		if bill {
			cells = append(cells[:6], Amount(it.Amount))
		}
		l.rows = append(l.rows, row{left: a4Row(cols, cells...)})
		for _, n := range name[1:] {
			l.rows = append(l.rows, row{left: a4Row(cols, "", n)})
		}
		if !r.NoTax && (it.CessRate != 0 || it.Cess != 0) {
			l.rows = append(l.rows, row{left: a4Row(cols, "", "Cess @"+percent(it.CessRate), "", "", "", "", "", "", Amount(it.Cess))})
		}
		for _, imei := range it.IMEIs {
			l.rows = append(l.rows, row{left: a4Row(cols, "", "IMEI "+imei)})
		}
	}
	l.rule('-')

	// The HSN summary (a tax invoice's), then the totals.
	if len(r.HSN) > 0 && !r.NoTax {
		l.text("HSN summary", 0, true)
		hc := []a4Col{{"HSN", 10, false}, {"Rate", 7, true}, {"Qty", 6, true}, {"Taxable", 15, true},
			{"CGST", 12, true}, {"SGST", 12, true}, {"IGST", 12, true}, {"Cess", 11, true}, {"Total tax", 15, true}}
		l.rows = append(l.rows, row{left: a4Row(hc, a4Heads(hc)...), bold: true})
		var sum HSNLine
		for _, h := range r.HSN {
			l.rows = append(l.rows, row{left: a4Row(hc, h.HSN, percent(h.Rate), strconv.Itoa(h.Qty), Amount(h.Taxable),
				Amount(h.CGST), Amount(h.SGST), Amount(h.IGST), Amount(h.Cess), Amount(h.CGST+h.SGST+h.IGST+h.Cess))})
			sum.Qty += h.Qty
			sum.Taxable += h.Taxable
			sum.CGST += h.CGST
			sum.SGST += h.SGST
			sum.IGST += h.IGST
			sum.Cess += h.Cess
		}
		l.rows = append(l.rows, row{left: a4Row(hc, "Total", "", strconv.Itoa(sum.Qty), Amount(sum.Taxable),
			Amount(sum.CGST), Amount(sum.SGST), Amount(sum.IGST), Amount(sum.Cess), Amount(sum.CGST+sum.SGST+sum.IGST+sum.Cess)), bold: true})
		l.rule('-')
	}
	if !r.NoTax {
		l.a4Taxes(r.Taxes)
	}
	if r.RoundOff != 0 {
		l.a4Total("Round off", signed(r.RoundOff), false)
	}
	l.a4Total("TOTAL", Money(r.Total, "₹"), true)
	l.text("Amount in words: "+Words(r.Total), 0, true)
	l.rule('-')
	for _, t := range r.Tenders {
		l.tender(t, "Paid by ")
	}
	l.a4Close(r)
	return l.rows
}

// a4KV is the document's details as the A4 page prints them beside the seller:
// a label and its value a line.
type a4KV []string

func (kv *a4KV) add(k, v string) {
	if v != "" {
		*kv = append(*kv, fmt.Sprintf("%-16s%s", k, v))
	}
}

// fillLast gives the last column what is left of the page's columns.
func fillLast(cols []a4Col) {
	used := 0
	for _, c := range cols[:len(cols)-1] {
		used += c.width
	}
	cols[len(cols)-1].width = a4Cols - used
}

// a4Top prints an A4 document's title, its legend, the sandbox and cancelled
// marks and which copy it is.
func (l *layouter) a4Top(r Receipt, title string) {
	l.bigCenter(title)
	if r.Legend != "" {
		l.center(r.Legend, true)
	}
	if r.Sandbox {
		l.sandboxMark()
	}
	l.cancelMark(r)
	switch {
	case r.Reprint > 0:
		l.center("DUPLICATE — reprint "+strconv.Itoa(r.Reprint), true)
	case isDocument(r):
		l.center(OriginalMark, true)
	}
	l.rule('=')
}

// a4Parties prints the seller on the left and the document's details on the
// right.
func (l *layouter) a4Parties(r Receipt, right a4KV) {
	var left []row
	if r.Shop.Name != "" {
		left = append(left, row{left: r.Shop.Name, bold: true})
	}
	for _, a := range r.Shop.Address {
		left = append(left, row{left: a})
	}
	if r.Shop.Phone != "" {
		left = append(left, row{left: "Ph " + r.Shop.Phone})
	}
	if r.Shop.GSTIN != "" {
		left = append(left, row{left: "GSTIN " + r.Shop.GSTIN})
	}
	if r.Shop.State != "" {
		left = append(left, row{left: "State " + r.Shop.State})
	}
	for i := 0; i < max(len(left), len(right)); i++ {
		var rw row
		if i < len(left) {
			rw = left[i]
			if runeLen(rw.left) > 54 {
				rw.left = string([]rune(rw.left)[:54])
			}
		}
		if i < len(right) {
			rw.left += strings.Repeat(" ", max(56-runeLen(rw.left), 1)) + right[i]
		}
		l.rows = append(l.rows, rw)
	}
	l.rule('-')
}

// a4Buyer prints who the document is issued to, or none when it names nobody.
func (l *layouter) a4Buyer(r Receipt, none string) {
	if b := r.Buyer; b != nil {
		head := "Billed to (unregistered buyer)"
		if b.GSTIN != "" {
			head = "Billed to (registered buyer)"
		}
		l.buyer(*b, head, true)
	} else {
		l.text(none, 0, false)
	}
	l.rule('-')
}

// a4Total prints a label and its amount in the totals' column.
func (l *layouter) a4Total(label, value string, bold bool) {
	l.rows = append(l.rows, row{left: strings.Repeat(" ", 56) + label, right: value, bold: bold})
}

// a4Taxes prints the taxable value and the tax by rate in the totals' column.
func (l *layouter) a4Taxes(taxes []TaxLine) {
	var taxable, cess int64
	for _, t := range taxes {
		taxable += t.Taxable
		cess += t.Cess
	}
	if len(taxes) > 0 {
		l.a4Total("Taxable value", Amount(taxable), false)
	}
	for _, t := range taxes {
		if t.IGST != 0 {
			l.a4Total("IGST @"+percent(t.Rate), Amount(t.IGST), false)
			continue
		}
		l.a4Total("CGST @"+halfPercent(t.Rate), Amount(t.CGST), false)
		l.a4Total("SGST @"+halfPercent(t.Rate), Amount(t.SGST), false)
	}
	if cess != 0 {
		l.a4Total("Cess", Amount(cess), false)
	}
}

// a4Close ends an A4 document: the QR code, the signature, the footer and the
// closing marks.
func (l *layouter) a4Close(r Receipt) {
	if r.QR != "" {
		l.blank()
		l.rows = append(l.rows, row{kind: rowQR})
	}
	l.signature(r.Shop.Name)
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
}
