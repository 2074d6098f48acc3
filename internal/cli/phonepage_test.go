package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"galla/gateway/sandbox"
	"galla/internal/browsertest"
	"galla/internal/phonepage"
	"galla/pos"
	"galla/ui"
)

// phoneSale is a pay-on-phone sale running in the background.
type phoneSale struct {
	orderID string
	url     string
	done    chan phoneResult
}

type phoneResult struct {
	out ui.Outcome
	err error
}

// startPhoneSale starts a pay-on-phone sale of one Samsung phone and waits for the
// page address the pay screen shows as a QR code.
func startPhoneSale(t *testing.T, ctx context.Context, till *terminal) phoneSale {
	t.Helper()
	found := till.Shelf.Search("samsung", 1)
	require.NotEmpty(t, found)
	lines := []ui.Line{{Product: found[0], Qty: 1}}
	// Each phone sold carries its own IMEI: the sales journaled so far number it.
	last, err := till.j.Log.LastSeq(ctx)
	require.NoError(t, err)
	imeis := phoneIMEIs(t, lines, fmt.Sprintf("3569380%07d", last))
	shown := make(chan ui.Progress, 1)
	s := phoneSale{done: make(chan phoneResult, 1)}
	go func() {
		out, err := till.Checkout.Pay(ctx, ui.PayRequest{Lines: lines, IMEIs: imeis, Tender: pos.TenderPhone, Cashier: "Asha"}, func(p ui.Progress) {
			if p.CheckoutURL != "" {
				select {
				case shown <- p:
				default:
				}
			}
		})
		s.done <- phoneResult{out, err}
	}()
	select {
	case p := <-shown:
		s.orderID, s.url = p.OrderID, p.CheckoutURL
	case r := <-s.done:
		t.Fatalf("the sale ended before the page was shown: %+v %v", r.out, r.err)
	case <-time.After(10 * time.Second):
		t.Fatal("no checkout page address")
	}
	return s
}

// phoneGet fetches a URL and returns its status and body.
func phoneGet(t *testing.T, u string) (int, string) {
	t.Helper()
	req, err := http.NewRequestWithContext(t.Context(), http.MethodGet, u, nil)
	require.NoError(t, err)
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	return resp.StatusCode, string(b)
}

// TestPhonePageServesOrder checks the merchant page of a real embedded-sandbox
// order: it carries the order's token and loads the checkout script from the same
// listener, which serves the sandbox's checkout and nothing else of it; the page of
// an order that is not open, or no longer open, is not served.
func TestPhonePageServesOrder(t *testing.T) {
	till := newWindowTill(t)
	require.NoError(t, till.Setup.SaveSettings(t.Context(), manager(t, till), ui.Settings{ShopName: "Sharma Mobiles", DiscountLimit: pos.DefaultDiscountLimit}, ""))
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	sale := startPhoneSale(t, ctx, till)

	u, err := url.Parse(sale.url)
	require.NoError(t, err)
	assert.Equal(t, "127.0.0.1", u.Hostname(), "loopback by default")
	assert.Equal(t, "/pay/"+sale.orderID, u.Path)
	o, err := till.eng.Order(t.Context(), sale.orderID)
	require.NoError(t, err)
	require.NotEmpty(t, o.Token)

	code, page := phoneGet(t, sale.url)
	assert.Equal(t, http.StatusOK, code)
	assert.Contains(t, page, `"orderToken":"`+o.Token+`"`, "the token as create order sent it")
	assert.Contains(t, page, `src="/checkout/v1/checkout.js"></script>`)
	assert.Contains(t, page, `"paymentMode":"CREDIT_DEBIT,NETBANKING,UPI,WALLET"`)
	assert.Contains(t, page, `"channelId":"WEB"`)
	assert.Contains(t, page, `"countryCode":"91"`)
	assert.Contains(t, page, "Sharma Mobiles")
	assert.Contains(t, page, "Pay &#8377;&nbsp;"+o.Amount.Plain())
	assert.Contains(t, page, `name="viewport"`)

	base := u.Scheme + "://" + u.Host
	code, js := phoneGet(t, base+"/checkout/v1/checkout.js")
	assert.Equal(t, http.StatusOK, code)
	assert.Contains(t, js, "window.Checkout = Checkout")
	code, hosted := phoneGet(t, base+"/checkout/v1/pay?orderToken="+o.Token)
	assert.Equal(t, http.StatusOK, code)
	assert.Contains(t, hosted, sale.orderID, "the hosted page knows the order")

	for _, path := range []string{"/", "/api/v1/order/create", "/api/v1/order/status", "/admin/faults", "/pay/", "/pay/GALLA-NOT-OPEN", "/checkout/v1/other"} {
		code, _ := phoneGet(t, base+path)
		assert.Equal(t, http.StatusNotFound, code, path)
	}
	req, err := http.NewRequestWithContext(t.Context(), http.MethodPost, base+"/pay/"+sale.orderID, nil)
	require.NoError(t, err)
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	require.NoError(t, resp.Body.Close())
	assert.Equal(t, http.StatusMethodNotAllowed, resp.StatusCode)

	cancel() // the customer walked away: the wait ends, nothing is paid
	select {
	case r := <-sale.done:
		if r.err == nil {
			assert.NotEqual(t, pos.StatePaid, r.out.State)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the wait did not end with its context")
	}
	code, page = phoneGet(t, sale.url)
	assert.Equal(t, http.StatusNotFound, code, "an order no longer waited for is not served")
	assert.NotContains(t, page, o.Token)
}

// TestPhonePageLiveNeedsScriptURL checks that with the live service and no
// checkout_script_url, pay on phone says so in one sentence before any order is
// created, and that a configured one is what the page loads.
func TestPhonePageLiveNeedsScriptURL(t *testing.T) {
	env := map[string]string{"GALLA_MERCHANT_ID": "100001", "GALLA_ACCESS_CODE": "AC1",
		"GALLA_SECRET_KEY": strings.Repeat("ab", 32)}
	dir := t.TempDir()
	approveGateway(t, dir, env, "https://payments.example.invalid") // approved: the script address is what is missing
	c := &cli{dataDir: dir, stdout: io.Discard, stderr: io.Discard, getenv: func(k string) string { return env[k] },
		gatewayURL: "https://payments.example.invalid"}
	till, closeAll, err := openWindowTill(c)
	require.NoError(t, err)
	t.Cleanup(closeAll)
	require.True(t, till.ps.live())
	found := till.Shelf.Search("samsung", 1)
	require.NotEmpty(t, found)

	lines := []ui.Line{{Product: found[0], Qty: 1}}
	_, err = till.Checkout.Pay(t.Context(), ui.PayRequest{Lines: lines, IMEIs: phoneIMEIs(t, lines, "35693803564380"), Tender: pos.TenderPhone, Cashier: "Asha"}, nil)
	require.Error(t, err)
	assert.Equal(t, "Pay on phone needs the live service's checkout script address: set checkout_script_url in the gateway section of config.json.", pos.Sentence(err))
	orders, err := till.Books.Orders(t.Context(), time.Now())
	require.NoError(t, err)
	assert.Empty(t, orders, "no order is created without a page to pay it on")

	p, err := phonepage.Start(phonepage.Options{ScriptURL: "https://checkout.example.in/v1/checkout.js"})
	require.NoError(t, err)
	defer p.Close()
	code, page := phoneGet(t, p.Offer("GALLA-2", pos.PhoneOrder{Token: "TOK", Amount: 149900, Shop: "Sharma Mobiles"}))
	assert.Equal(t, http.StatusOK, code)
	assert.Contains(t, page, `src="https://checkout.example.in/v1/checkout.js"></script>`)
	assert.Contains(t, page, "1,499.00")
	base := strings.TrimSuffix(p.Base(), "/")
	code, _ = phoneGet(t, base+"/checkout/v1/checkout.js")
	assert.Equal(t, http.StatusNotFound, code, "without the sandbox nothing but the page is served")
}

// TestPhonePageSetting checks that the manager's phone page address is saved to
// config.json, shown again, and checked.
func TestPhonePageSetting(t *testing.T) {
	ctx := t.Context()
	till := newWindowTill(t)
	s, err := till.Setup.Settings(ctx)
	require.NoError(t, err)
	assert.Empty(t, s.PhoneListen)
	s.DiscountLimit = pos.DefaultDiscountLimit
	s.PhoneListen = "0.0.0.0:7071"
	by := manager(t, till)
	require.NoError(t, till.Setup.SaveSettings(ctx, by, s, ""))
	raw, err := os.ReadFile(filepath.Join(till.c.dataDir, configFile))
	require.NoError(t, err)
	var cfg struct {
		PhonePage struct {
			Listen string `json:"listen"`
		} `json:"phone_page"`
	}
	require.NoError(t, json.Unmarshal(raw, &cfg))
	assert.Equal(t, "0.0.0.0:7071", cfg.PhonePage.Listen)
	again, err := till.Setup.Settings(ctx)
	require.NoError(t, err)
	assert.Equal(t, "0.0.0.0:7071", again.PhoneListen)

	for _, bad := range []string{"0.0.0.0", "host:port", "1.2.3.4:70000"} {
		s.PhoneListen = bad
		err := till.Setup.SaveSettings(ctx, by, s, "")
		require.Error(t, err, bad)
		assert.Contains(t, pos.Sentence(err), "host:port", bad)
	}
	again, err = till.Setup.Settings(ctx)
	require.NoError(t, err)
	assert.Equal(t, "0.0.0.0:7071", again.PhoneListen, "a refused address changes nothing")
}

// TestPayOnPhoneBrowser drives headless Chromium as the customer's phone through
// the merchant page from the QR code, its Pay button and the checkout. On the first
// sale a declined card leaves the checkout open and the till waiting; the customer
// tries again on the same order with test card 4111111111111111 and the OTP, and
// the till ends PAID on a verified status with one capture and both attempts
// journaled, then withdraws the page. On the second sale a card the checkout
// refuses before any payment leaves the customer free to try again too.
func TestPayOnPhoneBrowser(t *testing.T) {
	till := newWindowTill(t)
	ctx, cancel := context.WithTimeout(t.Context(), 60*time.Second)
	defer cancel()

	bctx := browsertest.Start(t, ctx, chromedp.WindowSize(412, 860))

	css := func(sel string) chromedp.CSS { return chromedp.CSS(sel) }
	// checkout opens a sale's merchant page, presses Pay, continues as a guest
	// and returns the query option that reaches into the checkout's iframe.
	checkout := func(page string) chromedp.QueryOption {
		t.Helper()
		require.NoError(t, chromedp.Do(bctx,
			chromedp.Navigate(page),
			chromedp.WaitVisible(css("#pay")),
			chromedp.Click(css("#pay")),
		))
		in := browsertest.CheckoutFrame(t, bctx, "#step-login")
		require.NoError(t, chromedp.Do(bctx,
			chromedp.WaitVisible(css("#login-skip"), in),
			chromedp.Click(css("#login-skip"), in),
		))
		return in
	}
	year := strconv.Itoa(time.Now().Year() + 3)
	card := func(in chromedp.QueryOption, number string) chromedp.Action[chromedp.Void] {
		return chromedp.Steps(
			chromedp.WaitVisible(css("#card-number"), in),
			chromedp.SetValue(css("#card-number"), number, in),
			chromedp.SetValue(css("#card-month"), "12", in),
			chromedp.SetValue(css("#card-year"), year, in),
			chromedp.SetValue(css("#card-cvv"), "123", in),
			chromedp.SetValue(css("#card-holder"), "Asha Rao", in),
			chromedp.Click(css("#pay-card"), in),
		)
	}
	otp := func(in chromedp.QueryOption) chromedp.Action[chromedp.Void] {
		return chromedp.Steps(
			chromedp.WaitVisible(css("#otp"), in),
			chromedp.SendKeys(css("#otp"), sandbox.TestOTP, in),
			chromedp.Click(css("#otp-submit"), in),
		)
	}
	text := func(sel string) string {
		t.Helper()
		v, err := chromedp.Run(bctx, chromedp.Text(css(sel)))
		require.NoError(t, err)
		return v
	}
	overlays := func() int {
		t.Helper()
		n, err := chromedp.Run(bctx, chromedp.Evaluate[int](`document.querySelectorAll("#galla-checkout-overlay").length`))
		require.NoError(t, err)
		return n
	}
	outcome := func(s phoneSale) ui.Outcome {
		t.Helper()
		select {
		case r := <-s.done:
			require.NoError(t, r.err)
			return r.out
		case <-ctx.Done():
			t.Fatal("the till's wait did not end after the customer's payment")
		}
		return ui.Outcome{}
	}

	// A declined card, then the good card on the SAME order: the counter waits on
	// the order, so the customer simply tries again in the open checkout.
	first := startPhoneSale(t, ctx, till)
	in := checkout(first.url)
	require.NoError(t, chromedp.Do(bctx, card(in, "4000000000000002"), otp(in),
		pollJS(`document.getElementById("status").textContent.indexOf("did not go through") >= 0`)))
	assert.Equal(t, "That did not go through — you can try again. (Transaction declined by issuer)", text("#status"))
	assert.Equal(t, 1, overlays(), "the checkout stays open for another attempt")
	select {
	case r := <-first.done:
		t.Fatalf("the till stopped waiting after a failed attempt: %+v %v", r.out, r.err)
	default:
	}
	code, _ := phoneGet(t, first.url)
	assert.Equal(t, http.StatusOK, code, "the page stays up while the till waits")
	// The customer retypes the card at a human pace: the till's next poll (every
	// second at first) journals the failed attempt before the second one is made.
	// The service's order inquiry names only the latest payment, so an attempt made
	// and failed entirely between two polls would not be journaled.
	require.Eventually(t, func() bool {
		o, err := till.eng.Order(t.Context(), first.orderID)
		return err == nil && len(o.Attempts) == 1 && o.Attempts[0].Status == pos.AttemptFailed
	}, 10*time.Second, 50*time.Millisecond, "the till journals the failed attempt and keeps waiting")
	require.NoError(t, chromedp.Do(bctx, card(in, "4111111111111111"), otp(in),
		pollJS(`document.getElementById("status").textContent.indexOf("Payment received") >= 0`)))
	assert.Equal(t, "Payment received — the counter is checking it.", text("#status"))
	out := outcome(first)
	assert.Equal(t, pos.StatePaid, out.State)
	assert.True(t, out.Verified, "paid on a verified status")
	assert.Equal(t, first.orderID, out.OrderID)
	o, err := till.eng.Order(t.Context(), first.orderID)
	require.NoError(t, err)
	assert.Equal(t, pos.StatePaid, o.State)
	require.Len(t, o.Attempts, 2, "both attempts are on the order")
	assert.Equal(t, pos.AttemptFailed, o.Attempts[0].Status)
	assert.Equal(t, pos.AttemptCaptured, o.Attempts[1].Status)
	lo := ledger(t, till, first.orderID)
	assert.Equal(t, 1, lo.CapturedPayments)
	require.Len(t, lo.Payments, 2)
	evs, err := till.eng.Journal().Events(t.Context(), first.orderID)
	require.NoError(t, err)
	journaled := map[string]string{}
	for _, ev := range evs {
		if ev.Kind == pos.EvPaymentOutcome && ev.Outcome != nil {
			journaled[ev.Outcome.PaymentID] = ev.Outcome.PaymentStatus
		}
	}
	assert.Equal(t, map[string]string{lo.Payments[0].PaymentID: "FAILED", lo.Payments[1].PaymentID: "CAPTURED"}, journaled,
		"the journal shows both attempts")
	code, _ = phoneGet(t, first.url)
	assert.Equal(t, http.StatusNotFound, code, "the page is withdrawn once the till stops waiting")

	// A new sale: a card the checkout refuses before any payment, then the good
	// card.
	second := startPhoneSale(t, ctx, till)
	require.NotEqual(t, first.orderID, second.orderID)
	in = checkout(second.url)
	require.NoError(t, chromedp.Do(bctx, card(in, "4111111111111112"),
		pollJS(`document.getElementById("status").textContent.indexOf("you can try again") >= 0`)))
	assert.Equal(t, 1, overlays(), "no payment was made: the customer tries again in the checkout")
	require.NoError(t, chromedp.Do(bctx, card(in, "4111111111111111"), otp(in),
		pollJS(`document.getElementById("status").textContent.indexOf("Payment received") >= 0`)))
	out = outcome(second)
	assert.Equal(t, pos.StatePaid, out.State)
	assert.True(t, out.Verified, "paid on a verified status")
	assert.Equal(t, second.orderID, out.OrderID)
	o, err = till.eng.Order(t.Context(), second.orderID)
	require.NoError(t, err)
	assert.Equal(t, pos.TenderPhone, o.Tender)
	assert.Equal(t, 1, ledger(t, till, second.orderID).CapturedPayments)
	noCardNumber(t, till, "4111111111111111", "4000000000000002")
}

// pollJS waits until a JavaScript expression of the page is true.
func pollJS(expr string) chromedp.Action[chromedp.Void] {
	return chromedp.Func(func(ctx context.Context, t *chromedp.Target) error {
		_, err := chromedp.Poll[bool](expr)(ctx, t)
		return err
	})
}
