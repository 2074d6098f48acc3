package pos

import (
	"context"
	"errors"
	"fmt"
	"slices"
)

// ReturnRequest is a return at the counter (issue 13 item 8): the invoice, the
// goods that come back (or, without goods, an amount: a price adjustment), where
// the money goes, why, and the manager's PIN that authorises it.
type ReturnRequest struct {
	Document string      // the invoice's number as printed ("T1/2627/000123") or the sale's merchant order id
	Items    []ReturnQty // the goods; none with Amount: a price adjustment
	Amount   Paise       // a price adjustment without goods
	To       RefundTo    // card, cash or note
	Reason   string
	PIN      string // a manager's PIN
}

// ReturnResult is how a return ended, with its credit note's number once done.
type ReturnResult struct {
	Status     RefundStatus // RefundDone, RefundFailed, or RefundPending (a card refund whose answer is not in)
	Order      *Order
	Refund     Refund
	CreditNote string // the credit note's number as printed; "" until the refund is done
	Manager    Staff
	Reason     string // RefundFailed, RefundPending: why, in plain words
}

// ErrNoteSpent reports a credit note with less left than asked of it.
var ErrNoteSpent = errors.New("the credit note has not enough left")

// redeemNote journals note.redeemed on the issuing order, under its lock.
func (e *Engine) redeemNote(ctx context.Context, issueID string, n NoteEvent) error {
	unlock, err := e.lock(issueID)
	if err != nil {
		return err
	}
	defer unlock()
	issue, err := e.Order(ctx, issueID)
	if err != nil {
		return err
	}
	if ref := issue.RefundByID(n.Refund); ref != nil && slices.Contains(ref.RedeemedBy, n.SaleID) {
		return nil // redeemed for this sale already (a retry, or a sale finished after a crash)
	}
	if _, err := e.commit(ctx, issue, Event{Kind: EvNoteRedeemed, Note: &n}); err != nil {
		if errors.Is(err, ErrNotRefundable) {
			return wrapf(ErrNoteSpent, "Credit note %s has not %s left; nothing was taken from it.", n.Number, n.Amount)
		}
		return err
	}
	return nil
}

// openNoteSale journals the intent of a sale paid by credit note number.
func (e *Engine) openNoteSale(ctx context.Context, sale Sale, number string) (*Order, error) {
	id, lines, totals, err := e.startSale(ctx, sale, "open") // its phones reserved store-wide, before the note is touched
	if err != nil {
		return nil, err
	}
	o := &Order{}
	in := &Intent{Tender: TenderNote, Lines: lines, Totals: totals, Amount: totals.Total, IMEIs: allIMEIs(lines),
		Customer: sale.Customer, Note: number}
	if _, err := e.commit(ctx, o, Event{Kind: EvOrderIntent, OrderID: id, Staff: sale.Staff, Intent: in}); err != nil {
		return nil, beforeMoney(err)
	}
	return o, nil
}

// settleNoteSale finishes a sale paid by a credit note journaled at INTENT: the
// note is redeemed for it (unless it was already, before a crash), then the sale
// is paid. A note that no longer covers it abandons the sale: nothing was taken.
func (e *Engine) settleNoteSale(ctx context.Context, o *Order) error {
	evs, err := e.j.Events(ctx, o.ID)
	if err != nil {
		return err
	}
	number := ""
	if len(evs) > 0 && evs[0].Intent != nil {
		number = evs[0].Intent.Note
	}
	series, no, ok := ParseDocNumber(number)
	if !ok {
		return fmt.Errorf("pos: note sale %q: %w: no credit note named", o.ID, ErrBadEvent)
	}
	issueID, uid, err := e.j.FindDocument(ctx, series, no)
	if err != nil {
		return err
	}
	n := NoteEvent{Number: number, IssueID: issueID, Refund: uid, Amount: o.Amount, SaleID: o.ID}
	if err := e.redeemNote(ctx, issueID, n); err != nil {
		if errors.Is(err, ErrNoteSpent) {
			reason := "the credit note no longer covers the sale"
			_, aerr := e.commit(ctx, o, Event{Kind: EvOrderAbandoned, Reason: reason, Abandoned: &Abandoned{Reason: reason}})
			return errors.Join(err, aerr)
		}
		return err
	}
	_, err = e.commit(ctx, o, Event{Kind: EvNoteTendered, Staff: o.Staff, Note: &n})
	return err
}

// ReturnableLine is one line of a sale as the Returns screen shows it.
type ReturnableLine struct {
	SKU      string
	Name     string
	Sold     int
	Returned int   // units already returned
	Left     int   // units that can still come back
	Amount   Paise // the line's money, GST included
	IMEIs    []string
}

// SaleForReturn is a paid sale as the Returns screen shows it: its number, lines,
// what is left to refund, and where its money can go back.
type SaleForReturn struct {
	OrderID    string
	Number     string
	At         string // the invoice's date, 02 Jan 2006
	Tender     TenderKind
	Lines      []ReturnableLine
	Refundable Paise
	To         []RefundTo // the destinations this sale allows, the default first
}

// SearchDays is how many days back FindSale searches by IMEI, card or phone.
const SearchDays = 90

// saleMatches reports whether o sold IMEI q, was paid by a card ending q, or
// names mobile number q.
func saleMatches(o *Order, q string) bool {
	switch len(q) {
	case 15:
		if slices.Contains(o.IMEIs, q) {
			return true
		}
		for _, l := range o.Lines {
			if slices.Contains(l.IMEIs, q) {
				return true
			}
		}
	case 4:
		return o.CardLast4 == q
	case 10:
		return o.Customer != nil && o.Customer.Mobile == q
	}
	return false
}
