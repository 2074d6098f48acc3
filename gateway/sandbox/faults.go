package sandbox

import (
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"syscall"
	"time"
)

// Endpoint names one call of the service for fault injection.
type Endpoint string

// The endpoints faults can be injected on.
const (
	EndpointCreateOrder      Endpoint = "create_order"
	EndpointCardPayment      Endpoint = "card_payment"
	EndpointEMIPayment       Endpoint = "emi_payment"
	EndpointEMICalculator    Endpoint = "emi_calculator"
	EndpointSchemeValidation Endpoint = "scheme_validation"
	EndpointIMEIValidation   Endpoint = "imei_validation"
	EndpointInquireOrder     Endpoint = "inquire_order"
	EndpointInquirePayment   Endpoint = "inquire_payment"
	EndpointRefund           Endpoint = "refund"
	EndpointACS              Endpoint = "acs"
)

// Endpoints lists every endpoint faults can be injected on.
func Endpoints() []Endpoint {
	return []Endpoint{EndpointCreateOrder, EndpointCardPayment, EndpointEMIPayment, EndpointEMICalculator,
		EndpointSchemeValidation, EndpointIMEIValidation, EndpointInquireOrder, EndpointInquirePayment,
		EndpointRefund, EndpointACS}
}

// FaultKind is one way the sandbox misbehaves on purpose (contract section 10).
type FaultKind string

// The fault kinds.
const (
	// FaultServerError answers 500 with the 14020 envelope; the call is not applied.
	FaultServerError FaultKind = "server_error"
	// FaultDelay waits Fault.Delay, then applies the call and answers normally. If
	// the caller gives up during the wait, nothing is applied.
	FaultDelay FaultKind = "delay"
	// FaultHang never answers: the connection is held until the caller gives up.
	// The call is not applied.
	FaultHang FaultKind = "hang"
	// FaultReset resets the connection before the call is applied.
	FaultReset FaultKind = "reset"
	// FaultDrop applies the call, then closes the connection without answering
	// (the lost answer that leads to double charges).
	FaultDrop FaultKind = "drop"
	// FaultBadSignature applies the call and answers with a wrong x-verify header.
	FaultBadSignature FaultKind = "bad_signature"
	// FaultMalformedJSON applies the call and answers with a cut-off JSON body.
	FaultMalformedJSON FaultKind = "malformed_json"
	// FaultWrongAmount applies the call and answers with every amount raised by
	// 100 paise; a signed answer is re-signed, so only the amount check catches it.
	FaultWrongAmount FaultKind = "wrong_amount"
)

// FaultKinds lists every fault kind.
func FaultKinds() []FaultKind {
	return []FaultKind{FaultServerError, FaultDelay, FaultHang, FaultReset, FaultDrop,
		FaultBadSignature, FaultMalformedJSON, FaultWrongAmount}
}

// Fault is one injected misbehaviour; Delay is used by FaultDelay only.
type Fault struct {
	Kind  FaultKind
	Delay time.Duration
}

type armed struct {
	fault Fault
	left  int
}

// ErrConnectionReset is returned by Transport for FaultReset.
var ErrConnectionReset = fmt.Errorf("sandbox: connection reset before answering: %w", syscall.ECONNRESET)

// ErrConnectionDropped is returned by Transport for FaultDrop: the call was applied
// but no answer came back.
var ErrConnectionDropped = fmt.Errorf("sandbox: connection dropped after applying the call: %w", io.ErrUnexpectedEOF)

type action int

const (
	actNone action = iota
	actHang
	actReset
	actDrop
)

// abort closes the client's connection without an answer. With reset it sets
// SO_LINGER to 0 so the peer sees a TCP RST.
func abort(w http.ResponseWriter, reset bool) {
	hj, ok := w.(http.Hijacker)
	if !ok {
		panic(http.ErrAbortHandler)
	}
	conn, _, err := hj.Hijack()
	if err != nil {
		panic(http.ErrAbortHandler)
	}
	if tc, ok := conn.(*net.TCPConn); ok && reset {
		_ = tc.SetLinger(0)
	}
	_ = conn.Close()
}

func validEndpoint(ep Endpoint) bool {
	for _, e := range Endpoints() {
		if e == ep {
			return true
		}
	}
	return false
}

func validKind(k FaultKind) bool {
	for _, e := range FaultKinds() {
		if e == k {
			return true
		}
	}
	return false
}

// IsAbort reports whether err came from a reset or drop fault of Transport.
func IsAbort(err error) bool {
	return errors.Is(err, ErrConnectionReset) || errors.Is(err, ErrConnectionDropped)
}
