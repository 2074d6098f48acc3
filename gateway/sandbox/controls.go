package sandbox

import (
	"encoding/json"
	"net/http"
	"sort"
	"time"
)

// Controls are the sandbox's test and operator controls, which the live service
// has not: faults to inject on an endpoint's next calls (contract section 10), the
// ledger of what the service believes, and the admin endpoint that offers both
// over HTTP (/admin/faults, /admin/ledger, with the admin token). Get them from
// Sandbox.Controls.
type Controls struct{ *core }

// Inject makes the next n calls of ep misbehave with f. Injections queue up: the
// first one is used until its n calls are spent. n <= 0 does nothing.
func (ct *Controls) Inject(ep Endpoint, f Fault, n int) {
	if n <= 0 {
		return
	}
	ct.mu.Lock()
	defer ct.mu.Unlock()
	ct.faults[ep] = append(ct.faults[ep], &armed{fault: f, left: n})
}

// ClearFaults removes every injected fault.
func (ct *Controls) ClearFaults() {
	ct.mu.Lock()
	defer ct.mu.Unlock()
	ct.faults = map[Endpoint][]*armed{}
}

// takeFault spends one call of the first fault armed on ep.
func (ct *Controls) takeFault(ep Endpoint) *Fault {
	ct.mu.Lock()
	defer ct.mu.Unlock()
	q := ct.faults[ep]
	for len(q) > 0 && q[0].left <= 0 {
		q = q[1:]
	}
	if len(q) == 0 {
		delete(ct.faults, ep)
		return nil
	}
	q[0].left--
	f := q[0].fault
	ct.faults[ep] = q
	return &f
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
func (ct *Controls) adminHandler(r *request) *reply {
	if rep := ct.guard.adminAllowed(r); rep != nil {
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
		ct.Inject(f.Endpoint, Fault{Kind: f.Fault, Delay: d}, f.N)
		return jsonReply(200, ct.listFaults())
	case r.URL.Path == "/admin/faults" && r.Method == http.MethodGet:
		return jsonReply(200, ct.listFaults())
	case r.URL.Path == "/admin/faults" && r.Method == http.MethodDelete:
		ct.ClearFaults()
		return jsonReply(200, []adminFault{})
	case r.URL.Path == "/admin/ledger" && r.Method == http.MethodGet:
		return jsonReply(200, ct.Ledger())
	}
	return errCode(404, "404", "NOT_FOUND")
}

func (ct *Controls) listFaults() []adminFault {
	ct.mu.Lock()
	defer ct.mu.Unlock()
	out := []adminFault{}
	for ep, q := range ct.faults {
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

// Ledger lists every order in creation order, with time-driven changes (the
// pending card's capture, token expiry) applied as of now. It reads the whole
// archive (archive.go), where the old orders are.
func (ct *Controls) Ledger() []LedgerOrder {
	ct.mu.Lock()
	defer ct.mu.Unlock()
	all, err := ct.state.allOrders()
	if err != nil { // the archive unreadable: the log's orders
		ct.logger.Error("sandbox archive unusable", "file", ct.state.path, "err", err.Error())
		all = nil
		for _, id := range ct.seq {
			all = append(all, ct.orders[id])
		}
	}
	out := make([]LedgerOrder, 0, len(all))
	for _, o := range all {
		ct.settle(o)
		lo := LedgerOrder{MerchantID: o.m.ID, MerchantOrderID: o.merchantOrderID, ServiceOrderID: o.id,
			Amount: o.amount, Status: o.status(), RefundedAmount: o.refunded, Payments: []LedgerPayment{}}
		for _, p := range o.payments {
			if p.captured {
				lo.CapturedPayments++
				lo.CapturedAmount += p.amount
			}
			lo.Payments = append(lo.Payments, LedgerPayment{PaymentID: p.id, Mode: p.mode, Amount: p.amount,
				Status: p.status, Captured: p.captured, RefundedAmount: p.refunded, ResponseCode: p.code, Message: p.message})
		}
		out = append(out, lo)
	}
	return out
}

// AdminToken is the token the admin endpoint requires, as
// "Authorization: Bearer <token>".
func (ct *Controls) AdminToken() string { return ct.guard.token }
