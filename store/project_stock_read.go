package store

import (
	"context"
	"time"

	"galla/pos"
)

// StoreUnit is a serialised unit on a store's books as the counters'
// events made it: its counter, state (in_stock, sold, damaged, missing,
// in_transit, as that counter's stock book has it), the sale it was sold in,
// and where it came from.
type StoreUnit struct {
	Terminal string
	IMEI     string
	SKU      string
	State    string
	Cost     pos.Paise
	Received *time.Time
	Supplier string
	Invoice  string
	Order    string // the sale that sold it, while sold
}

// StoreTransfer is a transfer sent by a counter, and its arrival.
type StoreTransfer struct {
	From       string
	ID         string
	To         string
	Sent       time.Time
	Units      int
	ReceivedBy string     // "" while in transit
	Received   *time.Time // nil while in transit
}

// StockUnits lists the store's serialised units, counter then SKU then IMEI;
// sold ones too when sold is true.
func (pj *Projections) StockUnits(ctx context.Context, sold bool) ([]StoreUnit, error) {
	if err := pj.Project(ctx); err != nil {
		return nil, err
	}
	rs, err := pj.pool.Query(ctx, `SELECT s.terminal_id, s.imei, s.sku, s.state, s.cost, s.received_at, s.supplier, s.invoice, s.order_id
		FROM stock_units s WHERE $1 OR s.state <> 'sold' ORDER BY s.terminal_id, s.sku, s.imei`, sold)
	if err != nil {
		return nil, pj.wrap("stock units", err)
	}
	defer rs.Close()
	var out []StoreUnit
	for rs.Next() {
		var u StoreUnit
		var cost int64
		if err := rs.Scan(&u.Terminal, &u.IMEI, &u.SKU, &u.State, &cost, &u.Received, &u.Supplier, &u.Invoice, &u.Order); err != nil {
			return nil, pj.wrap("stock units", err)
		}
		u.Cost = pos.Paise(cost)
		out = append(out, u)
	}
	return out, pj.wrap("stock units", rs.Err())
}

// StockTransfers lists the transfers sent, those in transit first, newest
// first.
func (pj *Projections) StockTransfers(ctx context.Context) ([]StoreTransfer, error) {
	if err := pj.Project(ctx); err != nil {
		return nil, err
	}
	rs, err := pj.pool.Query(ctx, `SELECT from_terminal, id, to_name, sent_at, units, coalesce(received_by, ''), received_at
		FROM stock_transfers ORDER BY received_at IS NOT NULL, sent_at DESC, from_terminal, id`)
	if err != nil {
		return nil, pj.wrap("stock transfers", err)
	}
	defer rs.Close()
	var out []StoreTransfer
	for rs.Next() {
		var t StoreTransfer
		if err := rs.Scan(&t.From, &t.ID, &t.To, &t.Sent, &t.Units, &t.ReceivedBy, &t.Received); err != nil {
			return nil, pj.wrap("stock transfers", err)
		}
		out = append(out, t)
	}
	return out, pj.wrap("stock transfers", rs.Err())
}

// StoreQty is the quantity on hand of an item not serialised at a counter:
// received, less sold and sent, plus returned, adjusted at counts.
type StoreQty struct {
	Terminal string
	SKU      string
	Qty      int64
}

// StockQty lists the quantities on hand of the items not serialised, counter
// then SKU.
func (pj *Projections) StockQty(ctx context.Context) ([]StoreQty, error) {
	if err := pj.Project(ctx); err != nil {
		return nil, err
	}
	rs, err := pj.pool.Query(ctx, "SELECT terminal_id, sku, qty FROM stock_qty ORDER BY terminal_id, sku")
	if err != nil {
		return nil, pj.wrap("stock quantities", err)
	}
	defer rs.Close()
	var out []StoreQty
	for rs.Next() {
		var q StoreQty
		if err := rs.Scan(&q.Terminal, &q.SKU, &q.Qty); err != nil {
			return nil, pj.wrap("stock quantities", err)
		}
		out = append(out, q)
	}
	return out, pj.wrap("stock quantities", rs.Err())
}
