package store

import (
	"encoding/json"

	"galla/pos"
)

// Stock (issue 26): each counter's stock.received, stock.adjusted and
// stock.sent events projected into stock_units (a serialised unit's state at
// the counter that holds its record), stock_qty (the items not serialised,
// moved outside sales) and stock_transfers (a transfer sent, and its arrival
// at the other end: a stock.received From its sender whose invoice is the
// transfer's id). A unit's sale is its counter's order (imei_units), read
// beside it by the stock page.

// stockTables are the stock's projected tables, emptied by a rebuild.
var stockTables = []string{"stock_units", "stock_qty", "stock_transfers"}

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
						received_at = EXCLUDED.received_at, supplier = EXCLUDED.supplier, invoice = EXCLUDED.invoice, seq = EXCLUDED.seq`,
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
	tag, err := p.tx.Exec(p.ctx, `UPDATE stock_units SET state = $3, seq = $4 WHERE terminal_id = $1 AND (imei = $2 OR imei2 = $2)`,
		p.terminal, imei, string(to), int64(seq))
	if err != nil || tag.RowsAffected() > 0 || sku == "" {
		return err
	}
	_, err = p.tx.Exec(p.ctx, `INSERT INTO stock_units (terminal_id, imei, sku, state, seq) VALUES ($1, $2, $3, $4, $5)
		ON CONFLICT DO NOTHING`, p.terminal, imei, sku, string(to), int64(seq))
	return err
}
