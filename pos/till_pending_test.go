package pos

import (
	"context"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// rigTill is a Till over the rig's engine and catalog.
func (r *rig) till(t *testing.T) *Till {
	t.Helper()
	tl, err := NewTill(t.Context(), TillConfig{Engine: r.e, SampleCatalog: catalogJSON(t)})
	require.NoError(t, err)
	return tl
}

// bank completes the sandbox's authentication of order id's last attempt, as the
// customer does on the bank's page after the counter stopped waiting.
func (r *rig) bank(t *testing.T, id string) {
	t.Helper()
	o, err := r.e.Order(t.Context(), id)
	require.NoError(t, err)
	a := o.LastAttempt()
	require.NotNil(t, a)
	form := url.Values{"otp": {r.td.OTP}, "action": {"submit"}}
	req := httptest.NewRequest(http.MethodPost, "/acs/"+a.PaymentID, strings.NewReader(form.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Host = "127.0.0.1"
	w := httptest.NewRecorder()
	r.sb.ServeHTTP(w, req)
	require.Less(t, w.Code, 400, w.Body.String())
}

// TestCartLockAndFollowUp leaves a card payment pending (nobody types the OTP):
// its cart is locked to it; once the customer authenticates at the bank the
// follow-up finds it PAID and raises its notice once, with the receipt, and the
// cart is sold. A declined card leaves its cart free to be paid again.
func TestCartLockAndFollowUp(t *testing.T) {
	r := newRig(t)
	tl := r.till(t)
	ctx := t.Context()
	case1, ok := tl.Shelf.Lookup("ACC-CASE")
	require.True(t, ok)
	lines := []CartLine{{Product: case1, Qty: 1}}

	assert.Equal(t, CartLock{}, tl.Pending.CartLock(ctx, ""), "no payment yet: nothing locked")
	out, err := tl.Checkout.Pay(ctx, PayRequest{Lines: lines, Tender: TenderCard, Card: card("4111111111111111"), Cashier: "Ravi",
		Unattended: true, Wait: 5 * time.Second}, nil)
	require.NoError(t, err)
	require.Equal(t, StateUnknown, out.State)
	lock := tl.Pending.CartLock(ctx, out.OrderID)
	assert.True(t, lock.Locked, lock.Reason)
	assert.Contains(t, lock.Reason, out.OrderID)

	notices, err := tl.Pending.FollowUp(ctx)
	require.NoError(t, err)
	assert.Empty(t, notices, "still pending at the bank")

	r.bank(t, out.OrderID)
	r.clock.Advance(time.Minute)
	notices, err = tl.Pending.FollowUp(ctx)
	require.NoError(t, err)
	require.Len(t, notices, 1)
	assert.True(t, notices[0].Paid())
	assert.Equal(t, out.OrderID, notices[0].OrderID)
	assert.NotEmpty(t, notices[0].ReceiptNo)
	assert.Contains(t, notices[0].Text, "PAID")
	again, err := tl.Pending.FollowUp(ctx)
	require.NoError(t, err)
	assert.Empty(t, again, "a notice is raised once")
	lock = tl.Pending.CartLock(ctx, out.OrderID)
	assert.False(t, lock.Locked)
	assert.True(t, lock.Paid)
	checked, err := tl.Pending.CheckOrder(ctx, out.OrderID)
	require.NoError(t, err)
	assert.Equal(t, StatePaid, checked.State)
	assert.Equal(t, 1, r.captures())

	declined, err := tl.Checkout.Pay(ctx, PayRequest{Lines: lines, Tender: TenderCard, Card: card("4000000000000002"), Cashier: "Ravi", OTP: r.td.OTP}, nil)
	require.NoError(t, err)
	require.Equal(t, StateFailed, declined.State)
	lock = tl.Pending.CartLock(ctx, declined.OrderID)
	assert.False(t, lock.Locked, "verified not charged: the cart may be paid again")
	assert.False(t, lock.Paid)
}

// TestStatusInProgressIsNotUnknown: a card payment at its OTP step is in
// progress, not unknown; once the counter stops waiting for the OTP (the flow
// ended with no outcome) it is unknown, with Check now.
func TestStatusInProgressIsNotUnknown(t *testing.T) {
	r := newRig(t)
	tl := r.till(t)
	case1, ok := tl.Shelf.Lookup("ACC-CASE")
	require.True(t, ok)
	lines := []CartLine{{Product: case1, Qty: 1}}

	st := tl.Status(t.Context())
	assert.Equal(t, 0, st.Unknown)
	assert.Equal(t, 0, st.InProgress)

	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	atOTP := make(chan string, 1)
	type result struct {
		out PayOutcome
		err error
	}
	done := make(chan result, 1)
	go func() {
		out, err := tl.Checkout.Pay(ctx, PayRequest{Lines: lines, Tender: TenderCard, Card: card("4111111111111111"), Cashier: "Ravi"},
			func(p PayProgress) {
				if p.OTP {
					atOTP <- p.OrderID
				}
			})
		done <- result{out, err}
	}()
	var id string
	select {
	case id = <-atOTP:
	case res := <-done:
		t.Fatalf("Pay ended before the OTP step: %+v, %v", res.out, res.err)
	}
	st = tl.Status(t.Context())
	assert.Equal(t, 0, st.Unknown, "a payment at its OTP step is not unknown")
	assert.Equal(t, 1, st.InProgress, "it is in progress")
	assert.Empty(t, st.Pending)

	cancel() // the cashier backs out of the OTP step: the payment is left pending
	res := <-done
	if res.err == nil {
		assert.Equal(t, StateUnknown, res.out.State)
	}
	st = tl.Status(t.Context())
	assert.Equal(t, 1, st.Unknown, "left pending after its flow ended: unknown")
	assert.Equal(t, 0, st.InProgress)
	require.Len(t, st.Pending, 1)
	assert.Equal(t, id, st.Pending[0].OrderID)
}
