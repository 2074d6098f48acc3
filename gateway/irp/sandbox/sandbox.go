// Package sandbox is an embedded Invoice Registration Portal: the contract of
// docs/irp-contract.md (authentication, generate IRN, get IRN by document
// details, cancel) served as an http.Handler or in process (Transport), with the
// IRP's validations (the GSTIN check digit, a duplicate document, the 24-hour
// cancel window, item values against the invoice's totals) and its QR codes signed
// with a published test key (TestKeyPEM, RS256). A fresh install and every test
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
	key  *rsa.PrivateKey
	now  func() time.Time
	path string      // the state file (Open); "" keeps the state in memory only
	seen os.FileInfo // the state file as last read or written, under mu

	mu      sync.Mutex
	docs    map[string]*record // by GSTIN|type|number
	byIRN   map[string]*record
	tokens  map[string]time.Time
	ackNo   int64
	down    bool
	lose    int // answers to lose after processing
	calls   map[string]int
	invalid map[string]bool // GSTINs the sandbox treats as not registered
}

// New is an empty sandbox on the clock now (time.Now when nil), its state in
// memory only (Open keeps it in a file).
func New(now func() time.Time) *Sandbox {
	if now == nil {
		now = time.Now
	}
	return &Sandbox{key: TestKey(), now: now, docs: map[string]*record{}, byIRN: map[string]*record{},
		tokens: map[string]time.Time{}, ackNo: 112610000000000, calls: map[string]int{}, invalid: map[string]bool{}}
}

// TestKey is the sandbox's signing key, parsed from TestKeyPEM.
func TestKey() *rsa.PrivateKey {
	b, _ := pem.Decode([]byte(TestKeyPEM))
	k, err := x509.ParsePKCS1PrivateKey(b.Bytes)
	if err != nil {
		panic("sandbox: the published test key does not parse: " + err.Error())
	}
	return k
}

// PublicKey is the key the sandbox's signatures verify with.
func (s *Sandbox) PublicKey() *rsa.PublicKey { return &s.key.PublicKey }

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

func ok(data any) (int, []byte) {
	b, _ := json.Marshal(answer{Status: 1, Data: data})
	return http.StatusOK, b
}

func refuse(status int, code, msg string, infos ...info) (int, []byte) {
	b, _ := json.Marshal(answer{Status: 0, ErrorDetails: []errDetail{{code, msg}}, InfoDtls: infos})
	return status, b
}

// codeNotSaved refuses a call whose change the sandbox could not keep in its
// state file (the change is undone), or whose state file it could not read.
const codeNotSaved = "5001"

// serve answers one call.
func (s *Sandbox) serve(r *http.Request, body []byte) (int, []byte) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.calls[r.URL.Path]++
	if r.Header.Get("client_id") != ClientID || r.Header.Get("client_secret") != ClientSecret {
		return refuse(http.StatusUnauthorized, "1004", "Invalid client id or client secret")
	}
	gstin := r.Header.Get("Gstin")
	if r.URL.Path == irp.PathAuth {
		return s.auth(gstin, body)
	}
	if exp, found := s.tokens[r.Header.Get("AuthToken")]; !found || !s.now().Before(exp) {
		return refuse(http.StatusUnauthorized, irp.CodeInvalidToken, "Invalid Token")
	}
	if err := s.refresh(); err != nil {
		return refuse(http.StatusInternalServerError, codeNotSaved, err.Error())
	}
	switch {
	case r.URL.Path == irp.PathGenerate && r.Method == http.MethodPost:
		return s.generate(gstin, body)
	case r.URL.Path == irp.PathByDoc && r.Method == http.MethodGet:
		q := r.URL.Query()
		return s.byDoc(gstin, q.Get("doctype"), q.Get("docnum"), q.Get("docdate"))
	case r.URL.Path == irp.PathCancel && r.Method == http.MethodPost:
		return s.cancel(gstin, body)
	}
	return refuse(http.StatusNotFound, "1001", "No such API")
}

func (s *Sandbox) auth(gstin string, body []byte) (int, []byte) {
	var req struct{ UserName, Password string }
	if json.Unmarshal(body, &req) != nil || req.UserName != UserName || req.Password != Password {
		return refuse(http.StatusOK, "3002", "Invalid user name or password")
	}
	if !ValidGSTIN(gstin) {
		return refuse(http.StatusOK, irp.CodeInvalidGSTIN, "Invalid GSTIN of the taxpayer")
	}
	tok := fmt.Sprintf("sbx-%x", s.now().UnixNano())
	exp := s.now().Add(6 * time.Hour)
	s.tokens[tok] = exp
	return ok(map[string]string{"ClientId": ClientID, "UserName": UserName, "AuthToken": tok,
		"TokenExpiry": exp.In(irp.IST).Format(irp.AckLayout)})
}

func key(gstin, typ, no string) string {
	return gstin + "|" + strings.ToUpper(typ) + "|" + strings.ToUpper(no)
}

func (s *Sandbox) generate(gstin string, body []byte) (int, []byte) {
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

func (s *Sandbox) byDoc(gstin, typ, no, date string) (int, []byte) {
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

func (s *Sandbox) cancel(gstin string, body []byte) (int, []byte) {
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
