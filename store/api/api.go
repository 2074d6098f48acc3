// Package api is the wire between a terminal (store/link) and the store server
// (store): the paths, the JSON bodies and the signature every request of an
// enrolled terminal carries. It imports nothing of ours and no database driver.
package api

import (
	"crypto/ed25519"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"
)

// The terminal's endpoints.
const (
	PathEnrol = "/api/v1/enrol" // POST EnrolRequest → EnrolResponse (no signature: the code is the proof)
	// PathRotateKey moves a terminal enrolled with a credential (before
	// terminals had keys) to a key: POST RotateRequest → Status, unsigned: the
	// credential itself, which the store never held, is the proof.
	PathRotateKey = "/api/v1/rotate-key"
	PathEvents    = "/api/v1/events" // POST Batch → BatchResponse, signed
	PathStatus    = "/api/v1/status" // GET → Status, signed
)

// MaxBatch is the most events one batch may carry; MaxBody the most bytes.
const (
	MaxBatch = 1000
	MaxBody  = 16 << 20
)

// EnrolRequest redeems a one-time enrolment code for the terminal's public
// key: the terminal made the key pair and keeps the private key; the store
// keeps only PublicKey.
type EnrolRequest struct {
	Code string `json:"code"`
	// PublicKey is the terminal's Ed25519 public key, 64 hex digits.
	PublicKey string `json:"public_key"`
}

// EnrolResponse is the terminal's identity at the store: the id the code was
// made for. The terminal keeps its own key; nothing secret comes back but the
// store's staff pepper.
type EnrolResponse struct {
	TerminalID string `json:"terminal_id"`
	// StaffPepper is the store's staff pepper in hex (ADR 0007), kept in the
	// keyring like the terminal's key.
	StaffPepper string `json:"staff_pepper,omitempty"`
}

// RotateRequest moves a terminal that holds a credential of an earlier
// version to the key PublicKey: Credential is the credential itself (the
// store holds only CredentialKey of it), sent once over the pinned link and
// void from then on.
type RotateRequest struct {
	TerminalID string `json:"terminal_id"`
	Credential string `json:"credential"`
	PublicKey  string `json:"public_key"`
}

// PublicKeyHex is the form a public key travels in: 64 hex digits.
func PublicKeyHex(pub ed25519.PublicKey) string { return hex.EncodeToString(pub) }

// ErrPublicKey reports a public key that is not 64 hex digits.
var ErrPublicKey = errors.New("api: the public key is not an Ed25519 key of 64 hex digits")

// ParsePublicKey reads a public key as PublicKeyHex writes it.
func ParsePublicKey(s string) (ed25519.PublicKey, error) {
	b, err := hex.DecodeString(s)
	if err != nil || len(b) != ed25519.PublicKeySize {
		return nil, ErrPublicKey
	}
	return ed25519.PublicKey(b), nil
}

// Event is one journal event as it goes up: the decoded pos.Event as Body, and
// beside it the fields the server checks and indexes. Hash and PrevHash are 64
// hex digits; Day is YYYY-MM-DD or empty.
type Event struct {
	Seq      uint64          `json:"seq"`
	Hash     string          `json:"hash"`
	PrevHash string          `json:"prev_hash"`
	Kind     string          `json:"kind"`
	Day      string          `json:"day,omitempty"`
	Body     json.RawMessage `json:"body"`
}

// Batch is a run of a terminal's events in sequence order, without a gap.
type Batch struct {
	TerminalID string  `json:"terminal_id"`
	Events     []Event `json:"events"`
}

// BatchResponse says what the server holds of the terminal after the batch:
// every event up to Held, with HeldHash the hash of event Held.
type BatchResponse struct {
	Held       uint64 `json:"held"`
	HeldHash   string `json:"held_hash,omitempty"`
	Stored     int    `json:"stored"`     // events of the batch stored now
	Duplicates int    `json:"duplicates"` // events of the batch held already, the same
}

// Status is the server's view of a terminal.
type Status struct {
	TerminalID string `json:"terminal_id"`
	Held       uint64 `json:"held"`
	HeldHash   string `json:"held_hash,omitempty"`
	Blocked    bool   `json:"blocked"`
	Reason     string `json:"reason,omitempty"`
}

// The codes of an Error.
const (
	CodeMalformed    = "malformed"    // the request cannot be read: nothing stored
	CodeUnauthorized = "unauthorized" // unknown terminal, a signature not its key's, a credential not its own
	CodeReplayed     = "replayed"     // a request seen before, or too old: refused
	CodeGap          = "gap"          // the batch starts past Expected
	CodeFork         = "fork"         // a different event under a sequence held: the terminal is blocked
	CodeBlocked      = "blocked"      // the terminal is blocked until a manager looks
	CodeBadCode      = "bad_code"     // an enrolment code unknown, used or expired
	CodeUnavailable  = "unavailable"  // the database cannot be reached: nothing stored, send again later
	CodeInternal     = "internal"
)

// Error is the body of every refusal: a code, a sentence, and for a gap the
// sequence the server expects next.
type Error struct {
	HTTPStatus int    `json:"-"`
	Code       string `json:"code"`
	Message    string `json:"message"`
	Expected   uint64 `json:"expected,omitempty"`
	Held       uint64 `json:"held,omitempty"`
	// Reason is why a terminal is blocked (fork, blocked), in a few words.
	Reason string `json:"reason,omitempty"`
}

func (e *Error) Error() string { return e.Message }

// CredentialKey is what the store kept of a credential of an earlier version
// (terminals enrolled before they had keys): a terminal that still holds one
// proves it once, when it moves to a key (RotateRequest).
func CredentialKey(credential string) []byte {
	h := sha256.Sum256([]byte("galla store credential 1\x00" + credential))
	return h[:]
}

// Auth is the Authorization header of a signed request:
//
//	Galla-Ed25519 terminal=T1, time=1700000000, nonce=HEX, body=HEX, sig=HEX
//
// sig is the terminal's Ed25519 signature (128 hex digits) of the method,
// path, terminal, time, nonce and the SHA-256 of the body, separated by
// newlines. The store checks it with the terminal's public key, so that what
// the store holds is not enough to sign. The nonce (16 random bytes) makes
// every request once only: the server refuses a nonce it saw, and a time more
// than MaxSkew off its clock. body is that SHA-256 in hex, so that the server
// checks the signature before it reads the body, and then the body against
// it; a header without it is checked once the body (MaxUndigested at most) is
// read.
type Auth struct {
	Terminal string
	Time     int64
	Nonce    string
	Body     string // the body's SHA-256 in hex; "" from a terminal of an earlier version
	Sig      string
}

// MaxUndigested is the largest body of a signed request whose header does not
// carry the body's hash (a terminal of an earlier version): it must be read
// before its signature can be checked, so it is kept small.
const MaxUndigested = 64 << 10

// MaxRequest is the largest body of a signed request other than a batch of
// events: a decision, a question after master data.
const MaxRequest = 64 << 10

// MaxSkew is how far a request's time may be from the server's clock.
const MaxSkew = 15 * time.Minute

// scheme names the Authorization scheme.
const scheme = "Galla-Ed25519 "

// payload is what a signature covers: digest is the body's SHA-256 in hex.
func payload(method, path, terminal string, t int64, nonce, digest string) []byte {
	return []byte(method + "\n" + path + "\n" + terminal + "\n" + strconv.FormatInt(t, 10) + "\n" + nonce + "\n" + digest)
}

// BodyDigest is the SHA-256 of body in hex, as Auth.Body carries it.
func BodyDigest(body []byte) string {
	bh := sha256.Sum256(body)
	return hex.EncodeToString(bh[:])
}

// Sign returns the Authorization header of a request signed with key.
func Sign(key ed25519.PrivateKey, terminal, method, path string, t time.Time, nonce string, body []byte) string {
	digest := BodyDigest(body)
	sig := ed25519.Sign(key, payload(method, path, terminal, t.Unix(), nonce, digest))
	return fmt.Sprintf("%sterminal=%s, time=%d, nonce=%s, body=%s, sig=%s", scheme, terminal, t.Unix(), nonce, digest, hex.EncodeToString(sig))
}

// ErrAuthFormat reports an Authorization header that cannot be read.
var ErrAuthFormat = errors.New("api: the Authorization header is not Galla-Ed25519 terminal=, time=, nonce=, sig=")

// ParseAuth reads an Authorization header.
func ParseAuth(h string) (Auth, error) {
	rest, ok := strings.CutPrefix(h, scheme)
	if !ok {
		return Auth{}, ErrAuthFormat
	}
	var a Auth
	for part := range strings.SplitSeq(rest, ",") {
		k, v, ok := strings.Cut(strings.TrimSpace(part), "=")
		if !ok {
			return Auth{}, ErrAuthFormat
		}
		switch k {
		case "terminal":
			a.Terminal = v
		case "time":
			n, err := strconv.ParseInt(v, 10, 64)
			if err != nil {
				return Auth{}, ErrAuthFormat
			}
			a.Time = n
		case "nonce":
			a.Nonce = v
		case "body":
			a.Body = v
		case "sig":
			a.Sig = v
		}
	}
	if a.Terminal == "" || a.Time == 0 || len(a.Nonce) != 32 || len(a.Sig) != 2*ed25519.SignatureSize {
		return Auth{}, ErrAuthFormat
	}
	if _, err := hex.DecodeString(a.Nonce); err != nil {
		return Auth{}, ErrAuthFormat
	}
	if a.Body != "" {
		if b, err := hex.DecodeString(a.Body); err != nil || len(b) != sha256.Size {
			return Auth{}, ErrAuthFormat
		}
	}
	return a, nil
}

// Verify reports whether the signature is pub's over the request, and the
// body the one the header names when it names one.
func (a Auth) Verify(pub ed25519.PublicKey, method, path string, body []byte) bool {
	digest := BodyDigest(body)
	if a.Body != "" && subtle.ConstantTimeCompare([]byte(a.Body), []byte(digest)) != 1 {
		return false
	}
	return a.verify(pub, method, path, digest)
}

// VerifyHeader reports whether the signature is pub's over the request whose
// body has the hash the header names (Body), before the body is read; false
// for a header without it. The body must then be checked against Body.
func (a Auth) VerifyHeader(pub ed25519.PublicKey, method, path string) bool {
	return a.Body != "" && a.verify(pub, method, path, a.Body)
}

func (a Auth) verify(pub ed25519.PublicKey, method, path, digest string) bool {
	sig, err := hex.DecodeString(a.Sig)
	if err != nil || len(pub) != ed25519.PublicKeySize || len(sig) != ed25519.SignatureSize {
		return false
	}
	return ed25519.Verify(pub, payload(method, path, a.Terminal, a.Time, a.Nonce, digest), sig)
}
