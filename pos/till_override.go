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
