package cli

import (
	"bytes"
	"strings"
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

	// Delivered to an address: the address is printed with its state (Rule
	// 46(e)), on the slip and on A4.
	code, out, errOut = tillRun(t, dir, "", nil, "checkout", "--items", "ACC-CBL-CC1M", "--pay", "cash", "--deliver-state", "goa",
		"--deliver-address", "Villa 4, Calangute")
	require.Equal(t, exitOK, code, errOut)
	code, doc, errOut = tillRun(t, dir, "", nil, "receipt", decodeCheckout(t, out).MerchantOrderID)
	require.Equal(t, exitOK, code, errOut)
	assert.Contains(t, doc, "  Delivered to Villa 4, Calangute, Goa (30)\n")
}

// TestReceiptFollowsTheRegistration sells a cable at a shop without a GSTIN, then
// under the composition scheme, and prints each receipt with galla receipt: the
// first a RECEIPT with prices only, the second a BILL OF SUPPLY with the legend
// at its top and no tax; a sale to another state is refused under the scheme.
// Each prints as ESC/POS, PNG and PDF.
func TestReceiptFollowsTheRegistration(t *testing.T) {
	dir := t.TempDir()
	shop := []string{"shop", "set", "--name", "Sharma Mobiles", "--address", "12 FC Road, Pune 411004", "--state", "27"}
	code, _, errOut := tillRun(t, dir, "", nil, shop...)
	require.Equal(t, exitOK, code, errOut)
	sell := func() string {
		t.Helper()
		code, out, errOut := tillRun(t, dir, "", nil, "checkout", "--items", "ACC-CBL-CC1M", "--pay", "cash")
		require.Equal(t, exitOK, code, errOut)
		id := decodeCheckout(t, out).MerchantOrderID
		for _, format := range []string{"escpos", "png", "pdf"} {
			code, out, errOut := tillRun(t, dir, "", nil, "receipt", id, "--format", format)
			require.Equal(t, exitOK, code, errOut)
			assert.NotEmpty(t, out, format)
		}
		code, doc, errOut := tillRun(t, dir, "", nil, "receipt", id)
		require.Equal(t, exitOK, code, errOut)
		return strings.Join(strings.Fields(doc), " ")
	}
	noTax := []string{"TAX INVOICE", "Taxable", "GST @", "CGST", "SGST", "IGST", "HSN summary", "%"}

	doc := sell()
	assert.Contains(t, doc, "RECEIPT")
	assert.Contains(t, doc, "Seller not registered under GST")
	assert.Contains(t, doc, "1 NOS x 499.00")
	for _, no := range append(noTax, "Reverse charge") {
		assert.NotContains(t, doc, no)
	}

	code, _, errOut = tillRun(t, dir, "", nil, append(shop, "--gstin", "27AAPFU0939F1ZV", "--composition")...)
	require.Equal(t, exitOK, code, errOut)
	doc = sell()
	assert.Contains(t, doc, "BILL OF SUPPLY Composition taxable person, not eligible to collect tax on supplies")
	assert.Contains(t, doc, "Reverse charge No")
	assert.Contains(t, doc, "for Sharma Mobiles Authorised signatory")
	for _, no := range noTax {
		assert.NotContains(t, doc, no)
	}
	code, _, errOut = tillRun(t, dir, "", nil, "checkout", "--items", "ACC-CBL-CC1M", "--pay", "cash", "--deliver-state", "goa")
	assert.Equal(t, exitBadInput, code)
	assert.Contains(t, errOut, "may not supply goods to another state (CGST Act s.10(2)(c))")
}
