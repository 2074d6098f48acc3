package pos

import (
	"context"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"slices"
	"sync"
	"time"

	"galla/gateway"
)

// engineCore is the state the engine's parts share: the journal, the payment
// service, the clock, the configuration, the roster, the orders' locks, the
// document numbers and the payments held unrecorded. Its methods are the gate
// every money-moving call passes (journalReady, refuseWhileUnrecorded, dayOpen,
// lock) and the commit that journals an event. Each part holds the one core of
// its engine and reaches another part through the core's pointer to it, never
// through the Engine; the till's services hold it too (core.ec).
type engineCore struct {
	j       Journal
	gw      Gateway
	clock   Clock
	log     *slog.Logger
	cfg     Config
	roster  *Roster
	rnd     io.Reader
	maxWait time.Duration

	healthWait time.Duration

	mu   sync.Mutex
	busy map[string]bool // orders something is acting on

	numMu sync.Mutex // receipt and Z numbers; the store's decisions and noteTerminal

	// idMu guards the ids newID handed out within the second idStamp.
	idMu      sync.Mutex
	idStamp   string
	idsIssued map[[4]byte]bool

	// noteTerminal is the terminal's name on its documents, given with the
	// credit-note ledger (useNotes): a note numbered under another name is
	// another counter's. "" is "T1".
	noteTerminal string

	recMu      sync.Mutex
	reconciled bool

	// unrecorded holds the payments that may have moved money while the journal
	// could not record their next state (order id -> what was not recorded). While
	// one is held the engine takes no new payment; Reconcile releases it once the
	// journal shows it final.
	unrecorded map[string]string

	// openBook is the split sales that may still be open (sales_book.go).
	openBook salesBook

	// The engine's parts, each holding this core.
	payments *Payments
	sales    *Sales
	refunds  *Refunds
	store    *StoreDesk
	ledger   *Ledger
}

// errJournalWrite marks an error of commit that came from the journal (a failed
// write, a full disk), not from the state machine.
var errJournalWrite = errors.New("the journal could not be written")

// recordRetries are the waits between the tries of a journal write that must not
// be lost (record): about half a minute in all, on the engine's clock.
var recordRetries = [...]time.Duration{time.Second, 2 * time.Second, 4 * time.Second, 8 * time.Second, 15 * time.Second}

// beforeMoney turns a journal write failure before any money can move into
// ErrNotJournaled: nothing was sent, the cashier may take the payment again once
// the disk has space.
func beforeMoney(err error) error {
	if err != nil && errors.Is(err, errJournalWrite) {
		return fmt.Errorf("%w: %w", ErrNotJournaled, err)
	}
	return err
}

// now returns the engine's clock's time.
func (e *engineCore) now() time.Time { return e.clock.Now() }

// today returns the business day open now (Engine.Today).
func (e *engineCore) today() string { return BusinessDay(context.Background(), e.j, e.clock.Now()) }

// order returns the journaled order with this merchant order id.
func (e *engineCore) order(ctx context.Context, id string) (*Order, error) {
	o, err := e.j.Order(ctx, id)
	if err != nil {
		return nil, fmt.Errorf("pos: order %q: %w", id, err)
	}
	return o, nil
}

// lock marks an order busy; the returned function frees it. A busy order gets
// ErrOrderBusy (or ErrPaymentInFlight for payments, see lockPay).
func (e *engineCore) lock(id string) (func(), error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.busy[id] {
		return nil, fmt.Errorf("pos: order %q: %w", id, ErrOrderBusy)
	}
	e.busy[id] = true
	return func() {
		e.mu.Lock()
		delete(e.busy, id)
		e.mu.Unlock()
	}, nil
}

// newID returns prefix, the date and time, and 8 random hex digits: a merchant
// order id or refund id that is unique and sorts by time. The random digits of
// the ids handed out within one second are remembered and drawn again on a
// repeat: a sale and its tender take two ids at once, and a busy second (or a
// clock that stands still) would otherwise meet the birthday odds of 32 bits,
// one in about 2 000 runs of a thousand sales, the second id's intent refused
// as an order already journaled.
func (e *engineCore) newID(prefix string) (string, error) {
	stamp := e.clock.Now().Format("20060102150405")
	e.idMu.Lock()
	defer e.idMu.Unlock()
	if stamp != e.idStamp {
		e.idStamp, e.idsIssued = stamp, map[[4]byte]bool{}
	}
	for range maxIDDraws {
		var b [4]byte
		if _, err := io.ReadFull(e.rnd, b[:]); err != nil {
			return "", fmt.Errorf("pos: new id: %w", err)
		}
		if e.idsIssued[b] {
			continue
		}
		e.idsIssued[b] = true
		return prefix + stamp + "-" + hex.EncodeToString(b[:]), nil
	}
	return "", fmt.Errorf("pos: new id: the random source gave %d ids of this second again", maxIDDraws)
}

// maxIDDraws bounds newID's draws: a random source that repeats itself that
// often is broken.
const maxIDDraws = 16

// change is one event to journal for its order o, in a commit of several
// (commitAll): o is the order as the caller holds it, updated once committed.
type change struct {
	o  *Order
	ev Event
}

// commit journals ev for order o and, once it is committed, applies it to o. The
// event is checked with Apply first: an event the state machine refuses is never
// journaled; a stale one is journaled and leaves o as it was. An event that makes
// the order PAID, or confirms a refund, gets the next receipt number; a tender's
// order of a split sale does not (its sale gets the number, once covered).
//
// Journal writes do not stop when ctx is cancelled: what happened at the service
// must be recorded.
func (e *engineCore) commit(ctx context.Context, o *Order, ev Event) (stale bool, err error) {
	st, err := e.commitAll(ctx, change{o, ev})
	if err != nil {
		return false, err
	}
	return st[0], nil
}

// commitAll journals the events of cs, in their order, in one commit (one
// fsync'd transaction, Journal.AppendBatch), each checked and numbered as commit
// does one, on the state the changes before it leave its order in; once
// committed each is applied to its order. An event the state machine refuses
// refuses the commit: nothing is journaled. It reports which events were stale.
// It is how what follows from a state change with no call between them (a sale
// and its first tender's intent; a tender's outcome and the sale it completes)
// is journaled with it: all of it or none after a crash, for one commit.
func (e *engineCore) commitAll(ctx context.Context, cs ...change) (stale []bool, err error) {
	now := e.clock.Now()
	day := ""
	evs := make([]Event, len(cs))
	stale = make([]bool, len(cs))
	state := map[*Order]*Order{} // each order as the changes before leave it
	numbered := map[string]uint64{}
	locked := false
	defer func() {
		if locked {
			e.numMu.Unlock()
		}
	}()
	for i, c := range cs {
		ev := c.ev
		ev.V, ev.Time = EventVersion, now
		if ev.Day == "" {
			if day == "" {
				day = e.today()
			}
			ev.Day = day
		}
		cur := state[c.o]
		if cur == nil {
			cur = c.o
		}
		if ev.OrderID == "" {
			ev.OrderID = cur.ID
		}
		// next is this commit's own copy: a stale event leaves it unused.
		next := cur.Clone()
		aerr := next.ApplyInPlace(ev)
		if aerr != nil && !errors.Is(aerr, ErrStaleEvent) {
			return nil, aerr
		}
		stale[i] = aerr != nil
		if !stale[i] && (ev.Kind == EvRefundDone && !cancelRefundDone(next, ev) || !cur.State.Paid() && next.State.Paid() && next.Sale == "") {
			if !locked {
				e.numMu.Lock()
				locked = true
			}
			if err := e.number(context.WithoutCancel(ctx), &ev, next); err != nil {
				return nil, fmt.Errorf("pos: document number: %w: %w", errJournalWrite, err)
			}
			// A second number of one series in the commit follows the first.
			if last, ok := numbered[ev.Series]; ok && ev.DocNo <= last {
				ev.DocNo = last + 1
			}
			numbered[ev.Series] = ev.DocNo
		}
		if !stale[i] {
			state[c.o] = next
		}
		evs[i] = ev
	}
	var stored []Event
	if len(evs) == 1 {
		var one Event
		if one, err = e.j.Append(context.WithoutCancel(ctx), evs[0]); err == nil {
			stored = []Event{one}
		}
	} else {
		stored, err = e.j.AppendBatch(context.WithoutCancel(ctx), evs)
	}
	if err != nil {
		return nil, fmt.Errorf("pos: journal %s of %q: %w: %w", evs[0].Kind, evs[0].OrderID, errJournalWrite, err)
	}
	for i, c := range cs {
		if stale[i] {
			continue
		}
		// Folded in place: on an error c.o is reloaded whole below.
		if err := c.o.ApplyInPlace(stored[i]); err != nil {
			// The journal applied it; our copy must follow. Reload to be sure.
			fresh, rerr := e.j.Order(context.WithoutCancel(ctx), stored[i].OrderID)
			if rerr != nil {
				return nil, fmt.Errorf("pos: reload %q: %w", stored[i].OrderID, errors.Join(err, rerr))
			}
			*c.o = *fresh
		}
	}
	return stale, nil
}

// record commits ev once money may have moved for o (create order or a payment
// call was sent): the terminal must never say "try again" then. A journal write
// that fails is tried again on the clock (recordRetries); if it still fails the
// payment is held in memory as unknown, the engine takes no new payment, and the
// error is a *NotRecordedError (free disk space, then reconcile).
func (e *engineCore) record(ctx context.Context, o *Order, ev Event) (bool, error) {
	st, err := e.recordAll(ctx, change{o, ev})
	if err != nil {
		return false, err
	}
	return st[0], nil
}

// recordAll is record of the changes cs in one commit (commitAll): the first
// is what money may have moved for, the rest what follows from it. A commit
// that cannot be written is tried again as record tries one, and the first
// change's order is held when it still cannot.
func (e *engineCore) recordAll(ctx context.Context, cs ...change) ([]bool, error) {
	o, kind := cs[0].o, cs[0].ev.Kind
	stale, err := e.commitAll(ctx, cs...)
	for i := 0; err != nil && errors.Is(err, errJournalWrite) && i < len(recordRetries); i++ {
		e.log.LogAttrs(ctx, slog.LevelError, "pos: journal write failed after the payment service was called; retrying",
			slog.String("order", o.ID), slog.String("event", string(kind)), slog.String("error", err.Error()))
		if ctx.Err() != nil || e.clock.Sleep(ctx, recordRetries[i]) != nil {
			break
		}
		stale, err = e.commitAll(ctx, cs...)
	}
	if err != nil && errors.Is(err, errJournalWrite) {
		e.mu.Lock()
		e.unrecorded[o.ID] = string(kind)
		e.mu.Unlock()
		e.log.LogAttrs(ctx, slog.LevelError, "pos: payment not recorded; held until reconciled",
			slog.String("order", o.ID), slog.String("event", string(kind)), slog.String("error", err.Error()))
		return nil, &NotRecordedError{OrderID: o.ID, Err: err}
	}
	return stale, err
}

// held returns the orders whose payment may have moved money while the journal
// could not record it, sorted (Engine.Unrecorded).
func (e *engineCore) held() []string {
	e.mu.Lock()
	defer e.mu.Unlock()
	ids := make([]string, 0, len(e.unrecorded))
	for id := range e.unrecorded {
		ids = append(ids, id)
	}
	slices.Sort(ids)
	return ids
}

// refuseWhileUnrecorded refuses a new payment while a payment that may have
// moved money is not recorded.
func (e *engineCore) refuseWhileUnrecorded() error {
	if ids := e.held(); len(ids) > 0 {
		return &NotRecordedError{OrderID: ids[0], Err: errors.New("held until reconciled")}
	}
	return nil
}

// releaseRecorded drops from the held payments those the journal now shows final.
func (e *engineCore) releaseRecorded(ctx context.Context) {
	for _, id := range e.held() {
		o, err := e.j.Order(ctx, id)
		if err == nil && !o.Unresolved() {
			e.mu.Lock()
			delete(e.unrecorded, id)
			e.mu.Unlock()
		}
	}
}

// dayOpen refuses work dated a day that can take no more: a closed date other
// than today's (ADR 0010). Today's date stays open after its Z report: what is
// sold after it belongs to the date's next period.
func (e *engineCore) dayOpen(ctx context.Context, day string) error {
	if day == e.today() {
		return nil
	}
	dc, err := e.j.DayClose(ctx, day)
	if err != nil {
		return fmt.Errorf("pos: day %s: %w", day, err)
	}
	if dc != nil {
		return fmt.Errorf("pos: day %s (Z %d): %w", day, dc.ZNo, ErrDayClosed)
	}
	return nil
}

// ensureReconciled runs Reconcile once before the first new payment of this
// engine (DESIGN.md section 2, Restart).
func (e *engineCore) ensureReconciled(ctx context.Context) error {
	e.recMu.Lock()
	done := e.reconciled
	e.recMu.Unlock()
	if done {
		return nil
	}
	_, err := e.payments.Reconcile(ctx)
	return err
}

func (e *engineCore) customer(c *Customer) gateway.Customer {
	out := gateway.Customer{CountryCode: e.cfg.Customer.CountryCode, Mobile: e.cfg.Customer.Mobile, Email: e.cfg.Customer.Email}
	if c != nil {
		if c.CountryCode != "" {
			out.CountryCode = c.CountryCode
		}
		if c.Mobile != "" {
			out.Mobile = c.Mobile
		}
		if c.Email != "" {
			out.Email = c.Email
		}
	}
	if out.CountryCode == "" {
		out.CountryCode = "91"
	}
	return out
}

// number gives ev, which makes next paid or a refund of it done, the next number
// of its document's series: a credit note for a refund, else the sale's kind by
// the shop's settings and its lines. The caller holds numMu.
func (e *engineCore) number(ctx context.Context, ev *Event, next *Order) error {
	kind := DocCreditNote
	if ev.Kind != EvRefundDone {
		shop, err := LoadShop(ctx, e.j)
		if err != nil {
			return err
		}
		kind = SaleDocKind(shop, next.Lines)
	}
	ev.Series = SeriesOf(kind, ev.Time)
	last, err := e.j.LastDocNo(ctx, ev.Series)
	if err != nil {
		return err
	}
	ev.DocNo = last + 1
	return nil
}

// journalReady is the gate of every path that takes or returns money, or appends
// after asking the payment service (Open for every tender, cash included; PayCard,
// PayEMI, Await, Refund, Reconcile, CloseDay). It waits, at most cfg.HealthWait
// and no longer than ctx, for the journal's check to finish and refuses when the
// check failed, with the check's own error (its Sentence names the backup).
// Without a Health it lets everything through: the journal was checked in Open.
func (e *engineCore) journalReady(ctx context.Context) error {
	h := e.cfg.Health
	if h == nil {
		return nil
	}
	deadline := e.clock.Now().Add(e.healthWait)
	for {
		done, err := h.Verified()
		if done {
			if err != nil {
				return fmt.Errorf("pos: journal check: %w", err)
			}
			return nil
		}
		if !e.clock.Now().Before(deadline) {
			return fmt.Errorf("pos: %w", ErrJournalChecking)
		}
		if err := e.clock.Sleep(ctx, healthPoll); err != nil {
			return fmt.Errorf("pos: waiting for the journal check: %w", err)
		}
	}
}

// lockSale locks a split sale against a second tender added at once.
func (e *engineCore) lockSale(saleID string) (func(), error) { return e.lock("sale:" + saleID) }
