package gateway

import (
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"math/rand/v2"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"time"
)

// Config configures a Client. MerchantID, AccessCode and Secret are the merchant's
// credentials (contract section 1); they are never logged and Config prints them
// redacted.
type Config struct {
	// BaseURL is the service's base address, e.g. "http://127.0.0.1:7070"; the API
	// lives under it (/api/v1/...), and it may carry a path prefix.
	BaseURL string
	// MerchantID is the merchant id, decimal digits.
	MerchantID string
	// AccessCode is the merchant access code.
	AccessCode string
	// Secret is the merchant secret key in hex (see DecodeSecret).
	Secret string
	// ReturnURL is the merchant_return_url used when an Order leaves it empty.
	ReturnURL string
	// HTTPClient sends the requests; nil means a client of our own. Its
	// CheckRedirect is replaced: the client never follows a redirect.
	HTTPClient *http.Client
	// Now is the clock (time.Now when nil).
	Now func() time.Time
	// Timeout bounds each HTTP request and the reading of its answer (default 15 s).
	Timeout time.Duration
	// Retry bounds the retries (default 3 retries, 200 ms base, 5 s cap).
	Retry Retry
	// Logger receives debug lines about retries (method, path, status, attempt;
	// never a body, a query, a header or a credential). Nil means no logging.
	Logger *slog.Logger
}

// String describes the configuration with the access code and the secret redacted.
func (c Config) String() string {
	return fmt.Sprintf("gateway.Config{BaseURL:%q MerchantID:%q AccessCode:[redacted] Secret:[redacted] ReturnURL:%q Timeout:%s Retry:%+v}",
		c.BaseURL, c.MerchantID, c.ReturnURL, c.Timeout, c.Retry)
}

// Format prints String for every verb, so %v, %+v and %#v cannot show a secret.
func (c Config) Format(f fmt.State, _ rune) { _, _ = io.WriteString(f, c.String()) }

// LogValue logs the configuration without its secrets.
func (c Config) LogValue() slog.Value {
	return slog.GroupValue(slog.String("base_url", c.BaseURL), slog.String("merchant_id", c.MerchantID))
}

// Client is the client of the payment service. It is safe for concurrent use.
//
// Each call takes ctx first and is bounded by Config.Timeout per HTTP request.
// Retries (exponential backoff with jitter, Retry-After honoured, stopped by ctx):
//
//   - the inquiries, the EMI calculator, scheme validation and IMEI validation are
//     retried on transport errors, 5xx, 429 and malformed answers;
//   - create order and refund are retried on transport errors, 5xx and 429 with the
//     very same bytes and signature (the service deduplicates them by
//     merchant_order_id and unique_txn_id: 1130 and 1170); when no answer came
//     back in the end, the error matches ErrOutcomeUnknown;
//   - card payments, EMI payments and the authentication step are never re-sent:
//     when the request may have been sent and no usable answer came back, the
//     error matches ErrOutcomeUnknown and the caller inquires.
type Client struct {
	base       string // without a trailing slash
	baseURL    *url.URL
	merchantID string
	merchantNo int64
	accessCode string
	key        []byte
	returnURL  string
	hc         *http.Client
	now        func() time.Time
	timeout    time.Duration
	retry      Retry
	log        *slog.Logger
	// sleep waits d or until ctx is done; tests replace it.
	sleep func(ctx context.Context, d time.Duration) error
	// jitter picks the wait before a retry from the backoff d; tests replace it.
	jitter func(d time.Duration) time.Duration
}

// New builds a Client. A secret that is not valid hex gives an error matching
// ErrSecret; other bad settings give one matching ErrConfig.
func New(cfg Config) (*Client, error) {
	key, err := DecodeSecret(cfg.Secret)
	if err != nil {
		return nil, fmt.Errorf("gateway: new client: %w", err)
	}
	u, err := url.Parse(strings.TrimSpace(cfg.BaseURL))
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || u.RawQuery != "" || u.Fragment != "" {
		return nil, fmt.Errorf("gateway: new client: %w: the base URL must be an absolute http or https address without query", ErrConfig)
	}
	no, err := strconv.ParseInt(cfg.MerchantID, 10, 64)
	if err != nil || no <= 0 || !allDigits([]byte(cfg.MerchantID)) {
		return nil, fmt.Errorf("gateway: new client: %w: the merchant id must be decimal digits", ErrConfig)
	}
	if cfg.AccessCode == "" || len(cfg.AccessCode) > 50 {
		return nil, fmt.Errorf("gateway: new client: %w: the access code must have 1 to 50 characters", ErrConfig)
	}
	c := &Client{
		base:       strings.TrimRight(u.String(), "/"),
		baseURL:    u,
		merchantID: cfg.MerchantID,
		merchantNo: no,
		accessCode: cfg.AccessCode,
		key:        key,
		returnURL:  cfg.ReturnURL,
		now:        cfg.Now,
		timeout:    cfg.Timeout,
		retry:      cfg.Retry,
		log:        cfg.Logger,
		sleep:      sleepCtx,
		jitter:     fullJitter,
	}
	if c.now == nil {
		c.now = time.Now
	}
	if c.timeout <= 0 {
		c.timeout = DefaultTimeout
	}
	switch {
	case c.retry.Max == 0:
		c.retry.Max = DefaultRetryMax
	case c.retry.Max < 0:
		c.retry.Max = 0
	}
	if c.retry.Base <= 0 {
		c.retry.Base = DefaultRetryBase
	}
	if c.retry.Cap <= 0 {
		c.retry.Cap = DefaultRetryCap
	}
	if c.retry.Cap < c.retry.Base {
		c.retry.Cap = c.retry.Base
	}
	var hc http.Client
	if cfg.HTTPClient != nil {
		hc = *cfg.HTTPClient
	} else {
		hc.Transport = http.DefaultTransport.(*http.Transport).Clone()
	}
	// Never follow a redirect: a 307/308 would re-send a payment body to another
	// address, and the authentication step ends in a redirect to the merchant's
	// return URL, which need not exist.
	hc.CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
	c.hc = &hc
	return c, nil
}

// String describes the client without its credentials.
func (c *Client) String() string { return "gateway.Client{" + c.base + "}" }

// GoString is String, so %#v shows no credential.
func (c *Client) GoString() string { return c.String() }

// sleepCtx waits d, or less when ctx is done first, and then returns ctx's error.
func sleepCtx(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}

// fullJitter picks a wait uniformly between d/2 and d.
func fullJitter(d time.Duration) time.Duration {
	if d <= 1 {
		return d
	}
	return d/2 + rand.N(d/2+1)
}

// retryClass says how a call may be retried.
type retryClass int

const (
	retryIdempotent retryClass = iota // reads: transport errors, 5xx, 429, malformed answers
	retrySameBytes                    // create order, refund: transport errors, 5xx, 429
	retryNever                        // payments and authentication: never re-sent
)

// request is one logical call. Its body is built (and signed) once; every attempt
// sends these same bytes.
type request struct {
	op          string // "create order", for errors
	method      string
	path        string // appended to the base URL; may hold an already-encoded query
	url         string // an absolute address instead of base+path (the authentication form)
	body        *body  // nil for GET
	contentType string
	header      http.Header // extra headers
	basicAuth   bool
	class       retryClass
	moneyMoving bool
	// signedAnswers marks a call whose every answer, error answers included,
	// carries x-verify (refund): an error answer without a valid one is no
	// refusal and matches ErrOutcomeUnknown.
	signedAnswers bool
	// redirectOK makes a 3xx answer a success (the authentication step ends in a
	// redirect to merchant_return_url, which is not followed).
	redirectOK bool
}

// answer is what came back from one attempt.
type answer struct {
	status int
	header http.Header
	body   []byte
}

// maxAnswer bounds the size of an answer read.
const maxAnswer = 4 << 20

// errUnsent marks a transport error after which the request surely never reached
// the service (it could not even connect).
var errUnsent = errors.New("the request was not sent")

// send runs a request with its retries. accept reads a 2xx answer; when it
// returns an error matching ErrMalformed on an idempotent call, the call is
// retried. An answer that is not 2xx becomes *Error. The returned error carries
// "gateway: <op>: " and matches ErrOutcomeUnknown as the class demands.
func (c *Client) send(ctx context.Context, r *request, accept func(*answer) error) error {
	maybeApplied := false // a previous attempt may have reached the service
	fail := func(err error) error {
		// A duplicate answer after a lost one settles the outcome: the order
		// exists unpaid (1130), the refund was applied (1170).
		settled := errors.Is(err, ErrDuplicateOrder) || errors.Is(err, ErrDuplicateRefund)
		if r.moneyMoving && maybeApplied && !settled && !errors.Is(err, ErrOutcomeUnknown) {
			return fmt.Errorf("gateway: %s: %w: %w", r.op, ErrOutcomeUnknown, err)
		}
		return fmt.Errorf("gateway: %s: %w", r.op, err)
	}
	for attempt := 0; ; attempt++ {
		if err := ctx.Err(); err != nil {
			return fail(err)
		}
		ans, err := c.once(ctx, r)
		var wait time.Duration
		switch {
		case err != nil:
			if !errors.Is(err, errUnsent) {
				maybeApplied = true
			}
			if ctx.Err() != nil || r.class == retryNever || attempt >= c.retry.Max {
				return fail(err)
			}
		case ans.status == http.StatusTooManyRequests || ans.status >= 500:
			e := decodeError(ans.status, ans.header, ans.body, c.now())
			if ans.status >= 500 {
				maybeApplied = true
			}
			if r.class == retryNever || attempt >= c.retry.Max || e.RetryAfter > maxRetryAfterWait {
				return fail(c.answerError(r, ans, e))
			}
			wait = e.RetryAfter
		case (ans.status < 200 || ans.status > 299) && !(r.redirectOK && ans.status >= 300 && ans.status <= 399):
			return fail(c.answerError(r, ans, decodeError(ans.status, ans.header, ans.body, c.now())))
		default:
			aerr := accept(ans)
			if aerr == nil {
				return nil
			}
			if errors.Is(aerr, ErrMalformed) && r.class == retryIdempotent && attempt < c.retry.Max {
				break
			}
			if errors.Is(aerr, ErrMalformed) {
				maybeApplied = true
			}
			return fail(aerr)
		}
		backoff := c.backoff(attempt)
		if wait < backoff {
			wait = backoff
		}
		if c.log != nil {
			c.log.LogAttrs(ctx, slog.LevelDebug, "gateway: retrying", slog.String("op", r.op),
				slog.Int("attempt", attempt+1), slog.Duration("wait", wait))
		}
		if err := c.sleep(ctx, wait); err != nil {
			return fail(err)
		}
	}
}

// answerError returns e, the error answer ans decoded. When r's answers are all
// signed and this one's x-verify is missing or wrong, its code is only a claim: the
// error then also matches ErrOutcomeUnknown and ErrSignature, never a definite
// refusal, and e stays reachable with errors.As.
func (c *Client) answerError(r *request, ans *answer, e *Error) error {
	if !r.signedAnswers {
		return e
	}
	if err := c.verify(ans); err != nil {
		return fmt.Errorf("%w: unverified error answer: %w: %w", ErrOutcomeUnknown, err, e)
	}
	return e
}

// backoff returns the jittered wait before retry attempt+1.
func (c *Client) backoff(attempt int) time.Duration {
	d := c.retry.Base
	for range attempt {
		d *= 2
		if d >= c.retry.Cap {
			d = c.retry.Cap
			break
		}
	}
	return c.jitter(min(d, c.retry.Cap))
}

// once sends one attempt. The body is given with GetBody (always the same bytes), so
// Go's transport may replay it by itself only where that is safe (a reused
// connection that failed before anything was written), and always with identical
// bytes. It never replays a POST after writing it, because we set no
// Idempotency-Key header (Go treats a POST with one as replayable); and the client
// follows no redirect, so no 307/308 can re-send a body either.
func (c *Client) once(ctx context.Context, r *request) (*answer, error) {
	actx, cancel := context.WithTimeout(ctx, c.timeout)
	defer cancel()
	target := r.url
	if target == "" {
		target = c.base + r.path
	}
	req, err := http.NewRequestWithContext(actx, r.method, target, nil)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", errUnsent, stripURL(err))
	}
	if r.body != nil {
		req.Body = r.body.reader()
		req.GetBody = func() (io.ReadCloser, error) { return r.body.reader(), nil }
		req.ContentLength = int64(r.body.len())
	}
	req.Header.Set("Accept", "application/json")
	req.Header.Set("Cache-Control", "no-cache")
	req.Header.Set("User-Agent", "galla-gateway/1")
	if r.body != nil {
		ct := r.contentType
		if ct == "" {
			ct = "application/json"
		}
		req.Header.Set("Content-Type", ct)
	}
	for k, vs := range r.header {
		req.Header[http.CanonicalHeaderKey(k)] = vs
	}
	if r.basicAuth {
		req.SetBasicAuth(c.merchantID, c.accessCode)
	}
	resp, err := c.hc.Do(req)
	if err != nil {
		if notSent(err) {
			return nil, fmt.Errorf("%w: %w", errUnsent, stripURL(err))
		}
		return nil, stripURL(err)
	}
	defer func() { _ = resp.Body.Close() }()
	data, err := io.ReadAll(io.LimitReader(resp.Body, maxAnswer+1))
	if err != nil {
		return nil, fmt.Errorf("reading the answer: %w", stripURL(err))
	}
	if len(data) > maxAnswer {
		return nil, fmt.Errorf("%w: the answer is larger than %d bytes", ErrMalformed, maxAnswer)
	}
	return &answer{status: resp.StatusCode, header: resp.Header, body: data}, nil
}

// body holds a request body that every attempt sends unchanged and that can be
// wiped once the call is over (payment bodies carry card data). Readers made before
// the wipe see no more data after it.
type body struct {
	mu    sync.Mutex
	b     []byte
	wiped bool
}

func newBody(b []byte) *body { return &body{b: b} }

func (b *body) len() int {
	b.mu.Lock()
	defer b.mu.Unlock()
	return len(b.b)
}

func (b *body) reader() io.ReadCloser { return &bodyReader{src: b} }

// wipe zeroes the bytes.
func (b *body) wipe() {
	if b == nil {
		return
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	clear(b.b)
	b.wiped = true
}

type bodyReader struct {
	src *body
	off int
}

func (r *bodyReader) Read(p []byte) (int, error) {
	r.src.mu.Lock()
	defer r.src.mu.Unlock()
	if r.src.wiped {
		return 0, errors.New("gateway: the request body was wiped")
	}
	if r.off >= len(r.src.b) {
		return 0, io.EOF
	}
	n := copy(p, r.src.b[r.off:])
	r.off += n
	return n, nil
}

func (r *bodyReader) Close() error { return nil }

// notSent reports whether a transport error happened before any byte could have
// reached the service: the connection was never made.
func notSent(err error) bool {
	var op *net.OpError
	if errors.As(err, &op) && op.Op == "dial" {
		return true
	}
	var dns *net.DNSError
	return errors.As(err, &dns)
}

// stripURL drops *url.Error's "Post <url>:" prefix, which would put the order
// token (in the query) into error messages.
func stripURL(err error) error {
	var ue *url.Error
	if errors.As(err, &ue) {
		return ue.Err
	}
	return err
}

// signedBody builds {"request": base64(inner)} and its x-verify, once per call.
func (c *Client) signedBody(inner []byte) (b *body, signature string) {
	b64 := base64.StdEncoding.EncodeToString(inner)
	out := make([]byte, 0, len(b64)+16)
	out = append(out, `{"request":"`...)
	out = append(out, b64...)
	out = append(out, `"}`...)
	return newBody(out), Sign(c.key, b64)
}

// verify checks an answer's x-verify over the base64 of the raw bytes received.
func (c *Client) verify(a *answer) error {
	return Verify(c.key, base64.StdEncoding.EncodeToString(a.body), a.header.Get("X-Verify"))
}

// tokenQuery returns "?token=<token>" with the token as received: it arrives
// URL-encoded and is never encoded a second time. Only bytes that cannot stand in
// a query at all are percent-encoded; '%' is left alone.
func tokenQuery(token string) (string, error) {
	token = strings.TrimSpace(token)
	if token == "" {
		return "", fmt.Errorf("%w: the order token is empty", ErrInvalidInput)
	}
	var b strings.Builder
	b.WriteString("?token=")
	for i := range len(token) {
		ch := token[i]
		if queryByteOK(ch) {
			b.WriteByte(ch)
			continue
		}
		fmt.Fprintf(&b, "%%%02X", ch)
	}
	return b.String(), nil
}

func queryByteOK(ch byte) bool {
	switch {
	case 'a' <= ch && ch <= 'z', 'A' <= ch && ch <= 'Z', '0' <= ch && ch <= '9':
		return true
	}
	return strings.IndexByte("-._~%+=/:!$'()*,;@", ch) >= 0
}

// pathID checks an id that goes into a URL path: decimal digits.
func pathID(what, id string) (string, error) {
	id = strings.TrimSpace(id)
	if !allDigits([]byte(id)) || len(id) > 19 {
		return "", fmt.Errorf("%w: the %s must be decimal digits", ErrInvalidInput, what)
	}
	return id, nil
}
