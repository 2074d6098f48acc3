package store

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"time"

	"github.com/jackc/pgx/v5"

	"galla/pos"
	"galla/store/api"
)

// CounterDay is one counter's day as the store's projections hold it, summed
// by the rules of the counter's own report (pos.BuildReport): sales are the
// orders paid that day, refunds the refunds done that day, unknown the orders
// of that day whose outcome is not final.
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
}

// DayReport is the store's day: each counter with anything that day, and the
// store's totals (their sum).
type DayReport struct {
	Day      string
	Counters []CounterDay
	Store    CounterDay // Terminal is ""
}

// DayReport sums day (YYYY-MM-DD) per counter and for the store from the
// projections. Its cost depends on the day's rows only (indexes on day).
func (db *DB) DayReport(ctx context.Context, day string) (*DayReport, error) {
	d, err := time.Parse(pos.DayLayout, day)
	if err != nil {
		return nil, &api.Error{HTTPStatus: http.StatusBadRequest, Code: api.CodeMalformed, Message: fmt.Sprintf("%q is not a day: write it YYYY-MM-DD", day)}
	}
	if err := db.Project(ctx); err != nil {
		return nil, err
	}
	counters := map[string]*CounterDay{}
	get := func(t string) *CounterDay {
		c := counters[t]
		if c == nil {
			c = &CounterDay{Terminal: t}
			counters[t] = c
		}
		return c
	}
	q := func(sql string, scan func(pgx.Rows) error, args ...any) error {
		rs, err := db.pool.Query(ctx, sql, args...)
		if err != nil {
			return err
		}
		defer rs.Close()
		for rs.Next() {
			if err := scan(rs); err != nil {
				return err
			}
		}
		return rs.Err()
	}
	// Sales by tender: the orders paid that day.
	err = q(`SELECT terminal_id, tender, count(*), sum(captured)::bigint, sum(tax)::bigint FROM orders
		WHERE paid_day = $1 AND state = ANY($2) GROUP BY terminal_id, tender`, func(rs pgx.Rows) error {
		var t, tender string
		var n int
		var amount, tax int64
		if err := rs.Scan(&t, &tender, &n, &amount, &tax); err != nil {
			return err
		}
		c := get(t)
		c.Sales = append(c.Sales, pos.TenderTotal{Tender: pos.TenderKind(tender), Count: n, Amount: pos.Paise(amount)})
		c.GrossSales += pos.Paise(amount)
		c.Tax += pos.Paise(tax)
		if tender == string(pos.TenderCash) {
			c.CashExpected += pos.Paise(amount)
		}
		return nil
	}, d, pos.PaidStates())
	if err != nil {
		return nil, db.wrap("day report", err)
	}
	// GST by rate of the same orders: their totals by rate, as the counter's
	// report adds them.
	err = q(`SELECT terminal_id, rate, sum(amount)::bigint, sum(taxable)::bigint, sum(tax)::bigint, sum(cgst)::bigint, sum(sgst)::bigint
		FROM order_rates WHERE paid_day = $1 GROUP BY terminal_id, rate`, func(rs pgx.Rows) error {
		var t string
		var rate int
		var amount, taxable, tax, cgst, sgst int64
		if err := rs.Scan(&t, &rate, &amount, &taxable, &tax, &cgst, &sgst); err != nil {
			return err
		}
		c := get(t)
		c.GST = append(c.GST, pos.RateTotal{Rate: pos.RateBP(rate), Amount: pos.Paise(amount), Taxable: pos.Paise(taxable), Tax: pos.Paise(tax), CGST: pos.Paise(cgst), SGST: pos.Paise(sgst)})
		return nil
	}, d)
	if err != nil {
		return nil, db.wrap("day report", err)
	}
	// Refunds done that day, by where their money went (pos.RefundDestination,
	// projected into refund_to): only those paid out of the drawer lower the
	// cash expected.
	err = q(`SELECT terminal_id, refund_to, count(*), sum(amount)::bigint FROM payments
		WHERE day = $1 AND kind = $2 GROUP BY terminal_id, refund_to`, func(rs pgx.Rows) error {
		var t, to string
		var n int
		var amount int64
		if err := rs.Scan(&t, &to, &n, &amount); err != nil {
			return err
		}
		c := get(t)
		c.Refunds = append(c.Refunds, pos.TenderTotal{Tender: pos.TenderKind(to), Count: n, Amount: pos.Paise(amount)})
		c.Refunded += pos.Paise(amount)
		if pos.RefundTo(to).MovesCash() {
			c.CashExpected -= pos.Paise(amount)
		}
		return nil
	}, d, string(pos.EvRefundDone))
	if err != nil {
		return nil, db.wrap("day report", err)
	}
	// Failed, abandoned and unknown: the orders of that day. A return order
	// (another counter's invoice taken back here) is no payment: its money is
	// in Refunded.
	err = q(`SELECT terminal_id, state, count(*), sum(amount)::bigint FROM orders
		WHERE day = $1 AND state <> ALL($2) GROUP BY terminal_id, state`, func(rs pgx.Rows) error {
		var t, state string
		var n int
		var amount int64
		if err := rs.Scan(&t, &state, &n, &amount); err != nil {
			return err
		}
		c := get(t)
		var k *pos.Count
		switch pos.OrderState(state) {
		case pos.StateFailed:
			k = &c.Failed
		case pos.StateAbandoned:
			k = &c.Abandoned
		case pos.StatusCancelled:
			k = &c.Cancelled
		default:
			k = &c.Unknown
		}
		k.Count += n
		k.Amount += pos.Paise(amount)
		return nil
	}, d, append(pos.PaidStates(), pos.StateReturn))
	if err != nil {
		return nil, db.wrap("day report", err)
	}
	r := &DayReport{Day: day}
	for _, c := range counters {
		c.NetSales = c.GrossSales - c.Refunded
		sortTotals(c)
		r.Counters = append(r.Counters, *c)
	}
	slices.SortFunc(r.Counters, func(a, b CounterDay) int { return compareTerminal(a.Terminal, b.Terminal) })
	r.Store = SumCounters(r.Counters)
	return r, nil
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
	byTender := func(a, b pos.TenderTotal) int { return compareTerminal(string(a.Tender), string(b.Tender)) }
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
