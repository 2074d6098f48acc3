package ui

import (
	"strings"
	"testing"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/test"
	"fyne.io/fyne/v2/widget"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// On a screen smaller than the remembered size the window is fitted to it, and a
// screen whose content asks for more than the screen does not push the window
// past it (DESIGN.md section 10; the window grew past a 1366×768 screen after an
// error before).
func TestWindowFitsTheScreen(t *testing.T) {
	h := newHarness(t, newFakeTill())
	u := h.u
	u.opts.Screen = func() (int, int) { return 1024, 600 }
	u.win.Resize(fyne.NewSize(1366, 768))
	u.fit.fitScreen()
	size := u.win.Canvas().Size()
	limit := fyne.NewSize(1024-screenMargin.Width, 600-screenMargin.Height)
	assert.LessOrEqual(t, size.Width, limit.Width)
	assert.LessOrEqual(t, size.Height, limit.Height)

	// A sentence far wider than the screen, in a label that does not wrap.
	wide := widget.NewLabel(strings.Repeat("The payment service did not answer; ", 40))
	u.body.Objects = append(u.body.Objects, wide)
	u.body.Refresh()
	require.Greater(t, wide.MinSize().Width, limit.Width, "the test's label must be wider than the screen")
	got := u.win.Content().MinSize()
	assert.LessOrEqual(t, got.Width, limit.Width, "the window's content asks for no more than the screen")
	assert.LessOrEqual(t, got.Height, limit.Height)
}

// On its first start on a 1920×1080 screen the window fills the screen (less the
// room left for the desktop's panels), not 1366×768 in a corner; once the cashier
// has sized it, that size is kept on a screen it fits.
func TestWindowFirstStartFillsTheScreen(t *testing.T) {
	h := newHarness(t, newFakeTill())
	u := h.u
	u.opts.Screen = func() (int, int) { return 1920, 1080 }
	u.win.Resize(defaultSize)
	u.fit.fitScreen()
	assert.Equal(t, fyne.NewSize(1920-screenMargin.Width, 1080-screenMargin.Height), u.win.Canvas().Size())

	u.win.Resize(fyne.NewSize(1400, 800))
	u.fit.rememberWindow()
	u.fit.fitScreen()
	assert.Equal(t, fyne.NewSize(1400, 800), u.win.Canvas().Size(), "the size the cashier chose")
}

// Without a screen to go by, nothing is capped: the window keeps its size.
func TestWindowWithoutScreenKeepsItsSize(t *testing.T) {
	h := newHarness(t, newFakeTill())
	h.u.win.Resize(fyne.NewSize(1366, 768))
	h.u.fit.fitScreen()
	assert.Equal(t, fyne.NewSize(1366, 768), h.u.win.Canvas().Size())
}

// The window opens at the size it had when it was closed, in the theme last
// chosen.
func TestWindowRemembersSizeAndTheme(t *testing.T) {
	app := test.NewTempApp(t)
	first := New(app, servicesOf(newFakeTill()), Options{Do: func(f func()) {}})
	startDark := first.theme.dark
	first.win.Resize(fyne.NewSize(1200, 700))
	first.toggleTheme()
	first.win.Close()

	second := New(app, servicesOf(newFakeTill()), Options{Do: func(f func()) {}})
	defer second.stop()
	assert.Equal(t, fyne.NewSize(1200, 700), second.fit.rememberedSize())
	assert.Equal(t, !startDark, second.theme.dark, "the theme chosen last")
}
