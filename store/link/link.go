// Package link is the terminal's client of the store server (DESIGN.md section
// 11): enrolment with a pinned certificate and the terminal's own Ed25519 key,
// and the sync that sends the journal's events up in sequence order, in
// batches, beside the counter's work.
// It implements pos.StoreLink. It imports pos and store/api, never store (no
// database driver on the counter's side of the wire).
package link

import (
	"bytes"
	"context"
	"crypto/ed25519"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"crypto/tls"
	"crypto/x509"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net"
	"net/http"
	"net/url"
	"os"
	"strings"
	"sync"
	"time"

	"galla/internal/atomicfile"
	"galla/pos"
	"galla/store/api"
)

// StateFile is the name, beside the journal, of the record of what the store
// server acknowledged.
const StateFile = "store-sync.json"

// batchOverhead is the bytes of a batch's JSON besides its events.
const batchOverhead = 256

// DefaultBatch is how many events go in one batch.
const DefaultBatch = 500

// Source is what the link reads of the journal; *journal.Journal has it.
type Source interface {
	// LastSeq is the sequence of the journal's last event, 0 when empty.
	LastSeq(ctx context.Context) (uint64, error)
	// Event is the event stored at seq, with its chain hashes.
	Event(ctx context.Context, seq uint64) (pos.Event, error)
}

// Config is a terminal's enrolment and where the link keeps its state.
type Config struct {
	URL         string // the store server: https://host:port
	Fingerprint string // the SHA-256 of the store's CA certificate, pinned at enrolment
	TerminalID  string
	// Key is the terminal's private key (from the keyring; never written by
	// this package): every request is signed with it, and the store holds
	// only its public half.
	Key ed25519.PrivateKey
	// Credential is the credential of a terminal enrolled before terminals
	// had keys, "" otherwise: the link moves the terminal to Key with it
	// before its first signed request (api.RotateRequest) and then calls
	// Rotated, which forgets it.
	Credential string
	Rotated    func() error
	// Hold, when not "", is why the link may not talk to this store: every
	// request is refused with it, and Status shows it (a store the
	// counter's manager has not accepted).
	Hold string
	// Notice is a line Status shows beside how the link stands (an
	// enrolment no manager has acknowledged yet), "" for none.
	Notice string
	// StatePath is the file of what the server acknowledged: StateFile in the
	// data directory.
	StatePath string
	// ProofKey keys the proof the state file carries, checked when it is read
	// (journal.Journal.FileProofKey(StateFile)): a file edited, or written
	// without the key, is not believed. Nil proves against damage only.
	ProofKey []byte
	// Journal is the counter's keyed journal, where each store answer that
	// changes which of its invoices other counters returned is recorded
	// (answers.go), and against whose record the state file is checked: a
	// file naming an older answer (an earlier copy put back) is not
	// believed. Nil (a link with no journal of its own) believes no state
	// file's list: until the store answers, the counter does not know.
	Journal Journal
	// Batch is how many events go in one batch; 0 is DefaultBatch.
	Batch int
	// Transport carries the requests; nil is a pinned HTTPS transport. Tests
	// put one in that cuts connections.
	Transport http.RoundTripper
	// Now is the clock; nil is time.Now.
	Now func() time.Time
}

// ErrUnreachable matches a sync or enrolment that could not reach the store
// server: nothing was sent, the events wait in the journal.
var ErrUnreachable = errors.New("link: the store server cannot be reached")

// ErrOtherTerminal matches an answer of the store that names another terminal
// than this counter: refused, nothing taken from it.
var ErrOtherTerminal = errors.New("link: the store server answered for another terminal")

// ErrHeld matches a request the link refused to send (Config.Hold).
var ErrHeld = errors.New("link: the store is not accepted on this counter")

// OtherTerminalError is an answer of the store naming Got where the counter
// is Want.
type OtherTerminalError struct{ Want, Got string }

func (e *OtherTerminalError) Error() string {
	return fmt.Sprintf("the store server answered as if this counter were terminal %q, but this counter is %s: refused, nothing renamed", e.Got, e.Want)
}

// Is makes the error match ErrOtherTerminal.
func (e *OtherTerminalError) Is(target error) bool { return target == ErrOtherTerminal }

// NewKey makes a terminal's key pair: the private key for the keyring, the
// public key for the store.
func NewKey() (ed25519.PrivateKey, error) {
	_, key, err := ed25519.GenerateKey(rand.Reader)
	return key, err
}

// Link is one terminal's link to its store server. Its methods are safe for
// concurrent use; Sync runs one at a time.
type Link struct {
	cfg    Config
	src    Source
	client *http.Client

	syncMu   sync.Mutex // one Sync at a time
	rotateMu sync.Mutex // guards cfg.Credential: one rotation at a time

	mu      sync.Mutex
	st      state
	last    uint64 // the journal's last sequence at the last look
	problem string
	blocked string
	// elsewhereWhy is why the store's last word on this counter's invoices
	// returned at other counters is not known ("" when it is): the state
	// file missing, unproven or of another store, or the store not asked
	// since (returns.go).
	elsewhereWhy string
	hold         string        // Config.Hold until a manager accepts the store (Accept)
	accept       chan struct{} // closed by Accept
	notice       string        // Config.Notice until a manager acknowledges (Acknowledged)
}

// stateVersion is the version of StateFile this build writes: 2 carries a
// proof. A file of version 1 (no proof) is not believed.
const stateVersion = 2

// state is what StateFile holds.
type state struct {
	V          int       `json:"v"`
	URL        string    `json:"url"`
	TerminalID string    `json:"terminal_id"`
	Held       uint64    `json:"held"`      // the server holds events 1..Held
	HeldHash   string    `json:"held_hash"` // the hash of event Held
	LastSync   time.Time `json:"last_sync"`
	// Elsewhere are this terminal's invoices other counters returned, by
	// order id, as the store last said (returns.go).
	Elsewhere map[string]pos.ElsewhereReturn `json:"elsewhere,omitempty"`
	// ElsewhereKnown is true once the store answered which invoices other
	// counters returned (an empty answer too): Elsewhere is then its word.
	ElsewhereKnown bool `json:"elsewhere_known,omitempty"`
	// Answer is the number of the store's answer Elsewhere holds, as the
	// journal records it (answers.go); 0 in a file of a build that did not
	// number them.
	Answer uint64 `json:"answer,omitempty"`
	// Proof is the keyed proof of the rest (proofOf), hex.
	Proof string `json:"proof,omitempty"`
	known bool   // read from the file, for this store and terminal
}

// proofOf is the proof of st under key: HMAC-SHA256 of its JSON without the
// proof.
func proofOf(st state, key []byte) []byte {
	st.Proof, st.known = "", false
	b, _ := json.Marshal(st)
	m := hmac.New(sha256.New, key)
	m.Write(b)
	return m.Sum(nil)
}

// readState reads the state file at path for the store at url and terminal,
// checking its proof under key and its answer against the journal's record
// rec (recWhy, when not "", why there is none to check against). It returns the state to believe and,
// when the store's list of the invoices other counters returned is not to be
// believed, why.
func readState(path, url, terminal string, key []byte, rec Answer, recWhy string) (state, string) {
	b, err := os.ReadFile(path)
	switch {
	case errors.Is(err, fs.ErrNotExist) || path == "":
		return state{}, "it has no record of the store's answer since it was enrolled (" + StateFile + " is missing)"
	case err != nil:
		return state{}, StateFile + " cannot be read (" + err.Error() + ")"
	}
	var st state
	if json.Unmarshal(b, &st) != nil {
		return state{}, StateFile + " cannot be read"
	}
	proof, _ := hex.DecodeString(st.Proof)
	switch {
	case st.V < stateVersion || st.Proof == "":
		return state{}, StateFile + " was written by an earlier version, without a proof"
	case st.V > stateVersion:
		return state{}, StateFile + " was written by a newer version"
	case !hmac.Equal(proof, proofOf(st, key)):
		return state{}, StateFile + " was changed outside Galla (its proof does not match), so what it says is not believed"
	case st.URL != url || st.TerminalID != terminal:
		return state{}, StateFile + " is of another store or terminal"
	}
	st.known, st.Proof = true, ""
	if !st.ElsewhereKnown {
		return st, "the store has not answered it since " + StateFile + " was started"
	}
	why := recWhy
	if why == "" {
		why = staleWhy(st, rec)
	}
	if why != "" {
		// What the server holds is still worth keeping, and the returns the
		// list names did happen; but it is not the store's last word.
		st.ElsewhereKnown = false
		return st, why
	}
	return st, ""
}

// New returns the link of an enrolled terminal over src. A state file that is
// missing, unreadable, for another store or whose proof does not check
// (Config.ProofKey) is ignored: the first Sync asks the server what it holds,
// and until the store answers which of this counter's invoices other
// counters returned, ReturnedElsewhere says it does not know. So it says of a
// file whose list is older than the store's last answer the journal records
// (Config.Journal).
func New(cfg Config, src Source) (*Link, error) {
	if cfg.URL == "" || cfg.TerminalID == "" || len(cfg.Key) != ed25519.PrivateKeySize {
		return nil, errors.New("link: the terminal is not enrolled at a store server: run \"galla enrol STORE_URL CODE --fingerprint SHA256 --staff MANAGER\"")
	}
	if cfg.Batch <= 0 || cfg.Batch > api.MaxBatch {
		cfg.Batch = DefaultBatch
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	tr := cfg.Transport
	if tr == nil {
		tr = PinnedTransport(cfg.Fingerprint)
	}
	l := &Link{cfg: cfg, src: src, client: &http.Client{Transport: tr, Timeout: 60 * time.Second}, hold: cfg.Hold, notice: cfg.Notice, accept: make(chan struct{})}
	rec, recWhy := Answer{}, "this counter keeps no journal to check "+StateFile+" against"
	if cfg.Journal != nil {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		var err error
		if rec, err = ReadAnswer(ctx, cfg.Journal); err != nil {
			recWhy = "the journal's record of the store's last answer cannot be read (" + err.Error() + ")"
		} else {
			recWhy = ""
		}
		cancel()
	}
	l.st, l.elsewhereWhy = readState(cfg.StatePath, cfg.URL, cfg.TerminalID, cfg.ProofKey, rec, recWhy)
	return l, nil
}

// Hold is why the link may not talk to its store ("" when it may): a store
// no manager accepted on this counter.
func (l *Link) Hold() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.hold
}

// Notice is the line shown until a manager acknowledges the counter's
// enrolment, "" when there is none.
func (l *Link) Notice() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.notice
}

// Accept lifts the hold once a manager's acceptance of the store is
// journaled (by the caller): the next sync goes through, and notice (the
// acceptance's, until a manager acknowledges it) is shown.
func (l *Link) Accept(notice string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.hold != "" {
		l.hold, l.problem, l.notice = "", "", notice
		close(l.accept)
	}
}

// Accepted is closed once Accept lifts the hold.
func (l *Link) Accepted() <-chan struct{} { return l.accept }

// Acknowledged drops the enrolment's notice once a manager's
// acknowledgement is journaled (by the caller).
func (l *Link) Acknowledged() {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.notice = ""
}

// PinnedTransport is an HTTPS transport that trusts exactly the store whose CA
// has fingerprint (api.VerifyPinned), whatever host name it is reached by.
func PinnedTransport(fingerprint string) *http.Transport {
	return &http.Transport{
		Proxy:               http.ProxyFromEnvironment,
		DialContext:         (&net.Dialer{Timeout: 5 * time.Second, KeepAlive: 30 * time.Second}).DialContext,
		TLSHandshakeTimeout: 10 * time.Second,
		MaxIdleConnsPerHost: 2,
		IdleConnTimeout:     90 * time.Second,
		TLSClientConfig: &tls.Config{
			MinVersion:         tls.VersionTLS12,
			InsecureSkipVerify: true, // VerifyPeerCertificate checks the pin instead of names
			VerifyPeerCertificate: func(raw [][]byte, _ [][]*x509.Certificate) error {
				return api.VerifyPinned(raw, fingerprint, time.Now())
			},
		},
	}
}

// Enrol redeems a one-time code at the store server at storeURL, whose CA must
// have fingerprint, for key's public half, and returns the terminal's id as
// the store names it. The private key never leaves the counter. tr nil is a
// PinnedTransport.
func Enrol(ctx context.Context, storeURL, code, fingerprint string, key ed25519.PrivateKey, tr http.RoundTripper) (api.EnrolResponse, error) {
	fp, err := api.NormalizeFingerprint(fingerprint)
	if err != nil {
		return api.EnrolResponse{}, err
	}
	u, err := url.Parse(storeURL)
	if err != nil || u.Scheme != "https" || u.Host == "" {
		return api.EnrolResponse{}, fmt.Errorf("the store server's address %q must be https://HOST[:PORT]", storeURL)
	}
	if len(key) != ed25519.PrivateKeySize {
		return api.EnrolResponse{}, errors.New("link: enrol: no key to enrol")
	}
	if tr == nil {
		tr = PinnedTransport(fp)
	}
	body, _ := json.Marshal(api.EnrolRequest{Code: code, PublicKey: api.PublicKeyHex(key.Public().(ed25519.PublicKey))})
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, strings.TrimRight(storeURL, "/")+api.PathEnrol, bytes.NewReader(body))
	if err != nil {
		return api.EnrolResponse{}, err
	}
	req.Header.Set("Content-Type", "application/json")
	var resp api.EnrolResponse
	if err := do(&http.Client{Transport: tr, Timeout: 30 * time.Second}, req, storeURL, &resp); err != nil {
		return api.EnrolResponse{}, err
	}
	if resp.TerminalID == "" {
		return api.EnrolResponse{}, errors.New("the store server's answer to the enrolment names no terminal")
	}
	return resp, nil
}

// do sends req and decodes a 200 answer into out; a refusal is the server's
// *api.Error, a failure to reach it ErrUnreachable.
func do(c *http.Client, req *http.Request, storeURL string, out any) error {
	resp, err := c.Do(req)
	if err != nil {
		if strings.Contains(err.Error(), "not the one pinned") || strings.Contains(err.Error(), "certificate") {
			return fmt.Errorf("the store server at %s presented a certificate that is not the one pinned (check the fingerprint \"galla store init\" printed): %w", storeURL, err)
		}
		return fmt.Errorf("%w at %s: %w", ErrUnreachable, storeURL, err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	if err != nil {
		return fmt.Errorf("%w at %s: the answer was cut: %w", ErrUnreachable, storeURL, err)
	}
	if resp.StatusCode != http.StatusOK {
		ae := &api.Error{}
		if json.Unmarshal(b, ae) != nil || ae.Code == "" {
			if resp.StatusCode >= 500 {
				return fmt.Errorf("%w at %s: it answered HTTP %d", ErrUnreachable, storeURL, resp.StatusCode)
			}
			return &notAPIError{url: storeURL, status: resp.StatusCode}
		}
		ae.HTTPStatus = resp.StatusCode
		return ae
	}
	if err := json.Unmarshal(b, out); err != nil {
		return fmt.Errorf("the store server at %s gave an answer that cannot be read: %w", storeURL, err)
	}
	return nil
}

// notAPIError is an answer that is not the store's API: an address that is
// not a store server, or a path a store of an earlier version does not have.
type notAPIError struct {
	url    string
	status int
}

func (e *notAPIError) Error() string {
	return fmt.Sprintf("the store server at %s answered HTTP %d, which is not its API: check the address", e.url, e.status)
}

// request sends a signed request and decodes the answer into out. A terminal
// that still holds a credential of an earlier version is moved to its key
// first.
func (l *Link) request(ctx context.Context, method, path string, body []byte, out any) error {
	if hold := l.Hold(); hold != "" {
		return fmt.Errorf("%w: %s", ErrHeld, hold)
	}
	if err := l.rotate(ctx); err != nil {
		return err
	}
	var nonce [16]byte
	if _, err := rand.Read(nonce[:]); err != nil {
		return err
	}
	req, err := http.NewRequestWithContext(ctx, method, strings.TrimRight(l.cfg.URL, "/")+path, bytes.NewReader(body))
	if err != nil {
		return err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Authorization", api.Sign(l.cfg.Key, l.cfg.TerminalID, method, path, l.cfg.Now(), hex.EncodeToString(nonce[:]), body))
	return do(l.client, req, l.cfg.URL, out)
}

// rotate moves a terminal enrolled with a credential to its key, once: the
// credential goes to the store over the pinned link (the store holds only
// its key and cannot make it), and Rotated forgets it on the counter.
func (l *Link) rotate(ctx context.Context) error {
	l.rotateMu.Lock()
	defer l.rotateMu.Unlock()
	if l.cfg.Credential == "" {
		return nil
	}
	body, _ := json.Marshal(api.RotateRequest{TerminalID: l.cfg.TerminalID, Credential: l.cfg.Credential, PublicKey: api.PublicKeyHex(l.cfg.Key.Public().(ed25519.PublicKey))})
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, strings.TrimRight(l.cfg.URL, "/")+api.PathRotateKey, bytes.NewReader(body))
	if err != nil {
		return err
	}
	req.Header.Set("Content-Type", "application/json")
	var st api.Status
	if err := do(l.client, req, l.cfg.URL, &st); err != nil {
		return fmt.Errorf("link: moving terminal %s to a key: %w", l.cfg.TerminalID, err)
	}
	if st.TerminalID != "" && st.TerminalID != l.cfg.TerminalID {
		return &OtherTerminalError{Want: l.cfg.TerminalID, Got: st.TerminalID}
	}
	if l.cfg.Rotated != nil {
		if err := l.cfg.Rotated(); err != nil {
			return fmt.Errorf("link: the credential replaced by the key cannot be forgotten: %w", err)
		}
	}
	l.cfg.Credential = ""
	return nil
}

// Check asks the store how it holds this terminal, without sending anything:
// the store must answer as this terminal (ErrOtherTerminal otherwise). It is
// the first contact with a store, before a manager accepts it.
func (l *Link) Check(ctx context.Context) (api.Status, error) {
	var s api.Status
	if err := l.request(ctx, http.MethodGet, api.PathStatus, nil, &s); err != nil {
		return api.Status{}, err
	}
	if s.TerminalID != l.cfg.TerminalID {
		return api.Status{}, &OtherTerminalError{Want: l.cfg.TerminalID, Got: s.TerminalID}
	}
	return s, nil
}

// Result is what one Sync did.
type Result struct {
	Sent    int    // events the server stored now
	Held    uint64 // the server holds events 1..Held
	Waiting uint64 // events still to send
}

// Pending returns the journal's last sequence and the events not yet
// acknowledged by the server, as far as the link knows without asking it.
func (l *Link) Pending(ctx context.Context) (last, waiting uint64, err error) {
	last, err = l.src.LastSeq(ctx)
	if err != nil {
		return 0, 0, err
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	l.last = last
	if last > l.st.Held {
		waiting = last - l.st.Held
	}
	return last, waiting, nil
}

// Sync sends every event the server does not hold, in batches, until it holds
// the journal's last one. It stops at the first failure, which it returns (an
// *api.Error of the server, or ErrUnreachable) and keeps for Status; what was
// acknowledged before stays acknowledged.
func (l *Link) Sync(ctx context.Context) (Result, error) {
	l.syncMu.Lock()
	defer l.syncMu.Unlock()
	res, err := l.sync(ctx)
	l.mu.Lock()
	defer l.mu.Unlock()
	l.problem, l.blocked = "", ""
	var ae *api.Error
	switch {
	case err == nil:
	case errors.As(err, &ae) && (ae.Code == api.CodeFork || ae.Code == api.CodeBlocked):
		l.blocked = ae.Reason
		if l.blocked == "" {
			l.blocked = "refused by the store server"
		}
	case errors.Is(err, ErrUnreachable):
		l.problem = "store server unreachable"
	case errors.As(err, &ae) && ae.Code == api.CodeUnavailable:
		l.problem = "the store's database is down"
	case errors.Is(err, ErrHeld):
		l.problem = l.hold
	default:
		l.problem = err.Error()
	}
	return res, err
}

func (l *Link) sync(ctx context.Context) (Result, error) {
	res, err := l.send(ctx)
	if err != nil {
		return res, err
	}
	if journaled, err := l.learnElsewhere(ctx); err != nil || !journaled {
		return res, err
	}
	// The answer was journaled, an event of its own: it goes now, so that a
	// sync leaves nothing waiting.
	more, err := l.send(ctx)
	more.Sent += res.Sent
	return more, err
}

// send sends every event the server does not hold.
func (l *Link) send(ctx context.Context) (Result, error) {
	last, err := l.src.LastSeq(ctx)
	if err != nil {
		return Result{}, fmt.Errorf("link: the journal: %w", err)
	}
	l.mu.Lock()
	l.last = last
	st := l.st
	l.mu.Unlock()
	if !st.known {
		// No record of what the server holds: ask it, and start past it when
		// its last event is this journal's (else from the start: the server
		// compares and says).
		var s api.Status
		if err := l.request(ctx, http.MethodGet, api.PathStatus, nil, &s); err != nil {
			return Result{Waiting: last}, err
		}
		if s.TerminalID != l.cfg.TerminalID {
			return Result{Waiting: last}, &OtherTerminalError{Want: l.cfg.TerminalID, Got: s.TerminalID}
		}
		st.Held, st.HeldHash = 0, ""
		if s.Held > 0 && s.Held <= last {
			if ev, err := l.src.Event(ctx, s.Held); err == nil && ev.Hash == s.HeldHash {
				st.Held, st.HeldHash = s.Held, s.HeldHash
			}
		}
		st.known = true
		l.keep(st, false)
	}
	res := Result{Held: st.Held}
	for st.Held < last {
		from := st.Held + 1
		to := min(last, from+uint64(l.cfg.Batch)-1)
		batch := api.Batch{TerminalID: l.cfg.TerminalID, Events: make([]api.Event, 0, to-from+1)}
		size := batchOverhead
		for seq := from; seq <= to; seq++ {
			ev, err := l.src.Event(ctx, seq)
			if err != nil {
				return l.result(res, last), fmt.Errorf("link: the journal: %w", err)
			}
			body, err := json.Marshal(ev)
			if err != nil {
				return l.result(res, last), fmt.Errorf("link: event %d: %w", seq, err)
			}
			e := api.Event{Seq: ev.Seq, Hash: ev.Hash, PrevHash: ev.PrevHash, Kind: string(ev.Kind), Day: ev.Day, Body: body}
			raw, err := json.Marshal(e)
			if err != nil {
				return l.result(res, last), fmt.Errorf("link: event %d: %w", seq, err)
			}
			// The server takes api.MaxBody bytes a batch: the batch ends
			// before the event that would pass it (one event goes alone).
			if size += len(raw) + 1; size > api.MaxBody && len(batch.Events) > 0 {
				to = seq - 1
				break
			}
			batch.Events = append(batch.Events, e)
		}
		body, err := json.Marshal(batch)
		if err != nil {
			return l.result(res, last), err
		}
		var br api.BatchResponse
		err = l.request(ctx, http.MethodPost, api.PathEvents, body, &br)
		var ae *api.Error
		if errors.As(err, &ae) && ae.Code == api.CodeGap && ae.Expected > 0 && ae.Expected <= from {
			// The server holds less than recorded (its database restored):
			// send again from what it expects.
			st.Held, st.HeldHash = ae.Expected-1, ""
			l.keep(st, false)
			continue
		}
		if err != nil {
			return l.result(res, last), err
		}
		res.Sent += br.Stored
		st.Held, st.HeldHash, st.LastSync = br.Held, br.HeldHash, l.cfg.Now()
		l.keep(st, true)
		res.Held = br.Held
		if br.Held < to {
			return l.result(res, last), fmt.Errorf("link: the store server holds events up to %d after a batch up to %d", br.Held, to)
		}
	}
	if st.Held >= last {
		// Nothing to send: still a sync that went through.
		st.LastSync = l.cfg.Now()
		l.keep(st, false)
	}
	return l.result(res, last), nil
}

func (l *Link) result(r Result, last uint64) Result {
	l.mu.Lock()
	defer l.mu.Unlock()
	r.Held = l.st.Held
	if last > l.st.Held {
		r.Waiting = last - l.st.Held
	}
	return r
}

// keep records st in memory and, with write, in the state file (written
// atomically, with its proof). A failure to write the file (a full disk) is not an error: it
// costs a resend, which the server answers as duplicates.
func (l *Link) keep(st state, write bool) {
	st.V, st.URL, st.TerminalID = stateVersion, l.cfg.URL, l.cfg.TerminalID
	l.mu.Lock()
	l.st = st
	l.mu.Unlock()
	if !write || l.cfg.StatePath == "" {
		return
	}
	st.Proof = hex.EncodeToString(proofOf(st, l.cfg.ProofKey))
	if b, err := json.MarshalIndent(st, "", "  "); err == nil {
		_ = atomicfile.Write(l.cfg.StatePath, b)
	}
}

// Status says how the link stands, for the status bar: the events waiting
// counted against the journal's last sequence seen, without touching the
// network.
func (l *Link) Status() pos.StoreStatus {
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	if last, err := l.src.LastSeq(ctx); err == nil {
		l.mu.Lock()
		l.last = last
		l.mu.Unlock()
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	s := pos.StoreStatus{Enrolled: true, LastSync: l.st.LastSync, Problem: l.problem, Blocked: l.blocked}
	switch {
	case l.hold != "":
		s.Problem = l.hold
	case l.notice != "" && s.Problem != "":
		s.Problem += "; " + l.notice
	case l.notice != "":
		s.Problem = l.notice
	}
	if l.last > l.st.Held {
		s.Waiting = l.last - l.st.Held
	}
	return s
}

// Run syncs every interval (and at once) until ctx ends, beside the counter's
// work; a failure waits for the next interval. It is the window's background
// sync; payments never wait for it.
func (l *Link) Run(ctx context.Context, interval time.Duration) {
	if interval <= 0 {
		interval = 10 * time.Second
	}
	t := time.NewTicker(interval)
	defer t.Stop()
	for {
		_, _ = l.Sync(ctx)
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}

// RemoveState removes the state file (a new enrolment starts afresh).
func RemoveState(path string) error {
	if err := os.Remove(path); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	return nil
}
