package store

import (
	"context"
	"encoding/json"
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

// CounterDay is one counter's day as the store's projections hold it, summed
// by the counter's own report (pos.BuildReport) over the counter's orders as
// projected: the same rules, read from pos, so the store says what the counter
// says. Sales are the sales complete that day (a split sale's tenders once its
// document is issued), refunds the refunds done that day by where their money
// went, unknown the orders of that day whose outcome is not final.
type CounterDay struct {
	Terminal     string
	Sales        []pos.TenderTotal
	GST          []pos.RateTotal
	GrossSales   pos.Paise
	Refunds      []pos.TenderTotal
	Refunded     pos.Paise
	NetSales     pos.Paise
	CashExpected pos.Paise
	Tax          pos.Paise
	Failed       pos.Count
	Unknown      pos.Count
	Abandoned    pos.Count
	Cancelled    pos.Count // documents cancelled (pos/cancel.go): in no total above
	OpenPaid     pos.Paise // paid on split sales not complete: in no sales total, its cash in CashExpected
}

// DayReport is the store's day: each counter with anything that day, and the
// store's totals (their sum).
type DayReport struct {
	Day      string
	Counters []CounterDay
	Store    CounterDay // Terminal is ""
}

// DayReport sums day (YYYY-MM-DD) per counter and for the store from the
// projections: each counter's orders of the day, as projected (their
// snapshots), go through the counter's own report, pos.BuildReport. Its cost
// depends on the day's rows only (indexes on day).
func (db *DB) DayReport(ctx context.Context, day string) (*DayReport, error) {
	d, err := time.Parse(pos.DayLayout, day)
	if err != nil {
		return nil, &api.Error{HTTPStatus: http.StatusBadRequest, Code: api.CodeMalformed, Message: fmt.Sprintf("%q is not a day: write it YYYY-MM-DD", day)}
	}
	if err := db.Project(ctx); err != nil {
		return nil, err
	}
	orders, err := db.dayOrders(ctx, d)
	if err != nil {
		return nil, db.wrap("day report", err)
	}
	r := &DayReport{Day: day}
	for t, os := range orders {
		r.Counters = append(r.Counters, counterDay(t, pos.BuildReport(day, os, time.Time{})))
	}
	slices.SortFunc(r.Counters, func(a, b CounterDay) int { return compareTerminal(a.Terminal, b.Terminal) })
	r.Store = SumCounters(r.Counters)
	return r, nil
}

// counterDay is terminal's day from its report.
func counterDay(terminal string, r *pos.Report) CounterDay {
	c := CounterDay{Terminal: terminal, Sales: r.Sales, GST: r.GST, GrossSales: r.GrossSales, Refunds: r.Refunds,
		Refunded: r.Refunded, NetSales: r.NetSales, CashExpected: r.CashExpected, Failed: r.Failed, Unknown: r.Unknown,
		Abandoned: r.Abandoned, Cancelled: r.Cancelled, OpenPaid: r.OpenPaid}
	for _, g := range r.GST {
		c.Tax += g.Tax
	}
	sortTotals(&c)
	return c
}

// dayOrders reads, per terminal, the orders pos.BuildReport needs for day d,
// as the counter's report reads them from its journal (Engine.Ledger.Report): the
// orders of that day, paid that day, or with a refund that day, and with them
// the split sale of each tender and the tenders of each split sale among them.
func (db *DB) dayOrders(ctx context.Context, d time.Time) (map[string][]*pos.Order, error) {
	out := map[string][]*pos.Order{}
	have := map[[2]string]bool{}
	read := func(rs pgx.Rows, err error) error {
		if err != nil {
			return err
		}
		defer rs.Close()
		for rs.Next() {
			var t string
			var snap []byte
			if err := rs.Scan(&t, &snap); err != nil {
				return err
			}
			o := new(pos.Order)
			if err := json.Unmarshal(snap, o); err != nil {
				return fmt.Errorf("order of terminal %s: the stored projection cannot be read: %w", t, err)
			}
			if k := [2]string{t, o.ID}; !have[k] {
				have[k] = true
				out[t] = append(out[t], o)
			}
		}
		return rs.Err()
	}
	err := read(db.pool.Query(ctx, `SELECT o.terminal_id, o.snapshot FROM orders o JOIN (
			SELECT terminal_id, order_id FROM orders WHERE day = $1
			UNION SELECT terminal_id, order_id FROM orders WHERE paid_day = $1 AND state = ANY($2)
			UNION SELECT terminal_id, order_id FROM payments WHERE day = $1) k USING (terminal_id, order_id)`, d, pos.PaidStates()))
	if err != nil {
		return nil, err
	}
	var ts, ids []string
	for t, os := range out {
		for _, o := range os {
			for _, id := range pos.SaleOrderIDs(o) {
				if k := [2]string{t, id}; !have[k] {
					have[k] = true
					ts, ids = append(ts, t), append(ids, id)
				}
			}
		}
	}
	if len(ids) == 0 {
		return out, nil
	}
	for i := range ids {
		delete(have, [2]string{ts[i], ids[i]}) // read below
	}
	err = read(db.pool.Query(ctx, `SELECT o.terminal_id, o.snapshot FROM orders o
		JOIN unnest($1::text[], $2::text[]) AS k(terminal_id, order_id) USING (terminal_id, order_id)`, ts, ids))
	return out, err
}

// SumCounters adds counters' days up: the store's totals.
func SumCounters(cs []CounterDay) CounterDay {
	var s CounterDay
	sales, refunds := map[pos.TenderKind]*pos.TenderTotal{}, map[pos.TenderKind]*pos.TenderTotal{}
	gst := map[pos.Rate]*pos.RateTotal{}
	for _, c := range cs {
		for _, t := range c.Sales {
			addTender(sales, t)
		}
		for _, t := range c.Refunds {
			addTender(refunds, t)
		}
		for _, g := range c.GST {
			x := gst[g.Rate]
			if x == nil {
				x = &pos.RateTotal{Rate: g.Rate}
				gst[g.Rate] = x
			}
			x.Amount += g.Amount
			x.Taxable += g.Taxable
			x.Tax += g.Tax
			x.CGST += g.CGST
			x.SGST += g.SGST
		}
		s.GrossSales += c.GrossSales
		s.Refunded += c.Refunded
		s.NetSales += c.NetSales
		s.CashExpected += c.CashExpected
		s.Tax += c.Tax
		s.Failed.Count += c.Failed.Count
		s.Failed.Amount += c.Failed.Amount
		s.Unknown.Count += c.Unknown.Count
		s.Unknown.Amount += c.Unknown.Amount
		s.Abandoned.Count += c.Abandoned.Count
		s.Abandoned.Amount += c.Abandoned.Amount
		s.Cancelled.Count += c.Cancelled.Count
		s.Cancelled.Amount += c.Cancelled.Amount
		s.OpenPaid += c.OpenPaid
	}
	for _, t := range sales {
		s.Sales = append(s.Sales, *t)
	}
	for _, t := range refunds {
		s.Refunds = append(s.Refunds, *t)
	}
	for _, g := range gst {
		s.GST = append(s.GST, *g)
	}
	sortTotals(&s)
	return s
}

func addTender(m map[pos.TenderKind]*pos.TenderTotal, t pos.TenderTotal) {
	x := m[t.Tender]
	if x == nil {
		x = &pos.TenderTotal{Tender: t.Tender}
		m[t.Tender] = x
	}
	x.Count += t.Count
	x.Amount += t.Amount
}

func sortTotals(c *CounterDay) {
	if c.Sales == nil {
		c.Sales = []pos.TenderTotal{}
	}
	if c.Refunds == nil {
		c.Refunds = []pos.TenderTotal{}
	}
	// As the counter's report lists them (pos.BuildReport).
	byTender := func(a, b pos.TenderTotal) int { return strings.Compare(string(a.Tender), string(b.Tender)) }
	slices.SortFunc(c.Sales, byTender)
	slices.SortFunc(c.Refunds, byTender)
	slices.SortFunc(c.GST, func(a, b pos.RateTotal) int { return a.Rate.Compare(b.Rate) })
}

// compareTerminal orders terminal ids: T2 before T10.
func compareTerminal(a, b string) int {
	if len(a) != len(b) {
		return len(a) - len(b)
	}
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// CounterZ is one counter's sealed Z report as the store received it.
type CounterZ struct {
	Terminal     string    `json:"terminal"`
	ZNo          uint64    `json:"z_no"`
	GrossSales   pos.Paise `json:"gross_sales"`
	Refunded     pos.Paise `json:"refunded"`
	NetSales     pos.Paise `json:"net_sales"`
	CashExpected pos.Paise `json:"cash_expected"`
	Tax          pos.Paise `json:"tax"`
}

// StoreZ is the store's Z report of a day: the sum of the counters' Z reports.
type StoreZ struct {
	Day          string     `json:"day"`
	Counters     []CounterZ `json:"counters"`
	GrossSales   pos.Paise  `json:"gross_sales"`
	Refunded     pos.Paise  `json:"refunded"`
	NetSales     pos.Paise  `json:"net_sales"`
	CashExpected pos.Paise  `json:"cash_expected"`
	Tax          pos.Paise  `json:"tax"`
	ClosedBy     string     `json:"closed_by"`
	ClosedAt     time.Time  `json:"closed_at"`
}

// ErrStoreZRefused is wrapped by every refusal of CloseStoreDay; the error's
// sentence says which counter or payment and what to do.
var ErrStoreZRefused = errors.New("the store's day cannot be closed yet")

// zRefusal is a refusal of the store's Z with its sentence.
type zRefusal struct{ msg string }

func (e *zRefusal) Error() string { return e.msg }
func (e *zRefusal) Unwrap() error { return ErrStoreZRefused }

// CloseStoreDay seals the store's Z report of day, by manager: the sum of the
// counters' Z reports. It is refused, with a sentence naming the counter, while
// a counter that sold that day has not sent its Z report (closed there and
// synced; the Z is the counter's last event of its day, so its arrival means
// the day's events before it arrived too), a counter is blocked, or a payment
// of that day is not settled. Closing a day closed already gives
// the sealed report again.
func (db *DB) CloseStoreDay(ctx context.Context, day, manager string) (*StoreZ, error) {
	d, err := time.Parse(pos.DayLayout, day)
	if err != nil {
		return nil, &zRefusal{fmt.Sprintf("%q is not a day: write it YYYY-MM-DD", day)}
	}
	if err := db.Project(ctx); err != nil {
		return nil, err
	}
	var out *StoreZ
	err = pgx.BeginFunc(ctx, db.pool, func(tx pgx.Tx) error {
		// One store Z at a time.
		if _, err := tx.Exec(ctx, "SELECT pg_advisory_xact_lock($1)", int64(lockMigrate+1)); err != nil {
			return err
		}
		var sealed []byte
		err := tx.QueryRow(ctx, "SELECT report FROM store_z WHERE day = $1", d).Scan(&sealed)
		if err == nil {
			out = &StoreZ{}
			return json.Unmarshal(sealed, out)
		}
		if !errors.Is(err, pgx.ErrNoRows) {
			return err
		}
		// A blocked counter: its events are refused, so its day is not whole.
		var blockedT, reason string
		err = tx.QueryRow(ctx, "SELECT id, coalesce(blocked_reason, '') FROM terminals WHERE state = 'blocked' ORDER BY id LIMIT 1").Scan(&blockedT, &reason)
		if err == nil {
			return &zRefusal{fmt.Sprintf("counter %s is blocked (%s): its events are refused, so the store's day is not complete; clear its alarm first", blockedT, reason)}
		}
		if !errors.Is(err, pgx.ErrNoRows) {
			return err
		}
		// A counter with events of the day but no Z report of it.
		var missing string
		err = tx.QueryRow(ctx, `SELECT e.terminal_id FROM (SELECT DISTINCT terminal_id FROM events WHERE day = $1) e
			WHERE NOT EXISTS (SELECT 1 FROM z_reports z WHERE z.terminal_id = e.terminal_id AND z.day = $1)
			ORDER BY e.terminal_id LIMIT 1`, d).Scan(&missing)
		if err == nil {
			return &zRefusal{fmt.Sprintf("counter %s sold on %s but its Z report has not reached the store: close the day on counter %s and let it sync (galla sync), then close the store's day", missing, day, missing)}
		}
		if !errors.Is(err, pgx.ErrNoRows) {
			return err
		}
		// An order of the day whose payment is unknown.
		var ut, uo, us string
		err = tx.QueryRow(ctx, `SELECT terminal_id, order_id, state FROM orders WHERE day = $1 AND state = ANY($2)
			ORDER BY terminal_id, order_id LIMIT 1`, d, pos.OpenStates()).Scan(&ut, &uo, &us)
		if err == nil {
			return &zRefusal{fmt.Sprintf("the payment of order %s on counter %s is not settled (%s): inquire it on counter %s and let it sync, then close the store's day", uo, ut, us, ut)}
		}
		if !errors.Is(err, pgx.ErrNoRows) {
			return err
		}
		z := &StoreZ{Day: day, ClosedBy: manager, ClosedAt: db.Now().UTC().Truncate(time.Second)}
		rs, err := tx.Query(ctx, `SELECT terminal_id, z_no, gross, refunded, net, cash_expected, tax FROM z_reports WHERE day = $1`, d)
		if err != nil {
			return err
		}
		for rs.Next() {
			var c CounterZ
			var zno, g, r, n, ce, tax int64
			if err := rs.Scan(&c.Terminal, &zno, &g, &r, &n, &ce, &tax); err != nil {
				rs.Close()
				return err
			}
			c.ZNo, c.GrossSales, c.Refunded, c.NetSales, c.CashExpected, c.Tax = uint64(zno), pos.Paise(g), pos.Paise(r), pos.Paise(n), pos.Paise(ce), pos.Paise(tax)
			z.Counters = append(z.Counters, c)
			z.GrossSales += c.GrossSales
			z.Refunded += c.Refunded
			z.NetSales += c.NetSales
			z.CashExpected += c.CashExpected
			z.Tax += c.Tax
		}
		rs.Close()
		if err := rs.Err(); err != nil {
			return err
		}
		if len(z.Counters) == 0 {
			return &zRefusal{fmt.Sprintf("no counter has sent a Z report of %s: close the day on the counters and let them sync first", day)}
		}
		slices.SortFunc(z.Counters, func(a, b CounterZ) int { return compareTerminal(a.Terminal, b.Terminal) })
		b, err := json.Marshal(z)
		if err != nil {
			return err
		}
		if _, err := tx.Exec(ctx, "INSERT INTO store_z (day, report, closed_by, closed_at) VALUES ($1, $2, $3, $4)", d, b, manager, z.ClosedAt); err != nil {
			return err
		}
		out = z
		return nil
	})
	var zr *zRefusal
	if errors.As(err, &zr) {
		return nil, zr
	}
	if err != nil {
		return nil, db.wrap("store z", err)
	}
	return out, nil
}

// StoreZReport returns the sealed store Z of day, or nil when it is not closed.
func (db *DB) StoreZReport(ctx context.Context, day string) (*StoreZ, error) {
	d, err := time.Parse(pos.DayLayout, day)
	if err != nil {
		return nil, &zRefusal{fmt.Sprintf("%q is not a day: write it YYYY-MM-DD", day)}
	}
	var b []byte
	err = db.pool.QueryRow(ctx, "SELECT report FROM store_z WHERE day = $1", d).Scan(&b)
	if errors.Is(err, pgx.ErrNoRows) {
		return nil, nil
	}
	if err != nil {
		return nil, db.wrap("store z", err)
	}
	var z StoreZ
	if err := json.Unmarshal(b, &z); err != nil {
		return nil, fmt.Errorf("store: the sealed store Z of %s cannot be read: %w", day, err)
	}
	return &z, nil
}

// CounterZs returns the counters' Z reports of day the store holds.
func (db *DB) CounterZs(ctx context.Context, day string) ([]CounterZ, error) {
	d, err := time.Parse(pos.DayLayout, day)
	if err != nil {
		return nil, &zRefusal{fmt.Sprintf("%q is not a day: write it YYYY-MM-DD", day)}
	}
	rs, err := db.pool.Query(ctx, `SELECT terminal_id, z_no, gross, refunded, net, cash_expected, tax FROM z_reports WHERE day = $1`, d)
	if err != nil {
		return nil, db.wrap("counter Z reports", err)
	}
	out, err := pgx.CollectRows(rs, func(r pgx.CollectableRow) (CounterZ, error) {
		var c CounterZ
		var zno, g, rf, n, ce, tax int64
		err := r.Scan(&c.Terminal, &zno, &g, &rf, &n, &ce, &tax)
		c.ZNo, c.GrossSales, c.Refunded, c.NetSales, c.CashExpected, c.Tax = uint64(zno), pos.Paise(g), pos.Paise(rf), pos.Paise(n), pos.Paise(ce), pos.Paise(tax)
		return c, err
	})
	if err != nil {
		return nil, db.wrap("counter Z reports", err)
	}
	slices.SortFunc(out, func(a, b CounterZ) int { return compareTerminal(a.Terminal, b.Terminal) })
	return out, nil
}
