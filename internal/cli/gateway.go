package cli

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"net/url"
	"time"

	"galla/gateway"
	"galla/internal/config"
	"galla/pos"
)

// The settings.changed keys of the live payment service's identity: the one a
// manager approved on this counter, and the last one the terminal found at
// start that differed from it.
const (
	settingGatewayApproved = "gateway.approved"
	settingGatewayDetected = "gateway.detected"
)

// settingReader reads the journal's settings (journal.Shop).
type settingReader interface {
	Setting(ctx context.Context, key string) (json.RawMessage, error)
}

// eventAppender journals an event (journal.Log).
type eventAppender interface {
	Append(ctx context.Context, ev pos.Event) (pos.Event, error)
}

// gatewayIdentity is who the live payment service is to this counter: its base
// URL, the merchant, and a SHA-256 fingerprint of the credentials (never the
// credentials themselves). A change of any of them, whether by config.json,
// the environment or --gateway, is a service no manager approved.
type gatewayIdentity struct {
	BaseURL     string    `json:"base_url"`
	MerchantID  string    `json:"merchant_id"`
	Credentials string    `json:"credentials_sha256"`
	By          string    `json:"by,omitempty"` // the approving manager's name
	At          time.Time `json:"at,omitzero"`
}

// identityOf is the identity of the live service g ("" base URL: the embedded
// sandbox, which needs no approval, has none).
func identityOf(g config.Gateway) gatewayIdentity {
	h := sha256.New()
	for _, part := range []string{"galla gateway credentials", g.BaseURL, g.MerchantID, g.AccessCode, g.Secret} {
		h.Write([]byte(part))
		h.Write([]byte{0})
	}
	return gatewayIdentity{BaseURL: g.BaseURL, MerchantID: g.MerchantID, Credentials: hex.EncodeToString(h.Sum(nil))}
}

// same reports whether id and o name the same service with the same credentials.
func (id gatewayIdentity) same(o gatewayIdentity) bool {
	return id.BaseURL == o.BaseURL && id.MerchantID == o.MerchantID && id.Credentials == o.Credentials
}

// short is the fingerprint as the screens show it.
func (id gatewayIdentity) short() string {
	if len(id.Credentials) < 12 {
		return id.Credentials
	}
	return id.Credentials[:12]
}

// readIdentity reads the identity journaled under key; ok is false when none is.
func readIdentity(ctx context.Context, s settingReader, key string) (gatewayIdentity, bool, error) {
	raw, err := s.Setting(ctx, key)
	if err != nil || raw == nil {
		return gatewayIdentity{}, false, err
	}
	var id gatewayIdentity
	if err := json.Unmarshal(raw, &id); err != nil {
		return gatewayIdentity{}, false, fmt.Errorf("the journaled %s cannot be read: %w", key, err)
	}
	return id, true, nil
}

// gatewayHold is the sentence that refuses card payments while the live
// service g is not the one approved on this counter, "" when it is (or g is
// the embedded sandbox).
func gatewayHold(ctx context.Context, s settingReader, g config.Gateway) (string, error) {
	if g.BaseURL == "" {
		return "", nil
	}
	approved, ok, err := readIdentity(ctx, s, settingGatewayApproved)
	if err != nil {
		return "", err
	}
	if ok && approved.same(identityOf(g)) {
		return "", nil
	}
	host := g.BaseURL
	if u, err := url.Parse(g.BaseURL); err == nil && u.Host != "" {
		host = u.Host
	}
	return fmt.Sprintf("The payment service changed to %s (merchant %s): no card, EMI or pay-on-phone payment is taken until a manager approves it with \"galla gateway approve --staff NAME\"; cash, UPI and credit notes are taken.", host, g.MerchantID), nil
}

// noteGatewayChange journals, once per identity, that the terminal found a
// live service that is not the approved one (settings.changed naming no one:
// the terminal found it at start).
func noteGatewayChange(ctx context.Context, j eventAppender, s settingReader, g config.Gateway, now time.Time) error {
	if g.BaseURL == "" {
		return nil
	}
	id := identityOf(g)
	if seen, ok, err := readIdentity(ctx, s, settingGatewayDetected); err != nil || (ok && seen.same(id)) {
		return err
	}
	if approved, ok, err := readIdentity(ctx, s, settingGatewayApproved); err != nil || (ok && approved.same(id)) {
		return err
	}
	raw, err := json.Marshal(id)
	if err != nil {
		return err
	}
	_, err = j.Append(ctx, pos.Event{V: pos.EventVersion, Time: now, Kind: pos.EvSettingsChanged,
		Setting: &pos.Setting{Key: settingGatewayDetected, Value: raw}, Extra: map[string]string{"what": "gateway changed"}})
	return err
}

// cmdGateway is galla gateway: the live service's identity and whether a
// manager approved it on this counter; galla gateway approve --staff MANAGER
// approves it, journaled naming the manager.
func cmdGateway(c *cli, args []string) int {
	fs := c.flagSet("galla gateway")
	staff := fs.String("staff", "", "approve: the manager who approves the payment service, signed in with their PIN (GALLA_PIN, or the first line of standard input)")
	rest, err := c.parse(fs, args)
	if err != nil {
		return exitBadInput
	}
	approve := len(rest) == 1 && rest[0] == "approve"
	if len(rest) > 1 || (len(rest) == 1 && !approve) || (!approve && *staff != "") {
		return c.fail(exitBadInput, "Usage: %s.", commands()["gateway"].usage)
	}
	if approve && *staff == "" {
		return c.fail(exitBadInput, "Approving the payment service is a manager's act: give --staff NAME of a manager and their PIN (GALLA_PIN, or the first line of standard input).")
	}
	if approve {
		// The manager's PIN, the till opened and the manager signed in, as
		// every manager's act of the command line (openForManager).
		t, ctx, done, m, code := c.openForManager(*staff, "Approving the payment service")
		if code != exitOK {
			return code
		}
		defer done()
		return approveLiveGateway(c, ctx, t, m)
	}
	t, err := openTill(c)
	if err != nil {
		return c.failOpen(err)
	}
	defer t.close()
	ctx, cancel := signalContext()
	defer cancel()
	g := t.cfg.Config().Gateway
	if g.BaseURL == "" {
		fmt.Fprintln(c.stdout, "payment service: the embedded sandbox (needs no approval)")
		return exitOK
	}
	id := identityOf(g)
	approved, ok, err := readIdentity(ctx, t.j.Shop, settingGatewayApproved)
	if err != nil {
		return c.fail(exitCannotWork, "%s.", upperFirst(err.Error()))
	}
	fmt.Fprintf(c.stdout, "payment service: %s, merchant %s, credentials %s\n", g.BaseURL, g.MerchantID, id.short())
	switch {
	case ok && approved.same(id):
		fmt.Fprintf(c.stdout, "approved by %s on %s\n", approved.By, approved.At.Local().Format("2 Jan 2006 15:04"))
	case ok:
		fmt.Fprintf(c.stdout, "not approved: the approved one was %s, merchant %s, credentials %s (by %s)\n", approved.BaseURL, approved.MerchantID, approved.short(), approved.By)
	default:
		fmt.Fprintln(c.stdout, "not approved: no payment service was approved on this counter")
	}
	return exitOK
}

// approveLiveGateway journals the manager m's approval of the live payment
// service config.json names, unless it is the one approved already.
func approveLiveGateway(c *cli, ctx context.Context, t *terminal, m pos.StaffMember) int {
	g := t.cfg.Config().Gateway
	if g.BaseURL == "" {
		fmt.Fprintln(c.stdout, "payment service: the embedded sandbox (needs no approval)")
		return exitOK
	}
	id := identityOf(g)
	approved, ok, err := readIdentity(ctx, t.j.Shop, settingGatewayApproved)
	if err != nil {
		return c.fail(exitCannotWork, "%s.", upperFirst(err.Error()))
	}
	is := ok && approved.same(id)
	if is {
		fmt.Fprintf(c.stdout, "the payment service at %s (merchant %s) was approved by %s already\n", g.BaseURL, g.MerchantID, approved.By)
		return exitOK
	}
	id.By, id.At = m.Name, t.Now()
	raw, err := json.Marshal(id)
	if err == nil {
		_, err = t.j.Log.Append(ctx, pos.Event{V: pos.EventVersion, Time: t.Now(), Kind: pos.EvSettingsChanged, Staff: m.ID,
			Setting: &pos.Setting{Key: settingGatewayApproved, Value: raw}, Extra: map[string]string{"what": "gateway approved"}})
	}
	if err != nil {
		return c.fail(exitCannotWork, "The approval cannot be journaled: %s", pos.Sentence(err))
	}
	fmt.Fprintf(c.stdout, "the payment service at %s (merchant %s, credentials %s) is approved by %s\n", g.BaseURL, g.MerchantID, id.short(), m.Name)
	return exitOK
}

// heldGateway stands for a live payment service no manager approved on this
// counter (gatewayHold): every call is refused before anything is sent, card
// payments as the Checkout refuses them (pos.ErrGatewayNotApproved), and also
// EMI offers, IMEI checks, refunds and inquiries. An inquiry is refused too,
// even of an order made under the service approved before: the answer would
// come from the unapproved host, signed with its unapproved credentials, and
// an order it called paid would be believed. Such an order stays unknown, and
// is settled once a manager approves the service or config.json names the
// approved one again. A refund is refused as the service refuses one (its
// reason is the sentence): nothing was sent and nothing refunded.
type heldGateway struct{ hold string }

var _ pos.Gateway = heldGateway{}

// refused is the refusal of every call, with the hold's sentence.
func (h heldGateway) refused() error {
	return heldError{ge: &gateway.Error{Code: "not_approved", Message: h.hold}}
}

// heldError is heldGateway's refusal: it matches pos.ErrGatewayNotApproved,
// reads as a definite refusal of the service (a *gateway.Error: a refund fails
// with it, never waits to be inquired) and says the hold's sentence.
type heldError struct{ ge *gateway.Error }

func (e heldError) Error() string    { return "cli: " + pos.ErrGatewayNotApproved.Error() }
func (e heldError) Sentence() string { return e.ge.Message }
func (e heldError) Unwrap() []error  { return []error{pos.ErrGatewayNotApproved, e.ge} }

func (h heldGateway) CreateOrder(context.Context, *gateway.Order) (*gateway.CreateOrderResponse, error) {
	return nil, h.refused()
}

func (h heldGateway) CardPayment(context.Context, string, *gateway.Card, gateway.Customer) (*gateway.PaymentResponse, error) {
	return nil, h.refused()
}

func (h heldGateway) EMIPayment(context.Context, gateway.EMIPaymentRequest) (*gateway.PaymentResponse, error) {
	return nil, h.refused()
}

func (h heldGateway) EMICalculator(context.Context, int64, []gateway.ProductAmount) (*gateway.EMIOffers, error) {
	return nil, h.refused()
}

func (h heldGateway) ValidateScheme(context.Context, int64, *gateway.Card, gateway.EMITenure, int64) error {
	return h.refused()
}

func (h heldGateway) ValidateIMEI(context.Context, string, []gateway.IMEIItem) (*gateway.IMEIResult, error) {
	return nil, h.refused()
}

func (h heldGateway) InquireOrder(context.Context, string) (*gateway.Inquiry, error) {
	return nil, h.refused()
}

func (h heldGateway) InquirePayment(context.Context, string, string) (*gateway.Inquiry, error) {
	return nil, h.refused()
}

func (h heldGateway) Refund(context.Context, gateway.RefundRequest) (*gateway.Inquiry, error) {
	return nil, h.refused()
}

func (h heldGateway) SubmitAuthentication(context.Context, string, url.Values) error {
	return h.refused()
}
