package ui

import (
	"path/filepath"
	"strings"
	"testing"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/widget"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"galla/pos"
)

// validIMEI returns a Luhn-valid IMEI starting with the 14 digits given.
func validIMEI(t *testing.T, body string) string {
	t.Helper()
	d, ok := pos.LuhnCheckDigit(body)
	require.True(t, ok)
	return body + string(d)
}

// TestSaleByKeyboardAlone sells a phone on brand EMI without touching the mouse:
// sign in, scan, EMI offer, card, IMEI, OTP, paid, receipt printed.
func TestSaleByKeyboardAlone(t *testing.T) {
	h := newHarness(t, newFakeTill())
	u := h.u
	require.Equal(t, u.signIn, u.current)
	assert.True(t, strings.HasPrefix(u.win.Title(), "Galla"), "title %q", u.win.Title())

	h.press(fyne.KeyDown) // Ravi
	h.enter("1234")
	h.settle()
	require.True(t, u.signedIn, u.signIn.message.Text)
	assert.Equal(t, "Ravi (cashier)", u.bar.userText.Text)
	require.Equal(t, u.sale, u.current)
	require.Equal(t, u.sale.finder.scan, h.focused(), "the scan field has the focus")

	h.enter("8801643000011") // the scanner types the barcode and Enter
	h.settle()
	require.Len(t, u.sale.lines, 1)
	assert.Equal(t, "₹74,999.00", u.sale.total.Text)
	assert.Contains(t, u.sale.emiHint.Text, "EMI from ₹25,000/month") // the no-cost plan with the lowest instalment

	h.ctrl(fyne.KeyE) // EMI offers for the item
	h.settle()
	require.Equal(t, u.emi, u.current)
	require.Len(t, u.emi.shown_, 3)
	h.typeText("samsung")
	require.Len(t, u.emi.shown_, 1)
	h.press(fyne.KeyReturn)
	// The brand's offer takes the IMEI first, before the card.
	require.Equal(t, u.emi.imei, u.current)
	imei := validIMEI(t, "35693803564380")
	h.typeText(imei[:10])
	assert.Equal(t, "10 of 15 digits", u.emi.imei.checks[0].Text)
	h.typeText(imei[10:])
	assert.Equal(t, "✓ IMEI looks right", u.emi.imei.checks[0].Text)
	h.press(fyne.KeyReturn)
	h.settle()
	require.Equal(t, u.card, u.current)
	require.NotNil(t, u.card.req.Offer)
	assert.Equal(t, "SAMSUNG", u.card.req.Offer.Brand)

	h.typeText("4386 2800 0000 0004")
	assert.Contains(t, u.card.brand.Text, "✓")
	h.press(fyne.KeyReturn)
	h.enter("12/30")
	h.enter("123")
	h.enter("Asha Rao")
	assert.Equal(t, "VISA •••• 0004", u.card.number.Text, "the number shows masked once submitted")
	h.waitFor("the payment screen", func() bool { return u.current == u.pay })

	h.waitFor("the OTP dialog", func() bool { return u.pay.otp != nil && !u.pay.otp.closed })
	require.Equal(t, u.pay.otpEntry, h.focused())
	h.enter("123456")
	h.waitFor("the result", func() bool { return u.pay.run == nil })
	h.settle()
	assert.Equal(t, "PAID", u.pay.result.Text)
	assert.Equal(t, colPaid, u.pay.result.Color)
	assert.Empty(t, u.card.number.Text, "the card form is cleared after the call")
	assert.Empty(t, u.sale.lines, "the cart is cleared after a verified payment")

	req := h.till.requests[0]
	assert.Equal(t, pos.TenderEMI, req.Tender)
	assert.Equal(t, []IMEI{{ProductCode: "SAMSUNG-S24", IMEI: imei}}, req.IMEIs)
	assert.True(t, req.Card.(*fakeCard).zeroed, "the card is wiped after the call")

	h.press(fyne.KeyF5) // receipt
	h.settle()
	require.Equal(t, u.receipt, u.current)
	require.NotNil(t, u.receipt.image.Resource, "the preview is shown")
	h.press(fyne.KeyF5) // print
	h.settle()
	assert.Equal(t, []string{"print:E-0001"}, h.till.printed, "the brand-EMI order opened before the card")
	h.press(fyne.KeyEscape)
	assert.Equal(t, u.sale, u.current)
}

func TestSignIn(t *testing.T) {
	t.Run("wrong PIN says so and stays", func(t *testing.T) {
		h := newHarness(t, newFakeTill())
		h.enter("9999")
		h.settle()
		assert.False(t, h.u.signedIn)
		assert.Equal(t, sentence(errFakeWrongPIN), h.u.signIn.message.Text)
		assert.Empty(t, h.u.signIn.pin.Text, "the PIN is cleared")
	})
	t.Run("PIN pad", func(t *testing.T) {
		h := newHarness(t, newFakeTill())
		for _, k := range []string{"4", "3", "2", "9", "⌫", "1", "OK"} {
			for _, o := range h.u.signIn.pad.Objects {
				if b := o.(*keyButton); b.Text == k {
					b.Tapped(&fyne.PointEvent{})
				}
			}
		}
		h.settle()
		require.True(t, h.u.signedIn, h.u.signIn.message.Text)
		assert.Equal(t, "Asha", h.u.user.Name)
	})
	t.Run("first manager on a fresh journal", func(t *testing.T) {
		f := newFakeTill()
		f.staff = nil
		f.pins = map[string]string{}
		h := newHarness(t, f)
		require.True(t, h.u.signIn.creating)
		require.Equal(t, h.u.signIn.newName, h.focused())
		h.enter("Meera")
		h.enter("2468")
		h.enter("2469")
		h.settle()
		require.NotNil(t, h.u.dialogs.prompt, "mismatched PINs are refused")
		assert.Contains(t, h.u.dialogs.prompt.message.Text, "differ")
		h.press(fyne.KeyReturn) // close the message
		h.u.win.Canvas().Focus(h.u.signIn.newPIN)
		h.enter("2468")
		h.enter("2468")
		h.settle()
		require.False(t, h.u.signIn.creating)
		require.Equal(t, []StaffMember{{ID: "001", Name: "Meera", Role: RoleManager}}, f.staff)
		h.signIn("Meera", "2468")
	})
	t.Run("a manager's short PIN is changed before going on", func(t *testing.T) {
		f := newFakeTill()
		f.short = map[string]bool{"Asha": true}
		h := newHarness(t, f)
		h.enter("4321")
		h.settle()
		require.False(t, h.u.signedIn, "not before the new PIN")
		require.True(t, h.u.signIn.changing)
		require.Equal(t, h.u.signIn.changeNew, h.focused())
		h.enter("135790")
		h.enter("135791")
		h.settle()
		assert.False(t, h.u.signedIn)
		assert.Contains(t, h.u.signIn.changeMessage.Text, "differ")
		require.Equal(t, h.u.signIn.changeNew, h.focused())
		h.enter("1357")
		h.enter("1357")
		h.settle()
		assert.False(t, h.u.signedIn)
		assert.Equal(t, sentence(pos.ErrShortManagerPIN), h.u.signIn.changeMessage.Text)
		assert.Equal(t, "4321", f.pins["Asha"], "no change yet")
		h.enter("135790")
		h.enter("135790")
		h.settle()
		require.True(t, h.u.signedIn, h.u.signIn.changeMessage.Text)
		assert.Equal(t, "Asha", h.u.user.Name)
		assert.Equal(t, "135790", f.pins["Asha"])
		assert.False(t, h.u.signIn.changing)
		assert.Empty(t, h.u.signIn.oldPIN, "the old PIN is forgotten")
	})
	t.Run("locks after 15 minutes idle", func(t *testing.T) {
		h := newHarness(t, newFakeTill())
		h.signIn("Asha", "4321")
		h.clock.Advance(14 * time.Minute)
		h.u.checkIdle()
		assert.True(t, h.u.signedIn)
		h.typeText("x") // activity
		h.clock.Advance(14 * time.Minute)
		h.u.checkIdle()
		assert.True(t, h.u.signedIn)
		h.clock.Advance(time.Minute)
		h.u.checkIdle()
		h.settle()
		assert.False(t, h.u.signedIn)
		assert.Equal(t, h.u.signIn, h.u.current)
		h.press(fyne.KeyF2) // no screen without signing in
		assert.Equal(t, h.u.signIn, h.u.current)
	})
}

func TestSaleScreen(t *testing.T) {
	h := newHarness(t, newFakeTill())
	h.signIn("Ravi", "1234")
	s := h.u.sale

	h.typeText("cab")
	require.Len(t, s.finder.results, 1)
	assert.Equal(t, "CABLE", s.finder.results[0].SKU)
	h.press(fyne.KeyReturn)
	require.Len(t, s.lines, 1)
	assert.Empty(t, s.finder.scan.Text)

	h.enter("nothing-like-this")
	assert.Contains(t, s.message.Text, "Nothing in the catalog matches")
	assert.Len(t, s.lines, 1)

	h.enter("CABLE") // same product again: one more on its line
	require.Len(t, s.lines, 1)
	assert.Equal(t, 2, s.lines[0].Qty)
	assert.Equal(t, "₹998.00", s.total.Text)
	assert.Contains(t, s.gst.Text, "CGST ₹76.12")

	h.press(fyne.KeyF3)
	require.NotNil(t, h.u.dialogs.prompt)
	h.enter("4") // the quantity shown is selected: typing replaces it
	assert.Nil(t, h.u.dialogs.prompt)
	assert.Equal(t, 4, s.lines[0].Qty, "typing 4 over the 2 shown gives 4, not 24")
	h.press(fyne.KeyF3)
	require.NotNil(t, h.u.dialogs.prompt)
	h.focused().(*keyEntry).SetText("")
	h.enter("0")
	assert.Contains(t, h.u.dialogs.prompt.message.Text, "1 to 999")
	h.focused().(*keyEntry).SetText("")
	h.enter("3")
	assert.Nil(t, h.u.dialogs.prompt)
	assert.Equal(t, 3, s.lines[0].Qty)
	assert.Equal(t, "₹1,497.00", s.total.Text)

	// a discount above the limit needs a manager's PIN
	h.press(fyne.KeyF4)
	h.enter("600")
	require.NotNil(t, h.u.dialogs.prompt)
	assert.Contains(t, h.u.dialogs.prompt.message.Text, "A discount above ₹500.00 needs a manager's PIN.")
	h.enter("1234") // a cashier's PIN is not a manager's
	h.settle()
	assert.Equal(t, sentence(errFakeWrongPIN), h.u.dialogs.prompt.message.Text)
	h.enter("4321")
	h.settle()
	assert.Nil(t, h.u.dialogs.prompt)
	assert.Equal(t, pos.Rupees(600), s.lines[0].Discount)
	assert.Equal(t, "Asha", s.lines[0].ApprovedBy)
	assert.Equal(t, "₹897.00", s.total.Text)

	h.ctrl(fyne.KeyDelete)
	assert.Empty(t, s.lines)
	assert.True(t, s.card.btn.Disabled(), "no tender on an empty cart")
	h.press(fyne.KeyF5)
	assert.Equal(t, s, h.u.current)
}

func TestCardScreen(t *testing.T) {
	h := newHarness(t, newFakeTill())
	h.signIn("Ravi", "1234")
	h.enter("CABLE")
	h.press(fyne.KeyF5)
	c := h.u.card
	require.Equal(t, c, h.u.current)

	h.typeText("4111111111111112")
	assert.Contains(t, c.brand.Text, "VISA")
	assert.Contains(t, c.brand.Text, "mistyped")
	c.number.SetText("")
	h.typeText("4111111111111111")
	assert.Contains(t, c.brand.Text, "✓")
	h.press(fyne.KeyReturn)
	h.enter("13/30")
	h.enter("123")
	h.enter("A Customer")
	assert.Contains(t, c.message.Text, "expiry")
	assert.Empty(t, c.expiry.Text, "the field to fix is cleared")
	assert.Empty(t, c.cvv.Text, "the CVV is never kept after a refusal")
	assert.Equal(t, "4111111111111111", digits(c.number.Text), "the number typed stays")
	assert.Equal(t, "A Customer", c.holder.Text, "the holder's name stays")
	assert.Equal(t, c.expiry, h.focused(), "the focus is on the field to fix")
	c.number.SetText("")
	c.holder.SetText("")

	h.press(fyne.KeyEscape)
	assert.Equal(t, h.u.sale, h.u.current)
	assert.Empty(t, c.number.Text, "backing out clears the card")
}

// payBy takes the cart to the card form and submits number.
func (h *harness) payBy(number string) {
	h.t.Helper()
	h.press(fyne.KeyF5)
	require.Equal(h.t, h.u.card, h.u.current)
	h.enter(number)
	h.enter("08/31")
	h.enter("123")
	h.enter("A Customer")
}

func TestPaymentOutcomes(t *testing.T) {
	tests := []struct {
		name, card, word, detail string
		retry                    bool
	}{
		{"declined", "4000000000000002", "FAILED", "declined", true},
		{"unverified", "4000000000009995", "UNVERIFIED", "Do not hand over the goods", false},
		{"unknown", "4000000000000119", "UNKNOWN", "The payment is pending", false},
		{"frictionless", "5555555555554444", "PAID", "verified", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := newHarness(t, newFakeTill())
			h.signIn("Ravi", "1234")
			h.enter("CABLE")
			h.payBy(tt.card)
			h.settle()
			p := h.u.pay
			require.Equal(t, p, h.u.current)
			assert.Equal(t, tt.word, p.result.Text)
			assert.Contains(t, p.detail.Text, tt.detail)
			assert.Equal(t, !tt.retry, p.retryA.btn.Disabled())
			assert.Equal(t, tt.word != "PAID", p.receiptA.btn.Disabled())
			if tt.word == "UNKNOWN" {
				assert.Contains(t, p.poll.Text, "checked again in the background")
				assert.False(t, p.checkA.btn.Disabled(), "Check now is offered")
			}
			if tt.word == "PAID" {
				assert.Empty(t, h.u.sale.lines)
			} else {
				assert.Len(t, h.u.sale.lines, 1, "the cart stays until it is paid")
			}
		})
	}
}

func TestRetryOnSameOrder(t *testing.T) {
	h := newHarness(t, newFakeTill())
	h.signIn("Ravi", "1234")
	h.enter("CABLE")
	h.payBy("4000000000000002")
	h.settle()
	require.Equal(t, "FAILED", h.u.pay.result.Text)
	h.press(fyne.KeyF6)
	require.Equal(t, h.u.card, h.u.current)
	assert.Equal(t, "G-0001", h.u.card.req.OrderID)
	h.enter("4111111111111111")
	h.enter("08/31")
	h.enter("123")
	h.enter("A Customer")
	h.waitFor("the OTP dialog", func() bool { return h.u.pay.otp != nil && !h.u.pay.otp.closed })
	h.enter("000000") // a wrong OTP fails the attempt
	h.settle()
	assert.Equal(t, "FAILED", h.u.pay.result.Text)
	assert.Equal(t, "G-0001", h.till.requests[1].OrderID, "the retry uses the same order")
}

// TestPaymentDoesNotBlockTheCounter leaves a card payment in flight (Escape): its
// cart is locked to it (no tender, no line added), New sale serves the next
// customer, whose payment is not refused, and the first payment's result arrives
// as a notice with its receipt.
func TestPaymentDoesNotBlockTheCounter(t *testing.T) {
	f := newFakeTill()
	hold := make(chan struct{})
	f.holdPay = hold
	h := newHarness(t, f)
	h.signIn("Ravi", "1234")
	h.enter("CABLE")
	h.payBy("5555555555554444")
	h.waitFor("order created", func() bool { return strings.HasPrefix(h.u.pay.steps[0].Text, "✓") })
	assert.True(t, h.u.pay.run != nil)
	h.press(fyne.KeyEscape) // back to the counter while the payment goes on
	require.Equal(t, h.u.sale, h.u.current)
	s := h.u.sale
	for _, a := range []*action{s.card, s.emi, s.cashA, s.phoneA, s.qty, s.discount, s.remove} {
		assert.True(t, a.btn.Disabled(), "%s is off while the cart's payment is in flight", a.label)
	}
	h.enter("TV55")
	assert.Len(t, s.lines, 1, "no line is added to a cart whose payment is in flight")
	assert.Contains(t, s.message.Text, "in progress")
	h.press(fyne.KeyF7) // cash
	assert.Equal(t, s, h.u.current, "no second tender for the cart")

	h.ctrl(fyne.KeyN) // the next customer
	h.enter("TV55")
	require.Len(t, s.lines, 1)
	assert.False(t, s.card.btn.Disabled(), "a new cart takes a tender")
	h.press(fyne.KeyF5)
	require.Equal(t, h.u.card, h.u.current)
	h.enter("4111111111111111")
	h.enter("08/31")
	h.enter("123")
	h.enter("A Customer")
	h.waitFor("the OTP dialog", func() bool { return h.u.pay.otp != nil && !h.u.pay.otp.closed })
	assert.Equal(t, "G-0002", h.u.pay.orderID, "the second payment is not refused")

	close(hold) // the first payment ends PAID while the second waits for its OTP
	h.waitFor("the first payment's notice", func() bool { return h.u.bar.noticeOrder != "" })
	assert.Contains(t, h.u.bar.notice.Text, "Order G-0001: PAID")
	assert.Contains(t, h.u.bar.notice.Text, "receipt R-G-0001")
	assert.Equal(t, "G-0001", h.u.bar.noticeOrder)
	assert.Len(t, s.lines, 1, "the next customer's cart stays")
	h.enter("123456")
	h.settle()
	assert.Equal(t, "PAID", h.u.pay.result.Text)
	assert.Equal(t, "G-0002", h.u.pay.orderID)

	h.ctrl(fyne.KeyO) // the first payment's receipt, from its notice
	h.settle()
	require.Equal(t, h.u.receipt, h.u.current)
	assert.Equal(t, "G-0001", h.u.receipt.orderID)
}

func TestEMIScreen(t *testing.T) {
	h := newHarness(t, newFakeTill())
	h.signIn("Ravi", "1234")
	h.enter("S24")
	h.press(fyne.KeyF6)
	h.settle()
	e := h.u.emi
	require.Equal(t, e, h.u.current)
	require.Len(t, e.shown_, 3)
	assert.Equal(t, pos.Paise(7499900), e.shown_[0].TotalPayable, "sorted by total cost first: the no-cost plan leads")
	assert.Equal(t, "no-cost", e.shown_[0].Subvention)
	assert.Contains(t, e.sortLbl.Text, "Sorted by total cost")
	h.press(fyne.KeyF3)
	assert.Equal(t, "ICICI", e.shown_[0].Issuer)
	assert.Equal(t, 12, e.shown_[0].TenureMonths, "then by monthly instalment")
	h.press(fyne.KeyF3)
	assert.Equal(t, 3, e.shown_[0].TenureMonths, "then by tenure")
	h.press(fyne.KeyDown)
	h.press(fyne.KeyReturn)
	// Not a brand offer: the phone's IMEI is asked before the card.
	require.NotNil(t, h.u.dialogs.prompt, "the IMEI of the phone is asked")
	imei := validIMEI(t, "35693803564380")
	h.enter(imei)
	h.settle()
	require.Equal(t, h.u.card, h.u.current)
	assert.Equal(t, 6, h.u.card.req.Offer.TenureMonths)
	assert.Equal(t, []IMEI{{ProductCode: "SAMSUNG-S24", IMEI: imei}}, h.u.card.req.IMEIs)

	// an HDFC offer on an ICICI card: the bank's answer in plain words
	h.enter("5522600000000005")
	h.enter("08/31")
	h.enter("123")
	h.enter("A Customer")
	h.settle()
	assert.Equal(t, sentence(errFakeNoOffer), h.u.card.message.Text)
	assert.Equal(t, h.u.card, h.u.current)
	assert.Empty(t, h.u.card.number.Text, "the refused card is cleared")

	h.press(fyne.KeyEscape)
	assert.Equal(t, e, h.u.current)
}

func TestIMEIScreen(t *testing.T) {
	h := newHarness(t, newFakeTill())
	h.signIn("Ravi", "1234")
	h.enter("S24")
	h.enter("S24")
	require.Equal(t, 2, h.u.sale.lines[0].Qty)
	offer := h.till.offers[1]
	req := h.u.sale.request(pos.TenderEMI)
	req.Offer = &offer
	h.u.emi.askIMEI(req, pos.Rupees(2*74999))
	s := h.u.emi.imei
	require.Len(t, s.entries, 2)
	one := validIMEI(t, "35693803564380")
	h.enter(one[:14] + "9")
	if one[14] != '9' {
		assert.Contains(t, s.checks[0].Text, "✗")
		assert.Equal(t, s.entries[0], h.focused(), "a wrong IMEI keeps the focus")
		s.entries[0].SetText("")
		h.enter(one)
	}
	require.Equal(t, s.entries[1], h.focused())
	h.enter(one)
	assert.Contains(t, s.message.Text, "typed twice")
	s.entries[1].SetText("")
	h.enter(validIMEI(t, "35693803564381"))
	h.settle()
	require.Equal(t, h.u.card, h.u.current, "the card is asked for after the IMEIs")
	h.enter("4386280000000004")
	h.enter("08/31")
	h.enter("123")
	h.enter("A Customer")
	h.waitFor("the payment screen", func() bool { return h.u.current == h.u.pay })
	h.waitFor("the OTP dialog", func() bool { return h.u.pay.otp != nil })
	h.enter("123456")
	h.settle()
	assert.Equal(t, "PAID", h.u.pay.result.Text)
	assert.Len(t, h.till.requests[0].IMEIs, 2)
}

func TestCash(t *testing.T) {
	h := newHarness(t, newFakeTill())
	h.signIn("Ravi", "1234")
	h.enter("CABLE")
	h.press(fyne.KeyF7)
	c := h.u.cash
	require.Equal(t, c, h.u.current)
	h.typeText("4")
	assert.Equal(t, "short by ₹495.00", c.change.Text)
	h.enter("00")
	assert.Contains(t, c.message.Text, "less than the total")
	h.enter("0")
	assert.Equal(t, "₹3,501.00", c.change.Text)
	h.settle()
	require.Equal(t, h.u.receipt, h.u.current)
	assert.Equal(t, "Change due ₹3,501.00", h.u.receipt.change.Text)
	assert.Equal(t, pos.Rupees(4000), h.till.requests[0].Tendered)
}

func TestReceiptPrintFailure(t *testing.T) {
	f := newFakeTill()
	f.printErr = errFakePrinter
	h := newHarness(t, f)
	h.signIn("Ravi", "1234")
	h.enter("CABLE")
	h.press(fyne.KeyF7)
	h.enter("500")
	h.settle()
	r := h.u.receipt
	require.Equal(t, r, h.u.current)
	h.press(fyne.KeyF5)
	h.settle()
	assert.Contains(t, r.message.Text, "did not print: "+sentence(errFakePrinter))
	assert.Contains(t, r.message.Text, "F6 to reprint")
	f.mu.Lock()
	f.printErr = nil
	f.mu.Unlock()
	h.press(fyne.KeyF6)
	h.settle()
	assert.Equal(t, []string{"reprint:G-0001"}, f.printed)
	assert.Contains(t, r.message.Text, "Printed")
}

func TestPayOnPhone(t *testing.T) {
	h := newHarness(t, newFakeTill())
	h.signIn("Ravi", "1234")
	h.enter("CABLE")
	h.press(fyne.KeyF8)
	h.settle()
	p := h.u.pay
	assert.True(t, p.qr.Visible())
	assert.NotNil(t, p.qr.Resource)
	assert.Equal(t, "http://127.0.0.1:7071/pay/G-0001", p.qrURL.Text)
	assert.Equal(t, "PAID", p.result.Text)
}

func TestPayOnPhoneRetryIsANewQRCode(t *testing.T) {
	f := newFakeTill()
	f.phoneFails = 1
	h := newHarness(t, f)
	h.signIn("Ravi", "1234")
	h.enter("CABLE")
	h.press(fyne.KeyF8)
	h.settle()
	p := h.u.pay
	require.Equal(t, "FAILED", p.result.Text)
	assert.Contains(t, p.detail.Text, "F6 for a new QR code")

	h.press(fyne.KeyF6)
	h.settle()
	assert.Equal(t, p, h.u.current, "no card form for a phone payment")
	assert.Equal(t, "PAID", p.result.Text)
	assert.Equal(t, "http://127.0.0.1:7071/pay/G-0002", p.qrURL.Text, "a fresh order and QR code")
	f.mu.Lock()
	defer f.mu.Unlock()
	require.Len(t, f.requests, 2)
	assert.Equal(t, pos.TenderPhone, f.requests[1].Tender)
	assert.Empty(t, f.requests[1].OrderID)
}

func TestStatusBar(t *testing.T) {
	f := newFakeTill()
	f.status = Status{Live: true, Online: false, Unknown: 2}
	h := newHarness(t, f)
	assert.Equal(t, "LIVE", h.u.bar.modeText.Text)
	assert.Contains(t, h.u.bar.onlineText.Text, "Offline")
	assert.Equal(t, "2 unknown payments", h.u.bar.unknownText.Text)
	f.mu.Lock()
	f.status = Status{Online: true}
	f.mu.Unlock()
	h.u.bar.refreshStatus()
	h.settle()
	assert.Equal(t, "SANDBOX", h.u.bar.modeText.Text)
	assert.Equal(t, "Online", h.u.bar.onlineText.Text)
	assert.Equal(t, "Not signed in", h.u.bar.userText.Text)
}

func TestManagerScreensNeedAManager(t *testing.T) {
	h := newHarness(t, newFakeTill())
	h.signIn("Ravi", "1234")
	h.press(fyne.KeyF9)
	assert.Equal(t, h.u.sale, h.u.current)
	h.press(fyne.KeyF10)
	assert.Equal(t, h.u.sale, h.u.current)
}

func TestJournal(t *testing.T) {
	f := newFakeTill()
	f.orders = []OrderSummary{
		{OrderID: "G-A", State: pos.StatePaid, Tender: pos.TenderCard, Amount: pos.Rupees(1000)},
		{OrderID: "G-B", State: pos.StateFailed, Tender: pos.TenderCard, Amount: pos.Rupees(50)},
		{OrderID: "G-C", State: pos.StatePaid, Tender: pos.TenderCash, Amount: pos.Rupees(20)},
		{OrderID: "G-D", State: pos.StatePaid, Tender: pos.TenderUPI, Amount: pos.Rupees(300)},
	}
	f.events["G-A"] = []OrderEvent{{Kind: "order.intent"}, {Kind: "payment.outcome", Detail: "CHARGED"}}
	h := newHarness(t, f)
	h.signIn("Asha", "4321")
	h.press(fyne.KeyF9)
	h.settle()
	j := h.u.journal
	require.Equal(t, j, h.u.current)
	assert.Len(t, j.visible, 4)
	h.ctrl(fyne.KeyF) // state filter: PAID
	assert.Equal(t, string(pos.StatePaid), j.status.Selected)
	assert.Len(t, j.visible, 3)
	h.ctrl(fyne.KeyR) // tender filter: card
	h.ctrl(fyne.KeyR)
	h.ctrl(fyne.KeyR) // cash
	assert.Equal(t, string(pos.TenderCash), j.tender.Selected)
	require.Len(t, j.visible, 1)
	assert.Equal(t, "G-C", j.visible[0].OrderID)
	j.tender.SetSelected(string(pos.TenderUPI)) // a split sale's UPI tender
	require.Len(t, j.visible, 1)
	assert.Equal(t, "G-D", j.visible[0].OrderID)
	j.status.SetSelectedIndex(0)
	j.tender.SetSelectedIndex(0)
	assert.Len(t, j.visible, 4)

	h.enter("galla:G-A") // a scanned receipt QR
	h.settle()
	assert.Equal(t, 0, j.hit)
	require.Len(t, j.events, 2)
	assert.Contains(t, j.detail.Text, "G-A")

	h.press(fyne.KeyF5) // refund
	require.NotNil(t, h.u.dialogs.prompt)
	h.focused().(*keyEntry).SetText("")
	h.enter("2000")
	h.enter("4321")
	assert.Contains(t, h.u.dialogs.prompt.message.Text, "from ₹1.00 to ₹1,000.00")
	h.focused().(*keyEntry).SetText("")
	h.enter("400")
	h.enter("4321")
	h.settle()
	assert.Nil(t, h.u.dialogs.prompt)
	assert.Equal(t, []pos.Paise{pos.Rupees(400)}, f.refunds)
	assert.Contains(t, j.message.Text, "Refunded ₹400.00")
	require.Equal(t, h.u.receipt, h.u.current, "a verified refund opens its receipt")
	h.press(fyne.KeyEscape)
	require.Equal(t, j, h.u.current)

	h.press(fyne.KeyF7)
	h.settle()
	require.NotNil(t, h.u.dialogs.prompt)
	assert.Contains(t, j.report.Text, "X REPORT 2026-11-22")
	h.press(fyne.KeyReturn)
	assert.Nil(t, h.u.dialogs.prompt)

	h.press(fyne.KeyF8) // close day, with confirmation
	require.NotNil(t, h.u.dialogs.prompt)
	h.enter("1234")
	h.settle()
	assert.Equal(t, sentence(errFakeWrongPIN), h.u.dialogs.prompt.message.Text)
	assert.Empty(t, f.closed)
	h.enter("4321")
	h.settle()
	assert.Len(t, f.closed, 1)
	assert.Contains(t, j.report.Text, "Z REPORT 1")

	h.press(fyne.KeyReturn)
	h.press(fyne.KeyF6) // reprint the selected order
	h.settle()
	require.Equal(t, h.u.receipt, h.u.current)
	h.press(fyne.KeyF6)
	h.settle()
	assert.Equal(t, []string{"reprint:G-A"}, f.printed)
	h.press(fyne.KeyEscape)
	assert.Equal(t, j, h.u.current)
}

func TestJournalExportCSV(t *testing.T) {
	f := newFakeTill()
	f.orders = []OrderSummary{{OrderID: "G-A", State: pos.StatePaid, Tender: pos.TenderCard, Amount: pos.Rupees(1000)}}
	h := newHarness(t, f)
	h.signIn("Asha", "4321")
	h.press(fyne.KeyF9)
	h.settle()
	h.ctrl(fyne.KeyS)
	require.NotNil(t, h.u.dialogs.prompt)
	name := t.TempDir() + "/day.csv"
	h.focused().(*keyEntry).SetText("")
	h.enter(name)
	h.settle()
	assert.Nil(t, h.u.dialogs.prompt)
	assert.Contains(t, h.u.journal.message.Text, "Wrote")
	assert.FileExists(t, name)
}

func TestSettings(t *testing.T) {
	f := newFakeTill()
	f.settings.SecretSet = true
	h := newHarness(t, f)
	h.signIn("Asha", "4321")
	h.press(fyne.KeyF10)
	h.settle()
	s := h.u.settings
	require.Equal(t, s, h.u.current)
	assert.Equal(t, "Sharma Mobiles", s.shop.Text)
	assert.Equal(t, "17 files, 20.4 GB (14 days, 24 month-ends, year ends)", s.backups.Text, "the space the backups use and the keeping rule")
	assert.Empty(t, s.secret.Text, "a stored secret is never shown")
	assert.Contains(t, s.secret.PlaceHolder, "A secret is stored")
	h.ctrl(fyne.KeyG)
	assert.True(t, s.live.Checked)
	h.ctrl(fyne.KeyG)
	assert.False(t, s.live.Checked)
	h.ctrl(fyne.KeyP)
	assert.Equal(t, "58mm", s.profile.Selected)
	h.ctrl(fyne.KeyP)
	s.secret.SetText("3F1A9C7E")
	s.shop.SetText("Sharma Mobiles, Pune")
	assert.Empty(t, s.phone.Text, "the phone page stays on this computer unless set")
	s.phone.SetText(" 0.0.0.0:7071 ")
	h.ctrl(fyne.KeyS)
	assert.Empty(t, s.secret.Text, "the secret leaves the screen at once")
	h.settle()
	assert.Equal(t, "Saved.", s.message.Text)
	assert.Equal(t, "3F1A9C7E", f.secret)
	assert.Equal(t, "Sharma Mobiles, Pune", f.settings.ShopName)
	assert.Equal(t, "80mm", f.settings.PrinterProfile)
	assert.Equal(t, "0.0.0.0:7071", f.settings.PhoneListen)

	h.press(fyne.KeyF6) // add staff
	require.NotNil(t, h.u.dialogs.prompt)
	h.enter("Kiran")
	h.focused().(*keyEntry).SetText("")
	h.enter("cashier")
	h.enter("5678")
	h.enter("5678")
	h.settle()
	assert.Nil(t, h.u.dialogs.prompt)
	assert.Contains(t, s.message.Text, "Kiran can sign in")

	f.mu.Lock()
	f.printErr = errFakePrinter
	f.mu.Unlock()
	h.press(fyne.KeyF5)
	h.settle()
	assert.Contains(t, s.message.Text, "did not print")
}

func TestStatusBarJournalCheck(t *testing.T) {
	const damaged = "The journal /data/journal.db is damaged at event 7, so Galla will not take payments from it. The last backup is /data/backups/day.db: close Galla, keep the damaged file aside, copy the backup to /data/journal.db and start again."
	tests := []struct {
		name       string
		status     Status
		wantLabel  string
		wantDialog string // the dialog's message, "" for none
	}{
		{"check running", Status{Online: true, Checking: true}, "Checking journal…", ""},
		{"check passed", Status{Online: true}, "", ""},
		{"journal damaged", Status{Online: true, Damaged: damaged}, "JOURNAL DAMAGED — card payments stopped", damaged},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFakeTill()
			f.status = tt.status
			h := newHarness(t, f)
			assert.Equal(t, tt.wantLabel, h.u.bar.journalText.Text)
			if tt.wantDialog == "" {
				if h.u.dialogs.prompt != nil {
					assert.NotContains(t, h.u.dialogs.prompt.message.Text, "journal")
				}
				return
			}
			require.NotNil(t, h.u.dialogs.prompt, "the damage is said in a dialog")
			assert.Equal(t, tt.wantDialog, h.u.dialogs.prompt.message.Text)
			assert.Equal(t, widget.DangerImportance, h.u.bar.journalText.Importance)

			// Said once: the next refresh keeps the label and opens no second dialog.
			h.u.dialogs.prompt.close()
			h.u.bar.refreshStatus()
			h.settle()
			assert.Equal(t, tt.wantLabel, h.u.bar.journalText.Text)
			if h.u.dialogs.prompt != nil {
				assert.True(t, h.u.dialogs.prompt.closed, "no second dialog")
			}
		})
	}
}

// TestStatusBarInProgress: a payment whose call runs (at its OTP step) is in
// progress, never counted as unknown; only a payment left unknown is.
func TestStatusBarInProgress(t *testing.T) {
	for _, tc := range []struct {
		unknown, inProgress int
		want                string
	}{
		{0, 0, "No unknown payments"},
		{0, 1, "1 payment in progress"},
		{0, 2, "2 payments in progress"},
		{1, 0, "1 unknown payment"},
		{3, 1, "3 unknown payments · 1 payment in progress"},
	} {
		t.Run(tc.want, func(t *testing.T) {
			f := newFakeTill()
			f.status = Status{Online: true, Unknown: tc.unknown, InProgress: tc.inProgress}
			h := newHarness(t, f)
			assert.Equal(t, tc.want, h.u.bar.unknownText.Text)
		})
	}
}

// TestBrandEMIIMEIsBeforeCard: a brand offer asks the IMEIs first and validates
// them on the order before the card form opens; a wrong-brand IMEI is said on
// its field with every IMEI typed kept and no card asked for; Back from the card
// keeps the validated order for the same IMEIs, and Back to the offers cancels
// it; the card pays that order.
func TestBrandEMIIMEIsBeforeCard(t *testing.T) {
	f := newFakeTill()
	h := newHarness(t, f)
	u := h.u
	h.signIn("Ravi", "1234")
	h.enter("S24")
	h.enter("S24")
	h.ctrl(fyne.KeyE)
	h.settle()
	h.typeText("samsung")
	h.press(fyne.KeyReturn)
	s := u.emi.imei
	require.Equal(t, s, u.current, "the IMEIs first")
	require.Len(t, s.entries, 2)

	good := validIMEI(t, "35693803564380")
	other := validIMEI(t, "86413405000001") // another brand's phone
	h.enter(good)
	h.enter(other)
	h.settle()
	require.Equal(t, s, u.current, "refused: the card is not asked for")
	assert.Contains(t, s.message.Text, "it is not a phone of this brand")
	assert.Equal(t, "✗ it is not a phone of this brand", s.checks[1].Text)
	assert.Equal(t, good, s.entries[0].Text, "the other IMEI stays typed")
	assert.Equal(t, other, s.entries[1].Text, "the refused IMEI stays, to be corrected")
	assert.Equal(t, s.entries[1], h.focused())
	require.Len(t, f.emiChecks, 1)
	assert.Nil(t, f.emiChecks[0].Card, "no card data before the IMEIs are validated")

	second := validIMEI(t, "35693803564381")
	s.entries[1].SetText(second)
	h.press(fyne.KeyF5)
	h.settle()
	require.Equal(t, u.card, u.current)
	assert.Equal(t, "E-0002", u.card.req.OrderID)
	assert.Contains(t, u.card.plan.Text, "Order E-0002: the IMEIs are validated")

	h.press(fyne.KeyEscape) // back to the IMEIs: the order is kept for them
	require.Equal(t, s, u.current)
	assert.Equal(t, second, s.entries[1].Text)
	h.press(fyne.KeyF5)
	h.settle()
	require.Equal(t, u.card, u.current)
	assert.Equal(t, "E-0002", u.card.req.OrderID, "the same order goes on")
	assert.Len(t, f.emiChecks, 2, "not validated again")

	h.press(fyne.KeyEscape)
	h.press(fyne.KeyEscape) // to the offers: the unpaid order is cancelled
	h.settle()
	require.Equal(t, u.emi, u.current)
	assert.Equal(t, []string{"E-0002"}, f.cancelled)

	h.press(fyne.KeyReturn)
	h.enter(good)
	h.enter(second)
	h.settle()
	require.Equal(t, u.card, u.current)
	assert.Equal(t, "E-0003", u.card.req.OrderID)
	h.enter("4386280000000004")
	h.enter("08/31")
	h.enter("123")
	h.enter("A Customer")
	h.waitFor("the OTP dialog", func() bool { return u.pay.otp != nil && !u.pay.otp.closed })
	h.enter("123456")
	h.waitFor("the result", func() bool { return u.pay.run == nil })
	h.settle()
	assert.Equal(t, "PAID", u.pay.result.Text)
	require.Len(t, f.requests, 1)
	assert.Equal(t, "E-0003", f.requests[0].OrderID, "the card pays the order whose IMEIs were validated")
	assert.Equal(t, []string{"E-0002"}, f.cancelled, "the paid order is not cancelled")
}

// TestSaleScreenOfACompositionShop: a shop under the composition scheme may not
// collect tax (CGST Act s.10(4)), so its sale screen states none, as its bill of
// supply does.
func TestSaleScreenOfACompositionShop(t *testing.T) {
	f := newFakeTill()
	f.composition = true
	h := newHarness(t, f)
	h.signIn("Ravi", "1234")
	s := h.u.sale
	h.enter("CABLE")
	require.Len(t, s.lines, 1)
	assert.Equal(t, "₹499.00", s.total.Text)
	assert.Contains(t, s.gst.Text, "no GST charged")
	for _, tax := range []string{"CGST", "SGST", "IGST", "Taxable"} {
		assert.NotContains(t, s.gst.Text, tax)
	}
}

// TestJournalExportOffersTheExportsFolder: Export CSV offers the data
// directory's exports folder (made when first used), not the home directory.
func TestJournalExportOffersTheExportsFolder(t *testing.T) {
	f := newFakeTill()
	f.orders = []OrderSummary{{OrderID: "G-A", State: pos.StatePaid, Tender: pos.TenderCard, Amount: pos.Rupees(1000)}}
	h := newHarness(t, f)
	dir := filepath.Join(t.TempDir(), "exports")
	h.u.opts.ExportDir = dir
	h.signIn("Asha", "4321")
	h.press(fyne.KeyF9)
	h.settle()
	h.ctrl(fyne.KeyS)
	require.NotNil(t, h.u.dialogs.prompt)
	offered := h.focused().(*keyEntry).Text
	assert.Equal(t, dir, filepath.Dir(offered))
	h.press(fyne.KeyReturn)
	h.settle()
	assert.Nil(t, h.u.dialogs.prompt)
	assert.FileExists(t, offered)
}
