package sandbox

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"sort"
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

// Inject makes the next n calls of ep misbehave with f. Injections queue up: the
// first one is used until its n calls are spent. n <= 0 does nothing.
func (s *Sandbox) Inject(ep Endpoint, f Fault, n int) {
	if n <= 0 {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.faults[ep] = append(s.faults[ep], &armed{fault: f, left: n})
}

// ClearFaults removes every injected fault.
func (s *Sandbox) ClearFaults() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.faults = map[Endpoint][]*armed{}
}

// takeFault spends one call of the first fault armed on ep.
func (s *Sandbox) takeFault(ep Endpoint) *Fault {
	s.mu.Lock()
	defer s.mu.Unlock()
	q := s.faults[ep]
	for len(q) > 0 && q[0].left <= 0 {
		q = q[1:]
	}
	if len(q) == 0 {
		delete(s.faults, ep)
		return nil
	}
	q[0].left--
	f := q[0].fault
	s.faults[ep] = q
	return &f
}

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

// Transport serves the sandbox in process, without a socket. FaultReset and
// FaultDrop return ErrConnectionReset and ErrConnectionDropped from RoundTrip;
// FaultHang blocks until the request's context is done.
func (s *Sandbox) Transport() http.RoundTripper { return transport{s} }

type transport struct{ s *Sandbox }

func (t transport) RoundTrip(req *http.Request) (*http.Response, error) {
	ctx := req.Context()
	var body []byte
	if req.Body != nil {
		b, err := io.ReadAll(req.Body)
		_ = req.Body.Close()
		if err != nil {
			return nil, fmt.Errorf("sandbox: transport: read body: %w", err)
		}
		body = b
	}
	in := req.Clone(ctx)
	in.Body = io.NopCloser(bytes.NewReader(body))
	in.ContentLength = int64(len(body))
	in.RequestURI = req.URL.RequestURI()
	in.RemoteAddr = "127.0.0.1:0"
	if in.Host == "" {
		in.Host = req.URL.Host
	}
	start := time.Now()
	rep, act := t.s.process(in)
	switch act {
	case actHang:
		<-ctx.Done()
		return nil, ctx.Err()
	case actReset:
		return nil, ErrConnectionReset
	case actDrop:
		return nil, ErrConnectionDropped
	}
	t.s.logger.Info("request", "method", req.Method, "path", req.URL.Path, "status", rep.status,
		"duration", time.Since(start).Round(time.Microsecond).String())
	return &http.Response{
		Status:        fmt.Sprintf("%d %s", rep.status, http.StatusText(rep.status)),
		StatusCode:    rep.status,
		Proto:         "HTTP/1.1",
		ProtoMajor:    1,
		ProtoMinor:    1,
		Header:        rep.header.Clone(),
		Body:          io.NopCloser(bytes.NewReader(rep.body)),
		ContentLength: int64(len(rep.body)),
		Request:       req,
	}, nil
}

// adminFault is the JSON of the admin endpoint.
type adminFault struct {
	Endpoint Endpoint  `json:"endpoint"`
	Fault    FaultKind `json:"fault"`
	N        int       `json:"n"`
	Delay    string    `json:"delay,omitempty"`
}

// adminHandler serves /admin/faults (POST arms, GET lists, DELETE clears) and
// GET /admin/ledger. It is routed only when the admin option is on, and answers
// only a caller with the admin token.
func (s *Sandbox) adminHandler(r *request) *reply {
	if rep := s.adminAllowed(r); rep != nil {
		return rep
	}
	switch {
	case r.URL.Path == "/admin/faults" && r.Method == http.MethodPost:
		var f adminFault
		if err := json.Unmarshal(r.body, &f); err != nil {
			return errCode(400, "400", "body must be {endpoint, fault, n, delay}")
		}
		if !validEndpoint(f.Endpoint) || !validKind(f.Fault) || f.N <= 0 {
			return errCode(400, "400", "unknown endpoint or fault, or n not positive")
		}
		var d time.Duration
		if f.Delay != "" {
			var err error
			if d, err = time.ParseDuration(f.Delay); err != nil || d < 0 {
				return errCode(400, "400", "delay must be a Go duration such as 2s")
			}
		}
		if f.Fault == FaultDelay && d == 0 {
			return errCode(400, "400", "the delay fault needs a delay")
		}
		s.Inject(f.Endpoint, Fault{Kind: f.Fault, Delay: d}, f.N)
		return jsonReply(200, s.listFaults())
	case r.URL.Path == "/admin/faults" && r.Method == http.MethodGet:
		return jsonReply(200, s.listFaults())
	case r.URL.Path == "/admin/faults" && r.Method == http.MethodDelete:
		s.ClearFaults()
		return jsonReply(200, []adminFault{})
	case r.URL.Path == "/admin/ledger" && r.Method == http.MethodGet:
		return jsonReply(200, s.Ledger())
	}
	return errCode(404, "404", "NOT_FOUND")
}

func (s *Sandbox) listFaults() []adminFault {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := []adminFault{}
	for ep, q := range s.faults {
		for _, a := range q {
			if a.left > 0 {
				af := adminFault{Endpoint: ep, Fault: a.fault.Kind, N: a.left}
				if a.fault.Delay > 0 {
					af.Delay = a.fault.Delay.String()
				}
				out = append(out, af)
			}
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].Endpoint < out[j].Endpoint })
	return out
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
