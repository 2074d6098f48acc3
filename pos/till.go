package pos

import (
	"context"
	"errors"
	"fmt"
	"time"

	"galla/receipts"
)

// Till is the counter's use cases behind one value (DESIGN.md section 1), as
// go-github's Client holds its services: one service per capability over one
// shared core. The Checkout takes sales and their tenders, the Pending follows
// the payments not final, the IMEIs keeps each phone sold once, the Returns
// takes money back (returns, refunds, cancellations, credit notes), the Books
// keeps the day (orders, X and Z, day close), the Drawer the shifts and cash,
// the Crew the staff and manager approvals, the Shelf the catalog, cart
// pricing and held bills, the Setup the settings, the Customers the buyers, and
// the Documents the receipts, report slips and exports. Each is a named field
// and none is embedded: callers name the service they use
// (till.Drawer.OpenShift). The Till's own methods are only the facade's: the
// engine, the terminal's name, its clock, and the status bar. The window (ui)
// and the command line call the same services, so the same sale gives the same
// journal events from either front end. Its methods are safe for concurrent
// use; those that may touch the network, the journal or a printer take a
// context.
type Till struct {
	Drawer    *Drawer
	Crew      *Crew
	Shelf     *Shelf
	Setup     *Setup
	Customers *Customers
	Documents *Documents
	Checkout  *Checkout
	Pending   *Pending
	IMEIs     *IMEIs
	Returns   *Returns
	Books     *Books
	// EInvoices registers the B2B documents with the IRP (einvoice.go).
	EInvoices *EInvoices
	// Stock keeps the goods received and on hand (stock.go).
	Stock *Stock

	c *core // the state the services share; the facade's own methods read it
}

// CatalogStore keeps the catalog last imported; pos/journal implements it.
type CatalogStore interface {
	// Catalog returns the catalog last imported, or nil when none was.
	Catalog(ctx context.Context) (*Catalog, error)
	// PutCatalog journals cat as imported by staff.
	PutCatalog(ctx context.Context, cat *Catalog, staff string) error
}

// Backuper writes the hot backup of the journal taken at day close (DESIGN.md
// section 4); pos/journal implements it.
type Backuper interface {
	// BackupDay writes the backup of day and returns its path.
	BackupDay(day string) (string, error)
}

// PhoneOrder is what the page on the customer's phone needs of an order.
type PhoneOrder struct {
	Token  string // the order's token for the checkout script
	Amount Paise
	Shop   string // the shop's name, shown on the page
}

// PhonePage serves the page the customer's phone opens to pay (DESIGN.md section 2,
// "Pay on the customer's phone"); internal/phonepage implements it.
type PhonePage interface {
	// Start starts serving unless it serves, or says why it cannot; it is asked
	// before the order is created.
	Start() error
	// Offer serves order id's page and returns its address (the QR code's text).
	Offer(id string, o PhoneOrder) string
	// Withdraw stops serving order id's page.
	Withdraw(id string)
}

// AuthPages publishes the live service's authentication (3-D Secure) page for the
// customer and returns the address to open it at.
type AuthPages interface {
	Publish(orderID, content string) (string, error)
}

// ServiceSettings is what the terminal's configuration holds of the payment
// service and the phone page, as the settings screen edits it.
type ServiceSettings struct {
	BaseURL     string // the live service; "" is the embedded sandbox
	MerchantID  string
	AccessCode  string
	Secret      string // only to set it; never read back for the screen
	SecretSet   bool   // a secret is stored
	PhoneListen string // host:port of the phone page; "" this computer only
	// SecretsWhere says where the secrets are kept ("the system keyring", or the
	// fallback file readable by this user only), for Settings; read only.
	SecretsWhere string
}

// ServiceConfig reads and writes the configuration file's service settings;
// internal/config implements it.
type ServiceConfig interface {
	ServiceSettings() ServiceSettings
	// Check refuses settings that SaveServiceSettings would refuse (a base URL
	// that is not https://, loopback aside), without storing anything.
	Check(s ServiceSettings) error
	// SaveServiceSettings stores s; an empty Secret keeps the stored one, and so
	// does the access code sent back as ServiceSettings shows it (masked).
	SaveServiceSettings(s ServiceSettings) error
}

// TillConfig is what NewTill needs. Engine is required; the ports left nil turn
// off what needs them, with a sentence when it is asked for.
type TillConfig struct {
	Engine *Engine
	// Catalogs keeps the imported catalog; SampleCatalog (JSON) is sold from
	// when none was imported.
	Catalogs      CatalogStore
	SampleCatalog []byte
	// HSN keeps the HSN list the shop loaded (galla hsn import); nil checks
	// HSN codes without one.
	HSN HSNFiles
	// Health is the journal's startup check when it runs in the background; nil
	// means it passed before NewTill.
	Health  JournalHealth
	Backups Backuper
	// Printers opens a receipt printer; nil means receipts.NewPrinter.
	Printers func(receipts.Profile) (receipts.Printer, error)
	// Renderer draws PNG and PDF documents; nil makes one on first use.
	Renderer *receipts.Renderer
	// QRKey signs the documents' QR codes; nil prints none.
	QRKey []byte
	// Terminal names the terminal on documents ("T1").
	Terminal string
	// Live is true when the payment service is the live one, false for the
	// embedded sandbox (whose authentication step the terminal completes itself).
	Live bool
	// Phone serves the page for pay on the customer's phone.
	Phone PhonePage
	// AuthPages publishes the live authentication page; nil reports the form's
	// address instead.
	AuthPages AuthPages
	// Service reads and writes the service settings of the configuration file.
	Service ServiceConfig
	// Store is the link to the store server; nil when the terminal is not enrolled.
	Store StoreLink
	// GatewayHold is the sentence that refuses card, EMI and pay-on-phone
	// payments while the live service's address or credentials are not the
	// ones a manager approved on this counter; "" when none is needed (the
	// embedded sandbox, or the approved service). Cash, UPI and credit notes
	// are taken as ever. The status bar shows it (TillStatus.Gateway).
	GatewayHold string
	// IRP is the Invoice Registration Portal the B2B documents of an
	// e-invoicing shop are registered with (einvoice.go); nil leaves them IRN
	// pending.
	IRP IRP
}

// NewTill builds the till over an engine: it loads the discount policy and the
// catalog.
func NewTill(ctx context.Context, cfg TillConfig) (*Till, error) {
	if cfg.Engine == nil {
		return nil, errors.New("pos: new till: no engine")
	}
	c := newCore(cfg)
	t := &Till{c: c, Drawer: c.drawer, Crew: c.crew, Shelf: c.shelf, Setup: c.setup, Customers: c.customers, Documents: c.docs,
		Checkout: c.checkout, Pending: c.pending, IMEIs: c.imeis, Returns: c.returns, Books: c.books, EInvoices: c.einv, Stock: c.stock}
	if t.c.prn == nil {
		t.c.prn = receipts.NewPrinter
	}
	if cfg.Terminal == "" {
		t.c.cfg.Terminal = "T1"
	}
	if err := CheckTerminal(t.c.cfg.Terminal); err != nil { // document numbers stay within 16 characters
		return nil, err
	}
	// A split sale's credit-note tender spends this counter's notes: the
	// engine is given the Returns' ledger as its port, and the name its notes
	// are numbered under.
	t.c.eng.StoreDesk.useNotes(noteLedger{c.returns}, t.c.cfg.Terminal)
	d, err := LoadDiscountPolicy(ctx, t.c.j)
	if err != nil {
		return nil, err
	}
	t.c.discount = d
	// The payments an earlier run left pending are followed up from now on, so
	// that one the reconciler resolves at start raises its notice too.
	if un, err := t.c.j.Unresolved(ctx); err == nil {
		t.c.pending.watch(un)
	}
	return t, nil
}

// Engine returns the checkout engine under the till.
func (t *Till) Engine() *Engine { return t.c.eng }

// Terminal returns the terminal's name as documents print it.
func (t *Till) Terminal() string { return t.c.cfg.Terminal }

// Live reports whether the till takes payments through the live service.
func (t *Till) Live() bool { return t.c.live }

// Now returns the till's time.
func (t *Till) Now() time.Time { return t.c.eng.Now() }

// TillStatus is what the status bar shows.
type TillStatus struct {
	Live   bool // the live payment service; false means the embedded sandbox
	Online bool // the payment service answered recently
	// Unknown counts the payments whose outcome is really not known: left
	// pending after their payment call ended (Pending, with Check now), or a
	// refund whose answer is not in.
	Unknown int
	// InProgress counts the payments whose call is still running (the order
	// being created, the customer authenticating, the service being polled) or
	// that no payment was sent on yet: not unknown, only not final.
	InProgress int
	// Checking is true while the journal's startup check (bbolt's and the hash
	// chain's) still runs; payments wait for it.
	Checking bool
	// Damaged is the sentence (naming the last backup) of a journal that failed
	// its startup check, "" when it passed or still runs: payments are stopped.
	Damaged string
	// Pending lists the payments left pending that no payment call waits for
	// (a cancelled authentication step, a screen left, a restart): the status
	// bar names them with "Check now".
	Pending []PendingPayment
	// Store is how the link to the store server stands (till_store.go).
	Store StoreStatus
	// Gateway is the sentence of a live service no manager approved on this
	// counter (TillConfig.GatewayHold): card payments are refused until one does.
	Gateway string
}

// Status returns the gateway mode, whether the service answers, how many payments
// are unknown and how the journal's check stands.
func (t *Till) Status(ctx context.Context) TillStatus {
	st := TillStatus{Live: t.c.live, Online: true}
	if st.Live {
		t.c.mu.Lock()
		st.Online = t.c.lastErr.IsZero() || time.Since(t.c.lastErr) > time.Minute
		t.c.mu.Unlock()
	}
	if un, err := t.c.j.Unresolved(ctx); err == nil {
		st.Pending = t.c.pending.watch(un)
		st.Unknown = len(st.Pending)
		st.InProgress = len(un) - st.Unknown
	}
	if t.c.cfg.Health != nil {
		switch done, err := t.c.cfg.Health.Verified(); {
		case !done:
			st.Checking = true
		case err != nil:
			st.Damaged = Sentence(err)
		}
	}
	t.c.mu.Lock()
	if t.c.fullCheck != nil && st.Damaged == "" {
		st.Damaged = Sentence(t.c.fullCheck)
	}
	t.c.mu.Unlock()
	st.Store = t.StoreStatus()
	st.Gateway = t.c.cfg.GatewayHold
	return st
}

// sentenceErr is an error that is its own sentence for the cashier.
type sentenceErr string

func (e sentenceErr) Error() string    { return string(e) }
func (e sentenceErr) Sentence() string { return string(e) }

// Errorf returns an error whose text is the sentence the cashier reads.
func Errorf(format string, a ...any) error { return sentenceErr(fmt.Sprintf(format, a...)) }

// sentenceWrap is a sentence for the cashier that matches err with errors.Is.
type sentenceWrap struct {
	sentence string
	err      error
}

func (e sentenceWrap) Error() string    { return e.sentence }
func (e sentenceWrap) Sentence() string { return e.sentence }
func (e sentenceWrap) Unwrap() error    { return e.err }

// wrapf returns the sentence of format as an error matching err.
func wrapf(err error, format string, a ...any) error {
	return sentenceWrap{sentence: fmt.Sprintf(format, a...), err: err}
}
