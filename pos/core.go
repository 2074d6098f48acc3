package pos

import (
	"context"
	"encoding/json"
	"errors"
	"sync"
	"time"

	"galla/gateway"
	"galla/pos/hsn"
	"galla/receipts"
)

// core is the state the till's services share: the engine and its journal, the
// till's configuration, the renderer and the printer, the maps guarded by mu,
// the book of the counter's own records and the member signed in. Each service
// holds the one core of its till, and reaches another capability through the
// core's pointer to that service, never through the Till.
type core struct {
	eng  *Engine
	ec   *engineCore // the engine's ids, locks, commit and gates, which the services share
	j    Journal
	cfg  TillConfig
	rd   *receipts.Renderer
	prn  func(receipts.Profile) (receipts.Printer, error)
	live bool

	mu        sync.Mutex
	cat       *Catalog
	discount  DiscountPolicy
	approvers map[string]Staff // managers whose PIN Authorize checked, by name
	otps      map[string]chan string
	lastErr   time.Time
	fullCheck error                   // the full check at the last day close found damage
	wrongPINs int                     // wrong manager PINs in a row at this till (MaxOverrideAttempts)
	inFlight  map[string]bool         // orders a Pay call is acting on
	follow    map[string]*followState // orders left pending, followed up until final (pending.go)
	// emiSales are the sales CheckEMIOrder opened for one EMI tender, by the
	// tender's order: going back before the card drops the sale with it.
	emiSales map[string]string
	// hsnList is the HSN list the shop loaded, read on first use, and
	// hsnSum its SHA-256 as journaled (hsn_list.go).
	hsnList *hsn.Master
	hsnSum  string

	bk book      // shifts and held bills, derived from the journal's events (shift.go)
	ib book      // the IMEIs sold and freed, derived likewise (imeis.go)
	sb stockBook // the stock on hand, derived likewise (stock_book.go)
	// signed is the member signed in at this till (the window), whose own
	// limits apply to discounts and refunds (crew.go); nil on the command
	// line.
	signed *Staff

	// The till's services, each holding this core.
	drawer    *Drawer
	crew      *Crew
	shelf     *Shelf
	setup     *Setup
	customers *Customers
	docs      *Documents
	checkout  *Checkout
	pending   *Pending
	imeis     *IMEIs
	returns   *Returns
	books     *Books
	einv      *EInvoices
	stock     *Stock
}

// newCore is the core of a till configured by cfg, with its services, before
// NewTill checks and loads what it needs.
func newCore(cfg TillConfig) *core {
	c := &core{eng: cfg.Engine, ec: cfg.Engine.core, j: cfg.Engine.Journal(), cfg: cfg, rd: cfg.Renderer, prn: cfg.Printers, live: cfg.Live,
		approvers: map[string]Staff{}, otps: map[string]chan string{}, inFlight: map[string]bool{}, follow: map[string]*followState{},
		emiSales: map[string]string{}}
	c.drawer, c.crew, c.shelf, c.setup, c.customers, c.docs = &Drawer{c}, &Crew{c}, &Shelf{c}, &Setup{c}, &Customers{c}, &Documents{c}
	c.checkout, c.pending, c.imeis, c.returns, c.books = &Checkout{c}, &Pending{c}, &IMEIs{c}, &Returns{c}, &Books{c}
	c.einv = &EInvoices{c: c, port: cfg.IRP}
	c.stock = &Stock{c}
	c.ib.imeiPart = true
	return c
}

// audit journals an audit event (sign-in, sign-out, override, settings) at the
// till's time. It carries no business day: a closed day never stops staff from
// signing in or a manager from changing the settings.
func (c *core) audit(ctx context.Context, ev Event) error {
	ev.V, ev.Time = EventVersion, c.eng.Now()
	_, err := c.j.Append(ctx, ev)
	return err
}

// staffName is the name of the member of staff whose id the journal recorded (a
// refund records its manager's id), or the id itself when there is no such member.
func (c *core) staffName(ctx context.Context, id string) string {
	if id == "" {
		return ""
	}
	if s, err := c.j.Get(ctx, id); err == nil && s.Name != "" {
		return s.Name
	}
	return id
}

// saveSetting journals one setting as JSON, changed by the manager of id by. A
// change of the shop is dated in its registration history first, so that
// documents issued before it are reprinted as they were (ShopAt).
func (c *core) saveSetting(ctx context.Context, by, key string, v any) error {
	raw, err := json.Marshal(v)
	if err != nil {
		return err
	}
	if shop, ok := v.(Shop); ok && key == SettingShop {
		if err := c.recordRegistration(ctx, by, shop); err != nil {
			return err
		}
	}
	return c.audit(ctx, Event{Kind: EvSettingsChanged, Staff: by, Setting: &Setting{Key: key, Value: raw}})
}

// shiftBook returns the book caught up with the journal, locked; the caller
// unlocks b.mu.
func (c *core) shiftBook(ctx context.Context) (*book, error) {
	b := &c.bk
	b.mu.Lock()
	if err := b.catchUp(ctx, c.j); err != nil {
		b.mu.Unlock()
		return nil, err
	}
	return b, nil
}

// noteErr remembers when the service last failed to answer, for the status bar.
func (c *core) noteErr(err error) {
	var ge *gateway.Error
	if errors.Is(err, gateway.ErrOutcomeUnknown) || errors.Is(err, gateway.ErrServer) || (err != nil && !errors.As(err, &ge)) {
		c.mu.Lock()
		c.lastErr = time.Now()
		c.mu.Unlock()
	}
}
