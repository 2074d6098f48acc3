package pos

import (
	"context"
	"crypto/rand"
	"errors"
	"io"
	"log/slog"
	"net/url"
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

// Engine is the payment engine under the till: it journals and drives payments,
// sales and their tenders, refunds and cancellations, the store's decisions and
// the day's books. As go-github's Client holds its services, it holds one part
// per capability over one shared core: the Payments take one order's payment, the
// Sales keep a sale and its tenders, the Refunds give money back, the StoreDesk
// asks the store what is decided store-wide, and the Ledger keeps the day. Each is
// a named field and none is embedded: callers name the part they use
// (eng.Payments.PayCard). The Engine's own methods are only the facade's: the
// journal, the roster, the clock, the business day, an order, and the payments
// held unrecorded. One payment is in flight per order at a time: the checkout,
// the poller and the reconciler never act on one order at once. Its methods and
// its parts' are safe for concurrent use.
type Engine struct {
	Payments  *Payments
	Sales     *Sales
	Refunds   *Refunds
	StoreDesk *StoreDesk
	Ledger    *Ledger

	core *engineCore // the state the parts share; the facade's own methods read it
}

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
