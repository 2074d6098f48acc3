package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestStoreShopSetReachesEveryCounter: the store's manager publishes the
// shop's details at the store; a counter's sync applies them, its sales print
// a TAX INVOICE under the store's GSTIN, and its own galla shop set is then
// refused with a sentence that says the store's details win and where to
// change them. A bad GSTIN is refused at the store, publishing nothing.
func TestStoreShopSetReachesEveryCounter(t *testing.T) {
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

	shopSet := []string{"store", "shop", "set", "--name", "Galla Mobiles", "--address", "12 FC Road, Pune 411004", "--state", "27", "--db", db}
	code, _, errOut = tillRun(t, dir, "", storeManager, append(shopSet, "--gstin", "27AAPFU0939F1ZW")...)
	assert.Equal(t, exitBadInput, code)
	assert.Contains(t, errOut, "The shop's details were not published; the counters keep theirs.", "a GSTIN whose check character is wrong")
	code, _, errOut = tillRun(t, dir, "", nil, append(shopSet, "--gstin", "27AAPFU0939F1ZV")...)
	assert.NotEqual(t, exitOK, code, "a store manager's PIN is needed: %s", errOut)
	code, out, errOut = tillRun(t, dir, "", storeManager, append(shopSet, "--gstin", "27AAPFU0939F1ZV")...)
	require.Equal(t, exitOK, code, errOut)
	assert.Equal(t, "Galla Mobiles\t27\t27AAPFU0939F1ZV\n", out)
	assert.Contains(t, errOut, "published the shop's details as version 1: every counter takes them at its next sync")

	counter := t.TempDir()
	enrolByOwner(t, counter, addr, enrolCode, fp)
	owner := map[string]string{"GALLA_PIN": ownerPIN}
	code, out, errOut = tillRun(t, counter, "", nil, "sync")
	require.Equal(t, exitOK, code, errOut)
	assert.Contains(t, out, "applied the store's shop (version 1)\n")
	code, out, errOut = tillRun(t, counter, "", owner, "checkout", "--items", "ACC-CBL-CC1M", "--pay", "cash", "--staff", "Owner")
	require.Equal(t, exitOK, code, errOut)
	code, out, errOut = tillRun(t, counter, "", nil, "receipt", decodeCheckout(t, out).MerchantOrderID)
	require.Equal(t, exitOK, code, errOut)
	assert.Contains(t, out, "TAX INVOICE", "the store's GSTIN makes the counter's sales tax invoices")
	assert.Contains(t, out, "27AAPFU0939F1ZV")
	assert.Contains(t, out, "Galla Mobiles")

	code, _, errOut = tillRun(t, counter, "", owner, "shop", "set", "--name", "Other Name", "--address", "Somewhere", "--state", "27")
	assert.Equal(t, exitBadInput, code)
	assert.Contains(t, errOut, "The store publishes this shop's details to every counter, so they are changed at the store (galla store shop set on the store server)")
	code, out, errOut = tillRun(t, counter, "", nil, "receipt", decodeCheckout(t, mustCheckout(t, counter, owner)).MerchantOrderID)
	require.Equal(t, exitOK, code, errOut)
	assert.Contains(t, out, "Galla Mobiles", "the counter keeps the store's details")
	assert.NotContains(t, out, "Other Name")
}

// mustCheckout sells a cable in cash at the counter in dir and returns its
// output.
func mustCheckout(t *testing.T, dir string, env map[string]string) string {
	t.Helper()
	code, out, errOut := tillRun(t, dir, "", env, "checkout", "--items", "ACC-CBL-CC1M", "--pay", "cash", "--staff", "Owner")
	require.Equal(t, exitOK, code, errOut)
	return out
}

// TestStoreCatalogImportThatRemovesProductsNeedsReplace: the store's catalog
// of three products; a file of one product would remove two from every
// counter, and is refused with how many and which, publishing nothing;
// with --replace it is published, and a counter's sync applies it.
func TestStoreCatalogImportThatRemovesProductsNeedsReplace(t *testing.T) {
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

	header := "sku,name,hsn,gst_rate,price\n"
	three := filepath.Join(dir, "three.csv")
	require.NoError(t, os.WriteFile(three, []byte(header+"STORE-CHG,Store charger,8504,18,1180.00\nSTORE-CBL,Store cable,8544,18,499.00\nSTORE-CAS,Store case,3926,18,299.00\n"), 0o600))
	code, out, errOut = tillRun(t, dir, "", storeManager, "store", "catalog", "import", three, "--db", db)
	require.Equal(t, exitOK, code, errOut)
	assert.Contains(t, out, "Published the store's catalog of 3 products as version 1")

	one := filepath.Join(dir, "one.csv")
	require.NoError(t, os.WriteFile(one, []byte(header+"STORE-CHG,Store charger,8504,18,1090.00\n"), 0o600))
	code, out, errOut = tillRun(t, dir, "", storeManager, "store", "catalog", "import", one, "--db", db)
	assert.Equal(t, exitBadInput, code)
	assert.Empty(t, out)
	assert.Contains(t, errOut, "The catalog was not published; the counters keep the one they have: the file has 1 product and the store's catalog 3: publishing it would remove 2 products from every counter (STORE-CBL, STORE-CAS).")
	assert.Contains(t, errOut, "import it again with --replace")

	counter := t.TempDir()
	enrolByOwner(t, counter, addr, enrolCode, fp)
	owner := map[string]string{"GALLA_PIN": ownerPIN}
	code, out, errOut = tillRun(t, counter, "", nil, "sync")
	require.Equal(t, exitOK, code, errOut)
	assert.Contains(t, out, "applied the store's catalog (version 1)\n", "the refused file published nothing")
	code, _, errOut = tillRun(t, counter, "", owner, "checkout", "--items", "STORE-CAS", "--pay", "cash", "--staff", "Owner")
	require.Equal(t, exitOK, code, errOut)

	// Adding a product and changing a price removes nothing: published.
	four := filepath.Join(dir, "four.csv")
	require.NoError(t, os.WriteFile(four, []byte(header+"store-chg,Store charger,8504,18,1090.00\nSTORE-CBL,Store cable,8544,18,499.00\nSTORE-CAS,Store case,3926,18,299.00\nSTORE-EAR,Earphones,8518,18,999.00\n"), 0o600))
	code, out, errOut = tillRun(t, dir, "", storeManager, "store", "catalog", "import", four, "--db", db)
	require.Equal(t, exitOK, code, errOut)
	assert.Contains(t, out, "of 4 products as version 2", "a SKU is matched without regard to case")

	code, out, errOut = tillRun(t, dir, "", storeManager, "store", "catalog", "import", one, "--replace", "--db", db)
	require.Equal(t, exitOK, code, errOut)
	assert.Contains(t, out, "Published the store's catalog of 1 products as version 3")
	code, out, errOut = tillRun(t, counter, "", nil, "sync")
	require.Equal(t, exitOK, code, errOut)
	assert.Contains(t, out, "applied the store's catalog (version 3)\n")
	code, _, _ = tillRun(t, counter, "", owner, "checkout", "--items", "STORE-CAS", "--pay", "cash", "--staff", "Owner")
	assert.NotEqual(t, exitOK, code, "replaced: the case is no longer sold")
	code, out, errOut = tillRun(t, counter, "", owner, "checkout", "--items", "STORE-CHG", "--pay", "cash", "--staff", "Owner")
	require.Equal(t, exitOK, code, errOut)
	assert.Contains(t, out, `"amount":109000,`)
}
