// Package browsertest starts Debian's Chromium headless for Galla's browser tests
// (the sandbox's hosted checkout, the pay-on-phone merchant page) and reaches into
// the checkout overlay's iframe. Only tests import it, so the terminal's binary does
// not link a browser driver.
package browsertest

import (
	"context"
	"os"
	"os/exec"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/require"
)

// Start finds Chromium and starts it headless with the flags a closed network
// needs, for the life of ctx and of the test. Under CI=true a missing browser fails
// the test, since make deps installs it; elsewhere the test is skipped. extra adds
// allocator options (a window size, say).
func Start(t testing.TB, ctx context.Context, extra ...chromedp.ExecAllocatorOption) context.Context {
	t.Helper()
	exe := find(t)
	opts := append(chromedp.DefaultExecAllocatorOptions[:],
		chromedp.ExecPath(exe), chromedp.Headless, chromedp.NoSandbox, chromedp.DisableGPU,
		chromedp.Flag("disable-background-networking", true), chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true), chromedp.NoFirstRun, chromedp.UserDataDir(t.TempDir()))
	opts = append(opts, extra...)
	actx, cancelAlloc := chromedp.NewExecAllocator(ctx, opts...)
	t.Cleanup(cancelAlloc)
	bctx, cancelBrowser := chromedp.NewContext(actx)
	t.Cleanup(cancelBrowser)
	return bctx
}

// find returns the path of Chromium, failing or skipping the test when there is none.
func find(t testing.TB) string {
	t.Helper()
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	if os.Getenv("CI") == "true" {
		t.Fatal("chromium is not installed; run `make deps` (apt-get install -y chromium)")
	}
	t.Skip("chromium is not installed; run `make deps` to run the browser tests")
	return ""
}

// CheckoutFrame waits until the checkout overlay's iframe (#galla-checkout-frame)
// shows its hosted page, recognised by the selector ready, and returns the option
// that queries inside it. The iframe's node is taken again until then: a node
// taken too early holds the empty document that precedes the page.
func CheckoutFrame(t testing.TB, bctx context.Context, ready string) chromedp.QueryOption {
	t.Helper()
	frame := chromedp.CSS("#galla-checkout-frame")
	require.NoError(t, chromedp.Do(bctx, chromedp.WaitReady(frame)))
	for try := 0; try < 20; try++ {
		frames, err := chromedp.Run(bctx, chromedp.Nodes(frame))
		require.NoError(t, err)
		require.Len(t, frames, 1)
		wctx, cancel := context.WithTimeout(bctx, time.Second)
		err = chromedp.Do(wctx, chromedp.WaitReady(chromedp.CSS(ready), chromedp.FromNode(frames[0])))
		cancel()
		if err == nil {
			return chromedp.FromNode(frames[0])
		}
	}
	t.Fatal("the hosted page never loaded in the checkout iframe")
	return nil
}
