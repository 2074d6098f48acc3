package cli

import (
	"testing"

	"fyne.io/fyne/v2"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"galla/pos"
	"galla/ui"
)

// cable is the sample catalog's ₹499 cable.
func cable(t *testing.T, till *terminal) ui.Line {
	t.Helper()
	p, ok := till.Shelf.Lookup("ACC-CBL-CC1M")
	require.True(t, ok)
	require.Equal(t, pos.Rupees(499), p.Price)
	return ui.Line{Product: p, Qty: 1}
}

// TestWindowShiftOpenMoveClose drives the shift screen with the keyboard: open
// with the counted float, a paid-out with its reason, a cash sale, and the close
// counted note by note with the variance, all journaled.
func TestWindowShiftOpenMoveClose(t *testing.T) {
	ctx := t.Context()
	till := newWindowTill(t)
	manager(t, till)
	k := newCounter(t, till)
	k.signIn("Asha", "432100")

	k.press(fyne.KeyF12)
	k.waitText("No shift is open at this terminal")
	k.press(fyne.KeyF5)
	k.waitText("Open a shift")
	k.enter("2000")
	k.waitText("is open with a float of ₹2,000.00")

	k.press(fyne.KeyF7)
	k.waitText("Cash paid out")
	k.enter("120")
	k.enter("tea for the staff")
	k.waitText("Cash paid out: ₹120.00 (tea for the staff)")

	sale, err := till.Checkout.Pay(ctx, ui.PayRequest{Lines: []ui.Line{cable(t, till)}, Tender: pos.TenderCash, Tendered: pos.Rupees(500), Cashier: "Asha"}, nil)
	require.NoError(t, err)
	require.Equal(t, pos.StatePaid, sale.State)

	// 2,000 float + 499 sale − 120 paid out = 2,379 expected; 2,377 counted.
	k.press(fyne.KeyF3)
	k.waitText("Close the shift")
	k.waitText("expected ₹2,379.00")
	for _, n := range []string{"4", "1", "1", "1", "1", "", "1", "1", ""} { // ₹500 … ₹1
		k.enter(n)
	}
	assert.True(t, k.shows("Counted ₹2,377.00 · expected ₹2,379.00 · variance -₹2.00"), k.screenText())
	k.enter("") // coins: none, and the last Enter closes the shift
	k.waitText("the drawer is ₹2.00 short")
	assert.True(t, k.shows("₹500 × 4 = ₹2,000.00"), k.screenText())
	assert.True(t, k.shows("No shift is open at this terminal"), k.screenText())

	shifts, err := till.Drawer.Shifts(ctx, "")
	require.NoError(t, err)
	require.Len(t, shifts, 1)
	assert.Equal(t, pos.Rupees(2377), shifts[0].Counted)
	assert.Equal(t, -pos.Rupees(2), shifts[0].Variance)
	assert.Equal(t, map[int]int{500: 4, 200: 1, 100: 1, 50: 1, 20: 1, 5: 1, 2: 1}, shifts[0].Count.Pieces)

	// The shift closed, cash waits for the next one; the cashier is told so.
	k.press(fyne.KeyF2)
	k.enter("ACC-CBL-CC1M")
	k.waitText("1 item")
	k.press(fyne.KeyF7)
	k.waitText("Take cash")
	k.typeText("500")
	k.press(fyne.KeyF5)
	k.waitText("Cash needs an open shift")
}

// TestWindowStaffList drives Settings' staff list: a locked-out cashier is shown
// locked and unlocked with a manager's PIN, then given limits, and the manager
// changes her own PIN.
func TestWindowStaffList(t *testing.T) {
	ctx := t.Context()
	till := newWindowTill(t)
	manager(t, till)
	require.NoError(t, till.Crew.AddStaff(ctx, "Ravi", ui.RoleCashier, "1234"))
	for range pos.MaxPINAttempts {
		_, err := till.Crew.SignIn(ctx, "Ravi", "9999")
		require.Error(t, err)
	}
	_, err := till.Crew.SignIn(ctx, "Ravi", "1234")
	require.ErrorIs(t, err, pos.ErrLocked, "Ravi is locked out")

	k := newCounter(t, till)
	k.signIn("Asha", "432100")
	k.press(fyne.KeyF10)
	k.waitText("Settings")
	k.press(fyne.KeyF7)
	k.waitText("locked until")
	list, err := till.Crew.StaffList(ctx)
	require.NoError(t, err)
	for i, s := range list {
		if s.Name == "Ravi" {
			for range i {
				k.press(fyne.KeyDown)
			}
		}
	}
	k.press(fyne.KeyF6)
	k.waitText("Unlock Ravi?")
	k.enter("000000")
	k.waitText("Wrong PIN")
	k.enter("432100")
	k.waitText("Ravi is unlocked and may sign in.")
	assert.False(t, k.shows("locked until"), k.screenText())
	_, err = till.Crew.SignIn(ctx, "Ravi", "1234")
	require.NoError(t, err, "Ravi signs in again")

	k.press(fyne.KeyF3)
	k.waitText("Limits of Ravi")
	k.enter("300")
	k.enter("1000")
	k.enter("432100")
	k.waitText("discount ₹300.00, refund ₹1,000.00")

	k.press(fyne.KeyF4)
	k.waitText("Change my PIN (Asha)")
	k.enter("432100")
	k.enter("765432")
	k.enter("765432")
	k.waitText("Your PIN is changed")
	_, err = till.Crew.SignIn(ctx, "Asha", "765432")
	require.NoError(t, err)
}

// TestWindowHoldAndRecall holds a cart, recalls it from the list with its time
// and total, and sells a phone only with its IMEI.
func TestWindowHoldAndRecall(t *testing.T) {
	ctx := t.Context()
	till := newWindowTill(t)
	manager(t, till)
	k := newCounter(t, till)
	k.signIn("Asha", "432100")

	k.enter("ACC-CBL-CC1M")
	k.enter("ACC-CBL-CC1M")
	k.waitText("2 items")
	k.ctrl(fyne.KeyH)
	k.waitText("Hold this bill")
	k.enter("Mr Rao")
	k.waitText("Bill held at")
	assert.True(t, k.shows("Cart is empty"), k.screenText())
	held, err := till.Shelf.HeldBills(ctx)
	require.NoError(t, err)
	require.Len(t, held, 1)
	assert.Equal(t, pos.Rupees(998), held[0].Total)

	k.ctrl(fyne.KeyR)
	k.waitText("Type a bill's number")
	assert.True(t, k.shows("₹998.00  2 items · Mr Rao"), k.screenText())
	k.press(fyne.KeyReturn) // the one bill's number is filled in
	k.waitText("is back in the cart")
	assert.True(t, k.shows("2 items"), k.screenText())
	held, err = till.Shelf.HeldBills(ctx)
	require.NoError(t, err)
	assert.Empty(t, held)

	// A phone by cash: its IMEI is asked before the cash screen.
	k.ctrl(fyne.KeyN)
	k.enter("PH-SAM-A55-128")
	k.press(fyne.KeyF7)
	k.waitText("IMEI of each phone")
	k.enter("490154203237519")
	k.waitText("its last digit does not match")
	k.c.Focused().(interface{ SetText(string) }).SetText("")
	k.enter("490154203237518")
	k.waitText("Take cash")
	k.typeText("40000")
	k.press(fyne.KeyF5)
	k.waitFor("the sale to be paid", func() bool {
		found, err := till.IMEIs.FindIMEI(ctx, "490154203237518")
		return err == nil && len(found) == 1 && found[0].State == pos.StatePaid
	})
}

// testIMEI completes a 14-digit body with its Luhn check digit.
func testIMEI(t *testing.T, body string) string {
	t.Helper()
	d, ok := pos.LuhnCheckDigit(body)
	require.True(t, ok, body)
	return body + string(d)
}

// phoneIMEIs gives each serialised unit of lines an IMEI made from body (14
// digits, the last ones counting up per unit).
func phoneIMEIs(t *testing.T, lines []ui.Line, body string) []ui.IMEI {
	t.Helper()
	var out []ui.IMEI
	n := 0
	for _, l := range lines {
		if !l.Product.Serialised {
			continue
		}
		for range l.Qty {
			b := []byte(body)
			b[len(b)-1] = '0' + byte((int(b[len(b)-1]-'0')+n)%10)
			out = append(out, ui.IMEI{ProductCode: l.Product.ProductCode, IMEI: testIMEI(t, string(b))})
			n++
		}
	}
	return out
}

// giveIMEI answers the cart's IMEI question with the IMEI made from body.
func (k *counter) giveIMEI(body string) {
	k.t.Helper()
	k.waitText("IMEI of each phone")
	k.enter(testIMEI(k.t, body))
}

// TestWindowJournalIMEIAndUnknownAtClose finds a phone's sale by its IMEI on the
// journal screen, then closes the day while a card payment is still unknown: the
// Z is refused naming it, and closes once a manager accepts listing it.
func TestWindowJournalIMEIAndUnknownAtClose(t *testing.T) {
	ctx := t.Context()
	till := newWindowTill(t)
	manager(t, till)
	k := newCounter(t, till)
	k.signIn("Asha", "432100")

	pending := k.leaveOTP() // a card payment left unknown
	k.press(fyne.KeyEscape)
	k.ctrl(fyne.KeyN)
	k.waitText("Cart is empty")

	phone, ok := till.Shelf.Lookup("PH-SAM-A55-128")
	require.True(t, ok)
	lines := []ui.Line{{Product: phone, Qty: 1}}
	imeis := phoneIMEIs(t, lines, "49015420323751")
	sold, err := till.Checkout.Pay(ctx, ui.PayRequest{Lines: lines, IMEIs: imeis, Tender: pos.TenderCash, Tendered: phone.Price, Cashier: "Asha"}, nil)
	require.NoError(t, err)
	require.Equal(t, pos.StatePaid, sold.State)

	k.press(fyne.KeyF9)
	k.waitText("Journal of")
	k.enter(imeis[0].IMEI)
	k.waitText("This IMEI was sold on")
	k.waitText("Order " + sold.SaleID() + ": PAID")

	k.press(fyne.KeyF8)
	k.waitText("Close " + till.Now().Format("2 Jan 2006") + "?")
	k.waitText("closes the day's sales so far for good")
	k.enter("432100")
	k.waitText("Payments still unknown")
	assert.True(t, k.shows("The day cannot be closed yet: the outcome of 1 payment(s) is not known"), k.screenText())
	k.enter("432100")
	k.waitText("The day is closed; the payments still unknown are listed with it.")

	var accepted []pos.Event
	for _, ev := range journalEvents(t, till, 1) {
		if ev.Kind == pos.EvUnknownAccepted {
			accepted = append(accepted, ev)
		}
	}
	require.Len(t, accepted, 1, "the manager's acceptance is journaled")
	assert.Contains(t, string(accepted[0].Data), pending)
	assert.Equal(t, pos.ToDay(till.Now()), till.Books.BusinessDay(), "after the Z, the business day is still today's date (ADR 0010)")
}

// TestWindowCashierRefundsWithinLimit: a cashier a manager gave limits opens the
// journal and refunds with their own PIN up to the limit; above it, the window
// asks for a manager's PIN.
func TestWindowCashierRefundsWithinLimit(t *testing.T) {
	ctx := t.Context()
	till := newWindowTill(t)
	manager(t, till)
	require.NoError(t, till.Crew.AddStaff(ctx, "Ravi", ui.RoleCashier, "2468"))
	_, err := till.Crew.SetStaffLimits(ctx, "Ravi", &pos.StaffLimits{Discount: pos.Rupees(100), Refund: pos.Rupees(300)}, "432100")
	require.NoError(t, err)
	sold, err := till.Checkout.Pay(ctx, ui.PayRequest{Lines: []ui.Line{cable(t, till)}, Tender: pos.TenderCash, Cashier: "Asha"}, nil)
	require.NoError(t, err)

	k := newCounter(t, till)
	k.waitText("PIN for Asha")
	k.press(fyne.KeyDown)
	k.waitText("PIN for Ravi")
	k.enter("2468")
	k.waitFor("Ravi signed in", func() bool { return !k.shows("PIN for Ravi") && k.shows("Scan a barcode") })
	k.press(fyne.KeyF9)
	k.waitText(": 1 sale")
	k.enter(sold.SaleID())
	k.waitText("Order " + sold.SaleID() + ": PAID")
	k.press(fyne.KeyF5)
	k.waitText("Your PIN (refunds up to ₹300.00) or a manager's")
	k.enter("400")
	k.enter("2468")
	k.waitText("A refund above ₹300.00 needs a manager's PIN.")
	k.c.Focused().(interface{ SetText(string) }).SetText("")
	k.enter("250")
	k.enter("2468")
	k.waitText("Refund receipt")
	o, err := till.Books.Order(ctx, sold.SaleID())
	require.NoError(t, err)
	require.Len(t, o.Refunds, 1)
	staff, err := till.Crew.StaffList(ctx)
	require.NoError(t, err)
	for _, s := range staff {
		if s.Name == "Ravi" {
			assert.Equal(t, s.ID, o.Refunds[0].Staff, "the refund is Ravi's own")
		}
	}
}

// TestWindowStaffAddDisableReset adds a cashier from the staff list, resets
// their PIN and disables them, each on a manager's PIN; the last manager cannot
// be disabled.
func TestWindowStaffAddDisableReset(t *testing.T) {
	ctx := t.Context()
	till := newWindowTill(t)
	manager(t, till)
	k := newCounter(t, till)
	k.signIn("Asha", "432100")
	k.press(fyne.KeyF10)
	k.waitText("Settings")
	k.press(fyne.KeyF7)
	k.waitText("no limit (manager)")

	k.press(fyne.KeyF5)
	k.waitText("Add staff")
	for _, s := range []string{"Meena", "", "5791", "5791", "432100"} { // the role stays cashier
		k.enter(s)
	}
	k.waitText("Meena can sign in now.")
	_, err := till.Crew.SignIn(ctx, "Meena", "5791")
	require.NoError(t, err)

	// Asha is first, Meena second.
	k.press(fyne.KeyF7)
	k.waitText("Disable Asha?")
	k.enter("432100")
	k.waitText("The last manager cannot be disabled")
	k.press(fyne.KeyEscape)
	k.press(fyne.KeyDown)
	k.press(fyne.KeyF8)
	k.waitText("New PIN for Meena")
	for _, s := range []string{"8642", "8642", "432100"} {
		k.enter(s)
	}
	k.waitText("Meena signs in with the new PIN now.")
	_, err = till.Crew.SignIn(ctx, "Meena", "8642")
	require.NoError(t, err)

	k.press(fyne.KeyF7)
	k.waitText("Disable Meena?")
	k.enter("432100")
	k.waitText("Meena is disabled")
	assert.True(t, k.shows("disabled"), k.screenText())
	_, err = till.Crew.SignIn(ctx, "Meena", "8642")
	assert.ErrorIs(t, err, pos.ErrStaffDisabled)
}
