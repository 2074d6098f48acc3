package store

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"

	"galla/pos"
	"galla/store/api"
)

// The store-wide decisions settled by the events (issue 22). A return's
// reservation is settled when the refund it reserved reaches the store in the
// events of the counter that reserved it: on the invoice itself, or on a
// return order citing it (pos.Origin); the events count the refund from then
// on. A credit note a counter claimed before its event arrived
// (Decisions.IssueCreditNote) is verified when the event arrives: a claim of
// more than the note was issued for is cut to the note's value, a claim of a
// refund that went back as money is void, each with an alarm; and a claim
// whose counter sent later events without the note in them is void, with an
// alarm.

// claimSkew is how far a counter's clock may be from the store's when its
// events' times are set against the store's time of its claim: a claim's note
// was issued before the claim, so an event journaled past claimed_at plus
// claimSkew comes after it. A counter's signed requests are refused beyond
// api.MaxSkew; twice that leaves room for a clock set right in between.
const claimSkew = 2 * api.MaxSkew

// settleReturn settles the reservation of o's refund uid, made by the
// projector's terminal on the invoice o takes goods back on (o's own, or its
// Origin's): gathered, and written with the part's rows (flushRefunds).
func (p *projector) settleReturn(o *pos.Order, uid string) error {
	soldTerminal, soldOrder := p.terminal, o.ID
	if o.Origin != nil {
		soldTerminal, soldOrder = o.Origin.Terminal, o.Origin.OrderID
	}
	s := &p.sets.settles
	s.refundID, s.soldTerminal, s.soldOrder = append(s.refundID, uid), append(s.soldTerminal, soldTerminal), append(s.soldOrder, soldOrder)
	return nil
}

// verifyClaim verifies, against the projector's terminal's credit note number
// of value issued at event seq, the claim the terminal made of it: a note to
// spend (spendable) verifies it, cut to value when it claimed more (with an
// alarm); a refund that went back as money voids it (with an alarm). It is
// gathered and verified with the part's rows (flushRefunds); the first of a
// number's verifications decides, as the later ones find the claim no longer
// claimed.
func (p *projector) verifyClaim(seq uint64, number string, value pos.Paise, spendable bool) error {
	c := &p.sets.claims
	if c.seen[number] {
		return nil
	}
	if c.seen == nil {
		c.seen = map[string]bool{}
	}
	c.seen[number] = true
	c.number, c.value, c.spendable, c.seq = append(c.number, number), append(c.value, int64(value)), append(c.spendable, spendable), append(c.seq, int64(seq))
	return nil
}

// voidUnbacked voids, with an alarm each, terminal's credit-note claims that
// its events up to seq (projected) should have verified and did not: the note
// of a claim is journaled before the claim is made, so once an event journaled
// after the claim (claimSkew allowed for the clocks) is held, a claim still
// unverified names a note its counter never issued.
func voidUnbacked(ctx context.Context, tx pgx.Tx, terminal string, seq int64) error {
	if seq <= 0 {
		return nil
	}
	var at *string
	if err := tx.QueryRow(ctx, "SELECT body->>'time' FROM events WHERE terminal_id = $1 AND seq = $2", terminal, seq).Scan(&at); err != nil || at == nil {
		return ignoreNoRows(err)
	}
	t, err := time.Parse(time.RFC3339Nano, *at)
	if err != nil {
		return nil // a time the store cannot read: ClaimHold voids the claim
	}
	rs, err := tx.Query(ctx, `UPDATE credit_note_balances SET state = 'void'
		WHERE terminal_id = $1 AND state = 'claimed' AND claimed_at < $2 RETURNING number, value`, terminal, t.Add(-claimSkew))
	if err != nil {
		return err
	}
	type void struct {
		number string
		value  int64
	}
	vs, err := pgx.CollectRows(rs, func(r pgx.CollectableRow) (void, error) {
		var v void
		return v, r.Scan(&v.number, &v.value)
	})
	if err != nil {
		return err
	}
	for _, v := range vs {
		if _, err := tx.Exec(ctx, "INSERT INTO alarms (terminal_id, kind, seq, detail) VALUES ($1, $2, $3, $4)", terminal, AlarmClaim, seq,
			fmt.Sprintf("counter %s claimed credit note %s with %s left, but the events it sent since hold no such note: the claim is void", terminal, v.number, pos.Paise(v.value))); err != nil {
			return err
		}
	}
	return nil
}

func ignoreNoRows(err error) error {
	if errors.Is(err, pgx.ErrNoRows) {
		return nil
	}
	return err
}
