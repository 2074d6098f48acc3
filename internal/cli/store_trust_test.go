package cli

import (
	"context"
	"crypto/ed25519"
	"encoding/json"
	"io"
	"log/slog"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"galla/internal/config"
	"galla/pos"
	"galla/store"
	"galla/store/api"
	"galla/store/link"
)

// newStore makes a store (database, certificate, server) and returns its
// database, the folder its commands run in, its address and fingerprint.
func newStore(t *testing.T) (db, dir, addr, fp string) {
	t.Helper()
	db, dir = pg.Get(t).Database(t), t.TempDir()
	code, out, errOut := tillRun(t, dir, "", nil, "store", "init", "--db", db)
	require.Equal(t, exitOK, code, errOut)
	fp = strings.TrimSpace(out)
	// Served in this process, stopped by its context: a test may run two.
	d := openStoreDB(t, dir, db)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- store.NewServer(d, slog.New(slog.NewTextHandler(io.Discard, nil))).Serve(ctx, ln) }()
	t.Cleanup(func() { cancel(); <-done; d.Close() })
	return db, dir, "https://" + ln.Addr().String(), fp
}

// enrolCodeFor makes a one-time code for terminal at the store of db.
func enrolCodeFor(t *testing.T, db, dir, terminal string) string {
	t.Helper()
	code, out, errOut := tillRun(t, dir, "", nil, "store", "enrol-code", terminal, "--db", db)
	require.Equal(t, exitOK, code, errOut)
	return strings.TrimSpace(out)
}

// readConfig reads the counter's config.json.
func readConfig(t *testing.T, dir string) config.Config {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, config.File))
	require.NoError(t, err)
	var cfg config.Config
	require.NoError(t, json.Unmarshal(b, &cfg))
	return cfg
}

// TestARogueStoreCannotRenameTheCounter: a counter enrolled as T1 is taken to
// another store whose code names T2: refused with a sentence, nothing renamed,
// nothing kept, and the counter goes on with its own store. Enrolled again at
// its own store, its key rotates: the old one is refused there.
func TestARogueStoreCannotRenameTheCounter(t *testing.T) {
	db, storeDir, addr, fp := newStore(t)
	counter := t.TempDir()
	owner := map[string]string{"GALLA_PIN": ownerPIN}
	enrolByOwner(t, counter, addr, enrolCodeFor(t, db, storeDir, "T1"), fp)
	code, _, errOut := tillRun(t, counter, "", nil, "sync")
	require.Equal(t, exitOK, code, errOut)
	before := readConfig(t, counter)
	key1, err := config.OpenSecrets(counter, nil).StoreKey()
	require.NoError(t, err)

	rogueDB, rogueDir, rogueAddr, rogueFP := newStore(t)
	code, _, errOut = tillRun(t, counter, "", owner, "enrol", rogueAddr, enrolCodeFor(t, rogueDB, rogueDir, "T2"), "--fingerprint", rogueFP, "--staff", "Owner")
	assert.Equal(t, exitFailed, code)
	assert.Equal(t, "galla: The store server at "+rogueAddr+" answered that this counter is terminal T2, but it is T1 since its first enrolment (its documents carry T1): a store may not rename a counter. Nothing was changed; ask that store for a code made for T1.\n", errOut)
	assert.Equal(t, before, readConfig(t, counter), "nothing renamed, the store kept")
	assert.Equal(t, "T1", readConfig(t, counter).Terminal)
	key, err := config.OpenSecrets(counter, nil).StoreKey()
	require.NoError(t, err)
	assert.Equal(t, key1, key, "the key kept")
	code, out, errOut := tillRun(t, counter, "", owner, "checkout", "--items", "ACC-CBL-CC1M", "--pay", "cash", "--staff", "Owner")
	require.Equal(t, exitOK, code, errOut)
	assert.True(t, strings.HasPrefix(decodeCheckout(t, out).DocumentNo, "T1/"), "the counter's series stays T1")
	code, _, errOut = tillRun(t, counter, "", nil, "sync")
	require.Equal(t, exitOK, code, errOut)
	assert.Equal(t, lastSeqOf(t, counter), heldBy(t, db, "T1"))
	assert.Zero(t, heldBy(t, rogueDB, "T1")+heldBy(t, rogueDB, "T2"), "the rogue store got no event")

	// Enrolled again at its own store: a new key, the old one refused.
	code, out, errOut = tillRun(t, counter, "", owner, "enrol", addr, enrolCodeFor(t, db, storeDir, "T1"), "--fingerprint", fp, "--staff", "Owner")
	require.Equal(t, exitOK, code, errOut)
	assert.Equal(t, "enrolled as terminal T1 at "+addr+"\n", out)
	key2, err := config.OpenSecrets(counter, nil).StoreKey()
	require.NoError(t, err)
	assert.NotEqual(t, key1, key2)
	code, _, errOut = tillRun(t, counter, "", nil, "sync")
	require.Equal(t, exitOK, code, errOut, "the new key signs")
	old, err := link.New(link.Config{URL: addr, Fingerprint: fp, TerminalID: "T1", Key: key1}, noSource{})
	require.NoError(t, err)
	_, err = old.Check(t.Context())
	var ae *api.Error
	require.ErrorAs(t, err, &ae, "the old key")
	assert.Equal(t, api.CodeUnauthorized, ae.Code)

	// The journal holds both enrolments, each naming the manager; never a key.
	var acts []string
	for _, ev := range dirEvents(t, counter) {
		if ev.Kind == pos.EvSettingsChanged && ev.Setting.Key == link.SettingEnrolment {
			var rec link.Enrolment
			require.NoError(t, json.Unmarshal(ev.Setting.Value, &rec))
			acts = append(acts, rec.Act+" "+rec.TerminalID+" by "+rec.By)
			assert.Equal(t, "001", ev.Staff, "Owner's id")
		}
	}
	assert.Equal(t, []string{"enrol T1 by Owner", "re-enrol T1 by Owner"}, acts)
}

// noSource is a journal of no events, for a link that only asks.
type noSource struct{}

func (noSource) LastSeq(context.Context) (uint64, error)          { return 0, nil }
func (noSource) Event(context.Context, uint64) (pos.Event, error) { return pos.Event{}, nil }

// TestAStoreOfAnEarlierEnrolmentIsAcceptedByAManager: a counter enrolled by
// an earlier version (a credential in its keyring, config.json naming the
// store, nothing in its journal) holds a manager of that store, Mallory,
// applied then. Until the counter's own manager accepts the store, Mallory's
// PIN opens nothing and nothing is sent; the first sync needs a manager's PIN,
// journals the acceptance naming them, and moves the counter to a key.
func TestAStoreOfAnEarlierEnrolmentIsAcceptedByAManager(t *testing.T) {
	db, storeDir, addr, fp := newStore(t)
	const malloryPIN = "97531864"
	addStoreManager(t, storeDir, db, "Meera")
	code, _, errOut := tillRun(t, storeDir, malloryPIN+"\n"+malloryPIN+"\n", storeManager, "store", "staff", "add", "Mallory", "--role", "manager", "--db", db)
	require.Equal(t, exitOK, code, errOut)

	// What the earlier version left: the store's row with the credential's
	// key, the counter's config.json, keyring and applied staff.
	d := openStoreDB(t, storeDir, db)
	defer d.Close()
	throwaway, _, err := ed25519.GenerateKey(nil)
	require.NoError(t, err)
	resp, err := d.Access.Enrol(t.Context(), enrolCodeFor(t, db, storeDir, "T1"), throwaway)
	require.NoError(t, err)
	const cred = "5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a"
	conn, err := pgx.Connect(t.Context(), db)
	require.NoError(t, err)
	defer conn.Close(t.Context())
	_, err = conn.Exec(t.Context(), "UPDATE terminals SET public_key = NULL, credential_hash = $1 WHERE id = 'T1'", api.CredentialKey(cred))
	require.NoError(t, err)

	counter := t.TempDir()
	code, _, errOut = tillRun(t, counter, "", nil, "checkout", "--items", "ACC-CBL-CC1M", "--pay", "cash")
	require.Equal(t, exitOK, code, errOut)
	code, _, errOut = tillRun(t, counter, ownerPIN+"\n", nil, "staff", "add", "Owner", "--role", "manager")
	require.Equal(t, exitOK, code, errOut)
	sec := config.OpenSecrets(counter, nil)
	require.NoError(t, sec.Set(config.SecretStoreCredential, cred))
	require.NoError(t, sec.Set(config.SecretStorePINPepper, resp.StaffPepper))
	cfg := config.Config{Terminal: "T1", Store: config.StoreServer{URL: addr, Fingerprint: fp, TerminalID: "T1"}}
	require.NoError(t, config.Save(counter, cfg))
	up, err := d.Master.MasterSince(t.Context(), 0)
	require.NoError(t, err)
	func() {
		c := &cli{dataDir: counter, stdin: strings.NewReader(""), stdout: &lockedBuffer{}, stderr: &lockedBuffer{}, getenv: func(string) string { return "" }}
		till, err := openTill(c)
		require.NoError(t, err)
		defer till.close()
		for _, it := range up.Items {
			require.NoError(t, till.Shelf.ApplyMaster(t.Context(), it.Kind, it.Body, it.Version))
		}
	}()

	assert.ErrorIs(t, signInAt(t, counter, "Mallory", malloryPIN), pos.ErrStorePepper, "a store no manager accepted gives its staff no power")
	code, _, errOut = tillRun(t, counter, "", nil, "sync", "--pending")
	require.Equal(t, exitOK, code, errOut)
	assert.Contains(t, errOut, "not accepted by a manager on this counter")

	// A phone's sale asks a store no manager accepted nothing: it waits, as
	// with a store that cannot be reached.
	code, _, errOut = tillRun(t, counter, "", map[string]string{"GALLA_PIN": ownerPIN}, "checkout", "--staff", "Owner",
		"--items", "PH-SAM-A55-128", "--imei", "356938035643809", "--pay", "cash")
	assert.Equal(t, exitBadInput, code)
	assert.Contains(t, errOut, "store server cannot be reached")

	code, _, errOut = tillRun(t, counter, "", nil, "sync")
	assert.Equal(t, exitBadInput, code)
	assert.Contains(t, errOut, "its first sync is a manager's act")
	code, _, errOut = tillRun(t, counter, "", map[string]string{"GALLA_PIN": malloryPIN}, "sync", "--staff", "Mallory")
	assert.Equal(t, exitBadInput, code, "the store's manager cannot accept their own store")
	assert.Contains(t, errOut, "the store's PIN key")
	code, _, errOut = tillRun(t, counter, "", map[string]string{"GALLA_PIN": "000000"}, "sync", "--staff", "Owner")
	assert.Equal(t, exitBadInput, code, "a wrong PIN")
	assert.Contains(t, strings.ToLower(errOut), "pin")
	assert.Zero(t, heldBy(t, db, "T1"), "nothing sent")
	var held []byte
	require.NoError(t, conn.QueryRow(t.Context(), "SELECT credential_hash FROM terminals WHERE id = 'T1'").Scan(&held))
	assert.NotNil(t, held, "not moved to a key either")

	before := lastSeqOf(t, counter)
	code, out, errOut := tillRun(t, counter, ownerPIN+"\n", nil, "sync", "--staff", "Owner")
	require.Equal(t, exitOK, code, errOut)
	assert.Contains(t, errOut, "the store "+addr+" is accepted on this counter as terminal T1 by Owner, journaled")
	assert.Contains(t, out, "the store holds events 1 to ")
	assert.Greater(t, heldBy(t, db, "T1"), before, "the journal up to the acceptance went up")

	key, err := sec.StoreKey()
	require.NoError(t, err)
	var pub []byte
	var credHash *[]byte
	require.NoError(t, conn.QueryRow(t.Context(), "SELECT public_key, credential_hash FROM terminals WHERE id = 'T1'").Scan(&pub, &credHash))
	assert.Equal(t, []byte(key.Public().(ed25519.PublicKey)), pub, "moved to the counter's key")
	assert.Nil(t, credHash)
	left, err := sec.Get(config.SecretStoreCredential)
	require.NoError(t, err)
	assert.Empty(t, left, "the credential forgotten")
	accepted := 0
	for _, ev := range dirEvents(t, counter) {
		if ev.Kind == pos.EvSettingsChanged && ev.Setting.Key == link.SettingEnrolment {
			var rec link.Enrolment
			require.NoError(t, json.Unmarshal(ev.Setting.Value, &rec))
			assert.Equal(t, link.Enrolment{URL: addr, Fingerprint: fp, TerminalID: "T1", PublicKey: api.PublicKeyHex(key.Public().(ed25519.PublicKey)),
				Act: link.ActFirstContact, By: "Owner", At: rec.At}, rec)
			assert.Equal(t, "001", ev.Staff, "Owner's id")
			accepted++
		}
	}
	assert.Equal(t, 1, accepted, "the acceptance journaled once")
	assert.NoError(t, signInAt(t, counter, "Mallory", malloryPIN), "accepted by the counter's manager: the store's staff sign in")

	code, _, errOut = tillRun(t, counter, "", nil, "sync")
	require.Equal(t, exitOK, code, "no PIN once accepted: %s", errOut)
}
