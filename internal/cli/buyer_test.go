package cli

import (
	"bytes"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestCheckoutBuyer sells a ₹77,990.00 television (taxable ₹66,093.22) on the
// command line: without the buyer it is refused before anything is journaled;
// a bad GSTIN is refused with a sentence; with an unregistered buyer's address in
// Karnataka the invoice of a Maharashtra shop names the buyer and charges IGST
// (IGST Act s.10(1)(ca)): 77,990.00 − 66,093.22 = 11,896.78.
func TestCheckoutBuyer(t *testing.T) {
	dir := t.TempDir()
	// No staff yet: the shop is set and sales are made without a PIN.
	code, _, errOut := tillRun(t, dir, "", nil, "shop", "set", "--name", "Sharma Mobiles",
		"--address", "12 FC Road, Pune 411004", "--state", "27", "--gstin", "27AAPFU0939F1ZV")
	require.Equal(t, exitOK, code, errOut)

	code, out, errOut := tillRun(t, dir, "", nil, "checkout", "--items", "TV-SONY-X80L55", "--pay", "cash")
	assert.Equal(t, exitBadInput, code, out)
	assert.Contains(t, errOut, "The taxable value is ₹66,093.22, ₹50,000.00 or more: the invoice must name the buyer (CGST Rule 46(e)).")
	assert.Contains(t, errOut, "Give them with --customer-name, --customer-address and --customer-state.")

	code, _, errOut = tillRun(t, dir, "", nil, "checkout", "--items", "TV-SONY-X80L55", "--pay", "cash",
		"--customer-name", "Urban Mobiles", "--customer-address", "Pune", "--customer-gstin", "27AAPFU0939F1ZW")
	assert.Equal(t, exitBadInput, code)
	assert.Contains(t, errOut, "The buyer's GSTIN is not valid")

	code, out, errOut = tillRun(t, dir, "", nil, "checkout", "--items", "TV-SONY-X80L55", "--pay", "cash",
		"--customer-name", "Asha Rao", "--customer-phone", "98450 12345", "--customer-address", "12 MG Road, Bengaluru", "--customer-state", "Karnataka")
	require.Equal(t, exitOK, code, errOut)
	id := decodeCheckout(t, out).MerchantOrderID
	code, doc, errOut := tillRun(t, dir, "", nil, "receipt", id)
	require.Equal(t, exitOK, code, errOut)
	for _, want := range []string{"TAX INVOICE", "Buyer (unregistered)", "  Asha Rao", "  12 MG Road, Bengaluru", "  State Karnataka (29)",
		"Place of supply                   Karnataka (29)", "Taxable value @18%                     66,093.22", "  IGST @18%                            11,896.78"} {
		assert.Contains(t, doc, want+"\n")
	}
	assert.NotContains(t, doc, "CGST")

	code, pdf, errOut := tillRun(t, dir, "", nil, "receipt", id, "--format", "pdf")
	require.Equal(t, exitOK, code, errOut)
	assert.True(t, bytes.HasPrefix([]byte(pdf), []byte("%PDF-")), "a PDF")

	// A ₹499 cable delivered to Goa: supplied in Goa (s.10(1)(a)), IGST; no
	// buyer's name is needed at this value.
	code, out, errOut = tillRun(t, dir, "", nil, "checkout", "--items", "ACC-CBL-CC1M", "--pay", "cash", "--deliver-state", "goa")
	require.Equal(t, exitOK, code, errOut)
	code, doc, errOut = tillRun(t, dir, "", nil, "receipt", decodeCheckout(t, out).MerchantOrderID)
	require.Equal(t, exitOK, code, errOut)
	assert.Contains(t, doc, "  Delivered to Goa (30)\n")
	assert.Contains(t, doc, "Place of supply                         Goa (30)\n")
	assert.Contains(t, doc, "  IGST @18%")
}
