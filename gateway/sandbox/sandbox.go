package sandbox

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"strings"
	"time"

	"galla/gateway"
)

// The built-in default merchant (contract section 1). A fresh install works with
// these credentials and no configuration.
const (
	// DefaultMerchantID is the default merchant's id.
	DefaultMerchantID = "770001"
	// DefaultAccessCode is the default merchant's access code.
	DefaultAccessCode = "9c1d0d6e-4f5b-4c57-a0f4-2f1e8b7d3a10"
	// DefaultSecret is the default merchant's secret key (hex).
	DefaultSecret = "3F1A9C7E5B2D4F6A8C0E1B3D5F7A9C2E"
)

// Limits of the sandbox (contract section 9).
const (
	// MaxBodyBytes is the largest request body accepted; larger ones get 413.
	MaxBodyBytes = 64 << 10
	// TokenLifetime is how long an order token can be used to pay.
	TokenLifetime = 30 * time.Minute
	// PendingHold is how long the card 4000 0000 0000 0119 stays PENDING after its OTP.
	PendingHold = 20 * time.Second
	// MaxAttempts is the number of payment attempts an order accepts.
	MaxAttempts = 3
	// TestOTP is the one-time password that approves the authentication step.
	TestOTP = "123456"
	// AcquirerID is the acquirer id the EMI calculator names and EMI calls carry.
	AcquirerID = 8004
)

// Merchant is one merchant the sandbox knows: its id (decimal digits), access code
// and secret key (hex).
type Merchant struct {
	ID         string `json:"merchant_id"`
	AccessCode string `json:"access_code"`
	Secret     string `json:"secret_key"`
}

// merchant is a Merchant with its decoded HMAC key.
type merchant struct {
	Merchant
	key []byte
}

// Option configures a Sandbox built by New.
type Option func(*config)

type config struct {
	now          func() time.Time
	ids          IDSource
	merchants    []Merchant
	rateN        int
	ratePer      time.Duration
	logger       *slog.Logger
	admin        bool
	stateFile    string
	compactMin   int64
	adminToken   string
	allowedHosts []string
}

// WithClock makes the sandbox read the time from now (token expiry, the pending
// card's hold, completion times, rate-limit windows).
func WithClock(now func() time.Time) Option { return func(c *config) { c.now = now } }

// WithIDs makes the sandbox take its identifiers from src instead of random ones;
// Sequential gives a deterministic source for tests.
func WithIDs(src IDSource) Option { return func(c *config) { c.ids = src } }

// WithMerchant adds a merchant besides the built-in default one. A merchant with
// the default's id replaces it.
func WithMerchant(m Merchant) Option {
	return func(c *config) { c.merchants = append(c.merchants, m) }
}

// WithRateLimit allows each merchant at most n API requests per window; more get
// 429 with a Retry-After header. The limit is off by default (n <= 0).
func WithRateLimit(n int, per time.Duration) Option {
	return func(c *config) { c.rateN, c.ratePer = n, per }
}

// WithLogger makes the sandbox log one line per request (method, path, status,
// duration; never bodies, queries or headers) to l.
func WithLogger(l *slog.Logger) Option { return func(c *config) { c.logger = l } }

// WithAdmin turns on the fault-injection admin endpoint /admin/faults (and
// /admin/ledger). It is off by default. Every admin call needs the admin token
// (Controls.AdminToken, WithAdminToken).
func WithAdmin(on bool) Option { return func(c *config) { c.admin = on } }

// Sandbox is an in-process implementation of the payment service. It is an
// http.Handler and is safe for concurrent use.
//
// It is a facade over parts sharing one unexported core (see the package doc):
// Controls is the one exported part. Sandbox's own methods serve HTTP and close
// the state file.
type Sandbox struct {
	// Controls inject faults, list the ledger and give the admin token.
	Controls *Controls

	core     *core
	orders   *orderService
	emi      *emiService
	checkout *checkoutService
}

// New builds a sandbox with the default merchant and the given options. A
// merchant whose secret is not valid hex is an error here.
func New(opts ...Option) (*Sandbox, error) {
	cfg := config{now: time.Now, compactMin: compactMinBytes}
	for _, o := range opts {
		o(&cfg)
	}
	if cfg.ids == nil {
		cfg.ids = randomIDs{}
	}
	if cfg.logger == nil {
		cfg.logger = slog.New(slog.DiscardHandler)
	}
	c := &core{
		now: cfg.now, logger: cfg.logger, admin: cfg.admin, rateN: cfg.rateN, rate: cfg.ratePer,
		ids:        cfg.ids,
		merchants:  map[string]*merchant{},
		orders:     map[string]*order{},
		byToken:    map[string]*order{},
		payments:   map[string]*payment{},
		orderIDs:   map[string]bool{},
		refundIDs:  map[string]bool{},
		imeis:      map[string]string{},
		faults:     map[Endpoint][]*armed{},
		rateWindow: map[string]rateState{},
		refundNos:  map[string]bool{},
	}
	c.state = &stateLog{core: c, path: cfg.stateFile, compactMin: cfg.compactMin}
	token := cfg.adminToken
	if token == "" {
		token = newAdminToken()
	}
	c.guard = newGuard(token, cfg.allowedHosts)
	if c.rateN > 0 && c.rate <= 0 {
		return nil, fmt.Errorf("sandbox: new: rate limit window must be positive")
	}
	all := append([]Merchant{{ID: DefaultMerchantID, AccessCode: DefaultAccessCode, Secret: DefaultSecret}}, cfg.merchants...)
	for _, m := range all {
		if !allDigits(m.ID) || m.AccessCode == "" || len(m.AccessCode) > 50 {
			return nil, fmt.Errorf("sandbox: new: merchant %q: id must be digits and the access code 1-50 characters", m.ID)
		}
		key, err := gateway.DecodeSecret(m.Secret)
		if err != nil {
			return nil, fmt.Errorf("sandbox: new: merchant %s: %w", m.ID, err)
		}
		c.merchants[m.ID] = &merchant{Merchant: m, key: key}
	}
	if c.state.path != "" {
		if err := c.state.load(); err != nil {
			return nil, err
		}
	}
	return &Sandbox{Controls: &Controls{c}, core: c, orders: &orderService{c}, emi: &emiService{c},
		checkout: &checkoutService{c}}, nil
}

// reply is an answer before it is written; faults rewrite it.
type reply struct {
	status int
	header http.Header
	body   []byte
	key    []byte // non-nil: the body is signed with x-verify under this key
}

func newReply(status int, contentType string, body []byte) *reply {
	h := http.Header{}
	h.Set("Content-Type", contentType)
	h.Set("Cache-Control", "no-store")
	return &reply{status: status, header: h, body: body}
}

func jsonReply(status int, v any) *reply {
	b, err := json.Marshal(v)
	if err != nil {
		return serverError()
	}
	return newReply(status, "application/json", b)
}

// signedReply is a JSON answer carrying x-verify over base64 of its raw bytes.
func signedReply(status int, v any, key []byte) *reply {
	r := jsonReply(status, v)
	if r.status == status {
		r.sign(key)
	}
	return r
}

func (r *reply) sign(key []byte) {
	r.key = key
	r.header.Set("x-verify", gateway.Sign(key, b64(r.body)))
}

// errCode is the {"error_code","error_message"} envelope.
func errCode(status int, code, msg string) *reply {
	return jsonReply(status, map[string]string{"error_code": code, "error_message": msg})
}

// respCode is the {"response_code","response_message"} envelope.
func respCode(status, code int, msg string) *reply {
	return jsonReply(status, map[string]any{"response_code": code, "response_message": msg})
}

func serverError() *reply {
	return newReply(http.StatusInternalServerError, "application/json",
		[]byte(`{"error_code":"14020","error_message":"Oops, something went wrong!"}`))
}

// The error rows of contract section 2.
var (
	errSecureHash   = func() *reply { return errCode(400, "1160", "SECURE_HASH_RETURNED_FROM_MERCHANT_NOT_MATCH") }
	errDuplicate    = func() *reply { return errCode(400, "1130", "DUPLICATE_ORDER_RECEIVED_ON_MERCHANT") }
	errInvalidCode  = func() *reply { return errCode(400, "14845", "Request Data is not valid") }
	errInvalidResp  = func() *reply { return respCode(400, 14845, "Request Data is not valid") }
	errNotOnCard    = func() *reply { return respCode(400, 14826, "Offer is not applicable on card") }
	errOutdated     = func() *reply { return respCode(400, 14819, "Offer is outdated") }
	errIMEIRequired = func() *reply { return respCode(400, 14831, "IMEI_VALIDATION_REQUIRED") }
	errAlreadyPaid  = func() *reply { return errCode(400, "1140", "ORDER_ALREADY_PAID") }
	errAmount       = func() *reply { return errCode(400, "1150", "AMOUNT_MISMATCH") }
	errDupRefund    = func() *reply { return errCode(400, "1170", "DUPLICATE_UNIQUE_ID_FOUND") }
	errUnauthorized = func() *reply { return errCode(401, "401", "UNAUTHORIZED") }
	errTokenExpired = func() *reply { return errCode(401, "4011", "TOKEN_EXPIRED") }
	errTokenInvalid = func() *reply { return errCode(401, "4011", "INVALID_TOKEN") }
	errNoOrder      = func() *reply { return errCode(404, "404", "ORDER_NOT_FOUND") }
	errNoPayment    = func() *reply { return errCode(404, "4040", "NO_PAYMENT_FOUND_ON_THIS_ORDER_ID") }
	errTooLarge     = func() *reply { return errCode(413, "413", "PAYLOAD_TOO_LARGE") }
)

// request is what a handler sees: the HTTP request with its body read.
type request struct {
	*http.Request
	body []byte
}

// ServeHTTP answers one request. Over a real connection the faults "reset" and
// "drop" close the TCP connection without an answer.
func (s *Sandbox) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	start := time.Now()
	var rep *reply
	var act action
	if !checkoutRoute(r.URL.Path) && !s.core.guard.hostAllowed(r.Host) {
		rep = foreignHost() // see guard.go
	} else {
		rep, act = s.process(r)
	}
	status := 0
	switch act {
	case actHang:
		<-r.Context().Done()
	case actReset, actDrop:
		abort(w, act == actReset)
	default:
		for k, v := range rep.header {
			w.Header()[k] = v
		}
		w.WriteHeader(rep.status)
		_, _ = w.Write(rep.body)
		status = rep.status
	}
	s.core.logger.Info("request", "method", r.Method, "path", r.URL.Path, "status", status,
		"duration", time.Since(start).Round(time.Microsecond).String())
}

// Transport serves the sandbox in process, without a socket. FaultReset and
// FaultDrop return ErrConnectionReset and ErrConnectionDropped from RoundTrip;
// FaultHang blocks until the request's context is done.
func (s *Sandbox) Transport() http.RoundTripper { return transport{s} }

// Close releases the state file. It is safe to call more than once; a request
// after Close opens the file again.
func (s *Sandbox) Close() error { return s.core.state.close() }

// process routes, applies faults and runs the handler. It never panics.
func (s *Sandbox) process(r *http.Request) (rep *reply, act action) {
	defer func() {
		if p := recover(); p != nil {
			s.core.logger.Error("handler panic", "path", r.URL.Path, "panic", fmt.Sprint(p))
			rep, act = serverError(), actNone
		}
	}()
	ep, h := s.route(r)
	if h == nil {
		return ep404(r), actNone
	}
	// The body is read first, so that the server notices a client that gives up
	// (net/http watches the connection only once the body is consumed).
	var body []byte
	var readErr error
	tooLarge := r.ContentLength > MaxBodyBytes
	if r.Body != nil && !tooLarge {
		body, readErr = io.ReadAll(io.LimitReader(r.Body, MaxBodyBytes+1))
		tooLarge = len(body) > MaxBodyBytes
	}
	var f *Fault
	if ep != "" {
		f = s.Controls.takeFault(ep)
	}
	if f != nil {
		switch f.Kind {
		case FaultServerError:
			return serverError(), actNone
		case FaultHang:
			return nil, actHang
		case FaultReset:
			return nil, actReset
		case FaultDelay:
			t := time.NewTimer(f.Delay)
			select {
			case <-t.C:
			case <-r.Context().Done():
				t.Stop()
				return nil, actHang
			}
		}
	}
	if tooLarge {
		return errTooLarge(), actNone
	}
	if readErr != nil {
		return errInvalidCode(), actNone
	}
	rep = h(&request{Request: r, body: body})
	if st := s.core.state; st.path != "" {
		// Saved before anyone sees the answer, also when the answer is then dropped.
		if err := st.save(); err != nil {
			s.core.logger.Error("sandbox state not saved", "file", st.path, "err", err.Error())
			return serverError(), actNone
		}
	}
	if f != nil {
		switch f.Kind {
		case FaultDrop:
			return rep, actDrop
		case FaultBadSignature:
			key := rep.key
			if key == nil {
				key = []byte("not the merchant's key")
			}
			rep.header.Set("x-verify", gateway.Sign(key, "tampered:"+b64(rep.body)))
		case FaultMalformedJSON:
			rep.body = malformed(rep.body)
		case FaultWrongAmount:
			rep.body = wrongAmount(rep.body)
			if rep.key != nil {
				rep.sign(rep.key)
			}
		}
	}
	return rep, actNone
}

func ep404(r *http.Request) *reply {
	if strings.HasPrefix(r.URL.Path, "/api/") {
		return errCode(404, "404", "NOT_FOUND")
	}
	return newReply(404, "text/plain; charset=utf-8", []byte("404 page not found\n"))
}

type handler func(r *request) *reply

// route maps a request to its endpoint (for faults) and handler; nil when unknown.
func (s *Sandbox) route(r *http.Request) (Endpoint, handler) {
	p := r.URL.Path
	post := r.Method == http.MethodPost
	get := r.Method == http.MethodGet
	switch {
	case p == "/api/v1/order/create" && post:
		return EndpointCreateOrder, s.orders.createOrder
	case p == "/api/v1/card/process/payment" && post:
		return EndpointCardPayment, s.orders.cardPayment
	case p == "/api/v1/emi/process/payment" && post:
		return EndpointEMIPayment, s.emi.emiPayment
	case p == "/api/v1/emi/calculator" && post:
		return EndpointEMICalculator, s.emi.emiCalculator
	case p == "/api/v1/emi/scheme/validation" && post:
		return EndpointSchemeValidation, s.emi.schemeValidation
	case p == "/api/v1/emi/imei/validation" && post:
		return EndpointIMEIValidation, s.emi.imeiValidation
	case p == "/api/v1/refunds/payment/refund" && post:
		return EndpointRefund, s.orders.refund
	case strings.HasPrefix(p, "/api/v1/inquiry/order/") && get:
		parts := strings.Split(strings.TrimPrefix(p, "/api/v1/inquiry/order/"), "/")
		switch {
		case len(parts) == 1 && parts[0] != "":
			return EndpointInquireOrder, func(r *request) *reply { return s.orders.inquiry(r, parts[0], "") }
		case len(parts) == 3 && parts[1] == "payment" && parts[0] != "" && parts[2] != "":
			return EndpointInquirePayment, func(r *request) *reply { return s.orders.inquiry(r, parts[0], parts[2]) }
		}
	case strings.HasPrefix(p, "/acs/") && (get || post):
		id := strings.TrimPrefix(p, "/acs/")
		if id != "" && !strings.Contains(id, "/") {
			return EndpointACS, func(r *request) *reply { return s.orders.acs(r, id) }
		}
	case p == "/checkout/v1/checkout.js" && get:
		return "", s.checkout.checkoutScript
	case p == "/checkout/v1/pay" && get:
		return "", s.checkout.hostedPage
	case p == "/checkout/v1/api/pay" && post:
		return "", s.checkout.hostedPay
	case p == "/checkout/v1/api/otp" && post:
		return "", s.checkout.hostedOTP
	case p == "/checkout/v1/api/status" && post:
		return "", s.checkout.hostedStatus
	case p == "/" && get:
		return "", s.checkout.index
	case strings.HasPrefix(p, "/admin/") && s.core.admin:
		return "", s.Controls.adminHandler
	}
	if strings.HasPrefix(p, "/api/") && !post && !get {
		return "", func(*request) *reply { return errCode(405, "405", "METHOD_NOT_ALLOWED") }
	}
	return "", nil
}

// baseURL is the sandbox's own address as the request reached it.
func baseURL(r *http.Request) string {
	scheme := "http"
	if r.TLS != nil {
		scheme = "https"
	}
	host := r.Host
	if host == "" {
		host = r.URL.Host
	}
	return scheme + "://" + host
}

func malformed(body []byte) []byte {
	if len(body) < 2 {
		return []byte(`{"response_code":`)
	}
	return append(bytes.Clone(body[:len(body)/2]), []byte(`,"x":`)...)
}

// amountKeys are the answer fields the "wrong amount" fault changes.
var amountKeys = map[string]bool{
	"amount": true, "amount_in_paise": true, "amount_in_paisa": true, "captured_amount_in_paisa": true,
	"auth_amount": true, "loan_amount": true,
}

// wrongAmount adds 100 paise to every amount in a JSON answer.
func wrongAmount(body []byte) []byte {
	var v any
	d := json.NewDecoder(bytes.NewReader(body))
	d.UseNumber()
	if err := d.Decode(&v); err != nil {
		return body
	}
	var walk func(any)
	walk = func(x any) {
		switch t := x.(type) {
		case map[string]any:
			for k, val := range t {
				if amountKeys[k] {
					switch n := val.(type) {
					case json.Number:
						if i, err := n.Int64(); err == nil {
							t[k] = json.Number(fmt.Sprint(i + 100))
						}
					case string:
						if i, ok := parseInt(n); ok {
							t[k] = fmt.Sprint(i + 100)
						}
					}
					continue
				}
				walk(val)
			}
		case []any:
			for _, e := range t {
				walk(e)
			}
		}
	}
	walk(v)
	b, err := json.Marshal(v)
	if err != nil {
		return body
	}
	return b
}
