package cli

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"galla/internal/browsertest"
)

// box is an element's laid-out size and position, and its computed position.
type box struct {
	W, H, X, Y float64
	Position   string
}

// TestPayOnPhoneStyledOnPhone opens a pay-on-phone sale's page as a phone
// would, 390×844 CSS pixels, and presses Pay: the page's strict
// Content-Security-Policy (styles by nonce, no 'unsafe-inline') lets the
// checkout's styles apply, so the checkout covers the phone's screen instead
// of sitting in the page as a bare 300×150 frame, and no policy violation is
// reported. The screenshot is written to GALLA_SCREENSHOT_DIR when it is set.
func TestPayOnPhoneStyledOnPhone(t *testing.T) {
	till := newWindowTill(t)
	ctx, cancel := context.WithTimeout(t.Context(), 60*time.Second)
	defer cancel()
	bctx := browsertest.Start(t, ctx, chromedp.WindowSize(390, 844))
	sale := startPhoneSale(t, ctx, till)

	css := func(sel string) chromedp.CSS { return chromedp.CSS(sel) }
	require.NoError(t, chromedp.Do(bctx,
		chromedp.EmulateViewport(390, 844, chromedp.EmulateScale(2)),
		chromedp.Navigate(sale.url),
		chromedp.WaitVisible(css("#pay")),
	))
	_, err := chromedp.Run(bctx, chromedp.Evaluate[bool](`window.violations = [];
		document.addEventListener("securitypolicyviolation", function (e) { window.violations.push(e.violatedDirective + " " + e.blockedURI); });
		true`))
	require.NoError(t, err)
	page, err := chromedp.Run(bctx, chromedp.Evaluate[box](`(function () {
		var r = document.getElementById("pay").getBoundingClientRect();
		return {W: r.width, H: r.height, X: r.left, Y: r.top, Position: getComputedStyle(document.body).margin};
	})()`))
	require.NoError(t, err)
	assert.InDelta(t, 350, page.W, 20, "the page's own style applies: its Pay button spans the phone's width less the margins")

	require.NoError(t, chromedp.Do(bctx, chromedp.Click(css("#pay"))))
	browsertest.CheckoutFrame(t, bctx, "#step-login")
	measure := func(sel string) box {
		t.Helper()
		b, err := chromedp.Run(bctx, chromedp.Evaluate[box](`(function () {
			var e = document.querySelector("`+sel+`"), r = e.getBoundingClientRect();
			return {W: r.width, H: r.height, X: r.left, Y: r.top, Position: getComputedStyle(e).position};
		})()`))
		require.NoError(t, err)
		return b
	}
	overlay, frame := measure("#galla-checkout-overlay"), measure("#galla-checkout-frame")
	assert.Equal(t, box{W: 390, H: 844, Position: "fixed"}, overlay, "the overlay covers the screen")
	assert.Equal(t, 390.0, frame.W, "the checkout is as wide as the phone")
	assert.Equal(t, 844.0, frame.H, "and as tall")
	violations, err := chromedp.Run(bctx, chromedp.Evaluate[[]string](`window.violations`))
	require.NoError(t, err)
	assert.Empty(t, violations, "nothing the page's policy refuses")

	shot, err := chromedp.Run(bctx, chromedp.CaptureScreenshot())
	require.NoError(t, err)
	require.NotEmpty(t, shot)
	if dir := os.Getenv("GALLA_SCREENSHOT_DIR"); dir != "" {
		require.NoError(t, os.WriteFile(filepath.Join(dir, "pay-on-phone-390x844.png"), shot, 0o600))
	}
}
