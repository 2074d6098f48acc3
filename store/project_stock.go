package store

import (
	"encoding/json"
	"maps"
	"slices"
	"time"

	"github.com/jackc/pgx/v5"

	"galla/pos"
)

// Stock (issue 26): each counter's stock.received, stock.adjusted and
// stock.sent events projected into stock_units (a serialised unit's state at
// the counter that holds its record), stock_qty (the quantities of the items
// not serialised) and stock_transfers (a transfer sent, and its arrival at
// the other end: a stock.received From its sender whose invoice is the
// transfer's id). Once a counter keeps stock (stock_terminals: its first
// goods received, or a count), its orders move its stock as its stock book
// moves it (pos.StockEffectOf): a sale takes its units out (sold, with the
// order) and its quantities, a return or a cancellation puts them back, and
// a return order of another counter's invoice brings the goods back into the
// stock of the counter that took them back. stock_orders keeps, per order,
// the effect last applied, so that each event applies only what changed.

// stockTables are the stock's projected tables, emptied by a rebuild.
var stockTables = []string{"stock_units", "stock_qty", "stock_transfers", "stock_orders", "stock_terminals"}

// stockRun is what a projector knows of its terminal's stock: whether it
// keeps stock, and the effect last applied of the orders read so far (a nil
// effect: an order its stock does not follow).
type stockRun struct {
	loaded bool
	kept   bool
	fx     map[string]*pos.StockEffect
}

// keepsStockSQL reads whether a terminal keeps stock.
const keepsStockSQL = "SELECT EXISTS (SELECT 1 FROM stock_terminals WHERE terminal_id = $1)"

// keepsStock reports whether the projector's terminal keeps stock: read
// with the run's orders (preload), or else now.
func (p *projector) keepsStock() (bool, error) {
	if !p.stock.loaded {
		if err := p.stockKept(p.tx.QueryRow(p.ctx, keepsStockSQL, p.terminal)); err != nil {
			return false, err
		}
	}
	return p.stock.kept, nil
}

// stockKept takes keepsStockSQL's answer.
func (p *projector) stockKept(r pgx.Row) error {
	if err := r.Scan(&p.stock.kept); err != nil {
		return err
	}
	p.stock.loaded, p.stock.fx = true, map[string]*pos.StockEffect{}
	return nil
}

// stockBegins records that the projector's terminal keeps stock from t on.
func (p *projector) stockBegins(t time.Time) error {
	if kept, err := p.keepsStock(); err != nil || kept {
		return err
	}
	p.stock.kept = true
	_, err := p.tx.Exec(p.ctx, "INSERT INTO stock_terminals (terminal_id, since) VALUES ($1, $2) ON CONFLICT DO NOTHING", p.terminal, t)
	return err
}

// preloadStock reads, in one query, the stock effects of the orders ids (as
// preload reads the orders). A terminal that keeps no stock yet follows none
// of them: an order is followed from its intent on, once stock is kept.
func (p *projector) preloadStock(ids []string) error {
	kept, err := p.keepsStock()
	if err != nil {
		return err
	}
	for _, id := range ids {
		p.stock.fx[id] = nil
	}
	if !kept {
		return nil
	}
	rs, err := p.tx.Query(p.ctx, "SELECT order_id, effect FROM stock_orders WHERE terminal_id = $1 AND order_id = ANY($2::text[])", p.terminal, ids)
	if err != nil {
		return err
	}
	defer rs.Close()
	for rs.Next() {
		var id string
		var raw []byte
		if err := rs.Scan(&id, &raw); err != nil {
			return err
		}
		var e pos.StockEffect
		if json.Unmarshal(raw, &e) == nil {
			p.stock.fx[id] = &e
		}
	}
	return rs.Err()
}

// stockApplied returns the stock effect last applied of order id, and
// whether the terminal's stock follows the order.
func (p *projector) stockApplied(id string) (*pos.StockEffect, bool, error) {
	if e, ok := p.stock.fx[id]; ok {
		return e, e != nil, nil
	}
	var raw []byte
	err := p.tx.QueryRow(p.ctx, "SELECT effect FROM stock_orders WHERE terminal_id = $1 AND order_id = $2", p.terminal, id).Scan(&raw)
	if err != nil {
		p.stock.fx[id] = nil
		return nil, false, ignoreNoRows(err)
	}
	var e pos.StockEffect
	if json.Unmarshal(raw, &e) != nil {
		p.stock.fx[id] = nil
		return nil, false, nil
	}
	p.stock.fx[id] = &e
	return &e, true, nil
}

// stockOrder brings what order o of the projector's terminal (ev just
// applied to it) takes out of the terminal's stock to what it takes now, as
// the counter's stock book does (pos.StockEffectOf): the quantities, the
// units sold and put back, the units a return of another counter's invoice
// brought here. An order is followed from its intent on, once the terminal
// keeps stock.
func (p *projector) stockOrder(seq uint64, ev *pos.Event, o *pos.Order) error {
	kept, err := p.keepsStock()
	if err != nil || !kept {
		return err
	}
	applied, tracked, err := p.stockApplied(o.ID)
	if err != nil {
		return err
	}
	if !tracked {
		if ev.Kind != pos.EvOrderIntent || ev.Intent == nil || ev.Intent.Sale != "" {
			return nil // begun before stock was kept, or a tender's order (its sale holds the lines)
		}
		applied = &pos.StockEffect{}
	}
	want := pos.StockEffectOf(o)
	if tracked && sameEffect(applied, &want) {
		return nil
	}
	for sku, n := range want.Out {
		if d := n - applied.Out[sku]; d != 0 {
			if err := p.stockQty(sku, -d); err != nil {
				return err
			}
		}
	}
	for sku, n := range applied.Out {
		if _, ok := want.Out[sku]; !ok && n != 0 {
			if err := p.stockQty(sku, n); err != nil {
				return err
			}
		}
	}
	for _, imei := range applied.IMEIs {
		if !slices.Contains(want.IMEIs, imei) { // returned, or its invoice cancelled
			if _, err := p.tx.Exec(p.ctx, `UPDATE stock_units SET state = 'in_stock', order_id = '', seq = $4
				WHERE terminal_id = $1 AND (imei = $2 OR imei2 = $2) AND state = 'sold' AND order_id = $3`, p.terminal, imei, o.ID, int64(seq)); err != nil {
				return err
			}
		}
	}
	for _, imei := range want.IMEIs {
		if !slices.Contains(applied.IMEIs, imei) {
			if err := p.unitTo(seq, imei, skuOf(o, imei), "sold", o.ID, nil); err != nil {
				return err
			}
		}
	}
	for _, imei := range applied.In {
		if !slices.Contains(want.In, imei) { // the return did not go through
			if _, err := p.tx.Exec(p.ctx, `UPDATE stock_units SET state = 'sold', seq = $3
				WHERE terminal_id = $1 AND (imei = $2 OR imei2 = $2) AND state = 'in_stock'`, p.terminal, imei, int64(seq)); err != nil {
				return err
			}
		}
	}
	for _, imei := range want.In {
		if !slices.Contains(applied.In, imei) {
			if err := p.unitTo(seq, imei, skuOf(o, imei), string(pos.UnitInStock), "", &ev.Time); err != nil {
				return err
			}
		}
	}
	if len(want.Out) == 0 && len(want.IMEIs) == 0 && len(want.In) == 0 &&
		(o.State == pos.StateFailed || o.State == pos.StateAbandoned || o.State == pos.StateVoided) {
		p.stock.fx[o.ID] = nil // never sold: nothing more can come of it
		_, err := p.tx.Exec(p.ctx, "DELETE FROM stock_orders WHERE terminal_id = $1 AND order_id = $2", p.terminal, o.ID)
		return err
	}
	p.stock.fx[o.ID] = &want
	raw, err := json.Marshal(want)
	if err != nil {
		return err
	}
	_, err = p.tx.Exec(p.ctx, `INSERT INTO stock_orders (terminal_id, order_id, effect) VALUES ($1, $2, $3)
		ON CONFLICT (terminal_id, order_id) DO UPDATE SET effect = EXCLUDED.effect`, p.terminal, o.ID, raw)
	return err
}

// sameEffect reports whether two stock effects take out the same.
func sameEffect(a, b *pos.StockEffect) bool {
	return maps.Equal(a.Out, b.Out) && slices.Equal(a.IMEIs, b.IMEIs) && slices.Equal(a.In, b.In)
}

// skuOf is the SKU of the line of o that carries imei.
func skuOf(o *pos.Order, imei string) string {
	for _, l := range o.Lines {
		if slices.Contains(l.IMEIs, imei) {
			return l.SKU
		}
	}
	return ""
}

// unitTo sets the unit imei (either of its IMEIs) at the projector's
// terminal to state, sold in order ("" none); a unit the terminal holds no
// record of is added as sku, received at received when not nil.
func (p *projector) unitTo(seq uint64, imei, sku, state, order string, received *time.Time) error {
	_, err := p.tx.Exec(p.ctx, `WITH u AS (
			UPDATE stock_units SET state = $3, order_id = $4, seq = $5 WHERE terminal_id = $1 AND (imei = $2 OR imei2 = $2) RETURNING 1)
		INSERT INTO stock_units (terminal_id, imei, sku, state, order_id, seq, received_at)
		SELECT $1, $2, $6, $3, $4, $5, $7 WHERE NOT EXISTS (SELECT 1 FROM u) AND $6 <> ''
		ON CONFLICT DO NOTHING`, p.terminal, imei, state, order, int64(seq), sku, received)
	return err
}

// projectStock applies one stock event of the projector's terminal. A body
// that is not a record of its kind is skipped (the counter checked it when it
// was journaled).
func projectStock(p *projector, seq uint64, ev *pos.Event) error {
	switch ev.Kind {
	case pos.EvStockReceived:
		var d pos.Delivery
		if json.Unmarshal(ev.Data, &d) != nil {
			return nil
		}
		if err := p.stockBegins(ev.Time); err != nil {
			return err
		}
		for _, l := range d.Lines {
			if len(l.Units) == 0 {
				if err := p.stockQty(l.SKU, int64(l.Qty)); err != nil {
					return err
				}
				continue
			}
			for _, u := range l.Units {
				_, err := p.tx.Exec(p.ctx, `INSERT INTO stock_units (terminal_id, imei, imei2, sku, state, cost, received_at, supplier, invoice, seq)
					VALUES ($1, $2, $3, $4, 'in_stock', $5, $6, $7, $8, $9)
					ON CONFLICT (terminal_id, imei) DO UPDATE SET imei2 = EXCLUDED.imei2, sku = EXCLUDED.sku, state = 'in_stock', cost = EXCLUDED.cost,
						received_at = EXCLUDED.received_at, supplier = EXCLUDED.supplier, invoice = EXCLUDED.invoice, seq = EXCLUDED.seq, order_id = ''`,
					p.terminal, u.IMEI, u.IMEI2, l.SKU, int64(l.Cost), ev.Time, d.Supplier, d.Invoice, int64(seq))
				if err != nil {
					return err
				}
			}
		}
		if d.From != "" {
			_, err := p.tx.Exec(p.ctx, `UPDATE stock_transfers SET received_by = $3, received_at = $4
				WHERE from_terminal = $1 AND id = $2 AND received_at IS NULL`, d.From, d.Invoice, p.terminal, ev.Time)
			return err
		}
	case pos.EvStockAdjusted:
		var a pos.StockAdjustment
		if json.Unmarshal(ev.Data, &a) != nil {
			return nil
		}
		if len(a.Lines)+len(a.Units) > 0 {
			if err := p.stockBegins(ev.Time); err != nil { // a count of the shelf starts stock as a delivery does
				return err
			}
		}
		for _, l := range a.Lines {
			if err := p.stockQty(l.SKU, l.Delta); err != nil {
				return err
			}
		}
		for _, m := range a.Units {
			if err := p.stockUnit(seq, m.IMEI, m.SKU, m.To); err != nil {
				return err
			}
		}
	case pos.EvStockSent:
		var t pos.Transfer
		if json.Unmarshal(ev.Data, &t) != nil || t.ID == "" {
			return nil
		}
		units := 0
		for _, l := range t.Lines {
			units += l.Qty
			if len(l.Units) == 0 {
				if err := p.stockQty(l.SKU, -int64(l.Qty)); err != nil {
					return err
				}
				continue
			}
			for _, u := range l.Units {
				if err := p.stockUnit(seq, u.IMEI, l.SKU, pos.UnitInTransit); err != nil {
					return err
				}
			}
		}
		_, err := p.tx.Exec(p.ctx, `INSERT INTO stock_transfers (from_terminal, id, to_name, sent_at, units) VALUES ($1, $2, $3, $4, $5)
			ON CONFLICT DO NOTHING`, p.terminal, t.ID, t.To, ev.Time, units)
		return err
	}
	return nil
}

// stockQty moves the quantity of sku at the projector's terminal by delta.
func (p *projector) stockQty(sku string, delta int64) error {
	_, err := p.tx.Exec(p.ctx, `INSERT INTO stock_qty (terminal_id, sku, qty) VALUES ($1, $2, $3)
		ON CONFLICT (terminal_id, sku) DO UPDATE SET qty = stock_qty.qty + EXCLUDED.qty`, p.terminal, sku, delta)
	return err
}

// stockUnit sets the state of the unit imei (either of its IMEIs) at the
// projector's terminal; a unit it does not hold yet (found at a count) is
// added as sku.
func (p *projector) stockUnit(seq uint64, imei, sku string, to pos.UnitState) error {
	_, err := p.tx.Exec(p.ctx, `WITH u AS (
			UPDATE stock_units SET state = $3, seq = $4 WHERE terminal_id = $1 AND (imei = $2 OR imei2 = $2) RETURNING 1)
		INSERT INTO stock_units (terminal_id, imei, sku, state, seq)
		SELECT $1, $2, $5, $3, $4 WHERE NOT EXISTS (SELECT 1 FROM u) AND $5 <> ''
		ON CONFLICT DO NOTHING`, p.terminal, imei, string(to), int64(seq), sku)
	return err
}
