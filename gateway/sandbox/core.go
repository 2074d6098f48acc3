package sandbox

import (
	"fmt"
	"log/slog"
	"net/http"
	"sync"
	"time"
)

// core is the state the sandbox's parts share: the clock, the identifiers, the
// merchants, the orders and payments with their indexes, the blocked IMEIs, the
// used refund ids, the armed faults and the rate-limit windows, all under mu. Its
// methods are the order bookkeeping every payment endpoint passes through (settle,
// capture, fail, authenticate, newPayment, the token and payability checks) and the
// rate limit. Each part holds the one core; a part reaches the state file (state)
// and the host and admin guard (guard) through it, never through the Sandbox.
type core struct {
	now    func() time.Time
	logger *slog.Logger
	admin  bool
	guard  *guard
	rateN  int
	rate   time.Duration

	mu         sync.Mutex
	ids        IDSource
	merchants  map[string]*merchant
	orders     map[string]*order   // by service order id
	byToken    map[string]*order   // by raw (decoded) token
	payments   map[string]*payment // by payment id
	orderIDs   map[string]bool     // merchant id + "\x00" + merchant order id
	refundIDs  map[string]bool     // merchant id + "\x00" + unique_txn_id
	imeis      map[string]string   // blocked IMEI -> service order id
	faults     map[Endpoint][]*armed
	rateWindow map[string]rateState // by merchant id
	seq        []string             // service order ids in creation order
	refundNos  map[string]bool      // refund ids handed out

	state *stateLog // the state file; its path is "" when the state is kept in memory only
}

// settle applies what time has done to o: the pending card's capture after its
// hold, and token expiry. The caller holds c.mu.
func (c *core) settle(o *order) {
	c.state.touch(o)
	now := c.now()
	for _, p := range o.payments {
		if p.stage == stageIssuer && !now.Before(p.captureAt) {
			c.capture(p, p.captureAt)
		}
	}
	if o.capturedPayment() == nil && !now.Before(o.created.Add(TokenLifetime)) {
		for _, p := range o.payments {
			if p.stage == stageAuth {
				c.fail(p, codeAuthTimeout, msgAuthTimeout, o.created.Add(TokenLifetime))
			}
		}
		pendingIssuer := false
		for _, p := range o.payments {
			pendingIssuer = pendingIssuer || p.stage == stageIssuer
		}
		if !pendingIssuer {
			o.expired = true
		}
	}
}

// capture completes p successfully unless its order is paid already, in which
// case p fails: an order never has two captured payments.
func (c *core) capture(p *payment, at time.Time) {
	if p.o.capturedPayment() != nil {
		c.fail(p, codeAlreadyPaid, msgAlreadyPaid, at)
		return
	}
	p.captured, p.status, p.stage = true, statusCaptured, stageDone
	p.code, p.message, p.completed = 1, msgSuccess, at
	p.authCode, p.rrn = c.ids.NewID(IDAuthCode), c.ids.NewID(IDRRN)
}

func (c *core) fail(p *payment, code int, msg string, at time.Time) {
	p.status, p.stage, p.code, p.message, p.completed = statusFailed, stageDone, code, msg, at
}

// orderByToken finds the order of a payment call's token. The caller holds c.mu.
func (c *core) orderByToken(tok string) (*order, *reply) {
	o, err := c.state.orderWithToken(tok)
	if err != nil {
		return nil, c.archiveFault(err)
	}
	if o == nil {
		return nil, errTokenInvalid()
	}
	c.settle(o)
	if o.capturedPayment() == nil && !c.now().Before(o.created.Add(TokenLifetime)) {
		return nil, errTokenExpired()
	}
	return o, nil
}

// payableOrder finds the order a payment call's token names and checks that the
// merchant is within its rate and the order can take a payment. The caller holds
// c.mu.
func (c *core) payableOrder(r *request) (*order, *reply) {
	o, rep := c.orderByToken(r.URL.Query().Get("token"))
	if rep != nil {
		return nil, rep
	}
	if rep := c.limited(o.m.ID); rep != nil {
		return nil, rep
	}
	if rep := canPay(o); rep != nil {
		return nil, rep
	}
	return o, nil
}

// newPayment records an accepted card attempt. A frictionless card is captured at
// once. The caller holds c.mu and has checked canPay.
func (c *core) newPayment(o *order, card cardJSON, cust customer, amount int64, mode, issuer string) (*payment, *reply) {
	now := c.now()
	outcome, _ := outcomeOf(card.CardNumber) // valid has checked that it is a test card
	id, err := c.uniquePaymentID()
	if err != nil {
		return nil, c.archiveFault(err)
	}
	p := &payment{
		id: id, o: o, amount: amount, mode: mode, status: statusPending, stage: stageAuth,
		outcome: outcome, last4: card.CardNumber[len(card.CardNumber)-4:],
		holder: card.CardHolderName, issuer: issuer, mobile: cust.Mobile, created: now,
	}
	o.payments = append(o.payments, p)
	c.payments[p.id] = p
	if p.outcome.kind == outcomeFrictionless {
		c.capture(p, now)
	}
	return p, nil
}

// uniqueID draws identifiers of kind until one is not taken (in memory or in the
// archive). The caller holds c.mu.
func (c *core) uniqueID(kind IDKind, key byte) (string, error) {
	for {
		id := c.ids.NewID(kind)
		used, err := c.state.idUsed(key, id)
		if err != nil {
			return "", err
		}
		if !used {
			return id, nil
		}
	}
}

func (c *core) uniquePaymentID() (string, error) { return c.uniqueID(IDPayment, keyPayment) }

// archiveFault is the answer to a request the archive could not serve (a segment
// unreadable or damaged): 500, and one log line.
func (c *core) archiveFault(err error) *reply {
	c.logger.Error("sandbox archive unusable", "file", c.state.path, "err", err.Error())
	return serverError()
}

// authenticate ends the OTP step of p with the card's outcome. The caller holds c.mu.
func (c *core) authenticate(p *payment, otp string) {
	now := c.now()
	if otp != TestOTP {
		c.fail(p, codeAuthFailed, msgAuthFailed, now)
		return
	}
	switch p.outcome.kind {
	case outcomeDecline:
		c.fail(p, p.outcome.code, p.outcome.message, now)
	case outcomePendingHold:
		p.stage, p.captureAt, p.message = stageIssuer, now.Add(PendingHold), "Awaiting the issuer"
	default:
		c.capture(p, now)
	}
}

type rateState struct {
	start time.Time
	count int
}

// limited applies the per-merchant rate limit; it returns a 429 answer or nil.
// The caller holds c.mu.
func (c *core) limited(merchantID string) *reply {
	if c.rateN <= 0 {
		return nil
	}
	now := c.now()
	st := c.rateWindow[merchantID]
	if st.start.IsZero() || now.Sub(st.start) >= c.rate || now.Before(st.start) {
		st = rateState{start: now}
	}
	if st.count >= c.rateN {
		wait := st.start.Add(c.rate).Sub(now)
		secs := int((wait + time.Second - 1) / time.Second)
		if secs < 1 {
			secs = 1
		}
		rep := errCode(http.StatusTooManyRequests, "429", "RATE_LIMITED")
		rep.header.Set("Retry-After", fmt.Sprint(secs))
		return rep
	}
	st.count++
	c.rateWindow[merchantID] = st
	return nil
}
