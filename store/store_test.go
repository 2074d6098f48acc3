package store

import (
	"crypto/ed25519"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"galla/store/api"
	"galla/store/pgtest"
)

var cluster *pgtest.Cluster

func TestMain(m *testing.M) { pgtest.Main(m, &cluster) }

// newDB opens a fresh, migrated database.
func newDB(t testing.TB) *DB {
	t.Helper()
	db, err := Open(t.Context(), cluster.Database(t), testKey(t))
	require.NoError(t, err)
	t.Cleanup(db.Close)
	_, err = db.Migrate(t.Context())
	require.NoError(t, err)
	return db
}

// testKey is a keeper of a new store key in a file of the test's own.
func testKey(t testing.TB) Keeper {
	t.Helper()
	return KeyFile(filepath.Join(t.TempDir(), "store.key"))
}

// enrolled registers and enrols terminal id with a new key and returns the
// private key, which signs its requests.
func enrolled(t testing.TB, db *DB, id string) ed25519.PrivateKey {
	t.Helper()
	code, _, err := db.Access.EnrolCode(t.Context(), id)
	require.NoError(t, err)
	pub, key, err := ed25519.GenerateKey(nil)
	require.NoError(t, err)
	resp, err := db.Access.Enrol(t.Context(), code, pub)
	require.NoError(t, err)
	require.Equal(t, id, resp.TerminalID)
	return key
}

// chain makes events from..to of a terminal's journal: each hash is SHA-256
// of the previous hash, the sequence and salt (what the server sees of the
// terminal's HMAC chain), prev the hash before event from.
func chain(prev string, from, to uint64, salt string) []api.Event {
	var out []api.Event
	for seq := from; seq <= to; seq++ {
		h := sha256.Sum256([]byte(fmt.Sprintf("%s|%d|%s", prev, seq, salt)))
		hash := hex.EncodeToString(h[:])
		body, _ := json.Marshal(map[string]any{"v": 1, "seq": seq, "kind": "cash.received", "day": "2026-11-24",
			"prev_hash": prev, "hash": hash, "order_id": fmt.Sprintf("O-%d", seq), "cash": map[string]any{"tendered": 10000 + seq, "change": 0}})
		out = append(out, api.Event{Seq: seq, Hash: hash, PrevHash: prev, Kind: "cash.received", Day: "2026-11-24", Body: body})
		prev = hash
	}
	return out
}

var zero = hex.EncodeToString(make([]byte, 32))

// versionsFrom is the migrations from version v to the program's last.
func versionsFrom(v int) []int {
	var out []int
	for ; v <= SchemaVersion(); v++ {
		out = append(out, v)
	}
	return out
}

func TestMigrateIsIdempotent(t *testing.T) {
	db, err := Open(t.Context(), cluster.Database(t), testKey(t))
	require.NoError(t, err)
	defer db.Close()

	require.ErrorIs(t, db.CheckSchema(t.Context()), ErrSchema, "an empty database needs init")
	applied, err := db.Migrate(t.Context())
	require.NoError(t, err)
	assert.Equal(t, versionsFrom(1), applied)
	applied, err = db.Migrate(t.Context())
	require.NoError(t, err)
	assert.Empty(t, applied, "a second Migrate applies nothing")
	require.NoError(t, db.CheckSchema(t.Context()))

	var n int
	require.NoError(t, db.Pool().QueryRow(t.Context(), "SELECT count(*) FROM schema_version").Scan(&n))
	assert.Equal(t, SchemaVersion(), n)

	_, err = db.Pool().Exec(t.Context(), "INSERT INTO schema_version (version, name) VALUES (99, '0099_future')")
	require.NoError(t, err)
	err = db.CheckSchema(t.Context())
	require.ErrorIs(t, err, ErrSchema)
	assert.Contains(t, err.Error(), "update the program")
	_, err = db.Migrate(t.Context())
	require.ErrorIs(t, err, ErrSchema)
}

func TestOpenBadURLAndDownDatabase(t *testing.T) {
	_, err := Open(t.Context(), "postgres://%zz", testKey(t))
	require.Error(t, err)
	assert.Contains(t, err.Error(), "not valid")

	_, err = Open(t.Context(), "postgres://postgres@/nope?host=/nonexistent-galla-dir&sslmode=disable&connect_timeout=1", testKey(t))
	require.ErrorIs(t, err, ErrUnavailable)
}

func TestCertificateMadeOnceAndPinned(t *testing.T) {
	db := newDB(t)
	_, _, err := db.Keys.TLSCertificate(t.Context())
	require.ErrorIs(t, err, ErrNoCertificate)

	fp, created, err := db.Keys.InitCertificate(t.Context(), []string{"till-server.local", "192.168.1.10"})
	require.NoError(t, err)
	assert.True(t, created)
	assert.Len(t, fp, 64)
	fp2, created, err := db.Keys.InitCertificate(t.Context(), []string{"other"})
	require.NoError(t, err)
	assert.False(t, created, "a second init keeps the certificate")
	assert.Equal(t, fp, fp2)

	cert, fp3, err := db.Keys.TLSCertificate(t.Context())
	require.NoError(t, err)
	assert.Equal(t, fp, fp3)
	require.Len(t, cert.Certificate, 2, "the server's certificate and the CA's")
	assert.Equal(t, fp, api.Fingerprint(cert.Certificate[1]))
	require.NoError(t, api.VerifyPinned(cert.Certificate, fp, time.Now()))
	other := sha256.Sum256([]byte("x"))
	err = api.VerifyPinned(cert.Certificate, hex.EncodeToString(other[:]), time.Now())
	require.Error(t, err)
	assert.Contains(t, err.Error(), "not the one pinned")
	require.Error(t, api.VerifyPinned(cert.Certificate[1:], fp, time.Now()), "the CA alone is not a server certificate")
}

func TestEnrolCodeIsOneTimeAndExpires(t *testing.T) {
	db := newDB(t)
	_, _, err := db.Access.EnrolCode(t.Context(), "bad id!")
	require.ErrorIs(t, err, ErrTerminalID)

	code, expires, err := db.Access.EnrolCode(t.Context(), "T1")
	require.NoError(t, err)
	assert.Regexp(t, `^[A-Z2-7]{4}-[A-Z2-7]{4}-[A-Z2-7]{4}-[A-Z2-7]{4}$`, code)
	assert.WithinDuration(t, time.Now().Add(24*time.Hour), expires, time.Minute)

	pub, _, err := ed25519.GenerateKey(nil)
	require.NoError(t, err)
	_, err = db.Access.Enrol(t.Context(), code, pub[:31])
	require.ErrorIs(t, err, ErrPublicKey, "an enrolment names the terminal's key")
	resp, err := db.Access.Enrol(t.Context(), " "+lower(code)+" ", pub)
	require.NoError(t, err, "case and spaces do not count")
	assert.Equal(t, "T1", resp.TerminalID)
	var stored []byte
	var cred *[]byte
	require.NoError(t, db.Pool().QueryRow(t.Context(), "SELECT public_key, credential_hash FROM terminals WHERE id = 'T1'").Scan(&stored, &cred))
	assert.Equal(t, []byte(pub), stored, "the store keeps the public key alone")
	assert.Nil(t, cred)

	_, err = db.Access.Enrol(t.Context(), code, pub)
	require.ErrorIs(t, err, ErrBadCode, "a code works once")

	code2, _, err := db.Access.EnrolCode(t.Context(), "T2")
	require.NoError(t, err)
	db.Now = func() time.Time { return time.Now().Add(25 * time.Hour) }
	_, err = db.Access.Enrol(t.Context(), code2, pub)
	require.ErrorIs(t, err, ErrBadCode, "an expired code is refused")

	alarms, err := db.Access.Alarms(t.Context(), true)
	require.NoError(t, err)
	require.Len(t, alarms, 1, "the same alarm again is counted in its row")
	assert.Equal(t, AlarmBadCode, alarms[0].Kind)
	assert.Equal(t, 2, alarms[0].Repeats)
}

func lower(s string) string {
	b := []byte(s)
	for i, c := range b {
		if c >= 'A' && c <= 'Z' {
			b[i] = c + 32
		}
	}
	return string(b)
}

// count is how many events of terminal the database holds, and the
// highest sequence.
func count(t testing.TB, db *DB, terminal string) (n int, maxSeq int64) {
	t.Helper()
	require.NoError(t, db.Pool().QueryRow(t.Context(), "SELECT count(*), coalesce(max(seq), 0) FROM events WHERE terminal_id = $1", terminal).Scan(&n, &maxSeq))
	return n, maxSeq
}

func apiErr(t *testing.T, err error) *api.Error {
	t.Helper()
	var ae *api.Error
	require.True(t, errors.As(err, &ae), "want an *api.Error, got %v", err)
	return ae
}

func TestIngestExactlyOnce(t *testing.T) {
	db := newDB(t)
	enrolled(t, db, "T1")
	evs := chain(zero, 1, 10, "a")

	resp, err := db.Events.Ingest(t.Context(), "T1", evs[:4])
	require.NoError(t, err)
	assert.Equal(t, api.BatchResponse{Held: 4, HeldHash: evs[3].Hash, Stored: 4}, resp)

	// Resending overlapping events stores only the new ones.
	resp, err = db.Events.Ingest(t.Context(), "T1", evs[2:7])
	require.NoError(t, err)
	assert.Equal(t, api.BatchResponse{Held: 7, HeldHash: evs[6].Hash, Stored: 3, Duplicates: 2}, resp)

	// A whole batch resent: nothing stored.
	resp, err = db.Events.Ingest(t.Context(), "T1", evs[:7])
	require.NoError(t, err)
	assert.Equal(t, api.BatchResponse{Held: 7, HeldHash: evs[6].Hash, Stored: 0, Duplicates: 7}, resp)

	// A gap is answered with the sequence expected.
	_, err = db.Events.Ingest(t.Context(), "T1", evs[8:])
	ae := apiErr(t, err)
	assert.Equal(t, api.CodeGap, ae.Code)
	assert.Equal(t, uint64(8), ae.Expected)
	assert.Contains(t, ae.Message, "send from 8")

	resp, err = db.Events.Ingest(t.Context(), "T1", evs[7:])
	require.NoError(t, err)
	assert.Equal(t, uint64(10), resp.Held)

	n, maxSeq := count(t, db, "T1")
	assert.Equal(t, 10, n)
	assert.Equal(t, int64(10), maxSeq)

	// The body keeps what the terminal sent.
	var tendered int
	require.NoError(t, db.Pool().QueryRow(t.Context(), "SELECT (body->'cash'->>'tendered')::int FROM events WHERE terminal_id = 'T1' AND seq = 3").Scan(&tendered))
	assert.Equal(t, 10003, tendered)
	var day time.Time
	require.NoError(t, db.Pool().QueryRow(t.Context(), "SELECT day FROM events WHERE terminal_id = 'T1' AND seq = 3").Scan(&day))
	assert.Equal(t, "2026-11-24", day.Format("2006-01-02"))
}

func TestIngestForkBlocksTerminal(t *testing.T) {
	for _, tc := range []struct {
		name  string
		batch func(good []api.Event) []api.Event
		seq   uint64
	}{
		{"another event under a held sequence", func(good []api.Event) []api.Event { return chain(good[2].Hash, 4, 6, "other") }, 4},
		{"an edited body under the held hash", func(good []api.Event) []api.Event {
			e := append([]api.Event(nil), good[3:5]...)
			e[1].Body = json.RawMessage(string(e[1].Body[:len(e[1].Body)-1]) + `,"extra":{"note":"edited"}}`)
			return e
		}, 5},
		{"a new event that does not continue the chain", func(good []api.Event) []api.Event { return chain(good[2].Hash, 6, 7, "b") }, 5},
	} {
		t.Run(tc.name, func(t *testing.T) {
			db := newDB(t)
			enrolled(t, db, "T1")
			enrolled(t, db, "T2")
			good := chain(zero, 1, 5, "a")
			_, err := db.Events.Ingest(t.Context(), "T1", good)
			require.NoError(t, err)

			_, err = db.Events.Ingest(t.Context(), "T1", tc.batch(good))
			ae := apiErr(t, err)
			assert.Equal(t, api.CodeFork, ae.Code)
			assert.Equal(t, tc.seq, ae.Held)

			n, _ := count(t, db, "T1")
			assert.Equal(t, 5, n, "nothing of a forked batch is stored")

			// Refused until a manager looks, even the good events.
			_, err = db.Events.Ingest(t.Context(), "T1", chain(good[4].Hash, 6, 6, "a"))
			assert.Equal(t, api.CodeBlocked, apiErr(t, err).Code)
			st, err := db.Events.Status(t.Context(), "T1")
			require.NoError(t, err)
			assert.True(t, st.Blocked)
			assert.Contains(t, st.Reason, fmt.Sprintf("forked at event %d", tc.seq))

			alarms, err := db.Access.Alarms(t.Context(), true)
			require.NoError(t, err)
			require.Len(t, alarms, 1)
			assert.Equal(t, AlarmFork, alarms[0].Kind)
			assert.Equal(t, "T1", alarms[0].Terminal)
			assert.Equal(t, tc.seq, alarms[0].Seq)

			// Another terminal is not affected.
			_, err = db.Events.Ingest(t.Context(), "T2", chain(zero, 1, 2, "t2"))
			require.NoError(t, err)

			require.NoError(t, db.Access.Unblock(t.Context(), "T1", "manager-1"))
			_, err = db.Events.Ingest(t.Context(), "T1", chain(good[4].Hash, 6, 6, "a"))
			require.NoError(t, err)
			alarms, err = db.Access.Alarms(t.Context(), true)
			require.NoError(t, err)
			assert.Empty(t, alarms)
		})
	}
}

func TestIngestMalformedStoresNothing(t *testing.T) {
	good := chain(zero, 1, 3, "a")
	edit := func(f func(e []api.Event)) []api.Event {
		e := append([]api.Event(nil), good...)
		f(e)
		return e
	}
	for _, tc := range []struct {
		name  string
		batch []api.Event
		want  string
	}{
		{"out of order", []api.Event{good[0], good[2], good[1]}, "without a gap"},
		{"short hash", edit(func(e []api.Event) { e[1].Hash = "abc" }), "not 64 hex digits"},
		{"chain broken inside", edit(func(e []api.Event) { e[2].PrevHash = good[0].Hash }), "chain is broken"},
		{"body not an object", edit(func(e []api.Event) { e[2].Body = json.RawMessage(`[1]`) }), "not a JSON object"},
		{"body disagrees", edit(func(e []api.Event) { e[2].Kind = "day.closed" }), "differ from the event's"},
		{"body not JSON", edit(func(e []api.Event) { e[1].Body = json.RawMessage(`{"seq": 2, "kind": }`) }), "event 2: the body is not valid JSON"},
		{"body without the day", edit(func(e []api.Event) { e[2].Body = json.RawMessage(`{"seq": 3}`) }), "event 3: the body's seq"},
		{"body of another sequence", edit(func(e []api.Event) { e[0].Body = json.RawMessage(`{"seq": 7, "day": "2026-11-24"}`) }), "event 1: the body's seq"},
		{"bad day", edit(func(e []api.Event) { e[0].Day = "24/11/2026" }), "not YYYY-MM-DD"},
		{"no sequence", edit(func(e []api.Event) { e[0].Seq = 0 }), "no sequence"},
		{"too many", chain(zero, 1, api.MaxBatch+1, "a"), "holds 1001 events, at most 1000"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			db := newDB(t)
			enrolled(t, db, "T1")
			_, err := db.Events.Ingest(t.Context(), "T1", tc.batch)
			ae := apiErr(t, err)
			assert.Equal(t, api.CodeMalformed, ae.Code)
			assert.Contains(t, ae.Message, tc.want)
			assert.Contains(t, ae.Message, "nothing of it stored")
			n, _ := count(t, db, "T1")
			assert.Zero(t, n)
			alarms, err := db.Access.Alarms(t.Context(), true)
			require.NoError(t, err)
			require.Len(t, alarms, 1)
			assert.Equal(t, AlarmMalformed, alarms[0].Kind)
		})
	}
}

func TestIngestUnknownTerminal(t *testing.T) {
	db := newDB(t)
	_, err := db.Events.Ingest(t.Context(), "T9", chain(zero, 1, 1, "a"))
	assert.Equal(t, api.CodeUnauthorized, apiErr(t, err).Code)
	_, err = db.Access.Terminal(t.Context(), "T9")
	require.ErrorIs(t, err, pgx.ErrNoRows)
}
