package cli

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A shop that sells only 5% and 18% goods keeps its rate list: a catalog row at
// 40% (a rate in force, but not the shop's) is refused at import naming the row,
// and nothing of the file is imported; "all" goes back to every rate in force.
func TestShopRateListRefusesACatalogRow(t *testing.T) {
	dir := t.TempDir()
	code, _, errOut := tillRun(t, dir, "", nil, "shop", "set", "--name", "Sharma Mobiles",
		"--address", "12 FC Road, Pune 411004", "--state", "27", "--rates", "18, 5%")
	require.Equal(t, exitOK, code, errOut)

	catalog := filepath.Join(t.TempDir(), "catalog.csv")
	require.NoError(t, os.WriteFile(catalog, []byte("sku,name,price,gst_rate,hsn\n"+
		"TEA-1,Tea,120.00,5,0902\n"+
		"CBL-1,Cable,499.00,18,8544\n"+
		"AC-1,Air conditioner,45999.00,40,8415\n"), 0o600))
	code, _, errOut = tillRun(t, dir, "", nil, "catalog", "import", catalog)
	assert.Equal(t, exitBadInput, code)
	assert.Contains(t, errOut, "item 3 (SKU AC-1): the GST rate 40% is not in the shop's rate list (5 or 18)")
	assert.NotContains(t, errOut, "TEA-1")
	code, out, _ := tillRun(t, dir, "", nil, "catalog", "list")
	require.Equal(t, exitOK, code)
	assert.NotContains(t, out, "TEA-1", "a refused file imports nothing")

	code, _, errOut = tillRun(t, dir, "", nil, "shop", "set", "--name", "Sharma Mobiles",
		"--address", "12 FC Road, Pune 411004", "--state", "27", "--rates", "12")
	assert.Equal(t, exitBadInput, code)
	assert.Contains(t, errOut, `The rate list has "12", which is not a GST rate in force since 22 September 2025`)

	code, _, errOut = tillRun(t, dir, "", nil, "shop", "set", "--name", "Sharma Mobiles",
		"--address", "12 FC Road, Pune 411004", "--state", "27", "--rates", "all")
	require.Equal(t, exitOK, code, errOut)
	code, _, errOut = tillRun(t, dir, "", nil, "catalog", "import", catalog)
	require.Equal(t, exitOK, code, errOut)
	code, out, _ = tillRun(t, dir, "", nil, "catalog", "list")
	require.Equal(t, exitOK, code)
	assert.Contains(t, out, "AC-1")
}

// A shop that declares ₹12.5 crore of turnover gives six-digit HSN codes: a
// 4-digit row is refused naming it, a 6-digit one imports; a turnover that is
// not a number of crore is refused; a schedule by date is taken and kept.
func TestShopTurnoverAndSchedule(t *testing.T) {
	dir := t.TempDir()
	set := func(extra ...string) (int, string) {
		args := append([]string{"shop", "set", "--name", "Sharma Mobiles", "--address", "12 FC Road, Pune 411004", "--state", "27"}, extra...)
		code, _, errOut := tillRun(t, dir, "", nil, args...)
		return code, errOut
	}
	code, errOut := set("--turnover", "12,5")
	assert.Equal(t, exitBadInput, code)
	assert.Contains(t, errOut, `The turnover "12,5" is not a number of crore of rupees`)
	code, errOut = set("--turnover", "12.5", "--rates", "0, 5, 18, 28; from 2026-02-01: 0, 5, 18, 40")
	require.Equal(t, exitOK, code, errOut)

	catalog := filepath.Join(t.TempDir(), "catalog.csv")
	require.NoError(t, os.WriteFile(catalog, []byte("sku,name,price,gst_rate,hsn\n"+
		"PH-1,Phone,59000.00,18,8517\n"), 0o600))
	code, _, errOut = tillRun(t, dir, "", nil, "catalog", "import", catalog)
	assert.Equal(t, exitBadInput, code)
	assert.Contains(t, errOut, "(SKU PH-1): the HSN code 8517 has 4 digits; a shop whose aggregate turnover is above ₹5,00,00,000.00 gives six")
	require.NoError(t, os.WriteFile(catalog, []byte("sku,name,price,gst_rate,hsn\n"+
		"PH-1,Phone,59000.00,18,851713\n"), 0o600))
	code, _, errOut = tillRun(t, dir, "", nil, "catalog", "import", catalog)
	require.Equal(t, exitOK, code, errOut)
}
