package ui

import (
	"errors"
	"flag"
	"io/fs"
	"os"
	"path/filepath"
	"testing"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/test"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"galla/pos"
)

// update, when set, rewrites the markup snapshots under testdata/markup instead of
// comparing with them (go test ./ui -run Markup -update). Review the diff.
var update = flag.Bool("update", false, "rewrite the markup snapshots")

// newMarkupHarness is a harness whose window always renders the same markup: the
// counter's 1366×768 size and the light theme, set here rather than inherited.
func newMarkupHarness(t *testing.T, till *fakeTill) *harness {
	t.Helper()
	h := newHarness(t, till)
	h.u.theme = &counterTheme{dark: false}
	test.ApplyTheme(t, h.u.theme)
	h.u.win.Resize(fyne.NewSize(1366, 768))
	h.settle()
	return h
}

// assertMarkup compares the window's markup with testdata/markup/<name>.xml, or
// rewrites that file with -update. On a mismatch Fyne writes what it got to
// testdata/failed/markup/<name>.xml (ignored by git); a match removes a stale one.
// The caller brings the screen to rest first: a payment waiting for its OTP never
// settles.
func (h *harness) assertMarkup(name string) {
	h.t.Helper()
	h.drain()
	c := h.u.win.Canvas()
	file := filepath.Join("markup", name+".xml")
	if *update {
		path := filepath.Join("testdata", file)
		require.NoError(h.t, os.MkdirAll(filepath.Dir(path), 0o755))
		require.NoError(h.t, os.WriteFile(path, []byte(test.RenderToMarkup(c)), 0o644))
		return
	}
	if test.AssertRendersToMarkup(h.t, file, c, "the %s screen changed; if that is meant, run go test ./ui -run Markup -update and review the diff", name) {
		err := os.Remove(filepath.Join("testdata", "failed", file))
		if !errors.Is(err, fs.ErrNotExist) {
			assert.NoError(h.t, err)
		}
		// The directories go too once empty; a failure elsewhere keeps them.
		_ = os.Remove(filepath.Join("testdata", "failed", "markup"))
		_ = os.Remove(filepath.Join("testdata", "failed"))
	}
}

// TestMarkupSale snapshots the sale screen with two lines, one of them discounted.
func TestMarkupSale(t *testing.T) {
	h := newMarkupHarness(t, newFakeTill())
	u := h.u
	h.signIn("Asha", "4321")
	h.enter("CABLE")
	h.enter("TV55")
	h.settle()
	require.Len(t, u.sale.lines, 2)
	u.sale.selectLine(1)
	h.press(fyne.KeyF4)
	require.NotNil(t, u.dialogs.prompt)
	h.enter("500") // within the limit: no PIN
	h.settle()
	require.Nil(t, u.dialogs.prompt, "the discount is applied")
	require.Equal(t, pos.Rupees(500), u.sale.lines[1].Discount)
	h.assertMarkup("sale")
}

// TestMarkupSettings snapshots the settings of a live terminal whose access code
// and secret are stored: neither is shown, the access code only masked in its
// placeholder, and the screen says where they are kept.
func TestMarkupSettings(t *testing.T) {
	f := newFakeTill()
	f.settings.Live, f.settings.GatewayURL, f.settings.MerchantID = true, "https://pay.example.in", "29845"
	f.settings.AccessCodeShown, f.settings.SecretSet = "••••9Q", true
	f.settings.SecretsWhere = "the system keyring"
	f.settings.PrinterAddr = "192.168.1.50:9100"
	h := newMarkupHarness(t, f)
	h.signIn("Asha", "4321")
	h.press(fyne.KeyF10)
	h.settle()
	require.Equal(t, h.u.settings, h.u.current)
	h.assertMarkup("settings")
}

// TestMarkupEMISale snapshots each screen of a brand EMI sale: the offers, the card
// form, the payment waiting for the OTP, the PAID result and the receipt preview.
func TestMarkupEMISale(t *testing.T) {
	h := newMarkupHarness(t, newFakeTill())
	u := h.u
	h.signIn("Asha", "4321")
	h.enter("8801643000011")
	h.settle()
	h.ctrl(fyne.KeyE)
	h.settle()
	require.Equal(t, u.emi, u.current)
	require.Len(t, u.emi.shown_, 3)
	h.assertMarkup("emi-offers")

	h.press(fyne.KeyReturn) // the no-cost brand plan leads: its IMEI first
	require.Equal(t, u.emi.imei, u.current)
	h.enter(validIMEI(t, "35693803564380"))
	h.settle()
	require.Equal(t, u.card, u.current)
	h.typeText("4386 2800 0000 0004")
	h.settle()
	h.assertMarkup("card-entry")

	h.press(fyne.KeyReturn)
	h.enter("12/30")
	h.enter("123")
	h.enter("Asha Rao")
	h.waitFor("the payment screen", func() bool { return u.current == u.pay })
	h.waitFor("the OTP dialog", func() bool { return u.pay.otp != nil && !u.pay.otp.closed })
	h.assertMarkup("payment-otp")

	h.enter("123456")
	h.waitFor("the result", func() bool { return u.pay.run == nil })
	h.settle()
	require.Equal(t, "PAID", u.pay.result.Text)
	h.assertMarkup("payment-paid")

	h.press(fyne.KeyF5)
	h.settle()
	require.Equal(t, u.receipt, u.current)
	require.NotNil(t, u.receipt.image.Resource)
	h.assertMarkup("receipt")
}

// TestMarkupJournal snapshots the journal with a few orders, one chosen.
func TestMarkupJournal(t *testing.T) {
	f := newFakeTill()
	at := func(h, m int) time.Time { return time.Date(2026, 11, 22, h, m, 0, 0, time.Local) }
	f.orders = []OrderSummary{
		{OrderID: "G-0001", At: at(10, 5), State: pos.StatePaid, Tender: pos.TenderEMI, Amount: pos.Rupees(74999), Cashier: "Asha", Detail: "VISA •••• 0004, HDFC 3 months no-cost"},
		{OrderID: "G-0002", At: at(10, 41), State: pos.StateFailed, Tender: pos.TenderCard, Amount: pos.Rupees(499), Cashier: "Ravi"},
		{OrderID: "G-0003", At: at(11, 2), State: pos.StatePaid, Tender: pos.TenderCash, Amount: pos.Rupees(998), Cashier: "Ravi"},
		{OrderID: "G-0004", At: at(11, 20), State: pos.StatePartlyRefunded, Tender: pos.TenderCard, Amount: pos.Rupees(139990), Refunded: pos.Rupees(5000), Cashier: "Asha"},
	}
	f.events["G-0001"] = []OrderEvent{
		{At: at(10, 5), Kind: "order.intent", Detail: "Sale of ₹74,999.00 journaled, paid by card"},
		{At: at(10, 5).Add(2 * time.Second), Kind: "order.created", Detail: "Order created at the payment service"},
		{At: at(10, 6), Kind: "payment.outcome", Detail: "Verified: order CHARGED, payment CAPTURED"},
	}
	h := newMarkupHarness(t, f)
	u := h.u
	h.signIn("Asha", "4321")
	h.press(fyne.KeyF9)
	h.settle()
	require.Equal(t, u.journal, u.current)
	h.enter("G-0001")
	h.settle()
	require.Equal(t, 0, u.journal.hit)
	require.Len(t, u.journal.events, 3)
	h.assertMarkup("journal")
}
