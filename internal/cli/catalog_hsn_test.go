package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"galla/assets"
)

// testHSNCSV is an HSN list as the GST portal publishes it, saved as CSV by a
// spreadsheet (the leading zero of chapter 01's codes dropped), written for
// the tests.
const testHSNCSV = "HSN_CD,HSN_Description\n" +
	"1,LIVE ANIMALS\n101,LIVE HORSES\n" +
	"85,ELECTRICAL MACHINERY\n8504,ELECTRICAL TRANSFORMERS AND STATIC CONVERTERS\n850440,STATIC CONVERTERS\n" +
	"8517,TELEPHONE SETS\n851713,SMARTPHONES\n85171300,SMARTPHONES\n" +
	"8544,\"INSULATED WIRE, CABLE AND OTHER CONDUCTORS\"\n854442,CONDUCTORS FITTED WITH CONNECTORS\n"

// writeFile writes text into a file of a temporary directory and returns its path.
func writeFile(t *testing.T, name, text string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), name)
	require.NoError(t, os.WriteFile(path, []byte(text), 0o600))
	return path
}

// shopSet sets the shop's details of a counter without staff.
func shopSet(t *testing.T, dir string) {
	t.Helper()
	code, _, errOut := tillRun(t, dir, "", nil, "shop", "set", "--name", "Sharma Mobiles",
		"--address", "12 FC Road, Pune 411004", "--state", "27")
	require.Equal(t, exitOK, code, errOut)
}

// With an HSN list loaded, a catalog row whose HSN code is not in it is
// refused at import with a sentence naming the row and the code; the catalog
// imported before stays, and nothing of the refused file is imported. An
// 8-digit tariff item under a subheading of the list imports.
func TestCatalogImportRefusesAnUnknownHSN(t *testing.T) {
	dir := t.TempDir()
	shopSet(t, dir)
	code, _, errOut := tillRun(t, dir, "", nil, "hsn", "import", writeFile(t, "hsn.csv", testHSNCSV))
	require.Equal(t, exitOK, code, errOut)

	catalog := writeFile(t, "catalog.csv", "sku,name,price,gst_rate,hsn\n"+
		"PH-1,Phone,59000.00,18,85171300\n"+
		"CBL-1,Cable,499.00,18,854442\n")
	code, _, errOut = tillRun(t, dir, "", nil, "catalog", "import", catalog)
	require.Equal(t, exitOK, code, errOut)
	assert.NotContains(t, errOut, "form only", "checked against the list loaded")

	require.NoError(t, os.WriteFile(catalog, []byte("sku,name,price,gst_rate,hsn\n"+
		"CHG-1,Charger,999.00,18,8504\n"+
		"ODD-1,Odd thing,99.00,18,8599\n"), 0o600))
	code, _, errOut = tillRun(t, dir, "", nil, "catalog", "import", catalog)
	assert.Equal(t, exitBadInput, code)
	assert.Contains(t, errOut, "item 2 (SKU ODD-1): the HSN code 8599 is not a heading of the HSN list loaded (galla hsn import); check the code on the invoice from your supplier")
	assert.NotContains(t, errOut, "CHG-1")
	code, out, _ := tillRun(t, dir, "", nil, "catalog", "list")
	require.Equal(t, exitOK, code)
	assert.Contains(t, out, "PH-1", "the catalog imported before stays")
	assert.Contains(t, out, "CBL-1")
	assert.NotContains(t, out, "CHG-1", "a refused file imports nothing")
}

// Without an HSN list, a code Galla's own short list lacks is checked for
// form only and imported, and the import says so in one line naming the
// codes and how to load the portal's list; a code of no chapter of goods is
// refused all the same. A catalog of codes the short list has says nothing.
func TestCatalogImportChecksFormOnlyWithoutAList(t *testing.T) {
	dir := t.TempDir()
	shopSet(t, dir)
	code, _, errOut := tillRun(t, dir, "", nil, "catalog", "import", writeFile(t, "catalog.csv", "sku,name,price,gst_rate,hsn\n"+
		"PH-1,Phone,59000.00,18,85171300\n"+
		"TSH-1,T-shirt,499.00,5,610910\n"+
		"ODD-1,Odd thing,99.00,18,8599\n"))
	require.Equal(t, exitOK, code, errOut)
	assert.Contains(t, errOut, "galla: 3 products imported.\n")
	assert.Contains(t, errOut, "galla: The HSN codes 610910, 8599 were checked for form only: no HSN list is loaded, and Galla's own short list does not have them. To check codes against the full list, save the GST portal's HSN directory as CSV and load it with galla hsn import FILE.\n")
	assert.Equal(t, 1, strings.Count(errOut, "form only"), "one line")

	code, _, errOut = tillRun(t, dir, "", nil, "catalog", "import", writeFile(t, "catalog.csv", "sku,name,price,gst_rate,hsn\n"+
		"CBL-1,Cable,499.00,18,854442\n"))
	require.Equal(t, exitOK, code, errOut)
	assert.NotContains(t, errOut, "form only")

	code, _, errOut = tillRun(t, dir, "", nil, "catalog", "import", writeFile(t, "catalog.csv", "sku,name,price,gst_rate,hsn\n"+
		"ODD-1,Odd thing,99.00,18,7788\n"))
	assert.Equal(t, exitBadInput, code)
	assert.Contains(t, errOut, "the HSN code 7788 is not an HSN code of goods: chapter 77 does not exist")
}

// The sample catalog Galla ships imports under the HSN check, every code
// checked against the built-in master.
func TestSampleCatalogImports(t *testing.T) {
	dir := t.TempDir()
	shopSet(t, dir)
	catalog := writeFile(t, "catalog.json", string(assets.SampleCatalog()))
	code, _, errOut := tillRun(t, dir, "", nil, "catalog", "import", catalog)
	require.Equal(t, exitOK, code, errOut)
	assert.NotContains(t, errOut, "form only")
}

// galla hsn import loads the portal's list into the data directory and
// journals its SHA-256 and count; galla hsn says which list is in use. A
// broken file is refused with a sentence and the list loaded before stays.
// A list edited outside Galla is not believed: the catalog import and
// GSTR-1 refuse with a sentence naming the file and the command, until the
// list is loaded again.
func TestHSNImport(t *testing.T) {
	dir := t.TempDir()
	shopSet(t, dir)
	code, out, errOut := tillRun(t, dir, "", nil, "hsn")
	require.Equal(t, exitOK, code, errOut)
	assert.Contains(t, out, "no HSN list loaded: Galla's own short list")

	code, out, errOut = tillRun(t, dir, "", nil, "hsn", "import", writeFile(t, "HSN_SAC.csv", testHSNCSV))
	require.Equal(t, exitOK, code, errOut)
	assert.Contains(t, errOut, "the HSN list of HSN_SAC.csv is loaded: 10 codes")
	kept := filepath.Join(dir, hsnFileName)
	raw, err := os.ReadFile(kept)
	require.NoError(t, err)
	assert.Contains(t, string(raw), "\n0101\tLIVE HORSES\n", "the leading zero restored")
	assert.Contains(t, out, kept)

	code, out, errOut = tillRun(t, dir, "", nil, "hsn")
	require.Equal(t, exitOK, code, errOut)
	assert.Contains(t, out, "the HSN list loaded: 10 codes, SHA-256 ")

	code, out, errOut = tillRun(t, dir, "", nil, "journal", "verify")
	require.Equal(t, exitOK, code, errOut+out)

	for name, text := range map[string]string{
		"not CSV":     "HSN_CD,HSN_Description\n8517,\"TELEPHONE \"SETS\n",
		"no codes":    "HSN_CD,HSN_Description\n",
		"not digits":  "HSN_CD,HSN_Description\n85A7,TELEPHONE SETS\n",
		"do not nest": "HSN_CD,HSN_Description\n85,ELECTRICAL\n85171300,SMARTPHONES\n",
	} {
		code, _, errOut := tillRun(t, dir, "", nil, "hsn", "import", writeFile(t, "bad.csv", text))
		assert.Equal(t, exitBadInput, code, name)
		assert.Contains(t, errOut, "The file is not the GST portal's HSN list saved as CSV (code, description): ", name)
		assert.Contains(t, errOut, "The HSN list loaded before stays.", name)
		again, err := os.ReadFile(kept)
		require.NoError(t, err)
		assert.Equal(t, raw, again, "%s: the list loaded before stays", name)
	}
	code, _, errOut = tillRun(t, dir, "", nil, "catalog", "import", writeFile(t, "catalog.csv", "sku,name,price,gst_rate,hsn\nODD-1,Odd thing,99.00,18,8599\n"))
	assert.Equal(t, exitBadInput, code, "the list loaded before still checks")
	assert.Contains(t, errOut, "the HSN code 8599 is not a heading of the HSN list loaded")

	// Edited outside Galla: 8599 added by hand.
	require.NoError(t, os.WriteFile(kept, append(raw, "8599\tODD THINGS\n"...), 0o600))
	code, _, errOut = tillRun(t, dir, "", nil, "catalog", "import", writeFile(t, "catalog.csv", "sku,name,price,gst_rate,hsn\nODD-1,Odd thing,99.00,18,8599\n"))
	assert.Equal(t, exitCannotWork, code)
	assert.Contains(t, errOut, "The HSN list "+kept+" was changed outside Galla (it is not the file loaded), so it is not believed; load the GST portal's HSN list again with galla hsn import FILE.")
	code, _, errOut = tillRun(t, dir, "", nil, "hsn")
	assert.Equal(t, exitCannotWork, code)
	assert.Contains(t, errOut, "was changed outside Galla")

	code, _, errOut = tillRun(t, dir, "", nil, "hsn", "import", writeFile(t, "HSN_SAC.csv", testHSNCSV))
	require.Equal(t, exitOK, code, errOut)
	code, _, errOut = tillRun(t, dir, "", nil, "catalog", "import", writeFile(t, "catalog.csv", "sku,name,price,gst_rate,hsn\nPH-1,Phone,59000.00,18,851713\n"))
	assert.Equal(t, exitOK, code, errOut)
}

// Once staff exist, loading the HSN list takes a manager's PIN: none, or a
// wrong one, is refused and nothing is loaded.
func TestHSNImportTakesAManagersPIN(t *testing.T) {
	dir := t.TempDir()
	code, _, errOut := tillRun(t, dir, "432100\n", nil, "staff", "add", "Meera", "--role", "manager")
	require.Equal(t, exitOK, code, errOut)
	list := writeFile(t, "HSN_SAC.csv", testHSNCSV)

	code, _, errOut = tillRun(t, dir, "", nil, "hsn", "import", list)
	assert.Equal(t, exitBadInput, code)
	assert.Contains(t, errOut, "a manager's PIN is needed")
	code, _, _ = tillRun(t, dir, "", map[string]string{"GALLA_PIN": "999999"}, "hsn", "import", list)
	assert.Equal(t, exitBadInput, code)
	_, err := os.Stat(filepath.Join(dir, hsnFileName))
	assert.ErrorIs(t, err, os.ErrNotExist, "nothing loaded")

	code, _, errOut = tillRun(t, dir, "432100\n", nil, "hsn", "import", list)
	require.Equal(t, exitOK, code, errOut)
	code, out, errOut := tillRun(t, dir, "", nil, "hsn")
	require.Equal(t, exitOK, code, errOut)
	assert.Contains(t, out, "the HSN list loaded: 10 codes")
}

// GSTR-1's table 12 takes its desc from the HSN list loaded, over the
// built-in master's.
func TestGSTR1DescFromTheHSNList(t *testing.T) {
	d := newDatedCounter(t, time.Date(2026, 11, 26, 11, 0, 0, 0, time.Local))
	d.sell() // a cable of the sample catalog, HSN 8544
	desc := func() []string {
		t.Helper()
		code, out, errOut := d.run("", nil, "export", "gstr1", "--month", "2026-11")
		require.Equal(t, exitOK, code, errOut)
		var r struct {
			HSN struct {
				Rows []struct {
					HSN  string `json:"hsn_sc"`
					Desc string `json:"desc"`
				} `json:"hsn_b2c"`
			} `json:"hsn"`
		}
		require.NoError(t, json.Unmarshal([]byte(out), &r), out)
		var got []string
		for _, row := range r.HSN.Rows {
			got = append(got, row.HSN+" "+row.Desc)
		}
		return got
	}
	assert.Equal(t, []string{"8544 Insulated wire and cable"}, desc(), "the built-in master's")
	code, _, errOut := d.run("", d.pin, "hsn", "import", writeFile(t, "HSN_SAC.csv", testHSNCSV))
	require.Equal(t, exitOK, code, errOut)
	assert.Equal(t, []string{"8544 INSULATED WIRE, CABLE"}, desc(), "the list's, cut at a word within 30 characters")

	// Edited outside Galla: no GSTR-1 from it.
	kept := filepath.Join(d.dir, hsnFileName)
	require.NoError(t, os.WriteFile(kept, []byte("# HSN master\n8544\tSOMETHING ELSE\n"), 0o600))
	code, out, errOut := d.run("", nil, "export", "gstr1", "--month", "2026-11")
	assert.NotEqual(t, exitOK, code)
	assert.Empty(t, out)
	assert.Contains(t, errOut, "The HSN list "+kept+" was changed outside Galla (it is not the file loaded), so it is not believed; load the GST portal's HSN list again with galla hsn import FILE.")
}
