package cli

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"galla/pos"
)

func TestSyncAppliesTheStoresCatalogOnce(t *testing.T) {
	db := pg.Get(t).Database(t)
	dir := t.TempDir()
	code, out, errOut := tillRun(t, dir, "", nil, "store", "init", "--db", db, "--host", "till-server.local")
	require.Equal(t, exitOK, code, errOut)
	addStoreManager(t, dir, db, "Meera")
	fp := strings.TrimSpace(out)
	code, out, errOut = tillRun(t, dir, "", nil, "store", "enrol-code", "T1", "--db", db)
	require.Equal(t, exitOK, code, errOut)
	enrolCode := strings.TrimSpace(out)
	addr, stop := serveStore(t, dir, db)
	defer stop()

	counter := t.TempDir()
	code, _, errOut = tillRun(t, counter, "", nil, "checkout", "--items", "ACC-CBL-CC1M", "--pay", "cash")
	require.Equal(t, exitOK, code, errOut)
	enrolByOwner(t, counter, addr, enrolCode, fp)
	owner := map[string]string{"GALLA_PIN": ownerPIN}
	code, _, _ = tillRun(t, counter, "", owner, "checkout", "--items", "STORE-CHG", "--pay", "cash", "--staff", "Owner")
	require.NotEqual(t, exitOK, code, "the store's product is not on the counter yet")

	cat := filepath.Join(dir, "catalog.csv")
	require.NoError(t, os.WriteFile(cat, []byte("sku,name,hsn,gst_rate,price\nSTORE-CHG,Store charger,8504,18,1180.00\n"), 0o600))
	code, _, errOut = tillRun(t, dir, "", storeManager, "store", "catalog", "import", cat, "--db", db)
	require.Equal(t, exitOK, code, errOut)

	code, out, errOut = tillRun(t, counter, "", nil, "sync")
	require.Equal(t, exitOK, code, errOut)
	assert.Contains(t, out, "applied the store's catalog (version 1)\n")
	code, out, errOut = tillRun(t, counter, "", owner, "checkout", "--items", "STORE-CHG", "--pay", "cash", "--staff", "Owner")
	require.Equal(t, exitOK, code, errOut)
	assert.Contains(t, out, `"amount":118000,`, "sold at the store's price")

	code, out, errOut = tillRun(t, counter, "", nil, "sync")
	require.Equal(t, exitOK, code, errOut)
	assert.Contains(t, out, "the store's catalog and shop details are as applied (version 1)\n", "a second sync applies nothing new")
}

func TestTheWindowAppliesTheStoresCatalogInBackground(t *testing.T) {
	db := pg.Get(t).Database(t)
	dir := t.TempDir()
	code, out, errOut := tillRun(t, dir, "", nil, "store", "init", "--db", db)
	require.Equal(t, exitOK, code, errOut)
	addStoreManager(t, dir, db, "Meera")
	fp := strings.TrimSpace(out)
	code, out, errOut = tillRun(t, dir, "", nil, "store", "enrol-code", "T5", "--db", db)
	require.Equal(t, exitOK, code, errOut)
	enrolCode := strings.TrimSpace(out)
	addr, stop := serveStore(t, dir, db)
	defer stop()
	cat := filepath.Join(dir, "catalog.csv")
	require.NoError(t, os.WriteFile(cat, []byte("sku,name,hsn,gst_rate,price\nSTORE-CHG,Store charger,8504,18,1180.00\n"), 0o600))
	code, _, errOut = tillRun(t, dir, "", storeManager, "store", "catalog", "import", cat, "--db", db)
	require.Equal(t, exitOK, code, errOut)

	counter := t.TempDir()
	code, _, errOut = tillRun(t, counter, "", nil, "checkout", "--items", "ACC-CBL-CC1M", "--pay", "cash")
	require.Equal(t, exitOK, code, errOut)
	enrolByOwner(t, counter, addr, enrolCode, fp)

	c := &cli{stdin: strings.NewReader(""), stdout: &bytes.Buffer{}, stderr: &bytes.Buffer{}, getenv: func(string) string { return "" }, dataDir: counter}
	till, closeTill, err := openWindowTill(c)
	require.NoError(t, err)
	defer closeTill()
	require.Eventually(t, func() bool {
		p, ok := till.Shelf.Lookup("STORE-CHG")
		return ok && p.Price == pos.Rupees(1180)
	}, 30*time.Second, 50*time.Millisecond, "the window's sync applies the store's catalog")
	// The version is journaled just after the catalog: wait for it too.
	require.Eventually(t, func() bool {
		v, err := till.Shelf.MasterVersion(t.Context())
		return err == nil && v == 1
	}, 30*time.Second, 50*time.Millisecond, "the window journals the version it applied")
}
