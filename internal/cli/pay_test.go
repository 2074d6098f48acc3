package cli

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestPayAgainAfterAVerifiedFailure(t *testing.T) {
	dir := t.TempDir()
	declined := strings.Replace(visaJSON, "4111 1111 1111 1111", "4000000000000002", 1)
	code, out, _ := tillRun(t, dir, declined, nil, "checkout", "--items", "ACC-CASE-S24", "--pay", "card", "--otp", "123456")
	require.Equal(t, exitFailed, code)
	failed := decodeCheckout(t, out)
	require.Equal(t, "FAILED", failed.Status)

	code, out, errOut := tillRun(t, dir, visaJSON, nil, "pay", failed.MerchantOrderID, "--otp", "123456")
	require.Equal(t, exitOK, code, errOut)
	paid := decodeCheckout(t, out)
	assert.Equal(t, "PAID", paid.Status)
	assert.True(t, paid.Verified)
	assert.Equal(t, failed.MerchantOrderID, paid.MerchantOrderID, "paid again on the same order")
	assert.Equal(t, failed.ServiceOrderID, paid.ServiceOrderID)
	assert.NotContains(t, out+errOut, "4111", "no card number in the output")

	code, _, errOut = tillRun(t, dir, visaJSON, nil, "pay", failed.MerchantOrderID, "--otp", "123456")
	assert.Equal(t, exitBadInput, code, "a paid sale is not paid again")
	assert.Contains(t, errOut, "already paid")

	code, _, errOut = tillRun(t, dir, visaJSON, nil, "pay", "G-NO-SUCH-ORDER")
	assert.Equal(t, exitBadInput, code)
	assert.Contains(t, errOut, "No sale")

	code, out, _ = tillRun(t, dir, "", nil, "checkout", "--items", "ACC-CBL-CC1M", "--pay", "cash")
	require.Equal(t, exitOK, code)
	code, _, errOut = tillRun(t, dir, visaJSON, nil, "pay", decodeCheckout(t, out).MerchantOrderID)
	assert.Equal(t, exitBadInput, code, "a cash sale takes no card")
	assert.Contains(t, errOut, "cash")

	code, out, _ = tillRun(t, dir, visaJSON, nil, "checkout", "--items", "ACC-CASE-S24", "--pay", "card", "--wait", "2s")
	require.Equal(t, exitUnknown, code)
	code, _, errOut = tillRun(t, dir, visaJSON, nil, "pay", decodeCheckout(t, out).MerchantOrderID, "--otp", "123456")
	assert.Equal(t, exitBadInput, code, "an unknown outcome is reconciled, never paid again")
	assert.Contains(t, errOut, "reconcile")
	assert.Equal(t, 1, strings.Count(strings.TrimSpace(errOut), "\n")+1, "one sentence: %q", errOut)

	code, _, _ = tillRun(t, dir, `{"number":"4111"}`, nil, "pay", failed.MerchantOrderID)
	assert.Equal(t, exitBadInput, code, "a bad card is bad input")
}
