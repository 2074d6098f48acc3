package store

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strings"

	"github.com/jackc/pgx/v5"

	"galla/pos"
	"galla/store/api"
)

// Returns of an invoice, at its own counter or another (issue 22). What may
// still come back of an invoice is decided from the events only: the invoice's
// lines and what was paid as its own counter journaled them, less the refunds
// its own counter journaled on it, the refunds other counters journaled on
// return orders citing it (pos.Origin), and the reservations whose refund's
// event has not arrived yet and that have not expired (ReserveHold). A
// reservation is settled when its refund's event arrives from the counter that
// reserved it (projectOrder): the events count it from then on.

// invoiceTaken is what was returned, or is being returned, of an invoice: in
// all, and by line (units, the money paid back for units, the IMEIs that came
// back). A price adjustment's money (items of no units) counts in the total
// only: a counter splits one over the lines by what its own view of the
// invoice holds, which need not know the other counters' returns.
type invoiceTaken struct {
	total pos.Paise
	units []int
	money []pos.Paise
	imeis map[string]bool
}

func newTaken(lines int) *invoiceTaken {
	return &invoiceTaken{units: make([]int, lines), money: make([]pos.Paise, lines), imeis: map[string]bool{}}
}

// refunds adds the refunds of o that did not fail (an order's own, or a
// return order's at another counter).
func (tk *invoiceTaken) refunds(o *pos.Order) {
	for _, r := range o.Refunds {
		if r.Status == pos.RefundFailed {
			continue
		}
		tk.total += r.Amount
		for _, it := range r.Items {
			tk.line(it.Line, it.Qty, it.Amount, it.IMEIs)
		}
	}
}

// line adds qty units and amount of the invoice's line i.
func (tk *invoiceTaken) line(i, qty int, amount pos.Paise, imeis []string) {
	if i < 0 || i >= len(tk.units) {
		return
	}
	if qty <= 0 {
		return // a price adjustment: in the total only
	}
	tk.units[i] += qty
	tk.money[i] += amount
	for _, m := range imeis {
		tk.imeis[m] = true
	}
}

// soldInvoice is an invoice found by its number as printed, and its order as
// its own counter's events made it.
type soldInvoice struct {
	number, terminal string
	order            *pos.Order
	captured         int64
	cancelled        bool
}

// findInvoice reads the invoice named number from the events of the counter
// whose number it is (T1 of T1/2627/000123), locking its order's row when lock
// is set. An invoice the store does not hold is refused with a sentence
// (api.CodeNotFound, HTTP 404).
func findInvoice(ctx context.Context, q pgx.Tx, v *vault, number string, lock bool) (*soldInvoice, error) {
	term, _, _ := strings.Cut(number, "/")
	inv := &soldInvoice{number: number, terminal: term, order: &pos.Order{}}
	var orderID string
	err := q.QueryRow(ctx, "SELECT order_id, cancelled FROM documents WHERE terminal_id = $1 AND number = $2 AND kind = 'receipt'", term, number).
		Scan(&orderID, &inv.cancelled)
	if errors.Is(err, pgx.ErrNoRows) {
		return nil, &api.Error{HTTPStatus: http.StatusNotFound, Code: api.CodeNotFound, Message: fmt.Sprintf("invoice %s is not known to the store: check the number on the receipt, or wait until its counter has synced", number)}
	}
	if err != nil {
		return nil, err
	}
	sql := "SELECT snapshot FROM orders WHERE terminal_id = $1 AND order_id = $2"
	if lock {
		sql += " FOR UPDATE"
	}
	var snap []byte
	if err := q.QueryRow(ctx, sql, term, orderID).Scan(&snap); err != nil {
		return nil, err
	}
	if err := v.unmarshal(snap, inv.order); err != nil {
		return nil, fmt.Errorf("invoice %s: its order cannot be read: %w", number, err)
	}
	// A sale paid by tenders of their own holds no money on its row (its
	// tenders' rows do, and the day report counts them there): what it was
	// paid is read as the counter reads it.
	inv.captured = int64(inv.order.PaidAmount())
	return inv, nil
}

// taken adds up what was returned or is being returned of inv, store-wide,
// leaving out the reservation (terminal, refundID) (the one being decided).
func (dc *Decisions) taken(ctx context.Context, q pgx.Tx, inv *soldInvoice, terminal, refundID string) (*invoiceTaken, error) {
	tk := newTaken(len(inv.order.Lines))
	tk.refunds(inv.order)
	rs, err := q.Query(ctx, `SELECT snapshot FROM orders WHERE origin_order <> ''
		AND origin_terminal = $1 AND origin_order = $2`, inv.terminal, inv.order.ID)
	if err != nil {
		return nil, err
	}
	snaps, err := pgx.CollectRows(rs, pgx.RowTo[[]byte])
	if err != nil {
		return nil, err
	}
	for _, snap := range snaps {
		var ro pos.Order
		if dc.vault().unmarshal(snap, &ro) == nil {
			tk.refunds(&ro)
		}
	}
	rs, err = q.Query(ctx, `SELECT amount, lines FROM return_reservations
		WHERE sold_terminal = $1 AND sold_order = $2 AND NOT settled AND reserved_at > $3 AND NOT (terminal_id = $4 AND refund_id = $5)`,
		inv.terminal, inv.order.ID, dc.now().Add(-ReserveHold), terminal, refundID)
	if err != nil {
		return nil, err
	}
	defer rs.Close()
	for rs.Next() {
		var amount int64
		var js []byte
		if err := rs.Scan(&amount, &js); err != nil {
			return nil, err
		}
		tk.total += pos.Paise(amount)
		var lines []api.ReturnLine
		if json.Unmarshal(js, &lines) == nil {
			for _, l := range lines {
				tk.line(l.Line, l.Qty, pos.Paise(l.Amount), l.IMEIs)
			}
		}
	}
	return tk, rs.Err()
}

// ReserveReturn reserves amount of terminal's refund refundID of the invoice
// document (any counter's), decided from the events: never more than was paid
// for it less what was returned or is being returned of it anywhere; and, line
// by line (lines), never more units than were sold on the line, nor more money
// for units than the line came to less what went back for its units returned
// before, at any counter or reserved, and only IMEIs sold on the line and not
// returned. A price adjustment (a line of no units) is bounded by the total. The lines' amounts add up
// to amount. A return of another counter's invoice must name its lines
// (api.CodeLinesNeeded); the invoice's own counter may reserve by amount alone
// (its journal checks its units). An invoice of a blocked counter, or a
// cancelled one, is refused. It returns the sale's terminal and order, and
// what is left of it afterwards. Asking again with the same amount is
// harmless.
func (dc *Decisions) ReserveReturn(ctx context.Context, terminal, document, refundID string, amount pos.Paise, lines []api.ReturnLine) (api.Reserved, error) {
	document = strings.TrimSpace(document)
	if document == "" || refundID == "" || amount <= 0 {
		return api.Reserved{}, badRequest("the return needs the invoice's document number, the refund's id and an amount above zero")
	}
	var sum int64
	for _, l := range lines {
		if l.Qty < 0 || l.Amount < 0 {
			return api.Reserved{}, badRequest(fmt.Sprintf("line %d of the return has %d units and %s: neither may be below zero", l.Line+1, l.Qty, pos.Paise(l.Amount)))
		}
		sum += l.Amount
	}
	if len(lines) > 0 && sum != int64(amount) {
		return api.Reserved{}, badRequest(fmt.Sprintf("the return's lines come to %s, not its amount %s", pos.Paise(sum), amount))
	}
	if err := dc.projections.Project(ctx); err != nil { // what was sold, paid and returned, as the events hold it
		return api.Reserved{}, err
	}
	var out api.Reserved
	err := pgx.BeginFunc(ctx, dc.pool, func(tx pgx.Tx) error {
		inv, err := findInvoice(ctx, tx, dc.vault(), document, true)
		if err != nil {
			return err
		}
		o := inv.order
		out.SoldTerminal, out.SoldOrder = inv.terminal, o.ID
		switch {
		case inv.cancelled || o.Voided():
			return refused(api.CodeNotFound, fmt.Sprintf("invoice %s is cancelled: nothing of it can be returned", document))
		case !o.State.Paid():
			return refused(api.CodeNotFound, fmt.Sprintf("invoice %s is %s, not paid: nothing of it can be returned", document, projectedState(o)))
		case inv.terminal != terminal && len(lines) == 0:
			return &api.Error{HTTPStatus: http.StatusConflict, Code: api.CodeLinesNeeded,
				Message: fmt.Sprintf("a return of invoice %s of counter %s must name the goods that come back, line by line: update this counter's program, or return it at counter %s", document, inv.terminal, inv.terminal)}
		}
		if inv.terminal != terminal {
			if err := issuerActive(ctx, tx, inv.terminal, "invoice "+document); err != nil {
				return err
			}
		}
		var had int64
		err = tx.QueryRow(ctx, "SELECT amount FROM return_reservations WHERE terminal_id = $1 AND refund_id = $2", terminal, refundID).Scan(&had)
		again := err == nil
		if err != nil && !errors.Is(err, pgx.ErrNoRows) {
			return err
		}
		if again && had != int64(amount) {
			return refused(api.CodeTaken, fmt.Sprintf("refund %s reserved %s of invoice %s already", refundID, pos.Paise(had), document))
		}
		tk, err := dc.taken(ctx, tx, inv, terminal, refundID)
		if err != nil {
			return err
		}
		left := inv.captured - int64(tk.total)
		if again {
			out.Remaining = max(left-int64(amount), 0)
			return nil
		}
		if int64(amount) > left {
			return refused(api.CodeExceeded, fmt.Sprintf("invoice %s was paid %s, of which %s is refunded or being refunded: at most %s can be returned, not %s",
				document, pos.Paise(inv.captured), tk.total, pos.Paise(max(left, 0)), amount))
		}
		if err := checkLines(document, o, tk, lines); err != nil {
			return err
		}
		js, err := json.Marshal(lines)
		if err != nil || lines == nil {
			js = []byte("[]")
		}
		if _, err := tx.Exec(ctx, `INSERT INTO return_reservations (sold_terminal, sold_order, terminal_id, refund_id, amount, lines, reserved_at)
			VALUES ($1, $2, $3, $4, $5, $6, $7)`, inv.terminal, o.ID, terminal, refundID, int64(amount), js, dc.now()); err != nil {
			return err
		}
		out.Remaining = left - int64(amount)
		return nil
	})
	if err != nil {
		return api.Reserved{}, dc.reserveErr("reserve return", err)
	}
	return out, nil
}

// checkLines refuses, with a sentence, a return's lines that the invoice o
// (document) cannot give back, less what tk says was returned already.
func checkLines(document string, o *pos.Order, tk *invoiceTaken, lines []api.ReturnLine) error {
	var seen []int
	for _, rl := range lines {
		if rl.Line < 0 || rl.Line >= len(o.Lines) || o.Lines[rl.Line].SKU != rl.SKU {
			return refused(api.CodeNotFound, fmt.Sprintf("invoice %s has no line %d of %s: check the item code", document, rl.Line+1, rl.SKU))
		}
		if slices.Contains(seen, rl.Line) {
			return badRequest(fmt.Sprintf("line %d of invoice %s is named twice in the return", rl.Line+1, document))
		}
		seen = append(seen, rl.Line)
		l := o.Lines[rl.Line]
		units, money := tk.units[rl.Line], tk.money[rl.Line]
		if rl.Qty > l.Qty-units {
			return refused(api.CodeExceeded, fmt.Sprintf("invoice %s, line %d (%s): %d sold, %d returned or being returned already: at most %d more can come back, not %d",
				document, rl.Line+1, l.SKU, l.Qty, units, max(l.Qty-units, 0), rl.Qty))
		}
		if rl.Qty > 0 && pos.Paise(rl.Amount) > l.Amount()-money {
			return refused(api.CodeExceeded, fmt.Sprintf("invoice %s, line %d (%s) came to %s, of which %s went back for units returned before: at most %s more for its units, not %s",
				document, rl.Line+1, l.SKU, l.Amount(), money, max(l.Amount()-money, 0), pos.Paise(rl.Amount)))
		}
		for _, m := range rl.IMEIs {
			if !slices.Contains(l.IMEIs, m) || tk.imeis[m] {
				return refused(api.CodeTaken, fmt.Sprintf("IMEI %s was not sold on invoice %s, line %d, or was returned already", m, document, rl.Line+1))
			}
		}
		if l.Serialised && len(l.IMEIs) > 0 && len(rl.IMEIs) != rl.Qty {
			return badRequest(fmt.Sprintf("line %d (%s) of invoice %s is serialised: name the IMEI of each of the %d units that come back", rl.Line+1, l.SKU, document, rl.Qty))
		}
	}
	return nil
}

// Invoice returns a paid sale of any counter of the store, named by its
// document number as printed (T1/2627/000123) or its merchant order id, as the
// events of its own counter hold it: what a return at another counter needs to
// take goods back (the lines, the tender, the date, the buyer) and how much of
// it may still be returned store-wide (paid, less what every counter returned
// or is returning of it). A sale the store does not know, or that is not paid,
// is refused with a sentence.
func (dc *Decisions) Invoice(ctx context.Context, ref string) (api.Invoice, error) {
	ref = strings.TrimSpace(ref)
	if ref == "" {
		return api.Invoice{}, badRequest("name the invoice by its number as printed (T1/2627/000123) or its order id")
	}
	if err := dc.projections.Project(ctx); err != nil { // the sales the counters have sent
		return api.Invoice{}, err
	}
	var out api.Invoice
	err := pgx.BeginFunc(ctx, dc.pool, func(tx pgx.Tx) error {
		number := ref
		var one int
		err := tx.QueryRow(ctx, "SELECT 1 FROM documents WHERE number = $1 AND kind = 'receipt' LIMIT 1", ref).Scan(&one)
		if errors.Is(err, pgx.ErrNoRows) { // an order id: its invoice, at one counter only
			var numbers []string
			rs, qerr := tx.Query(ctx, "SELECT number FROM documents WHERE order_id = $1 AND kind = 'receipt' ORDER BY terminal_id, number LIMIT 2", ref)
			if qerr != nil {
				return qerr
			}
			if numbers, err = pgx.CollectRows(rs, pgx.RowTo[string]); err != nil {
				return err
			}
			switch len(numbers) {
			case 0:
				err = pgx.ErrNoRows
			case 1:
				number = numbers[0]
			default: // a counter's order id named by another's events too: not guessed
				return refused(api.CodeTaken, fmt.Sprintf("order %s names invoices %s and %s: name the invoice by its number as printed", ref, numbers[0], numbers[1]))
			}
		}
		if errors.Is(err, pgx.ErrNoRows) {
			return &api.Error{HTTPStatus: http.StatusNotFound, Code: api.CodeNotFound,
				Message: fmt.Sprintf("invoice %s is not known to the store: check the number on the receipt, or wait until its counter has synced", ref)}
		}
		if err != nil {
			return err
		}
		inv, err := findInvoice(ctx, tx, dc.vault(), number, false)
		if err != nil {
			return err
		}
		if state := projectedState(inv.order); !pos.OrderState(state).Paid() {
			return refused(api.CodeNotFound, fmt.Sprintf("invoice %s is %s, not paid: nothing of it can be returned", number, state))
		}
		tk, err := dc.taken(ctx, tx, inv, "", "")
		if err != nil {
			return err
		}
		snap, err := json.Marshal(inv.order)
		if err != nil {
			return err
		}
		out = api.Invoice{Number: number, Terminal: inv.terminal, OrderID: inv.order.ID, Order: snap,
			Returnable: max(inv.captured-int64(tk.total), 0)}
		return nil
	})
	if err != nil {
		return api.Invoice{}, dc.reserveErr("invoice", err)
	}
	return out, nil
}

// ReturnedElsewhere lists terminal's own invoices that other counters
// returned or are returning, from their reservations (a return of another
// counter's invoice is always reserved first), the latest first, at most
// api.MaxReturnedElsewhere: the counter keeps them, and refuses a return of
// any of them while the store cannot be reached (docs/security.md "Offline
// returns").
func (dc *Decisions) ReturnedElsewhere(ctx context.Context, terminal string) (api.ReturnedElsewhere, error) {
	rs, err := dc.pool.Query(ctx, `SELECT r.sold_order, coalesce((SELECT min(d.number) FROM documents d
			WHERE d.terminal_id = r.sold_terminal AND d.order_id = r.sold_order AND d.kind = 'receipt'), ''),
		sum(r.amount), string_agg(DISTINCT r.terminal_id, ', ')
		FROM return_reservations r WHERE r.sold_terminal = $1 AND r.terminal_id <> $1
		GROUP BY r.sold_terminal, r.sold_order ORDER BY max(r.reserved_at) DESC LIMIT $2`, terminal, api.MaxReturnedElsewhere)
	if err != nil {
		return api.ReturnedElsewhere{}, dc.reserveErr("returned elsewhere", err)
	}
	list, err := pgx.CollectRows(rs, func(r pgx.CollectableRow) (api.ElsewhereReturn, error) {
		var e api.ElsewhereReturn
		return e, r.Scan(&e.OrderID, &e.Number, &e.Amount, &e.Counters)
	})
	if err != nil {
		return api.ReturnedElsewhere{}, dc.reserveErr("returned elsewhere", err)
	}
	return api.ReturnedElsewhere{Invoices: list}, nil
}
