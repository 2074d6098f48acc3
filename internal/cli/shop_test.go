package cli

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestShopSetAndDocumentTitle sets the shop's details: without a GSTIN a sale
// prints a RECEIPT (never TAX INVOICE), with a valid one a TAX INVOICE naming it
// and the state, with the composition scheme a BILL OF SUPPLY; a bad GSTIN, one of
// another state and an unknown state code are refused with a sentence, and change
// nothing.
func TestShopSetAndDocumentTitle(t *testing.T) {
	dir := t.TempDir()
	pin := map[string]string{"GALLA_PIN": "432100"}
	code, _, errOut := tillRun(t, dir, "432100\n", nil, "staff", "add", "Meera", "--role", "manager")
	require.Equal(t, exitOK, code, errOut)
	code, out, errOut := tillRun(t, dir, "", pin, "checkout", "--staff", "Meera", "--items", "ACC-CBL-CC1M", "--pay", "cash")
	require.Equal(t, exitOK, code, errOut)
	id := decodeCheckout(t, out).MerchantOrderID
	receipt := func() string {
		t.Helper()
		code, out, errOut := tillRun(t, dir, "", nil, "receipt", id)
		require.Equal(t, exitOK, code, errOut)
		return out
	}
	assert.Contains(t, receipt(), "RECEIPT")
	assert.NotContains(t, receipt(), "TAX INVOICE", "no GSTIN: not a tax invoice")

	set := func(args ...string) (int, string) {
		code, _, errOut := tillRun(t, dir, "", pin, append([]string{"shop", "set", "--name", "Sharma Mobiles", "--address", "12 MG Road, Pune 411001"}, args...)...)
		return code, errOut
	}
	for _, bad := range [][]string{
		{"--state", "27", "--gstin", "27AAPFU0939F1ZW"}, // check character
		{"--state", "29", "--gstin", "27AAPFU0939F1ZV"}, // another state's GSTIN
		{"--state", "40"},
		{"--gstin", "27AAPFU0939F1ZV"}, // no state
	} {
		code, errOut := set(bad...)
		assert.Equal(t, exitBadInput, code, "%v: %s", bad, errOut)
		assert.NotContains(t, errOut, "Something went wrong", bad)
	}
	assert.NotContains(t, receipt(), "Sharma Mobiles", "a refused setting changes nothing")

	// Each setting titles the documents issued from then on; one issued
	// before reprints as it was issued.
	sell := func() {
		t.Helper()
		code, out, errOut := tillRun(t, dir, "", pin, "checkout", "--staff", "Meera", "--items", "ACC-CBL-CC1M", "--pay", "cash")
		require.Equal(t, exitOK, code, errOut)
		id = decodeCheckout(t, out).MerchantOrderID
	}
	first := id
	code, errOut = set("--state", "27", "--gstin", "27aapfu0939f1zv")
	require.Equal(t, exitOK, code, errOut)
	assert.Contains(t, errOut, "TAX INVOICE")
	sell()
	doc := receipt()
	assert.Contains(t, doc, "TAX INVOICE")
	assert.Contains(t, doc, "GSTIN 27AAPFU0939F1ZV")
	assert.Contains(t, doc, "State Maharashtra (27)")

	code, errOut = set("--state", "27", "--gstin", "27AAPFU0939F1ZV", "--composition")
	require.Equal(t, exitOK, code, errOut)
	assert.Contains(t, receipt(), "TAX INVOICE", "the tax invoice reprints as issued")
	sell()
	assert.Contains(t, receipt(), "BILL OF SUPPLY")
	id = first
	assert.Contains(t, receipt(), "RECEIPT", "the sale before any set-up reprints as issued")
	assert.NotContains(t, receipt(), "Sharma Mobiles")

	code, _, errOut = tillRun(t, dir, "", map[string]string{"GALLA_PIN": "9999"}, "shop", "set", "--name", "X", "--address", "Y", "--state", "27")
	assert.Equal(t, exitBadInput, code, "a manager's PIN is needed: %s", errOut)
}
