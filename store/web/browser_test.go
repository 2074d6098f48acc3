package web

import (
	"context"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"galla/internal/browsertest"
)

// TestManagerPagesInChromium signs in, reads the day, searches an IMEI, opens
// the order, is refused the store Z with a sentence and signs out, in headless
// Chromium over TLS under the pages' CSP.
func TestManagerPagesInChromium(t *testing.T) {
	db := storeWithSales(t)
	p := New(db, nil)
	p.Now = db.Now
	srv := httptest.NewTLSServer(p)
	defer srv.Close()

	ctx, cancel := context.WithTimeout(t.Context(), 60*time.Second)
	defer cancel()
	bctx := browsertest.Start(t, ctx, chromedp.Flag("ignore-certificate-errors", true))
	css := func(sel string) chromedp.CSS { return chromedp.CSS(sel) }
	text := func(sel string) string {
		t.Helper()
		require.NoError(t, chromedp.Do(bctx, chromedp.WaitVisible(css(sel))))
		v, err := chromedp.Run(bctx, chromedp.Text(css(sel)))
		require.NoError(t, err)
		return v
	}

	require.NoError(t, chromedp.Do(bctx,
		chromedp.Navigate(srv.URL+"/manager/"),
		chromedp.WaitVisible(css("#signin")),
		chromedp.SetValue(css("#name"), "Meera"),
		chromedp.SetValue(css("#pin"), "111111"),
		chromedp.Click(css("#signin-button")),
	))
	assert.Contains(t, text("#error"), "The name or the PIN is wrong")
	require.NoError(t, chromedp.Do(bctx,
		chromedp.SetValue(css("#name"), "Meera"),
		chromedp.SetValue(css("#pin"), "246810"),
		chromedp.Click(css("#signin-button")),
	))
	// Today: T1 ₹1,180 + ₹59,000, T2 ₹11,800; T1's ₹500 card payment unknown.
	assert.Contains(t, text("#counter-T1"), "₹60,180.00")
	assert.Contains(t, text("#counter-T2"), "₹11,800.00")
	assert.Contains(t, text("#store-total"), "₹71,980.00")
	assert.Contains(t, text("#store-total"), "₹10,980.00", "GST: ₹180 + ₹9,000 + ₹1,800")
	assert.Contains(t, text("#unknown"), "T1-C")
	assert.Contains(t, text("#sync-T1"), "active")
	assert.Contains(t, text("#overrides"), "order T2-B, IMEI 490154203237518 (the store server cannot be asked)", "the IMEI override is flagged")
	assert.Contains(t, text("#overrides"), "ravi")
	// The style sheet loads under the CSP (the page is styled).
	weight, err := chromedp.Run(bctx, chromedp.Evaluate[string](`getComputedStyle(document.querySelector(".brand")).fontWeight`))
	require.NoError(t, err)
	assert.Equal(t, "700", weight)

	require.NoError(t, chromedp.Do(bctx,
		chromedp.SetValue(css("#q"), "356938035643809"),
		chromedp.Submit(css("#q")),
	))
	assert.Contains(t, text("#found"), "1 found by IMEI")
	require.NoError(t, chromedp.Do(bctx, chromedp.Click(css(`a[href="/manager/order/T1/T1-B"]`))))
	assert.Equal(t, "₹59,000.00", text("#amount"))
	assert.Contains(t, text("#lines"), "356938035643809")
	assert.Contains(t, text("#documents"), "T1/000002")

	require.NoError(t, chromedp.Do(bctx,
		chromedp.Navigate(srv.URL+"/manager/z?day="+day),
		chromedp.Click(css("#close")),
	))
	assert.Contains(t, text("#error"), "counter T1 sold on 2026-11-24 but its Z report has not reached the store")
	assert.Contains(t, text("#counter-z"), "No counter has sent its Z report of this day yet.")

	require.NoError(t, chromedp.Do(bctx, chromedp.Click(css("#signout"))))
	require.NoError(t, chromedp.Do(bctx, chromedp.WaitVisible(css("#signin"))))
	require.NoError(t, chromedp.Do(bctx, chromedp.Navigate(srv.URL+"/manager/z")))
	require.NoError(t, chromedp.Do(bctx, chromedp.WaitVisible(css("#signin"))), "signed out: the pages ask to sign in again")
}
