package irp

import (
	"bytes"
	"context"
	"crypto/rsa"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"
)

// Paths of the IRP's API (the NIC e-invoice API versions this client speaks).
const (
	PathAuth     = "/eivital/v1.04/auth"
	PathGenerate = "/eicore/v1.03/Invoice"
	PathByDoc    = "/eicore/v1.03/Invoice/irnbydocdetails"
	PathCancel   = "/eicore/v1.03/Invoice/Cancel"
)

// Credentials are the API user's: the client id and secret of the application,
// the e-invoice user name and password of the taxpayer, and the taxpayer's GSTIN.
// They are kept in the operating system's keyring, never in a file.
type Credentials struct {
	ClientID     string `json:"client_id"`
	ClientSecret string `json:"client_secret"`
	UserName     string `json:"user_name"`
	Password     string `json:"password"`
	GSTIN        string `json:"gstin"`
}

// Registration is the IRP's answer for a registered document.
type Registration struct {
	AckNo         string `json:"AckNo"`
	AckDt         string `json:"AckDt"` // "2006-01-02 15:04:05", India time
	Irn           string `json:"Irn"`
	SignedInvoice string `json:"SignedInvoice"`
	SignedQRCode  string `json:"SignedQRCode"`
	Status        string `json:"Status"` // "ACT", or "CNL" once cancelled
}

// AckTime is the acknowledgement date as a time in India (IST).
func (r Registration) AckTime() (time.Time, error) {
	return time.ParseInLocation(AckLayout, r.AckDt, IST)
}

// AckLayout is the format of AckDt and CancelDate.
const AckLayout = "2006-01-02 15:04:05"

// IST is India Standard Time, in which the IRP dates its answers.
var IST = time.FixedZone("IST", 5*3600+1800)

// Cancellation is the IRP's answer to cancel.
type Cancellation struct {
	Irn        string `json:"Irn"`
	CancelDate string `json:"CancelDate"`
}

// Cancel reasons (CnlRsn).
const (
	CancelDuplicate = "1"
	CancelDataError = "2"
	CancelOrder     = "3"
	CancelOther     = "4"
)

// envelope is every answer of the IRP.
type envelope struct {
	Status       int             `json:"Status"`
	Data         json.RawMessage `json:"Data"`
	ErrorDetails []errorDetail   `json:"ErrorDetails"`
	InfoDtls     []infoDetail    `json:"InfoDtls"`
}

type errorDetail struct {
	ErrorCode    string `json:"ErrorCode"`
	ErrorMessage string `json:"ErrorMessage"`
}

type infoDetail struct {
	InfCd string          `json:"InfCd"`
	Desc  json.RawMessage `json:"Desc"`
}

type authRequest struct {
	UserName                string `json:"UserName"`
	Password                string `json:"Password"`
	ForceRefreshAccessToken bool   `json:"ForceRefreshAccessToken"`
}

type authData struct {
	ClientID    string `json:"ClientId"`
	UserName    string `json:"UserName"`
	AuthToken   string `json:"AuthToken"`
	TokenExpiry string `json:"TokenExpiry"`
}

type cancelRequest struct {
	Irn    string `json:"Irn"`
	CnlRsn string `json:"CnlRsn"`
	CnlRem string `json:"CnlRem"`
}

// Client calls the IRP. It authenticates on the first call and again when the
// token expires or is refused. It is safe for concurrent use.
type Client struct {
	base *url.URL
	cred Credentials
	hc   *http.Client
	pub  *rsa.PublicKey
	now  func() time.Time

	mu      sync.Mutex
	token   string
	expires time.Time
}

// Option configures a Client.
type Option func(*Client)

// WithHTTPClient sends the calls with hc (a sandbox's Transport in tests).
func WithHTTPClient(hc *http.Client) Option { return func(c *Client) { c.hc = hc } }

// WithPublicKey checks every signed QR code with the IRP's public key pub.
func WithPublicKey(pub *rsa.PublicKey) Option { return func(c *Client) { c.pub = pub } }

// WithClock gives the client its time (token expiry).
func WithClock(now func() time.Time) Option { return func(c *Client) { c.now = now } }

// New is a client of the IRP at baseURL with cred.
func New(baseURL string, cred Credentials, opts ...Option) (*Client, error) {
	u, err := url.Parse(strings.TrimRight(baseURL, "/"))
	if err != nil || u.Scheme == "" || u.Host == "" {
		return nil, fmt.Errorf("irp: base URL %q is not an absolute URL", baseURL)
	}
	c := &Client{base: u, cred: cred, hc: &http.Client{Timeout: 30 * time.Second}, now: time.Now}
	for _, o := range opts {
		o(c)
	}
	return c, nil
}

// GSTIN is the taxpayer the client registers documents of.
func (c *Client) GSTIN() string { return c.cred.GSTIN }

// PublicKey is the IRP's key that signed QR codes are checked with.
func (c *Client) PublicKey() *rsa.PublicKey { return c.pub }

// Authenticate gets a fresh auth token.
func (c *Client) Authenticate(ctx context.Context) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.authLocked(ctx)
}

func (c *Client) authLocked(ctx context.Context) error {
	body, _ := json.Marshal(authRequest{UserName: c.cred.UserName, Password: c.cred.Password, ForceRefreshAccessToken: true})
	var d authData
	if err := c.do(ctx, http.MethodPost, PathAuth, nil, body, "", &d); err != nil {
		return fmt.Errorf("irp: authenticate: %w", err)
	}
	exp, err := time.ParseInLocation(AckLayout, d.TokenExpiry, IST)
	if err != nil || d.AuthToken == "" {
		return fmt.Errorf("irp: authenticate: %w: no token in the answer", ErrUnknown)
	}
	c.token, c.expires = d.AuthToken, exp
	return nil
}

// tokenFor returns a token valid for a minute at least.
func (c *Client) tokenFor(ctx context.Context) (string, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.token == "" || c.now().Add(time.Minute).After(c.expires) {
		if err := c.authLocked(ctx); err != nil {
			return "", err
		}
	}
	return c.token, nil
}

// call makes an authenticated call, authenticating once more if the token is
// refused.
func (c *Client) call(ctx context.Context, method, path string, q url.Values, body []byte, out any) error {
	for try := 0; ; try++ {
		tok, err := c.tokenFor(ctx)
		if err != nil {
			return err
		}
		err = c.do(ctx, method, path, q, body, tok, out)
		if try == 0 && errors.Is(err, ErrAuth) {
			c.mu.Lock()
			if c.token == tok {
				c.token = ""
			}
			c.mu.Unlock()
			continue
		}
		return err
	}
}

// Generate registers inv and returns the IRP's registration. A duplicate
// (ErrDuplicate) means the document is registered already: GetByDocument fetches
// it. An error that is not an *Error (Definite false) leaves the outcome unknown:
// inquire with GetByDocument before sending again.
func (c *Client) Generate(ctx context.Context, inv Invoice) (Registration, error) {
	var r Registration
	if err := c.call(ctx, http.MethodPost, PathGenerate, nil, inv.JSON(), &r); err != nil {
		return r, fmt.Errorf("irp: generate %s %s: %w", inv.DocDtls.Typ, inv.DocDtls.No, err)
	}
	return r, c.check(r)
}

// GetByDocument returns the registration of the document of type typ, number no
// and date; ErrNotFound when the IRP has none.
func (c *Client) GetByDocument(ctx context.Context, typ, no string, date time.Time) (Registration, error) {
	q := url.Values{"doctype": {typ}, "docnum": {no}, "docdate": {date.Format(DateLayout)}}
	var r Registration
	if err := c.call(ctx, http.MethodGet, PathByDoc, q, nil, &r); err != nil {
		return r, fmt.Errorf("irp: get %s %s: %w", typ, no, err)
	}
	return r, c.check(r)
}

// Cancel cancels irn for reason (CancelDuplicate …) with a remark. The IRP
// refuses it after 24 hours (ErrCancelWindow).
func (c *Client) Cancel(ctx context.Context, irn, reason, remark string) (Cancellation, error) {
	body, _ := json.Marshal(cancelRequest{Irn: irn, CnlRsn: reason, CnlRem: clip(remark, 100)})
	var r Cancellation
	if err := c.call(ctx, http.MethodPost, PathCancel, nil, body, &r); err != nil {
		return r, fmt.Errorf("irp: cancel %s: %w", irn, err)
	}
	return r, nil
}

// check verifies the signed QR code of r when the client has the IRP's key.
func (c *Client) check(r Registration) error {
	if len(r.Irn) != 64 {
		return fmt.Errorf("irp: %w: the answer has no IRN", ErrUnknown)
	}
	if c.pub == nil {
		return nil
	}
	q, err := VerifyQR(r.SignedQRCode, c.pub)
	if err != nil {
		return err
	}
	if q.Irn != r.Irn {
		return fmt.Errorf("%w: the QR code names IRN %s, the answer %s", ErrSignature, q.Irn, r.Irn)
	}
	return nil
}

// do sends one request and decodes the envelope's Data into out. A definite
// refusal is an *Error; anything else that fails wraps ErrUnknown.
func (c *Client) do(ctx context.Context, method, path string, q url.Values, body []byte, token string, out any) error {
	u := *c.base
	u.Path += path
	u.RawQuery = q.Encode()
	var rd io.Reader
	if body != nil {
		rd = bytes.NewReader(body)
	}
	req, err := http.NewRequestWithContext(ctx, method, u.String(), rd)
	if err != nil {
		return fmt.Errorf("%w: %v", ErrUnknown, err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("client_id", c.cred.ClientID)
	req.Header.Set("client_secret", c.cred.ClientSecret)
	req.Header.Set("Gstin", c.cred.GSTIN)
	req.Header.Set("user_name", c.cred.UserName)
	if token != "" {
		req.Header.Set("AuthToken", token)
	}
	res, err := c.hc.Do(req)
	if err != nil {
		return fmt.Errorf("%w: %v", ErrUnknown, err)
	}
	defer res.Body.Close()
	raw, err := io.ReadAll(io.LimitReader(res.Body, 4<<20))
	if err != nil {
		return fmt.Errorf("%w: read answer: %v", ErrUnknown, err)
	}
	var env envelope
	if err := json.Unmarshal(raw, &env); err != nil {
		if res.StatusCode == http.StatusUnauthorized {
			return &Error{HTTPStatus: res.StatusCode, Code: CodeInvalidToken, Message: "unauthorised", Raw: raw}
		}
		return fmt.Errorf("%w: HTTP %d, not an IRP answer", ErrUnknown, res.StatusCode)
	}
	if env.Status != 1 {
		if len(env.ErrorDetails) == 0 {
			return fmt.Errorf("%w: HTTP %d, status %d without error details", ErrUnknown, res.StatusCode, env.Status)
		}
		codes, msg := joinMessages(env.ErrorDetails)
		return &Error{HTTPStatus: res.StatusCode, Code: codes[0], Codes: codes, Message: msg, Raw: raw}
	}
	if err := json.Unmarshal(env.Data, out); err != nil {
		return fmt.Errorf("%w: data: %v", ErrUnknown, err)
	}
	return nil
}
