package cli

import (
	"bytes"
	"context"
	"encoding/hex"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"galla/internal/config"
	"galla/pos"
)

// The PINs of the store's staff in these tests: eight digits, so that a scan
// of a file's bytes for them cannot match by chance.
const (
	ashaPIN  = "73914562"
	ravinPIN = "58203917"
)

// storeWithCounters starts a store server with its database and enrols a
// counter for each id; it returns the database, the store's folder and the
// counters' data folders.
func storeWithCounters(t *testing.T, ids ...string) (db, storeDir string, counters []string) {
	t.Helper()
	db = pg.Get(t).Database(t)
	storeDir = t.TempDir()
	code, out, errOut := tillRun(t, storeDir, "", nil, "store", "init", "--db", db, "--host", "till-server.local")
	require.Equal(t, exitOK, code, errOut)
	fp := strings.TrimSpace(out)
	addStoreManager(t, storeDir, db, "Meera")
	addr, stop := serveStore(t, storeDir, db)
	t.Cleanup(func() { stop() })
	for _, id := range ids {
		code, out, errOut = tillRun(t, storeDir, "", nil, "store", "enrol-code", id, "--db", db)
		require.Equal(t, exitOK, code, errOut)
		dir := t.TempDir()
		code, _, errOut = tillRun(t, dir, "", nil, "checkout", "--items", "ACC-CBL-CC1M", "--pay", "cash")
		require.Equal(t, exitOK, code, errOut)
		enrolByOwner(t, dir, addr, strings.TrimSpace(out), fp)
		counters = append(counters, dir)
	}
	return db, storeDir, counters
}

// storeManagerPIN is the PIN of Meera, the store's manager of
// storeWithCounters.
const storeManagerPIN = "864200"

// storeManager is the environment of a store command given her PIN.
var storeManager = map[string]string{"GALLA_PIN": storeManagerPIN}

// addStoreManager adds name as the store's manager (a manager of the pages),
// whose PIN, storeManagerPIN, the store's commands take.
func addStoreManager(t *testing.T, dir, db, name string) {
	t.Helper()
	code, _, errOut := tillRun(t, dir, storeManagerPIN+"\n"+storeManagerPIN+"\n", nil, "store", "manager", "add", name, "--db", db)
	require.Equal(t, exitOK, code, errOut)
}

// signInAt signs name in at the counter of dir, as the window does.
func signInAt(t *testing.T, dir, name, pin string) error {
	t.Helper()
	c := &cli{dataDir: dir, stdin: strings.NewReader(""), stdout: &bytes.Buffer{}, stderr: &bytes.Buffer{}, getenv: func(string) string { return "" }}
	tl, err := openTerminal(c, false)
	require.NoError(t, err)
	defer tl.close()
	_, err = tl.Crew.SignIn(t.Context(), name, pin)
	return err
}

// TestAStoreCashierSignsInAtEveryCounter adds a cashier at the store: after a
// sync each of two counters lets them sign in with their PIN and refuses a
// wrong one; the counter's own manager keeps signing in; a second sync applies
// nothing new; disabled at the store, they are refused at both counters after
// the next sync. Neither PIN nor pepper is in a counter's journal or among the
// store's events and master data.
func TestAStoreCashierSignsInAtEveryCounter(t *testing.T) {
	db, storeDir, counters := storeWithCounters(t, "T1", "T2")
	a, b := counters[0], counters[1]
	// Counter A has a manager of its own, set up before the store had staff.
	code, _, errOut := tillRun(t, a, "432100\n"+ownerPIN+"\n", nil, "staff", "add", "Meera", "--role", "manager")
	require.Equal(t, exitOK, code, errOut)

	code, _, errOut = tillRun(t, storeDir, storeManagerPIN+"\n1234\n1234\n", nil, "store", "staff", "add", "Ravin", "--role", "manager", "--db", db)
	assert.Equal(t, exitBadInput, code, "a manager's PIN of 4 digits is refused at the store as at the counter")
	assert.Contains(t, errOut, "A manager's PIN is 6 to 8 digits")
	code, _, errOut = tillRun(t, storeDir, "", nil, "store", "staff", "add", "Asha", "--role", "cashier", "--db", db)
	assert.Equal(t, exitBadInput, code, "a change is made on a store manager's PIN")
	assert.Contains(t, errOut, "A store manager's PIN is needed")
	code, _, errOut = tillRun(t, storeDir, "432100\n"+ashaPIN+"\n"+ashaPIN+"\n", nil, "store", "staff", "add", "Asha", "--role", "cashier", "--db", db)
	assert.Equal(t, exitBadInput, code, "a counter's manager's PIN is no store manager's")
	assert.Contains(t, errOut, "That PIN is no store manager's: nothing was changed.")
	code, _, _ = tillRun(t, storeDir, ashaPIN+"\n"+ashaPIN+"\n", storeManager, "store", "staff", "add", "Asha", "--role", "cashier", "--by", "Meera", "--db", db)
	assert.Equal(t, exitBadInput, code, "a name given with --by is no longer taken")
	code, _, errOut = tillRun(t, storeDir, ashaPIN+"\n"+"73914563\n", storeManager, "store", "staff", "add", "Asha", "--role", "cashier", "--db", db)
	assert.Equal(t, exitBadInput, code)
	assert.Contains(t, errOut, "The two PINs differ: nothing was changed; type the same PIN twice.")
	code, out, errOut := tillRun(t, storeDir, storeManagerPIN+"\n"+ashaPIN+"\n"+ashaPIN+"\n", nil, "store", "staff", "add", "Asha", "--role", "cashier", "--db", db)
	require.Equal(t, exitOK, code, errOut)
	assert.Equal(t, "S001\tAsha\tcashier\tversion 1\n", out)
	code, _, errOut = tillRun(t, storeDir, "11112222\n11112222\n", storeManager, "store", "staff", "add", "asha", "--role", "cashier", "--db", db)
	assert.Equal(t, exitBadInput, code)
	assert.Contains(t, errOut, "has a member of staff called \"asha\" already")

	assert.ErrorIs(t, signInAt(t, b, "Asha", ashaPIN), pos.ErrUnknownStaff, "not before the sync")
	for _, dir := range counters {
		code, out, errOut = tillRun(t, dir, "", nil, "sync")
		require.Equal(t, exitOK, code, errOut)
		assert.Contains(t, out, "applied the store's 1 member of staff (version 1)\n")
	}
	for _, dir := range counters {
		assert.NoError(t, signInAt(t, dir, "Asha", ashaPIN), "the store's cashier signs in at every counter")
		assert.ErrorIs(t, signInAt(t, dir, "Asha", "73914563"), pos.ErrWrongPIN)
	}
	assert.NoError(t, signInAt(t, a, "Meera", "432100"), "the counter's own staff keep signing in")
	code, out, _ = tillRun(t, a, "", nil, "staff", "list")
	require.Equal(t, exitOK, code)
	assert.Contains(t, out, "S001\tAsha\tcashier\tactive\tthe store's\n")
	code, _, errOut = tillRun(t, a, "", map[string]string{"GALLA_PIN": "432100"}, "staff", "disable", "Asha")
	assert.Equal(t, exitBadInput, code, "the store's member is disabled at the store, not at a counter")
	assert.Contains(t, errOut, "Asha is the store's member of staff")

	for _, dir := range counters {
		code, out, errOut = tillRun(t, dir, "", nil, "sync")
		require.Equal(t, exitOK, code, errOut)
		assert.Contains(t, out, "the store's catalog and shop details are as applied (version 1)\n", "a second sync applies nothing new")
	}

	code, _, errOut = tillRun(t, storeDir, "", storeManager, "store", "staff", "disable", "asha", "--db", db)
	require.Equal(t, exitOK, code, errOut)
	code, out, errOut = tillRun(t, storeDir, "", nil, "store", "staff", "list", "--db", db)
	require.Equal(t, exitOK, code, errOut)
	assert.Contains(t, out, "S001\tAsha\tcashier\tdisabled\tversion 2 by Meera at ")
	assert.NoError(t, signInAt(t, b, "Asha", ashaPIN), "still signs in until the counter syncs")
	for _, dir := range counters {
		code, out, errOut = tillRun(t, dir, "", nil, "sync")
		require.Equal(t, exitOK, code, errOut)
		assert.Contains(t, out, "applied the store's 1 member of staff (version 2)\n")
		assert.ErrorIs(t, signInAt(t, dir, "Asha", ashaPIN), pos.ErrStaffDisabled, "disabled at the store: refused at every counter")
	}
	// Once more, so that the journaled members reach the store's events.
	for _, dir := range counters {
		code, _, errOut = tillRun(t, dir, "", nil, "sync")
		require.Equal(t, exitOK, code, errOut)
	}

	// No PIN or pepper in the counters' journals or at the store.
	conn, err := pgx.Connect(t.Context(), db)
	require.NoError(t, err)
	defer conn.Close(context.Background())
	var storeText string
	var pepperRows int
	require.NoError(t, conn.QueryRow(t.Context(), "SELECT count(*) FROM server_keys WHERE name = 'staff-pepper'").Scan(&pepperRows))
	assert.Zero(t, pepperRows, "the pepper is kept in the store key, outside the database")
	require.NoError(t, conn.QueryRow(t.Context(), `SELECT (SELECT string_agg(body::text, ' ') FROM events) || (SELECT string_agg(body::text, ' ') FROM master_data)
		|| (SELECT string_agg(record::text, ' ') FROM store_staff)`).Scan(&storeText))
	d := openStoreDB(t, storeDir, db)
	defer d.Close()
	pepper, err := d.Staff.StaffPepper(t.Context())
	require.NoError(t, err)
	require.Len(t, pepper, 32)
	pepperHex := hex.EncodeToString(pepper)
	assert.Contains(t, storeText, `"staff.added"`, "the counters' journaled members reached the store's events")
	assert.Contains(t, storeText, `"S001"`)
	for _, dir := range counters {
		sec := config.OpenSecrets(dir, nil)
		kept, err := sec.Get(config.SecretStorePINPepper)
		require.NoError(t, err)
		assert.Equal(t, pepperHex, kept, "the counter keeps the store's pepper among its secrets")
		raw, err := os.ReadFile(filepath.Join(dir, journalFile))
		require.NoError(t, err)
		all := append(raw, counterEventsJSON(t, dir)...)
		assert.Contains(t, string(counterEventsJSON(t, dir)), `"id":"S001"`, "the scan reads the member's events")
		for what, secret := range map[string][]byte{"PIN": []byte(ashaPIN), "pepper": pepper, "pepper in hex": []byte(pepperHex)} {
			assert.False(t, bytes.Contains(all, secret), "the %s is in %s's journal", what, dir)
			assert.False(t, strings.Contains(storeText, string(secret)), "the %s is in the store's events or master data", what)
		}
	}
}

// counterEventsJSON is every event of the counter's journal as JSON, inflated.
func counterEventsJSON(t *testing.T, dir string) []byte {
	t.Helper()
	c := &cli{dataDir: dir, stdin: strings.NewReader(""), stdout: &bytes.Buffer{}, stderr: &bytes.Buffer{}, getenv: func(string) string { return "" }}
	tl, err := openTerminal(c, false)
	require.NoError(t, err)
	defer tl.close()
	var out []byte
	require.NoError(t, tl.j.Log.EventsFrom(t.Context(), 1, func(ev pos.Event) error {
		b, err := json.Marshal(ev)
		out = append(append(out, b...), '\n')
		return err
	}))
	return out
}

// TestTheWindowAppliesTheStoresStaffInBackground: a counter enrolled before
// the store handed out its pepper (the keyring lacks it) asks for it at its
// window's background sync, and the store's manager signs in there.
func TestTheWindowAppliesTheStoresStaffInBackground(t *testing.T) {
	db, storeDir, counters := storeWithCounters(t, "T7")
	dir := counters[0]
	code, _, errOut := tillRun(t, storeDir, ravinPIN+"\n"+ravinPIN+"\n", storeManager, "store", "staff", "add", "Ravin", "--role", "manager", "--db", db)
	require.Equal(t, exitOK, code, errOut)
	sec := config.OpenSecrets(dir, nil)
	require.NoError(t, sec.Set(config.SecretStorePINPepper, ""))

	c := &cli{stdin: strings.NewReader(""), stdout: &bytes.Buffer{}, stderr: &bytes.Buffer{}, getenv: func(string) string { return "" }, dataDir: dir}
	till, closeTill, err := openWindowTill(c)
	require.NoError(t, err)
	defer closeTill()
	require.Eventually(t, func() bool {
		v, err := till.Shelf.MasterVersion(t.Context())
		return err == nil && v == 1
	}, 30*time.Second, 50*time.Millisecond, "the window's sync applies the store's member")
	require.Eventually(t, func() bool {
		p, _ := sec.Get(config.SecretStorePINPepper)
		return p != ""
	}, 30*time.Second, 50*time.Millisecond, "the window asks the store for its pepper")
	m, err := till.Crew.SignIn(t.Context(), "Ravin", ravinPIN)
	require.NoError(t, err)
	assert.Equal(t, pos.RoleManager, m.Role)
	assert.False(t, m.MustChangePIN)
}
