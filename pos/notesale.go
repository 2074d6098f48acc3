package pos

import (
	"context"
	"errors"
	"fmt"
	"slices"
)

// A sale paid wholly by a credit note (Checkout.PayByNote): the engine journals
// its intent, redeems the note on the order that issued it, and pays the sale
// (store_notes.go asks the store first when the terminal is enrolled).

// ErrNoteSpent reports a credit note with less left than asked of it.
var ErrNoteSpent = errors.New("the credit note has not enough left")

// redeemNote journals note.redeemed on the issuing order, under its lock.
func (e *Sales) redeemNote(ctx context.Context, issueID string, n NoteEvent) error {
	unlock, err := e.lock(issueID)
	if err != nil {
		return err
	}
	defer unlock()
	issue, err := e.order(ctx, issueID)
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
func (e *Sales) openNoteSale(ctx context.Context, sale Sale, number string) (*Order, error) {
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
func (e *Sales) settleNoteSale(ctx context.Context, o *Order) error {
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
