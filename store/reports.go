package store

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"slices"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"

	"galla/pos"
	"galla/pos/gstr"
	"galla/store/api"
)

// Reports sums the counters for the store: the day report, the store's Z of a
// day, and the GSTR-1 and the sales CSV of a month.
type Reports struct{ *dbCore }

// DayReport sums day (YYYY-MM-DD) per counter and for the store from the
// projections: each counter's orders of the day, as projected (their
// snapshots), go through the counter's own report, pos.ShopReportAt, with
// the counter's registration by date (registrations.go). Its cost depends on
// the day's rows only (indexes on day).
func (rp *Reports) DayReport(ctx context.Context, day string) (*DayReport, error) {
	d, err := time.Parse(pos.DayLayout, day)
	if err != nil {
		return nil, &api.Error{HTTPStatus: http.StatusBadRequest, Code: api.CodeMalformed, Message: fmt.Sprintf("%q is not a day: write it YYYY-MM-DD", day)}
	}
	if err := rp.projections.Project(ctx); err != nil {
		return nil, err
	}
	orders, err := rp.dayOrders(ctx, d)
	if err != nil {
		return nil, rp.wrap("day report", err)
	}
	shop, _, err := rp.master.Shop(ctx)
	if err != nil {
		return nil, rp.wrap("day report", err)
	}
	shops, err := readCounterShops(ctx, rp.pool, shop)
	if err != nil {
		return nil, rp.wrap("day report", err)
	}
	r := &DayReport{Day: day}
	for t, os := range orders {
		r.Counters = append(r.Counters, counterDay(t, pos.ShopReportAt(day, os, time.Time{}, shops.of(t))))
	}
	slices.SortFunc(r.Counters, func(a, b CounterDay) int { return compareTerminal(a.Terminal, b.Terminal) })
	r.Store = SumCounters(r.Counters)
	if r.OverRefunds, r.OverRefunded, err = overRefunds(ctx, rp.pool, d); err != nil {
		return nil, rp.wrap("day report", err)
	}
	return r, nil
}

// querier is a pool or a transaction.
type querier interface {
	Query(ctx context.Context, sql string, args ...any) (pgx.Rows, error)
}

// overRefunds reads the refunds of day d that paid money out twice across
// counters, and their sum.
func overRefunds(ctx context.Context, q querier, d time.Time) ([]OverRefund, pos.Paise, error) {
	rs, err := q.Query(ctx, `SELECT terminal_id, refund_id, number, others, amount, units FROM over_refunds
		WHERE day = $1 ORDER BY seq, terminal_id`, d)
	if err != nil {
		return nil, 0, err
	}
	out, err := pgx.CollectRows(rs, func(r pgx.CollectableRow) (OverRefund, error) {
		var o OverRefund
		var amount int64
		err := r.Scan(&o.Terminal, &o.RefundID, &o.Number, &o.Others, &amount, &o.Units)
		o.Amount = pos.Paise(amount)
		return o, err
	})
	var sum pos.Paise
	for _, o := range out {
		sum += o.Amount
	}
	return out, sum, err
}

// dayOrders reads, per terminal, the orders pos.BuildReport needs for day d,
// as the counter's report reads them from its journal (Engine.Ledger.Report): the
// orders of that day, paid that day, or with a refund that day, and with them
// the split sale of each tender and the tenders of each split sale among them.
func (rp *Reports) dayOrders(ctx context.Context, d time.Time) (map[string][]*pos.Order, error) {
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
			if err := rp.vault().unmarshal(snap, o); err != nil {
				return fmt.Errorf("order of terminal %s: the stored projection cannot be read: %w", t, err)
			}
			if k := [2]string{t, o.ID}; !have[k] {
				have[k] = true
				out[t] = append(out[t], o)
			}
		}
		return rs.Err()
	}
	err := read(rp.pool.Query(ctx, `SELECT o.terminal_id, o.snapshot FROM orders o JOIN (
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
	err = read(rp.pool.Query(ctx, `SELECT o.terminal_id, o.snapshot FROM orders o
		JOIN unnest($1::text[], $2::text[]) AS k(terminal_id, order_id) USING (terminal_id, order_id)`, ts, ids))
	return out, err
}

// CloseStoreDay seals the store's Z report of day, by manager: the sum of the
// counters' Z reports. It is refused, with a sentence naming the counter, while
// a counter that sold that day has not sent its Z report (closed there and
// synced; the Z is the counter's last event of its day, so its arrival means
// the day's events before it arrived too), a counter is blocked, or a payment
// of that day is not settled. Closing a day closed already gives
// the sealed report again.
func (rp *Reports) CloseStoreDay(ctx context.Context, day, manager string) (*StoreZ, error) {
	d, err := time.Parse(pos.DayLayout, day)
	if err != nil {
		return nil, &zRefusal{fmt.Sprintf("%q is not a day: write it YYYY-MM-DD", day)}
	}
	if err := rp.projections.Project(ctx); err != nil {
		return nil, err
	}
	var out *StoreZ
	err = pgx.BeginFunc(ctx, rp.pool, func(tx pgx.Tx) error {
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
		// A counter with events of the day but no Z report of it, or a sale
		// after its last Z of the date (ADR 0010: the Z of the date's next
		// period is still to come).
		var missing string
		err = tx.QueryRow(ctx, `SELECT e.terminal_id FROM (SELECT terminal_id, max(seq) AS seq, bool_or(kind = $2) AS sold FROM events WHERE day = $1 GROUP BY terminal_id) e
			WHERE NOT EXISTS (SELECT 1 FROM z_reports z WHERE z.terminal_id = e.terminal_id AND z.day = $1)
			   OR (e.sold AND EXISTS (SELECT 1 FROM events s WHERE s.terminal_id = e.terminal_id AND s.day = $1 AND s.kind = $2
			        AND s.seq > (SELECT max(z.seq) FROM z_reports z WHERE z.terminal_id = e.terminal_id AND z.day = $1)))
			ORDER BY e.terminal_id LIMIT 1`, d, string(pos.EvOrderIntent)).Scan(&missing)
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
		z := &StoreZ{Day: day, ClosedBy: manager, ClosedAt: rp.now().UTC().Truncate(time.Second)}
		rs, err := tx.Query(ctx, `SELECT terminal_id, z_no, gross, refunded, net, cash_expected, tax, period FROM z_reports WHERE day = $1 ORDER BY z_no`, d)
		if err != nil {
			return err
		}
		for rs.Next() {
			var c CounterZ
			var zno, g, r, n, ce, tax int64
			if err := rs.Scan(&c.Terminal, &zno, &g, &r, &n, &ce, &tax, &c.Period); err != nil {
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
		if z.OverRefunds, z.OverRefunded, err = overRefunds(ctx, tx, d); err != nil {
			return err
		}
		if len(z.Counters) == 0 {
			return &zRefusal{fmt.Sprintf("no counter has sent a Z report of %s: close the day on the counters and let them sync first", day)}
		}
		slices.SortStableFunc(z.Counters, func(a, b CounterZ) int { return compareTerminal(a.Terminal, b.Terminal) }) // a counter's Zs by number
		// What the store held as it closed: what comes after is late.
		rs, err = tx.Query(ctx, "SELECT id, last_seq FROM terminals WHERE last_seq > 0")
		if err != nil {
			return err
		}
		z.Held = map[string]uint64{}
		for rs.Next() {
			var id string
			var seq int64
			if err := rs.Scan(&id, &seq); err != nil {
				rs.Close()
				return err
			}
			z.Held[id] = uint64(seq)
		}
		rs.Close()
		if err := rs.Err(); err != nil {
			return err
		}
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
		return nil, rp.wrap("store z", err)
	}
	return out, nil
}

// StoreZReport returns the sealed store Z of day, or nil when it is not closed.
func (rp *Reports) StoreZReport(ctx context.Context, day string) (*StoreZ, error) {
	d, err := time.Parse(pos.DayLayout, day)
	if err != nil {
		return nil, &zRefusal{fmt.Sprintf("%q is not a day: write it YYYY-MM-DD", day)}
	}
	var b []byte
	err = rp.pool.QueryRow(ctx, "SELECT report FROM store_z WHERE day = $1", d).Scan(&b)
	if errors.Is(err, pgx.ErrNoRows) {
		return nil, nil
	}
	if err != nil {
		return nil, rp.wrap("store z", err)
	}
	var z StoreZ
	if err := json.Unmarshal(b, &z); err != nil {
		return nil, fmt.Errorf("store: the sealed store Z of %s cannot be read: %w", day, err)
	}
	return &z, nil
}

// maxLateEvents bounds the late events LateEvents lists.
const maxLateEvents = 200

// LateEvents returns the events of day that reached the store after its
// store Z was sealed (beyond StoreZ.Held; for a Z sealed without it, received
// after it was closed), in the order they came, at most maxLateEvents; none
// while the day is open.
func (rp *Reports) LateEvents(ctx context.Context, day string) ([]LateEvent, error) {
	z, err := rp.StoreZReport(ctx, day)
	if err != nil || z == nil {
		return nil, err
	}
	d, _ := time.Parse(pos.DayLayout, day) // StoreZReport parsed it
	var rs pgx.Rows
	if z.Held != nil {
		ts, seqs := make([]string, 0, len(z.Held)), make([]int64, 0, len(z.Held))
		for t, s := range z.Held {
			ts, seqs = append(ts, t), append(seqs, int64(s))
		}
		rs, err = rp.pool.Query(ctx, `SELECT e.terminal_id, e.seq, e.kind, coalesce(e.body->>'order_id', ''), e.received_at FROM events e
			LEFT JOIN unnest($2::text[], $3::int8[]) AS h(terminal_id, seq) ON h.terminal_id = e.terminal_id
			WHERE e.day = $1 AND e.seq > coalesce(h.seq, 0)
			ORDER BY e.received_at, e.terminal_id, e.seq LIMIT $4`, d, ts, seqs, maxLateEvents)
	} else {
		rs, err = rp.pool.Query(ctx, `SELECT terminal_id, seq, kind, coalesce(body->>'order_id', ''), received_at FROM events
			WHERE day = $1 AND received_at > $2 ORDER BY received_at, terminal_id, seq LIMIT $3`, d, z.ClosedAt, maxLateEvents)
	}
	if err != nil {
		return nil, rp.wrap("late events", err)
	}
	out, err := pgx.CollectRows(rs, func(r pgx.CollectableRow) (LateEvent, error) {
		var e LateEvent
		var seq int64
		err := r.Scan(&e.Terminal, &seq, &e.Kind, &e.OrderID, &e.Received)
		e.Seq = uint64(seq)
		return e, err
	})
	if err != nil {
		return nil, rp.wrap("late events", err)
	}
	return out, nil
}

// CounterZs returns the counters' Z reports of day the store holds.
func (rp *Reports) CounterZs(ctx context.Context, day string) ([]CounterZ, error) {
	d, err := time.Parse(pos.DayLayout, day)
	if err != nil {
		return nil, &zRefusal{fmt.Sprintf("%q is not a day: write it YYYY-MM-DD", day)}
	}
	rs, err := rp.pool.Query(ctx, `SELECT terminal_id, z_no, gross, refunded, net, cash_expected, tax, period FROM z_reports WHERE day = $1 ORDER BY z_no`, d)
	if err != nil {
		return nil, rp.wrap("counter Z reports", err)
	}
	out, err := pgx.CollectRows(rs, func(r pgx.CollectableRow) (CounterZ, error) {
		var c CounterZ
		var zno, g, rf, n, ce, tax int64
		err := r.Scan(&c.Terminal, &zno, &g, &rf, &n, &ce, &tax, &c.Period)
		c.ZNo, c.GrossSales, c.Refunded, c.NetSales, c.CashExpected, c.Tax = uint64(zno), pos.Paise(g), pos.Paise(rf), pos.Paise(n), pos.Paise(ce), pos.Paise(tax)
		return c, err
	})
	if err != nil {
		return nil, rp.wrap("counter Z reports", err)
	}
	slices.SortStableFunc(out, func(a, b CounterZ) int { return compareTerminal(a.Terminal, b.Terminal) }) // a counter's Zs by number
	return out, nil
}

// The store's GSTR-1 (issue 15). GSTR-1 is filed per GSTIN, that is per store:
// it is built from every counter's orders as projected (pos.Order snapshots) by
// the terminal's own rules (pos.GSTRDocumentsAt, gstr.GSTR1), under the shop's
// details published as master data or, failing that, the newest a counter
// journaled. Each document is issued under the registration in force at its
// counter on its date (registrations.go): one issued before the shop had its
// GSTIN, or under the composition scheme, is in no return of the GSTIN.

// ErrNoGSTIN refuses a GSTR-1 of a store whose GSTIN is not known.
var ErrNoGSTIN = errors.New("GSTR-1 is filed under the store's GSTIN, which is not known: publish the shop's details at the store (galla store shop set --gstin GSTIN …), then export again")

// ErrComposition refuses a GSTR-1 of a composition-scheme store.
var ErrComposition = errors.New("a store under the composition scheme files CMP-08 and GSTR-4, not GSTR-1: there is nothing to export")

// MonthDocuments returns the tax invoices and credit notes every counter issued
// in month (days in loc), by date, counter and number, each under the
// registration in force at its counter on its date; shop is the registration
// of a counter that journaled none of its own.
func (rp *Reports) MonthDocuments(ctx context.Context, month gstr.Month, shop pos.Shop, loc *time.Location) ([]gstr.Document, error) {
	if err := rp.projections.Project(ctx); err != nil {
		return nil, err
	}
	shops, err := readCounterShops(ctx, rp.pool, shop)
	if err != nil {
		return nil, rp.wrap("read the counters' registrations", err)
	}
	first, last := month.Days(loc)
	from, to := first.Format(pos.DayLayout), last.Format(pos.DayLayout)
	// A sale paid in an earlier month may have been refunded in this one; a
	// return order (a counter taking back another counter's invoice) has no
	// payment of its own, only the credit notes it issued.
	rs, err := rp.pool.Query(ctx, `SELECT terminal_id, snapshot FROM orders
		WHERE (paid_day <= $2 AND (paid_day >= $1 OR refunded > 0))
		   OR (state = $3 AND day <= $2)
		ORDER BY terminal_id, order_id`, from, to, string(pos.StateReturn))
	if err != nil {
		return nil, rp.wrap("read the month's orders", err)
	}
	defer rs.Close()
	var docs []gstr.Document
	for rs.Next() {
		var terminal string
		var snap []byte
		if err := rs.Scan(&terminal, &snap); err != nil {
			return nil, err
		}
		var o pos.Order
		if err := rp.vault().unmarshal(snap, &o); err != nil {
			return nil, fmt.Errorf("an order of terminal %s held by the store cannot be read (galla store rebuild rebuilds it from the events): %w", terminal, err)
		}
		for _, d := range pos.GSTRDocumentsAt(o, shops.of(terminal), terminal, loc, nil) {
			if day := d.Date.In(loc).Format(pos.DayLayout); day >= from && day <= to {
				docs = append(docs, d)
			}
		}
	}
	if err := rs.Err(); err != nil {
		return nil, err
	}
	slices.SortStableFunc(docs, func(a, b gstr.Document) int {
		if c := a.Date.Compare(b.Date); c != 0 {
			return c
		}
		return strings.Compare(a.Number, b.Number)
	})
	return docs, nil
}

// GSTR1 builds the store's GSTR-1 of month from every counter's documents,
// under the GSTIN of the shop the store published.
func (rp *Reports) GSTR1(ctx context.Context, month gstr.Month, loc *time.Location) (*gstr.Return, error) {
	return rp.GSTR1Of(ctx, month, loc, "")
}

// GSTR1Of builds the store's GSTR-1 of month under gstin ("" is the published
// shop's): a store whose GSTIN changed (a new registration) files the return
// of the earlier one for the documents its counters issued under it. A GSTIN
// under which no counter issued a document of month, and that is not the
// published shop's, is refused with a sentence (ErrGSTINNotHeld).
func (rp *Reports) GSTR1Of(ctx context.Context, month gstr.Month, loc *time.Location, gstin string) (*gstr.Return, error) {
	shop, _, err := rp.master.Shop(ctx)
	if err != nil {
		return nil, err
	}
	gstin = pos.NormalGSTIN(gstin)
	if gstin == "" || gstin == shop.GSTIN {
		switch shop.Registration() {
		case pos.Unregistered:
			return nil, ErrNoGSTIN
		case pos.Composition:
			return nil, ErrComposition
		}
		gstin = shop.GSTIN
	} else if err := pos.CheckGSTIN(gstin); err != nil {
		return nil, fmt.Errorf("%w: %s", ErrGSTINNotHeld, strings.TrimSuffix(pos.Sentence(err), "."))
	}
	docs, err := rp.MonthDocuments(ctx, month, shop, loc)
	if err != nil {
		return nil, err
	}
	if gstin != shop.GSTIN && !slices.ContainsFunc(docs, func(d gstr.Document) bool { return d.Under(gstin) }) {
		return nil, fmt.Errorf("%w: no counter issued a document of %s under GSTIN %s; give a GSTIN the store's counters held that month", ErrGSTINNotHeld, month, gstin)
	}
	return gstr.GSTR1(month, gstin, docs)
}

// ErrGSTINNotHeld refuses a GSTR-1 of a GSTIN that is not valid, or under
// which no counter issued a document of the month.
var ErrGSTINNotHeld = errors.New("there is no GSTR-1 of that GSTIN")

// WriteMonthCSV writes one row per line every counter sold or returned in
// month (gstr.WriteCSV), for the accountant.
func (rp *Reports) WriteMonthCSV(ctx context.Context, month gstr.Month, loc *time.Location, w io.Writer) error {
	shop, _, err := rp.master.Shop(ctx)
	if err != nil {
		return err
	}
	docs, err := rp.MonthDocuments(ctx, month, shop, loc)
	if err != nil {
		return err
	}
	return gstr.WriteCSV(w, docs)
}
