package gateway

import (
	"errors"
	"net/http"
	"strconv"
	"strings"
	"time"
	"unicode"
)

// The service's error codes (contract section 2), matched by Error.Is.
var (
	// ErrSecureHash matches 1160: the service found the request's x-verify wrong or
	// missing (a wrong secret key).
	ErrSecureHash = errors.New("gateway: the service rejected the request signature (check the secret key)")
	// ErrDuplicateOrder matches 1130: the merchant order id was already used. After a
	// lost create-order answer the order exists but its service id is unknown; the
	// caller abandons that merchant order id and creates the sale's order afresh.
	ErrDuplicateOrder = errors.New("gateway: the merchant order id was already used")
	// ErrAlreadyPaid matches 1140: a payment call for an order that is already charged.
	ErrAlreadyPaid = errors.New("gateway: the order is already paid")
	// ErrAmountMismatch matches 1150: amounts do not add up to the order's.
	ErrAmountMismatch = errors.New("gateway: the amounts do not match the order")
	// ErrDuplicateRefund matches 1170: the refund id was already used, so that refund
	// was applied; inquire the order.
	ErrDuplicateRefund = errors.New("gateway: the refund id was already used (the refund was applied)")
	// ErrOfferOutdated matches 14819: the EMI offer differs from today's.
	ErrOfferOutdated = errors.New("gateway: the EMI offer is outdated")
	// ErrOfferNotApplicable matches 14826: the card's issuer does not give the offer.
	ErrOfferNotApplicable = errors.New("gateway: the EMI offer does not apply to this card")
	// ErrIMEIRequired matches 14831: the brand makes IMEI validation mandatory.
	ErrIMEIRequired = errors.New("gateway: IMEI validation is required before this EMI payment")
	// ErrInvalidRequest matches 14845: the service found the request data not valid.
	ErrInvalidRequest = errors.New("gateway: the service found the request data not valid")
	// ErrTokenExpired matches 4011: the order token is unknown or expired.
	ErrTokenExpired = errors.New("gateway: the order token is unknown or expired")
	// ErrUnauthorized matches 401: the merchant id or access code was refused.
	ErrUnauthorized = errors.New("gateway: the merchant credentials were refused")
	// ErrNotFound matches 404 and 4040: no such order or payment.
	ErrNotFound = errors.New("gateway: no such order or payment")
	// ErrPayloadTooLarge matches 413: the request body is too large.
	ErrPayloadTooLarge = errors.New("gateway: the request is too large")
	// ErrRateLimited matches 429: too many requests; Error.RetryAfter says how long
	// to wait.
	ErrRateLimited = errors.New("gateway: the service is rate limiting this merchant")
	// ErrServer matches an HTTP 5xx answer or code 14020: a fault of the service.
	ErrServer = errors.New("gateway: the service had a fault")

	// ErrOutcomeUnknown is matched by the error of a call that moves money (create
	// order, card and EMI payment, authentication, refund) when the request may have
	// reached the service but no usable answer came back: a timeout, a reset
	// connection, a malformed answer, a server fault, or a refund answer that is
	// unverified (error answers included) or not bound to the request.
	// The caller inquires; it never re-sends a payment.
	ErrOutcomeUnknown = errors.New("gateway: the outcome is unknown (inquire before acting)")
	// ErrMalformed is matched when an answer could not be read as the service's JSON.
	ErrMalformed = errors.New("gateway: the service's answer could not be read")
	// ErrAnswerMismatch is matched when an inquiry or refund answer is not bound to
	// its request: an id of the request (merchant, service order, payment, and for a
	// refund its refund id and amount) is missing from the answer or differs. With
	// an inquiry it also matches ErrMalformed (the inquiry is retried); with a refund
	// it also matches ErrOutcomeUnknown. Such an answer is never success or failure.
	ErrAnswerMismatch = errors.New("gateway: the answer is not about the request")
	// ErrIMEIRejected is matched by ValidateIMEI's error when at least one item was
	// not validated; the per-item results come with it.
	ErrIMEIRejected = errors.New("gateway: IMEI validation failed")
	// ErrInvalidCard is matched by the errors of Card.Check and by a payment call
	// given card data that is not digits.
	ErrInvalidCard = errors.New("gateway: the card data is not valid")
	// ErrInvalidInput is matched when a call's arguments are not valid (an empty
	// token, an id that is not digits); nothing was sent.
	ErrInvalidInput = errors.New("gateway: the call's input is not valid")
	// ErrConfig is matched by New's errors about the configuration.
	ErrConfig = errors.New("gateway: the configuration is not valid")
)

// Error is an error answer of the service in either of its two envelopes,
// {"error_code","error_message"} or {"response_code","response_message"}
// (contract section 2). Code is the code as text. Raw holds the start of the body
// received, at most MaxRaw bytes (an error answer is mostly unsigned, so its size
// is anyone's choice). Error.Is maps the codes to the sentinels (ErrDuplicateOrder
// and the others).
//
// An error answer to a refund whose x-verify is missing or wrong (contract
// section 1: every refund answer is signed) is no refusal: the error that carries
// the *Error then also matches ErrOutcomeUnknown and ErrSignature, and the caller
// inquires before acting on its code.
type Error struct {
	HTTPStatus int
	Code       string
	Message    string
	Raw        []byte
	// RetryAfter is the wait the service asked for with Retry-After (429), or 0.
	RetryAfter time.Duration
}

// Error returns a one-line description: the HTTP status, the code and the message.
// It never includes the raw body, and any run of 12 or more digits in the message
// is removed, so no card number can leak through it.
func (e *Error) Error() string {
	var b strings.Builder
	b.WriteString("gateway: the service answered HTTP ")
	b.WriteString(strconv.Itoa(e.HTTPStatus))
	if e.Code != "" {
		b.WriteString(" code ")
		b.WriteString(cleanText(e.Code, 20))
	}
	if m := cleanText(e.Message, 200); m != "" {
		b.WriteString(": ")
		b.WriteString(m)
	}
	return b.String()
}

// Is reports whether the error matches target, one of the sentinels of the
// service's codes.
func (e *Error) Is(target error) bool {
	switch target {
	case ErrSecureHash:
		return e.Code == "1160"
	case ErrDuplicateOrder:
		return e.Code == "1130"
	case ErrAlreadyPaid:
		return e.Code == "1140"
	case ErrAmountMismatch:
		return e.Code == "1150"
	case ErrDuplicateRefund:
		return e.Code == "1170"
	case ErrOfferOutdated:
		return e.Code == "14819"
	case ErrOfferNotApplicable:
		return e.Code == "14826"
	case ErrIMEIRequired:
		return e.Code == "14831"
	case ErrInvalidRequest:
		return e.Code == "14845"
	case ErrTokenExpired:
		return e.Code == "4011"
	case ErrUnauthorized:
		return e.Code == "401" || (e.HTTPStatus == http.StatusUnauthorized && e.Code != "4011")
	case ErrNotFound:
		return e.Code == "404" || e.Code == "4040" || e.HTTPStatus == http.StatusNotFound
	case ErrPayloadTooLarge:
		return e.Code == "413" || e.HTTPStatus == http.StatusRequestEntityTooLarge
	case ErrRateLimited:
		return e.Code == "429" || e.HTTPStatus == http.StatusTooManyRequests
	case ErrServer:
		return e.Code == "14020" || e.HTTPStatus >= 500
	}
	return false
}

// cleanText makes service text safe for an error message: control characters
// dropped, runs of 12 or more digits replaced, at most max runes.
func cleanText(s string, max int) string {
	var b strings.Builder
	n, digits := 0, 0
	flush := func(run string) {
		if digits >= 12 {
			b.WriteString("[digits removed]")
		} else {
			b.WriteString(run)
		}
	}
	var run strings.Builder
	for _, r := range s {
		if n >= max {
			break
		}
		n++
		if r >= '0' && r <= '9' {
			run.WriteRune(r)
			digits++
			continue
		}
		if digits > 0 {
			flush(run.String())
			run.Reset()
			digits = 0
		}
		if unicode.IsControl(r) {
			r = ' '
		}
		b.WriteRune(r)
	}
	if digits > 0 {
		flush(run.String())
	}
	return strings.TrimSpace(b.String())
}

// errorEnvelope holds both error envelopes.
type errorEnvelope struct {
	ErrorCode       *string `json:"error_code"`
	ErrorMessage    string  `json:"error_message"`
	ResponseCode    *string `json:"response_code"`
	ResponseMessage string  `json:"response_message"`
}

// MaxRaw bounds the bytes of an answer kept on Error.Raw, and on Inquiry.Raw when
// the answer is unverified.
const MaxRaw = 4 << 10

// capRaw returns a copy of at most MaxRaw bytes from the start of b (nil for nil).
// It copies so that the kept bytes do not hold on to a larger buffer.
func capRaw(b []byte) []byte {
	if b == nil {
		return nil
	}
	n := min(len(b), MaxRaw)
	return append(make([]byte, 0, n), b[:n]...)
}

// decodeError reads an error answer. A body that is neither envelope still gives an
// *Error with the HTTP status, an empty code and the status text.
func decodeError(status int, header http.Header, body []byte, now time.Time) *Error {
	e := &Error{HTTPStatus: status, Raw: capRaw(body)}
	var env errorEnvelope
	if err := decodeLenient(body, &env); err == nil {
		switch {
		case env.ErrorCode != nil && *env.ErrorCode != "":
			e.Code, e.Message = *env.ErrorCode, env.ErrorMessage
		case env.ResponseCode != nil && *env.ResponseCode != "":
			e.Code, e.Message = *env.ResponseCode, env.ResponseMessage
		default:
			e.Message = firstNonEmpty(env.ErrorMessage, env.ResponseMessage)
		}
	}
	if e.Message == "" {
		e.Message = http.StatusText(status)
	}
	if header != nil {
		e.RetryAfter = parseRetryAfter(header.Get("Retry-After"), now)
	}
	return e
}

func firstNonEmpty(s ...string) string {
	for _, v := range s {
		if v != "" {
			return v
		}
	}
	return ""
}

// parseRetryAfter reads a Retry-After value in seconds or as an HTTP date.
func parseRetryAfter(v string, now time.Time) time.Duration {
	v = strings.TrimSpace(v)
	if v == "" {
		return 0
	}
	if n, err := strconv.ParseInt(v, 10, 64); err == nil {
		if n <= 0 {
			return 0
		}
		if n > int64(24*time.Hour/time.Second) {
			n = int64(24 * time.Hour / time.Second)
		}
		return time.Duration(n) * time.Second
	}
	if t, err := http.ParseTime(v); err == nil {
		if d := t.Sub(now); d > 0 {
			return d
		}
	}
	return 0
}
