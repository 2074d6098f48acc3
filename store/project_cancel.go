package store

import (
	"galla/pos"
)

// Cancelled documents (pos/cancel.go). document.cancelled applies to its order
// as on the terminal and marks the order's document cancelled, with the reason;
// the order is then projected with the state CANCELLED (pos.StatusCancelled),
// which no day total counts, and its GST by rate is left out. A cancellation's
// refunds issue no credit note and are recorded as payments of kind
// refundCancelKind, not as refunds of the day.

// refundCancelKind is the payments kind of a cancellation's refund.
const refundCancelKind = "refund.cancel"

// cancelDocument marks o's document cancelled (after document.cancelled).
func (p *projector) cancelDocument(o *pos.Order) error {
	if o.Cancelled == nil {
		return nil
	}
	// The documents gathered so far are written first: the one cancelled may
	// be among them.
	if err := p.flushDocuments(); err != nil {
		return err
	}
	number := o.Number(p.terminal)
	if o.DocNo == 0 {
		number = DocumentNumber(p.terminal, o.ReceiptNo)
	}
	_, err := p.tx.Exec(p.ctx, `UPDATE documents SET cancelled = true, cancel_reason = $3 WHERE terminal_id = $1 AND number = $2`,
		p.terminal, number, o.Cancelled.Reason)
	return err
}

// projectedState is the state column of o: CANCELLED once its money went back
// by a cancellation, else its state.
func projectedState(o *pos.Order) string {
	if o.Voided() {
		return string(pos.StatusCancelled)
	}
	return string(o.State)
}

// refundKind is the payments kind of o's refund.done ev.
func refundKind(o *pos.Order, ev *pos.Event) string {
	if r := o.RefundByID(ev.Refund.UniqueTxnID); r != nil && r.Cancel {
		return refundCancelKind
	}
	return string(ev.Kind)
}
