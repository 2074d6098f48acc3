package cli

import (
	"io"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"galla/pos"
)

// dirEvents reads every event of the journal in dir.
func dirEvents(t *testing.T, dir string) []pos.Event {
	t.Helper()
	c := &cli{dataDir: dir, stdin: strings.NewReader(""), stdout: io.Discard, stderr: io.Discard, getenv: func(string) string { return "" }}
	till, err := openTill(c)
	require.NoError(t, err)
	defer till.close()
	return journalEvents(t, till, 1)
}

func TestPayAgainAfterAVerifiedFailure(t *testing.T) {
	dir := t.TempDir()
	pin := map[string]string{"GALLA_PIN": "432100"}
	code, _, errOut := tillRun(t, dir, "432100\n", nil, "staff", "add", "Meera", "--role", "manager")
	require.Equal(t, exitOK, code, errOut)
	code, _, errOut = tillRun(t, dir, "1111\n432100\n", nil, "staff", "add", "Ravi", "--role", "cashier")
	require.Equal(t, exitOK, code, errOut)
	declined := strings.Replace(visaJSON, "4111 1111 1111 1111", "4000000000000002", 1)
	code, out, _ := tillRun(t, dir, declined, pin, "checkout", "--items", "ACC-CASE-S24", "--pay", "card", "--otp", "123456", "--staff", "Meera")
	require.Equal(t, exitFailed, code)
	failed := decodeCheckout(t, out)
	require.Equal(t, "FAILED", failed.Status)

	// Taking money again is a manager's act.
	code, _, errOut = tillRun(t, dir, visaJSON, nil, "pay", failed.MerchantOrderID, "--otp", "123456")
	assert.Equal(t, exitBadInput, code, "no manager named")
	assert.Contains(t, errOut, "--staff NAME of a manager")
	code, _, errOut = tillRun(t, dir, visaJSON, map[string]string{"GALLA_PIN": "1111"}, "pay", failed.MerchantOrderID, "--staff", "Ravi", "--otp", "123456")
	assert.Equal(t, exitBadInput, code, "a cashier")
	assert.Contains(t, errOut, "Ravi is not a manager")
	code, _, errOut = tillRun(t, dir, visaJSON, map[string]string{"GALLA_PIN": "999999"}, "pay", failed.MerchantOrderID, "--staff", "Meera", "--otp", "123456")
	assert.Equal(t, exitBadInput, code, "a wrong PIN")
	assert.Contains(t, strings.ToLower(errOut), "pin")

	// The PIN on the first line of standard input, then the card.
	code, out, errOut = tillRun(t, dir, "432100\n"+visaJSON, nil, "pay", failed.MerchantOrderID, "--staff", "Meera", "--otp", "123456")
	require.Equal(t, exitOK, code, errOut)
	paid := decodeCheckout(t, out)
	assert.Equal(t, "PAID", paid.Status)
	assert.True(t, paid.Verified)
	assert.Equal(t, failed.MerchantOrderID, paid.MerchantOrderID, "paid again on the same order")
	assert.Equal(t, failed.ServiceOrderID, paid.ServiceOrderID)
	assertNoCardNumber(t, out+errOut, "no card number in the output")

	// The manager's approval is journaled naming them, before the payment.
	var approvals int
	for _, ev := range dirEvents(t, dir) {
		if ev.Kind == pos.EvOverride && ev.Extra["what"] == "pay" {
			approvals++
			assert.Equal(t, "001", ev.Staff, "Meera's id")
		}
	}
	assert.GreaterOrEqual(t, approvals, 1)

	code, _, errOut = tillRun(t, dir, visaJSON, pin, "pay", failed.MerchantOrderID, "--staff", "Meera", "--otp", "123456")
	assert.Equal(t, exitBadInput, code, "a paid sale is not paid again")
	assert.Contains(t, errOut, "already paid")

	code, _, errOut = tillRun(t, dir, visaJSON, pin, "pay", "G-NO-SUCH-ORDER", "--staff", "Meera")
	assert.Equal(t, exitBadInput, code)
	assert.Contains(t, errOut, "No sale")

	code, out, _ = tillRun(t, dir, "", pin, "checkout", "--items", "ACC-CBL-CC1M", "--pay", "cash", "--staff", "Meera")
	require.Equal(t, exitOK, code)
	code, _, errOut = tillRun(t, dir, visaJSON, pin, "pay", decodeCheckout(t, out).MerchantOrderID, "--staff", "Meera")
	assert.Equal(t, exitBadInput, code, "a cash sale takes no card")
	assert.Contains(t, errOut, "cash")

	code, out, _ = tillRun(t, dir, visaJSON, pin, "checkout", "--items", "ACC-CASE-S24", "--pay", "card", "--wait", "2s", "--staff", "Meera")
	require.Equal(t, exitUnknown, code)
	code, _, errOut = tillRun(t, dir, visaJSON, pin, "pay", decodeCheckout(t, out).MerchantOrderID, "--otp", "123456", "--staff", "Meera")
	assert.Equal(t, exitBadInput, code, "an unknown outcome is reconciled, never paid again")
	assert.Contains(t, errOut, "reconcile")
	assert.Equal(t, 1, strings.Count(strings.TrimSpace(errOut), "\n")+1, "one sentence: %q", errOut)

	code, _, _ = tillRun(t, dir, `{"number":"4111"}`, pin, "pay", failed.MerchantOrderID, "--staff", "Meera")
	assert.Equal(t, exitBadInput, code, "a bad card is bad input")
}
