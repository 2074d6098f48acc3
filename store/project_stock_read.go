package store

import (
	"context"
	"time"

	"galla/pos"
)

// StoreUnit is a serialised unit on a store's books as the counters'
// events made it: its counter, state (in_stock, damaged, missing,
// in_transit; sold when a paid sale of that counter carries it, a cancelled
// one being CANCELLED) and where it came from.
type StoreUnit struct {
	Terminal string
	IMEI     string
	SKU      string
	State    string
	Cost     pos.Paise
	Received *time.Time
	Supplier string
	Invoice  string
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
	rs, err := pj.pool.Query(ctx, `SELECT s.terminal_id, s.imei, s.sku,
			CASE WHEN s.state = 'in_stock' AND EXISTS (SELECT 1 FROM imei_units u JOIN orders o USING (terminal_id, order_id)
				WHERE u.terminal_id = s.terminal_id AND u.imei IN (s.imei, s.imei2)
				AND o.state IN ('PAID', 'PARTLY_REFUNDED')) THEN 'sold' ELSE s.state END,
			s.cost, s.received_at, s.supplier, s.invoice
		FROM stock_units s ORDER BY s.terminal_id, s.sku, s.imei`)
	if err != nil {
		return nil, pj.wrap("stock units", err)
	}
	defer rs.Close()
	var out []StoreUnit
	for rs.Next() {
		var u StoreUnit
		var cost int64
		if err := rs.Scan(&u.Terminal, &u.IMEI, &u.SKU, &u.State, &cost, &u.Received, &u.Supplier, &u.Invoice); err != nil {
			return nil, pj.wrap("stock units", err)
		}
		u.Cost = pos.Paise(cost)
		if u.State == "sold" && !sold {
			continue
		}
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
