package pos

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strconv"
	"time"

	"galla/gateway"
	"galla/receipts"
)

// Till is the counter's use cases behind one type (DESIGN.md section 1): selling,
// paying by each tender, authentication, reconciliation, refunds, printing
// decisions, settings, discounts and their approval, staff, day close and pay on
// the customer's phone. The window (ui) and the command line call the same
// methods, so the same sale gives the same journal events from either front end.
// Its methods are safe for concurrent use; those that may touch the network, the
// journal or a printer take a context.
type Till struct {
	*core
	*Drawer
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
}

// NewTill builds the till over an engine: it loads the discount policy and the
// catalog.
func NewTill(ctx context.Context, cfg TillConfig) (*Till, error) {
	if cfg.Engine == nil {
		return nil, errors.New("pos: new till: no engine")
	}
	c := newCore(cfg)
	t := &Till{core: c, Drawer: c.drawer}
	if t.prn == nil {
		t.prn = receipts.NewPrinter
	}
	if t.eng.cfg.Notes == nil {
		t.eng.cfg.Notes = tillNotes{t} // a split sale's credit-note tender spends this till's notes
	}
	if cfg.Terminal == "" {
		t.cfg.Terminal = "T1"
	}
	if err := CheckTerminal(t.cfg.Terminal); err != nil { // document numbers stay within 16 characters
		return nil, err
	}
	d, err := LoadDiscountPolicy(ctx, t.j)
	if err != nil {
		return nil, err
	}
	t.discount = d
	// The payments an earlier run left pending are followed up from now on, so
	// that one the reconciler resolves at start raises its notice too.
	if un, err := t.j.Unresolved(ctx); err == nil {
		t.watch(un)
	}
	return t, nil
}

// Engine returns the checkout engine under the till.
func (t *Till) Engine() *Engine { return t.eng }

// Terminal returns the terminal's name as documents print it.
func (t *Till) Terminal() string { return t.cfg.Terminal }

// Live reports whether the till takes payments through the live service.
func (t *Till) Live() bool { return t.live }

// Now returns the till's time.
func (t *Till) Now() time.Time { return t.eng.Now() }

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
}

// Status returns the gateway mode, whether the service answers, how many payments
// are unknown and how the journal's check stands.
func (t *Till) Status(ctx context.Context) TillStatus {
	st := TillStatus{Live: t.live, Online: true}
	if st.Live {
		t.mu.Lock()
		st.Online = t.lastErr.IsZero() || time.Since(t.lastErr) > time.Minute
		t.mu.Unlock()
	}
	if un, err := t.j.Unresolved(ctx); err == nil {
		st.Pending = t.watch(un)
		st.Unknown = len(st.Pending)
		st.InProgress = len(un) - st.Unknown
	}
	if t.cfg.Health != nil {
		switch done, err := t.cfg.Health.Verified(); {
		case !done:
			st.Checking = true
		case err != nil:
			st.Damaged = Sentence(err)
		}
	}
	t.mu.Lock()
	if t.fullCheck != nil && st.Damaged == "" {
		st.Damaged = Sentence(t.fullCheck)
	}
	t.mu.Unlock()
	st.Store = t.StoreStatus()
	return st
}

// noteErr remembers when the service last failed to answer, for the status bar.
func (t *Till) noteErr(err error) {
	var ge *gateway.Error
	if errors.Is(err, gateway.ErrOutcomeUnknown) || errors.Is(err, gateway.ErrServer) || (err != nil && !errors.As(err, &ge)) {
		t.mu.Lock()
		t.lastErr = time.Now()
		t.mu.Unlock()
	}
}

// Reconcile resolves every payment whose outcome is not final (DESIGN.md section 2,
// "Restart").
func (t *Till) Reconcile(ctx context.Context) (*ReconcileReport, error) {
	rep, err := t.eng.Reconcile(ctx)
	if err != nil {
		t.noteErr(err)
	}
	return rep, err
}

// StaffMember is one person who may sign in, as the screens show them.
type StaffMember struct {
	ID   string
	Name string
	Role Role
	// MustChangePIN is a manager signed in with a PIN shorter than
	// MinManagerPINLength, set before that rule: they change it
	// (ChangeOwnPIN) before going on.
	MustChangePIN bool
	// Limits are a cashier's own discount and refund limits, nil when none.
	Limits *StaffLimits
}

// Manager reports whether s may approve refunds, discounts, day close and settings.
func (s StaffMember) Manager() bool { return s.Role == RoleManager }

func memberOf(s Staff) StaffMember {
	return StaffMember{ID: s.ID, Name: s.Name, Role: s.Role, Limits: s.Limits}
}

// Refunds reports whether s may give refunds in the journal screen: a manager,
// or a cashier a manager gave a refund limit.
func (s StaffMember) Refunds() bool {
	return s.Manager() || s.Limits != nil && s.Limits.Refund > 0
}

// Staff lists who may sign in; an empty list means a fresh journal.
func (t *Till) Staff(ctx context.Context) ([]StaffMember, error) {
	list, err := t.j.List(ctx)
	if err != nil {
		return nil, err
	}
	out := make([]StaffMember, 0, len(list))
	for _, s := range list {
		out = append(out, memberOf(s))
	}
	return out, nil
}

// AddStaff adds a member with a PIN; the first member must be a manager.
func (t *Till) AddStaff(ctx context.Context, name string, role Role, pin string) error {
	_, err := t.eng.Roster().AddStaff(ctx, name, role, pin)
	return err
}

// AddStaffBy adds a member with a PIN on a manager's authority: managerPIN is
// checked once staff exist (the first member needs none). It returns the new
// member.
func (t *Till) AddStaffBy(ctx context.Context, name string, role Role, pin, managerPIN string) (StaffMember, error) {
	all, err := t.j.List(ctx)
	if err != nil {
		return StaffMember{}, err
	}
	if len(all) > 0 {
		if _, err := t.authorise(ctx, managerPIN); err != nil {
			return StaffMember{}, err
		}
	}
	s, err := t.eng.Roster().AddStaff(ctx, name, role, pin)
	if err != nil {
		return StaffMember{}, err
	}
	return memberOf(s), nil
}

// HasStaff reports whether any member of staff exists, so that a manager's PIN is
// needed to add one.
func (t *Till) HasStaff(ctx context.Context) (bool, error) {
	all, err := t.j.List(ctx)
	return len(all) > 0, err
}

// SignIn checks name's PIN and journals the sign-in, or the refusal, with the
// member's id (never the PIN). A sign-in the journal cannot record is refused.
func (t *Till) SignIn(ctx context.Context, name, pin string) (StaffMember, error) {
	list, err := t.j.List(ctx)
	if err != nil {
		return StaffMember{}, err
	}
	for _, s := range enabledFirst(list) {
		if s.Name == name {
			got, err := t.eng.Roster().SignIn(ctx, s.ID, pin, t.eng.Now())
			if err != nil {
				reason := "wrong PIN"
				if errors.Is(err, ErrLocked) {
					reason = "locked"
				}
				if aerr := t.audit(ctx, Event{Kind: EvStaffSignInFail, Staff: s.ID, Reason: reason}); aerr != nil {
					return StaffMember{}, errors.Join(err, aerr)
				}
				return StaffMember{}, err
			}
			if err := t.audit(ctx, Event{Kind: EvStaffSignIn, Staff: got.ID, Extra: map[string]string{"role": string(got.Role)}}); err != nil {
				return StaffMember{}, err
			}
			if got.Role == RoleManager {
				_ = t.counted(nil) // a manager at this till lifts the stop on wrong manager PINs
			}
			t.setSigned(got)
			m := memberOf(*got)
			m.MustChangePIN = got.Role == RoleManager && len(pin) < MinManagerPINLength
			return m, nil
		}
	}
	return StaffMember{}, ErrUnknownStaff
}

// ChangeOwnPIN sets name's PIN to newPIN once oldPIN is checked as at a sign-in
// (a wrong one counts towards the lock); a manager's new PIN has at least
// MinManagerPINLength digits. It returns the member, signed in.
func (t *Till) ChangeOwnPIN(ctx context.Context, name, oldPIN, newPIN string) (StaffMember, error) {
	s, err := t.member(ctx, name)
	if err != nil {
		return StaffMember{}, err
	}
	if err := CheckRolePIN(s.Role, newPIN); err != nil {
		return StaffMember{}, err
	}
	r := t.eng.Roster()
	got, err := r.SignIn(ctx, s.ID, oldPIN, t.eng.Now())
	if err != nil {
		return StaffMember{}, err
	}
	if err := r.ChangePIN(ctx, got.ID, newPIN); err != nil {
		return StaffMember{}, err
	}
	return memberOf(*got), nil
}

// SignOut journals that m signed out: the screen was locked by hand, or left
// idle when idle is true.
func (t *Till) SignOut(ctx context.Context, m StaffMember, idle bool) error {
	if m.ID == "" {
		return nil // nobody was signed in
	}
	reason := "locked"
	if idle {
		reason = "idle"
	}
	t.setSigned(nil)
	return t.audit(ctx, Event{Kind: EvStaffSignOut, Staff: m.ID, Reason: reason})
}

// OverrideDiscount is Override.What for a line discount above the limit.
const OverrideDiscount = "discount"

// Override is what a manager's PIN approves, as the journal records it.
type Override struct {
	What   string // OverrideDiscount
	SKU    string // the line's product
	Amount Paise  // the discount approved
	// By is the staff id of the member who asked (signed in at the counter).
	By string
}

// Authorize returns the manager whose PIN pin is, for the override o, and
// journals the approval with the manager's id; a discount the manager approves
// by name counts from then on. An approval the journal cannot record counts for
// nothing.
func (t *Till) Authorize(ctx context.Context, pin string, o Override) (StaffMember, error) {
	m, err := t.authorise(ctx, pin)
	if err != nil {
		return StaffMember{}, err
	}
	extra := map[string]string{"what": o.What}
	for k, v := range map[string]string{"sku": o.SKU, "by": o.By} {
		if v != "" {
			extra[k] = v
		}
	}
	if o.Amount != 0 {
		extra["amount"] = strconv.FormatInt(int64(o.Amount), 10) // paise, as every amount in the journal
	}
	if err := t.audit(ctx, Event{Kind: EvOverride, Staff: m.ID, Extra: extra}); err != nil {
		return StaffMember{}, err
	}
	t.mu.Lock()
	t.approvers[m.Name] = Staff{ID: m.ID, Name: m.Name, Role: m.Role}
	t.mu.Unlock()
	return memberOf(*m), nil
}

// Catalog returns the catalog last imported, or the sample catalog.
func (t *Till) Catalog(ctx context.Context) (*Catalog, error) {
	t.mu.Lock()
	cat := t.cat
	t.mu.Unlock()
	if cat != nil {
		return cat, nil
	}
	var err error
	if t.cfg.Catalogs != nil {
		cat, err = t.cfg.Catalogs.Catalog(ctx)
		if err != nil {
			return nil, err
		}
	}
	if cat == nil {
		if cat, err = LoadCatalogJSON(t.cfg.SampleCatalog); err != nil {
			return nil, err
		}
	}
	t.mu.Lock()
	t.cat = cat
	t.mu.Unlock()
	return cat, nil
}

// ImportCatalogBy imports a catalog as ImportCatalog does, on a manager's
// authority once staff exist: managerPIN must be a manager's, and the import is
// journaled with that manager's id (the window's rule for what changes prices).
// Before any member exists there is nobody to ask, as for the first member.
func (t *Till) ImportCatalogBy(ctx context.Context, r io.Reader, json bool, managerPIN string) (*Catalog, error) {
	staff, err := t.managerOnceStaffExist(ctx, managerPIN)
	if err != nil {
		return nil, err
	}
	return t.ImportCatalog(ctx, r, json, staff)
}

// managerOnceStaffExist returns the id of the manager whose PIN pin is, or ""
// when no member of staff exists yet.
func (t *Till) managerOnceStaffExist(ctx context.Context, pin string) (string, error) {
	has, err := t.HasStaff(ctx)
	if err != nil || !has {
		return "", err
	}
	m, err := t.authorise(ctx, pin)
	if err != nil {
		return "", err
	}
	return m.ID, nil
}

// ImportCatalog reads a catalog (CSV, or JSON when json is true) and journals it as
// imported by staff; it is sold from at once.
func (t *Till) ImportCatalog(ctx context.Context, r io.Reader, json bool, staff string) (*Catalog, error) {
	if t.cfg.Catalogs == nil {
		return nil, errors.New("pos: import catalog: no catalog store")
	}
	var (
		cat *Catalog
		err error
	)
	if json {
		cat, err = ImportJSON(r)
	} else {
		cat, err = ImportCSV(r)
	}
	if err != nil {
		if !errors.Is(err, ErrBadCatalog) {
			err = fmt.Errorf("%w: %w", ErrBadCatalog, err)
		}
		return nil, err
	}
	shop, err := LoadShop(ctx, t.j)
	if err != nil {
		return nil, err
	}
	if err := cat.CheckRates(shop.RateList()); err != nil {
		return nil, err
	}
	if err := t.cfg.Catalogs.PutCatalog(ctx, cat, staff); err != nil {
		return nil, err
	}
	t.mu.Lock()
	t.cat = cat
	t.mu.Unlock()
	return cat, nil
}

// Search finds products whose name, code or barcode matches q, as typed.
func (t *Till) Search(q string, limit int) []Product {
	cat, err := t.Catalog(context.Background())
	if err != nil {
		return nil
	}
	return cat.Search(q, limit)
}

// Lookup finds the product whose barcode or SKU is exactly code.
func (t *Till) Lookup(code string) (Product, bool) {
	cat, err := t.Catalog(context.Background())
	if err != nil {
		return Product{}, false
	}
	return cat.Lookup(code)
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

// MaxOverrideAttempts is how many wrong manager PINs in a row one till (one
// window, one command) takes before it asks for none until a manager signs in
// there: a PIN that matches no manager locks no manager out (Roster), so the
// guessing is stopped here instead.
const MaxOverrideAttempts = 5

// ErrTooManyOverrides refuses a manager's PIN after MaxOverrideAttempts wrong
// ones at this till.
var ErrTooManyOverrides = sentenceError{"too many wrong manager PINs at this counter",
	"Too many wrong manager PINs at this counter: a manager must sign in here before another manager's PIN is taken."}

// gate refuses a manager's PIN while this till has had too many wrong ones.
func (t *Till) gate() error {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.wrongPINs >= MaxOverrideAttempts {
		return ErrTooManyOverrides
	}
	return nil
}

// counted counts err of a manager's PIN: a wrong PIN adds one, a right one
// clears the count.
func (t *Till) counted(err error) error {
	t.mu.Lock()
	defer t.mu.Unlock()
	switch {
	case errors.Is(err, ErrWrongPIN):
		t.wrongPINs++
	case err == nil:
		t.wrongPINs = 0
	}
	return err
}

// authorise finds the manager whose PIN pin is, within this till's limit of wrong
// manager PINs.
func (t *Till) authorise(ctx context.Context, pin string) (*Staff, error) {
	if err := t.gate(); err != nil {
		return nil, err
	}
	m, err := t.eng.Roster().AuthoriseManager(ctx, pin, t.eng.Now())
	return m, t.counted(err)
}

// ManagerByPIN returns the manager whose PIN pin is, within this till's limit of
// wrong manager PINs: the command line acts on a manager's authority.
func (t *Till) ManagerByPIN(ctx context.Context, pin string) (StaffMember, error) {
	m, err := t.authorise(ctx, pin)
	if err != nil {
		return StaffMember{}, err
	}
	return memberOf(*m), nil
}
