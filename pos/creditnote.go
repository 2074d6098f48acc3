package pos

import (
	"fmt"
	"slices"
	"strconv"

	"galla/receipts"
)

// Credit notes to spend (issue 13 item 9). A return with RefundToNote gives no
// money back: its credit note is a value the customer spends on a later sale (an
// exchange is such a return plus the sale that redeems it). The ledger is the
// issuing order's refund: its Amount is the note's value, Redeemed what was spent,
// RedeemedBy the sales it paid, all journaled:
//
//   - note.redeemed, on the issuing order, spends part of the value for one sale.
//     The state machine refuses it when the note is not done, not a note, already
//     redeemed by that sale, or when it would spend more than is left.
//   - note.tendered, on the sale, marks it paid by the note (tender "note").
//
// A note keeps what is left of its value after a sale smaller than it, and is
// spent again up to that rest: each rupee of it is spent at most once. A note pays
// a sale wholly; a sale above what is left is refused (the customer pays the
// difference in another tender once a sale takes more than one).

// TenderNote is a sale paid by a credit note.
const TenderNote TenderKind = "note"

// NoteLeft is what is left to spend of a credit note.
func (r Refund) NoteLeft() Paise {
	if r.Status != RefundDone || r.To != RefundToNote {
		return 0
	}
	return r.Amount - r.Redeemed
}

func (o *Order) applyNoteRedeemed(ev Event) error {
	n := ev.Note
	if n == nil || n.Refund == "" || n.SaleID == "" || n.Amount <= 0 {
		return fmt.Errorf("%w: no note", ErrBadEvent)
	}
	ref := o.RefundByID(n.Refund)
	switch {
	case ref == nil || ref.To != RefundToNote:
		return fmt.Errorf("%w: %q is not a credit note of this order", ErrBadEvent, n.Refund)
	case slices.Contains(ref.RedeemedBy, n.SaleID):
		return ErrStaleEvent // the same sale's redemption, journaled again
	case ref.Status != RefundDone:
		return fmt.Errorf("%w: the credit note is %s", ErrNotRefundable, ref.Status)
	case n.Amount > ref.NoteLeft():
		return fmt.Errorf("%w: %s asked of a credit note with %s left", ErrNotRefundable, n.Amount, ref.NoteLeft())
	}
	ref.Redeemed += n.Amount
	ref.RedeemedBy = append(ref.RedeemedBy, n.SaleID)
	return nil
}

func (o *Order) applyNoteTendered(ev Event) error {
	n := ev.Note
	switch {
	case n == nil || n.SaleID != o.ID:
		return fmt.Errorf("%w: no note for this sale", ErrBadEvent)
	case o.Tender != TenderNote:
		return fmt.Errorf("%w: a note on a %s order", ErrBadEvent, o.Tender)
	case o.State.Paid():
		return ErrStaleEvent
	case o.State != StateIntent:
		return fmt.Errorf("%w: note in state %s", ErrBadEvent, o.State)
	case n.Amount != o.Amount:
		return fmt.Errorf("%w: the note pays %s of %s", ErrBadEvent, n.Amount, o.Amount)
	}
	note := *n
	o.Note = &note
	o.Captured, o.Verified = o.Amount, true
	o.PaidAt, o.PaidDay = ev.Time, ev.Day
	o.ReceiptNo, o.Series, o.DocNo = ev.ReceiptNo, ev.Series, ev.DocNo
	return o.move(StatePaid)
}

// Number is the sale's document number as printed on terminal's documents.
func (o *Order) Number(terminal string) string {
	return Number(terminal, o.Series, o.DocNo, o.ReceiptNo)
}

// Number is the refund's credit note number (or, for one made before series
// existed, its receipt number) as printed.
func (r Refund) Number(terminal string) string {
	return Number(terminal, r.Series, r.DocNo, r.ReceiptNo)
}

// NumberText is the sale's number for a line of text that names no terminal:
// "2627/000123" in its series, or the bare receipt number it was issued with
// before series existed; "" while it has none.
func (o *Order) NumberText() string {
	if o.DocNo != 0 {
		return DocNumber("", o.Series, o.DocNo)
	}
	if o.ReceiptNo != 0 {
		return strconv.FormatUint(o.ReceiptNo, 10)
	}
	return ""
}

// CreditNoteFor turns a done refund of a journaled sale into its CREDIT NOTE: its
// number in the C series, the invoice's number and date, each line returned (or
// the price adjustment's split) with the taxable value and tax it reverses, the tax
// reversed by rate, the total, where the money went (the card, cash, or a note to
// spend and what is left on it) and the reason.
func CreditNoteFor(o Order, ref Refund, shop Shop, opt ReceiptOptions) receipts.Receipt {
	// The buyer and the place of supply are the invoice's (CGST Rule 53(1A)), a
	// return order's copied from the invoice it takes back; the tax reversed is
	// IGST where the invoice charged IGST. A walk-in invoice's note says so.
	var buyer Buyer
	if o.Buyer != nil {
		buyer = o.Buyer.Normal()
	}
	place := PlaceOfSupply(shop.State, buyer)
	r := receipts.Receipt{
		Kind:            receipts.KindCreditNote,
		Shop:            receiptShop(shop),
		Title:           "CREDIT NOTE",
		Number:          ref.Number(opt.Terminal),
		Terminal:        opt.Terminal,
		Cashier:         firstNonEmpty(opt.Cashier, ref.Staff),
		Time:            ref.Time,
		MerchantOrderID: o.ID,
		Total:           int64(ref.Amount),
		Reprint:         opt.Reprint,
		Footer:          opt.Footer,
		Sandbox:         sandboxed(o, opt),
		Buyer:           receiptBuyer(buyer),
		Interstate:      place.Interstate,
		Credit: &receipts.CreditNote{
			InvoiceNumber:  o.InvoiceNumber(opt.Terminal),
			InvoiceTime:    invoiceTime(o),
			InvoiceOrderID: o.InvoiceOrderID(),
			Reason:         ref.Reason,
			NoteLeft:       int64(ref.NoteLeft()),
		},
	}
	var rates []RateTotal
	for _, it := range ref.Items {
		if it.Line < 0 || it.Line >= len(o.Lines) {
			continue
		}
		l := o.Lines[it.Line]
		r.Credit.Lines = append(r.Credit.Lines, receipts.CreditLine{
			Line: receipts.Line{Name: l.Name, HSN: l.HSN, Qty: it.Qty, Unit: string(l.Unit.OrNOS()), UnitPrice: int64(l.UnitPrice),
				Amount: int64(it.Amount), GSTRate: it.Rate.BP(), IMEIs: it.IMEIs},
			Taxable: int64(it.Taxable), Tax: int64(it.Tax),
		})
		t := it.tax()
		i := slices.IndexFunc(rates, func(rt RateTotal) bool { return rt.Rate == it.Rate })
		if i < 0 {
			rates = append(rates, RateTotal{Rate: it.Rate})
			i = len(rates) - 1
		}
		rates[i].Amount += t.Amount
		rates[i].Taxable += t.Taxable
		rates[i].Tax += t.Tax
		rates[i].CGST += t.CGST
		rates[i].SGST += t.SGST
		rates[i].Cess += max(it.Amount-it.Taxable-it.Tax, 0) // a cess the item's amount holds beside its GST
	}
	slices.SortFunc(rates, func(a, b RateTotal) int { return a.Rate.Compare(b.Rate) })
	if place.State != "" {
		r.PlaceOfSupply = stateLabel(place.State)
	}
	// The GST reversed is the portal's arithmetic on the credit note's own
	// taxable values (GSTOn per rate), each line showing its share; what is
	// given back beyond it is the round-off.
	tr := Totals{ByRate: rates}.taxed(place.Interstate)
	rates = tr.ByRate
	lts := make([]LineTax, len(r.Credit.Lines))
	lrates := make([]Rate, len(r.Credit.Lines))
	for k, cl := range r.Credit.Lines {
		lts[k] = LineTax{Taxable: Paise(cl.Taxable)}
		lrates[k] = RateBP(cl.GSTRate)
	}
	DocumentTax(lts, lrates, place.Interstate)
	for k := range r.Credit.Lines {
		r.Credit.Lines[k].Tax = int64(lts[k].Tax)
	}
	if off := int64(ref.Amount - tr.Taxable - tr.Tax - tr.Cess); len(rates) > 0 && off != 0 && off > -100 && off < 100 && r.Total == int64(ref.Amount) {
		r.RoundOff = off
	}
	r.Taxes = receiptTaxes(rates)
	switch RefundDestination(&o, ref.To) {
	case RefundToNote:
		r.Tenders = []receipts.Tender{{Kind: receipts.TenderNote, Amount: int64(ref.Amount)}}
	case RefundToCash:
		r.Tenders = []receipts.Tender{{Kind: receipts.TenderCash, Amount: int64(ref.Amount)}}
	default:
		via := o
		for _, tn := range opt.Tenders {
			if tn.ID == ref.Tender {
				via = tn // a split sale's card tender it went back to
			}
		}
		r.Tenders = []receipts.Tender{refundTender(via, ref.Amount)}
	}
	r.QR = refundQR(opt.QRKey, o, ref.Amount)
	registered(&r, shop)
	return r
}

// applyNoteRestored undoes the redemption of a credit note for one sale: the
// sale's note tender was given back (a split sale voided). A sale the note never
// paid, or one restored already, changes nothing.
func (o *Order) applyNoteRestored(ev Event) error {
	n := ev.Note
	if n == nil || n.Refund == "" || n.SaleID == "" || n.Amount <= 0 {
		return fmt.Errorf("%w: no note", ErrBadEvent)
	}
	ref := o.RefundByID(n.Refund)
	if ref == nil || ref.To != RefundToNote {
		return fmt.Errorf("%w: %q is not a credit note of this order", ErrBadEvent, n.Refund)
	}
	i := slices.Index(ref.RedeemedBy, n.SaleID)
	switch {
	case i < 0:
		return ErrStaleEvent
	case n.Amount > ref.Redeemed:
		return fmt.Errorf("%w: %s given back of %s spent", ErrBadEvent, n.Amount, ref.Redeemed)
	}
	ref.Redeemed -= n.Amount
	ref.RedeemedBy = slices.Delete(ref.RedeemedBy, i, i+1)
	return nil
}
