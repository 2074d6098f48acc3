package receipts

import (
	"strconv"
	"time"
)

// KindCreditNote is a CREDIT NOTE (DESIGN.md section 9): goods returned, a refund
// or a price adjustment after the invoice, citing the invoice's number and date,
// the goods, and the taxable value and tax it reverses.
const KindCreditNote Kind = "credit-note"

// TenderNote is a credit note to spend: the destination of a return that gives no
// money back, and the tender of a sale it pays (Tender.Method then holds the
// note's number).
const TenderNote TenderKind = "note"

// CreditNote is the body of a KindCreditNote document.
type CreditNote struct {
	InvoiceNumber  string    // the invoice it credits
	InvoiceTime    time.Time // that invoice's date
	InvoiceOrderID string    // that sale's merchant order id
	Reason         string
	// Lines are the goods returned (Qty > 0) or, for a price adjustment without
	// goods (Qty 0), the lines the adjustment is split over.
	Lines []CreditLine
	// NoteLeft is, for a credit note to spend, the value left on it (paise).
	NoteLeft int64
}

// CreditLine is one line of a credit note: what comes back of one invoice line
// and the taxable value and tax it reverses.
type CreditLine struct {
	Line
	Taxable int64 // paise
	Tax     int64 // paise
}

// creditNote lays out the body of a credit note.
func (l *layouter) creditNote(r Receipt) {
	c := r.Credit
	if c == nil {
		c = &CreditNote{}
	}
	l.lr("Against invoice", c.InvoiceNumber, false)
	if !c.InvoiceTime.IsZero() {
		l.lr("Invoice date", c.InvoiceTime.Format("02 Jan 2006"), false)
	}
	if c.InvoiceOrderID != "" && c.InvoiceOrderID != r.MerchantOrderID {
		l.lr("Sale order", c.InvoiceOrderID, false)
	}
	l.rule('-')
	adjust := true
	for _, it := range c.Lines {
		if it.Qty > 0 {
			adjust = false
		}
	}
	if adjust && len(c.Lines) > 0 {
		l.text("Price adjustment, no goods returned", 0, true)
	}
	units := 0
	for _, it := range c.Lines {
		units += it.Qty
		l.text(it.Name, 0, true)
		hsn := ""
		if it.HSN != "" {
			hsn = "HSN " + it.HSN + "  "
		}
		if it.Qty > 0 {
			l.lr("  "+hsn+"Returned "+quantity(it.Qty, it.Unit)+" x "+Amount(it.UnitPrice), Amount(it.Amount), false)
		} else {
			l.lr("  "+hsn+"Adjustment", Amount(it.Amount), false)
		}
		if !r.NoTax {
			l.lr("  Taxable "+Amount(it.Taxable)+"  GST "+percent(it.GSTRate), Amount(it.Tax), false)
		}
		for _, imei := range it.IMEIs {
			l.text("IMEI "+imei, 2, false)
		}
	}
	if units > 0 {
		l.lr("Items "+strconv.Itoa(len(c.Lines))+"  Qty "+strconv.Itoa(units), "", false)
	}
	l.rule('-')
	if !r.NoTax {
		l.taxes(r.Taxes, "Tax reversed")
	}
	if r.RoundOff != 0 {
		// As on the invoice: the value the lines and their tax add up to, and
		// the paise by which the credit differs from it.
		l.rule('-')
		l.lr("Credit note value", Amount(r.Total-r.RoundOff), false)
		l.lr("Round off", signed(r.RoundOff), false)
	}
	l.closeRule()
	l.bigLR("CREDIT", l.money(r.Total))
	l.text(Words(r.Total), 0, false)
	l.rule('=')
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
}

// reportReturns lays out what an X or Z report says of credit notes: the GST
// they reversed and the net GST by rate (none when noTax), the discounts, and the numbers used.
func (l *layouter) reportReturns(rep *Report, noTax bool) {
	if len(rep.Returns) > 0 && !noTax {
		l.rule('-')
		l.taxes(rep.Returns, "GST reversed (credit notes)")
		l.rule('-')
		l.taxes(rep.NetTaxes, "Net GST")
	}
	if rep.Discounts.Amount != 0 {
		l.rule('-')
		l.lr(reportLabel(rep.Discounts), Amount(rep.Discounts.Amount), false)
	}
	if len(rep.Documents) > 0 {
		l.rule('-')
		l.text("Documents", 0, true)
		for _, d := range rep.Documents {
			l.text(d, 2, false)
		}
	}
}
