package ui

import (
	"testing"

	"github.com/stretchr/testify/assert"
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
