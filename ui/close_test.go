package ui

import (
	"strings"
	"testing"

	"fyne.io/fyne/v2"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"galla/pos"
)

// TestCloseWithPaymentsOpen: closing the window with a card payment in flight
// and one left pending asks first, naming both; Escape keeps the window open,
// Enter closes it. With nothing open the window closes at once.
func TestCloseWithPaymentsOpen(t *testing.T) {
	f := newFakeTill()
	hold := make(chan struct{})
	f.holdPay = hold
	f.status.Pending = []PendingPayment{{OrderID: "G-0007", Amount: pos.Rupees(1500), State: pos.StateUnknown}}
	f.status.Unknown = 1
	h := newHarness(t, f)
	h.signIn("Ravi", "1234")
	h.enter("CABLE")
	h.payBy("5555555555554444")
	h.waitFor("order created", func() bool { return strings.HasPrefix(h.u.pay.steps[0].Text, "✓") })

	otp := newKeyEntry(h.u) // a dialog open when the window is closed, as the OTP's
	under := h.u.dialogs.ask("One-time password", "", []*keyEntry{otp}, func(p *prompt) { p.close() })
	h.u.confirmClose()
	h.waitFor("the question", func() bool { return h.u.dialogs.prompt != under })
	p := h.u.dialogs.prompt
	require.NotNil(t, p, "closing with payments open asks")
	assert.Equal(t, closeTitle, p.title)
	assert.Contains(t, p.message.Text, "Card payment (order G-0001): in progress now")
	assert.Contains(t, p.message.Text, "Order G-0007, ₹1,500.00: its outcome is not known yet")
	assert.NotContains(t, p.message.Text, "other payment", "the payment in flight is named, not counted again")
	assert.True(t, p.cancel.Visible())
	h.press(fyne.KeyEscape)
	assert.Equal(t, under, h.u.dialogs.prompt, "the dialog under the question is the open one again")
	assert.Equal(t, otp, h.focused(), "with its field focused")
	assert.NoError(t, h.u.ctx.Err(), "Escape keeps the window open")
	h.press(fyne.KeyEscape)
	require.Nil(t, h.u.dialogs.prompt)

	h.u.confirmClose()
	h.waitFor("the question again", func() bool { return h.u.dialogs.prompt != nil })
	h.u.win.Canvas().Focus(h.u.dialogs.prompt.ok)
	h.press(fyne.KeyReturn)
	assert.Error(t, h.u.ctx.Err(), "Close Galla closes the window")
	close(hold)
}

// TestCloseWithNothingOpen: the window closes at once.
func TestCloseWithNothingOpen(t *testing.T) {
	h := newHarness(t, newFakeTill())
	h.signIn("Ravi", "1234")
	h.u.confirmClose()
	h.settle()
	assert.Nil(t, h.u.dialogs.prompt)
	assert.Error(t, h.u.ctx.Err(), "nothing open: the window closes")
}

// TestPayOnPhoneSaysWhatHappened: while the customer's phone has not paid, the
// payment screen names the amount and waits for the phone; it does not say
// that a customer is authenticating.
func TestPayOnPhoneSaysWhatHappened(t *testing.T) {
	f := newFakeTill()
	hold := make(chan struct{})
	f.holdPay = hold
	h := newHarness(t, f)
	h.signIn("Ravi", "1234")
	h.enter("CABLE")
	h.press(fyne.KeyF8)
	p := h.u.pay
	h.waitFor("the QR code", func() bool { return p.qrURL.Text != "" })
	assert.Equal(t, "Pay on phone ₹499.00: waiting for the customer", p.title.Text)
	assert.Equal(t, "✓   Order created", p.steps[0].Text)
	assert.Equal(t, "…   "+phoneWaitStep, p.steps[1].Text)
	for _, l := range p.steps {
		assert.NotContains(t, l.Text, "authenticating")
	}
	close(hold)
	h.settle()
	assert.Equal(t, "PAID", p.result.Text)
}
