package cli

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"galla/assets"
)

// A catalog row whose HSN code is not in the HSN master is refused at import
// with a sentence naming the row and the code; the catalog imported before
// stays, and nothing of the refused file is imported. An 8-digit tariff item
// under a subheading of the master imports.
func TestCatalogImportRefusesAnUnknownHSN(t *testing.T) {
	dir := t.TempDir()
	code, _, errOut := tillRun(t, dir, "", nil, "shop", "set", "--name", "Sharma Mobiles",
		"--address", "12 FC Road, Pune 411004", "--state", "27")
	require.Equal(t, exitOK, code, errOut)

	catalog := filepath.Join(t.TempDir(), "catalog.csv")
	require.NoError(t, os.WriteFile(catalog, []byte("sku,name,price,gst_rate,hsn\n"+
		"PH-1,Phone,59000.00,18,85171300\n"+
		"CBL-1,Cable,499.00,18,854442\n"), 0o600))
	code, _, errOut = tillRun(t, dir, "", nil, "catalog", "import", catalog)
	require.Equal(t, exitOK, code, errOut)

	require.NoError(t, os.WriteFile(catalog, []byte("sku,name,price,gst_rate,hsn\n"+
		"CHG-1,Charger,999.00,18,8504\n"+
		"ODD-1,Odd thing,99.00,18,8599\n"), 0o600))
	code, _, errOut = tillRun(t, dir, "", nil, "catalog", "import", catalog)
	assert.Equal(t, exitBadInput, code)
	assert.Contains(t, errOut, "item 2 (SKU ODD-1): the HSN code 8599 is not a heading of the HSN master (HS 2022); check the code on the invoice from your supplier")
	assert.NotContains(t, errOut, "CHG-1")
	code, out, _ := tillRun(t, dir, "", nil, "catalog", "list")
	require.Equal(t, exitOK, code)
	assert.Contains(t, out, "PH-1", "the catalog imported before stays")
	assert.Contains(t, out, "CBL-1")
	assert.NotContains(t, out, "CHG-1", "a refused file imports nothing")
}

// The sample catalog Galla ships imports under the HSN check.
func TestSampleCatalogImports(t *testing.T) {
	dir := t.TempDir()
	code, _, errOut := tillRun(t, dir, "", nil, "shop", "set", "--name", "Sharma Mobiles",
		"--address", "12 FC Road, Pune 411004", "--state", "27")
	require.Equal(t, exitOK, code, errOut)
	catalog := filepath.Join(t.TempDir(), "catalog.json")
	require.NoError(t, os.WriteFile(catalog, assets.SampleCatalog(), 0o600))
	code, _, errOut = tillRun(t, dir, "", nil, "catalog", "import", catalog)
	require.Equal(t, exitOK, code, errOut)
}
