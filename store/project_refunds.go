package store

import (
	"github.com/jackc/pgx/v5/pgtype"
)

// The refunds' rows, set by set (issue 25). A refund done writes its credit
// note, verifies a claim its counter made of the note, and settles the
// return's reservation; a refund's intent settles it too. These were a
// statement each, three or four a refund: most of the cost of a refund to
// PostgreSQL was the statement's, not the row's. They are gathered as the
// events are applied and written with the part's other rows (write), one
// statement a table, leaving what the statements one by one left:
//
//   - credit_notes: a note written twice in a part (its refund, then a
//     redemption of it) is one row, its first columns and its last redeemed,
//     as the upsert's successive updates of redeemed would leave it;
//   - credit_note_balances: a claim is verified by the first of its note's
//     rows (the later ones find it no longer claimed and change nothing), with
//     its alarm in the order of the events;
//   - return_reservations: settling is idempotent (NOT settled), so the
//     part's settlements go in one UPDATE.
//
// No projection reads these tables back within a run, so writing them at the
// part's end is seen by nothing before.

// noteRow is a row of credit_notes.
type noteRow struct {
	number, order, refundID, series, to string
	day                                 pgtype.Date
	value, docNo, taxable, tax          int64
	redeemed                            int64
}

// noteSet holds a part's credit notes, one row a number.
type noteSet struct {
	rows []noteRow
	at   map[string]int // number: its index in rows
}

// add gathers r, merged with the part's row of the same number.
func (s *noteSet) add(r noteRow) {
	if i, ok := s.at[r.number]; ok {
		s.rows[i].redeemed = r.redeemed
		return
	}
	if s.at == nil {
		s.at = map[string]int{}
	}
	s.at[r.number] = len(s.rows)
	s.rows = append(s.rows, r)
}

// claimSet holds the claims to verify of a part, one a note number (the first).
type claimSet struct {
	number    []string
	value     []int64
	spendable []bool
	seq       []int64
	seen      map[string]bool
}

// settleSet holds the reservations a part settles.
type settleSet struct {
	refundID, soldTerminal, soldOrder []string
}

// flushRefunds queues the refunds' rows gathered: credit notes, the claims
// verified and the reservations settled.
func (p *projector) flushRefunds() error {
	s := &p.sets
	if n := &s.notes; len(n.rows) > 0 {
		var (
			number, order, refundID, series, to []string
			day                                 []pgtype.Date
			value, docNo, taxable, tax, redeem  []int64
		)
		for _, r := range n.rows {
			number, order, refundID, series, to = append(number, r.number), append(order, r.order), append(refundID, r.refundID), append(series, r.series), append(to, r.to)
			day, value, docNo = append(day, r.day), append(value, r.value), append(docNo, r.docNo)
			taxable, tax, redeem = append(taxable, r.taxable), append(tax, r.tax), append(redeem, r.redeemed)
		}
		if _, err := p.pipe.queue(p.ctx, `INSERT INTO credit_notes (number, terminal_id, order_id, day, value, refund_id, series, doc_no, refund_to, taxable, tax, redeemed)
			SELECT n, $1, o, d, v, r, s, dn, rt, tb, t, rd
			FROM unnest($2::text[], $3::text[], $4::date[], $5::int8[], $6::text[], $7::text[], $8::int8[], $9::text[], $10::int8[], $11::int8[], $12::int8[])
				AS u(n, o, d, v, r, s, dn, rt, tb, t, rd)
			ON CONFLICT (number) DO UPDATE SET redeemed = EXCLUDED.redeemed`,
			p.terminal, number, order, day, value, refundID, series, docNo, to, taxable, tax, redeem); err != nil {
			return err
		}
		*n = noteSet{}
	}
	if c := &s.claims; len(c.number) > 0 {
		if _, err := p.pipe.queue(p.ctx, `WITH v AS (
				SELECT * FROM unnest($1::text[], $2::int8[], $3::bool[], $4::int8[]) WITH ORDINALITY AS v(number, note, spendable, seq, k)),
			c AS (
				SELECT b.number, b.value, v.note, v.spendable, v.seq, v.k FROM credit_note_balances b JOIN v ON b.number = v.number
				WHERE b.terminal_id = $5 AND b.state = 'claimed' FOR UPDATE OF b),
			u AS (
				UPDATE credit_note_balances b SET state = CASE WHEN c.spendable THEN 'verified' ELSE 'void' END, value = LEAST(b.value, c.note)
				FROM c WHERE b.number = c.number RETURNING b.number)
			INSERT INTO alarms (terminal_id, kind, seq, detail)
			SELECT $5, $6, c.seq, CASE WHEN c.spendable
				THEN format('counter %s claimed credit note %s with ₹%s left, but its event issued it for ₹%s: cut to that', $5, c.number,
					to_char(c.value / 100.0, 'FM999,999,999,990.00'), to_char(c.note / 100.0, 'FM999,999,999,990.00'))
				ELSE format('counter %s claimed credit note %s to spend, but its event refunded it as money: the claim is void', $5, c.number) END
			FROM c WHERE NOT c.spendable OR c.value > c.note ORDER BY c.k`,
			c.number, c.value, c.spendable, c.seq, p.terminal, AlarmClaim); err != nil {
			return err
		}
		*c = claimSet{}
	}
	if st := &s.settles; len(st.refundID) > 0 {
		if _, err := p.pipe.queue(p.ctx, `UPDATE return_reservations r SET settled = true
			FROM unnest($2::text[], $3::text[], $4::text[]) AS u(refund_id, sold_terminal, sold_order)
			WHERE r.terminal_id = $1 AND r.refund_id = u.refund_id AND r.sold_terminal = u.sold_terminal AND r.sold_order = u.sold_order AND NOT r.settled`,
			p.terminal, st.refundID, st.soldTerminal, st.soldOrder); err != nil {
			return err
		}
		*st = settleSet{}
	}
	return nil
}
