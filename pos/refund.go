package pos

import (
	"context"
)

// MinRefund is the smallest refund the payment service takes (contract section 7).
// Cash refunds have no minimum.
const MinRefund = Paise(100)

// RefundRequest asks for a refund of a paid order.
type RefundRequest struct {
	OrderID string
	Amount  Paise  // 0: all that is left to refund (or, with Items, their money)
	PIN     string // a manager's PIN
	Reason  string // why, as the manager says it
	// Cashier, when set, is the staff id of the cashier whose own PIN PIN is:
	// the refund is theirs to give alone up to their refund limit.
	Cashier string
	// To is where the money goes ("": the way the sale was paid).
	To RefundTo
	// Items are the goods returned (Order.ReturnItems); none refunds Amount as a
	// price adjustment, or the whole sale when nothing of it was refunded yet.
	Items []ReturnItem
	// cancel makes it a cancellation's refund (cancel.go): no credit note.
	cancel bool
	// reserveAt is, for a return of this counter's own invoice, its number as
	// printed: the refund's amount is reserved at the store first, when the
	// terminal is enrolled (reserveOwnReturn), so that returns of it at every
	// counter never add up to more than was paid.
	reserveAt string
	// drawer, when set, is the counter's drawer: a refund to a destination
	// that pays cash out of it is refused while it cannot take it
	// (refundNeedsShift), asked once the destination is decided, before
	// anything is journaled. The Returns gives its Drawer.
	drawer cashDrawer
}

// cashDrawer is the counter's drawer as a refund needs it: whether cash may be
// paid out of it now (Drawer.CashNeedsShift).
type cashDrawer interface {
	CashNeedsShift(ctx context.Context) error
}

// refundNeedsShift refuses a refund to to that pays cash out of the drawer
// (RefundTo.MovesCash) while the counter keeps shifts and none is open: cash
// paid back leaves a counted drawer, like cash taken. A refund to a card or onto
// a credit note needs no shift; with no drawer (nil) nothing is asked.
func refundNeedsShift(ctx context.Context, drawer cashDrawer, to RefundTo) error {
	if drawer == nil || !to.MovesCash() {
		return nil
	}
	return drawer.CashNeedsShift(ctx)
}

// refundItems are the items of a refund of amount of o asked without goods: the
// whole sale's lines when it was never refunded and amount is all of it, else a
// price adjustment split over its lines.
func refundItems(o *Order, amount Paise) []ReturnItem {
	if len(o.Refunds) == 0 && amount == o.Captured {
		var ask []ReturnQty
		for _, l := range o.Lines {
			ask = append(ask, ReturnQty{SKU: l.SKU, Qty: l.Qty})
		}
		if items, err := o.Returns().ReturnItems(ask); err == nil && ItemsAmount(items) == amount {
			return items
		}
	}
	return o.Returns().AdjustmentItems(amount)
}

// RefundResult is how a refund ended: RefundDone (confirmed by a verified answer),
// RefundFailed (refused; nothing refunded) or RefundPending (the answer is not in:
// the reconciler settles it with the same unique_txn_id, never a second refund).
type RefundResult struct {
	Status  RefundStatus
	Order   *Order
	Refund  Refund
	Manager Staff
	Reason  string // RefundFailed, RefundPending: why, in plain words
}
