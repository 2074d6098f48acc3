package pos

import "context"

// OpenSplit journals the cart of req as a split-tender sale (OpenSaleFor with
// req's lines, IMEIs, cashier and buyer). With req.OverrideIMEIPIN, a manager's
// PIN, or req.AskIMEIOverride, which asks for one, the sale's phones go without
// the store server's reservation when the store cannot be asked
// (ErrStoreOffline), as for a sale of one tender (Pay): the override is
// journaled as a staff.override what=imei naming the manager, and a unit the
// store says is sold is never overridden.
func (t *Till) OpenSplit(ctx context.Context, req PayRequest) (*SaleStatus, error) {
	return t.OpenSaleFor(t.imeiOverrideFor(ctx, req), req.Lines, req.IMEIs, req.Cashier, req.Buyer)
}

// CancelEMIOrder closes the EMI order id that CheckEMIOrder opened, when the
// cashier leaves it before its card (back to the offers, or other IMEIs typed):
// no payment was sent on it, so it is abandoned and its phones are free at this
// counter again; a split sale's EMI tender is closed so, the sale staying open
// with its other tenders. An order with a payment sent, or in flight, is never
// cancelled (ErrNotCancellable).
func (t *Till) CancelEMIOrder(ctx context.Context, id string) error {
	t.mu.Lock()
	busy := t.inFlight[id]
	t.mu.Unlock()
	if busy {
		return ErrNotCancellable
	}
	o, err := t.eng.Order(ctx, id)
	if err != nil {
		return err
	}
	if o.Tender != TenderEMI {
		return ErrNotCancellable
	}
	_, err = t.eng.Cancel(ctx, id, "left before the card: the EMI offer or the IMEIs were changed")
	return err
}
