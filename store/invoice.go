package store

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"

	"github.com/jackc/pgx/v5"

	"galla/pos"
	"galla/store/api"
)

// Invoice returns a paid sale of any counter of the store, named by its
// document number as printed (T1/2627/000123) or its merchant order id, as the
// projections hold it: what a return at another counter needs to take goods
// back (the lines, the tender, the date, the buyer) and how much of it may
// still be returned store-wide. A sale the store does not know, or that is not
// paid, is refused with a sentence.
func (db *DB) Invoice(ctx context.Context, ref string) (api.Invoice, error) {
	ref = strings.TrimSpace(ref)
	if ref == "" {
		return api.Invoice{}, badRequest("name the invoice by its number as printed (T1/2627/000123) or its order id")
	}
	if err := db.Project(ctx); err != nil { // the sales the counters have sent
		return api.Invoice{}, err
	}
	var out api.Invoice
	err := db.pool.QueryRow(ctx, "SELECT number, terminal_id, order_id FROM documents WHERE number = $1 AND kind = 'receipt'", ref).
		Scan(&out.Number, &out.Terminal, &out.OrderID)
	if errors.Is(err, pgx.ErrNoRows) { // an order id: its invoice
		err = db.pool.QueryRow(ctx, "SELECT number, terminal_id, order_id FROM documents WHERE order_id = $1 AND kind = 'receipt' ORDER BY terminal_id LIMIT 1", ref).
			Scan(&out.Number, &out.Terminal, &out.OrderID)
	}
	if errors.Is(err, pgx.ErrNoRows) {
		return api.Invoice{}, &api.Error{HTTPStatus: http.StatusNotFound, Code: api.CodeNotFound,
			Message: fmt.Sprintf("invoice %s is not known to the store: check the number on the receipt, or wait until its counter has synced", ref)}
	}
	if err != nil {
		return api.Invoice{}, db.wrap("invoice", err)
	}
	var state string
	var captured, refunded, pending int64
	err = db.pool.QueryRow(ctx, `SELECT o.state, o.captured, o.refunded, o.snapshot,
			(SELECT coalesce(sum(r.amount), 0)::bigint FROM return_reservations r
			 WHERE r.sold_terminal = o.terminal_id AND r.sold_order = o.order_id AND NOT r.settled)
		FROM orders o WHERE o.terminal_id = $1 AND o.order_id = $2`, out.Terminal, out.OrderID).
		Scan(&state, &captured, &refunded, &out.Order, &pending)
	if err != nil {
		return api.Invoice{}, db.wrap("invoice", err)
	}
	if !pos.OrderState(state).Paid() {
		return api.Invoice{}, refused(api.CodeNotFound, fmt.Sprintf("invoice %s is %s, not paid: nothing of it can be returned", out.Number, state))
	}
	out.Returnable = max(captured-refunded-pending, 0)
	return out, nil
}
