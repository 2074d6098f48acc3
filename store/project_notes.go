package store

import (
	"encoding/json"

	"galla/pos"
)

// Credit notes and shifts (issue 15). Every refund done is a credit note of
// the terminal's series (C2627/000001), whatever the money went back as; a
// note to spend also keeps what of it is spent. A shift keeps its float, the
// cash paid in, paid out and dropped, and its count at close.

// creditNote writes the credit note of o's refund uid (after refund.done, or a
// note's redemption changed what is spent of it; seq is the event's), and
// verifies against it a claim its counter made of the note (verifyClaim):
// both gathered, and written with the part's other rows (flushRefunds).
func (p *projector) creditNote(seq uint64, o *pos.Order, uid string) error {
	for _, r := range o.Refunds {
		if r.UniqueTxnID != uid || r.Status != pos.RefundDone {
			continue
		}
		number := r.Number(p.terminal)
		if number == "" {
			return nil
		}
		var taxable, tax pos.Paise
		for _, it := range r.Items {
			taxable += it.Taxable
			tax += it.Tax
		}
		to := string(pos.RefundDestination(o, r.To))
		p.sets.notes.add(noteRow{number: number, order: o.ID, day: dateOf(r.Day), value: int64(r.Amount), refundID: r.UniqueTxnID,
			series: r.Series, docNo: int64(r.DocNo), to: to, taxable: int64(taxable), tax: int64(tax), redeemed: int64(r.Redeemed)})
		return p.verifyClaim(seq, number, r.Amount, pos.RefundTo(to) == pos.RefundToNote)
	}
	return nil
}

// projectShift applies shift.opened, shift.cash and shift.closed.
func projectShift(p *projector, _ uint64, ev *pos.Event) error {
	var rec pos.ShiftRecord
	if err := json.Unmarshal(ev.Data, &rec); err != nil || rec.ID == "" {
		return nil
	}
	switch ev.Kind {
	case pos.EvShiftOpened:
		_, err := p.tx.Exec(p.ctx, `INSERT INTO shifts (terminal_id, shift_id, staff, opened_at, day, float)
			VALUES ($1, $2, $3, $4, $5, $6) ON CONFLICT DO NOTHING`,
			p.terminal, rec.ID, ev.Staff, ev.Time, dayArg(ev.Day), int64(rec.Float))
		return err
	case pos.EvShiftCash:
		if rec.Move == nil {
			return nil
		}
		col := map[pos.CashMoveKind]string{pos.CashIn: "cash_in", pos.CashOut: "cash_out", pos.CashDrop: "drops"}[rec.Move.Kind]
		if col == "" {
			return nil
		}
		_, err := p.tx.Exec(p.ctx, "UPDATE shifts SET "+col+" = "+col+" + $3 WHERE terminal_id = $1 AND shift_id = $2 AND closed_at IS NULL",
			p.terminal, rec.ID, int64(rec.Move.Amount))
		return err
	case pos.EvShiftClosed:
		_, err := p.tx.Exec(p.ctx, `UPDATE shifts SET closed_at = $3, counted = $4, expected = $5, variance = $6
			WHERE terminal_id = $1 AND shift_id = $2 AND closed_at IS NULL`,
			p.terminal, rec.ID, ev.Time, int64(rec.Counted), int64(rec.Expected), int64(rec.Variance))
		return err
	}
	return nil
}
