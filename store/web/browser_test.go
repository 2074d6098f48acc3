package web

import (
	"context"
	"fmt"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/browser"
	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"galla/internal/browsertest"
	"galla/pos/gstr"
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
	// The month's lines CSV downloads from its link, with the session's cookie.
	href, err := chromedp.Run(bctx, chromedp.Evaluate[string](`document.querySelector("#lines-csv").getAttribute("href")`))
	require.NoError(t, err)
	assert.Equal(t, "/manager/lines.csv?month=2026-11", href)
	dir := t.TempDir()
	progress := chromedp.Events(bctx, browser.DownloadProgress)
	events := true
	require.NoError(t, chromedp.Do(bctx,
		chromedp.Func(func(ctx context.Context, _ *chromedp.Target) error {
			_, err := chromedp.Call(ctx, browser.SetDownloadBehavior, browser.SetDownloadBehaviorParams{
				Behavior: browser.SetDownloadBehaviorBehaviorAllowAndName, DownloadPath: dir, EventsEnabled: &events})
			return err
		}),
		chromedp.Click(css("#lines-csv")),
	))
	var file string
	for ev, err := range progress {
		require.NoError(t, err)
		if ev.State == browser.DownloadProgressStateCompleted {
			file = filepath.Join(dir, ev.GUID)
			break
		}
		require.NotEqual(t, browser.DownloadProgressStateCanceled, ev.State, "the download was cancelled")
	}
	csvBody, err := os.ReadFile(file)
	require.NoError(t, err)
	assert.True(t, strings.HasPrefix(string(csvBody), strings.Join(gstr.CSVHeader, ",")+"\n"), "the lines CSV downloaded: %.200s", csvBody)
	assert.Contains(t, string(csvBody), "59000.00", "T1's phone sale is a line of it")
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

// TestManagerPagesReadOnAPhone opens every page in headless Chromium at a
// phone's 390×844: nothing spills off the screen (the page is no wider than
// the phone, and every table ends within it, scrolling sideways inside
// itself when it is wider), and the figures keep a readable size. The
// screenshots are written to GALLA_SCREENSHOT_DIR when it is set.
func TestManagerPagesReadOnAPhone(t *testing.T) {
	db := storeWithSales(t)
	// T3 has a split sale open, its credit note refused: the open sales' table.
	code, _, err := db.Access.EnrolCode(t.Context(), "T3")
	require.NoError(t, err)
	_, err = db.Access.Enrol(t.Context(), code, newPublicKey(t))
	require.NoError(t, err)
	t3 := &journal{t: t, id: "T3", prev: strings.Repeat("0", 64)}
	t3.refusedNoteSale("T3-S")
	ingest(t, db, t3, 0)
	p := New(db, nil)
	p.Now = db.Now
	srv := httptest.NewTLSServer(p)
	defer srv.Close()

	ctx, cancel := context.WithTimeout(t.Context(), 90*time.Second)
	defer cancel()
	bctx := browsertest.Start(t, ctx, chromedp.Flag("ignore-certificate-errors", true), chromedp.WindowSize(390, 844))
	css := func(sel string) chromedp.CSS { return chromedp.CSS(sel) }
	require.NoError(t, chromedp.Do(bctx,
		chromedp.EmulateViewport(390, 844),
		chromedp.Navigate(srv.URL+"/manager/"),
		chromedp.WaitVisible(css("#signin")),
		chromedp.SetValue(css("#name"), "Meera"),
		chromedp.SetValue(css("#pin"), "246810"),
		chromedp.Click(css("#signin-button")),
		chromedp.WaitVisible(css("#day")),
	))
	type fit struct {
		Width, Page float64
		Spill       []string
		Font        float64
	}
	for name, path := range map[string]string{
		"today":  "/manager/?day=" + day,
		"search": "/manager/search?q=4242",
		"order":  "/manager/order/T1/T1-B",
		"z":      "/manager/z?day=" + day,
		"staff":  "/manager/staff",
	} {
		require.NoError(t, chromedp.Do(bctx, chromedp.Navigate(srv.URL+path), chromedp.WaitVisible(css("h1"))), name)
		got, err := chromedp.Run(bctx, chromedp.Evaluate[fit](`(function () {
			var w = window.innerWidth, spill = [];
			document.querySelectorAll("table, form, dl, p, h1, h2, header").forEach(function (e) {
				var r = e.getBoundingClientRect();
				if (r.right > w + 0.5 || r.left < -0.5) { spill.push((e.id || e.tagName) + " " + Math.round(r.left) + ".." + Math.round(r.right)); }
			});
			var td = document.querySelector("td");
			return {Width: w, Page: document.documentElement.scrollWidth, Spill: spill,
				Font: td ? parseFloat(getComputedStyle(td).fontSize) : 16};
		})()`))
		require.NoError(t, err, name)
		assert.Equal(t, 390.0, got.Width, name)
		assert.LessOrEqual(t, got.Page, 390.0, "%s: the page is no wider than the phone", name)
		assert.Empty(t, got.Spill, "%s: nothing ends off the screen", name)
		assert.GreaterOrEqual(t, got.Font, 13.0, "%s: the figures stay readable", name)
		if name == "today" {
			require.NoError(t, chromedp.Do(bctx, chromedp.WaitVisible(css("#open-T3-T3-S"))), "the open sale is listed")
		}
		shot, err := chromedp.Run(bctx, chromedp.FullScreenshot(90))
		require.NoError(t, err, name)
		require.NotEmpty(t, shot)
		if dir := os.Getenv("GALLA_SCREENSHOT_DIR"); dir != "" {
			require.NoError(t, os.WriteFile(filepath.Join(dir, fmt.Sprintf("manager-%s-390.jpg", name)), shot, 0o600))
		}
	}
}
