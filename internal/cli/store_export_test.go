package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"galla/pos"
	"galla/pos/gstr"
)

func TestStoreExportCommand(t *testing.T) {
	db := pg.Get(t).Database(t)
	dir := t.TempDir()
	code, _, errOut := tillRun(t, dir, "", nil, "store", "init", "--db", db, "--host", "till-server.local")
	require.Equal(t, exitOK, code, errOut)

	code, _, errOut = tillRun(t, dir, "", nil, "store", "export", "gstr1", "--month", "2026-11", "--db", db)
	assert.Equal(t, exitBadInput, code)
	assert.Equal(t, "galla: GSTR-1 is filed under the store's GSTIN, which is not known: publish the shop's details at the store (galla store shop set --gstin GSTIN …), then export again.\n", errOut)
	code, _, errOut = tillRun(t, dir, "", nil, "store", "export", "gstr1", "--month", "11-2026", "--db", db)
	assert.Equal(t, exitBadInput, code)
	assert.Contains(t, errOut, `The month "11-2026" is not YYYY-MM`)
	code, _, errOut = tillRun(t, dir, "", nil, "store", "export", "gstr3b", "--month", "2026-11", "--db", db)
	assert.Equal(t, exitBadInput, code)
	assert.Contains(t, errOut, "Use galla store export gstr1|csv")

	d := openStoreDB(t, dir, db)
	defer d.Close()
	_, err := d.Master.PublishShop(t.Context(), pos.Shop{Name: "Galla Mobiles", Address: []string{"Pune"}, GSTIN: "27AAPFU0939F1ZV", State: "27"}, "Meera")
	require.NoError(t, err)
	out := filepath.Join(dir, "gstr1.json")
	code, _, errOut = tillRun(t, dir, "", nil, "store", "export", "gstr1", "--month", "2026-11", "--db", db, "--out", out)
	require.Equal(t, exitOK, code, errOut)
	assert.Equal(t, "galla: The store's GSTR-1 of 2026-11 for GSTIN 27AAPFU0939F1ZV is written to "+out+".\n", errOut)
	b, err := os.ReadFile(out)
	require.NoError(t, err)
	assert.Contains(t, string(b), `"gstin": "27AAPFU0939F1ZV"`)
	assert.Contains(t, string(b), `"fp": "112026"`)
	code, _, errOut = tillRun(t, dir, "", nil, "store", "export", "gstr1", "--month", "2026-11", "--gstin", "29AAGCB7383J1Z4", "--db", db)
	assert.Equal(t, exitBadInput, code)
	assert.Contains(t, errOut, "no counter issued a document of 2026-11 under GSTIN 29AAGCB7383J1Z4")
	code, _, errOut = tillRun(t, dir, "", nil, "store", "export", "csv", "--month", "2026-11", "--gstin", "29AAGCB7383J1Z4", "--db", db)
	assert.Equal(t, exitBadInput, code)
	assert.Contains(t, errOut, "--gstin is for gstr1")

	code, csv, errOut := tillRun(t, dir, "", nil, "store", "export", "csv", "--month", "2026-11", "--db", db)
	require.Equal(t, exitOK, code, errOut)
	assert.Equal(t, strings.Join(gstr.CSVHeader, ",")+"\n", csv, "no sale yet: the header only")
}
