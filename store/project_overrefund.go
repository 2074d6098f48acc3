package store

import (
	"fmt"
	"slices"
	"strings"

	"github.com/jackc/pgx/v5"

	"galla/pos"
)

// AlarmOverRefund is an invoice refunded beyond what was left of it across
// counters: a counter that could not reach the store refunded its own invoice
// from its journal while another counter had returned the same goods or
// money (docs/security.md "Offline returns"). The refund is a fact and is
// stored as sent; the alarm names the counters, the invoice and the amount at
// stake, and the day report and the store's Z show it (OverRefund).
const AlarmOverRefund = "over_refund"

// overRefund is what a refund put an invoice beyond: the money refunded past
// what was paid, or, when the money stays within it, the money paid back for
// units past those sold on a line.
type overRefund struct {
	amount pos.Paise
	units  int
}

// returnsOf are the orders holding an invoice's refunds: the invoice's own
// order (its own counter's refunds) and the return orders of other counters
// citing it, each with its counter.
type returnsOf struct {
	sold      *pos.Order
	soldTerm  string
	terminals []string
	orders    []*pos.Order
}

// checkOverRefund checks, as the refund uid of o (the projector's terminal's)
// is projected done, whether it took the invoice it goes against (o itself, or
// o.Origin's) beyond what was left of it across counters: more money than was
// paid, or more units of a line than were sold. Only a conflict with another
// counter is recorded (a counter's own journal bounds its own refunds): a row
// of over_refunds and an alarm naming both counters, the invoice and the
// amount at stake.
func (p *projector) checkOverRefund(seq uint64, o *pos.Order, uid, day string) error {
	r := o.RefundByID(uid)
	if r == nil || r.Status == pos.RefundFailed {
		return nil
	}
	ro, err := p.returnsOf(o)
	if err != nil || ro == nil {
		return err
	}
	was := ro.over(ro.taken(uid, p.terminal, false), nil)
	over := ro.over(ro.taken(uid, p.terminal, true), r)
	if over.amount <= was.amount && over.units <= was.units {
		return nil // within what was left, or no further beyond it
	}
	stake := overRefund{amount: over.amount - was.amount, units: max(over.units-was.units, 0)}
	if stake.amount <= 0 {
		stake.amount = min(r.Amount, over.amount)
	}
	if stake.amount <= 0 {
		return nil
	}
	var others []string
	for i, t := range ro.terminals {
		if t != p.terminal && ro.hasRefunds(i, uid) && !slices.Contains(others, t) {
			others = append(others, t)
		}
	}
	if len(others) == 0 {
		return nil
	}
	number := invoiceNumber(ro.sold, ro.soldTerm, o)
	detail := fmt.Sprintf("invoice %s was refunded at counter %s and again at counter %s (refund %s, %s): %s beyond what was left of it",
		number, strings.Join(others, ", "), p.terminal, uid, r.To, stake.amount)
	if stake.units > 0 {
		detail += fmt.Sprintf(", %d unit(s) beyond those sold", stake.units)
	}
	detail += "; the money was paid out twice: recover it or write it off"
	if _, err := p.tx.Exec(p.ctx, `INSERT INTO over_refunds (terminal_id, refund_id, sold_terminal, sold_order, number, others, amount, units, day, seq)
		VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10) ON CONFLICT DO NOTHING`,
		p.terminal, uid, ro.soldTerm, ro.sold.ID, number, strings.Join(others, ", "), int64(stake.amount), stake.units, dayArg(day), int64(seq)); err != nil {
		return err
	}
	// Raised once: a re-projection finds the conflict again and adds no alarm.
	_, err = p.tx.Exec(p.ctx, `INSERT INTO alarms (terminal_id, kind, seq, detail)
		SELECT $1, $2, $3, $4 WHERE NOT EXISTS (SELECT 1 FROM alarms WHERE terminal_id = $1 AND kind = $2 AND detail = $4)`,
		p.terminal, AlarmOverRefund, int64(seq), detail)
	return err
}

// invoiceNumber is the invoice sold's number as the store's documents name
// it: from a return order's Origin when o is one, else as projectOrder
// numbers the sold order's document.
func invoiceNumber(sold *pos.Order, terminal string, o *pos.Order) string {
	switch {
	case o.Origin != nil && o.Origin.Number != "":
		return o.Origin.Number
	case sold.DocNo != 0:
		return pos.DocNumber(terminal, sold.Series, sold.DocNo)
	}
	return DocumentNumber(terminal, sold.ReceiptNo)
}

// returnsOf reads the invoice o's refund goes against and the return orders
// citing it, as projected so far (this run's orders from memory). It returns
// nil when the store does not hold the invoice, or, for a refund of the
// projector's own invoice, when no other counter ever returned any of it (the
// common case: one indexed read).
func (p *projector) returnsOf(o *pos.Order) (*returnsOf, error) {
	ro := &returnsOf{soldTerm: p.terminal, sold: o}
	soldOrder := o.ID
	if o.Origin != nil {
		ro.soldTerm, soldOrder = o.Origin.Terminal, o.Origin.OrderID
		if ro.soldTerm == p.terminal {
			sold, err := p.order(soldOrder)
			if err != nil {
				return nil, err
			}
			ro.sold = sold
		} else {
			var snap []byte
			err := p.tx.QueryRow(p.ctx, "SELECT snapshot FROM orders WHERE terminal_id = $1 AND order_id = $2", ro.soldTerm, soldOrder).Scan(&snap)
			if err != nil {
				return nil, ignoreNoRows(err)
			}
			ro.sold = &pos.Order{}
			if p.vault.unmarshal(snap, ro.sold) != nil {
				return nil, nil
			}
		}
	}
	if ro.sold.ID == "" || !ro.sold.State.Paid() || ro.sold.Voided() {
		return nil, nil
	}
	ro.terminals, ro.orders = append(ro.terminals, ro.soldTerm), append(ro.orders, ro.sold)
	rows, err := p.storedReturns(ro.soldTerm, soldOrder)
	if err != nil {
		return nil, err
	}
	seen := map[string]bool{}
	for _, s := range rows {
		if s.terminal == p.terminal {
			continue // from memory below, as this run made it
		}
		var ret pos.Order
		if p.vault.unmarshal(s.snap, &ret) == nil {
			ro.terminals, ro.orders = append(ro.terminals, s.terminal), append(ro.orders, &ret)
		}
	}
	if o.Origin == nil && len(ro.orders) == 1 {
		return nil, nil // no other counter returned any of it
	}
	for _, s := range rows {
		if s.terminal == p.terminal && !seen[s.id] {
			seen[s.id] = true
			ret, err := p.order(s.id)
			if err != nil {
				return nil, err
			}
			ro.terminals, ro.orders = append(ro.terminals, p.terminal), append(ro.orders, ret)
		}
	}
	for id, ret := range p.orders { // this run's return orders not written yet
		if seen[id] || ret == ro.sold || ret.Origin == nil || ret.Origin.Terminal != ro.soldTerm || ret.Origin.OrderID != soldOrder {
			continue
		}
		seen[id] = true
		ro.terminals, ro.orders = append(ro.terminals, p.terminal), append(ro.orders, ret)
	}
	return ro, nil
}

// storedReturn is a stored return order citing an invoice.
type storedReturn struct {
	terminal, id string
	snap         []byte
}

// storedReturns reads the stored return orders citing terminal's invoice
// order: as preload read them for the run (the projector's terminal's return
// orders written since are the run's, in memory), or else now.
func (p *projector) storedReturns(terminal, order string) ([]storedReturn, error) {
	if rows, ok := p.returns[[2]string{terminal, order}]; ok {
		return rows, nil
	}
	rs, err := p.tx.Query(p.ctx, `SELECT terminal_id, order_id, snapshot FROM orders WHERE origin_order <> ''
		AND origin_terminal = $1 AND origin_order = $2`, terminal, order)
	if err != nil {
		return nil, err
	}
	return pgx.CollectRows(rs, func(r pgx.CollectableRow) (storedReturn, error) {
		var s storedReturn
		return s, r.Scan(&s.terminal, &s.id, &s.snap)
	})
}

// taken adds up the refunds of the invoice, leaving out (with) or counting
// (without) the refund uid of terminal.
func (ro *returnsOf) taken(uid, terminal string, with bool) *invoiceTaken {
	tk := newTaken(len(ro.sold.Lines))
	for i, o := range ro.orders {
		c := *o
		if !with && ro.terminals[i] == terminal {
			c.Refunds = slices.DeleteFunc(slices.Clone(o.Refunds), func(r pos.Refund) bool { return r.UniqueTxnID == uid })
		}
		tk.refunds(&c)
	}
	return tk
}

// hasRefunds reports whether the i-th order holds a refund (other than uid)
// that did not fail.
func (ro *returnsOf) hasRefunds(i int, uid string) bool {
	return slices.ContainsFunc(ro.orders[i].Refunds, func(r pos.Refund) bool {
		return r.UniqueTxnID != uid && r.Status != pos.RefundFailed
	})
}

// over is how far tk goes beyond the invoice: the money refunded past what
// was paid, and the units past those sold on each line, with the money r (the
// refund being checked, nil for none) paid back for them.
func (ro *returnsOf) over(tk *invoiceTaken, r *pos.Refund) overRefund {
	var out overRefund
	paid := ro.sold.Captured
	if paid <= 0 {
		paid = ro.sold.Amount
	}
	out.amount = max(tk.total-paid, 0)
	var unitsMoney pos.Paise
	for i, l := range ro.sold.Lines {
		extra := tk.units[i] - l.Qty
		if extra <= 0 {
			continue
		}
		out.units += extra
		if r == nil {
			continue
		}
		for _, it := range r.Items {
			if it.Line == i && it.Qty > 0 {
				unitsMoney += it.Amount * pos.Paise(min(extra, it.Qty)) / pos.Paise(it.Qty)
			}
		}
	}
	out.amount = max(out.amount, unitsMoney)
	return out
}
