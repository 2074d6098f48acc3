package link

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"

	"galla/pos"
	"galla/store/api"
)

// The store-wide decisions (pos.StoreDecisions): asked of the store server
// before money moves. No answer is pos.ErrStoreOffline; a refusal a
// *pos.StoreRefusal with the server's sentence.
var (
	_ pos.StoreDecisions = (*Link)(nil)
	_ pos.NoteIssuer     = (*Link)(nil)
)

// ReserveIMEIs reserves the sale's IMEIs for orderID.
func (l *Link) ReserveIMEIs(ctx context.Context, orderID string, imeis []string) error {
	return l.decide(ctx, api.PathReserveIMEI, api.ReserveIMEI{OrderID: orderID, IMEIs: imeis}, &api.Reserved{})
}

// IssueCreditNote records a credit note issued at this counter, so that every
// counter may redeem it.
func (l *Link) IssueCreditNote(ctx context.Context, number string, value pos.Paise) error {
	return l.decide(ctx, api.PathIssueCreditNote, api.IssueCreditNote{Number: number, Value: int64(value)}, &api.Reserved{})
}

// RedeemCreditNote takes amount of credit note number for orderID.
func (l *Link) RedeemCreditNote(ctx context.Context, number, orderID string, amount pos.Paise) (pos.Paise, error) {
	var out api.Reserved
	err := l.decide(ctx, api.PathReserveCreditNote, api.ReserveCreditNote{Number: number, OrderID: orderID, Amount: int64(amount)}, &out)
	return pos.Paise(out.Remaining), err
}

// ReserveReturn reserves amount of a refund of invoice document.
func (l *Link) ReserveReturn(ctx context.Context, document, refundID string, amount pos.Paise) (pos.Paise, error) {
	var out api.Reserved
	err := l.decide(ctx, api.PathReserveReturn, api.ReserveReturn{Document: document, RefundID: refundID, Amount: int64(amount)}, &out)
	return pos.Paise(out.Remaining), err
}

// ReserveReturnItems reserves amount of a refund of invoice document with
// the goods it gives back, line by line.
func (l *Link) ReserveReturnItems(ctx context.Context, document, refundID string, amount pos.Paise, items []pos.ReturnItem) (pos.Paise, error) {
	lines := make([]api.ReturnLine, len(items))
	for i, it := range items {
		lines[i] = api.ReturnLine{Line: it.Line, SKU: it.SKU, Qty: it.Qty, Amount: int64(it.Amount), IMEIs: it.IMEIs}
	}
	var out api.Reserved
	err := l.decide(ctx, api.PathReserveReturn, api.ReserveReturn{Document: document, RefundID: refundID, Amount: int64(amount), Lines: lines}, &out)
	return pos.Paise(out.Remaining), err
}

// Release gives back what was reserved for orderID or refundID.
func (l *Link) Release(ctx context.Context, orderID, refundID string) error {
	return l.decide(ctx, api.PathRelease, api.Release{OrderID: orderID, RefundID: refundID}, &api.Reserved{})
}

// Invoice reads a paid sale of any counter of the store, named by its number
// as printed or its merchant order id.
func (l *Link) Invoice(ctx context.Context, ref string) (*pos.StoreInvoice, error) {
	var out api.Invoice
	if err := l.decide(ctx, api.PathInvoice, api.InvoiceRequest{Document: ref}, &out); err != nil {
		return nil, err
	}
	var o pos.Order
	if err := json.Unmarshal(out.Order, &o); err != nil {
		return nil, fmt.Errorf("%w: the store's invoice %s: %w", pos.ErrStoreOffline, out.Number, err)
	}
	return &pos.StoreInvoice{Number: out.Number, Terminal: out.Terminal, Order: &o, Returnable: pos.Paise(out.Returnable)}, nil
}

// decide sends a signed decision and sorts its answer into what pos knows.
func (l *Link) decide(ctx context.Context, path string, req, out any) error {
	body, err := json.Marshal(req)
	if err != nil {
		return err
	}
	err = l.request(ctx, http.MethodPost, path, body, out)
	var ae *api.Error
	switch {
	case err == nil:
		return nil
	case errors.As(err, &ae) && ae.Code == api.CodeUnavailable:
		return fmt.Errorf("%w: %w", pos.ErrStoreOffline, err)
	case errors.As(err, &ae):
		return &pos.StoreRefusal{Code: ae.Code, Msg: ae.Message}
	case errors.Is(err, ErrUnreachable), errors.Is(err, context.DeadlineExceeded):
		return fmt.Errorf("%w: %w", pos.ErrStoreOffline, err)
	}
	return fmt.Errorf("%w: %w", pos.ErrStoreOffline, err)
}
