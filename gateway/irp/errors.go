package irp

import (
	"errors"
	"fmt"
	"strings"
)

// Error codes of the IRP that the client acts on (docs/irp-contract.md).
const (
	CodeInvalidToken  = "1005" // the auth token is invalid or expired: authenticate again
	CodeDuplicate     = "2150" // Duplicate IRN: the document is registered already
	CodeCancelled     = "9999" // the IRN is cancelled already, or not active
	CodeCancelWindow  = "2270" // the allowed cancellation time (24 hours) is over
	CodeNotFound      = "2283" // no IRN for these document details
	CodeInvalidGSTIN  = "3028" // a GSTIN is not valid
	CodeValueMismatch = "2172" // item values do not add up to the invoice's
	CodeCredentials   = "1008" // invalid login credentials (user name or password)
	CodeAppKey        = "1016" // the authentication payload does not decrypt with the IRP's key
	CodeNotDecrypted  = "5100" // the sandbox's: a request's Data is not encrypted with the session key
)

// Error is a definite refusal of the IRP: Status 0 with error details. The
// request was processed and refused; nothing was registered.
type Error struct {
	HTTPStatus int
	Code       string // the first error code
	Message    string
	Codes      []string
	Raw        []byte
}

func (e *Error) Error() string {
	return fmt.Sprintf("irp: %s %s (HTTP %d)", e.Code, e.Message, e.HTTPStatus)
}

// Has reports whether the IRP gave code among its errors.
func (e *Error) Has(code string) bool {
	for _, c := range e.Codes {
		if c == code {
			return true
		}
	}
	return e.Code == code
}

// Is matches the sentinels by code.
func (e *Error) Is(target error) bool {
	switch target {
	case ErrDuplicate:
		return e.Has(CodeDuplicate)
	case ErrNotFound:
		return e.Has(CodeNotFound)
	case ErrCancelWindow:
		return e.Has(CodeCancelWindow)
	case ErrCancelled:
		return e.Has(CodeCancelled)
	case ErrAuth:
		return e.Has(CodeInvalidToken) || e.HTTPStatus == 401
	case ErrEncryptionKey:
		return e.Has(CodeAppKey)
	case ErrSession:
		return e.Has(CodeNotDecrypted)
	}
	return false
}

// Sentinels matched with errors.Is on an *Error.
var (
	ErrDuplicate    = errors.New("irp: the document is registered already")
	ErrNotFound     = errors.New("irp: no IRN for the document")
	ErrCancelWindow = errors.New("irp: the 24 hours to cancel the IRN are over")
	ErrCancelled    = errors.New("irp: the IRN is not active")
	ErrAuth         = errors.New("irp: authentication refused")
	// ErrEncryptionKey: the IRP cannot decrypt the authentication, encrypted
	// with a public key that is not the IRP's.
	ErrEncryptionKey = errors.New("irp: the IRP cannot decrypt the credentials: the public encryption key kept for it is not the IRP's")
)

// ErrSession is a session key that does not fit: the IRP cannot decrypt a
// request with it, or the key the IRP answered does not decrypt with the
// AppKey sent. The session is ended; the next call authenticates again.
var ErrSession = errors.New("irp: the session key does not fit")

// ErrUnknown wraps a call whose outcome is not known: the request may or may not
// have been processed (no answer, a broken answer, a server error). The document
// is inquired by its details before anything is sent again.
var ErrUnknown = errors.New("irp: outcome unknown")

// Definite reports whether err is a definite answer of the IRP (an *Error), so
// that nothing was registered by the call; any other error leaves the outcome
// unknown.
func Definite(err error) bool {
	var e *Error
	return errors.As(err, &e)
}

func joinMessages(ds []errorDetail) (codes []string, msg string) {
	var msgs []string
	for _, d := range ds {
		codes = append(codes, d.ErrorCode)
		msgs = append(msgs, d.ErrorMessage)
	}
	return codes, strings.Join(msgs, "; ")
}
