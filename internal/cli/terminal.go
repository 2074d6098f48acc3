package cli

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"path/filepath"
	"strings"

	"galla/assets"
	"galla/gateway"
	"galla/gateway/sandbox"
	"galla/internal/config"
	"galla/internal/phonepage"
	"galla/pos"
	"galla/pos/journal"
	"galla/store/link"
)

// The files of the data directory that the command line names.
const (
	journalFile = config.JournalFile
	configFile  = config.File
	sandboxFile = config.SandboxFile
)

// terminal is the composition of one data directory: the configuration, the
// journal, the payment service and the till built over them. The front ends use
// its Till; the rest is kept to close it.
type terminal struct {
	*pos.Till
	c       *cli
	cfg     *config.Store
	ps      paymentService
	j       *journal.Journal
	eng     *pos.Engine
	phone   *phonepage.Lazy
	checked chan struct{} // closed when the journal's startup check is over (the window)
	stop    func()
	sec     *config.Secrets
	link    *link.Link // the window's link to its store; nil when not enrolled
}

// openTerminal opens the journal and the payment service and builds pos. The
// journal is verified (bbolt's check and the hash chain) before it returns, unless
// window: then the check runs in the background, the engine's payments wait for it
// and the status bar shows it (DESIGN.md section 4).
func openTerminal(c *cli, window bool) (*terminal, error) {
	return openTerminalWith(c, window, journal.CreateIfUnused)
}

// openTerminalWith is openTerminal with the journal's creation rule: a command that
// only reads passes journal.CreateNever. Its errors keep their kind (errors.Is
// against the journal's) and carry the sentence to print (pos.Sentence).
func openTerminalWith(c *cli, window bool, create journal.CreateMode) (*terminal, error) {
	sec := config.OpenSecrets(c.dataDir, c.keyring)
	cfg, err := config.Load(c.dataDir, c.getenv, c.gatewayURL, sec)
	if err != nil {
		return nil, err
	}
	chainKey, err := journalKey(c, sec)
	if err != nil {
		return nil, err
	}
	// The journal first: its lock keeps a second process from loading the
	// embedded sandbox's state while this one may still change it.
	j, err := journal.Open(filepath.Join(c.dataDir, journalFile), journal.Options{DeferVerify: window, Create: create, ChainKey: chainKey, AppVersion: buildInfo().Version})
	if err != nil {
		return nil, err
	}
	t := &terminal{c: c, cfg: config.NewStore(c.dataDir, cfg, sec), j: j, checked: make(chan struct{}), stop: func() {}, sec: sec}
	if t.ps, err = openPaymentService(cfg.Gateway, c.dataDir); err != nil {
		_ = j.Close()
		return nil, err
	}
	key, err := sec.QRKey()
	if err != nil {
		_ = j.Close()
		return nil, fmt.Errorf("the key that signs the receipts' QR codes cannot be read or made (%v); check the system keyring, or the permissions of %s", err, c.dataDir)
	}
	// A live service whose address or credentials are not the ones a manager
	// approved on this counter takes no card data, and is sent nothing at all
	// (gateway.go); the change is journaled once the journal is known sound.
	hold, err := gatewayHold(context.Background(), j.Shop, cfg.Gateway)
	if err != nil {
		_ = j.Close()
		return nil, err
	}
	pcfg := pos.Config{
		Journal:  j.Port(),
		Gateway:  t.ps.client,
		Terminal: cfg.Terminal,
		Customer: pos.Customer{CountryCode: "91", Mobile: "9999999999", Email: "counter@galla.local"},
		Clock:    c.clock,
	}
	if hold != "" && t.ps.live() {
		pcfg.Gateway = heldGateway{hold: hold}
	}
	if pcfg.PINPepper, err = sec.Key(config.SecretPINPepper, 32); err != nil {
		_ = j.Close()
		return nil, fmt.Errorf("the PIN key cannot be read or made (%v); check the system keyring", err)
	}
	if pcfg.StorePINPepper, err = acceptedStorePepper(cfg, sec, j.Shop); err != nil {
		_ = j.Close()
		return nil, err
	}
	if t.ps.live() {
		pcfg.GatewayID = "live " + cfg.Gateway.BaseURL + " merchant " + cfg.Gateway.MerchantID
	} else {
		pcfg.GatewayID = pos.GatewaySandbox
	}
	if window {
		pcfg.Health = j.Log
	}
	if t.eng, err = pos.New(pcfg); err != nil {
		_ = j.Close()
		return nil, err
	}
	t.phone = phonepage.NewLazy(func() phonepage.Options {
		c := t.cfg.Config()
		o := phonepage.Options{Listen: c.PhonePage.Listen, ScriptURL: c.Gateway.CheckoutScriptURL}
		if !t.ps.live() {
			o.Sandbox = t.ps.sandbox
		}
		return o
	})
	tc := pos.TillConfig{Engine: t.eng, Catalogs: j.Shop, SampleCatalog: assets.SampleCatalog(), Backups: j.Archive, QRKey: key,
		Terminal: cfg.Terminal, Live: t.ps.live(), Phone: t.phone, Service: t.cfg, HSN: hsnFile{filepath.Join(c.dataDir, hsnFileName)}}
	// B2B documents of an e-invoicing shop are registered with the IRP: the live
	// one whose access the keyring keeps, else the embedded sandbox; opened when
	// a document is first registered, looked up or cancelled.
	if shop, err := pos.LoadShop(context.Background(), j.Port()); err == nil {
		tc.IRP = &lazyIRP{gstin: shop.GSTIN, stderr: c.stderr, open: func() (pos.IRP, error) {
			p, _, err := openIRP(sec, c.dataDir, shop.GSTIN, t.eng.Now)
			return p, err
		}}
	}
	tc.GatewayHold = hold
	noteChange := func() {
		if tc.GatewayHold != "" && create != journal.CreateNever {
			if err := noteGatewayChange(context.Background(), j.Log, j.Shop, cfg.Gateway, t.eng.Now()); err != nil {
				fmt.Fprintln(c.stderr, "galla: the change of the payment service cannot be journaled:", err)
			}
		}
	}
	stopSync := func() {}
	if window {
		tc.Health = j.Log
		tc.AuthPages = t.phone // from memory, on loopback: never written to disk
		if l, stop, err := startStoreLink(c, cfg, sec, j, t.checked, func() *pos.Till { return t.Till }); err == nil && l != nil {
			tc.Store, stopSync, t.link = l, stop, l
			t.eng.StoreDesk.SetDecisions(l) // an IMEI is reserved store-wide before a sale
		} else if err != nil {
			fmt.Fprintln(c.stderr, "galla: the store server link is off:", err)
		}
	} else if lc, ok, err := storeLinkConfig(context.Background(), c, cfg, sec, j); err == nil && ok {
		// A command-line sale of an enrolled terminal asks the store too (a store
		// no manager accepted answers as one offline: link.Config.Hold).
		if l, err := link.New(lc, j.Log); err == nil {
			t.eng.StoreDesk.SetDecisions(l)
		}
	}
	if t.Till, err = pos.NewTill(context.Background(), tc); err != nil {
		stopSync()
		_ = j.Close()
		return nil, err
	}
	if !window {
		noteChange()
		close(t.checked)
		return t, nil
	}
	vctx, stopCheck := context.WithCancel(context.Background())
	go func() {
		defer close(t.checked)
		// The result is kept by the journal (Verified) for the engine and the
		// status bar; a check stopped by closing leaves it unverified.
		if j.Log.Verify(vctx) == nil {
			noteChange()
		}
	}()
	irnDone := make(chan struct{})
	go func() { defer close(irnDone); registerPendingIRNs(vctx, t) }()
	t.stop = func() { stopSync(); stopCheck(); <-irnDone }
	return t, nil
}

// close stops the background check and the phone page and closes the journal.
func (t *terminal) close() {
	t.stop()
	<-t.checked
	_ = t.phone.Close()
	if t.ps.sandbox != nil {
		_ = t.ps.sandbox.Close()
	}
	if err := t.j.Changed(); err != nil && t.c.changed == nil {
		t.c.changed = err
	}
	_ = t.j.Close()
}

// paymentService is the gateway the terminal talks to, and the embedded sandbox when
// that is what it is.
type paymentService struct {
	client  *gateway.Client
	sandbox *sandbox.Sandbox // nil for the live service
}

// live reports whether the terminal talks to the live service.
func (p paymentService) live() bool { return p.sandbox == nil }

// openPaymentService builds the client: the embedded sandbox, keeping its state in
// dataDir, unless a base URL is configured, in which case the live credentials must
// all be present.
func openPaymentService(g config.Gateway, dataDir string, opts ...sandbox.Option) (paymentService, error) {
	if g.BaseURL == "" {
		opts = append([]sandbox.Option{sandbox.WithStateFile(filepath.Join(dataDir, sandboxFile))}, opts...)
		sb, err := sandbox.New(opts...)
		if err != nil {
			return paymentService{}, fmt.Errorf("the embedded sandbox cannot start: %w", err)
		}
		cl, err := gateway.New(gateway.Config{
			BaseURL:    config.EmbeddedBaseURL,
			MerchantID: sandbox.DefaultMerchantID,
			AccessCode: sandbox.DefaultAccessCode,
			Secret:     sandbox.DefaultSecret,
			ReturnURL:  config.EmbeddedBaseURL + "/return",
			HTTPClient: &http.Client{Transport: sb.Transport()},
		})
		if err != nil {
			return paymentService{}, err
		}
		return paymentService{client: cl, sandbox: sb}, nil
	}
	var missing []string
	if g.MerchantID == "" {
		missing = append(missing, "merchant id (GALLA_MERCHANT_ID)")
	}
	if g.AccessCode == "" {
		missing = append(missing, "access code (GALLA_ACCESS_CODE)")
	}
	if g.Secret == "" {
		missing = append(missing, "secret key (GALLA_SECRET_KEY)")
	}
	if len(missing) > 0 {
		return paymentService{}, fmt.Errorf("the live service at %s needs the %s; set them in %s or the environment", g.BaseURL, strings.Join(missing, ", "), configFile)
	}
	cl, err := gateway.New(gateway.Config{
		BaseURL:    g.BaseURL,
		MerchantID: g.MerchantID,
		AccessCode: g.AccessCode,
		Secret:     g.Secret,
		ReturnURL:  strings.TrimRight(g.BaseURL, "/") + "/return",
	})
	if err != nil {
		if errors.Is(err, gateway.ErrSecret) {
			return paymentService{}, fmt.Errorf("the configured secret key is not valid: it must be hexadecimal text of at least 32 digits")
		}
		return paymentService{}, err
	}
	return paymentService{client: cl}, nil
}

// failOpen says why the terminal cannot be opened, in one sentence, and returns
// exitCannotWork (DESIGN.md section 6): already running, the journal missing,
// damaged or behind the numbers handed out, the configuration unreadable.
func (c *cli) failOpen(err error) int { return c.fail(exitCannotWork, "%s", openSentence(err)) }

// openSentence is what to say of an error of openTerminal.
func openSentence(err error) string {
	for _, kind := range []error{journal.ErrAlreadyRunning, journal.ErrMissing, journal.ErrDamaged, journal.ErrBehind, journal.ErrNewerSchema, journal.ErrUpgradeCopy} {
		if errors.Is(err, kind) {
			return pos.Sentence(err)
		}
	}
	return err.Error()
}

// journalDirUsed reports whether dataDir shows earlier use (DESIGN.md section 4).
func journalDirUsed(dataDir string) bool {
	used, _ := journal.DirUsed(dataDir)
	return used
}

// keyringLine is the line every start shows where the system keyring given
// does not answer (config.Secrets.NoKeyring), "" otherwise.
func keyringLine(c *cli, sec *config.Secrets) string {
	if c.keyring == nil {
		return ""
	}
	if sec == nil {
		sec = config.OpenSecrets(c.dataDir, c.keyring)
	}
	return sec.NoKeyring()
}

// journalKey is the key of the journal's hash chain, kept outside the journal
// (the keyring, or the data directory's 0600 secrets file where none answers):
// an event edited in the file cannot be chained anew without it.
func journalKey(c *cli, sec *config.Secrets) ([]byte, error) {
	if sec == nil {
		sec = config.OpenSecrets(c.dataDir, c.keyring)
	}
	if line := keyringLine(c, sec); line != "" {
		fmt.Fprintln(c.stderr, "galla: "+line)
	}
	key, err := sec.Key(config.SecretJournalKey, 32)
	if err != nil {
		return nil, fmt.Errorf("the journal's key cannot be read or made (%v); check the system keyring", err)
	}
	return key, nil
}
