package sandbox

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"galla/gateway"
	"galla/internal/browsertest"
	"galla/internal/testclock"
)

const merchantPage = `<!DOCTYPE html>
<html><head><meta charset="utf-8"><title>Shop</title></head><body>
<button id="pay">Pay</button><pre id="log"></pre>
<script src="%s/checkout/v1/checkout.js"></script>
<script>
window.events = [];
document.getElementById("pay").onclick = function () {
  var checkout = new Checkout({
    orderToken: %q, channelId: "WEB", paymentMode: "CREDIT_DEBIT,UPI", theme: "black",
    showSavedCardsFeature: false, mobileNumber: "9876543210", emailId: "asha@example.in",
    successHandler: async function (r) {
      window.events.push({kind: "success", r: r});
      document.getElementById("log").textContent += "success " + r.payment_id + " " + r.service_order_id + "\n";
    },
    failedHandler: async function (r) {
      window.events.push({kind: "failure", r: r});
      document.getElementById("log").textContent += "failure " + r.error_code + "\n";
    }
  });
  checkout.open();
};
</script></body></html>`

type event struct {
	Kind string            `json:"kind"`
	R    map[string]string `json:"r"`
}

// TestBrowserCheckout drives headless Chromium through checkout.js and the hosted
// page: a declined card (failure callback), then a good card through the OTP step
// to a paid order (success callback, once).
func TestBrowserCheckout(t *testing.T) {
	sb, err := New(WithIDs(Sequential()), WithAllowedHosts("sandbox.test"))
	require.NoError(t, err)
	api := httptest.NewServer(sb)
	defer api.Close()
	f := &fix{t: t, sb: sb, clock: testclock.New(time.Now())}
	f.key, err = gateway.DecodeSecret(DefaultSecret)
	require.NoError(t, err)
	tok, orderID := f.create(149900)

	shop := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprintf(w, merchantPage, api.URL, tok)
	}))
	defer shop.Close()

	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	defer cancel()
	bctx := browsertest.Start(t, ctx)

	css := func(sel string) chromedp.CSS { return chromedp.CSS(sel) }
	require.NoError(t, chromedp.Do(bctx,
		chromedp.Navigate(shop.URL),
		chromedp.Click(css("#pay")),
	))
	in := browsertest.CheckoutFrame(t, bctx, "#step-pay")
	year := strconv.Itoa(time.Now().Year() + 3)
	payWith := func(number string) chromedp.Action[chromedp.Void] {
		return chromedp.Steps(
			chromedp.WaitVisible(css("#card-number"), in),
			chromedp.SetValue(css("#card-number"), number, in),
			chromedp.SetValue(css("#card-month"), "12", in),
			chromedp.SetValue(css("#card-year"), year, in),
			chromedp.SetValue(css("#card-cvv"), "123", in),
			chromedp.SetValue(css("#card-holder"), "Asha Rao", in),
			chromedp.Click(css("#pay-card"), in),
			chromedp.WaitVisible(css("#otp"), in),
			chromedp.SendKeys(css("#otp"), TestOTP, in),
			chromedp.Click(css("#otp-submit"), in),
		)
	}
	require.NoError(t, chromedp.Do(bctx, chromedp.WaitVisible(css("#step-pay"), in)))
	theme, err := chromedp.Run(bctx, chromedp.AttributeValue(css("body"), "class", in))
	require.NoError(t, err)
	assert.Equal(t, "black", theme.Value, "the theme option reaches the hosted page")
	require.NoError(t, chromedp.Do(bctx,
		payWith("4000000000000002"),
		chromedp.WaitVisible(css("#error"), in),
		poll(`document.getElementById("log").textContent.indexOf("failure") >= 0`),
		payWith("4111111111111111"),
		poll(`document.getElementById("log").textContent.indexOf("success") >= 0`),
		chromedp.Sleep(200*time.Millisecond), // a second success message would arrive by now
	))
	log, err := chromedp.Run(bctx, chromedp.Text(css("#log")))
	require.NoError(t, err)
	events, err := chromedp.Run(bctx, chromedp.Evaluate[[]event](`window.events`))
	require.NoError(t, err)
	overlays, err := chromedp.Run(bctx, chromedp.Evaluate[int](`document.querySelectorAll("#galla-checkout-overlay").length`))
	require.NoError(t, err)
	require.Len(t, events, 2, log)
	assert.Equal(t, "failure", events[0].Kind)
	assert.Equal(t, "5", events[0].R["error_code"])
	assert.Equal(t, "Transaction declined by issuer", events[0].R["error_message"])
	assert.Equal(t, orderID, events[0].R["service_order_id"])
	assert.Equal(t, "success", events[1].Kind)
	assert.Equal(t, map[string]string{"payment_id": "200000002", "service_order_id": orderID}, events[1].R)
	assert.Zero(t, overlays, "the checkout closes after success")

	lo := f.ledger(orderID)
	assert.Equal(t, orderCharged, lo.Status)
	assert.Equal(t, 1, lo.CapturedPayments)
	require.Len(t, lo.Payments, 2)
	assert.Equal(t, statusFailed, lo.Payments[0].Status)
	assert.Equal(t, statusCaptured, lo.Payments[1].Status)
	assert.True(t, strings.HasPrefix(log, "failure 5\nsuccess 200000002 "+orderID), log)
}

// poll waits until a JavaScript expression of the page is true.
func poll(expr string) chromedp.Action[chromedp.Void] {
	return chromedp.Func(func(ctx context.Context, t *chromedp.Target) error {
		_, err := chromedp.Poll[bool](expr)(ctx, t)
		return err
	})
}
