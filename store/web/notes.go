package web

import (
	"context"
	"time"

	"galla/pos"
	"galla/store"
)

// ReturnRow is a day's credit notes of one counter that went back one way
// (card, cash or a note to spend): how many, their value and the GST they
// reverse.
type ReturnRow struct {
	Terminal string
	To       string
	Notes    int
	Value    pos.Paise
	Taxable  pos.Paise
	Tax      pos.Paise
}

// ShiftRow is one shift of a counter opened on the day, with its cash.
type ShiftRow struct {
	Terminal string
	ID       string
	Staff    string
	Opened   *time.Time
	Closed   *time.Time
	Float    pos.Paise
	In       pos.Paise
	Out      pos.Paise
	Drops    pos.Paise
	Counted  pos.Paise // at close; zero while open
	Expected pos.Paise
	Variance pos.Paise // Counted − Expected: short is below zero
}

// returnsOfDay reads the credit notes of day by counter and where the money went.
func returnsOfDay(ctx context.Context, db *store.DB, day time.Time) ([]ReturnRow, error) {
	rs, err := db.Pool().Query(ctx, `SELECT terminal_id, refund_to, count(*), sum(value), sum(taxable), sum(tax)
		FROM credit_notes WHERE day = $1 GROUP BY terminal_id, refund_to ORDER BY terminal_id, refund_to`, day)
	if err != nil {
		return nil, err
	}
	defer rs.Close()
	var out []ReturnRow
	for rs.Next() {
		var r ReturnRow
		var value, taxable, tax int64
		if err := rs.Scan(&r.Terminal, &r.To, &r.Notes, &value, &taxable, &tax); err != nil {
			return nil, err
		}
		r.Value, r.Taxable, r.Tax = pos.Paise(value), pos.Paise(taxable), pos.Paise(tax)
		out = append(out, r)
	}
	return out, rs.Err()
}

// shiftsOfDay reads the shifts opened on day.
func shiftsOfDay(ctx context.Context, db *store.DB, day time.Time) ([]ShiftRow, error) {
	rs, err := db.Pool().Query(ctx, `SELECT terminal_id, shift_id, staff, opened_at, closed_at, float, cash_in, cash_out, drops, counted, expected, variance
		FROM shifts WHERE day = $1 ORDER BY terminal_id, opened_at, shift_id`, day)
	if err != nil {
		return nil, err
	}
	defer rs.Close()
	var out []ShiftRow
	for rs.Next() {
		var s ShiftRow
		var float, in, outc, drops int64
		var counted, expected, variance *int64
		if err := rs.Scan(&s.Terminal, &s.ID, &s.Staff, &s.Opened, &s.Closed, &float, &in, &outc, &drops, &counted, &expected, &variance); err != nil {
			return nil, err
		}
		s.Float, s.In, s.Out, s.Drops = pos.Paise(float), pos.Paise(in), pos.Paise(outc), pos.Paise(drops)
		if counted != nil && expected != nil && variance != nil {
			s.Counted, s.Expected, s.Variance = pos.Paise(*counted), pos.Paise(*expected), pos.Paise(*variance)
		}
		out = append(out, s)
	}
	return out, rs.Err()
}
