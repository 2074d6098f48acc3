package pos

import (
	"context"
	"fmt"
	"slices"
)

// SaleTender is one tender of a split-tender sale (docs/adr/0005-split-tender.md):
// how much of the sale it pays and the order that holds its payment. Card, EMI
// and phone tenders are orders at the payment service with their own
// merchant_order_id; cash, UPI and credit-note tenders are journaled here only.
type SaleTender struct {
	OrderID string     `json:"order_id"` // the tender's own order (a moved order is followed through MovedTo)
	Kind    TenderKind `json:"kind"`
	Amount  Paise      `json:"amount"`
	NoteNo  string     `json:"note_no,omitempty"` // a credit-note tender: the note
}

// SaleEvent is the payload of the split-tender events.
type SaleEvent struct {
	Tender *SaleTender `json:"tender,omitempty"` // tender.added
	// Covered lists, in sale.completed, the tenders' orders that paid the sale.
	Covered []string `json:"covered,omitempty"`
	// Verified is, in sale.completed, whether every tender that paid it was
	// verified (by the service, or cash, or the credit-note ledger): false when a
	// UPI tender was confirmed by the cashier only.
	Verified bool `json:"verified,omitempty"`
	// PaidBy is, in sale.completed, how the sale was paid as its documents
	// name it: each tender that paid it (tenderText: "cash", "card VISA
	// 1111"), joined with " + ".
	PaidBy string `json:"paid_by,omitempty"`
	// NoteNo is, in tender.note_redeemed, the credit note redeemed.
	NoteNo string `json:"note_no,omitempty"`
	// Dropped is, in sale.voided, a sale that held no money closed without a
	// manager (Sales.DropSale, or the close of day): nothing was given back.
	Dropped bool `json:"dropped,omitempty"`
}

// NoteRedeemer is the credit-note ledger as a split sale needs it: a credit note
// tendered is redeemed for an amount under a reference (the tender's order id),
// and given back when the tender is undone. Both are idempotent per reference: a
// second Redeem of the same reference is not a second redemption, and Restore of
// a reference never redeemed does nothing. Errors it returns are shown to the
// cashier as they are (Sentence), so a refusal should say what was wrong.
// Redeem returns what is left on the note once redeemed (the store's word when
// the terminal is enrolled), -1 when the ledger cannot say.
type NoteRedeemer interface {
	Redeem(ctx context.Context, noteNo string, amount Paise, ref string) (left Paise, err error)
	Restore(ctx context.Context, noteNo string, amount Paise, ref string) error
}

// valid reports whether k is a tender an order may be journaled with.
func (k TenderKind) valid() bool {
	switch k {
	case TenderCard, TenderEMI, TenderCash, TenderPhone, TenderUPI, TenderNote, TenderSplit:
		return true
	}
	return false
}

// local reports whether a tender of kind k is taken at the counter with no call
// to the payment service: cash, UPI to the shop's VPA, a credit note.
func (k TenderKind) local() bool {
	return k == TenderCash || k == TenderUPI || k == TenderNote
}

// applySale folds the split-tender events: tender.added, sale.completed and
// sale.voided on the sale; upi.confirmed and tender.note_redeemed on a tender's order.
func (o *Order) applySale(ev Event) error {
	se := ev.Sale
	switch ev.Kind {
	case EvTenderAdded:
		switch {
		case !paidApart(o):
			return fmt.Errorf("%w: a tender added to a %s order", ErrBadEvent, o.Tender)
		case se == nil || se.Tender == nil || se.Tender.OrderID == "":
			return fmt.Errorf("%w: no tender", ErrBadEvent)
		case slices.ContainsFunc(o.Tenders, func(t SaleTender) bool { return t.OrderID == se.Tender.OrderID }):
			return ErrStaleEvent
		case o.State != StateOpen:
			return fmt.Errorf("%w: a tender added to a %s sale", ErrBadEvent, o.State)
		case !se.Tender.Kind.valid() || se.Tender.Kind == TenderSplit:
			return fmt.Errorf("%w: tender %q", ErrBadEvent, se.Tender.Kind)
		case se.Tender.Amount <= 0 || se.Tender.Amount > o.Amount:
			return fmt.Errorf("%w: tender amount %s of %s", ErrBadEvent, se.Tender.Amount, o.Amount)
		}
		o.Tenders = append(o.Tenders, *se.Tender)
		return nil
	case EvSaleCompleted:
		switch {
		case !paidApart(o):
			return fmt.Errorf("%w: sale.completed on a %s order", ErrBadEvent, o.Tender)
		case o.State.Paid():
			return ErrStaleEvent
		case o.State != StateOpen:
			return fmt.Errorf("%w: a %s sale completed", ErrBadEvent, o.State)
		}
		o.PaidAt, o.PaidDay, o.ReceiptNo, o.Series, o.DocNo = ev.Time, ev.Day, ev.ReceiptNo, ev.Series, ev.DocNo
		o.Verified = se != nil && se.Verified
		if se != nil {
			o.Covered, o.PaidBy = slices.Clone(se.Covered), se.PaidBy
		}
		return o.move(StatePaid)
	case EvSaleVoided:
		switch {
		case !paidApart(o):
			return fmt.Errorf("%w: sale.voided on a %s order", ErrBadEvent, o.Tender)
		case o.State == StateVoided:
			return ErrStaleEvent
		case o.State != StateOpen:
			return fmt.Errorf("%w: a %s sale voided", ErrBadEvent, o.State)
		}
		o.Reason = ev.Reason
		return o.move(StateVoided)
	case EvUPIConfirmed, EvTenderNoteRedeemed:
		want := TenderUPI
		if ev.Kind == EvTenderNoteRedeemed {
			want = TenderNote
		}
		switch {
		case o.Tender != want:
			return fmt.Errorf("%w: %s on a %s order", ErrBadEvent, ev.Kind, o.Tender)
		case o.State.Paid():
			return ErrStaleEvent
		case o.State != StateIntent:
			return fmt.Errorf("%w: %s in state %s", ErrBadEvent, ev.Kind, o.State)
		case ev.Kind == EvTenderNoteRedeemed && (se == nil || se.NoteNo == ""):
			return fmt.Errorf("%w: no credit note", ErrBadEvent)
		}
		if ev.Kind == EvUPIConfirmed {
			// Confirmed by the cashier, not by the service: never Verified.
			o.ConfirmedBy = ev.Staff
		} else {
			o.NoteNo, o.Verified = se.NoteNo, true
		}
		o.Captured = o.Amount
		o.PaidAt, o.PaidDay = ev.Time, ev.Day
		o.ReceiptNo = ev.ReceiptNo
		return o.move(StatePaid)
	}
	return fmt.Errorf("%w: unknown kind", ErrBadEvent)
}

// partLines are the lines of a tender that pays amount of a sale of lines: the
// same products with the part not paid by it taken off the last lines first (as
// a discount), so their amounts add up to amount (the service checks that
// product amounts add up to the order amount) and the first lines — usually
// the phone that EMI or the card pays for — keep their price and IMEIs.
func partLines(lines []Line, amount Paise) []Line {
	out := make([]Line, 0, len(lines))
	for _, l := range lines {
		out = append(out, l.clone())
	}
	cut := ComputeTotals(out).Total - amount
	for i := len(out) - 1; i >= 0 && cut > 0; i-- {
		d := min(cut, out[i].Amount())
		out[i].Discount += d
		cut -= d
	}
	return slices.DeleteFunc(out, func(l Line) bool { return l.Amount() <= 0 })
}

// withIMEIs gives the serialised lines that have none the IMEIs of their product
// (by product code), one per unit, in the order given.
func withIMEIs(lines []Line, imeis []UnitIMEI) []Line {
	used := make([]bool, len(imeis))
	for i := range lines {
		l := &lines[i]
		if !l.Serialised || len(l.IMEIs) > 0 {
			continue
		}
		for j, m := range imeis {
			if !used[j] && m.ProductCode == l.ProductCode && len(l.IMEIs) < l.Qty {
				l.IMEIs = append(l.IMEIs, m.IMEI)
				used[j] = true
			}
		}
	}
	return lines
}
