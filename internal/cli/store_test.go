package cli

import (
	"bytes"
	"context"
	"crypto/ed25519"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"galla/internal/config"
	"galla/store"
	"galla/store/link"
	"galla/store/pgtest"
)

// pg is the PostgreSQL cluster of the store commands' tests, started by the
// first test that needs it.
var pg pgtest.Lazy

// lockedBuffer is a buffer written by a command running in a goroutine.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// openStoreDB opens the store's database db in this process, with the store
// key that the store commands run with data directory dir keep, as they open
// it.
func openStoreDB(t *testing.T, dir, db string) *store.DB {
	t.Helper()
	d, err := store.Open(t.Context(), db, newStoreKeeper(dir, nil))
	require.NoError(t, err)
	require.NoError(t, d.CheckSchema(t.Context()))
	return d
}

// serveStore runs galla store serve (with data directory dir) in a goroutine and returns its address
// and a function that stops it with Ctrl-C and returns its exit code.
func serveStore(t *testing.T, dir, db string) (string, func() int) {
	t.Helper()
	var out, errOut lockedBuffer
	c := &cli{stdin: strings.NewReader(""), stdout: &out, stderr: &errOut, getenv: func(string) string { return "" }, dataDir: dir}
	done := make(chan int, 1)
	go func() { done <- c.main([]string{"store", "serve", "--db", db, "--listen", "127.0.0.1:0"}) }()
	re := regexp.MustCompile(`serving (https://[0-9.:]+) \(fingerprint ([0-9a-f]{64})\)`)
	var addr string
	require.Eventually(t, func() bool {
		if m := re.FindStringSubmatch(out.String()); m != nil {
			addr = m[1]
			return true
		}
		return false
	}, 20*time.Second, 20*time.Millisecond, "serve printed %q %q", out.String(), errOut.String())
	stopped := false
	stop := func() int {
		if stopped {
			return exitOK
		}
		stopped = true
		require.NoError(t, syscall.Kill(os.Getpid(), syscall.SIGINT))
		select {
		case code := <-done:
			return code
		case <-time.After(20 * time.Second):
			t.Fatal("galla store serve did not stop on Ctrl-C")
			return -1
		}
	}
	t.Cleanup(func() { stop() })
	return addr, stop
}

func TestStoreCommandsEnrolAndSync(t *testing.T) {
	db := pg.Get(t).Database(t)
	dir := t.TempDir()

	// Before init the server refuses to start, with the command to run.
	code, _, errOut := tillRun(t, dir, "", nil, "store", "serve", "--db", db, "--listen", "127.0.0.1:0")
	assert.Equal(t, exitCannotWork, code)
	assert.Contains(t, errOut, `run "galla store init --db URL" first`)

	code, out, errOut := tillRun(t, dir, "", nil, "store", "init", "--db", db, "--host", "till-server.local")
	require.Equal(t, exitOK, code, errOut)
	fp := strings.TrimSpace(out)
	assert.Regexp(t, `^[0-9a-f]{64}$`, fp)
	assert.Contains(t, errOut, fmt.Sprintf("schema is at version %d", store.SchemaVersion()))
	code, out, errOut = tillRun(t, dir, "", nil, "store", "init", "--db", db)
	require.Equal(t, exitOK, code, errOut)
	assert.Equal(t, fp, strings.TrimSpace(out), "init again keeps the certificate")
	assert.Contains(t, errOut, fmt.Sprintf("was at version %d already", store.SchemaVersion()))

	code, out, errOut = tillRun(t, dir, "", nil, "store", "enrol-code", "T2", "--db", db)
	require.Equal(t, exitOK, code, errOut)
	enrolCode := strings.TrimSpace(out)
	assert.Regexp(t, `^[A-Z2-7]{4}(-[A-Z2-7]{4}){3}$`, enrolCode)
	assert.Contains(t, errOut, "galla enrol https://")

	addr, stop := serveStore(t, dir, db)

	// A counter with two cash sales enrols and syncs.
	counter := t.TempDir()
	for range 2 {
		code, _, errOut = tillRun(t, counter, "", nil, "checkout", "--items", "ACC-CBL-CC1M", "--pay", "cash")
		require.Equal(t, exitOK, code, errOut)
	}
	code, _, errOut = tillRun(t, counter, "", nil, "sync")
	assert.Equal(t, exitBadInput, code)
	assert.Contains(t, errOut, "not enrolled at a store server")

	owner := map[string]string{"GALLA_PIN": ownerPIN}
	code, _, errOut = tillRun(t, counter, "", owner, "enrol", addr, enrolCode, "--fingerprint", fp, "--staff", "Owner")
	assert.Equal(t, exitBadInput, code, "no manager on the counter yet")
	assert.NotContains(t, errOut, "enrolled")
	code, _, errOut = tillRun(t, counter, ownerPIN+"\n", nil, "staff", "add", "Owner", "--role", "manager")
	require.Equal(t, exitOK, code, errOut)
	code, _, errOut = tillRun(t, counter, "1111\n"+ownerPIN+"\n", nil, "staff", "add", "Ravi", "--role", "cashier")
	require.Equal(t, exitOK, code, errOut)

	// Enrolment is a manager's act: without one, with a cashier or a wrong
	// PIN it is refused before the code is spent.
	code, _, errOut = tillRun(t, counter, "", nil, "enrol", addr, enrolCode, "--fingerprint", fp)
	assert.Equal(t, exitBadInput, code)
	assert.Contains(t, errOut, "a manager's act: give --staff NAME")
	code, _, errOut = tillRun(t, counter, "", owner, "enrol", addr, enrolCode, "--fingerprint", fp, "--staff", "Owner", "extra")
	assert.Equal(t, exitBadInput, code)
	assert.Contains(t, errOut, "Use galla enrol")
	code, _, errOut = tillRun(t, counter, "", nil, "enrol", addr, enrolCode, "--fingerprint", fp, "--staff", "Owner")
	assert.Equal(t, exitBadInput, code, "no PIN")
	assert.Contains(t, errOut, "manager's PIN is needed")
	code, _, errOut = tillRun(t, counter, "", map[string]string{"GALLA_PIN": "1111"}, "enrol", addr, enrolCode, "--fingerprint", fp, "--staff", "Ravi")
	assert.Equal(t, exitBadInput, code)
	assert.Contains(t, errOut, "Ravi is not a manager")
	code, _, errOut = tillRun(t, counter, "", map[string]string{"GALLA_PIN": "999999"}, "enrol", addr, enrolCode, "--fingerprint", fp, "--staff", "Owner")
	assert.Equal(t, exitBadInput, code, "a wrong PIN")
	assert.Contains(t, strings.ToLower(errOut), "pin")

	code, _, errOut = tillRun(t, counter, "", owner, "enrol", addr, enrolCode, "--fingerprint", strings.Repeat("ab", 32), "--staff", "Owner")
	assert.Equal(t, exitFailed, code)
	assert.Contains(t, errOut, "not the one pinned")

	code, out, errOut = tillRun(t, counter, ownerPIN+"\n", nil, "enrol", addr, enrolCode, "--fingerprint", strings.ToUpper(fp), "--staff", "Owner")
	require.Equal(t, exitOK, code, errOut)
	assert.Contains(t, errOut, "enrolled by Owner and journaled")
	assert.Contains(t, errOut, "not yet acknowledged by a manager")
	assert.Equal(t, "enrolled as terminal T2 at "+addr+"\n", out)
	assert.Contains(t, errOut, "named T2 on its documents")
	cfgRaw, err := os.ReadFile(filepath.Join(counter, config.File))
	require.NoError(t, err)
	var cfg config.Config
	require.NoError(t, json.Unmarshal(cfgRaw, &cfg))
	assert.Equal(t, config.StoreServer{URL: addr, Fingerprint: fp, TerminalID: "T2"}, cfg.Store)
	assert.NotContains(t, string(cfgRaw), "credential")
	assert.NotContains(t, string(cfgRaw), "key")
	key, err := config.OpenSecrets(counter, nil).StoreKey()
	require.NoError(t, err)
	require.NotNil(t, key, "the counter's private key is in its keyring (here the data folder's secrets file)")
	var stored []byte
	conn, err := pgx.Connect(t.Context(), db)
	require.NoError(t, err)
	require.NoError(t, conn.QueryRow(t.Context(), "SELECT public_key FROM terminals WHERE id = 'T2'").Scan(&stored))
	require.NoError(t, conn.Close(t.Context()))
	assert.Equal(t, []byte(key.Public().(ed25519.PublicKey)), stored, "the store holds the public half only")
	for _, ev := range dirEvents(t, counter) {
		b, err := json.Marshal(ev)
		require.NoError(t, err)
		assert.NotContains(t, string(b), hex.EncodeToString(key.Seed()), "the private key is never journaled")
	}

	// The enrolment shows until a manager acknowledges it.
	code, _, errOut = tillRun(t, counter, "", nil, "sync", "--pending")
	require.Equal(t, exitOK, code, errOut)
	assert.Contains(t, errOut, "galla: store: enrolled at "+addr+" as T2 by Owner on ")
	code, _, errOut = tillRun(t, counter, "", map[string]string{"GALLA_PIN": "1111"}, "enrol", "--acknowledge", "--staff", "Ravi")
	assert.Equal(t, exitBadInput, code, "a cashier does not acknowledge it")
	assert.Contains(t, errOut, "Ravi is not a manager")
	code, out, errOut = tillRun(t, counter, "", owner, "enrol", "--acknowledge", "--staff", "Owner")
	require.Equal(t, exitOK, code, errOut)
	assert.Equal(t, "the enrolment at "+addr+" as T2 (enrol by Owner) is acknowledged by Owner\n", out)

	code, out, errOut = tillRun(t, counter, "", nil, "sync", "--pending")
	require.Equal(t, exitOK, code, errOut)
	assert.Empty(t, errOut)
	last := lastSeqOf(t, counter)
	assert.Equal(t, "store "+addr+", terminal T2: "+events(last)+" waiting (the journal ends at event "+itoa(last)+")\n", out)

	code, out, errOut = tillRun(t, counter, "", nil, "sync")
	require.Equal(t, exitOK, code, errOut)
	// The store's first answer on returns elsewhere is journaled and goes
	// up with the rest (store/link answers.go).
	evs := dirEvents(t, counter)
	require.Len(t, evs, int(last)+1)
	answer := evs[len(evs)-1]
	require.NotNil(t, answer.Setting)
	assert.Equal(t, link.SettingAnswer, answer.Setting.Key)
	last++
	assert.Contains(t, out, "sent "+events(last)+"; the store holds events 1 to "+itoa(last)+"\n")
	assert.Equal(t, last, heldBy(t, db, "T2"))

	code, out, errOut = tillRun(t, counter, "", nil, "sync")
	require.Equal(t, exitOK, code, errOut)
	assert.Contains(t, out, ": 0 events waiting")
	assert.Contains(t, out, "sent 0 events")

	// The server stops: the next sale waits, and sync says so.
	require.Equal(t, exitOK, stop())
	code, _, errOut = tillRun(t, counter, "", owner, "checkout", "--items", "ACC-CBL-CC1M", "--pay", "cash", "--staff", "Owner")
	require.Equal(t, exitOK, code, errOut, "the counter keeps selling without the store server")
	code, _, errOut = tillRun(t, counter, "", nil, "sync")
	assert.Equal(t, exitFailed, code)
	waiting := lastSeqOf(t, counter) - last
	assert.Equal(t, "galla: The store server at "+addr+" cannot be reached: "+events(waiting)+" wait in the journal and go up at the next sync; the counter keeps selling.\n", errOut)
	assert.Equal(t, last, heldBy(t, db, "T2"))

	// While the window holds the journal, galla sync says the window syncs.
	f, err := os.OpenFile(filepath.Join(counter, journalFile), os.O_RDWR, 0)
	require.NoError(t, err)
	require.NoError(t, syscall.Flock(int(f.Fd()), syscall.LOCK_EX))
	code, _, errOut = tillRun(t, counter, "", nil, "sync")
	require.NoError(t, f.Close())
	assert.Equal(t, exitCannotWork, code)
	assert.Equal(t, "galla: The terminal's window is open: it sends the events to the store itself, and its status bar shows how many wait.\n", errOut)

	// Enrolling while the server is down says so; the code is not spent.
	fresh := t.TempDir()
	code, _, errOut = tillRun(t, fresh, ownerPIN+"\n", nil, "staff", "add", "Owner", "--role", "manager")
	require.Equal(t, exitOK, code, errOut)
	code, _, errOut = tillRun(t, fresh, "", owner, "enrol", addr, enrolCode, "--fingerprint", fp, "--staff", "Owner")
	assert.Equal(t, exitFailed, code)
	assert.Contains(t, errOut, "cannot be reached")
	assert.Contains(t, errOut, "the code stays valid")
}

func TestStoreCommandsBadInput(t *testing.T) {
	for _, tc := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"store"}, exitBadInput, "use galla store init"},
		{[]string{"store", "launch"}, exitBadInput, `"launch" is not a store command`},
		{[]string{"store", "init"}, exitBadInput, "--db postgres://"},
		{[]string{"store", "init", "--db", "postgres://postgres@/x?host=/nonexistent-galla&connect_timeout=1"}, exitCannotWork, "cannot be reached"},
		{[]string{"store", "init", "--db", "postgres://%zz"}, exitBadInput, "not valid"},
		{[]string{"store", "enrol-code", "--db", "postgres://postgres@/x?host=/nonexistent-galla&connect_timeout=1"}, exitCannotWork, "cannot be reached"},
		{[]string{"enrol", "https://store:8443", "CODE"}, exitBadInput, "use galla enrol store_url code"},
		{[]string{"enrol", "https://store:8443", "CODE", "--fingerprint", "12:34"}, exitBadInput, "64 hex digits"},
		{[]string{"enrol", "http://store:8443", "CODE", "--fingerprint", strings.Repeat("ab", 32)}, exitFailed, "must be https://"},
		{[]string{"sync", "extra"}, exitBadInput, "use galla sync"},
	} {
		t.Run(strings.Join(tc.args, " "), func(t *testing.T) {
			code, out, errOut := tillRun(t, t.TempDir(), "", nil, tc.args...)
			assert.Equal(t, tc.code, code, errOut)
			assert.Empty(t, out)
			assert.Contains(t, strings.ToLower(errOut), strings.ToLower(tc.want))
			assert.Equal(t, 1, strings.Count(errOut, "\n"), "one sentence: %q", errOut)
		})
	}
}

// lastSeqOf is the last sequence of the journal in dir.
func lastSeqOf(t *testing.T, dir string) uint64 {
	t.Helper()
	code, out, errOut := tillRun(t, dir, "", nil, "sync", "--pending")
	require.Equal(t, exitOK, code, errOut)
	m := regexp.MustCompile(`ends at event (\d+)`).FindStringSubmatch(out)
	require.NotNil(t, m, out)
	var n uint64
	for _, c := range m[1] {
		n = n*10 + uint64(c-'0')
	}
	return n
}

// heldBy is how many events of terminal the store's database holds.
func heldBy(t *testing.T, db, terminal string) uint64 {
	t.Helper()
	n, err := countHeld(t.Context(), db, terminal)
	require.NoError(t, err)
	return n
}

// countHeld is heldBy for a goroutine other than the test's.
func countHeld(ctx context.Context, db, terminal string) (uint64, error) {
	conn, err := pgx.Connect(ctx, db)
	if err != nil {
		return 0, err
	}
	defer conn.Close(ctx)
	var n int64
	err = conn.QueryRow(ctx, "SELECT count(*) FROM events WHERE terminal_id = $1", terminal).Scan(&n)
	return uint64(n), err
}

func itoa(n uint64) string { return strings.TrimSpace(strings.Replace(events(n), "events", "", 1)) }

// TestWindowSyncsInBackground: the window's terminal, once enrolled, sends
// the journal's events to the store server by itself, and the till's status
// (the status bar's) says how it stands.
func TestWindowSyncsInBackground(t *testing.T) {
	db := pg.Get(t).Database(t)
	srv := t.TempDir()
	code, out, errOut := tillRun(t, srv, "", nil, "store", "init", "--db", db)
	require.Equal(t, exitOK, code, errOut)
	fp := strings.TrimSpace(out)
	code, out, errOut = tillRun(t, srv, "", nil, "store", "enrol-code", "T3", "--db", db)
	require.Equal(t, exitOK, code, errOut)
	enrolCode := strings.TrimSpace(out)
	addr, stop := serveStore(t, srv, db)

	counter := t.TempDir()
	code, _, errOut = tillRun(t, counter, "", nil, "checkout", "--items", "ACC-CBL-CC1M", "--pay", "cash")
	require.Equal(t, exitOK, code, errOut)
	enrolByOwner(t, counter, addr, enrolCode, fp)
	last := lastSeqOf(t, counter)

	c := &cli{stdin: strings.NewReader(""), stdout: &bytes.Buffer{}, stderr: &bytes.Buffer{}, getenv: func(string) string { return "" }, dataDir: counter}
	till, closeTill, err := openWindowTill(c)
	require.NoError(t, err)
	defer closeTill()
	// The first sync journals the store's first answer on returns elsewhere
	// (store/link answers.go) and sends it too.
	require.Eventually(t, func() bool {
		st := till.Status(t.Context()).Store
		held, err := countHeld(t.Context(), db, "T3")
		return st.Enrolled && st.Waiting == 0 && !st.LastSync.IsZero() && err == nil && held == last+1
	}, 30*time.Second, 50*time.Millisecond, "the window's first sync")
	// The status bar shows the enrolment until a manager acknowledges it.
	assert.Regexp(t, `^store: up to date, last sync \d\d:\d\d \(enrolled at https://\S+ as T3 by Owner on .+, not yet acknowledged by a manager \(Settings, or galla enrol --acknowledge --staff NAME\)\)$`, till.Status(t.Context()).Store.Text(time.Now()))

	// Settings offers the acknowledgement to a manager's PIN, journaled
	// naming them; the status bar then shows the link alone.
	acts := windowStoreActs(c, till)
	require.NotNil(t, acts)
	line, act := acts.Waiting()
	assert.Equal(t, "Acknowledge", act)
	assert.Contains(t, line, "Enrolled at "+addr+" as T3 by Owner")
	_, err = acts.Act(t.Context(), "11223344")
	assert.Error(t, err, "not a manager's PIN")
	done, err := acts.Act(t.Context(), ownerPIN)
	require.NoError(t, err)
	assert.Contains(t, done, "acknowledged by Owner")
	line, act = acts.Waiting()
	assert.Empty(t, line+act)
	assert.NotContains(t, till.Status(t.Context()).Store.Text(time.Now()), "acknowledged")
	seq, err := till.j.Log.LastSeq(t.Context())
	require.NoError(t, err)
	ev, err := till.j.Log.Event(t.Context(), seq)
	require.NoError(t, err)
	assert.Equal(t, "store "+link.ActAcknowledged, ev.Extra["what"])
	require.Equal(t, exitOK, stop())
}

// TestWindowAcceptsAStore: config.json names the store by another address
// than the one the journal accepted: the window's link is held (nothing
// sent) until a manager accepts the store in Settings, journaled naming
// them; then it syncs.
func TestWindowAcceptsAStore(t *testing.T) {
	db, storeDir, addr, fp := newStore(t)
	counter := t.TempDir()
	enrolByOwner(t, counter, addr, enrolCodeFor(t, db, storeDir, "T1"), fp)
	cfg := readConfig(t, counter)
	cfg.Store.URL = strings.Replace(addr, "127.0.0.1", "localhost", 1)
	require.NoError(t, config.Save(counter, cfg))
	code, _, errOut := tillRun(t, counter, "", map[string]string{"GALLA_PIN": ownerPIN}, "checkout", "--staff", "Owner", "--items", "ACC-CBL-CC1M", "--pay", "cash")
	require.Equal(t, exitOK, code, errOut)

	c := &cli{stdin: strings.NewReader(""), stdout: &bytes.Buffer{}, stderr: &bytes.Buffer{}, getenv: func(string) string { return "" }, dataDir: counter}
	till, closeTill, err := openWindowTill(c)
	require.NoError(t, err)
	defer closeTill()
	acts := windowStoreActs(c, till)
	require.NotNil(t, acts)
	line, act := acts.Waiting()
	assert.Equal(t, "Accept store", act)
	assert.Contains(t, line, "has not accepted the store "+cfg.Store.URL)
	assert.Contains(t, till.Status(t.Context()).Store.Text(time.Now()), "not accepted by a manager on this counter: accept it in Settings")
	held := heldBy(t, db, "T1")

	done, err := acts.Act(t.Context(), ownerPIN)
	require.NoError(t, err)
	assert.Contains(t, done, "is accepted on this counter as terminal T1 by Owner")
	require.Eventually(t, func() bool {
		st := till.Status(t.Context()).Store
		return st.Waiting == 0 && heldBy(t, db, "T1") > held
	}, 30*time.Second, 50*time.Millisecond, "the link syncs once the store is accepted")
	_, act = acts.Waiting()
	assert.Equal(t, "Acknowledge", act, "the acceptance is shown until acknowledged")
}

// TestStoreCommandsForkAndUnblock: a counter whose journal no longer continues
// what the store holds is refused with a sentence; the manager sees the alarm
// and lets it send again.
func TestStoreCommandsForkAndUnblock(t *testing.T) {
	db := pg.Get(t).Database(t)
	srv := t.TempDir()
	code, out, errOut := tillRun(t, srv, "", nil, "store", "init", "--db", db)
	require.Equal(t, exitOK, code, errOut)
	fp := strings.TrimSpace(out)
	addr, _ := serveStore(t, srv, db)
	enrol := func(dir string) {
		t.Helper()
		code, out, errOut := tillRun(t, srv, "", nil, "store", "enrol-code", "T4", "--db", db)
		require.Equal(t, exitOK, code, errOut)
		enrolByOwner(t, dir, addr, strings.TrimSpace(out), fp)
	}

	first := t.TempDir()
	code, _, errOut = tillRun(t, first, "", nil, "checkout", "--items", "ACC-CBL-CC1M", "--pay", "cash")
	require.Equal(t, exitOK, code, errOut)
	enrol(first)
	code, _, errOut = tillRun(t, first, "", nil, "sync")
	require.Equal(t, exitOK, code, errOut)

	// The same counter id on a new journal: its events are not the store's.
	second := t.TempDir()
	code, _, errOut = tillRun(t, second, "", nil, "checkout", "--items", "ACC-CASE-S24", "--pay", "cash")
	require.Equal(t, exitOK, code, errOut)
	enrol(second)
	code, _, errOut = tillRun(t, second, "", nil, "sync")
	assert.Equal(t, exitFailed, code)
	assert.Contains(t, errOut, "galla: The store holds a different event 1 from terminal T4")
	assert.Contains(t, errOut, "A manager must look at the store's alarms (galla store alarms)")
	assert.Equal(t, 1, strings.Count(errOut, "\n"), errOut)

	code, out, errOut = tillRun(t, srv, "", nil, "store", "alarms", "--db", db)
	require.Equal(t, exitOK, code, errOut)
	assert.Regexp(t, `(?m)^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d\tT4\tfork\t1\t1\tevent 1 arrived with hash [0-9a-f]{64}, the store holds [0-9a-f]{64}$`, out)

	addStoreManager(t, srv, db, "Asha")
	code, _, errOut = tillRun(t, srv, "", nil, "store", "unblock", "T4", "--db", db)
	assert.Equal(t, exitBadInput, code, "who looked is named by their PIN")
	assert.Contains(t, errOut, "A store manager's PIN is needed")
	code, _, errOut = tillRun(t, srv, storeManagerPIN+"\n", nil, "store", "unblock", "T4", "--db", db)
	require.Equal(t, exitOK, code, errOut)
	assert.Contains(t, errOut, "cleared by Asha")
	code, out, errOut = tillRun(t, srv, "", nil, "store", "alarms", "--db", db)
	require.Equal(t, exitOK, code, errOut)
	assert.Empty(t, out)
	assert.Contains(t, errOut, "no open alarms")
	code, _, errOut = tillRun(t, srv, "", storeManager, "store", "unblock", "T4", "--db", db)
	assert.Equal(t, exitFailed, code)
	assert.Contains(t, errOut, "terminal T4 is not blocked")

	// The first journal, the one the store holds, goes on.
	code, _, errOut = tillRun(t, first, "", map[string]string{"GALLA_PIN": ownerPIN}, "checkout", "--items", "ACC-CBL-CC1M", "--pay", "cash", "--staff", "Owner")
	require.Equal(t, exitOK, code, errOut)
	code, _, errOut = tillRun(t, first, "", nil, "sync")
	assert.Equal(t, exitFailed, code, "the first journal's key was replaced by the second enrolment")
	assert.Contains(t, errOut, "not signed with terminal T4's key")
}

// TestStoreDatabaseFromEnvironment: GALLA_STORE_DB names the database when
// --db does not (the password stays out of the process list).
func TestStoreDatabaseFromEnvironment(t *testing.T) {
	db := pg.Get(t).Database(t)
	srv := t.TempDir()
	code, out, errOut := tillRun(t, srv, "", map[string]string{"GALLA_STORE_DB": db}, "store", "init")
	require.Equal(t, exitOK, code, errOut)
	assert.Regexp(t, `^[0-9a-f]{64}\n$`, out)
	code, _, errOut = tillRun(t, srv, "", map[string]string{"GALLA_STORE_DB": "postgres://postgres@/x?host=/nonexistent-galla&connect_timeout=1"}, "store", "init", "--db", db)
	require.Equal(t, exitOK, code, "--db wins over the environment: %s", errOut)
}

// ownerPIN is the PIN of Owner, the manager enrolByOwner signs in.
const ownerPIN = "864200"

// enrolByOwner enrols the counter in dir at the store at addr with code, as
// its manager Owner (added as its first member when it has no staff yet).
func enrolByOwner(t *testing.T, dir, addr, code, fp string) {
	t.Helper()
	if c, out, _ := tillRun(t, dir, "", nil, "staff", "list"); c != exitOK || !strings.Contains(out, "Owner") {
		c, _, errOut := tillRun(t, dir, ownerPIN+"\n", nil, "staff", "add", "Owner", "--role", "manager")
		require.Equal(t, exitOK, c, errOut)
	}
	c, _, errOut := tillRun(t, dir, "", map[string]string{"GALLA_PIN": ownerPIN}, "enrol", addr, code, "--fingerprint", fp, "--staff", "Owner")
	require.Equal(t, exitOK, c, errOut)
}
