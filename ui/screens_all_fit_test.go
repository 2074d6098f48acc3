package ui

import (
	"fmt"
	"image/png"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"fyne.io/fyne/v2"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// counterScreens are the window's usable sizes on the two screens a counter PC
// has (DESIGN.md section 10): 1366×768 and 1280×720, less the title bar and the
// task bar (screenMargin).
var counterScreens = []fyne.Size{
	fyne.NewSize(1366, 768).Subtract(screenMargin),
	fyne.NewSize(1280, 720).Subtract(screenMargin),
}

// screenMinSize is what the current screen and its top dialog ask for before the
// window's cap squeezes them: more than the window has is cut off.
func screenMinSize(u *UI) (content, dialog fyne.Size) {
	content = u.win.Content().(*fyne.Container).Objects[0].MinSize()
	if top := u.win.Canvas().Overlays().Top(); top != nil {
		dialog = top.MinSize()
	}
	return content, dialog
}

// TestEveryScreenFits drives every screen and dialog of the window into a
// realistic state, each from a fresh window, and checks that none asks for more
// than the window has on a 1366×768 or a 1280×720 screen. With -screenshots=DIR
// each is written there as NAME-WIDTH.png to be looked at.
func TestEveryScreenFits(t *testing.T) {
	cart := func(h *harness) {
		h.signIn("Asha", "4321")
		h.enter("8801643000011")
		h.enter("CABLE")
		h.enter("TV55")
		h.settle()
		h.u.sale.selectLine(0)
		h.settle()
	}
	toCard := func(h *harness) {
		cart(h)
		h.ctrl(fyne.KeyE)
		h.settle()
		h.typeText("samsung")
		h.press(fyne.KeyReturn)
		h.enter(validIMEI(t, "35693803564380"))
		h.settle()
		h.typeText("4386 2800 0000 0004")
	}
	toOTP := func(h *harness) {
		toCard(h)
		h.press(fyne.KeyReturn)
		h.enter("12/30")
		h.enter("123")
		h.enter("Asha Rao")
		h.waitFor("the OTP dialog", func() bool { return h.u.pay.otp != nil })
	}
	toPaid := func(h *harness) {
		toOTP(h)
		h.enter("123456")
		h.settle()
		require.Equal(t, "PAID", h.u.pay.result.Text)
	}
	signedIn := func(h *harness) { h.signIn("Asha", "4321") }
	then := func(first func(*harness), keys ...func(*harness)) func(*harness) {
		return func(h *harness) {
			first(h)
			for _, k := range keys {
				k(h)
				h.settle()
			}
		}
	}
	key := func(k fyne.KeyName) func(*harness) { return func(h *harness) { h.press(k) } }
	ctrl := func(k fyne.KeyName) func(*harness) { return func(h *harness) { h.ctrl(k) } }
	journal := func(h *harness) {
		h.till.orders = []OrderSummary{{OrderID: "G-A", State: "PAID", Tender: "card", Amount: 100000}}
		signedIn(h)
		h.press(fyne.KeyF9)
		h.settle()
		h.enter("G-A")
	}
	split := func(h *harness) {
		signedIn(h)
		h.openSplitSale()
	}
	cables := func(h *harness) {
		signedIn(h)
		h.enter("CABLE")
		h.settle()
	}

	screens := []struct {
		name  string
		setup func(*harness)
		want  func(*UI) bool // the screen or dialog really is the one named
		till  string         // "split": a till that keeps split sales; "fresh": a journal with no staff
	}{
		{"sign-in", func(*harness) {}, func(u *UI) bool { return u.current == u.signIn }, ""},
		{"first manager", func(*harness) {}, func(u *UI) bool { return u.signIn.creating }, "fresh"},
		{"sale", cart, func(u *UI) bool { return u.current == u.sale }, ""},
		{"quantity", then(cart, key(fyne.KeyF3)), hasDialog, ""},
		{"discount", then(cart, key(fyne.KeyF4)), hasDialog, ""},
		{"customer", then(cart, ctrl(fyne.KeyU)), hasDialog, ""},
		{"emi offers", then(cart, ctrl(fyne.KeyE)), func(u *UI) bool { return u.current == u.emi }, ""},
		{"card entry", toCard, func(u *UI) bool { return u.current == u.card }, ""},
		{"otp", toOTP, hasDialog, ""},
		{"paid", toPaid, func(u *UI) bool { return u.current == u.pay }, ""},
		{"receipt", then(toPaid, key(fyne.KeyF5)), func(u *UI) bool { return u.current == u.receipt }, ""},
		{"imei", then(cart, key(fyne.KeyF5)), hasDialog, ""},
		{"pay on phone", then(cables, key(fyne.KeyF8)), func(u *UI) bool { return u.current == u.pay }, ""},
		{"cash", then(cables, key(fyne.KeyF7)), func(u *UI) bool { return u.current == u.cash }, ""},
		{"split", split, func(u *UI) bool { return u.current == u.tender }, "split"},
		{"upi", then(split, func(h *harness) { h.typeText("5000") }, key(fyne.KeyF11)), func(u *UI) bool { return u.current == u.upi }, "split"},
		{"held bills", then(cart, ctrl(fyne.KeyH), ctrl(fyne.KeyR)), hasDialog, ""},
		{"journal", journal, func(u *UI) bool { return u.current == u.journal }, ""},
		{"x report", then(journal, key(fyne.KeyF7)), hasDialog, ""},
		{"close day", then(journal, key(fyne.KeyF8)), hasDialog, ""},
		{"refund", then(journal, key(fyne.KeyF5)), hasDialog, ""},
		{"cancel invoice", then(journal, ctrl(fyne.KeyD)), hasDialog, ""},
		{"returns", then(journal, ctrl(fyne.KeyU)), func(u *UI) bool { _, ok := u.current.(*returnsScreen); return ok }, ""},
		{"settings", then(signedIn, key(fyne.KeyF10)), func(u *UI) bool { return u.current == u.settings }, ""},
		{"staff", then(signedIn, key(fyne.KeyF10), key(fyne.KeyF7)), func(u *UI) bool { return u.current == u.staff }, ""},
		{"staff add", then(signedIn, key(fyne.KeyF10), key(fyne.KeyF7), key(fyne.KeyF5)), hasDialog, ""},
		{"staff limits", then(signedIn, key(fyne.KeyF10), key(fyne.KeyF7), key(fyne.KeyDown), key(fyne.KeyF3)), hasDialog, ""},
		{"shift", then(signedIn, key(fyne.KeyF12)), func(u *UI) bool { return u.current == u.shift }, ""},
		{"shift open", then(signedIn, key(fyne.KeyF12), key(fyne.KeyF5)), hasDialog, ""},
		{"stock", then(signedIn, ctrl(fyne.KeyB)), func(u *UI) bool { return u.current == u.stock }, ""},
		{"receive goods", then(signedIn, ctrl(fyne.KeyB), key(fyne.KeyF5)), hasDialog, ""},
	}
	for _, s := range screens {
		t.Run(s.name, func(t *testing.T) {
			var h *harness
			switch s.till {
			case "split":
				h = newSplitHarness(t, newSplitTill())
			case "fresh":
				f := newFakeTill()
				f.staff, f.pins = nil, map[string]string{}
				h = newHarness(t, f)
			default:
				h = newHarness(t, newFakeTill())
			}
			s.setup(h)
			// The worst case of the window's own rows: a notice in the status
			// bar, as a counter without a keyring shows all day.
			h.u.bar.note("No system keyring answers: the secrets, and with them the key that seals the customers' details in the journal, are in the file secrets.json.")
			require.True(t, s.want(h.u), "%s is not on the window", s.name)
			for _, scr := range counterScreens {
				// Wrapped sentences ask for the lines they need at this
				// window's width.
				h.u.win.Resize(scr)
				h.u.win.Content().Refresh()
				content, dialog := screenMinSize(h.u)
				if *screenshots != "" {
					name := fmt.Sprintf("%s-%.0f.png", strings.ReplaceAll(s.name, " ", "-"), scr.Width)
					f, err := os.Create(filepath.Join(*screenshots, name))
					require.NoError(t, err)
					require.NoError(t, png.Encode(f, h.u.win.Canvas().Capture()))
					require.NoError(t, f.Close())
				}
				assert.True(t, content.Width <= scr.Width && content.Height <= scr.Height,
					"%s asks for %v, the window has %v", s.name, content, scr)
				assert.True(t, dialog.Width <= scr.Width && dialog.Height <= scr.Height,
					"%s's dialog asks for %v, the window has %v", s.name, dialog, scr)
			}
		})
	}
}

// hasDialog reports whether a dialog is open over the window.
func hasDialog(u *UI) bool { return u.win.Canvas().Overlays().Top() != nil }
