package cli

import (
	"bytes"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"galla/gateway/sandbox"
)

// TestNoCardIsReadForAServiceNotApproved: while the live payment service is
// not the one a manager approved on this counter, galla checkout (a card, an
// EMI, a split sale with a card) and galla pay refuse before they read a
// byte of the card from standard input; nothing reaches the service. Once a
// manager approves it, the same card sale reads the card and is paid.
func TestNoCardIsReadForAServiceNotApproved(t *testing.T) {
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
	env := map[string]string{"GALLA_MERCHANT_ID": sandbox.DefaultMerchantID, "GALLA_ACCESS_CODE": sandbox.DefaultAccessCode,
		"GALLA_SECRET_KEY": sandbox.DefaultSecret, "GALLA_PIN": "432100"}
	// run runs galla with a standard input that fails the test when read:
	// the PIN comes from GALLA_PIN, so only the card could be read from it.
	run := func(args ...string) (int, string) {
		var out, errOut bytes.Buffer
		c := &cli{stdin: unread{t}, stdout: &out, stderr: &errOut, getenv: func(k string) string { return env[k] }}
		code := c.main(append([]string{"--data", dir, "--gateway", srv.URL}, args...))
		assert.Empty(t, out.String())
		return code, errOut.String()
	}
	for _, tc := range []struct {
		name string
		args []string
	}{
		{"a card sale", []string{"checkout", "--staff", "Meera", "--items", "ACC-CASE-S24", "--pay", "card", "--wait", "10s"}},
		{"an EMI sale", []string{"checkout", "--staff", "Meera", "--items", "ACC-CASE-S24", "--pay", "emi", "--issuer", "HDFC", "--tenure", "6", "--wait", "10s"}},
		{"a split sale with a card", []string{"checkout", "--staff", "Meera", "--items", "ACC-CASE-S24", "--pay", "cash:10000,card", "--wait", "10s"}},
		{"a payment taken again", []string{"pay", "G-NOT-SOLD", "--staff", "Meera", "--wait", "10s"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, errOut := run(tc.args...)
			assert.Equal(t, exitBadInput, code, errOut)
			assert.Contains(t, errOut, "The payment service changed to "+strings.TrimPrefix(srv.URL, "http://"))
			assert.Contains(t, errOut, "Nothing was read of the card, and nothing was sent.")
		})
	}
	assert.Zero(t, hits.Load(), "no request reaches a service no manager approved")

	code, out, errOut := tillRun(t, dir, "", env, "--gateway", srv.URL, "gateway", "approve", "--staff", "Meera")
	require.Equal(t, exitOK, code, errOut)
	require.Contains(t, out, "is approved by Meera")
	frictionless := strings.Replace(visaJSON, "4111 1111 1111 1111", "5555555555554444", 1)
	code, out, errOut = tillRun(t, dir, frictionless, env, "--gateway", srv.URL, "checkout", "--staff", "Meera",
		"--items", "ACC-CASE-S24", "--pay", "card", "--wait", "10s")
	require.Equal(t, exitOK, code, errOut)
	assert.Equal(t, "PAID", decodeCheckout(t, out).Status, "approved: the card is read and paid")
}
