package irp

import (
	"bytes"
	"context"
	"crypto/rsa"
	"encoding/base64"
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

// authRequest is the JSON of authentication, sent encrypted (EncryptAuth).
type authRequest struct {
	UserName                string `json:"UserName"`
	Password                string `json:"Password"`
	AppKey                  string `json:"AppKey"` // base64 of the 32 random bytes
	ForceRefreshAccessToken bool   `json:"ForceRefreshAccessToken"`
}

// sealed is the body of every request but a GET: {"Data":"<base64>"}.
type sealed struct {
	Data string `json:"Data"`
}

// authData is the Data of authentication's answer (plain JSON): Sek is the
// session key encrypted under the AppKey (Seal).
type authData struct {
	ClientID    string `json:"ClientId"`
	UserName    string `json:"UserName"`
	AuthToken   string `json:"AuthToken"`
	Sek         string `json:"Sek"`
	TokenExpiry string `json:"TokenExpiry"`
}

type cancelRequest struct {
	Irn    string `json:"Irn"`
	CnlRsn string `json:"CnlRsn"`
	CnlRem string `json:"CnlRem"`
}

// Client calls the IRP. It authenticates on the first call and again when the
// token expires or is refused, and encrypts every payload as the NIC API does
// (crypt.go). It is safe for concurrent use.
type Client struct {
	base *url.URL
	cred Credentials
	hc   *http.Client
	pub  *rsa.PublicKey // checks signed QR codes
	enc  *rsa.PublicKey // encrypts authentication
	now  func() time.Time

	mu   sync.Mutex
	sess session
}

// session is what authentication gives: the token and the session key that
// encrypts every later payload, until expires.
type session struct {
	token   string
	sek     []byte
	expires time.Time
}

// Option configures a Client.
type Option func(*Client)

// WithHTTPClient sends the calls with hc (a sandbox's Transport in tests).
func WithHTTPClient(hc *http.Client) Option { return func(c *Client) { c.hc = hc } }

// WithPublicKey checks every signed QR code with the IRP's public key pub.
func WithPublicKey(pub *rsa.PublicKey) Option { return func(c *Client) { c.pub = pub } }

// WithEncryptionKey encrypts authentication with the IRP's public encryption key
// pub (NIC publishes one for its sandbox and one for production; it is not the
// key its signatures are checked with). Without it New fails.
func WithEncryptionKey(pub *rsa.PublicKey) Option { return func(c *Client) { c.enc = pub } }

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
	if c.enc == nil {
		return nil, errors.New("irp: no public encryption key of the IRP: its payloads cannot be encrypted")
	}
	return c, nil
}

// GSTIN is the taxpayer the client registers documents of.
func (c *Client) GSTIN() string { return c.cred.GSTIN }

// PublicKey is the IRP's key that signed QR codes are checked with.
func (c *Client) PublicKey() *rsa.PublicKey { return c.pub }

// Authenticate gets a fresh auth token and session key.
func (c *Client) Authenticate(ctx context.Context) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.authLocked(ctx)
}

// authLocked authenticates: the credentials and a new random AppKey, encrypted
// with the IRP's public key; the answer's session key (Sek) decrypted with the
// AppKey. c.mu is held.
func (c *Client) authLocked(ctx context.Context) error {
	c.sess = session{}
	appKey, err := NewKey()
	if err != nil {
		return err
	}
	payload, _ := json.Marshal(authRequest{UserName: c.cred.UserName, Password: c.cred.Password,
		AppKey: base64.StdEncoding.EncodeToString(appKey), ForceRefreshAccessToken: true})
	data, err := EncryptAuth(c.enc, payload)
	if err != nil {
		return fmt.Errorf("irp: authenticate: %w", err)
	}
	body, _ := json.Marshal(sealed{Data: data})
	raw, err := c.do(ctx, http.MethodPost, PathAuth, nil, body, "")
	if err != nil {
		return fmt.Errorf("irp: authenticate: %w", err)
	}
	var d authData
	if err := json.Unmarshal(raw, &d); err != nil || d.AuthToken == "" || d.Sek == "" {
		return fmt.Errorf("irp: authenticate: %w: the answer has no token and session key", ErrUnknown)
	}
	exp, err := time.ParseInLocation(AckLayout, d.TokenExpiry, IST)
	if err != nil {
		return fmt.Errorf("irp: authenticate: %w: token expiry %q", ErrUnknown, d.TokenExpiry)
	}
	sek, err := Open(appKey, d.Sek)
	if err == nil && len(sek) != KeySize {
		err = fmt.Errorf("%w, not %d", ErrKeySize, len(sek))
	}
	if err != nil {
		return fmt.Errorf("irp: authenticate: %w: the session key the IRP answered does not decrypt with the AppKey sent: %w", ErrSession, err)
	}
	c.sess = session{token: d.AuthToken, sek: sek, expires: exp}
	return nil
}

// sessionFor returns a session valid for a minute at least.
func (c *Client) sessionFor(ctx context.Context) (session, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.sess.token == "" || c.now().Add(time.Minute).After(c.sess.expires) {
		if err := c.authLocked(ctx); err != nil {
			return session{}, err
		}
	}
	return c.sess, nil
}

// drop ends the session of token, so that the next call authenticates again.
func (c *Client) drop(token string) {
	c.mu.Lock()
	if c.sess.token == token {
		c.sess = session{}
	}
	c.mu.Unlock()
}

// call makes an authenticated call: payload (JSON, nil for a GET) encrypted
// with the session key, the answer's Data decrypted with it into out. A token
// the IRP refuses (expired before its time, or not known) is renewed once and
// the call made again: the refusal is definite, nothing was processed. An
// answer that does not decrypt ends the session and leaves the outcome unknown.
func (c *Client) call(ctx context.Context, method, path string, q url.Values, payload []byte, out any) error {
	for try := 0; ; try++ {
		s, err := c.sessionFor(ctx)
		if err != nil {
			return err
		}
		var body []byte
		if payload != nil {
			data, err := Seal(s.sek, payload)
			if err != nil {
				return fmt.Errorf("%w: encrypt the request: %w", ErrSession, err)
			}
			body, _ = json.Marshal(sealed{Data: data})
		}
		raw, err := c.do(ctx, method, path, q, body, s.token)
		if try == 0 && errors.Is(err, ErrAuth) {
			c.drop(s.token)
			continue
		}
		if errors.Is(err, ErrSession) {
			c.drop(s.token)
		}
		if err != nil {
			return err
		}
		var data string
		if err := json.Unmarshal(raw, &data); err != nil {
			return fmt.Errorf("%w: the answer's Data is not encrypted", ErrUnknown)
		}
		plain, err := Open(s.sek, data)
		if err != nil {
			c.drop(s.token)
			return fmt.Errorf("%w: the answer does not decrypt with the session key: %w", ErrUnknown, err)
		}
		if err := json.Unmarshal(plain, out); err != nil {
			// Under another key, about one answer in 256 still ends in a
			// valid padding and "decrypts" into bytes that are not JSON:
			// the session is ended as for one that does not decrypt.
			c.drop(s.token)
			return fmt.Errorf("%w: the answer decrypted with the session key is not its data: %v", ErrUnknown, err)
		}
		return nil
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

// do sends one request and returns the envelope's Data (still encrypted but
// for authentication's). A definite refusal is an *Error; anything else that
// fails wraps ErrUnknown.
func (c *Client) do(ctx context.Context, method, path string, q url.Values, body []byte, token string) (json.RawMessage, error) {
	u := *c.base
	u.Path += path
	u.RawQuery = q.Encode()
	var rd io.Reader
	if body != nil {
		rd = bytes.NewReader(body)
	}
	req, err := http.NewRequestWithContext(ctx, method, u.String(), rd)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrUnknown, err)
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
		return nil, fmt.Errorf("%w: %v", ErrUnknown, err)
	}
	defer res.Body.Close()
	raw, err := io.ReadAll(io.LimitReader(res.Body, 4<<20))
	if err != nil {
		return nil, fmt.Errorf("%w: read answer: %v", ErrUnknown, err)
	}
	var env envelope
	if err := json.Unmarshal(raw, &env); err != nil {
		if res.StatusCode == http.StatusUnauthorized {
			return nil, &Error{HTTPStatus: res.StatusCode, Code: CodeInvalidToken, Message: "unauthorised", Raw: raw}
		}
		return nil, fmt.Errorf("%w: HTTP %d, not an IRP answer", ErrUnknown, res.StatusCode)
	}
	if env.Status != 1 {
		if len(env.ErrorDetails) == 0 {
			return nil, fmt.Errorf("%w: HTTP %d, status %d without error details", ErrUnknown, res.StatusCode, env.Status)
		}
		codes, msg := joinMessages(env.ErrorDetails)
		return nil, &Error{HTTPStatus: res.StatusCode, Code: codes[0], Codes: codes, Message: msg, Raw: raw}
	}
	return env.Data, nil
}
