package cli

import (
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"

	"fyne.io/fyne/v2"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"galla/gateway/sandbox"
	"galla/pos"
	"galla/ui"
)

// leaveOTP sells the S24 by card (4111…, approved after the OTP) and backs out of
// the sandbox's OTP step with Escape. It returns the payment's order (the sale's
// one tender, the order the payment service knows), which must be pending.
func (k *counter) leaveOTP() string {
	k.t.Helper()
	k.enter("s24")
	k.waitText("1 item")
	k.press(fyne.KeyF5)
	k.giveIMEI("35693803564380")
	k.waitText("Card payment")
	k.enter("4111111111111111")
	k.enter("12/30")
	k.enter("123")
	k.enter("A Customer")
	k.waitFor("the OTP dialog with the focus", func() bool {
		return k.shows("Customer authentication (sandbox)") && k.inDialog()
	})
	k.press(fyne.KeyEscape)
	k.waitFor("the result", func() bool { return k.result() != "" })
	require.Equal(k.t, "UNKNOWN", k.result(), k.screenText())
	orders, err := k.till.Books.Orders(k.t.Context(), k.till.eng.Now())
	require.NoError(k.t, err)
	require.Len(k.t, orders, 1)
	return saleTender(k.t, k.till, orders[0].OrderID).ID // the sale's one tender
}

// authenticateAtBank completes the OTP step of order id at the sandbox's bank page,
// as the customer would on the page after the cashier gave up waiting.
func authenticateAtBank(t *testing.T, till *terminal, id string) {
	t.Helper()
	o, err := till.eng.Order(t.Context(), id)
	require.NoError(t, err)
	a := o.LastAttempt()
	require.NotNil(t, a, "order %s has its payment attempt", id)
	form := url.Values{"otp": {sandbox.TestOTP}, "action": {"submit"}}
	r := httptest.NewRequest(http.MethodPost, "/acs/"+a.PaymentID, strings.NewReader(form.Encode()))
	r.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	r.Host = "127.0.0.1" // the bank page is the sandbox's own: it answers no other host
	w := httptest.NewRecorder()
	till.ps.sandbox.ServeHTTP(w, r)
	require.Less(t, w.Code, 400, w.Body.String())
}

// TestWindowCancelOTPLeavesPaymentPending backs out of the sandbox's OTP step on
// the real till: the payment stays pending (screen, status bar, journal) and is
// never cancelled; its cart is locked to it (no cash for it, no second order);
// the customer then authenticates at the bank and Check now (Ctrl+K) finds it
// PAID, with its receipt in the notice (Ctrl+O): one capture in all.
func TestWindowCancelOTPLeavesPaymentPending(t *testing.T) {
	ctx := t.Context()
	till := newWindowTill(t)
	require.NoError(t, till.Crew.AddStaff(ctx, "Asha", ui.RoleManager, "432100"))
	k := newCounter(t, till)
	k.signIn("Asha", "432100")

	id := k.leaveOTP()
	k.waitText("The payment is pending")
	k.waitText("Payment pending: order " + id)
	assert.True(t, k.shows("Check now [Ctrl+K]"), k.screenText())
	assert.True(t, k.shows("Check now [F7]"), k.screenText())
	o, err := till.eng.Order(ctx, id)
	require.NoError(t, err)
	assert.Equal(t, pos.StateUnknown, o.State, "the journal has the payment pending, not cancelled")
	assert.Zero(t, captures(till))

	// The cart is locked to the pending payment: no cash is taken for it.
	k.press(fyne.KeyEscape)
	k.waitText("is pending: its outcome is not known yet")
	k.press(fyne.KeyF7)
	k.settle()
	assert.False(t, k.shows("Cash tendered, e.g."), "no cash screen for a locked cart: %s", k.screenText())
	assert.True(t, k.shows("Scan a barcode"), "still the sale screen: %s", k.screenText())
	orders, err := till.Books.Orders(ctx, till.eng.Now())
	require.NoError(t, err)
	assert.Len(t, orders, 1, "no second order for the cart")

	// The customer authenticates at the bank after all; Check now finds it paid.
	authenticateAtBank(t, till, id)
	k.ctrl(fyne.KeyK)
	k.waitText("Order " + id + ": PAID")
	k.waitText("Receipt [Ctrl+O]")
	k.waitText("Cart is empty")
	o, err = till.eng.Order(ctx, id)
	require.NoError(t, err)
	assert.Equal(t, pos.StatePaid, o.State)
	assert.True(t, o.Verified)
	sale, err := till.eng.Order(ctx, o.Sale) // the receipt is the sale's, which its tender completed
	require.NoError(t, err)
	assert.Equal(t, pos.StatePaid, sale.State)
	assert.True(t, k.shows("receipt "+sale.NumberText()), k.screenText())
	assert.Equal(t, 1, captures(till), "captured once")
	k.waitText("No unknown payments")

	k.ctrl(fyne.KeyO)
	k.waitFor("the receipt preview", func() bool { return k.receiptImage() != nil })
	assert.Equal(t, "receipt-"+sale.ID+".png", k.receiptImage().Name())
	k.settle()
}

// TestWindowLatePaidRaisesNotice leaves a payment pending, serves the next
// customer in cash, and lets the background follow-up find the first payment PAID:
// the status bar names the order and its receipt, and Ctrl+O opens it.
func TestWindowLatePaidRaisesNotice(t *testing.T) {
	ctx := t.Context()
	till := newWindowTill(t)
	require.NoError(t, till.Crew.AddStaff(ctx, "Asha", ui.RoleManager, "432100"))
	k := newCounter(t, till)
	k.signIn("Asha", "432100")

	id := k.leaveOTP()
	k.press(fyne.KeyEscape)
	k.ctrl(fyne.KeyN) // the next customer, in cash
	k.waitText("Cart is empty")
	k.enter("s24")
	k.waitText("1 item")
	k.press(fyne.KeyF7)
	k.giveIMEI("35693803564381") // another phone
	k.waitText("Take cash")
	k.enter("80000")
	k.waitFor("the receipt preview", func() bool { return k.receiptImage() != nil })
	k.press(fyne.KeyEscape)
	k.waitText("Cart is empty")

	authenticateAtBank(t, till, id)
	k.waitFor("the notice of the late payment", func() bool {
		if !k.u.Busy() {
			k.u.RefreshStatus() // the status ticker
		}
		return k.shows("Order " + id + ": PAID")
	})
	o, err := till.eng.Order(ctx, id)
	require.NoError(t, err)
	require.Equal(t, pos.StatePaid, o.State)
	sale, err := till.eng.Order(ctx, o.Sale) // the receipt is the sale's, which its tender completed
	require.NoError(t, err)
	require.Equal(t, pos.StatePaid, sale.State)
	assert.True(t, k.shows("receipt "+sale.NumberText()), k.screenText())
	k.ctrl(fyne.KeyO)
	k.waitFor("the late order's receipt", func() bool {
		return k.receiptImage() != nil && k.receiptImage().Name() == "receipt-"+sale.ID+".png"
	})
	assert.Equal(t, 1, ledger(t, till, id).CapturedPayments)
	k.settle()
}
