package pos

import (
	"context"
	"net/url"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"galla/gateway"
	"galla/gateway/sandbox"
)

// phoneEngine is an engine over the rig's journal and gateway whose waits run the
// phone's script: before the engine's n-th wait (from 1) the step for n plays the
// customer's phone between polls.
func (r *rig) phoneEngine(t *testing.T, steps map[int]func()) *Engine {
	t.Helper()
	e, err := New(Config{Journal: r.j, Gateway: r.gw, Clock: r.clock.Script(steps),
		Customer: Customer{Mobile: "9000000001", Email: "counter@example.com"}})
	require.NoError(t, err)
	return e
}

// payOnPhone plays the hosted checkout on the customer's phone: one card payment
// with the order's token, its OTP step completed.
func (r *rig) payOnPhone(t *testing.T, token, number string) {
	t.Helper()
	ctx := context.WithoutCancel(t.Context())
	resp, err := r.gw.CardPayment(ctx, token, card(number), gateway.Customer{Mobile: "9000000002", Email: "c@example.com"})
	require.NoError(t, err)
	if resp.Content != "" {
		require.NoError(t, r.gw.SubmitAuthentication(ctx, resp.Content, url.Values{"otp": {r.td.OTP}}))
	}
}

// phoneSteps records the progress of a phone checkout.
type phoneSteps struct {
	mu    sync.Mutex
	steps []Progress
}

func (p *phoneSteps) opt(wait time.Duration) PayOptions {
	return PayOptions{Wait: wait, Progress: func(pr Progress) {
		p.mu.Lock()
		defer p.mu.Unlock()
		p.steps = append(p.steps, pr)
	}}
}

// failedAttempts returns the attempts the checkout reported failed while it waited.
func (p *phoneSteps) failedAttempts() []Progress {
	p.mu.Lock()
	defer p.mu.Unlock()
	var out []Progress
	for _, pr := range p.steps {
		if pr.Step == StepWaiting && pr.Attempt > 0 {
			out = append(out, pr)
		}
	}
	return out
}

// replayStates folds the journal's events of one order afresh and returns the state
// after each.
func (r *rig) replayStates(t *testing.T, orderID string) []OrderState {
	t.Helper()
	o := &Order{}
	var states []OrderState
	for _, ev := range r.j.allEvents() {
		if ev.OrderID != orderID || !ev.Kind.IsOrderEvent() {
			continue
		}
		if err := o.Apply(ev); err != nil {
			require.ErrorIs(t, err, ErrStaleEvent, "event %d (%s)", ev.Seq, ev.Kind)
		}
		states = append(states, o.State)
	}
	return states
}

// outcomePayments lists the payment ids of the verified outcomes journaled for an
// order, with their payment status, in order.
func (r *rig) outcomePayments(orderID string) map[string]string {
	out := map[string]string{}
	for _, ev := range r.j.allEvents() {
		if ev.OrderID == orderID && ev.Kind == EvPaymentOutcome && ev.Outcome != nil && ev.Outcome.PaymentID != "" {
			out[ev.Outcome.PaymentID] = ev.Outcome.PaymentStatus
		}
	}
	return out
}

func TestPhoneDeclineThenPaidOnTheSameOrder(t *testing.T) {
	r := newRig(t)
	ctx := t.Context()
	o, err := sellOnPhone(ctx, r.e, r.sale(t, "ACC-CASE"), PayOptions{})
	require.NoError(t, err)
	var afterDecline *Order
	e := r.phoneEngine(t, map[int]func(){
		1: func() { r.payOnPhone(t, o.Token, "4000000000000002") },
		3: func() {
			var err error
			afterDecline, err = r.j.Order(ctx, o.ID)
			require.NoError(t, err)
			r.payOnPhone(t, o.Token, "4111111111111111")
		},
	})
	var steps phoneSteps
	res, err := e.Payments.Await(ctx, o.ID, steps.opt(0))
	require.NoError(t, err)

	require.NotNil(t, afterDecline)
	assert.False(t, afterDecline.State.Final(), "a declined attempt leaves the phone order open, not %s", afterDecline.State)
	assert.True(t, afterDecline.Unresolved())
	require.Len(t, afterDecline.Attempts, 1)
	assert.Equal(t, AttemptFailed, afterDecline.Attempts[0].Status, "the failed attempt is journaled")

	assert.Equal(t, ResultPaid, res.Status, res.Reason)
	got := res.Order
	assert.Equal(t, StatePaid, got.State)
	assert.True(t, got.Verified)
	assert.Equal(t, got.Amount, got.Captured)
	require.Len(t, got.Attempts, 2)
	assert.Equal(t, AttemptFailed, got.Attempts[0].Status)
	assert.Contains(t, got.Attempts[0].Reason, "declined")
	assert.Equal(t, AttemptCaptured, got.Attempts[1].Status)
	assert.Equal(t, got.Attempts[1].PaymentID, got.PaymentID)

	lo := r.ledger(t, o.ID)
	assert.Equal(t, "CHARGED", lo.Status)
	assert.Equal(t, 1, lo.CapturedPayments)
	require.Len(t, lo.Payments, 2)
	assert.Equal(t, lo.Payments[0].PaymentID, got.Attempts[0].PaymentID)
	assert.Equal(t, lo.Payments[1].PaymentID, got.Attempts[1].PaymentID)
	assert.Len(t, r.sb.Controls.Ledger(), 1, "one order at the service")

	assert.Equal(t, map[string]string{lo.Payments[0].PaymentID: "FAILED", lo.Payments[1].PaymentID: "CAPTURED"},
		r.outcomePayments(o.ID), "the journal shows both attempts")
	states := r.replayStates(t, o.ID)
	assert.NotContains(t, states, StateFailed, "the phone order never read FAILED")
	assert.Equal(t, StatePaid, states[len(states)-1], "the journal's replay agrees")
	failed := steps.failedAttempts()
	require.Len(t, failed, 1, "the failed attempt is reported once")
	assert.Equal(t, 1, failed[0].Attempt)
	assert.Contains(t, failed[0].Message, "may try again")
}

func TestPhoneFailsOnlyWhenTheServiceOrderFails(t *testing.T) {
	r := newRig(t)
	ctx := t.Context()
	o, err := sellOnPhone(ctx, r.e, r.sale(t, "ACC-CASE"), PayOptions{})
	require.NoError(t, err)
	var before []*Order
	look := func() {
		cur, err := r.j.Order(ctx, o.ID)
		require.NoError(t, err)
		before = append(before, cur)
	}
	e := r.phoneEngine(t, map[int]func(){
		1: func() { r.payOnPhone(t, o.Token, "4000000000000002") },
		3: func() { look(); r.payOnPhone(t, o.Token, "4000000000009995") },
		5: func() { look(); r.payOnPhone(t, o.Token, "4000000000000069") },
	})
	var steps phoneSteps
	res, err := e.Payments.Await(ctx, o.ID, steps.opt(0))
	require.NoError(t, err)

	require.Len(t, before, 2)
	for i, b := range before {
		assert.NotEqual(t, StateFailed, b.State, "after decline %d of %d the order still waits", i+1, MaxAttempts)
		require.Len(t, b.Attempts, i+1)
		assert.Equal(t, AttemptFailed, b.Attempts[i].Status)
	}
	assert.Equal(t, ResultFailed, res.Status)
	assert.Equal(t, StateFailed, res.Order.State, "FAILED on the service's FAILED order after the third decline")
	require.Len(t, res.Order.Attempts, MaxAttempts)
	for _, a := range res.Order.Attempts {
		assert.Equal(t, AttemptFailed, a.Status)
	}
	assert.Contains(t, res.Order.Reason, "Expired card")
	assert.Equal(t, "FAILED", r.ledger(t, o.ID).Status)
	assert.Zero(t, r.captures())
	assert.Len(t, steps.failedAttempts(), 2, "two attempts reported failed while waiting, the third ends it")
	assert.Less(t, r.clock.Now().Sub(o.Opened), time.Minute, "it ended on the answer, not at the deadline")
}

func TestPhoneTokenExpiryFails(t *testing.T) {
	tests := []struct {
		name    string
		decline bool
	}{
		{"after a declined attempt", true},
		{"with no attempt", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := newRig(t)
			ctx := t.Context()
			o, err := sellOnPhone(ctx, r.e, r.sale(t, "ACC-CASE"), PayOptions{})
			require.NoError(t, err)
			// The till takes the order up again 25 minutes on: its token expires five
			// minutes into the wait.
			r.clock.Advance(25 * time.Minute)
			steps := map[int]func(){}
			if tt.decline {
				steps[1] = func() { r.payOnPhone(t, o.Token, "4000000000000002") }
			}
			res, err := r.phoneEngine(t, steps).Payments.Await(ctx, o.ID, PayOptions{})
			require.NoError(t, err)
			assert.Equal(t, ResultFailed, res.Status, res.Reason)
			assert.Equal(t, StateFailed, res.Order.State)
			assert.Equal(t, "FAILED", r.ledger(t, o.ID).Status)
			elapsed := r.clock.Now().Sub(o.Opened)
			assert.GreaterOrEqual(t, elapsed, sandbox.TokenLifetime, "FAILED only once the token expired")
			assert.Less(t, elapsed, sandbox.TokenLifetime+2*time.Minute)
			if tt.decline {
				require.Len(t, res.Order.Attempts, 1)
				assert.Equal(t, AttemptFailed, res.Order.Attempts[0].Status)
			}
			_, err = r.gw.CardPayment(ctx, o.Token, card("4111111111111111"), gateway.Customer{Mobile: "9000000002", Email: "c@example.com"})
			assert.Error(t, err, "the phone can no longer pay")
		})
	}
}

func TestPhoneUnverifiedThenReconciledPaid(t *testing.T) {
	r := newRig(t)
	ctx := t.Context()
	o, err := sellOnPhone(ctx, r.e, r.sale(t, "ACC-CASE"), PayOptions{})
	require.NoError(t, err)
	e := r.phoneEngine(t, map[int]func(){
		1: func() { r.payOnPhone(t, o.Token, "4000000000000002") },
		2: func() {
			r.sb.Controls.Inject(sandbox.EndpointInquireOrder, sandbox.Fault{Kind: sandbox.FaultBadSignature}, 1000)
			r.sb.Controls.Inject(sandbox.EndpointInquirePayment, sandbox.Fault{Kind: sandbox.FaultBadSignature}, 1000)
		},
		3: func() { r.payOnPhone(t, o.Token, "4111111111111111") },
	})
	res, err := e.Payments.Await(ctx, o.ID, PayOptions{Wait: 30 * time.Second})
	require.NoError(t, err)
	assert.Equal(t, ResultUnverified, res.Status)
	assert.Equal(t, StateUnknown, res.Order.State, "an unverified CHARGED is never PAID")
	assert.False(t, res.Order.Verified)
	require.Len(t, res.Order.Attempts, 1, "the till knows the declined attempt only")
	assert.Equal(t, 1, r.captures(), "the phone did pay")

	rep, err := e.Payments.Reconcile(ctx)
	require.NoError(t, err)
	assert.Len(t, rep.Open, 1, "still unverified: still open")

	r.sb.Controls.ClearFaults()
	rep, err = e.Payments.Reconcile(ctx)
	require.NoError(t, err)
	require.Len(t, rep.Resolved, 1)
	got, err := r.e.Order(ctx, o.ID)
	require.NoError(t, err)
	assert.Equal(t, StatePaid, got.State, "the order, not the declined payment, was inquired")
	assert.True(t, got.Verified)
	require.Len(t, got.Attempts, 2, "the phone's second attempt is adopted")
	assert.Equal(t, AttemptCaptured, got.Attempts[1].Status)
	lo := r.ledger(t, o.ID)
	require.Len(t, lo.Payments, 2)
	assert.Equal(t, lo.Payments[1].PaymentID, got.PaymentID)
	assert.Equal(t, 1, r.captures())
}

func TestPhoneLeftWaitingIsReconciledLater(t *testing.T) {
	r := newRig(t)
	ctx := t.Context()
	o, err := sellOnPhone(ctx, r.e, r.sale(t, "ACC-CASE"), PayOptions{})
	require.NoError(t, err)
	e := r.phoneEngine(t, map[int]func(){1: func() { r.payOnPhone(t, o.Token, "4000000000000002") }})
	res, err := e.Payments.Await(ctx, o.ID, PayOptions{Wait: 2 * time.Minute})
	require.NoError(t, err)
	assert.Equal(t, ResultUnknown, res.Status, "no final answer at the deadline")
	assert.Equal(t, StateUnknown, res.Order.State)

	// The customer tries again on the phone after the till stopped waiting.
	r.payOnPhone(t, o.Token, "5555555555554444")
	rep, err := e.Payments.Reconcile(ctx)
	require.NoError(t, err)
	require.Len(t, rep.Resolved, 1)
	assert.Equal(t, StatePaid, rep.Resolved[0].State)
	assert.Equal(t, 1, r.captures())
}
