package ui

import (
	"testing"
	"time"

	"fyne.io/fyne/v2"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"galla/pos"
)

// leaveOTP pays the cart by card and backs out of the sandbox's OTP step with
// Escape: the payment is left pending.
func (h *harness) leaveOTP() {
	h.t.Helper()
	h.payBy("4111111111111111")
	h.waitFor("the OTP dialog", func() bool { return h.u.pay.otp != nil && !h.u.pay.otp.closed })
	h.u.bar.refreshStatus()
	h.waitFor("the status bar to count the payment in progress", func() bool {
		return h.u.bar.unknownText.Text == "1 payment in progress"
	})
	h.press(fyne.KeyEscape)
	h.settle()
}

// TestCancelOTPLeavesPaymentPending backs out of the OTP step: the wait ends, the
// payment is pending (the screen, the status bar, Check now) and the next customer
// can pay; Check now shows the payment once it is decided.
func TestCancelOTPLeavesPaymentPending(t *testing.T) {
	f := newFakeTill()
	h := newHarness(t, f)
	h.signIn("Ravi", "1234")
	h.enter("CABLE")
	h.leaveOTP()

	p := h.u.pay
	assert.Nil(t, p.run, "the payment call ended")
	assert.Equal(t, "UNKNOWN", p.result.Text)
	assert.Contains(t, p.detail.Text, "The payment is pending")
	assert.False(t, p.checkA.btn.Disabled(), "Check now [F7]")
	assert.Equal(t, "Payment pending: order G-0001 ₹499.00", h.u.bar.unknownText.Text)
	assert.True(t, h.u.bar.checkA.btn.Visible(), "Check now in the status bar")

	h.press(fyne.KeyF7)
	h.settle()
	assert.Equal(t, []string{"G-0001"}, f.checked)
	assert.Contains(t, p.detail.Text, "still pending")

	// The cart stays locked to the pending payment.
	h.press(fyne.KeyEscape)
	require.Equal(t, h.u.sale, h.u.current)
	h.settle()
	assert.True(t, h.u.sale.card.btn.Disabled())
	assert.True(t, h.u.sale.cashA.btn.Disabled())
	assert.Contains(t, h.u.sale.message.Text, "pending")

	// The next customer is served: the terminal is free.
	h.ctrl(fyne.KeyN)
	h.enter("CABLE")
	h.payBy("5555555555554444")
	h.settle()
	assert.Equal(t, "PAID", p.result.Text, "the next payment is taken")
	assert.Equal(t, "G-0002", p.orderID)

	// The customer finished at the bank after all; Ctrl+K checks what is pending.
	f.resolve("G-0001", pos.StatePaid)
	h.ctrl(fyne.KeyK)
	h.settle()
	assert.Equal(t, []string{"G-0001", "G-0001"}, f.checked)
	assert.Contains(t, h.u.bar.notice.Text, "Order G-0001: PAID ₹499.00 — receipt R-G-0001")
	assert.Equal(t, "No unknown payments", h.u.bar.unknownText.Text)
	assert.False(t, h.u.bar.checkA.btn.Visible())
}

// TestPendingThenPaidInTheBackground resolves a payment left pending after the
// cashier moved on: the status bar raises a notice naming its receipt, and Ctrl+O
// opens that receipt.
func TestPendingThenPaidInTheBackground(t *testing.T) {
	f := newFakeTill()
	h := newHarness(t, f)
	h.signIn("Ravi", "1234")
	h.enter("CABLE")
	h.leaveOTP()
	h.press(fyne.KeyEscape)
	h.ctrl(fyne.KeyN)
	h.enter("TV55")
	h.press(fyne.KeyF7) // cash for the next customer
	h.enter("")
	h.settle()

	f.resolve("G-0001", pos.StatePaid)
	h.u.RefreshStatus() // the status ticker
	h.settle()
	assert.Equal(t, "Order G-0001: PAID ₹499.00 — receipt R-G-0001", h.u.bar.notice.Text)
	assert.True(t, h.u.bar.noticeA.btn.Visible(), "Receipt [Ctrl+O] beside the notice")
	back := h.u.current
	h.ctrl(fyne.KeyO)
	h.settle()
	require.Equal(t, h.u.receipt, h.u.current)
	assert.Equal(t, "G-0001", h.u.receipt.orderID)
	assert.NotNil(t, h.u.receipt.image.Resource)
	h.press(fyne.KeyEscape)
	assert.Equal(t, back, h.u.current)
}

// TestPendingThenNotChargedUnlocksTheCart: a pending payment verified not charged
// frees its cart for another tender.
func TestPendingThenNotChargedUnlocksTheCart(t *testing.T) {
	f := newFakeTill()
	h := newHarness(t, f)
	h.signIn("Ravi", "1234")
	h.enter("CABLE")
	h.leaveOTP()
	h.press(fyne.KeyEscape)
	h.settle()
	require.True(t, h.u.sale.cashA.btn.Disabled())

	f.resolve("G-0001", pos.StateFailed)
	h.u.RefreshStatus()
	h.settle()
	assert.Equal(t, "Order G-0001: FAILED — not charged", h.u.bar.notice.Text)
	assert.False(t, h.u.bar.noticeA.btn.Visible(), "no receipt for an order not paid")
	assert.False(t, h.u.sale.cashA.btn.Disabled(), "the cart may be paid again")
	assert.Len(t, h.u.sale.lines, 1)
}

// TestJournalSearchWithNoMatchSelectsNothing: a search that matches nothing leaves
// no order chosen, so F5 refunds none; the refund prompt names its order.
func TestJournalSearchWithNoMatchSelectsNothing(t *testing.T) {
	f := newFakeTill()
	at := time.Date(2026, 11, 22, 10, 5, 0, 0, time.Local)
	f.orders = []OrderSummary{
		{OrderID: "G-0001", At: at, State: pos.StatePaid, Tender: pos.TenderCard, Amount: pos.Rupees(74999), Cashier: "Asha", ReceiptNo: "17", CardLast4: "0004"},
		{OrderID: "G-0002", At: at.Add(time.Hour), State: pos.StatePaid, Tender: pos.TenderCash, Amount: pos.Rupees(499), Cashier: "Ravi", ReceiptNo: "18"},
	}
	h := newHarness(t, f)
	h.signIn("Asha", "4321")
	h.press(fyne.KeyF9)
	h.settle()
	j := h.u.journal
	h.enter("G-0001")
	h.settle()
	require.Equal(t, 0, j.hit)

	h.enter("G-9999")
	h.settle()
	assert.Equal(t, -1, j.hit, "nothing is chosen")
	assert.Empty(t, j.detail.Text)
	assert.Empty(t, j.events)
	assert.Contains(t, j.message.Text, "No sale in the journal matches")
	h.press(fyne.KeyF5)
	assert.Nil(t, h.u.dialogs.prompt, "no refund without a chosen order")
	assert.Contains(t, j.message.Text, "Choose an order first")
	assert.Empty(t, f.refunds)

	h.enter("G-0001")
	h.settle()
	h.press(fyne.KeyF5)
	require.NotNil(t, h.u.dialogs.prompt)
	assert.Equal(t, "Refund order G-0001", h.u.dialogs.prompt.title)
	for _, want := range []string{"Order G-0001", "receipt 17", "₹74,999.00 by card", "card ••••0004"} {
		assert.Contains(t, h.u.dialogs.prompt.message.Text, want)
	}
}
