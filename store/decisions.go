package store

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"time"

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
// one may have. A decision about another counter's money rests on the events
// that counter sent through the signed, hash-chained ingest, never on what a
// request claims: a request speaks for its own counter only (docs/security.md,
// "Decisions from the chain"). The reservation tables are never truncated by
// Projections.Rebuild: they are decisions, not derived from events; the
// projections only settle them and verify claims against the events
// (project_claims.go).
type Decisions struct{ *dbCore }

func refused(code, msg string) *api.Error {
	return &api.Error{HTTPStatus: http.StatusConflict, Code: code, Message: msg}
}

func badRequest(msg string) *api.Error {
	return &api.Error{HTTPStatus: http.StatusBadRequest, Code: api.CodeMalformed, Message: msg}
}

// ReserveHold is how long a reservation of an IMEI or of a return holds with
// no verified event behind it: an IMEI's until its order's first event reaches
// the store (then the order's state decides), a return's until its refund's
// event does (then the events count it). Past it the reservation is free
// again: a claim that no journal backed blocks other counters no longer.
const ReserveHold = 2 * time.Hour

// ReserveIMEIs reserves imeis for terminal's order: each IMEI is sold at most
// once in the store. An IMEI reserved for another order is refused with a
// sentence naming the counter while that order holds it: paid (the events say
// the unit left the shop), in progress (the events say a sale is under way),
// or, for an order the store holds no event of yet, for ReserveHold after it
// was reserved. It is free again once that order was refunded in full, its
// invoice cancelled or its sale failed or abandoned, or once its reservation
// expired with no event behind it. Reserving again for the same order is
// harmless, and holds the reservation anew. All or none are reserved.
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
			var at time.Time
			if err := tx.QueryRow(ctx, "SELECT terminal_id, order_id, reserved_at FROM imei_reservations WHERE imei = $1 FOR UPDATE", imei).Scan(&ht, &ho, &at); err != nil {
				return err
			}
			if ht != terminal || ho != order {
				// Held by another order: free only when that order's events say
				// the unit came back or never left (refunded in full, cancelled,
				// failed, abandoned), or when no event of it came in ReserveHold.
				var state string
				var snap []byte
				err := tx.QueryRow(ctx, "SELECT state, snapshot FROM orders WHERE terminal_id = $1 AND order_id = $2", ht, ho).Scan(&state, &snap)
				if err != nil && !errors.Is(err, pgx.ErrNoRows) {
					return err
				}
				held, err := dc.holdsIMEI(state, snap, imei)
				if err != nil {
					return err
				}
				switch pos.OrderState(state) {
				case pos.StateRefunded, pos.StatusCancelled, pos.StateFailed, pos.StateAbandoned:
				case pos.StatePartlyRefunded:
					if held {
						return refused(api.CodeTaken, fmt.Sprintf("IMEI %s is sold already at counter %s (order %s): check the unit; a manager may look it up on the store's pages", imei, ht, ho))
					}
				case "":
					if dc.now().Before(at.Add(ReserveHold)) {
						return refused(api.CodeTaken, fmt.Sprintf("IMEI %s is sold already at counter %s (order %s): check the unit; a manager may look it up on the store's pages", imei, ht, ho))
					}
				default:
					return refused(api.CodeTaken, fmt.Sprintf("IMEI %s is sold already at counter %s (order %s): check the unit; a manager may look it up on the store's pages", imei, ht, ho))
				}
			}
			if _, err := tx.Exec(ctx, "UPDATE imei_reservations SET terminal_id = $2, order_id = $3, reserved_at = $4 WHERE imei = $1", imei, terminal, order, dc.now()); err != nil {
				return err
			}
			// Sold by an order the store knows from events only (an offline
			// sale a manager let through): refused as well.
			rs, err := tx.Query(ctx, `SELECT u.terminal_id, u.order_id, o.state, o.snapshot FROM imei_units u JOIN orders o USING (terminal_id, order_id)
				WHERE u.imei = $1 AND NOT (u.terminal_id = $2 AND u.order_id = $3) AND o.state = ANY($4)`,
				imei, terminal, order, []string{string(pos.StatePaid), string(pos.StatePartlyRefunded)})
			if err != nil {
				return err
			}
			type holder struct {
				t, o, state string
				snap        []byte
			}
			hs, err := pgx.CollectRows(rs, func(r pgx.CollectableRow) (holder, error) {
				var h holder
				return h, r.Scan(&h.t, &h.o, &h.state, &h.snap)
			})
			if err != nil {
				return err
			}
			for _, h := range hs {
				held, err := dc.holdsIMEI(h.state, h.snap, imei)
				if err != nil {
					return err
				}
				if held {
					return refused(api.CodeTaken, fmt.Sprintf("IMEI %s is sold already at counter %s (order %s): check the unit; a manager may look it up on the store's pages", imei, h.t, h.o))
				}
			}
		}
		return nil
	})
	return dc.reserveErr("reserve IMEI", err)
}

// ClaimHold is how long a credit note claimed by its issuing counter
// (IssueCreditNote) may be spent by that counter before the store holds the
// note's event: past it the claim is void, with an alarm.
const ClaimHold = 24 * time.Hour

// AlarmClaim is a counter's claim the store refused or its events contradict:
// a credit note of another counter's series, a note claimed with more than its
// event issued, or one its events never issued.
const AlarmClaim = "claim"

// The states of a credit note's balance (credit_note_balances.state).
const (
	noteClaimed  = "claimed"  // recorded by its issuing counter; only that counter may spend it
	noteVerified = "verified" // its event is held: any counter may spend it
	noteVoid     = "void"     // its counter's events contradict the claim, or never backed it
)

// noteIssuer returns the counter whose credit-note series number belongs to
// (T1 of T1/C2627/00012); ok is false for anything that is not a credit note
// number of a counter.
func noteIssuer(number string) (terminal string, ok bool) {
	series, _, ok := pos.ParseDocNumber(number)
	terminal, rest, cut := strings.Cut(number, "/")
	if !ok || !cut || terminal == "" || !strings.Contains(rest, "/") || !strings.HasPrefix(series, "C") {
		return "", false
	}
	return terminal, true
}

// IssueCreditNote records that terminal issued credit note number with value
// paise left on it, before its event reached the store. The number must be of
// terminal's own series: another counter's is refused (api.CodeForeign) with
// an alarm, and changes nothing. The record is a claim bound to terminal: only
// terminal may redeem against it until the note's event arrives, which
// verifies it (Projections; an alarm where the event says less, or says no
// note). A note whose event is held already is recorded from the event.
// Recording it again with the same value is harmless.
func (dc *Decisions) IssueCreditNote(ctx context.Context, terminal, number string, value pos.Paise) error {
	number = strings.TrimSpace(number)
	if number == "" || value <= 0 {
		return badRequest("a credit note needs a number and a value above zero")
	}
	issuer, ok := noteIssuer(number)
	if !ok {
		return badRequest(fmt.Sprintf("%q is not a credit note number of a counter (T1/C2627/00012)", number))
	}
	if issuer != terminal {
		dc.alarm(ctx, terminal, AlarmClaim, 0, fmt.Sprintf("counter %s claimed credit note %s of %s, a number of counter %s's series: refused", terminal, number, value, issuer))
		return &api.Error{HTTPStatus: http.StatusForbidden, Code: api.CodeForeign,
			Message: fmt.Sprintf("credit note %s is a number of counter %s: a counter records only its own credit notes", number, issuer)}
	}
	if err := dc.projections.Project(ctx); err != nil { // the note's event, if it is held
		return err
	}
	err := dc.noteBalance(ctx, number)
	var ae *api.Error
	switch {
	case err == nil, errors.As(err, &ae) && ae.HTTPStatus == http.StatusNotFound: // held, or a claim
	case ae != nil:
		dc.alarm(ctx, terminal, AlarmClaim, 0, fmt.Sprintf("counter %s claimed credit note %s with %s left, which its own events say cannot be spent (%s): refused", terminal, number, value, ae.Message))
		return ae
	default:
		return dc.reserveErr("issue credit note", err)
	}
	err = pgx.BeginFunc(ctx, dc.pool, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, `INSERT INTO credit_note_balances (number, terminal_id, value, state, claimed_at) VALUES ($1, $2, $3, $4, $5)
			ON CONFLICT DO NOTHING`, number, terminal, int64(value), noteClaimed, dc.now()); err != nil {
			return err
		}
		var v int64
		var state string
		if err := tx.QueryRow(ctx, "SELECT value, state FROM credit_note_balances WHERE number = $1 FOR UPDATE", number).Scan(&v, &state); err != nil {
			return err
		}
		switch {
		case state == noteVoid:
			return refused(api.CodeTaken, fmt.Sprintf("credit note %s is void at the store: this counter's events do not back it; a manager looks at the store's alarms", number))
		case v != int64(value):
			return refused(api.CodeTaken, fmt.Sprintf("credit note %s is recorded already with value %s", number, pos.Paise(v)))
		}
		return nil
	})
	return dc.reserveErr("issue credit note", err)
}

// RedeemCreditNote reserves amount of credit note number for terminal's
// order: never more than is left of it. It returns what is left afterwards.
// Asking again for the same order and amount is harmless. A redemption holds
// while its sale's events say it took money or is under way, and, for a sale
// of which no event has come, for ClaimHold (freeRedemptions): a note is
// money, so a counter that took it and lost its network keeps it for a day. Another counter's
// note is redeemed only when the store holds the issuing counter's event of it
// (verified), never on that counter's claim alone, nor while that counter is
// blocked; a counter's own note also on its claim, within ClaimHold.
func (dc *Decisions) RedeemCreditNote(ctx context.Context, terminal, number, order string, amount pos.Paise) (pos.Paise, error) {
	number = strings.TrimSpace(number)
	if number == "" || order == "" || amount <= 0 {
		return 0, badRequest("the redemption needs a credit note number, an order and an amount above zero")
	}
	if err := dc.projections.Project(ctx); err != nil { // the notes' events held, and the claims they verify
		return 0, err
	}
	if err := dc.noteBalance(ctx, number); err != nil {
		return 0, dc.reserveErr("redeem credit note", err)
	}
	var left int64
	var expired string
	err := pgx.BeginFunc(ctx, dc.pool, func(tx pgx.Tx) error {
		var issuer, state string
		var value, redeemed int64
		var claimedAt *time.Time
		err := tx.QueryRow(ctx, "SELECT terminal_id, value, redeemed, state, claimed_at FROM credit_note_balances WHERE number = $1 FOR UPDATE", number).
			Scan(&issuer, &value, &redeemed, &state, &claimedAt)
		if err != nil {
			return err
		}
		switch {
		case state == noteVoid:
			return refused(api.CodeExceeded, fmt.Sprintf("credit note %s cannot be spent: the events of counter %s do not back it; a manager looks at the store's alarms", number, issuer))
		case state == noteClaimed && issuer != terminal:
			return &api.Error{HTTPStatus: http.StatusNotFound, Code: api.CodeNotFound,
				Message: fmt.Sprintf("credit note %s is not verified at the store yet: counter %s has not sent the event that issued it; spend it at counter %s, or wait until it has synced", number, issuer, issuer)}
		case state == noteClaimed && claimedAt != nil && dc.now().After(claimedAt.Add(ClaimHold)):
			if _, err := tx.Exec(ctx, "UPDATE credit_note_balances SET state = $2 WHERE number = $1", number, noteVoid); err != nil {
				return err
			}
			expired = fmt.Sprintf("counter %s claimed credit note %s on %s and has sent no event of it since: the claim is void", issuer, number, claimedAt.Format(time.RFC3339))
			return nil
		}
		if issuer != terminal {
			if err := issuerActive(ctx, tx, issuer, "credit note "+number); err != nil {
				return err
			}
		}
		freed, err := freeRedemptions(ctx, tx, number, dc.now())
		if err != nil {
			return err
		}
		redeemed -= freed
		var had int64
		err = tx.QueryRow(ctx, "SELECT amount FROM credit_note_redemptions WHERE number = $1 AND terminal_id = $2 AND order_id = $3", number, terminal, order).Scan(&had)
		switch {
		case err == nil && had == int64(amount):
			left = max(value-redeemed, 0)
			return nil
		case err == nil:
			return refused(api.CodeTaken, fmt.Sprintf("%s of credit note %s is reserved for this sale already: release it before asking for %s", pos.Paise(had), number, amount))
		case !errors.Is(err, pgx.ErrNoRows):
			return err
		}
		if redeemed+int64(amount) > value {
			return refused(api.CodeExceeded, fmt.Sprintf("credit note %s has %s left of %s; %s cannot be taken from it", number, pos.Paise(max(value-redeemed, 0)), pos.Paise(value), amount))
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
	if err == nil && expired != "" {
		dc.alarm(ctx, terminal, AlarmClaim, 0, expired)
		err = refused(api.CodeExceeded, fmt.Sprintf("credit note %s cannot be spent: counter %s claimed it more than %s ago and has sent no event of it; a manager looks at the store's alarms", number, terminal, ClaimHold))
	}
	if err != nil {
		return 0, dc.reserveErr("redeem credit note", err)
	}
	return pos.Paise(left), nil
}

// freeRedemptions gives back, under the lock of credit note number's balance,
// the redemptions of it whose sale took no money by its events (failed,
// abandoned), or of whose sale no event came within ClaimHold: a redemption
// asked and never followed by a sale blocks the note no longer. It returns what
// it gave back.
func freeRedemptions(ctx context.Context, tx pgx.Tx, number string, now time.Time) (int64, error) {
	var freed int64
	err := tx.QueryRow(ctx, `WITH f AS (
			DELETE FROM credit_note_redemptions r WHERE r.number = $1 AND (
				EXISTS (SELECT 1 FROM orders o WHERE o.terminal_id = r.terminal_id AND o.order_id = r.order_id AND o.state = ANY($2))
				OR (r.reserved_at < $3 AND NOT EXISTS (SELECT 1 FROM orders o WHERE o.terminal_id = r.terminal_id AND o.order_id = r.order_id)))
			RETURNING amount),
		u AS (UPDATE credit_note_balances SET redeemed = redeemed - (SELECT coalesce(sum(amount), 0) FROM f) WHERE number = $1)
		SELECT coalesce(sum(amount), 0)::bigint FROM f`,
		number, []string{string(pos.StateFailed), string(pos.StateAbandoned)}, now.Add(-ClaimHold)).Scan(&freed)
	return freed, err
}

// issuerActive refuses, with a sentence, a decision about what (another
// counter's note or invoice) while its counter is blocked: its chain forked,
// so the events the decision rests on are in doubt until a manager looks.
func issuerActive(ctx context.Context, tx pgx.Tx, terminal, what string) error {
	var state string
	err := tx.QueryRow(ctx, "SELECT state FROM terminals WHERE id = $1", terminal).Scan(&state)
	if errors.Is(err, pgx.ErrNoRows) || (err == nil && state != "active") {
		return refused(api.CodeTaken, fmt.Sprintf("%s is of counter %s, which the store has blocked or does not know: a manager looks at its alarms first", what, terminal))
	}
	return err
}

// noteBalance makes sure the store keeps a balance for credit note number, the
// first time a counter redeems it: from the note as its issuing counter
// journaled it (the credit_notes projection of that counter's events, a note to
// spend that is done), with what that counter spent of it before it was
// redeemed through the store. Every later redemption is decided on the balance
// alone. A note the events do not hold (and no claim) is refused with a
// sentence (api.CodeNotFound, HTTP 404); one they hold that is not to spend is
// refused too (HTTP 409).
func (dc *Decisions) noteBalance(ctx context.Context, number string) error {
	var one int
	err := dc.pool.QueryRow(ctx, "SELECT 1 FROM credit_note_balances WHERE number = $1", number).Scan(&one)
	if err == nil || !errors.Is(err, pgx.ErrNoRows) {
		return err
	}
	issuer, _ := noteIssuer(number)
	var to string
	var value, redeemed int64
	err = dc.pool.QueryRow(ctx, "SELECT refund_to, value, redeemed FROM credit_notes WHERE number = $1 AND terminal_id = $2", number, issuer).
		Scan(&to, &value, &redeemed)
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
	_, err = dc.pool.Exec(ctx, `INSERT INTO credit_note_balances (number, terminal_id, value, redeemed, state) VALUES ($1, $2, $3, $4, $5)
		ON CONFLICT DO NOTHING`, number, issuer, value, min(max(redeemed, 0), value), noteVerified)
	return err
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

// holdsIMEI reports whether the paid sale in state whose projected snapshot
// is snap still holds the unit imei. A sale PARTLY_REFUNDED holds it by its
// counter's own rule (pos.StockEffectOf): a phone returned while the sale's
// other goods were kept is held no more. Any other paid order, a split sale's
// tender or a return order holds every IMEI it carries, as before.
func (dc *Decisions) holdsIMEI(state string, snap []byte, imei string) (bool, error) {
	if pos.OrderState(state) != pos.StatePartlyRefunded || len(snap) == 0 {
		return true, nil
	}
	var o pos.Order
	if err := dc.vault().unmarshal(snap, &o); err != nil {
		return false, err
	}
	if o.Sale != "" || o.Origin != nil {
		return true, nil
	}
	return slices.Contains(pos.StockEffectOf(&o).IMEIs, imei), nil
}
