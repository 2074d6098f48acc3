package store

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strings"

	"github.com/jackc/pgx/v5"

	"galla/pos"
	"galla/store/api"
)

// Decisions takes the store-wide decisions (DESIGN.md section 11, ADR 0006):
// an IMEI sold at most once, a credit note spent at most its value, an invoice
// refunded at most what was paid for it; and it finds the invoice a return at
// another counter needs. Each decision is taken in one transaction that locks
// the row it decides on (SELECT … FOR UPDATE), so two counters asking at the
// same moment are served one after the other and exactly one gets what only
// one may have. The reservation tables are never touched by
// Projections.Rebuild: they are decisions, not derived from events.
type Decisions struct{ *dbCore }

func refused(code, msg string) *api.Error {
	return &api.Error{HTTPStatus: http.StatusConflict, Code: code, Message: msg}
}

func badRequest(msg string) *api.Error {
	return &api.Error{HTTPStatus: http.StatusBadRequest, Code: api.CodeMalformed, Message: msg}
}

// ReserveIMEIs reserves imeis for terminal's order: each IMEI is sold at most
// once in the store. An IMEI reserved or sold for another order is refused
// with a sentence naming the counter, unless that order was refunded in full
// or its invoice cancelled (the unit came back). Reserving again for the same order is harmless. All
// or none are reserved.
func (dc *Decisions) ReserveIMEIs(ctx context.Context, terminal, order string, imeis []string) error {
	if order == "" || len(imeis) == 0 {
		return badRequest("the reservation names no order or no IMEI")
	}
	imeis = slices.Clone(imeis)
	slices.Sort(imeis) // lock in one order: two requests never wait on each other crosswise
	imeis = slices.Compact(imeis)
	for _, s := range imeis {
		if err := pos.CheckIMEI(s); err != nil {
			return badRequest(fmt.Sprintf("%q is not an IMEI (%v): scan the 15 digits again", s, err))
		}
	}
	if err := dc.projections.Project(ctx); err != nil { // the units sold by the events held
		return err
	}
	err := pgx.BeginFunc(ctx, dc.pool, func(tx pgx.Tx) error {
		for _, imei := range imeis {
			if _, err := tx.Exec(ctx, `INSERT INTO imei_reservations (imei, terminal_id, order_id, reserved_at) VALUES ($1, $2, $3, $4)
				ON CONFLICT (imei) DO NOTHING`, imei, terminal, order, dc.now()); err != nil {
				return err
			}
			var ht, ho string
			if err := tx.QueryRow(ctx, "SELECT terminal_id, order_id FROM imei_reservations WHERE imei = $1 FOR UPDATE", imei).Scan(&ht, &ho); err != nil {
				return err
			}
			if ht != terminal || ho != order {
				// Held by another order: free only when that order was refunded in
				// full, its invoice cancelled (the unit never left the shop), or its
				// sale never took money (failed, abandoned).
				var state string
				err := tx.QueryRow(ctx, "SELECT state FROM orders WHERE terminal_id = $1 AND order_id = $2", ht, ho).Scan(&state)
				if err != nil && !errors.Is(err, pgx.ErrNoRows) {
					return err
				}
				switch pos.OrderState(state) {
				case pos.StateRefunded, pos.StatusCancelled, pos.StateFailed, pos.StateAbandoned:
				default:
					return refused(api.CodeTaken, fmt.Sprintf("IMEI %s is sold already at counter %s (order %s): check the unit; a manager may look it up on the store's pages", imei, ht, ho))
				}
				if _, err := tx.Exec(ctx, "UPDATE imei_reservations SET terminal_id = $2, order_id = $3, reserved_at = $4 WHERE imei = $1", imei, terminal, order, dc.now()); err != nil {
					return err
				}
			}
			// Sold by an order the store knows from events only (an offline
			// sale a manager let through): refused as well.
			var st, so string
			err := tx.QueryRow(ctx, `SELECT u.terminal_id, u.order_id FROM imei_units u JOIN orders o USING (terminal_id, order_id)
				WHERE u.imei = $1 AND NOT (u.terminal_id = $2 AND u.order_id = $3) AND o.state = ANY($4) LIMIT 1`,
				imei, terminal, order, []string{string(pos.StatePaid), string(pos.StatePartlyRefunded)}).Scan(&st, &so)
			if err == nil {
				return refused(api.CodeTaken, fmt.Sprintf("IMEI %s is sold already at counter %s (order %s): check the unit; a manager may look it up on the store's pages", imei, st, so))
			}
			if !errors.Is(err, pgx.ErrNoRows) {
				return err
			}
		}
		return nil
	})
	return dc.reserveErr("reserve IMEI", err)
}

// IssueCreditNote records credit note number of value paise issued at
// terminal. Recording it again with the same value is harmless.
func (dc *Decisions) IssueCreditNote(ctx context.Context, terminal, number string, value pos.Paise) error {
	if number == "" || value <= 0 {
		return badRequest("a credit note needs a number and a value above zero")
	}
	err := pgx.BeginFunc(ctx, dc.pool, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, `INSERT INTO credit_note_balances (number, terminal_id, value) VALUES ($1, $2, $3) ON CONFLICT DO NOTHING`,
			number, terminal, int64(value)); err != nil {
			return err
		}
		var v int64
		if err := tx.QueryRow(ctx, "SELECT value FROM credit_note_balances WHERE number = $1", number).Scan(&v); err != nil {
			return err
		}
		if v != int64(value) {
			return refused(api.CodeTaken, fmt.Sprintf("credit note %s is recorded already with value %s", number, pos.Paise(v)))
		}
		return nil
	})
	return dc.reserveErr("issue credit note", err)
}

// RedeemCreditNote reserves amount of credit note number for terminal's
// order: never more than is left of it. It returns what is left afterwards.
// Asking again for the same order and amount is harmless.
func (dc *Decisions) RedeemCreditNote(ctx context.Context, terminal, number, order string, amount pos.Paise) (pos.Paise, error) {
	if number == "" || order == "" || amount <= 0 {
		return 0, badRequest("the redemption needs a credit note number, an order and an amount above zero")
	}
	if err := dc.noteBalance(ctx, number); err != nil {
		return 0, dc.reserveErr("redeem credit note", err)
	}
	var left int64
	err := pgx.BeginFunc(ctx, dc.pool, func(tx pgx.Tx) error {
		var value, redeemed int64
		err := tx.QueryRow(ctx, "SELECT value, redeemed FROM credit_note_balances WHERE number = $1 FOR UPDATE", number).Scan(&value, &redeemed)
		if err != nil {
			return err
		}
		var had int64
		err = tx.QueryRow(ctx, "SELECT amount FROM credit_note_redemptions WHERE number = $1 AND terminal_id = $2 AND order_id = $3", number, terminal, order).Scan(&had)
		switch {
		case err == nil && had == int64(amount):
			left = value - redeemed
			return nil
		case err == nil:
			return refused(api.CodeTaken, fmt.Sprintf("%s of credit note %s is reserved for this sale already: release it before asking for %s", pos.Paise(had), number, amount))
		case !errors.Is(err, pgx.ErrNoRows):
			return err
		}
		if redeemed+int64(amount) > value {
			return refused(api.CodeExceeded, fmt.Sprintf("credit note %s has %s left of %s; %s cannot be taken from it", number, pos.Paise(value-redeemed), pos.Paise(value), amount))
		}
		if _, err := tx.Exec(ctx, "INSERT INTO credit_note_redemptions (number, terminal_id, order_id, amount, reserved_at) VALUES ($1, $2, $3, $4, $5)",
			number, terminal, order, int64(amount), dc.now()); err != nil {
			return err
		}
		if _, err := tx.Exec(ctx, "UPDATE credit_note_balances SET redeemed = redeemed + $2 WHERE number = $1", number, int64(amount)); err != nil {
			return err
		}
		left = value - redeemed - int64(amount)
		return nil
	})
	if err != nil {
		return 0, dc.reserveErr("redeem credit note", err)
	}
	return pos.Paise(left), nil
}

// noteBalance makes sure the store keeps a balance for credit note number, the
// first time a counter redeems it: from the note as its issuing counter
// journaled it (the credit_notes projection, a note to spend that is done),
// with what that counter spent of it before it was redeemed through the store.
// Every later redemption is decided on the balance alone. A note not in the
// projections is refused with a sentence.
func (dc *Decisions) noteBalance(ctx context.Context, number string) error {
	var one int
	err := dc.pool.QueryRow(ctx, "SELECT 1 FROM credit_note_balances WHERE number = $1", number).Scan(&one)
	if err == nil || !errors.Is(err, pgx.ErrNoRows) {
		return err
	}
	if err := dc.projections.Project(ctx); err != nil { // the notes the counters have sent
		return err
	}
	var terminal, to string
	var value, redeemed int64
	err = dc.pool.QueryRow(ctx, "SELECT terminal_id, refund_to, value, redeemed FROM credit_notes WHERE number = $1", number).
		Scan(&terminal, &to, &value, &redeemed)
	switch {
	case errors.Is(err, pgx.ErrNoRows):
		return &api.Error{HTTPStatus: http.StatusNotFound, Code: api.CodeNotFound, Message: fmt.Sprintf("credit note %s is not known to the store: check the number on the note, or wait until the counter that issued it has synced", number)}
	case err != nil:
		return err
	case pos.RefundTo(to) != pos.RefundToNote:
		return refused(api.CodeNotFound, fmt.Sprintf("credit note %s was refunded to %s, not issued to spend", number, to))
	case value <= 0:
		return refused(api.CodeExceeded, fmt.Sprintf("credit note %s has no value to spend", number))
	}
	_, err = dc.pool.Exec(ctx, `INSERT INTO credit_note_balances (number, terminal_id, value, redeemed) VALUES ($1, $2, $3, $4)
		ON CONFLICT DO NOTHING`, number, terminal, value, min(max(redeemed, 0), value))
	return err
}

// ReserveReturn reserves amount of a refund of the invoice document (any
// counter's), for terminal's refund refundID: never more than was paid for it
// less what was refunded (the projections) and what other refunds reserved
// and have not settled. It returns the sale's terminal and order, and what is
// left afterwards.
func (dc *Decisions) ReserveReturn(ctx context.Context, terminal, document, refundID string, amount pos.Paise) (api.Reserved, error) {
	if document == "" || refundID == "" || amount <= 0 {
		return api.Reserved{}, badRequest("the return needs the invoice's document number, the refund's id and an amount above zero")
	}
	if err := dc.projections.Project(ctx); err != nil { // what was paid and refunded, as held
		return api.Reserved{}, err
	}
	var out api.Reserved
	err := pgx.BeginFunc(ctx, dc.pool, func(tx pgx.Tx) error {
		err := tx.QueryRow(ctx, "SELECT terminal_id, order_id FROM documents WHERE number = $1 AND kind = 'receipt'", document).Scan(&out.SoldTerminal, &out.SoldOrder)
		if errors.Is(err, pgx.ErrNoRows) {
			return &api.Error{HTTPStatus: http.StatusNotFound, Code: api.CodeNotFound, Message: fmt.Sprintf("invoice %s is not known to the store: check the number on the receipt, or wait until its counter has synced", document)}
		}
		if err != nil {
			return err
		}
		var captured, refunded int64
		if err := tx.QueryRow(ctx, "SELECT captured, refunded FROM orders WHERE terminal_id = $1 AND order_id = $2 FOR UPDATE",
			out.SoldTerminal, out.SoldOrder).Scan(&captured, &refunded); err != nil {
			return err
		}
		var had int64
		err = tx.QueryRow(ctx, "SELECT amount FROM return_reservations WHERE terminal_id = $1 AND refund_id = $2", terminal, refundID).Scan(&had)
		if err != nil && !errors.Is(err, pgx.ErrNoRows) {
			return err
		}
		var pending int64
		// A refund settled on the sold order is in orders.refunded; one made on
		// a return order at another counter never settles, so it counts here
		// for good.
		if err := tx.QueryRow(ctx, `SELECT coalesce(sum(amount), 0)::bigint FROM return_reservations
			WHERE sold_terminal = $1 AND sold_order = $2 AND NOT settled`, out.SoldTerminal, out.SoldOrder).Scan(&pending); err != nil {
			return err
		}
		left := captured - refunded - pending
		if err == nil { // asked again
			if had != int64(amount) {
				return refused(api.CodeTaken, fmt.Sprintf("refund %s reserved %s of invoice %s already", refundID, pos.Paise(had), document))
			}
			out.Remaining = left
			return nil
		}
		if int64(amount) > left {
			return refused(api.CodeExceeded, fmt.Sprintf("invoice %s was paid %s, of which %s is refunded or being refunded: at most %s can be returned, not %s",
				document, pos.Paise(captured), pos.Paise(refunded+pending), pos.Paise(max(left, 0)), amount))
		}
		if _, err := tx.Exec(ctx, `INSERT INTO return_reservations (sold_terminal, sold_order, terminal_id, refund_id, amount, reserved_at)
			VALUES ($1, $2, $3, $4, $5, $6)`, out.SoldTerminal, out.SoldOrder, terminal, refundID, int64(amount), dc.now()); err != nil {
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

// Release gives back what terminal reserved for order (its IMEIs and credit
// note redemptions: the sale took no money) or for refundID (a refund that
// failed). It returns how many reservations it released.
func (dc *Decisions) Release(ctx context.Context, terminal, order, refundID string) (int, error) {
	if order == "" && refundID == "" {
		return 0, badRequest("the release names no order and no refund")
	}
	n := 0
	err := pgx.BeginFunc(ctx, dc.pool, func(tx pgx.Tx) error {
		if order != "" {
			tag, err := tx.Exec(ctx, "DELETE FROM imei_reservations WHERE terminal_id = $1 AND order_id = $2", terminal, order)
			if err != nil {
				return err
			}
			n += int(tag.RowsAffected())
			rs, err := tx.Query(ctx, "DELETE FROM credit_note_redemptions WHERE terminal_id = $1 AND order_id = $2 RETURNING number, amount", terminal, order)
			if err != nil {
				return err
			}
			type back struct {
				number string
				amount int64
			}
			var bs []back
			for rs.Next() {
				var b back
				if err := rs.Scan(&b.number, &b.amount); err != nil {
					rs.Close()
					return err
				}
				bs = append(bs, b)
			}
			rs.Close()
			if err := rs.Err(); err != nil {
				return err
			}
			for _, b := range bs {
				if _, err := tx.Exec(ctx, "UPDATE credit_note_balances SET redeemed = redeemed - $2 WHERE number = $1", b.number, b.amount); err != nil {
					return err
				}
				n++
			}
		}
		if refundID != "" {
			tag, err := tx.Exec(ctx, "DELETE FROM return_reservations WHERE terminal_id = $1 AND refund_id = $2 AND NOT settled", terminal, refundID)
			if err != nil {
				return err
			}
			n += int(tag.RowsAffected())
		}
		return nil
	})
	if err != nil {
		return 0, dc.reserveErr("release", err)
	}
	return n, nil
}

// reserveErr passes an *api.Error on and wraps the rest.
func (dc *Decisions) reserveErr(op string, err error) error {
	if err == nil {
		return nil
	}
	var ae *api.Error
	if errors.As(err, &ae) {
		return ae
	}
	return dc.wrap(op, err)
}

// Invoice returns a paid sale of any counter of the store, named by its
// document number as printed (T1/2627/000123) or its merchant order id, as the
// projections hold it: what a return at another counter needs to take goods
// back (the lines, the tender, the date, the buyer) and how much of it may
// still be returned store-wide. A sale the store does not know, or that is not
// paid, is refused with a sentence.
func (dc *Decisions) Invoice(ctx context.Context, ref string) (api.Invoice, error) {
	ref = strings.TrimSpace(ref)
	if ref == "" {
		return api.Invoice{}, badRequest("name the invoice by its number as printed (T1/2627/000123) or its order id")
	}
	if err := dc.projections.Project(ctx); err != nil { // the sales the counters have sent
		return api.Invoice{}, err
	}
	var out api.Invoice
	err := dc.pool.QueryRow(ctx, "SELECT number, terminal_id, order_id FROM documents WHERE number = $1 AND kind = 'receipt'", ref).
		Scan(&out.Number, &out.Terminal, &out.OrderID)
	if errors.Is(err, pgx.ErrNoRows) { // an order id: its invoice
		err = dc.pool.QueryRow(ctx, "SELECT number, terminal_id, order_id FROM documents WHERE order_id = $1 AND kind = 'receipt' ORDER BY terminal_id LIMIT 1", ref).
			Scan(&out.Number, &out.Terminal, &out.OrderID)
	}
	if errors.Is(err, pgx.ErrNoRows) {
		return api.Invoice{}, &api.Error{HTTPStatus: http.StatusNotFound, Code: api.CodeNotFound,
			Message: fmt.Sprintf("invoice %s is not known to the store: check the number on the receipt, or wait until its counter has synced", ref)}
	}
	if err != nil {
		return api.Invoice{}, dc.wrap("invoice", err)
	}
	var state string
	var captured, refunded, pending int64
	err = dc.pool.QueryRow(ctx, `SELECT o.state, o.captured, o.refunded, o.snapshot,
			(SELECT coalesce(sum(r.amount), 0)::bigint FROM return_reservations r
			 WHERE r.sold_terminal = o.terminal_id AND r.sold_order = o.order_id AND NOT r.settled)
		FROM orders o WHERE o.terminal_id = $1 AND o.order_id = $2`, out.Terminal, out.OrderID).
		Scan(&state, &captured, &refunded, &out.Order, &pending)
	if err != nil {
		return api.Invoice{}, dc.wrap("invoice", err)
	}
	if !pos.OrderState(state).Paid() {
		return api.Invoice{}, refused(api.CodeNotFound, fmt.Sprintf("invoice %s is %s, not paid: nothing of it can be returned", out.Number, state))
	}
	out.Returnable = max(captured-refunded-pending, 0)
	return out, nil
}
