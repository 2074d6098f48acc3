package ui

import (
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"galla/pos"
)

// TestPayShowsWaitingNote checks that what pos says while a phone payment is still
// open (an attempt failed, the customer may try again) reaches the cashier.
func TestPayShowsWaitingNote(t *testing.T) {
	h := newHarness(t, newFakeTill())
	h.signIn("Ravi", "1234")
	p := h.u.pay
	run := &payRun{cancel: func() {}}
	p.run = run
	const note = "Attempt 1 on the phone did not go through (declined); the customer may try again."
	p.progress(run, Progress{OrderID: "G-0001", Step: StepAuthenticating, CheckoutURL: "http://127.0.0.1:7071/pay/G-0001"})
	assert.NotEqual(t, note, p.detail.Text)
	p.progress(run, Progress{OrderID: "G-0001", Step: StepAuthenticating, Note: note})
	assert.Equal(t, note, p.detail.Text)
}

// TestPayOutcomeStandsAfterTheOTP: the payment may end (the service
// answered, the outcome shown) before the window hears back from the OTP it
// sent; that late answer closes its dialog and leaves the outcome as shown,
// never the steps back at "verifying" under PAID (seen in
// TestMarkupEMISale, one run in some, as the two answers raced).
func TestPayOutcomeStandsAfterTheOTP(t *testing.T) {
	f := newFakeTill()
	f.otp = make(chan string, 1) // a payment waiting on the OTP
	h := newHarness(t, f)
	h.signIn("Ravi", "1234")
	h.settle()
	p := h.u.pay
	run := &payRun{cancel: func() {}, orderID: "G-0001"}
	p.run, p.orderID = run, "G-0001"
	p.progress(run, Progress{OrderID: "G-0001", Step: StepAuthenticating, OTP: true})
	require.NotNil(t, p.otp)
	p.otpEntry.SetText("123456")
	p.otp.onOK(p.otp) // Enter in the dialog: the OTP goes to the service
	deadline := time.Now().Add(5 * time.Second)
	for h.u.pending.Load() != 0 && time.Now().Before(deadline) {
		time.Sleep(time.Millisecond) // answered; what it shows waits in the queue
	}
	require.Zero(t, h.u.pending.Load())
	p.done(run, Outcome{OrderID: "G-0001", State: pos.StatePaid, Verified: true, Amount: pos.Rupees(499)}, nil)
	h.settle()
	assert.True(t, p.otp.closed, "the OTP dialog closed")
	assert.Equal(t, "PAID", p.result.Text)
	assert.NotContains(t, p.poll.Text, "verifying")
	for i, st := range p.steps {
		assert.True(t, strings.HasPrefix(st.Text, "✓"), "step %d: %q", i, st.Text)
	}
}
