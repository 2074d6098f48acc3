package cli

import (
	"testing"
	"time"

	"fyne.io/fyne/v2"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"galla/gateway/sandbox"
	"galla/pos"
)

// firstManager creates the first manager Asha in the window and signs her in.
func (k *counter) firstManager() {
	k.t.Helper()
	k.waitText("Welcome to Galla")
	k.enter("Asha")
	k.enter("432100")
	k.enter("432100")
	k.waitText("Asha is the manager. Sign in with the new PIN.")
	k.signIn("Asha", "432100")
}

// splitSale of the window's journal: the one split-tender sale.
func splitSale(t *testing.T, till *terminal) *pos.SaleStatus {
	t.Helper()
	var found []*pos.Order
	orders, err := till.j.Orders.OrdersByDay(t.Context(), till.eng.Today())
	require.NoError(t, err)
	for _, o := range orders {
		if o.Tender == pos.TenderSplit {
			found = append(found, o)
		}
	}
	require.Len(t, found, 1)
	st, err := till.Checkout.SaleStatus(t.Context(), found[0].ID)
	require.NoError(t, err)
	return st
}

// TestKeyboardSplitTender pays a ₹1,499.00 case by keyboard in three tenders:
// ₹500.00 cash (₹1,000.00 handed over: ₹500.00 change, shown large), ₹300.00 by
// UPI to the shop's VPA (the QR, then the cashier's confirmation) and the rest
// by card with the sandbox's OTP; the receipt is the sale's, number 1.
func TestKeyboardSplitTender(t *testing.T) {
	till := newWindowTill(t)
	k := newCounter(t, till)
	k.firstManager()
	require.NoError(t, till.Setup.SaveVPA(t.Context(), manager(t, till), "galla@okicici"))

	k.enter("ACC-CASE-S24")
	k.waitText("1 item")
	k.press(fyne.KeyF11)
	k.waitText("Split tender: sale")
	assert.True(t, k.shows("₹1,499.00"), k.screenText())

	k.typeText("500")
	k.press(fyne.KeyF7)
	k.waitText("Tendered")
	k.enter("1000")
	k.waitText("Cash ₹500.00 taken; ₹999.00 left to pay.")
	assert.True(t, k.shows("Change due ₹500.00"), k.screenText())
	assert.True(t, k.shows("1. Cash ₹500.00 — paid, change ₹500.00"), k.screenText())

	k.typeText("300")
	k.press(fyne.KeyF11)
	k.waitText("Pay to galla@okicici")
	assert.True(t, k.shows("₹300.00"), k.screenText())
	k.press(fyne.KeyF5)
	k.waitText("UPI ₹300.00 taken; ₹699.00 left to pay.")
	assert.True(t, k.shows("2. UPI ₹300.00 — confirmed by Asha (not verified)"), k.screenText())

	k.press(fyne.KeyF5) // the card takes the rest
	k.waitText("Card payment")
	assert.True(t, k.shows("Amount ₹699.00"), k.screenText())
	k.typeText("4111 1111 1111 1111")
	k.press(fyne.KeyReturn)
	k.enter("12/30")
	k.enter("123")
	k.enter("Asha Rao")
	k.otp()
	k.waitFor("the result", func() bool { return k.result() != "" })
	require.Equal(t, "PAID", k.result(), k.screenText())
	k.press(fyne.KeyF5)
	k.waitText("Receipt T1/" + pos.FinancialYear(time.Now()) + "/000001")

	st := splitSale(t, till)
	assert.True(t, st.Complete())
	assert.Equal(t, uint64(1), st.Sale.DocNo)
	require.Len(t, st.Tenders, 3)
	assert.Equal(t, []pos.Paise{50000, 30000, 69900}, []pos.Paise{st.Tenders[0].Amount, st.Tenders[1].Amount, st.Tenders[2].Amount})
	card := st.Tenders[2].Order
	assert.Equal(t, int64(69900), ledger(t, till, card.ID).CapturedAmount, "the card paid its part at the service")
	assert.Equal(t, 1, captures(till))
	k.settle()
	noCardNumber(t, till, "4111111111111111")
}

// TestKeyboardSplitTenderStaysAndVoids leaves a sale part paid, finds it again
// in a window opened anew, and voids it with a manager's PIN: the cash is
// refunded with its document.
func TestKeyboardSplitTenderStaysAndVoids(t *testing.T) {
	till := newWindowTill(t)
	k := newCounter(t, till)
	k.firstManager()
	k.enter("ACC-CASE-S24")
	k.waitText("1 item")
	k.press(fyne.KeyF11)
	k.waitText("Split tender: sale")
	k.typeText("500")
	k.press(fyne.KeyF7)
	k.waitText("Tendered")
	k.enter("500")
	k.waitText("₹999.00 left to pay")
	k.press(fyne.KeyEscape)
	k.waitText("Cart is empty")
	k.waitText(": ₹500.00 of ₹1,499.00 paid, ₹999.00 left to pay")
	assert.True(t, k.shows("Open sale") && k.shows("Continue it  [F1]"), k.screenText())
	assert.False(t, k.shows("is part paid"), "the banner says it once: %s", k.screenText())

	// A window opened anew (the terminal restarted): the part-paid sale comes
	// back in the banner, and with F11 on the empty cart.
	k.settle()
	k2 := newCounter(t, till)
	k2.signIn("Asha", "432100")
	k2.waitText(": ₹500.00 of ₹1,499.00 paid, ₹999.00 left to pay")
	k2.press(fyne.KeyF11)
	k2.waitText("Split tender: sale")
	assert.True(t, k2.shows("₹999.00"), k2.screenText())
	assert.True(t, k2.shows("1. Cash ₹500.00 — paid"), k2.screenText())

	k2.press(fyne.KeyF4)
	k2.waitText("Manager PIN")
	k2.enter("432100")
	k2.waitText("Hand back ₹500.00 in cash.")
	st := splitSale(t, till)
	assert.Equal(t, pos.StateVoided, st.Sale.State)
	require.Len(t, st.Tenders, 1)
	assert.Equal(t, pos.StateRefunded, st.Tenders[0].State)
	assert.Equal(t, uint64(1), st.Tenders[0].Order.Refunds[0].DocNo, "the refund's document")
}

// TestKeyboardPhonePageWarning: pay on phone with the page on this computer only
// says that a phone cannot open it and where to set the LAN address.
func TestKeyboardPhonePageWarning(t *testing.T) {
	till := newWindowTill(t)
	k := newCounter(t, till)
	k.firstManager()
	k.enter("ACC-CASE-S24")
	k.waitText("1 item")
	k.press(fyne.KeyF8)
	k.waitText("a phone cannot open it")
	assert.True(t, k.shows("Settings (F10)"), k.screenText())
}

// TestKeyboardBrandEMIWrongIMEI types the IMEI of a phone of another brand for
// Samsung's brand offer: the IMEI is asked first, and the service's refusal is
// said on the IMEI page right after the order is created, before the card is
// asked for, naming the IMEI and the phone, with the IMEI kept and focused;
// corrected, the card form opens on the order and the card pays once.
func TestKeyboardBrandEMIWrongIMEI(t *testing.T) {
	till := newWindowTill(t)
	k := newCounter(t, till)
	k.firstManager()
	k.enter("s24")
	k.waitText("EMI from ₹")
	k.ctrl(fyne.KeyE)
	k.waitText("Sorted by total cost")
	k.typeText("hdfc 6")
	require.True(t, k.shows("1 offer"), k.screenText())
	k.press(fyne.KeyReturn)
	k.waitText("IMEI of each phone")
	assert.False(t, k.shows("Card number"), "the card is not asked for yet: %s", k.screenText())

	oneplus := sandbox.TestIMEI("86413405", 1)
	k.typeText(oneplus)
	k.press(fyne.KeyF5)
	k.waitText("was not accepted")
	assert.True(t, k.shows("The IMEI typed for the Samsung Galaxy S24"), k.screenText())
	assert.True(t, k.shows("it is not a phone of this brand"), k.screenText())
	assert.False(t, k.shows("SAMSUNG-S24"), "no product code is shown: %s", k.screenText())
	assert.Zero(t, captures(till), "no payment was sent")
	require.NotNil(t, k.c.Focused(), "the refused IMEI has the focus")
	assert.True(t, k.shows(oneplus), "the IMEI typed stays")

	// Correct the IMEI: the focused field is the refused one.
	for range oneplus {
		k.press(fyne.KeyBackspace)
	}
	k.typeText("352906110000017")
	k.press(fyne.KeyF5)
	k.waitText("EMI: card of HDFC")
	k.waitText("the IMEIs are validated with the payment service")
	k.typeText("4386 2800 0000 0004")
	k.press(fyne.KeyReturn)
	k.enter("12/30")
	k.enter("123")
	k.enter("Asha Rao")
	k.otp()
	k.waitFor("the result", func() bool { return k.result() != "" })
	require.Equal(t, "PAID", k.result(), k.screenText())
	assert.Equal(t, 1, captures(till), "the sale charged once")
	for _, lo := range till.ps.sandbox.Controls.Ledger() {
		if lo.CapturedPayments == 0 {
			assert.Empty(t, lo.Payments, "the order whose IMEI was refused took no payment")
		}
	}
	k.settle()
	noCardNumber(t, till, "4386280000000004")
}

// TestKeyboardSplitTenderCashDownEMI takes ₹20,000.00 in cash as a down payment
// on the S24 and the rest on Samsung's no-cost EMI: the phone's IMEI is typed
// once, for the sale, and the brand-EMI tender uses it (validated with the
// service) without asking again; a number that is no credit note is refused,
// with nothing lost.
func TestKeyboardSplitTenderCashDownEMI(t *testing.T) {
	till := newWindowTill(t)
	k := newCounter(t, till)
	k.firstManager()
	k.enter("s24")
	k.waitText("EMI from ₹")
	k.press(fyne.KeyF11)
	k.waitText("IMEI of each phone") // every phone sold carries its IMEI, whatever pays for it
	k.enter("352906110000017")
	k.waitText("Split tender: sale")

	k.typeText("20000")
	k.press(fyne.KeyF7)
	k.waitText("Tendered")
	k.enter("20000")
	k.waitText("Cash ₹20,000.00 taken")
	st := splitSale(t, till)
	rest := st.Due
	require.Positive(t, rest)

	k.press(fyne.KeyF12)
	k.waitText("Type the credit note's number, then F12.")
	k.typeText("CN-1")
	k.press(fyne.KeyF12)
	k.waitText("is not a credit note number") // a number that is no credit note of this terminal
	assert.True(t, k.shows("1. Cash ₹20,000.00 — paid"), k.screenText())

	k.press(fyne.KeyF6) // EMI on the rest: the amount field is empty
	k.waitText("EMI offers for " + rest.String() + " of the " + st.Sale.Amount.String() + " sale")
	k.typeText("hdfc 6")
	k.waitText("1 offer")
	k.press(fyne.KeyReturn)
	k.waitText("EMI: card of HDFC")
	k.waitText("the IMEIs are validated with the payment service") // before the card
	first := splitSale(t, till).Tenders[1].Order.ID
	k.press(fyne.KeyEscape) // back to the offers: the validated order is kept for the same offer
	k.waitText("EMI offers for " + rest.String() + " of the " + st.Sale.Amount.String() + " sale")
	k.press(fyne.KeyReturn)
	k.waitText("EMI: card of HDFC")
	k.waitText("Order " + first + ": the IMEIs are validated")
	require.Len(t, splitSale(t, till).Tenders, 2, "the same tender goes on")
	k.typeText("4386 2800 0000 0004")
	k.press(fyne.KeyReturn)
	k.enter("12/30")
	k.enter("123")
	k.enter("Asha Rao")
	k.otp() // straight from the card: the IMEI is the sale's, not asked again
	assert.False(t, k.shows("IMEI of each phone"), k.screenText())
	k.waitFor("the result", func() bool { return k.result() != "" })
	require.Equal(t, "PAID", k.result(), k.screenText())
	assert.True(t, k.shows("is paid in full"), k.screenText())

	st = splitSale(t, till)
	assert.True(t, st.Complete())
	require.Len(t, st.Tenders, 2)
	emi := st.Tenders[1].Order
	assert.Equal(t, pos.TenderEMI, emi.Tender)
	assert.Equal(t, rest, emi.Amount)
	assert.Equal(t, []string{"352906110000017"}, emi.IMEIs)
	assert.True(t, emi.IMEIsValidated)
	assert.Equal(t, int64(emi.ChargeAmount()), ledger(t, till, emi.ID).CapturedAmount)
	k.settle()
	noCardNumber(t, till, "4386280000000004")
}

// TestKeyboardSplitTenderBrandEMIWrongIMEI: the sale's phone is not a Samsung;
// after ₹500.00 in cash, the brand-EMI tender's order is opened and its IMEI
// validated with the service as soon as the offer is picked, so the wrong brand
// is said on the offers, before any card field; nothing of the sale is lost and
// the rest is paid by card.
func TestKeyboardSplitTenderBrandEMIWrongIMEI(t *testing.T) {
	till := newWindowTill(t)
	k := newCounter(t, till)
	k.firstManager()
	k.enter("s24")
	k.waitText("EMI from ₹")
	k.press(fyne.KeyF11)
	k.waitText("IMEI of each phone")
	oneplus := sandbox.TestIMEI("86413405", 1)
	k.enter(oneplus)
	k.waitText("Split tender: sale")

	k.typeText("500")
	k.press(fyne.KeyF7)
	k.waitText("Tendered")
	k.enter("500")
	k.waitText("Cash ₹500.00 taken")
	st := splitSale(t, till)
	rest := st.Due
	require.Equal(t, st.Sale.Amount-50000, rest)

	k.press(fyne.KeyF6)
	k.waitText("EMI offers for " + rest.String() + " of the " + st.Sale.Amount.String() + " sale")
	k.typeText("hdfc 6")
	k.waitText("1 offer")
	k.press(fyne.KeyReturn)
	k.waitText("it is not a phone of this brand")
	assert.False(t, k.shows("EMI: card of HDFC"), "no card field yet: %s", k.screenText())
	assert.False(t, k.shows("Card number"), "no card field yet: %s", k.screenText())
	assert.Zero(t, captures(till), "no payment was sent")
	for _, lo := range till.ps.sandbox.Controls.Ledger() {
		assert.Empty(t, lo.Payments, "no card was sent for order %s", lo.MerchantOrderID)
	}
	st = splitSale(t, till)
	assert.Equal(t, pos.StateOpen, st.Sale.State)
	assert.Equal(t, pos.Paise(50000), st.Paid, "the cash stays")
	assert.Zero(t, st.Pending, "the refused tender is closed")
	assert.Equal(t, rest, st.Due)

	k.press(fyne.KeyEscape)
	k.waitText("Split tender: sale")
	assert.True(t, k.shows("1. Cash ₹500.00 — paid"), k.screenText())
	k.press(fyne.KeyF5) // the rest by card
	k.waitText("Card payment")
	k.typeText("4111 1111 1111 1111")
	k.press(fyne.KeyReturn)
	k.enter("12/30")
	k.enter("123")
	k.enter("Asha Rao")
	k.otp()
	k.waitFor("the result", func() bool { return k.result() != "" })
	require.Equal(t, "PAID", k.result(), k.screenText())
	st = splitSale(t, till)
	assert.True(t, st.Complete())
	assert.Equal(t, 1, captures(till), "charged once")
	k.settle()
	noCardNumber(t, till, "4111111111111111")
}

// TestKeyboardSplitTenderBrandEMIBack: going back from the brand-EMI tender's
// card to the sale's tenders closes that tender's order (no payment was sent on
// it); the sale stays open with its cash, and the rest is paid by card.
func TestKeyboardSplitTenderBrandEMIBack(t *testing.T) {
	till := newWindowTill(t)
	k := newCounter(t, till)
	k.firstManager()
	k.enter("s24")
	k.waitText("EMI from ₹")
	k.press(fyne.KeyF11)
	k.waitText("IMEI of each phone")
	k.enter("352906110000017")
	k.waitText("Split tender: sale")
	k.typeText("500")
	k.press(fyne.KeyF7)
	k.waitText("Tendered")
	k.enter("500")
	k.waitText("Cash ₹500.00 taken")
	st := splitSale(t, till)
	rest := st.Due

	k.press(fyne.KeyF6)
	k.waitText("EMI offers for " + rest.String() + " of the " + st.Sale.Amount.String() + " sale")
	k.typeText("hdfc 6")
	k.waitText("1 offer")
	k.press(fyne.KeyReturn)
	k.waitText("EMI: card of HDFC")
	st = splitSale(t, till)
	require.Len(t, st.Tenders, 2)
	emi := st.Tenders[1].Order
	assert.Equal(t, pos.StateCreated, emi.State)
	assert.True(t, emi.IMEIsValidated, "validated before the card")
	k.press(fyne.KeyEscape)
	k.waitText("EMI offers for")
	k.press(fyne.KeyEscape)
	k.waitText("Split tender: sale")
	k.waitFor("the tender closed", func() bool {
		o, err := till.j.Orders.Order(t.Context(), emi.ID)
		return err == nil && o.State == pos.StateAbandoned
	})
	st = splitSale(t, till)
	assert.Equal(t, pos.StateOpen, st.Sale.State)
	assert.Equal(t, pos.Paise(50000), st.Paid, "the cash stays")
	assert.Zero(t, st.Pending)
	assert.Equal(t, rest, st.Due)
	assert.Zero(t, captures(till))

	k.press(fyne.KeyF5)
	k.waitText("Card payment")
	k.typeText("4111 1111 1111 1111")
	k.press(fyne.KeyReturn)
	k.enter("12/30")
	k.enter("123")
	k.enter("Asha Rao")
	k.otp()
	k.waitFor("the result", func() bool { return k.result() != "" })
	require.Equal(t, "PAID", k.result(), k.screenText())
	assert.True(t, splitSale(t, till).Complete())
	assert.Equal(t, 1, captures(till), "charged once")
	k.settle()
	noCardNumber(t, till, "4111111111111111")
}
