package receipts

import "strconv"

// a4CreditLayout turns a credit note into the rows of its A4 page (CGST Rule
// 53): the title, the seller and the note's number, date, the invoice it
// credits and the place of supply side by side, the recipient as on the
// invoice, the table of lines returned with the taxable value and tax each
// reverses, the tax reversed by rate, the total in figures and words, where the
// money went, the reason, the QR code and the signature.
func a4CreditLayout(r Receipt) []row {
	l := &layouter{cols: a4Cols, sign: "₹", rows: make([]row, 0, 64)}
	c := r.Credit
	if c == nil {
		c = &CreditNote{}
	}
	l.a4Top(r, "CREDIT NOTE")
	doc := a4KV{}
	doc.add("Credit note No.", r.Number)
	if !r.Time.IsZero() {
		doc.add("Date", r.Time.Format("02 Jan 2006 15:04"))
	}
	doc.add("Against invoice", c.InvoiceNumber)
	if !c.InvoiceTime.IsZero() {
		doc.add("Invoice date", c.InvoiceTime.Format("02 Jan 2006"))
	}
	doc.add("Place of supply", r.PlaceOfSupply)
	if r.Interstate && !r.NoTax {
		doc.add("Supply", "inter-state (IGST)")
	}
	if r.NoReverseCharge {
		doc.add("Reverse charge", "No")
	}
	doc.add("Order", r.MerchantOrderID)
	if c.InvoiceOrderID != r.MerchantOrderID {
		doc.add("Sale order", c.InvoiceOrderID)
	}
	doc.add("Terminal", r.Terminal)
	doc.add("Cashier", r.Cashier)
	l.a4Parties(r, doc)
	l.a4Buyer(r, walkIn)

	taxHead := "CGST+SGST"
	if r.Interstate {
		taxHead = "IGST"
	}
	cols := []a4Col{
		{"#", 3, false}, {"Description", 24, false}, {"HSN", 9, false}, {"Qty", 8, true},
		{"Unit price", 12, true}, {"Taxable", 12, true}, {"Rate", 6, true}, {taxHead, 11, true}, {"Amount", 0, true},
	}
	if r.NoTax {
		cols = []a4Col{{"#", 3, false}, {"Description", 40, false}, {"HSN", 10, false}, {"Qty", 10, true},
			{"Unit price", 17, true}, {"Amount", 0, true}}
	}
	fillLast(cols)
	adjust := len(c.Lines) > 0
	for _, it := range c.Lines {
		if it.Qty > 0 {
			adjust = false
		}
	}
	if adjust {
		l.text("Price adjustment, no goods returned", 0, true)
	}
	l.rows = append(l.rows, row{left: a4Row(cols, a4Heads(cols)...), bold: true})
	l.rule('-')
	for i, it := range c.Lines {
		name := wrap(it.Name, cols[1].width-1)
		qty, unit := "", ""
		if it.Qty > 0 {
			qty, unit = quantity(it.Qty, it.Unit), Amount(it.UnitPrice)
		}
		cells := []string{strconv.Itoa(i + 1), name[0], it.HSN, qty, unit, Amount(it.Taxable), percent(it.GSTRate), Amount(it.Tax), Amount(it.Amount)}
		if r.NoTax {
			cells = append(cells[:5], Amount(it.Amount))
		}
		l.rows = append(l.rows, row{left: a4Row(cols, cells...)})
		for _, n := range name[1:] {
			l.rows = append(l.rows, row{left: a4Row(cols, "", n)})
		}
		for _, imei := range it.IMEIs {
			l.rows = append(l.rows, row{left: a4Row(cols, "", "IMEI "+imei)})
		}
	}
	l.rule('-')
	if !r.NoTax {
		l.a4Taxes(r.Taxes)
	}
	if r.RoundOff != 0 {
		l.a4Total("Round off", signed(r.RoundOff), false)
	}
	l.a4Total("CREDIT", Money(r.Total, "₹"), true)
	l.text("Amount in words: "+Words(r.Total), 0, true)
	l.rule('-')
	for _, t := range r.Tenders {
		if t.Kind == TenderNote {
			l.lr("Credit note to spend", Amount(t.Amount), true)
			l.lr("  Value left", Amount(c.NoteLeft), false)
			l.text("Spend it on a later purchase at this shop: show this note.", 0, false)
			continue
		}
		l.tender(t, "Refunded to ")
	}
	if c.Reason != "" {
		l.text("Reason: "+c.Reason, 0, false)
	}
	l.a4Close(r)
	return l.rows
}
