package cli

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// tillRun runs one galla command line in dataDir with stdin and the environment
// env, and returns the exit code, standard output and standard error.
func tillRun(t *testing.T, dataDir, stdin string, env map[string]string, args ...string) (int, string, string) {
	t.Helper()
	var out, errOut bytes.Buffer
	c := &cli{stdin: strings.NewReader(stdin), stdout: &out, stderr: &errOut,
		getenv: func(k string) string { return env[k] }}
	code := c.main(append([]string{"--data", dataDir}, args...))
	return code, out.String(), errOut.String()
}

func decodeCheckout(t *testing.T, out string) checkoutOutput {
	t.Helper()
	var co checkoutOutput
	require.NoError(t, json.Unmarshal([]byte(strings.TrimSpace(out)), &co), "checkout prints one JSON object: %q", out)
	return co
}

const visaJSON = `{"number":"4111 1111 1111 1111","expiry_month":"12","expiry_year":"2030","cvv":"123","holder":"A Customer"}`

// assertNoCardNumber fails when s holds visaJSON's card number, as typed or
// as digits alone, or all of it but the last four digits (a masked number
// shows those alone). A shorter piece is not looked for: "4111" is in about
// one random order id in a thousand, and such a check failed when it was.
func assertNoCardNumber(t *testing.T, s string, msgAndArgs ...any) {
	t.Helper()
	for _, n := range []string{"4111 1111 1111 1111", "4111111111111111", "4111 1111 1111", "411111111111"} {
		assert.NotContains(t, s, n, msgAndArgs...)
	}
}

func TestTillCommands(t *testing.T) {
	dir := t.TempDir()
	pin := map[string]string{"GALLA_PIN": "432100"}

	code, out, errOut := tillRun(t, dir, "432100\n", nil, "staff", "add", "Meera", "--role", "manager")
	require.Equal(t, exitOK, code, errOut)
	assert.Contains(t, out, "Meera")
	code, _, errOut = tillRun(t, dir, "1111\n9999\n", nil, "staff", "add", "Ravi", "--role", "cashier")
	assert.Equal(t, exitBadInput, code, "a second staff member needs a manager's PIN")
	assert.Contains(t, errOut, "Wrong PIN")

	code, out, errOut = tillRun(t, dir, "", pin, "checkout", "--staff", "Meera", "--items", "ACC-CBL-CC1M:2", "--pay", "cash", "--cash", "100000")
	require.Equal(t, exitOK, code, errOut)
	cash := decodeCheckout(t, out)
	assert.Equal(t, "PAID", cash.Status)
	assert.Equal(t, uint64(1), cash.ReceiptNo)
	assert.Positive(t, cash.Change)

	code, out, errOut = tillRun(t, dir, visaJSON, pin, "checkout", "--staff", "Meera", "--items", "ACC-CASE-S24", "--pay", "card", "--otp", "123456")
	require.Equal(t, exitOK, code, errOut)
	paid := decodeCheckout(t, out)
	assert.Equal(t, "PAID", paid.Status)
	assert.True(t, paid.Verified)
	assert.NotEmpty(t, paid.ServiceOrderID)
	assert.NotEmpty(t, paid.PaymentID)
	assertNoCardNumber(t, out+errOut, "no card number in the output")

	declined := strings.Replace(visaJSON, "4111 1111 1111 1111", "4000000000000002", 1)
	code, out, _ = tillRun(t, dir, declined, pin, "checkout", "--staff", "Meera", "--items", "ACC-CASE-S24", "--pay", "card", "--otp", "123456")
	assert.Equal(t, exitFailed, code)
	assert.Equal(t, "FAILED", decodeCheckout(t, out).Status)

	code, out, errOut = tillRun(t, dir, visaJSON, pin, "checkout", "--staff", "Meera", "--items", "ACC-CASE-S24", "--pay", "card", "--wait", "2s")
	assert.Equal(t, exitUnknown, code, "no OTP: the outcome stays unknown")
	assert.Equal(t, "UNKNOWN", decodeCheckout(t, out).Status)
	assert.Contains(t, errOut, "reconcile")

	code, _, errOut = tillRun(t, dir, `{"number":"4111"}`, pin, "checkout", "--staff", "Meera", "--items", "ACC-CASE-S24", "--pay", "card")
	assert.Equal(t, exitBadInput, code)
	assert.Equal(t, 1, strings.Count(strings.TrimSpace(errOut), "\n")+1, "one sentence: %q", errOut)
	code, _, _ = tillRun(t, dir, "", pin, "checkout", "--staff", "Meera", "--items", "NO-SUCH", "--pay", "cash")
	assert.Equal(t, exitBadInput, code)
	code, _, _ = tillRun(t, dir, "", pin, "checkout", "--staff", "Meera", "--items", "ACC-CBL-CC1M", "--pay", "cheque")
	assert.Equal(t, exitBadInput, code)

	// The payment without an OTP still waits for one (the sandbox keeps it in
	// sandbox.json): the unknown order stays open.
	code, out, _ = tillRun(t, dir, "", nil, "reconcile")
	assert.Equal(t, exitUnknown, code)
	assert.Contains(t, out, "UNKNOWN")

	code, out, errOut = tillRun(t, dir, "", pin, "refund", cash.MerchantOrderID, "--amount", "10000")
	require.Equal(t, exitOK, code, errOut)
	assert.Contains(t, out, `"status":"DONE"`)
	code, _, _ = tillRun(t, dir, "0000\n", nil, "refund", cash.MerchantOrderID)
	assert.Equal(t, exitBadInput, code, "a wrong manager PIN")

	code, out, errOut = tillRun(t, dir, "", nil, "report", "--format", "csv")
	require.Equal(t, exitOK, code, errOut)
	rows := strings.Split(strings.TrimSpace(out), "\n")
	assert.Len(t, rows, 5, "a header and one row per order: %q", out)
	code, out, _ = tillRun(t, dir, "", nil, "report", "--format", "json")
	require.Equal(t, exitOK, code)
	var rep map[string]any
	require.NoError(t, json.Unmarshal([]byte(out), &rep))
	assert.Equal(t, "X", rep["kind"])

	code, _, errOut = tillRun(t, dir, "", pin, "close-day")
	require.Equal(t, exitBadInput, code, "a payment is unknown: %s", errOut)
	assert.Contains(t, errOut, "--accept-unknown")
	code, out, errOut = tillRun(t, dir, "", pin, "close-day", "--accept-unknown")
	require.Equal(t, exitOK, code, errOut)
	assert.Contains(t, out, "Z report no. 1")
	code, _, _ = tillRun(t, dir, "", pin, "close-day")
	assert.Equal(t, exitBadInput, code, "a day closes once")
	code, _, errOut = tillRun(t, dir, "", pin, "checkout", "--staff", "Meera", "--items", "ACC-CBL-CC1M", "--pay", "cash")
	assert.Equal(t, exitOK, code, "the next business day starts at once: %s", errOut)

	code, out, _ = tillRun(t, dir, "", nil, "catalog", "list")
	assert.Equal(t, exitOK, code)
	assert.Contains(t, out, "ACC-CBL-CC1M")
}
