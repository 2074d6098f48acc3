// Package sandbox is an embedded Invoice Registration Portal: the contract of
// docs/irp-contract.md (authentication, generate IRN, get IRN by document
// details, cancel) served as an http.Handler or in process (Transport), with the
// IRP's validations (the GSTIN check digit, a duplicate document, the 24-hour
// cancel window, item values against the invoice's totals), its payload
// encryption (authentication decrypted with a published test encryption key,
// EncryptionKeyPEM; every later request and answer encrypted with the session
// key it gives) and its QR codes signed with a published test key (TestKeyPEM,
// RS256). A fresh install and every test
// register e-invoices here, offline. Faults (down, a lost answer) are set by
// tests. New keeps the registrations in memory; Open keeps them in a state file
// (state.go), as the terminal does, so that a later run knows them.
//
// It imports only gateway/irp.
package sandbox

import (
	"bytes"
	"crypto/rsa"
	"crypto/x509"
	"encoding/base64"
	"encoding/json"
	"encoding/pem"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"strings"
	"sync"
	"time"

	"galla/gateway/irp"
)

// Published credentials the sandbox accepts (docs/irp-contract.md).
const (
	ClientID     = "GALLA-SANDBOX"
	ClientSecret = "sandbox-secret"
	UserName     = "sandbox"
	Password     = "sandbox"
)

// KeyID names the test key in the JWT header.
const KeyID = "galla-irp-sandbox-1"

// CancelWindow is how long after its acknowledgement an IRN can be cancelled.
const CancelWindow = 24 * time.Hour

// TokenLife is how long a token and its session key last, as the IRP's.
const TokenLife = 6 * time.Hour

// record is one registered document.
type record struct {
	gstin     string
	inv       irp.Invoice
	reg       irp.Registration
	ack       time.Time
	cancelled bool
}

// Sandbox is the embedded IRP.
type Sandbox struct {
	key  *rsa.PrivateKey // signs
	enc  *rsa.PrivateKey // decrypts authentication
	now  func() time.Time
	path string      // the state file (Open); "" keeps the state in memory only
	seen os.FileInfo // the state file as last read or written, under mu

	mu      sync.Mutex
	docs    map[string]*record // by GSTIN|type|number
	byIRN   map[string]*record
	tokens  map[string]*token
	life    time.Duration // of a token (TokenLife)
	ackNo   int64
	down    bool
	lose    int  // answers to lose after processing
	garble  int  // answers to encrypt with a key that is not the session's
	legible bool // the garbled answers still decrypt, into bytes that are not the answer
	badSek  int  // session keys to answer under a key that is not the AppKey
	calls   map[string]int
	invalid map[string]bool // GSTINs the sandbox treats as not registered
}

// New is an empty sandbox on the clock now (time.Now when nil), its state in
// memory only (Open keeps it in a file).
func New(now func() time.Time) *Sandbox {
	if now == nil {
		now = time.Now
	}
	return &Sandbox{key: TestKey(), enc: TestEncryptionKey(), now: now, docs: map[string]*record{}, byIRN: map[string]*record{},
		tokens: map[string]*token{}, life: TokenLife, ackNo: 112610000000000, calls: map[string]int{}, invalid: map[string]bool{}}
}

// token is one authenticated session: its session key, whose it is and until
// when it is good.
type token struct {
	sek      []byte
	gstin    string
	userName string
	expires  time.Time
}

// TestKey is the sandbox's signing key, parsed from TestKeyPEM.
func TestKey() *rsa.PrivateKey { return parseKey(TestKeyPEM) }

// TestEncryptionKey is the sandbox's encryption key pair, parsed from
// EncryptionKeyPEM: clients encrypt authentication with its public half.
func TestEncryptionKey() *rsa.PrivateKey { return parseKey(EncryptionKeyPEM) }

func parseKey(p string) *rsa.PrivateKey {
	b, _ := pem.Decode([]byte(p))
	k, err := x509.ParsePKCS1PrivateKey(b.Bytes)
	if err != nil {
		panic("sandbox: a published test key does not parse: " + err.Error())
	}
	return k
}

// PublicKey is the key the sandbox's signatures verify with.
func (s *Sandbox) PublicKey() *rsa.PublicKey { return &s.key.PublicKey }

// EncryptionKey is the public key a client encrypts authentication with
// (irp.WithEncryptionKey).
func (s *Sandbox) EncryptionKey() *rsa.PublicKey { return &s.enc.PublicKey }

// SetTokenLife makes the tokens given from now on last d (TokenLife unless
// set); 0 gives tokens that are expired when they are given.
func (s *Sandbox) SetTokenLife(d time.Duration) {
	s.mu.Lock()
	s.life = d
	s.mu.Unlock()
}

// ExpireTokens ends every session now, as the IRP may before a token's expiry.
func (s *Sandbox) ExpireTokens() {
	s.mu.Lock()
	clear(s.tokens)
	s.mu.Unlock()
}

// Credentials are the published credentials for a taxpayer's GSTIN.
func Credentials(gstin string) irp.Credentials {
	return irp.Credentials{ClientID: ClientID, ClientSecret: ClientSecret, UserName: UserName, Password: Password, GSTIN: gstin}
}

// SetDown makes every call fail as if the IRP were unreachable (true) or serves
// again (false).
func (s *Sandbox) SetDown(down bool) {
	s.mu.Lock()
	s.down = down
	s.mu.Unlock()
}

// LoseAnswers makes the next n calls be processed and their answers lost.
func (s *Sandbox) LoseAnswers(n int) {
	s.mu.Lock()
	s.lose = n
	s.mu.Unlock()
}

// GarbleAnswers makes the next n answers be processed and their Data
// encrypted with a key that is not the session key, so that the client cannot
// decrypt them (their padding is refused).
func (s *Sandbox) GarbleAnswers(n int) {
	s.mu.Lock()
	s.garble, s.legible = n, false
	s.mu.Unlock()
}

// GarbleAnswersLegibly is GarbleAnswers with answers that the session key
// still decrypts, into bytes that are not the answer: under a wrong key about
// one answer in 256 ends in a valid padding.
func (s *Sandbox) GarbleAnswersLegibly(n int) {
	s.mu.Lock()
	s.garble, s.legible = n, true
	s.mu.Unlock()
}

// garbled is plain sealed under a key that is not sek, chosen so that sek
// decrypts it (legible) or refuses it (not).
func garbled(sek, plain []byte, legible bool) (string, error) {
	for range 1 << 16 {
		other, err := irp.NewKey()
		if err != nil {
			return "", err
		}
		data, err := irp.Seal(other, plain)
		if err != nil {
			return "", err
		}
		if _, err := irp.Open(sek, data); (err == nil) == legible {
			return data, nil
		}
	}
	return "", errors.New("sandbox: no garbled answer of the kind asked for")
}

// GarbleSessionKeys makes the next n authentications answer their session key
// encrypted under a key that is not the AppKey sent.
func (s *Sandbox) GarbleSessionKeys(n int) {
	s.mu.Lock()
	s.badSek = n
	s.mu.Unlock()
}

// Calls is how many calls of path the sandbox processed.
func (s *Sandbox) Calls(path string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.calls[path]
}

// Registered is how many documents are registered.
func (s *Sandbox) Registered() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.docs)
}

// ErrDown is the transport error of a sandbox set down.
var ErrDown = errors.New("sandbox: the IRP is not reachable")

// ErrAnswerLost is the transport error of a processed call whose answer was lost.
var ErrAnswerLost = errors.New("sandbox: the answer was lost")

// Transport serves the sandbox in process, without a socket.
func (s *Sandbox) Transport() http.RoundTripper { return transport{s} }

type transport struct{ s *Sandbox }

func (t transport) RoundTrip(req *http.Request) (*http.Response, error) {
	var body []byte
	if req.Body != nil {
		b, err := io.ReadAll(req.Body)
		_ = req.Body.Close()
		if err != nil {
			return nil, err
		}
		body = b
	}
	t.s.mu.Lock()
	down := t.s.down
	t.s.mu.Unlock()
	if down {
		return nil, ErrDown
	}
	status, out := t.s.serve(req, body)
	t.s.mu.Lock()
	lost := t.s.lose > 0
	if lost {
		t.s.lose--
	}
	t.s.mu.Unlock()
	if lost {
		return nil, ErrAnswerLost
	}
	return &http.Response{StatusCode: status, Status: http.StatusText(status), Proto: "HTTP/1.1", ProtoMajor: 1, ProtoMinor: 1,
		Header: http.Header{"Content-Type": {"application/json"}}, Body: io.NopCloser(bytes.NewReader(out)),
		ContentLength: int64(len(out)), Request: req}, nil
}

// ServeHTTP serves the sandbox over a socket.
func (s *Sandbox) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	down := s.down
	s.mu.Unlock()
	if down {
		http.Error(w, "IRP not reachable", http.StatusServiceUnavailable)
		return
	}
	body, _ := io.ReadAll(io.LimitReader(r.Body, 4<<20))
	status, out := s.serve(r, body)
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_, _ = w.Write(out)
}

type errDetail struct {
	ErrorCode    string `json:"ErrorCode"`
	ErrorMessage string `json:"ErrorMessage"`
}

type answer struct {
	Status       int         `json:"Status"`
	Data         any         `json:"Data"`
	ErrorDetails []errDetail `json:"ErrorDetails"`
	InfoDtls     []info      `json:"InfoDtls,omitempty"`
}

type info struct {
	InfCd string `json:"InfCd"`
	Desc  any    `json:"Desc"`
}

// reply is an answer before its Data is encrypted.
type reply struct {
	status int
	ans    answer
}

func ok(data any) reply { return reply{http.StatusOK, answer{Status: 1, Data: data}} }

func refuse(status int, code, msg string, infos ...info) reply {
	return reply{status, answer{Status: 0, ErrorDetails: []errDetail{{code, msg}}, InfoDtls: infos}}
}

// codeNotSaved refuses a call whose change the sandbox could not keep in its
// state file (the change is undone), or whose state file it could not read.
const codeNotSaved = "5001"

// Codes of authentication's refusals (NIC's).
const (
	codeBadPayload   = "1007" // the authentication payload is not the JSON asked for
	codeClient       = "1010" // invalid client id or client secret
	codeNoGSTIN      = "1004" // the Gstin header is missing
	codeCredentials  = irp.CodeCredentials
	codeAppKeyFailed = irp.CodeAppKey
)

// serve answers one call: authentication in the clear but for its encrypted
// request; every other call with a token, its request's Data decrypted and its
// answer's Data encrypted with the token's session key.
func (s *Sandbox) serve(r *http.Request, body []byte) (int, []byte) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.calls[r.URL.Path]++
	rep, sek := s.route(r, body)
	if rep.ans.Status == 1 && sek != nil {
		plain, _ := json.Marshal(rep.ans.Data)
		seal := irp.Seal
		if s.garble > 0 {
			s.garble--
			seal = func(sek, plain []byte) (string, error) { return garbled(sek, plain, s.legible) }
		}
		data, err := seal(sek, plain)
		if err != nil {
			rep = refuse(http.StatusInternalServerError, "5000", err.Error())
		} else {
			rep.ans.Data = data
		}
	}
	out, _ := json.Marshal(rep.ans)
	return rep.status, out
}

// route answers one call; sek is the session key its answer is encrypted with
// (nil for authentication's). s.mu is held.
func (s *Sandbox) route(r *http.Request, body []byte) (reply, []byte) {
	if r.Header.Get("client_id") != ClientID || r.Header.Get("client_secret") != ClientSecret {
		return refuse(http.StatusUnauthorized, codeClient, "Invalid Client-ID/Client-Secret"), nil
	}
	gstin := r.Header.Get("Gstin")
	if gstin == "" {
		return refuse(http.StatusOK, codeNoGSTIN, "Header GSTIN is required"), nil
	}
	if r.URL.Path == irp.PathAuth {
		return s.auth(gstin, body), nil
	}
	tok, found := s.tokens[r.Header.Get("AuthToken")]
	if !found || !s.now().Before(tok.expires) || tok.gstin != gstin || tok.userName != r.Header.Get("user_name") {
		return refuse(http.StatusUnauthorized, irp.CodeInvalidToken, "Invalid Token: it has expired, or it is not this GSTIN's and user's; authenticate again"), nil
	}
	var plain []byte
	if r.Method == http.MethodPost {
		var why string
		if plain, why = unseal(tok.sek, body); why != "" {
			return refuse(http.StatusOK, irp.CodeNotDecrypted, why), nil
		}
	}
	if err := s.refresh(); err != nil {
		return refuse(http.StatusInternalServerError, codeNotSaved, err.Error()), nil
	}
	switch {
	case r.URL.Path == irp.PathGenerate && r.Method == http.MethodPost:
		return s.generate(gstin, plain), tok.sek
	case r.URL.Path == irp.PathByDoc && r.Method == http.MethodGet:
		q := r.URL.Query()
		return s.byDoc(gstin, q.Get("doctype"), q.Get("docnum"), q.Get("docdate")), tok.sek
	case r.URL.Path == irp.PathCancel && r.Method == http.MethodPost:
		return s.cancel(gstin, plain), tok.sek
	}
	return refuse(http.StatusNotFound, "1001", "No such API"), nil
}

// unseal is the JSON of a request's body {"Data":"<base64>"} encrypted with
// sek, or why (a sentence) it is not.
func unseal(sek, body []byte) (plain []byte, why string) {
	var req struct {
		Data *string `json:"Data"`
	}
	if json.Unmarshal(body, &req) != nil || req.Data == nil {
		return nil, `The request is not encrypted: its body must be {"Data":"…"}, the JSON encrypted with the session key (AES-256-ECB, PKCS#7, base64)`
	}
	plain, err := irp.Open(sek, *req.Data)
	switch {
	case errors.Is(err, irp.ErrNotEncrypted):
		return nil, "The request is not encrypted: its Data is not base64 ciphertext"
	case err != nil:
		return nil, "The request's Data does not decrypt with the session key of this token (bad padding): encrypt it with the Sek of the authentication that gave the token"
	}
	return plain, ""
}

// auth checks the credentials, decrypted with the encryption key, and opens a
// session: a token and a new session key, answered encrypted under the AppKey
// the client sent.
func (s *Sandbox) auth(gstin string, body []byte) reply {
	var req struct{ Data string }
	if json.Unmarshal(body, &req) != nil || req.Data == "" {
		return refuse(http.StatusOK, codeBadPayload, `Authentication failed: the body must be {"Data":"…"}, the credentials encrypted with the IRP's public key`)
	}
	payload, err := irp.DecryptAuth(s.enc, req.Data)
	if err != nil {
		return refuse(http.StatusOK, codeAppKeyFailed, "Decryption of App Key failed: the credentials were not encrypted with the IRP's public encryption key")
	}
	var cred struct {
		UserName, Password, AppKey string
		ForceRefreshAccessToken    bool
	}
	if json.Unmarshal(payload, &cred) != nil {
		return refuse(http.StatusOK, codeBadPayload, "Authentication failed: the decrypted payload is not the JSON of UserName, Password, AppKey and ForceRefreshAccessToken")
	}
	if cred.UserName != UserName || cred.Password != Password {
		return refuse(http.StatusOK, codeCredentials, "Invalid login credentials")
	}
	appKey, err := base64.StdEncoding.DecodeString(cred.AppKey)
	if err != nil || len(appKey) != irp.KeySize {
		return refuse(http.StatusOK, codeAppKeyFailed, "Decryption of App Key failed: the AppKey is not 32 bytes in base64")
	}
	if !ValidGSTIN(gstin) {
		return refuse(http.StatusOK, irp.CodeInvalidGSTIN, "Invalid GSTIN of the taxpayer")
	}
	sek, err := irp.NewKey()
	if err != nil {
		return refuse(http.StatusInternalServerError, "5000", err.Error())
	}
	if s.badSek > 0 {
		s.badSek--
		if appKey, err = irp.NewKey(); err != nil {
			return refuse(http.StatusInternalServerError, "5000", err.Error())
		}
	}
	encSek, err := irp.Seal(appKey, sek)
	if err != nil {
		return refuse(http.StatusInternalServerError, "5000", err.Error())
	}
	id, err := irp.NewKey()
	if err != nil {
		return refuse(http.StatusInternalServerError, "5000", err.Error())
	}
	tok := "sbx-" + base64.RawURLEncoding.EncodeToString(id[:18])
	exp := s.now().Add(s.life)
	s.tokens[tok] = &token{sek: sek, gstin: gstin, userName: cred.UserName, expires: exp}
	return ok(map[string]string{"ClientId": ClientID, "UserName": cred.UserName, "AuthToken": tok, "Sek": encSek,
		"TokenExpiry": exp.In(irp.IST).Format(irp.AckLayout)})
}

func key(gstin, typ, no string) string {
	return gstin + "|" + strings.ToUpper(typ) + "|" + strings.ToUpper(no)
}

func (s *Sandbox) generate(gstin string, body []byte) reply {
	var inv irp.Invoice
	dec := json.NewDecoder(bytes.NewReader(body))
	if err := dec.Decode(&inv); err != nil {
		return refuse(http.StatusOK, "2000", "Invalid JSON: "+err.Error())
	}
	if code, msg := validate(gstin, inv); code != "" {
		return refuse(http.StatusOK, code, msg)
	}
	dt, _ := time.Parse(irp.DateLayout, inv.DocDtls.Dt)
	if rec, found := s.docs[key(gstin, inv.DocDtls.Typ, inv.DocDtls.No)]; found {
		return refuse(http.StatusOK, irp.CodeDuplicate, "Duplicate IRN",
			info{InfCd: "DUPIRN", Desc: map[string]any{"AckNo": rec.reg.AckNo, "AckDt": rec.reg.AckDt, "Irn": rec.reg.Irn}})
	}
	now := s.now()
	s.ackNo++
	reg := irp.Registration{
		AckNo:  fmt.Sprint(s.ackNo),
		AckDt:  now.In(irp.IST).Format(irp.AckLayout),
		Irn:    irp.IRN(gstin, irp.FinancialYear(dt), inv.DocDtls.Typ, inv.DocDtls.No),
		Status: "ACT",
	}
	qr := irp.QRData{SellerGstin: gstin, BuyerGstin: inv.BuyerDtls.Gstin, DocNo: inv.DocDtls.No, DocTyp: inv.DocDtls.Typ,
		DocDt: inv.DocDtls.Dt, TotInvVal: inv.ValDtls.TotInvVal, ItemCnt: len(inv.ItemList), MainHsnCode: inv.ItemList[0].HsnCd,
		Irn: reg.Irn, IrnDt: reg.AckDt}
	qrJSON, _ := json.Marshal(qr)
	var err error
	if reg.SignedQRCode, err = irp.SignJWT(s.key, KeyID, map[string]string{"data": string(qrJSON), "iss": "Galla IRP sandbox"}); err != nil {
		return refuse(http.StatusInternalServerError, "5000", err.Error())
	}
	invJSON, _ := json.Marshal(inv)
	if reg.SignedInvoice, err = irp.SignJWT(s.key, KeyID, map[string]string{"data": string(invJSON), "iss": "Galla IRP sandbox"}); err != nil {
		return refuse(http.StatusInternalServerError, "5000", err.Error())
	}
	rec := &record{gstin: gstin, inv: inv, reg: reg, ack: now}
	k := key(gstin, inv.DocDtls.Typ, inv.DocDtls.No)
	s.docs[k] = rec
	s.byIRN[reg.Irn] = rec
	if err := s.save(); err != nil {
		delete(s.docs, k)
		delete(s.byIRN, reg.Irn)
		s.ackNo--
		return refuse(http.StatusInternalServerError, codeNotSaved, err.Error())
	}
	return ok(reg)
}

func (s *Sandbox) byDoc(gstin, typ, no, date string) reply {
	rec, found := s.docs[key(gstin, typ, no)]
	if !found || rec.inv.DocDtls.Dt != date {
		return refuse(http.StatusOK, irp.CodeNotFound, "IRN details are not found")
	}
	reg := rec.reg
	if rec.cancelled {
		reg.Status = "CNL"
	}
	return ok(reg)
}

func (s *Sandbox) cancel(gstin string, body []byte) reply {
	var req struct{ Irn, CnlRsn, CnlRem string }
	if json.Unmarshal(body, &req) != nil {
		return refuse(http.StatusOK, "2000", "Invalid JSON")
	}
	rec, found := s.byIRN[req.Irn]
	if !found || rec.gstin != gstin {
		return refuse(http.StatusOK, irp.CodeNotFound, "IRN details are not found")
	}
	if req.CnlRsn < "1" || req.CnlRsn > "4" || len(req.CnlRsn) != 1 {
		return refuse(http.StatusOK, "2000", "Invalid cancel reason")
	}
	if rec.cancelled {
		return refuse(http.StatusOK, irp.CodeCancelled, "Invoice is not active")
	}
	if s.now().Sub(rec.ack) > CancelWindow {
		return refuse(http.StatusOK, irp.CodeCancelWindow, "The allowed cancellation time limit is crossed, you cannot cancel the IRN")
	}
	rec.cancelled = true
	if err := s.save(); err != nil {
		rec.cancelled = false
		return refuse(http.StatusInternalServerError, codeNotSaved, err.Error())
	}
	return ok(irp.Cancellation{Irn: req.Irn, CancelDate: s.now().In(irp.IST).Format(irp.AckLayout)})
}
