package cli

import (
	"context"
	"crypto/rsa"
	"crypto/x509"
	"encoding/json"
	"encoding/pem"
	"errors"
	"fmt"
	"io"
	"net/http"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"galla/gateway/irp"
	irpsandbox "galla/gateway/irp/sandbox"
	"galla/internal/config"
	"galla/pos"
)

// SecretIRP names the keyring secret that holds the IRP's access (irpAccess,
// JSON): its address, the API credentials and the IRP's public keys. Without it
// the terminal registers with the embedded IRP sandbox.
const SecretIRP = "irp-credentials"

// irpAccess is what the keyring keeps of the live IRP.
type irpAccess struct {
	BaseURL string `json:"base_url"`
	irp.Credentials
	// PublicKeyPEM is the IRP's public key (PEM) its signed QR codes are checked
	// with.
	PublicKeyPEM string `json:"public_key_pem"`
	// EncryptionKeyPEM is the IRP's public encryption key (PEM), the one NIC
	// publishes for its API's authentication to be encrypted with.
	EncryptionKeyPEM string `json:"encryption_key_pem"`
}

// openIRP is the IRP the till registers B2B documents with: the live one when
// the keyring holds its access, else the embedded sandbox (a fresh install
// e-invoices offline; its QR codes are signed with the published test key).
// gstin is the shop's GSTIN, the sandbox's taxpayer; the sandbox keeps what it
// registered in dataDir (config.IRPSandboxFile), for the next run.
func openIRP(sec *config.Secrets, dataDir, gstin string, now func() time.Time) (pos.IRP, bool, error) {
	raw, err := sec.Get(SecretIRP)
	if err != nil {
		return nil, false, err
	}
	if raw == "" {
		sb, err := irpsandbox.Open(filepath.Join(dataDir, config.IRPSandboxFile), now)
		if err != nil {
			return nil, false, err
		}
		c, err := irp.New("https://irp.sandbox.invalid", irpsandbox.Credentials(gstin),
			irp.WithHTTPClient(&http.Client{Transport: sb.Transport()}), irp.WithPublicKey(sb.PublicKey()), irp.WithEncryptionKey(sb.EncryptionKey()), irp.WithClock(now))
		return c, false, err
	}
	var a irpAccess
	if err := json.Unmarshal([]byte(raw), &a); err != nil {
		return nil, true, fmt.Errorf("the IRP's access in the keyring is not readable (%v); set it again with galla einvoice credentials", err)
	}
	pub, err := parsePublicKey("public key", a.PublicKeyPEM)
	if err != nil {
		return nil, true, err
	}
	enc, err := parsePublicKey("encryption key", a.EncryptionKeyPEM)
	if err != nil {
		return nil, true, fmt.Errorf("%w; set the access again with galla einvoice credentials, with encryption_key_pem", err)
	}
	c, err := irp.New(a.BaseURL, a.Credentials, irp.WithPublicKey(pub), irp.WithEncryptionKey(enc), irp.WithClock(now))
	return c, true, err
}

// parsePublicKey is the IRP's RSA public key what (its "public key", its
// "encryption key") from its PEM p.
func parsePublicKey(what, p string) (*rsa.PublicKey, error) {
	b, _ := pem.Decode([]byte(p))
	if b == nil {
		return nil, fmt.Errorf("the IRP's %s is not a PEM block", what)
	}
	k, err := x509.ParsePKIXPublicKey(b.Bytes)
	if err != nil {
		return nil, fmt.Errorf("the IRP's %s: %w", what, err)
	}
	pub, ok := k.(*rsa.PublicKey)
	if !ok {
		return nil, fmt.Errorf("the IRP's %s is not an RSA key", what)
	}
	return pub, nil
}

// einvoiceLine is one document as the e-invoice commands print it.
type einvoiceLine struct {
	Type    string        `json:"type"`
	DocNo   string        `json:"doc_no"`
	DocDate string        `json:"doc_date"`
	OrderID string        `json:"order_id"`
	Status  pos.IRNStatus `json:"status"`
	IRN     string        `json:"irn,omitempty"`
	AckNo   string        `json:"ack_no,omitempty"`
	AckDate string        `json:"ack_date,omitempty"`
	Refusal string        `json:"refusal,omitempty"`
}

func lineOf(st pos.IRNState) einvoiceLine {
	l := einvoiceLine{Type: st.Type, DocNo: st.DocNo, DocDate: st.DocDate, OrderID: st.OrderID, Status: st.Status, IRN: st.IRN, AckNo: st.AckNo, Refusal: st.Refusal}
	if !st.AckDate.IsZero() {
		l.AckDate = st.AckDate.Format(time.RFC3339)
	}
	return l
}

// cmdEInvoice is galla einvoice: the B2B documents of an e-invoicing shop and
// their registration with the IRP.
func cmdEInvoice(c *cli, args []string) int {
	usage := func() int { return c.fail(exitBadInput, "Usage: %s.", commands()["einvoice"].usage) }
	if len(args) == 0 {
		return usage()
	}
	verb, args := args[0], args[1:]
	fs := c.flagSet("galla einvoice " + verb)
	rest, err := c.parse(fs, args)
	if err != nil {
		return exitBadInput
	}
	switch {
	case verb == "credentials" && len(rest) == 0:
		return einvoiceCredentials(c)
	case verb == "pending" && len(rest) == 0, verb == "register" && len(rest) <= 1, verb == "status" && len(rest) == 1:
	default:
		return usage()
	}
	t, err := openTill(c)
	if err != nil {
		return c.failOpen(err)
	}
	defer t.close()
	ctx, cancel := signalContext()
	defer cancel()
	out := json.NewEncoder(c.stdout)
	switch verb {
	case "pending":
		pending, err := t.EInvoices.Pending(ctx)
		if err != nil {
			return c.fail(exitCannotWork, "%s", pos.Sentence(err))
		}
		for _, st := range pending {
			_ = out.Encode(lineOf(st))
		}
		return exitOK
	case "status":
		st, ok, err := t.EInvoices.Status(ctx, rest[0])
		if err != nil {
			return c.fail(exitCannotWork, "%s", pos.Sentence(err))
		}
		if !ok {
			return c.fail(exitBadInput, "No document %s was sent to the IRP from this terminal; galla einvoice pending lists those waiting.", rest[0])
		}
		_ = out.Encode(lineOf(st))
		return exitOK
	}
	var states []pos.IRNState
	if len(rest) == 1 {
		o, err := t.Returns.FindSale(ctx, rest[0])
		if err != nil {
			return c.fail(exitBadInput, "%s", pos.Sentence(err))
		}
		states, err = t.EInvoices.Register(ctx, o.ID)
		for _, st := range states {
			_ = out.Encode(lineOf(st))
		}
		if err != nil {
			return c.fail(einvoiceExit(err), "%s", pos.Sentence(err))
		}
		return exitOK
	}
	left, err := t.EInvoices.RegisterPending(ctx)
	for _, st := range left {
		_ = out.Encode(lineOf(st))
	}
	if err != nil {
		return c.fail(einvoiceExit(err), "%s", pos.Sentence(err))
	}
	if len(left) > 0 {
		return c.fail(exitUnknown, "%d document(s) still wait for their IRN; they print IRN PENDING until registered.", len(left))
	}
	return exitOK
}

func einvoiceExit(err error) int {
	if errors.Is(err, pos.ErrIRNPending) {
		return exitUnknown
	}
	return exitFailed
}

// einvoiceCredentials keeps the live IRP's access (irpAccess, JSON on standard
// input) in the keyring.
func einvoiceCredentials(c *cli) int {
	raw, err := io.ReadAll(io.LimitReader(c.stdin, 64<<10))
	if err != nil {
		return c.fail(exitBadInput, "The IRP's access cannot be read from standard input (%v).", err)
	}
	var a irpAccess
	if err := json.Unmarshal(raw, &a); err != nil {
		return c.fail(exitBadInput, "The IRP's access is JSON: {\"base_url\",\"client_id\",\"client_secret\",\"user_name\",\"password\",\"gstin\",\"public_key_pem\",\"encryption_key_pem\"} (%v).", err)
	}
	if !strings.HasPrefix(a.BaseURL, "https://") || a.ClientID == "" || a.UserName == "" || a.GSTIN == "" {
		return c.fail(exitBadInput, "The IRP's access needs an https:// base_url, client_id, user_name and gstin.")
	}
	if _, err := parsePublicKey("public key", a.PublicKeyPEM); err != nil {
		return c.fail(exitBadInput, "%s.", upperFirst(err.Error()))
	}
	if _, err := parsePublicKey("encryption key", a.EncryptionKeyPEM); err != nil {
		return c.fail(exitBadInput, "%s (encryption_key_pem: NIC's public key for the API's encryption).", upperFirst(err.Error()))
	}
	b, _ := json.Marshal(a)
	sec := config.OpenSecrets(c.dataDir, c.keyring)
	if err := sec.Set(SecretIRP, string(b)); err != nil {
		return c.fail(exitCannotWork, "The IRP's access cannot be kept (%v); check the system keyring.", err)
	}
	fmt.Fprintf(c.stdout, "IRP access kept in %s: %s, GSTIN %s\n", sec.Place(), a.BaseURL, a.GSTIN)
	return exitOK
}

// registerPendingIRNs registers, once the journal's check is over, the B2B
// documents an earlier run left IRN pending (the window's start).
func registerPendingIRNs(ctx context.Context, t *terminal) {
	<-t.checked
	if ctx.Err() != nil {
		return // closed before the check was over
	}
	if left, err := t.EInvoices.RegisterPending(ctx); ctx.Err() == nil && (err != nil || len(left) > 0) {
		fmt.Fprintf(t.c.stderr, "galla: %d B2B document(s) wait for their IRN (galla einvoice pending)\n", len(left))
	}
}

// lazyIRP opens the IRP (the keyring's access, its public key) the first time a
// document is registered, looked up or cancelled, so that a command of a shop
// that registers nothing never reads the keyring for it. A failure to open is
// said once on stderr and answered as no IRP.
type lazyIRP struct {
	gstin  string
	open   func() (pos.IRP, error)
	stderr io.Writer

	once sync.Once
	port pos.IRP
	err  error
}

func (l *lazyIRP) get() (pos.IRP, error) {
	l.once.Do(func() {
		l.port, l.err = l.open()
		if l.err != nil {
			fmt.Fprintln(l.stderr, "galla: e-invoicing is off:", l.err)
			l.err = fmt.Errorf("%w (%v)", pos.ErrNoIRP, l.err)
		}
	})
	return l.port, l.err
}

func (l *lazyIRP) GSTIN() string { return l.gstin }

func (l *lazyIRP) Generate(ctx context.Context, inv irp.Invoice) (irp.Registration, error) {
	p, err := l.get()
	if err != nil {
		return irp.Registration{}, err
	}
	return p.Generate(ctx, inv)
}

func (l *lazyIRP) GetByDocument(ctx context.Context, typ, no string, date time.Time) (irp.Registration, error) {
	p, err := l.get()
	if err != nil {
		return irp.Registration{}, err
	}
	return p.GetByDocument(ctx, typ, no, date)
}

func (l *lazyIRP) Cancel(ctx context.Context, irn, reason, remark string) (irp.Cancellation, error) {
	p, err := l.get()
	if err != nil {
		return irp.Cancellation{}, err
	}
	return p.Cancel(ctx, irn, reason, remark)
}
