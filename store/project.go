package store

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"runtime"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"

	"galla/pos"
)

// The projections (ADR 0006): plain tables derived from the events, caught up
// per terminal from its high-water mark (projection_marks) after each batch,
// before every read that needs them, and rebuilt from events by
// Projections.Rebuild.
// Each event kind has one function in projectionsTable; a kind without one (a
// kind added on the terminals after this program) is skipped and records
// nothing.

// projectedTables are the tables Projections.Rebuild truncates: everything derived.
var projectedTables = append(append([]string{"orders", "order_lines", "order_rates", "payments", "documents", "credit_notes", "imei_units", "imei_repeats", "shifts", "z_reports", "overrides", "over_refunds"}, stockTables...), registrationTables...)

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
		// A counter's shop and registration history (registrations.go).
		pos.EvSettingsChanged: projectSettings,
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
	for _, k := range []pos.EventKind{pos.EvStockReceived, pos.EvStockAdjusted, pos.EvStockSent} {
		t[k] = projectStock // project_stock.go
	}
	return t
}

// projector projects a run of one terminal's events inside a transaction. The
// orders it touches are read once and written once, at flush.
type projector struct {
	ctx      context.Context
	table    map[pos.EventKind]projectFunc // projectionsTable
	tx       pgx.Tx
	vault    *vault // seals and opens the orders' snapshots that name a buyer
	terminal string
	orders   map[string]*pos.Order
	dirty    []string // order ids to write, in the order first touched
	isDirty  map[string]bool
	stored   map[string]bool // orders read from the orders table (not new)
	pipe     *pipeTx         // tx, whose writes are sent together (project_batch.go)
	sets     sets            // rows gathered, written at flush (project_sets.go)
	stock    stockRun        // the terminal's stock (project_stock.go)
	sold     []soldNow       // the sales just paid with IMEIs, checked at write (project_twice.go)
	// returns are the stored return orders citing the terminal's invoices
	// refunded in the run, read by preload (project_overrefund.go).
	returns map[[2]string][]storedReturn
	// snaps are the stored projections the run's orders were read from (none
	// for a new order), run the run's events and at the index in it of the
	// one projected: what refold folds an order again from.
	snaps map[string][]byte
	run   []*pos.Event
	at    int
	// careful are the orders refolded in the run, applied by pos.Order.Apply
	// from then on.
	careful map[string]bool
}

func newProjector(ctx context.Context, tx pgx.Tx, v *vault, terminal string) *projector {
	pipe := &pipeTx{Tx: tx}
	return &projector{ctx: ctx, table: projectionsTable(), tx: pipe, pipe: pipe, vault: v, terminal: terminal, orders: map[string]*pos.Order{}, isDirty: map[string]bool{}, stored: map[string]bool{}, snaps: map[string][]byte{}}
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
			evs[i] = decodeEvent(rows[i].body) // project_decode.go
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
		if err := p.vault.unmarshal(snap, o); err != nil {
			return nil, fmt.Errorf("order %s of terminal %s: the stored projection cannot be read: %w", id, p.terminal, err)
		}
		p.stored[id] = true
		p.snaps[id] = snap
	}
	p.orders[id] = o
	return o, nil
}

// projectOrder applies an order event to its order. An event pos would refuse
// (stale, or for an order whose intent is missing) changes nothing, as on the
// terminal.
//
// The event is folded in place (pos.Order.ApplyInPlace), without the deep
// copy pos.Order.Apply makes of every order for every event (about 2 MB a
// batch of 1 000): an event refused is rare, and then the order, which the
// run's later events go on from, is folded again as it was before it (refold),
// and its later events of the run are applied by Apply, so that an order
// refused again and again costs one fold, not one a refusal. Any other error
// ends the projector, its orders with it.
func projectOrder(p *projector, seq uint64, ev *pos.Event) error {
	o, err := p.order(ev.OrderID)
	if err != nil {
		return err
	}
	before, wasPaid := o.Refunded, o.State.Paid()
	if p.careful[ev.OrderID] {
		if err := o.Apply(*ev); err != nil {
			return nil
		}
	} else if err := o.ApplyInPlace(*ev); err != nil {
		return p.refold(o, ev.OrderID)
	}
	if !wasPaid && o.State.Paid() {
		if imeis := pos.StockEffectOf(o).IMEIs; len(imeis) > 0 {
			p.sold = append(p.sold, soldNow{seq: seq, order: o.ID, imeis: imeis}) // checked at write (project_twice.go)
		}
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
	case pos.EvRefundIntent:
		if ev.Refund != nil {
			if err := p.settleReturn(o, ev.Refund.UniqueTxnID); err != nil {
				return err
			}
		}
	case pos.EvPaymentOutcome:
		out := ev.Outcome
		p.payment(seq, o.ID, string(ev.Kind), string(o.Tender), "", ev.Day, int64(out.Captured), out.PaymentStatus, out.PaymentID, o.CardLast4)
	case pos.EvCashReceived:
		p.payment(seq, o.ID, string(ev.Kind), string(o.Tender), "", ev.Day, int64(o.Captured), "CAPTURED", "", "")
	case pos.EvRefundDone:
		p.payment(seq, o.ID, refundKind(o, ev), string(o.Tender), string(refundDestination(o, ev.Refund.UniqueTxnID)), ev.Day,
			int64(o.Refunded-before), "REFUNDED", ev.Refund.RefundID, "")
		if err := p.settleReturn(o, ev.Refund.UniqueTxnID); err != nil {
			return err
		}
		if err := p.creditNote(seq, o, ev.Refund.UniqueTxnID); err != nil {
			return err
		}
		if err := p.checkOverRefund(seq, o, ev.Refund.UniqueTxnID, ev.Day); err != nil {
			return err
		}
	case pos.EvNoteRedeemed, pos.EvNoteRestored:
		if err := p.creditNote(seq, o, ev.Note.Refund); err != nil {
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
	return p.stockOrder(seq, ev, o)
}

// refold makes o, order id, which an event just refused by
// pos.Order.ApplyInPlace may have left partly changed, what it was before
// that event: the order as the run read it (its stored projection, or a new
// one), with the run's events of it before the refused one applied again by
// pos.Order.Apply (those refused then are refused again and change nothing).
// o keeps its address: the projector's maps hold it.
func (p *projector) refold(o *pos.Order, id string) error {
	n := &pos.Order{}
	if snap, ok := p.snaps[id]; ok {
		if err := p.vault.unmarshal(snap, n); err != nil {
			return fmt.Errorf("order %s of terminal %s: the stored projection cannot be read: %w", id, p.terminal, err)
		}
	}
	for _, ev := range p.run[:p.at] {
		if ev != nil && ev.OrderID == id {
			_ = n.Apply(*ev)
		}
	}
	*o = *n
	if p.careful == nil {
		p.careful = map[string]bool{}
	}
	p.careful[id] = true
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
	// A date may have more than one Z (ADR 0010): each is kept, by number,
	// with the period of its date it closes.
	_, err := p.tx.Exec(p.ctx, `INSERT INTO z_reports (terminal_id, day, z_no, seq, gross, refunded, net, cash_expected, tax, unknown_count, report, period)
		VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12) ON CONFLICT (terminal_id, z_no) DO NOTHING`,
		p.terminal, day, int64(dc.ZNo), int64(seq), int64(r.GrossSales), int64(r.Refunded), int64(r.NetSales),
		int64(r.CashExpected), int64(tax), r.Unknown.Count, []byte(dc.Report), max(dc.Period, 1))
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
// The orders written are stored from then on (projector.stored). The run's
// sales of IMEIs are checked against the other counters' at its last write
// (last): one read a run, not one a part, each of which waited for the
// part's writes before it.
func (p *projector) write(last bool) error {
	if err := p.flushRefunds(); err != nil {
		return err
	}
	if last {
		if err := p.checkSoldTwice(); err != nil {
			return err
		}
	}
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
// writes: the database executes them while the next events are applied in Go.
// A batch of a terminal (api.MaxBatch events) is one part: each part costs a
// statement a table, and with the projection alongside the ingest
// (IngestAndProject) the database is busy with the ingest meanwhile. Measured
// 2026-11-27 in BenchmarkIngest, three runs each: x-sync 2.95, 3.33 and 3.05
// with parts of 250 events, 3.04, 3.46 and 2.87 with 500, 2.78, 2.74 and 2.83
// with 1 000. A catch-up (chunks of 2 000 events read back) is two.
const subChunk = 1000

// projectRows projects rows of terminal inside tx, in parts of part events.
// When it fails, the writes it sent are read before it returns: the
// connection is free for the rollback.
func projectRows(ctx context.Context, tx pgx.Tx, v *vault, terminal string, rows []row, part int) error {
	return projectPart(ctx, tx, v, terminal, rows, part, false, 0)
}

// projectSavepoint is the savepoint projectPart writes a part inside.
const projectSavepoint = "project_part"

// projectPart is projectRows (parts of part events, subChunk in a catch-up),
// inside a savepoint of its own when inSavepoint:
// the savepoint is taken in the round trip of the first read and released in
// that of the last writes (a pgx savepoint, tx.Begin, takes a round trip to
// begin and one to commit). When it fails, what it wrote is rolled back to
// the savepoint. With markTo (in a savepoint only), the terminal's mark is
// moved to it in the round trip of the last writes.
func projectPart(ctx context.Context, tx pgx.Tx, v *vault, terminal string, rows []row, part int, inSavepoint bool, markTo int64) (err error) {
	p := newProjector(ctx, tx, v, terminal)
	if inSavepoint {
		_, _ = p.pipe.queue(ctx, "SAVEPOINT "+projectSavepoint)
	}
	defer func() {
		if werr := p.pipe.wait(); err == nil {
			err = werr
		}
		defer p.pipe.done()
		if err != nil && inSavepoint && p.pipe.sent {
			// The savepoint went with the first writes sent; the connection
			// still holds the transaction unless it was lost.
			p.pipe.batch = pgx.Batch{}
			for _, sql := range []string{"ROLLBACK TO SAVEPOINT " + projectSavepoint, "RELEASE SAVEPOINT " + projectSavepoint} {
				if _, rerr := p.pipe.Tx.Exec(ctx, sql); rerr != nil {
					err = errors.Join(err, rerr)
					break
				}
			}
		}
	}()
	// The whole run is decoded first, for its orders to be read in one query.
	evs := decodeEvents(rows)
	if err := p.preload(evs); err != nil {
		return err
	}
	p.run = evs
	for len(rows) > 0 {
		these := rows[:min(part, len(rows))]
		rows = rows[len(these):]
		for _, r := range these {
			if err := p.event(r.seq, evs[p.at]); err != nil {
				return fmt.Errorf("project event %d of terminal %s: %w", r.seq, terminal, err)
			}
			p.at++
		}
		if len(rows) > 0 {
			if err := p.write(false); err != nil {
				return err
			}
			if err := p.pipe.sendAsync(ctx); err != nil {
				return err
			}
		}
	}
	if err := p.write(true); err != nil {
		return err
	}
	if inSavepoint {
		_, _ = p.pipe.queue(ctx, "RELEASE SAVEPOINT "+projectSavepoint)
		if markTo > 0 {
			_, _ = p.pipe.queue(ctx, markSQL, terminal, markTo)
		}
	}
	return p.pipe.send(ctx)
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
