package cli

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"galla/gateway/sandbox"
	"galla/pos"
)

// TestGatewayNeedsApproval checks that a live payment service no manager
// approved on this counter takes no card sale (no request reaches it), that a
// cashier cannot approve it, that a manager's approval is journaled naming
// them and lets card sales through, and that new credentials need a new
// approval.
func TestGatewayNeedsApproval(t *testing.T) {
	sb, err := sandbox.New()
	require.NoError(t, err)
	t.Cleanup(func() { _ = sb.Close() })
	var hits atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		sb.ServeHTTP(w, r)
	}))
	t.Cleanup(srv.Close)

	dir := t.TempDir()
	code, _, errOut := tillRun(t, dir, "432100\n", nil, "staff", "add", "Meera", "--role", "manager")
	require.Equal(t, exitOK, code, errOut)
	code, _, errOut = tillRun(t, dir, "1111\n432100\n", nil, "staff", "add", "Ravi", "--role", "cashier")
	require.Equal(t, exitOK, code, errOut)

	env := map[string]string{"GALLA_MERCHANT_ID": sandbox.DefaultMerchantID, "GALLA_ACCESS_CODE": sandbox.DefaultAccessCode,
		"GALLA_SECRET_KEY": sandbox.DefaultSecret, "GALLA_PIN": "432100"}
	frictionless := strings.Replace(visaJSON, "4111 1111 1111 1111", "5555555555554444", 1)
	sale := func(env map[string]string) (int, string, string) {
		return tillRun(t, dir, frictionless, env, "--gateway", srv.URL, "checkout", "--staff", "Meera",
			"--items", "ACC-CASE-S24", "--pay", "card", "--wait", "10s")
	}
	gw := func(env map[string]string, args ...string) (int, string, string) {
		return tillRun(t, dir, "", env, append([]string{"--gateway", srv.URL, "gateway"}, args...)...)
	}

	// A live service never approved here: refused before any request.
	code, out, errOut := sale(env)
	assert.Equal(t, exitBadInput, code, out)
	assert.Contains(t, errOut, "The payment service changed to "+strings.TrimPrefix(srv.URL, "http://"))
	assert.Contains(t, errOut, `galla gateway approve --staff NAME`)
	assert.Zero(t, hits.Load(), "no request reaches a service no manager approved")
	code, out, errOut = gw(env)
	require.Equal(t, exitOK, code, errOut)
	assert.Contains(t, out, "payment service: "+srv.URL+", merchant "+sandbox.DefaultMerchantID)
	assert.Contains(t, out, "not approved")

	// A cashier cannot approve it; a manager can, journaled naming them.
	cashier := map[string]string{"GALLA_PIN": "1111"}
	for k, v := range env {
		if k != "GALLA_PIN" {
			cashier[k] = v
		}
	}
	code, _, errOut = gw(cashier, "approve", "--staff", "Ravi")
	assert.Equal(t, exitBadInput, code)
	assert.Contains(t, errOut, "Ravi is not a manager")
	code, _, errOut = gw(env, "approve")
	assert.Equal(t, exitBadInput, code, "no manager named")
	assert.Contains(t, errOut, "a manager's act")
	code, out, errOut = gw(env, "approve", "--staff", "Meera")
	require.Equal(t, exitOK, code, errOut)
	assert.Contains(t, out, "is approved by Meera")
	assert.Zero(t, hits.Load(), "approving sends nothing to the service")

	var approved, detected []pos.Event
	for _, ev := range dirEvents(t, dir) {
		if ev.Kind != pos.EvSettingsChanged {
			continue
		}
		switch ev.Setting.Key {
		case settingGatewayApproved:
			approved = append(approved, ev)
		case settingGatewayDetected:
			detected = append(detected, ev)
		}
	}
	require.Len(t, approved, 1)
	assert.NotEmpty(t, approved[0].Staff, "the approval names the manager's id")
	var id gatewayIdentity
	require.NoError(t, json.Unmarshal(approved[0].Setting.Value, &id))
	assert.Equal(t, gatewayIdentity{BaseURL: srv.URL, MerchantID: sandbox.DefaultMerchantID, Credentials: id.Credentials, By: "Meera", At: id.At}, id)
	assert.Len(t, id.Credentials, 64)
	assert.NotContains(t, string(approved[0].Setting.Value), sandbox.DefaultSecret, "the secret is never journaled")
	assert.NotContains(t, string(approved[0].Setting.Value), sandbox.DefaultAccessCode)
	require.Len(t, detected, 1, "the change found at start is journaled once, however many starts saw it")

	// Approved: card sales go through.
	code, out, errOut = sale(env)
	require.Equal(t, exitOK, code, errOut)
	paid := decodeCheckout(t, out)
	assert.Equal(t, "PAID", paid.Status)
	assert.NotZero(t, hits.Load())
	code, out, _ = gw(env)
	require.Equal(t, exitOK, code)
	assert.Contains(t, out, "approved by Meera")
	assert.NotContains(t, out, "not approved")

	// New credentials for the same address need a new approval.
	before := hits.Load()
	changed := map[string]string{}
	for k, v := range env {
		changed[k] = v
	}
	changed["GALLA_ACCESS_CODE"] = sandbox.DefaultAccessCode + "X"
	code, _, errOut = sale(changed)
	assert.Equal(t, exitBadInput, code)
	assert.Contains(t, errOut, "galla gateway approve")
	assert.Equal(t, before, hits.Load(), "no request with credentials no manager approved")
	code, out, _ = gw(changed)
	require.Equal(t, exitOK, code)
	assert.Contains(t, out, "not approved: the approved one was "+srv.URL)

	// The window: the status bar's sentence, and pay on phone refused too.
	c := &cli{dataDir: dir, stdout: io.Discard, stderr: io.Discard, getenv: func(k string) string { return changed[k] }, gatewayURL: srv.URL}
	till, closeAll, err := openWindowTill(c)
	require.NoError(t, err)
	<-till.checked
	assert.Contains(t, till.Status(t.Context()).Gateway, "galla gateway approve --staff NAME")
	_, err = till.Checkout.Pay(t.Context(), pos.PayRequest{Lines: []pos.CartLine{}, Tender: pos.TenderPhone, Cashier: "Meera"}, nil)
	assert.ErrorIs(t, err, pos.ErrGatewayNotApproved)
	// Nor EMI offers, nor a refund of the sale paid under the service
	// approved before: the refund fails with the sentence, nothing refunded.
	_, err = till.Engine().Payments.EMIOffers(t.Context(), []pos.Line{{SKU: "PHN", Name: "Phone", Qty: 1, UnitPrice: pos.Rupees(30000), GSTRate: pos.Percent(18)}})
	assert.ErrorIs(t, err, pos.ErrGatewayNotApproved)
	o, err := till.Engine().Order(t.Context(), paid.MerchantOrderID)
	require.NoError(t, err)
	res, err := till.Returns.RefundOrder(t.Context(), pos.RefundRequest{OrderID: o.ID, Amount: pos.Rupees(100), PIN: "432100"})
	require.NoError(t, err)
	assert.Equal(t, pos.RefundFailed, res.Status)
	assert.Contains(t, res.Reason, "galla gateway approve --staff NAME")
	closeAll()
	assert.Equal(t, before, hits.Load(), "nothing reaches a service no manager approved")

	// The embedded sandbox needs no approval.
	code, out, errOut = tillRun(t, dir, "", nil, "gateway")
	require.Equal(t, exitOK, code, errOut)
	assert.Contains(t, out, "embedded sandbox")
}

// approveGateway adds the manager Meera to the new counter of dir and has her
// approve the live service at url with the credentials of env.
func approveGateway(t *testing.T, dir string, env map[string]string, url string) {
	t.Helper()
	code, _, errOut := tillRun(t, dir, "432100\n", nil, "staff", "add", "Meera", "--role", "manager")
	require.Equal(t, exitOK, code, errOut)
	withPIN := map[string]string{"GALLA_PIN": "432100"}
	for k, v := range env {
		withPIN[k] = v
	}
	code, _, errOut = tillRun(t, dir, "", withPIN, "--gateway", url, "gateway", "approve", "--staff", "Meera")
	require.Equal(t, exitOK, code, errOut)
}
