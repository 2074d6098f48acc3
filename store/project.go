package store

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"runtime"
	"strings"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"

	"galla/pos"
)

// The projections (ADR 0006): plain tables derived from the events, caught up
// per terminal from its high-water mark (projection_marks) after each batch,
// before every read that needs them, and rebuilt from events by Rebuild.
// Each event kind has one function in projectionsTable; a kind without one (a
// kind added on the terminals after this program) is skipped and records
// nothing.

// projectedTables are the tables Rebuild truncates: everything derived.
var projectedTables = []string{"orders", "order_lines", "order_rates", "payments", "documents", "credit_notes", "imei_units", "shifts", "z_reports", "overrides"}

// projectFunc projects one decoded event of the projector's terminal.
type projectFunc func(p *projector, seq uint64, ev *pos.Event) error

// projectionsTable maps each event kind to its projection, every kind
// written here. The order events all go through projectOrder, which applies
// them to the order as pos does (pos.Order.Apply) and writes the rows each
// kind adds beside it: the payments' and refunds' (this file), the cancelled
// documents' (project_cancel.go), the credit notes' and a split sale's
// tenders' (project_notes.go). Shifts are project_notes.go's.
func projectionsTable() map[pos.EventKind]projectFunc {
	t := map[pos.EventKind]projectFunc{
		pos.EvDayClosed: projectDayClosed,
		pos.EvOverride:  projectOverride,
	}
	for _, k := range []pos.EventKind{pos.EvOrderIntent, pos.EvOrderCreated, pos.EvOrderFailed, pos.EvOrderAbandoned,
		pos.EvOrderUnknown, pos.EvIMEIValidated, pos.EvPaymentAttempt, pos.EvPaymentAccepted, pos.EvPaymentRefused,
		pos.EvPaymentOutcome, pos.EvAnswerUnverified, pos.EvAnswerIgnored, pos.EvCashReceived,
		pos.EvRefundIntent, pos.EvRefundDone, pos.EvRefundFailed,
		pos.EvReceiptPrinted, pos.EvReceiptReprinted, pos.EvPrintFailed,
		pos.EvDocumentCancelled,
		pos.EvNoteRedeemed, pos.EvNoteTendered, pos.EvNoteRestored,
		pos.EvTenderAdded, pos.EvSaleCompleted, pos.EvSaleVoided, pos.EvUPIConfirmed, pos.EvTenderNoteRedeemed} {
		t[k] = projectOrder
	}
	for _, k := range []pos.EventKind{pos.EvShiftOpened, pos.EvShiftCash, pos.EvShiftClosed} {
		t[k] = projectShift
	}
	return t
}

// projector projects a run of one terminal's events inside a transaction. The
// orders it touches are read once and written once, at flush.
type projector struct {
	ctx      context.Context
	table    map[pos.EventKind]projectFunc // projectionsTable
	tx       pgx.Tx
	terminal string
	orders   map[string]*pos.Order
	dirty    []string // order ids to write, in the order first touched
	isDirty  map[string]bool
	stored   map[string]bool // orders read from the orders table (not new)
	pipe     *pipeTx         // tx, whose writes are sent together (project_batch.go)
	sets     sets            // rows gathered, written at flush (project_sets.go)
}

func newProjector(ctx context.Context, tx pgx.Tx, terminal string) *projector {
	pipe := &pipeTx{Tx: tx}
	return &projector{ctx: ctx, table: projectionsTable(), tx: pipe, pipe: pipe, terminal: terminal, orders: map[string]*pos.Order{}, isDirty: map[string]bool{}, stored: map[string]bool{}}
}

// event projects one decoded event (nil: a body that is not a pos.Event,
// skipped). An event of a kind without a projection is skipped.
func (p *projector) event(seq uint64, ev *pos.Event) error {
	if ev == nil {
		return nil
	}
	f := p.table[ev.Kind]
	if f == nil {
		return nil
	}
	return f(p, seq, ev)
}

// decodeEvents decodes the bodies of rows as pos.Events (nil for a body that
// is not one), on as many goroutines as the program runs on: decoding is
// most of the projector's own time, and each body decodes alone.
func decodeEvents(rows []row) []*pos.Event {
	evs := make([]*pos.Event, len(rows))
	decode := func(from, to int) {
		for i := from; i < to; i++ {
			var ev pos.Event
			if json.Unmarshal(rows[i].body, &ev) == nil {
				evs[i] = &ev
			}
		}
	}
	n := min(runtime.GOMAXPROCS(0), len(rows)/64+1)
	var wg sync.WaitGroup
	for k := range n {
		wg.Go(func() { decode(k*len(rows)/n, (k+1)*len(rows)/n) })
	}
	wg.Wait()
	return evs
}

// order returns the order id of the terminal as projected so far, or a new
// empty one.
func (p *projector) order(id string) (*pos.Order, error) {
	if o, ok := p.orders[id]; ok {
		return o, nil
	}
	o := &pos.Order{}
	var snap []byte
	err := p.tx.QueryRow(p.ctx, "SELECT snapshot FROM orders WHERE terminal_id = $1 AND order_id = $2", p.terminal, id).Scan(&snap)
	switch {
	case errors.Is(err, pgx.ErrNoRows):
	case err != nil:
		return nil, err
	default:
		if err := json.Unmarshal(snap, o); err != nil {
			return nil, fmt.Errorf("order %s of terminal %s: the stored projection cannot be read: %w", id, p.terminal, err)
		}
		p.stored[id] = true
	}
	p.orders[id] = o
	return o, nil
}

// projectOrder applies an order event to its order. An event pos would refuse
// (stale, or for an order whose intent is missing) changes nothing, as on the
// terminal.
func projectOrder(p *projector, seq uint64, ev *pos.Event) error {
	o, err := p.order(ev.OrderID)
	if err != nil {
		return err
	}
	before := o.Refunded
	if err := o.Apply(*ev); err != nil {
		return nil
	}
	if !p.isDirty[ev.OrderID] {
		p.isDirty[ev.OrderID] = true
		p.dirty = append(p.dirty, ev.OrderID)
	}
	switch ev.Kind {
	case pos.EvOrderIntent:
		if err := p.lines(o, ev.Day); err != nil {
			return err
		}
	case pos.EvPaymentOutcome:
		out := ev.Outcome
		p.payment(seq, o.ID, string(ev.Kind), string(o.Tender), "", ev.Day, int64(out.Captured), out.PaymentStatus, out.PaymentID, o.CardLast4)
	case pos.EvCashReceived:
		p.payment(seq, o.ID, string(ev.Kind), string(o.Tender), "", ev.Day, int64(o.Captured), "CAPTURED", "", "")
	case pos.EvRefundDone:
		p.payment(seq, o.ID, refundKind(o, ev), string(o.Tender), string(refundDestination(o, ev.Refund.UniqueTxnID)), ev.Day,
			int64(o.Refunded-before), "REFUNDED", ev.Refund.RefundID, "")
		// A refund reserved at the store is now counted in the order's refunded.
		// One made on a return order at another counter never is: its
		// reservation stays unsettled and keeps counting against the invoice.
		if _, err := p.tx.Exec(p.ctx, "UPDATE return_reservations SET settled = true WHERE refund_id = $1 AND sold_terminal = $2 AND sold_order = $3",
			ev.Refund.UniqueTxnID, p.terminal, o.ID); err != nil {
			return err
		}
		if err := p.creditNote(o, ev.Refund.UniqueTxnID); err != nil {
			return err
		}
	case pos.EvNoteRedeemed, pos.EvNoteRestored:
		if err := p.creditNote(o, ev.Note.Refund); err != nil {
			return err
		}
	case pos.EvDocumentCancelled:
		if err := p.cancelDocument(o); err != nil {
			return err
		}
	}
	if ev.ReceiptNo != 0 || ev.DocNo != 0 {
		kind, amount := "receipt", o.Amount
		number := DocumentNumber(p.terminal, ev.ReceiptNo)
		if ev.DocNo != 0 { // a document of a series: T1/2627/000123, T1/C2627/00001
			number = pos.DocNumber(p.terminal, ev.Series, ev.DocNo)
		}
		if ev.Kind == pos.EvRefundDone {
			kind, amount = "refund receipt", o.Refunded-before
			if ev.DocNo != 0 {
				kind = "credit note"
			}
		}
		p.document(number, kind, o.ID, ev.Day, int64(amount))
	}
	return nil
}

// refundDestination is where o's refund uid went, by the counter's rule
// (pos.RefundDestination): the destination its refund.intent named, or, for
// one that named none, the way the sale was paid.
func refundDestination(o *pos.Order, uid string) pos.RefundTo {
	var to pos.RefundTo
	if r := o.RefundByID(uid); r != nil {
		to = r.To
	}
	return pos.RefundDestination(o, to)
}

// DocumentNumber is how the store names receipt number n of terminal (one
// issued before number series): T1/000123.
func DocumentNumber(terminal string, n uint64) string { return fmt.Sprintf("%s/%06d", terminal, n) }

// projectDayClosed records the counter's sealed Z report.
func projectDayClosed(p *projector, seq uint64, ev *pos.Event) error {
	dc := ev.DayClose
	if dc == nil {
		return nil
	}
	var r pos.Report
	if err := json.Unmarshal(dc.Report, &r); err != nil {
		return nil
	}
	day := dayArg(dc.Day)
	if day == nil {
		return nil
	}
	var tax pos.Paise
	for _, g := range r.GST {
		tax += g.Tax
	}
	_, err := p.tx.Exec(p.ctx, `INSERT INTO z_reports (terminal_id, day, z_no, seq, gross, refunded, net, cash_expected, tax, unknown_count, report)
		VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11) ON CONFLICT (terminal_id, day) DO NOTHING`,
		p.terminal, day, int64(dc.ZNo), int64(seq), int64(r.GrossSales), int64(r.Refunded), int64(r.NetSales),
		int64(r.CashExpected), int64(tax), r.Unknown.Count, []byte(dc.Report))
	return err
}

// projectOverride records a manager's override (an IMEI check passed by hand
// while the store could not be asked, a discount above the limit): flagged on
// the manager's pages.
func projectOverride(p *projector, seq uint64, ev *pos.Event) error {
	detail, err := json.Marshal(ev.Extra)
	if err != nil || ev.Extra == nil {
		detail = []byte("{}")
	}
	_, err = p.tx.Exec(p.ctx, `INSERT INTO overrides (terminal_id, seq, day, staff, what, detail) VALUES ($1, $2, $3, $4, $5, $6)
		ON CONFLICT DO NOTHING`, p.terminal, int64(seq), dayArg(ev.Day), ev.Staff, ev.Extra["what"], detail)
	return err
}

// write queues the writes of the rows gathered and of the orders touched.
// The orders written are stored from then on (projector.stored).
func (p *projector) write() error {
	if err := p.flushSets(); err != nil {
		return err
	}
	if err := p.flushOrders(); err != nil {
		return err
	}
	for _, id := range p.dirty {
		p.stored[id] = true
	}
	p.dirty = p.dirty[:0]
	clear(p.isDirty)
	return nil
}

// subChunk is how many events projectRows projects before it sends their
// writes: the database executes them while the next events are decoded and
// applied in Go (the two take about as long).
const subChunk = 250

// projectRows projects rows of terminal inside tx. When it fails, the writes
// it sent are read before it returns: the connection is free for the
// rollback.
func projectRows(ctx context.Context, tx pgx.Tx, terminal string, rows []row) (err error) {
	p := newProjector(ctx, tx, terminal)
	defer func() {
		if werr := p.pipe.wait(); err == nil {
			err = werr
		}
	}()
	if len(rows) > 0 {
		if err := p.preload(rows[0].seq, rows[len(rows)-1].seq); err != nil {
			return err
		}
	}
	for len(rows) > 0 {
		part := rows[:min(subChunk, len(rows))]
		rows = rows[len(part):]
		evs := decodeEvents(part)
		for i, r := range part {
			if err := p.event(r.seq, evs[i]); err != nil {
				return fmt.Errorf("project event %d of terminal %s: %w", r.seq, terminal, err)
			}
		}
		if len(rows) > 0 {
			if err := p.write(); err != nil {
				return err
			}
			if err := p.pipe.sendAsync(ctx); err != nil {
				return err
			}
		}
	}
	if err := p.write(); err != nil {
		return err
	}
	return p.pipe.send(ctx)
}

// Project catches the projections up with every event stored: for each
// terminal whose events go past its mark, in a transaction of its own that
// locks the mark (two servers catching up the same terminal take turns). It is
// cheap when nothing is new (one query). The ingest does not wait for it: a
// batch is stored first, projected after.
func (db *DB) Project(ctx context.Context) error {
	rs, err := db.pool.Query(ctx, `SELECT t.id FROM terminals t LEFT JOIN projection_marks m ON m.terminal_id = t.id
		WHERE t.last_seq > coalesce(m.seq, 0) ORDER BY t.id`)
	if err != nil {
		return db.wrap("project", err)
	}
	behind, err := pgx.CollectRows(rs, pgx.RowTo[string])
	if err != nil {
		return db.wrap("project", err)
	}
	for _, t := range behind {
		if err := db.ProjectTerminal(ctx, t); err != nil {
			return err
		}
	}
	return nil
}

// ProjectTerminal catches the projections up with terminal's events.
func (db *DB) ProjectTerminal(ctx context.Context, terminal string) error {
	err := pgx.BeginFunc(ctx, db.pool, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, "INSERT INTO projection_marks (terminal_id) VALUES ($1) ON CONFLICT DO NOTHING", terminal); err != nil {
			return err
		}
		var mark int64
		if err := tx.QueryRow(ctx, "SELECT seq FROM projection_marks WHERE terminal_id = $1 FOR UPDATE", terminal).Scan(&mark); err != nil {
			return err
		}
		n, err := catchUp(ctx, tx, terminal, mark)
		if err != nil || n == mark {
			return err
		}
		_, err = tx.Exec(ctx, "UPDATE projection_marks SET seq = $2 WHERE terminal_id = $1", terminal, n)
		return err
	})
	return db.wrap("project", err)
}

// catchUp projects terminal's events after seq and returns the last one.
func catchUp(ctx context.Context, tx pgx.Tx, terminal string, seq int64) (int64, error) {
	const chunk = 2000
	for {
		rows, err := readEvents(ctx, tx, terminal, seq, chunk)
		if err != nil || len(rows) == 0 {
			return seq, err
		}
		if err := projectSafely(ctx, tx, terminal, rows); err != nil {
			return seq, err
		}
		seq = int64(rows[len(rows)-1].seq)
	}
}

// AlarmProjection is an event the projections could not take: it stays in
// events, the rest of the terminal's events are projected, and a manager looks.
const AlarmProjection = "projection"

// projectSafely projects rows inside a savepoint. When the database refuses
// them (an event whose values it cannot hold), they are projected one by one
// and each event refused is skipped with an alarm, so that one bad event does
// not stop the pages of the whole store.
func projectSafely(ctx context.Context, tx pgx.Tx, terminal string, rows []row) error {
	try := func(rs []row) error {
		sp, err := tx.Begin(ctx)
		if err != nil {
			return err
		}
		if err := projectRows(ctx, sp, terminal, rs); err != nil {
			_ = sp.Rollback(ctx)
			return err
		}
		return sp.Commit(ctx)
	}
	err := try(rows)
	if err == nil || unavailable(err) || ctx.Err() != nil {
		return err
	}
	for _, r := range rows {
		err := try([]row{r})
		if err == nil {
			continue
		}
		if unavailable(err) || ctx.Err() != nil {
			return err
		}
		if _, aerr := tx.Exec(ctx, "INSERT INTO alarms (terminal_id, kind, seq, detail) VALUES ($1, $2, $3, $4)",
			terminal, AlarmProjection, int64(r.seq), fmt.Sprintf("event %d could not be projected (%v): the pages leave it out; it is kept in events", r.seq, err)); aerr != nil {
			return aerr
		}
	}
	return nil
}

// project catches the projections up with a batch just stored (stored events
// of terminal). A failure is logged only: the events are stored, and the next
// batch or read catches up.
func (s *Server) project(ctx context.Context, terminal string, stored int) {
	if stored == 0 {
		return
	}
	if err := s.db.ProjectTerminal(ctx, terminal); err != nil && ctx.Err() == nil {
		s.log.Warn("store: project", "terminal", terminal, "err", err)
	}
}

// RebuildStats says what Rebuild replayed.
type RebuildStats struct {
	Terminals int
	Events    int64
	Orders    int64
}

// Rebuild empties the projections and replays every stored event into them,
// terminal by terminal in sequence order, in one transaction: a failure leaves
// the projections as they were. Catching up waits for it (it locks the marks).
func (db *DB) Rebuild(ctx context.Context) (RebuildStats, error) {
	var st RebuildStats
	err := pgx.BeginFunc(ctx, db.pool, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, "LOCK TABLE projection_marks IN ACCESS EXCLUSIVE MODE"); err != nil {
			return err
		}
		if _, err := tx.Exec(ctx, "TRUNCATE projection_marks, "+strings.Join(projectedTables, ", ")); err != nil {
			return err
		}
		rs, err := tx.Query(ctx, "SELECT id, last_seq FROM terminals WHERE last_seq > 0 ORDER BY id")
		if err != nil {
			return err
		}
		type term struct {
			id   string
			last int64
		}
		terms, err := pgx.CollectRows(rs, func(r pgx.CollectableRow) (term, error) {
			var t term
			err := r.Scan(&t.id, &t.last)
			return t, err
		})
		if err != nil {
			return err
		}
		for _, t := range terms {
			n, err := catchUp(ctx, tx, t.id, 0)
			if err != nil {
				return err
			}
			if _, err := tx.Exec(ctx, "INSERT INTO projection_marks (terminal_id, seq) VALUES ($1, $2)", t.id, n); err != nil {
				return err
			}
			st.Terminals++
			st.Events += n
		}
		return tx.QueryRow(ctx, "SELECT count(*) FROM orders").Scan(&st.Orders)
	})
	if err != nil {
		return RebuildStats{}, db.wrap("rebuild", err)
	}
	return st, nil
}

// readEvents reads up to n of terminal's events after seq.
func readEvents(ctx context.Context, tx pgx.Tx, terminal string, after int64, n int) ([]row, error) {
	rs, err := tx.Query(ctx, "SELECT seq, body::text FROM events WHERE terminal_id = $1 AND seq > $2 ORDER BY seq LIMIT $3", terminal, after, n)
	if err != nil {
		return nil, err
	}
	defer rs.Close()
	var out []row
	for rs.Next() {
		var seq int64
		var body string
		if err := rs.Scan(&seq, &body); err != nil {
			return nil, err
		}
		out = append(out, row{seq: uint64(seq), body: []byte(body)})
	}
	return out, rs.Err()
}

// dayArg is a YYYY-MM-DD day for the database, or nil when it is empty or
// not a day.
func dayArg(s string) any {
	d, err := time.Parse(pos.DayLayout, s)
	if err != nil {
		return nil
	}
	return d
}
