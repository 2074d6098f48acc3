package pos

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/url"
	"slices"
	"sync"
	"time"

	"galla/gateway"
)

// Gateway is what pos needs of the payment service: the subset of *gateway.Client
// the engine calls. Every call that moves money may end in an error matching
// gateway.ErrOutcomeUnknown, after which the engine inquires and never re-sends.
type Gateway interface {
	CreateOrder(ctx context.Context, o *gateway.Order) (*gateway.CreateOrderResponse, error)
	CardPayment(ctx context.Context, token string, card *gateway.Card, cust gateway.Customer) (*gateway.PaymentResponse, error)
	EMIPayment(ctx context.Context, r gateway.EMIPaymentRequest) (*gateway.PaymentResponse, error)
	EMICalculator(ctx context.Context, amount int64, products []gateway.ProductAmount) (*gateway.EMIOffers, error)
	ValidateScheme(ctx context.Context, amount int64, card *gateway.Card, emi gateway.EMITenure, acquirerID int64) error
	ValidateIMEI(ctx context.Context, token string, items []gateway.IMEIItem) (*gateway.IMEIResult, error)
	InquireOrder(ctx context.Context, serviceOrderID string) (*gateway.Inquiry, error)
	InquirePayment(ctx context.Context, serviceOrderID, paymentID string) (*gateway.Inquiry, error)
	Refund(ctx context.Context, r gateway.RefundRequest) (*gateway.Inquiry, error)
	SubmitAuthentication(ctx context.Context, content string, fields url.Values) error
}

// Config is what New needs. Journal is required; Gateway may be nil on a terminal
// that takes cash only.
type Config struct {
	Journal Journal
	Gateway Gateway
	// Clock is the time and the waits of polling; nil means SystemClock.
	Clock Clock
	// Logger receives one line per problem that is not the caller's to report; nil
	// discards. Card data never reaches it.
	Logger *slog.Logger
	// GatewayID names the payment service on every payment journaled
	// (GatewaySandbox for the embedded sandbox, the live service's address
	// otherwise), so that the journal says which one took it.
	GatewayID string
	// ReturnURL is the merchant_return_url of new orders ("" leaves the gateway's).
	ReturnURL string
	// Terminal prefixes the merchant order ids this terminal makes (letters and
	// digits; default "G").
	Terminal string
	// Customer is the contact sent when a sale names none: the service needs a
	// mobile number and an e-mail address on every payment.
	Customer Customer
	// MaxWait bounds the polling of one payment; 0 means 20 minutes (DESIGN.md
	// section 3). A checkout may ask for less.
	MaxWait time.Duration
	// PINPepper is the terminal's secret mixed into every PIN hash, kept outside
	// the journal (the keyring), for the Roster New makes.
	PINPepper []byte
	// StorePINPepper is the store's pepper of the staff the store server
	// distributes (ADR 0007), kept in the keyring beside PINPepper; nil on a
	// terminal not enrolled, or not yet given it.
	StorePINPepper []byte
	// Roster authorises managers; nil means NewRoster(Journal) with PINPepper.
	Roster *Roster
	// Rand is the source of order and refund ids; nil means crypto/rand.
	Rand io.Reader
	// Health gates the payments on the journal's startup check when that check
	// runs in the background (the window); nil means the journal was checked
	// before New (journal.Open without DeferVerify). While the check runs, every
	// sale (cash too), payment, await, refund, reconciliation and day close waits
	// for it (at most HealthWait); once it has failed they are all refused with
	// its error. Cash is refused as well: a sale appended to a damaged chain
	// would bury the damage under new events and mix them with what may be
	// restored from the backup. Reads (orders, the journal screen, reports) never
	// wait.
	Health JournalHealth
	// HealthWait bounds the wait for the check; 0 means DefaultHealthWait.
	HealthWait time.Duration
	// Notes redeems credit notes tendered in a split sale; nil refuses the note
	// tender.
	Notes NoteRedeemer
	// Decisions is the store server's say on what one counter of the store may do
	// (an IMEI sold at most once store-wide); nil when the terminal is not
	// enrolled, and the till decides on its own journal.
	Decisions StoreDecisions
}

// DefaultMaxWait is how long a payment is polled before it is left UNKNOWN for the
// reconciler (DESIGN.md section 3).
const DefaultMaxWait = 20 * time.Minute

// Engine is the till: it journals and drives checkouts, reconciliation, refunds and
// day close. One payment is in flight per order at a time: the checkout, the poller
// and the reconciler never act on one order at once. Its methods are safe for
// concurrent use.
type Engine struct {
	Payments  *Payments
	Sales     *Sales
	Refunds   *Refunds
	StoreDesk *StoreDesk
	Ledger    *Ledger

	core *engineCore // the state the parts share; the facade's own methods read it
}

// engineCore is the state the engine's parts share.
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

	// The engine's parts, each holding this core.
	payments *Payments
	sales    *Sales
	refunds  *Refunds
	store    *StoreDesk
	ledger   *Ledger
}

// Payments is one order's payment.
type Payments struct{ *engineCore }

// Sales is the sale and its tenders.
type Sales struct{ *engineCore }

// Refunds is refunds and cancellations.
type Refunds struct{ *engineCore }

// StoreDesk is the store's decisions.
type StoreDesk struct{ *engineCore }

// Ledger is the engine's books.
type Ledger struct{ *engineCore }

// ErrNoGateway reports a card, EMI or phone payment on a terminal with no payment
// service configured.
var ErrNoGateway = errors.New("no payment service is configured")

// ErrOrderBusy reports an order something else is acting on right now (a payment,
// the poller or the reconciler).
var ErrOrderBusy = errors.New("the order is busy")

// New builds an Engine.
func New(cfg Config) (*Engine, error) {
	if cfg.Journal == nil {
		return nil, errors.New("pos: new engine: no journal")
	}
	e := &engineCore{j: cfg.Journal, gw: cfg.Gateway, clock: cfg.Clock, log: cfg.Logger, cfg: cfg,
		roster: cfg.Roster, rnd: cfg.Rand, maxWait: cfg.MaxWait, busy: map[string]bool{},
		unrecorded: map[string]string{}}
	if e.clock == nil {
		e.clock = SystemClock{}
	}
	if e.log == nil {
		e.log = slog.New(slog.DiscardHandler)
	}
	if e.roster == nil {
		e.roster = NewRoster(cfg.Journal).WithPepper(cfg.PINPepper).WithStorePepper(cfg.StorePINPepper)
	}
	if e.rnd == nil {
		e.rnd = rand.Reader
	}
	if e.maxWait <= 0 || e.maxWait > DefaultMaxWait {
		e.maxWait = DefaultMaxWait
	}
	e.healthWait = cfg.HealthWait
	if e.healthWait <= 0 {
		e.healthWait = DefaultHealthWait
	}
	if e.cfg.Terminal == "" {
		e.cfg.Terminal = "G"
	}
	e.payments, e.sales, e.refunds, e.store, e.ledger = &Payments{e}, &Sales{e}, &Refunds{e}, &StoreDesk{e}, &Ledger{e}
	return &Engine{core: e, Payments: e.payments, Sales: e.sales, Refunds: e.refunds, StoreDesk: e.store, Ledger: e.ledger}, nil
}

// Journal returns the engine's journal, for reading orders and events.
func (e *Engine) Journal() Journal { return e.core.j }

// Roster returns the staff roster the engine authorises managers with.
func (e *Engine) Roster() *Roster { return e.core.roster }

// Now returns the engine's clock's time.
func (e *Engine) Now() time.Time { return e.core.now() }

// Today returns the business day open now (DayLayout): the calendar day, or
// the day after the last one a Z report closed when that is later. A Z report
// starts the next business day at once, so closing a day never stops selling
// (DESIGN.md section 2, "Shifts and the business day"); documents keep the
// calendar time of the sale.
func (e *Engine) Today() string { return e.core.today() }

// Order returns the journaled order with this merchant order id.
func (e *Engine) Order(ctx context.Context, id string) (*Order, error) { return e.core.order(ctx, id) }

// Unrecorded returns the orders whose payment may have moved money while the
// journal could not record it, sorted; the engine takes no new payment while
// any is held.
func (e *Engine) Unrecorded() []string { return e.core.held() }

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
// order id or refund id that is unique and sorts by time.
func (e *engineCore) newID(prefix string) (string, error) {
	var b [4]byte
	if _, err := io.ReadFull(e.rnd, b[:]); err != nil {
		return "", fmt.Errorf("pos: new id: %w", err)
	}
	return prefix + e.clock.Now().Format("20060102150405") + "-" + hex.EncodeToString(b[:]), nil
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
	now := e.clock.Now()
	ev.V, ev.Time = EventVersion, now
	if ev.Day == "" {
		ev.Day = e.today()
	}
	if ev.OrderID == "" {
		ev.OrderID = o.ID
	}
	next := o.Clone()
	aerr := next.Apply(ev)
	if aerr != nil && !errors.Is(aerr, ErrStaleEvent) {
		return false, aerr
	}
	stale = aerr != nil
	if !stale && (ev.Kind == EvRefundDone && !cancelRefundDone(next, ev) || !o.State.Paid() && next.State.Paid() && next.Sale == "") {
		e.numMu.Lock()
		defer e.numMu.Unlock()
		if err := e.number(context.WithoutCancel(ctx), &ev, next); err != nil {
			return false, fmt.Errorf("pos: document number: %w: %w", errJournalWrite, err)
		}
	}
	stored, err := e.j.Append(context.WithoutCancel(ctx), ev)
	if err != nil {
		return false, fmt.Errorf("pos: journal %s of %q: %w: %w", ev.Kind, ev.OrderID, errJournalWrite, err)
	}
	if stale {
		return true, nil
	}
	if err := o.Apply(stored); err != nil {
		// The journal applied it; our copy must follow. Reload to be sure.
		fresh, rerr := e.j.Order(context.WithoutCancel(ctx), o.ID)
		if rerr != nil {
			return false, fmt.Errorf("pos: reload %q: %w", o.ID, errors.Join(err, rerr))
		}
		*o = *fresh
	}
	return false, nil
}

// errJournalWrite marks an error of commit that came from the journal (a failed
// write, a full disk), not from the state machine.
var errJournalWrite = errors.New("the journal could not be written")

// recordRetries are the waits between the tries of a journal write that must not
// be lost (record): about half a minute in all, on the engine's clock.
var recordRetries = [...]time.Duration{time.Second, 2 * time.Second, 4 * time.Second, 8 * time.Second, 15 * time.Second}

// record commits ev once money may have moved for o (create order or a payment
// call was sent): the terminal must never say "try again" then. A journal write
// that fails is tried again on the clock (recordRetries); if it still fails the
// payment is held in memory as unknown, the engine takes no new payment, and the
// error is a *NotRecordedError (free disk space, then reconcile).
func (e *engineCore) record(ctx context.Context, o *Order, ev Event) (bool, error) {
	stale, err := e.commit(ctx, o, ev)
	for i := 0; err != nil && errors.Is(err, errJournalWrite) && i < len(recordRetries); i++ {
		e.log.LogAttrs(ctx, slog.LevelError, "pos: journal write failed after the payment service was called; retrying",
			slog.String("order", o.ID), slog.String("event", string(ev.Kind)), slog.String("error", err.Error()))
		if ctx.Err() != nil || e.clock.Sleep(ctx, recordRetries[i]) != nil {
			break
		}
		stale, err = e.commit(ctx, o, ev)
	}
	if err != nil && errors.Is(err, errJournalWrite) {
		e.mu.Lock()
		e.unrecorded[o.ID] = string(ev.Kind)
		e.mu.Unlock()
		e.log.LogAttrs(ctx, slog.LevelError, "pos: payment not recorded; held until reconciled",
			slog.String("order", o.ID), slog.String("event", string(ev.Kind)), slog.String("error", err.Error()))
		return false, &NotRecordedError{OrderID: o.ID, Err: err}
	}
	return stale, err
}

// beforeMoney turns a journal write failure before any money can move into
// ErrNotJournaled: nothing was sent, the cashier may take the payment again once
// the disk has space.
func beforeMoney(err error) error {
	if err != nil && errors.Is(err, errJournalWrite) {
		return fmt.Errorf("%w: %w", ErrNotJournaled, err)
	}
	return err
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

// dayOpen refuses work on a closed day.
func (e *engineCore) dayOpen(ctx context.Context, day string) error {
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

// RecordPrint journals that an order's receipt was printed (first print or a
// reprint), or that printing failed with printErr. The sale stands either way. With
// p.Refund set it is the receipt of that refund, counted apart from the sale's.
func (e *Ledger) RecordPrint(ctx context.Context, orderID string, reprint bool, p PrintEvent, printErr error) error {
	o, err := e.order(ctx, orderID)
	if err != nil {
		return err
	}
	printed := o.Printed
	if p.Refund != "" {
		ref := o.RefundByID(p.Refund)
		if ref == nil {
			return fmt.Errorf("pos: record print of %q: no refund %q: %w", orderID, p.Refund, ErrOrderNotFound)
		}
		printed = ref.Printed
	}
	ev := Event{Kind: EvReceiptPrinted, Print: &p}
	switch {
	case printErr != nil:
		p.Error = printErr.Error()
		ev.Kind, ev.Reason = EvPrintFailed, p.Error
	case reprint || printed:
		ev.Kind = EvReceiptReprinted
	}
	_, err = e.commit(ctx, o, ev)
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
