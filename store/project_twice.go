package store

import (
	"fmt"
	"slices"

	"github.com/jackc/pgx/v5"

	"galla/pos"
)

// AlarmSoldTwice is one unit sold at two counters: a counter that could not
// reach the store sold an IMEI (its own check passed, or a manager allowed
// it) that another counter had sold and not taken back. Both sales are facts
// and are stored as sent; the alarm names the IMEI, both counters and both
// invoices, for the manager to find the unit and settle one of the sales.
const AlarmSoldTwice = "sold_twice"

// soldBy is an order of a counter that sold a unit.
type soldBy struct {
	terminal string
	order    *pos.Order
}

// soldNow is a sale of the projector's run whose IMEIs it just sold, and
// the event that made it paid.
type soldNow struct {
	seq   uint64
	order string
	imeis []string
}

// checkSoldTwice raises an alarm for each IMEI just sold by the run's sales
// (p.sold, emptied) that a paid sale of another counter still holds: not
// returned there, nor at any counter (a return order citing it), nor
// cancelled. One query for the run's IMEIs, only when it sold some. Raised
// once: a re-projection finds the same two invoices and adds no alarm.
func (p *projector) checkSoldTwice() error {
	if len(p.sold) == 0 {
		return nil
	}
	sold := p.sold
	p.sold = nil
	var imeis []string
	for _, s := range sold {
		imeis = append(imeis, s.imeis...)
	}
	// A phone with two IMEIs may be sold by either: each IMEI is looked for
	// with its unit's other one, as the stock received recorded them. The
	// units' pairs and the other counters' sales go in one round trip: the
	// second query finds the pairs itself.
	var b pgx.Batch
	b.Queue(unitPairsSQL, imeis)
	b.Queue(`SELECT u.imei, u.terminal_id, o.snapshot FROM imei_units u JOIN orders o USING (terminal_id, order_id)
		WHERE u.imei = ANY($1::text[] || ARRAY(SELECT imei2 FROM stock_units WHERE imei2 <> '' AND imei = ANY($1::text[]))
			|| ARRAY(SELECT imei FROM stock_units WHERE imei2 <> '' AND imei2 = ANY($1::text[])))
		AND u.terminal_id <> $2 AND o.state IN ('PAID', 'PARTLY_REFUNDED')`, imeis, p.terminal)
	br := p.tx.SendBatch(p.ctx, &b)
	unit, err := readUnitPairs(br)
	if err != nil {
		_ = br.Close()
		return err
	}
	type hit struct {
		imei, terminal string
		snap           []byte
	}
	rs, err := br.Query()
	if err != nil {
		_ = br.Close()
		return err
	}
	hits, err := pgx.CollectRows(rs, func(r pgx.CollectableRow) (hit, error) {
		var h hit
		return h, r.Scan(&h.imei, &h.terminal, &h.snap)
	})
	if cerr := br.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return err
	}
	for _, h := range hits {
		var other pos.Order
		if p.vault.unmarshal(h.snap, &other) != nil || !slices.Contains(pos.StockEffectOf(&other).IMEIs, h.imei) {
			continue // returned, or its invoice cancelled, at the counter that sold it
		}
		back, err := p.returnedElsewhere(h.terminal, other.ID, h.imei)
		if err != nil {
			return err
		}
		if back {
			continue
		}
		for _, s := range sold {
			o := p.orders[s.order]
			if o == nil {
				continue
			}
			here := "" // the IMEI this run's sale names the unit by
			for _, m := range s.imeis {
				if slices.Contains(unit(m), h.imei) && slices.Contains(pos.StockEffectOf(o).IMEIs, m) {
					here = m
				}
			}
			if here == "" {
				continue
			}
			a, b := soldBy{h.terminal, &other}, soldBy{p.terminal, o}
			if b.terminal < a.terminal {
				a, b = b, a
			}
			named := "IMEI " + h.imei
			if here != h.imei {
				named = fmt.Sprintf("The phone of IMEIs %s and %s", min(here, h.imei), max(here, h.imei))
			}
			detail := fmt.Sprintf("%s was sold at two counters: at %s on invoice %s and at %s on invoice %s (one of them could not reach the store); find the unit and settle one of the sales",
				named, a.terminal, invoiceNumber(a.order, a.terminal, a.order), b.terminal, invoiceNumber(b.order, b.terminal, b.order))
			if _, err := p.tx.Exec(p.ctx, `INSERT INTO alarms (terminal_id, kind, seq, detail)
				SELECT $1, $2, $3, $4 WHERE NOT EXISTS (SELECT 1 FROM alarms WHERE kind = $2 AND detail = $4)`,
				p.terminal, AlarmSoldTwice, int64(s.seq), detail); err != nil {
				return err
			}
		}
	}
	return nil
}

// unitPairsSQL reads the units (both IMEIs) that any counter's stock
// received recorded with one of the IMEIs $1.
const unitPairsSQL = `SELECT imei, imei2 FROM stock_units WHERE imei2 <> '' AND (imei = ANY($1::text[]) OR imei2 = ANY($1::text[]))`

// readUnitPairs reads unitPairsSQL's answer: a function that gives, for each
// IMEI asked, every IMEI of its unit (itself first).
func readUnitPairs(br pgx.BatchResults) (func(string) []string, error) {
	rs, err := br.Query()
	if err != nil {
		return nil, err
	}
	pairs, err := pgx.CollectRows(rs, func(r pgx.CollectableRow) ([2]string, error) {
		var pr [2]string
		return pr, r.Scan(&pr[0], &pr[1])
	})
	if err != nil {
		return nil, err
	}
	other := map[string]string{}
	for _, pr := range pairs {
		other[pr[0]], other[pr[1]] = pr[1], pr[0]
	}
	return func(m string) []string {
		if o, ok := other[m]; ok {
			return []string{m, o}
		}
		return []string{m}
	}, nil
}

// returnedElsewhere reports whether a return order at any counter citing
// order id of terminal took imei back: those of the projector's terminal as
// this run made them, the others' as stored.
func (p *projector) returnedElsewhere(terminal, id, imei string) (bool, error) {
	cites := func(ret *pos.Order) bool {
		return ret.Origin != nil && ret.Origin.Terminal == terminal && ret.Origin.OrderID == id &&
			slices.Contains(pos.StockEffectOf(ret).In, imei)
	}
	for _, ret := range p.orders {
		if cites(ret) {
			return true, nil
		}
	}
	rs, err := p.tx.Query(p.ctx, `SELECT terminal_id, order_id, snapshot FROM orders WHERE origin_order <> ''
		AND origin_terminal = $1 AND origin_order = $2`, terminal, id)
	if err != nil {
		return false, err
	}
	type stored struct {
		terminal, id string
		snap         []byte
	}
	rows, err := pgx.CollectRows(rs, func(r pgx.CollectableRow) (stored, error) {
		var s stored
		return s, r.Scan(&s.terminal, &s.id, &s.snap)
	})
	if err != nil {
		return false, err
	}
	for _, s := range rows {
		if _, inRun := p.orders[s.id]; inRun && s.terminal == p.terminal {
			continue // as this run made it, above
		}
		var ret pos.Order
		if p.vault.unmarshal(s.snap, &ret) == nil && cites(&ret) {
			return true, nil
		}
	}
	return false, nil
}
