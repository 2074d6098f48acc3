package ui

import (
	"flag"
	"image/png"
	"os"
	"path/filepath"
	"testing"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/theme"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// screenshots, when set, writes each key screen as a PNG into that directory
// (go test ./ui -run TestScreensFit -args -screenshots=../docs/screenshots).
var screenshots = flag.String("screenshots", "", "directory to write screen PNGs into")

// TestScreensFit drives the key screens into a realistic state and checks that each
// fits the counter's 1366×768 screen.
func TestScreensFit(t *testing.T) {
	h := newHarness(t, newFakeTill())
	u := h.u
	h.signIn("Asha", "4321")
	h.enter("8801643000011")
	h.enter("CABLE")
	h.enter("TV55")
	h.settle()
	u.sale.selectLine(0)
	h.settle()

	shots := []struct {
		name  string
		setup func()
	}{
		{"sale", func() {}},
		{"emi-offers", func() {
			u.sale.selectLine(0)
			h.ctrl(fyne.KeyE)
			h.settle()
		}},
		{"card-entry", func() {
			h.typeText("samsung")
			h.press(fyne.KeyReturn)
			h.enter(validIMEI(t, "35693803564380")) // the brand's offer: the IMEI first
			h.settle()
			h.typeText("4386 2800 0000 0004")
		}},
		{"payment-progress", func() {
			h.press(fyne.KeyReturn)
			h.enter("12/30")
			h.enter("123")
			h.enter("Asha Rao")
			h.waitFor("the OTP dialog", func() bool { return u.pay.otp != nil })
		}},
		{"payment-paid", func() {
			h.enter("123456")
			h.settle()
		}},
		{"sale-dark", func() {
			h.press(fyne.KeyF2)
			h.enter("TV55")
			h.ctrl(fyne.KeyT)
			assert.True(t, u.theme.dark)
			assert.Equal(t, u.theme.Color(theme.ColorNameForeground, theme.VariantDark), u.sale.total.Color)
		}},
		{"journal", func() {
			h.ctrl(fyne.KeyT)
			h.press(fyne.KeyF9)
			h.settle()
			h.enter("G-0001")
			h.settle()
		}},
	}
	shots = append(shots, struct {
		name  string
		setup func()
	}{"settings", func() {
		h.press(fyne.KeyF10)
		h.settle()
	}})
	for _, s := range shots {
		s.setup()
		c := u.win.Canvas()
		min := u.win.Content().MinSize()
		assert.LessOrEqual(t, min.Width, float32(1366), "%s: min width", s.name)
		assert.LessOrEqual(t, min.Height, float32(768), "%s: min height", s.name)
		if *screenshots == "" {
			continue
		}
		img := c.Capture()
		f, err := os.Create(filepath.Join(*screenshots, s.name+".png"))
		require.NoError(t, err)
		require.NoError(t, png.Encode(f, img))
		require.NoError(t, f.Close())
	}
	assert.Equal(t, "PAID", u.pay.result.Text)
}
