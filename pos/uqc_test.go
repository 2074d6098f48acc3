package pos

import (
	"bytes"
	"errors"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestParseUQC(t *testing.T) {
	for in, want := range map[string]UQC{"": "", "NOS": "NOS", "pcs": "PCS", " Box ": "BOX", "kgs": "KGS", "prs": "PRS"} {
		got, err := ParseUQC(in)
		require.NoError(t, err, "ParseUQC(%q)", in)
		assert.Equal(t, want, got, "ParseUQC(%q)", in)
	}
	for _, in := range []string{"PIECES", "KG", "nos.", "123"} {
		_, err := ParseUQC(in)
		assert.ErrorContains(t, err, "is not one of the GST portal's unit quantity codes", "ParseUQC(%q)", in)
	}
	assert.Equal(t, NOS, UQC("").OrNOS())
	assert.Equal(t, UQC("BOX"), UQC("BOX").OrNOS())
	assert.Len(t, UQCs(), 45, "the portal's list")
}

// A catalog row's unit is read from the CSV's unit column and the JSON's unit
// field, empty being NOS; an unknown code is refused naming its row; the unit
// goes with the row to the cart's line and back out of the catalog.
func TestCatalogUnit(t *testing.T) {
	in := "sku,name,price,gst_rate,hsn,unit\n" +
		"PH-1,Phone,74999.00,18,8517,\n" +
		"CBL-1,Cable,499.00,18,8544,pcs\n" +
		"BAT-1,Battery pack,999.00,18,8507,BOX\n"
	c, err := ImportCSV(strings.NewReader(in))
	require.NoError(t, err)
	for sku, want := range map[string]UQC{"PH-1": "", "CBL-1": "PCS", "BAT-1": "BOX"} {
		p, ok := c.Lookup(sku)
		require.True(t, ok, sku)
		assert.Equal(t, want, p.Unit, sku)
	}
	p, _ := c.Lookup("CBL-1")
	assert.Equal(t, UQC("PCS"), LineFor(p, 2).Unit, "the line sold carries the row's unit")

	var out bytes.Buffer
	require.NoError(t, c.WriteCSV(&out))
	again, err := ImportCSV(&out)
	require.NoError(t, err)
	assert.Equal(t, c.Products(), again.Products(), "the CSV written reads back the same")
	out.Reset()
	require.NoError(t, c.WriteJSON(&out))
	assert.Contains(t, out.String(), `"unit": "PCS"`)
	again, err = ImportJSON(&out)
	require.NoError(t, err)
	assert.Equal(t, c.Products(), again.Products(), "the JSON written reads back the same")

	_, err = ImportCSV(strings.NewReader(in + "X-1,Rice,60.00,5,1006,KG\n"))
	var ie *ImportError
	require.True(t, errors.As(err, &ie), "%v", err)
	require.Len(t, ie.Problems, 1)
	assert.Equal(t, 5, ie.Problems[0].Line)
	assert.Equal(t, "X-1", ie.Problems[0].SKU)
	assert.Contains(t, ie.Problems[0].String(), `the unit "KG" is not one of the GST portal's unit quantity codes`)

	_, err = ImportJSON(strings.NewReader(`[
  {"sku": "A-1", "name": "Cable", "price": "499.00", "gst_rate": 18, "hsn": "8544"},
  {"sku": "A-2", "name": "Rice", "price": "60.00", "gst_rate": 5, "hsn": "1006", "unit": "litre"}
]`))
	require.True(t, errors.As(err, &ie), "%v", err)
	require.Len(t, ie.Problems, 1)
	assert.Equal(t, 3, ie.Problems[0].Line)
	assert.Equal(t, "A-2", ie.Problems[0].SKU)
	assert.Contains(t, ie.Problems[0].Msg, `the unit "litre" is not one of`)
}
