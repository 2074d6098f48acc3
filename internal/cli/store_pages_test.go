package cli

import (
	"crypto/tls"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestStorePagesCommands(t *testing.T) {
	db := pg.Get(t).Database(t)
	dir := t.TempDir()
	code, _, errOut := tillRun(t, dir, "", nil, "store", "init", "--db", db, "--host", "till-server.local")
	require.Equal(t, exitOK, code, errOut)

	// Managers of the pages: the PIN on stdin, twice.
	code, out, errOut := tillRun(t, dir, "246810\n246810\n", nil, "store", "manager", "add", "Meera", "--db", db)
	require.Equal(t, exitOK, code, errOut)
	assert.Equal(t, "Manager Meera can sign in to the manager's pages (https://SERVER/manager/).\n", out)
	code, _, errOut = tillRun(t, dir, "246810\n135790\n", nil, "store", "manager", "add", "Ravi", "--db", db)
	assert.Equal(t, exitBadInput, code)
	assert.Equal(t, "galla: The two PINs differ: nothing was changed; type the same PIN twice.\n", errOut)
	code, _, errOut = tillRun(t, dir, "1234\n", nil, "store", "manager", "add", "Ravi", "--db", db)
	assert.Equal(t, exitBadInput, code)
	assert.Equal(t, "galla: A manager's PIN is 6 to 8 digits: nothing was changed.\n", errOut)
	code, _, errOut = tillRun(t, dir, "", nil, "store", "manager", "add", "Ravi", "--db", db)
	assert.Equal(t, exitBadInput, code)
	assert.Contains(t, errOut, "Type the manager's PIN (6 to 8 digits) on the standard input")

	code, out, errOut = tillRun(t, dir, "", nil, "store", "rebuild", "--db", db)
	require.Equal(t, exitOK, code, errOut)
	assert.Equal(t, "Rebuilt the store's projections from 0 events of 0 counters: 0 orders.\n", out)

	// The store's commands take a store manager's PIN, never a name.
	meera := map[string]string{"GALLA_PIN": "246810"}
	code, _, errOut = tillRun(t, dir, "", meera, "store", "z", "--day", "2026-11-24", "--db", db)
	assert.Equal(t, exitFailed, code)
	assert.Equal(t, "galla: The store's day was not closed: no counter has sent a Z report of 2026-11-24: close the day on the counters and let them sync first.\n", errOut)
	code, _, errOut = tillRun(t, dir, "", meera, "store", "z", "--db", db)
	assert.Equal(t, exitBadInput, code)
	assert.Contains(t, errOut, "Name the day")
	code, _, errOut = tillRun(t, dir, "", nil, "store", "z", "--day", "2026-11-24", "--db", db)
	assert.Equal(t, exitBadInput, code)
	assert.Contains(t, errOut, "A store manager's PIN is needed")
	code, _, errOut = tillRun(t, dir, "", map[string]string{"GALLA_PIN": "135790"}, "store", "z", "--day", "2026-11-24", "--db", db)
	assert.Equal(t, exitBadInput, code)
	assert.Contains(t, errOut, "That PIN is no store manager's: nothing was changed.")
	code, _, _ = tillRun(t, dir, "", meera, "store", "z", "--day", "2026-11-24", "--by", "Meera", "--db", db)
	assert.Equal(t, exitBadInput, code, "a name given with --by is no longer taken")

	good := filepath.Join(dir, "catalog.csv")
	require.NoError(t, os.WriteFile(good, []byte("sku,name,hsn,gst_rate,price\nCHG,Charger,8504,18,1180.00\n"), 0o600))
	code, _, errOut = tillRun(t, dir, "", nil, "store", "catalog", "import", good, "--db", db)
	assert.Equal(t, exitBadInput, code)
	assert.Contains(t, errOut, "A store manager's PIN is needed")
	code, out, errOut = tillRun(t, dir, "246810\n", nil, "store", "catalog", "import", good, "--db", db)
	require.Equal(t, exitOK, code, errOut)
	assert.Equal(t, "Published the store's catalog of 1 products as version 1: every counter receives it at its next sync.\n", out)
	bad := filepath.Join(dir, "bad.csv")
	require.NoError(t, os.WriteFile(bad, []byte("sku,name,hsn,gst_rate,price\nCHG,Charger,8504,7,1180.00\n"), 0o600))
	code, _, errOut = tillRun(t, dir, "", meera, "store", "catalog", "import", bad, "--db", db)
	assert.Equal(t, exitBadInput, code)
	assert.Contains(t, errOut, "The catalog was not published; the counters keep the one they have.")

	d := openStoreDB(t, dir, db)
	defer d.Close()
	up, err := d.Master.MasterSince(t.Context(), 0)
	require.NoError(t, err)
	assert.Equal(t, uint64(1), up.Version, "the bad catalog published nothing")
	assert.Equal(t, "Meera", up.Items[0].PublishedBy, "published in the name of the manager whose PIN it took")

	// Managers are disabled and enabled again; the last one cannot be.
	code, _, errOut = tillRun(t, dir, "", nil, "store", "manager", "disable", "Meera", "--db", db)
	assert.Equal(t, exitBadInput, code)
	assert.Contains(t, errOut, "The last manager who can sign in cannot be disabled")
	code, _, errOut = tillRun(t, dir, "97531086\n97531086\n", nil, "store", "manager", "add", "Ravi", "--db", db)
	require.Equal(t, exitOK, code, errOut)
	code, out, errOut = tillRun(t, dir, "", nil, "store", "manager", "disable", "Meera", "--db", db)
	require.Equal(t, exitOK, code, errOut)
	assert.Contains(t, out, "Manager Meera is disabled: their sessions have ended")
	code, _, errOut = tillRun(t, dir, "", meera, "store", "catalog", "import", good, "--db", db)
	assert.Equal(t, exitBadInput, code, "a disabled manager's PIN is taken no more")
	assert.Contains(t, errOut, "That PIN is no store manager's")
	code, _, errOut = tillRun(t, dir, "", nil, "store", "manager", "enable", "Meera", "--db", db)
	require.Equal(t, exitOK, code, errOut)
	code, _, errOut = tillRun(t, dir, "", nil, "store", "manager", "disable", "Nobody", "--db", db)
	assert.Equal(t, exitBadInput, code)
	assert.Contains(t, errOut, "The store has no manager of the pages by that name")

	// galla store serve serves the manager's pages beside the terminals' API.
	addr, stop := serveStore(t, dir, db)
	hc := &http.Client{Transport: &http.Transport{TLSClientConfig: &tls.Config{InsecureSkipVerify: true}}}
	resp, err := hc.Get(addr + "/manager/signin")
	require.NoError(t, err)
	page, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	require.NoError(t, err)
	assert.Equal(t, http.StatusOK, resp.StatusCode)
	assert.Contains(t, resp.Header.Get("Content-Security-Policy"), "default-src 'none'")
	assert.Contains(t, string(page), `action="/manager/signin"`)
	assert.Equal(t, exitOK, stop())

	code, _, errOut = tillRun(t, dir, "", nil, "store", "rebuild")
	assert.Equal(t, exitBadInput, code)
	assert.Contains(t, errOut, "Name the store's PostgreSQL database with --db")
}
