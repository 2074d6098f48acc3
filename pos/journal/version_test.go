package journal

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"flag"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	bolt "go.etcd.io/bbolt"

	"galla/pos"
)

// writeFixtures regenerates the journals of testdata: go test ./pos/journal
// -run TestFixtures -fixtures (then read the diff: they are binary, so check
// that only the two files changed and the tests below still pass).
var writeFixtures = flag.Bool("fixtures", false, "regenerate testdata/journal-schema*.db")

// The committed fixtures. Each holds the representative script (31 events:
// receipts 1 to 5, Z report 1).
const (
	// fixturePrevious is a journal as the previous schema (2) wrote it: events
	// of record format 1, unkeyed, no version recorded. Its checkpoints bucket,
	// derived, is left out: Open rebuilds it from the events.
	fixturePrevious = "testdata/journal-schema2.db"
	// fixtureSchema3 is a journal as schema 3 wrote it: keyed with testKey,
	// its derived records without proofs, Galla 0.1.0, and the head record
	// beside it (journal-schema3.db.head).
	fixtureSchema3 = "testdata/journal-schema3.db"
	// fixtureNewer claims schema 10, written by Galla 0.2.0, keyed with testKey.
	fixtureNewer = "testdata/journal-schema10.db"
	// fixtureEvents is the number of events in each.
	fixtureEvents = 31
)

// TestFixtures writes the fixtures when -fixtures is given; otherwise it
// checks that they are what the tests below take them for.
func TestFixtures(t *testing.T) {
	if *writeFixtures {
		makeFixturePrevious(t, fixturePrevious)
		makeFixtureSchema3(t, fixtureSchema3)
		makeFixtureNewer(t, fixtureNewer)
	}
	for _, f := range []struct {
		path    string
		schema  uint64
		version string
	}{{fixturePrevious, 2, ""}, {fixtureSchema3, 3, "0.1.0"}, {fixtureNewer, 10, "0.2.0"}} {
		db, err := bolt.Open(f.path, 0o600, &bolt.Options{ReadOnly: true, Timeout: time.Second})
		require.NoError(t, err, f.path)
		require.NoError(t, db.View(func(tx *bolt.Tx) error {
			assert.Equal(t, f.schema, schemaOf(tx), "%s: schema", f.path)
			assert.Equal(t, f.version, versionOf(tx), "%s: version", f.path)
			assert.Equal(t, fixtureEvents, tx.Bucket(bucketEvents).Stats().KeyN, "%s: events", f.path)
			return nil
		}))
		require.NoError(t, db.Close())
	}
}

// makeFixturePrevious writes the representative script, then rewrites its
// events as schema 2 wrote them (format 1, unkeyed) and sets schema 2.
func makeFixturePrevious(t *testing.T, out string) {
	path := filepath.Join(t.TempDir(), "journal.db")
	j, err := Open(path, Options{})
	require.NoError(t, err)
	var s script
	appendAll(t, j, s.representative(t))
	require.NoError(t, j.Close())
	rawUpdate(t, path, func(tx *bolt.Tx) error {
		events, meta := tx.Bucket(bucketEvents), tx.Bucket(bucketMeta)
		var h [32]byte
		last, _, _ := headIn(events)
		for n := uint64(1); n <= last; n++ {
			r, err := decodeRecord(events.Get(u64(n)))
			require.NoError(t, err)
			ev, err := r.event()
			require.NoError(t, err)
			ev.PrevHash = hex.EncodeToString(h[:])
			var data []byte
			data, h = sealV1(t, ev)
			require.NoError(t, events.Put(u64(n), data))
		}
		require.NoError(t, tx.DeleteBucket(bucketCheckpoints))
		require.NoError(t, unprove(tx))
		require.NoError(t, putU64(meta, metaSchema, 2))
		return meta.Put(metaHead, headValue(last, h))
	})
	compactTo(t, path, out)
}

// unprove takes the proofs out of a journal, as schema 3 and older kept it:
// no proofs bucket, the orders' event index entries empty.
func unprove(tx *bolt.Tx) error {
	if err := tx.DeleteBucket(bucketProofs); err != nil {
		return err
	}
	orders := tx.Bucket(bucketOrders)
	var index [][]byte
	if err := orders.ForEach(func(k, _ []byte) error {
		if bytes.IndexByte(k, sep) >= 0 {
			index = append(index, bytes.Clone(k))
		}
		return nil
	}); err != nil {
		return err
	}
	for _, k := range index {
		if err := orders.Put(k, nil); err != nil {
			return err
		}
	}
	return nil
}

// makeFixtureSchema3 writes the representative script keyed with testKey by
// Galla 0.1.0, then takes the proofs out and sets schema 3; the head record
// beside it is written next to out.
func makeFixtureSchema3(t *testing.T, out string) {
	path := filepath.Join(t.TempDir(), "journal.db")
	j, err := Open(path, Options{ChainKey: testKey, AppVersion: "0.1.0"})
	require.NoError(t, err)
	var s script
	appendAll(t, j, s.representative(t))
	require.NoError(t, j.Close())
	rawUpdate(t, path, func(tx *bolt.Tx) error {
		require.NoError(t, unprove(tx))
		// Schema 3 kept the head in meta too (until schema 8).
		seq, h, _ := headIn(tx.Bucket(bucketEvents))
		require.NoError(t, tx.Bucket(bucketMeta).Put(metaHead, headValue(seq, h)))
		return putU64(tx.Bucket(bucketMeta), metaSchema, 3)
	})
	compactTo(t, path, out)
	head, err := os.ReadFile(HeadPath(path))
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(HeadPath(out), head, 0o644))
}

// makeFixtureNewer writes the representative script keyed with testKey and
// makes the file claim schema 10, written by Galla 0.2.0.
func makeFixtureNewer(t *testing.T, out string) {
	path := filepath.Join(t.TempDir(), "journal.db")
	j, err := Open(path, Options{ChainKey: testKey, AppVersion: "0.1.0"})
	require.NoError(t, err)
	var s script
	appendAll(t, j, s.representative(t))
	require.NoError(t, j.Close())
	rawUpdate(t, path, func(tx *bolt.Tx) error {
		meta := tx.Bucket(bucketMeta)
		require.NoError(t, putU64(meta, metaSchema, 10))
		return meta.Put(metaGallaVersion, []byte("0.2.0"))
	})
	compactTo(t, path, out)
}

// compactTo writes a compact copy of the bbolt file at src to dst.
func compactTo(t *testing.T, src, dst string) {
	t.Helper()
	from, err := bolt.Open(src, 0o600, &bolt.Options{ReadOnly: true})
	require.NoError(t, err)
	defer from.Close()
	tmp := filepath.Join(t.TempDir(), "compact.db")
	to, err := bolt.Open(tmp, 0o600, nil)
	require.NoError(t, err)
	require.NoError(t, bolt.Compact(to, from, 0))
	require.NoError(t, to.Close())
	data, err := os.ReadFile(tmp)
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(dst, data, 0o644))
}

// copyFixture copies a fixture into a fresh data directory and returns the
// journal's path there.
func copyFixture(t *testing.T, fixture string) string {
	t.Helper()
	data, err := os.ReadFile(fixture)
	require.NoError(t, err)
	path := filepath.Join(t.TempDir(), "data", "journal.db")
	require.NoError(t, os.MkdirAll(filepath.Dir(path), 0o700))
	require.NoError(t, os.WriteFile(path, data, 0o600))
	if head, err := os.ReadFile(HeadPath(fixture)); err == nil {
		require.NoError(t, os.WriteFile(HeadPath(path), head, 0o600))
	}
	return path
}

// lastOpenedBy returns the Data of the journal's last event, which must be a
// journal.opened_by.
func lastOpenedBy(t *testing.T, j *Journal) (uint64, openedBy) {
	t.Helper()
	last, err := j.Log.LastSeq(t.Context())
	require.NoError(t, err)
	ev, err := j.Log.Event(t.Context(), last)
	require.NoError(t, err)
	require.Equal(t, EvOpenedBy, ev.Kind, "the last event")
	var d openedBy
	require.NoError(t, json.Unmarshal(ev.Data, &d))
	return last, d
}

// TestOpenPreviousSchema opens the journal of the previous schema as the
// terminal does (a chain key, its version): it is copied to the backups first,
// the copy checked, migrated once, and the migration journaled; every sale in
// it stays readable; a second Open migrates nothing more.
func TestOpenPreviousSchema(t *testing.T) {
	path := copyFixture(t, fixturePrevious)
	now := time.Date(2026, 11, 24, 9, 30, 0, 0, time.UTC)
	opts := Options{ChainKey: testKey, AppVersion: "0.1.0", Now: func() time.Time { return now }}
	j, err := Open(path, opts)
	require.NoError(t, err, "the previous schema opens")

	wantBackup := filepath.Join(filepath.Dir(path), "backups", "journal-schema2-before-upgrade-20261124-093000.db")
	seq, d := lastOpenedBy(t, j)
	// journal.records_proved, then journal.opened_by.
	assert.Equal(t, uint64(fixtureEvents+2), seq, "two events after the fixture's 31")
	assert.Equal(t, openedBy{Version: "0.1.0", From: 2, To: 9, Backup: wantBackup}, d)
	v, err := j.Version()
	require.NoError(t, err)
	assert.Equal(t, "0.1.0", v)

	// The fixture's sales, by hand: G-0002 cash ₹499.00 with receipt 2, G-0004
	// refunded, the counters at receipt 5 and Z 1.
	o, err := j.Orders.Order(t.Context(), "G-0002")
	require.NoError(t, err)
	assert.Equal(t, pos.Paise(49900), o.Amount)
	assert.Equal(t, uint64(2), o.ReceiptNo)
	n, err := j.Numbers()
	require.NoError(t, err)
	assert.Equal(t, Numbers{Receipt: 5, Z: 1}, n)
	require.NoError(t, j.Log.VerifyAll(t.Context()), "the old events and the new one verify")
	require.NoError(t, j.core.db.View(func(tx *bolt.Tx) error {
		assert.Equal(t, uint64(9), schemaOf(tx))
		return nil
	}))
	require.NoError(t, j.Close())

	// The copy is the journal as it was: schema 2, its 31 events, no version.
	bk, err := bolt.Open(wantBackup, 0o600, &bolt.Options{ReadOnly: true, Timeout: time.Second})
	require.NoError(t, err, "the backup before the migration")
	require.NoError(t, bk.View(func(tx *bolt.Tx) error {
		assert.Equal(t, uint64(2), schemaOf(tx))
		assert.Equal(t, fixtureEvents, tx.Bucket(bucketEvents).Stats().KeyN)
		assert.Equal(t, "", versionOf(tx))
		return nil
	}))
	require.NoError(t, bk.Close())
	latest, err := LatestBackup(filepath.Dir(wantBackup))
	require.NoError(t, err)
	assert.Equal(t, wantBackup, latest, "the sentences that offer a backup find it")

	// Once: the same version opens it again with no copy and no event.
	now = now.Add(time.Hour)
	j, err = Open(path, opts)
	require.NoError(t, err)
	last, err := j.Log.LastSeq(t.Context())
	require.NoError(t, err)
	assert.Equal(t, uint64(fixtureEvents+2), last, "no event at a second Open")
	require.NoError(t, j.Close())
	entries, err := os.ReadDir(filepath.Dir(wantBackup))
	require.NoError(t, err)
	assert.Len(t, entries, 1, "one copy, taken once")

	// A newer Galla of the same schema is journaled, no copy taken.
	j, err = Open(path, Options{ChainKey: testKey, AppVersion: "0.1.1"})
	require.NoError(t, err)
	_, d = lastOpenedBy(t, j)
	assert.Equal(t, openedBy{Version: "0.1.1", Previous: "0.1.0"}, d)
	require.NoError(t, j.Close())

	rep, err := VerifyFileWith(t.Context(), path, Options{ChainKey: testKey})
	require.NoError(t, err)
	assert.True(t, rep.Verified, "the whole check, replay included")
}

// TestOpenNewerSchema opens the journal a newer Galla wrote: refused, read-only
// too, with a sentence naming both versions, the file untouched and no copy made.
func TestOpenNewerSchema(t *testing.T) {
	require.Less(t, SchemaVersion(), uint64(10), "this build knows schema 10: the fixture must claim a newer one")
	path := copyFixture(t, fixtureNewer)
	before := fileSum(t, path)
	for _, ro := range []bool{false, true} {
		_, err := Open(path, Options{ChainKey: testKey, AppVersion: "0.1.0", ReadOnly: ro})
		require.Error(t, err, "read-only %v", ro)
		assert.ErrorIs(t, err, ErrNewerSchema)
		var ne *NewerSchemaError
		require.True(t, errors.As(err, &ne))
		assert.Equal(t, NewerSchemaError{Path: path, FileSchema: 10, FileVersion: "0.2.0", Schema: 9, Version: "0.1.0"}, *ne)
		s := pos.Sentence(err)
		for _, want := range []string{"Galla 0.2.0", "Galla 0.1.0", "schema 10", "schema 9 at most", "changed nothing"} {
			assert.Contains(t, s, want, "read-only %v", ro)
		}
		assert.False(t, strings.Contains(strings.ToLower(s), "try again"))
	}
	assert.Equal(t, before, fileSum(t, path), "the file is unchanged")
	_, err := os.Stat(filepath.Join(filepath.Dir(path), "backups"))
	assert.ErrorIs(t, err, fs.ErrNotExist, "no copy of a file that is not migrated")
}

// TestNewerSchemaSentenceOfOneVersion: a file of a newer schema written by a
// build of the same version number as this one (a development build) is said
// to come from a newer build, not from "Galla 0.1.0 or later" to a Galla 0.1.0.
func TestNewerSchemaSentenceOfOneVersion(t *testing.T) {
	e := &NewerSchemaError{Path: "/d/journal.db", FileSchema: 10, FileVersion: "0.1.0", Schema: 9, Version: "0.1.0"}
	assert.Equal(t, "The journal /d/journal.db was written by a newer build of Galla 0.1.0 (journal schema 10). This is Galla 0.1.0, which reads journal schema 9 at most, so it will not open it and has changed nothing in it: install that newer build again to keep working.", e.Sentence())
	e.FileVersion = "0.2.0"
	assert.Contains(t, e.Sentence(), "written by Galla 0.2.0 (journal schema 10)")
	assert.Contains(t, e.Sentence(), "install Galla 0.2.0 or later again")
}

// TestNewJournalRecordsVersion: a new journal takes the version without an
// event; another version's Open journals the change.
func TestNewJournalRecordsVersion(t *testing.T) {
	path := filepath.Join(t.TempDir(), "data", "journal.db")
	j, err := Open(path, Options{AppVersion: "0.1.0"})
	require.NoError(t, err)
	last, err := j.Log.LastSeq(t.Context())
	require.NoError(t, err)
	assert.Equal(t, uint64(0), last, "no event in a new journal")
	v, err := j.Version()
	require.NoError(t, err)
	assert.Equal(t, "0.1.0", v)
	require.NoError(t, j.Close())

	j, err = Open(path, Options{AppVersion: "0.0.9"})
	require.NoError(t, err)
	seq, d := lastOpenedBy(t, j)
	assert.Equal(t, uint64(1), seq)
	assert.Equal(t, openedBy{Version: "0.0.9", Previous: "0.1.0"}, d)
	require.NoError(t, j.Log.Rebuild(t.Context()))
	v, err = j.Version()
	require.NoError(t, err)
	assert.Equal(t, "0.0.9", v, "the replay keeps the version")
	require.NoError(t, j.Close())
}

func fileSum(t *testing.T, path string) [32]byte {
	t.Helper()
	data, err := os.ReadFile(path)
	require.NoError(t, err)
	return sha256.Sum256(data)
}

// TestNoMigrationWithoutCopy: where the copy before the migration cannot be
// written (here a file stands where the backups directory would be), Open
// refuses and the journal keeps its schema and its bytes.
func TestNoMigrationWithoutCopy(t *testing.T) {
	path := copyFixture(t, fixturePrevious)
	require.NoError(t, os.WriteFile(filepath.Join(filepath.Dir(path), "backups"), []byte("not a directory"), 0o600))
	before := fileSum(t, path)
	_, err := Open(path, Options{ChainKey: testKey, AppVersion: "0.1.0"})
	require.Error(t, err)
	assert.ErrorIs(t, err, ErrUpgradeCopy)
	s := pos.Sentence(err)
	assert.Contains(t, s, "from schema 2 to 9")
	assert.Contains(t, s, "nothing was changed")
	assert.Equal(t, before, fileSum(t, path), "not migrated")
}

// TestHeadFromEventsUpgrade moves a journal of schema 7, which kept its head in
// meta, to schema 8: the head in meta is gone, the mark of the head names the
// last event, and the journal verifies and appends on. A head in meta that does
// not name the last event (moved back, as by a cut) is damage: Open refuses it
// at the event the head named, and the file keeps its schema.
func TestHeadFromEventsUpgrade(t *testing.T) {
	asSchema7 := func(t *testing.T, moveBack bool) (string, uint64) {
		t.Helper()
		path, stored := keyedJournal(t)
		last := uint64(len(stored))
		rawUpdate(t, path, func(tx *bolt.Tx) error {
			events, meta := tx.Bucket(bucketEvents), tx.Bucket(bucketMeta)
			seq, h, ok := headIn(events)
			require.True(t, ok)
			require.Equal(t, last, seq)
			if moveBack {
				seq, h, _ = headOfLast(u64(last-1), events.Get(u64(last-1)))
			}
			require.NoError(t, events.SetSequence(0))
			require.NoError(t, meta.Put(metaHead, headValue(seq, h)))
			return putU64(meta, metaSchema, 7)
		})
		return path, last
	}

	t.Run("the head in meta names the last event", func(t *testing.T) {
		path, last := asSchema7(t, false)
		j, err := Open(path, Options{ChainKey: testKey})
		require.NoError(t, err)
		require.NoError(t, j.core.view(func(tx *bolt.Tx) error {
			assert.Equal(t, SchemaVersion(), schemaOf(tx))
			assert.Nil(t, tx.Bucket(bucketMeta).Get(metaHead), "no head in meta")
			seq, h, _ := headIn(tx.Bucket(bucketEvents))
			assert.Equal(t, last, seq)
			assert.Equal(t, headMark(seq, h), tx.Bucket(bucketEvents).Sequence(), "the mark of the head")
			return nil
		}))
		s := script{receipt: 6} // the keyed journal's receipts are 1 to 6
		appendAll(t, j, s.cashSale("G-8", "2026-11-22", 100))
		require.NoError(t, j.Log.VerifyAll(t.Context()))
		n, err := j.Log.LastSeq(t.Context())
		require.NoError(t, err)
		assert.Equal(t, last+2, n)
		require.NoError(t, j.Close())
		j, err = Open(path, Options{ChainKey: testKey})
		require.NoError(t, err, "opens again")
		require.NoError(t, j.Close())
	})

	t.Run("the head in meta moved back", func(t *testing.T) {
		path, last := asSchema7(t, true)
		require.NoError(t, os.Remove(HeadPath(path))) // the chain's and the migration's own checks
		_, err := Open(path, Options{ChainKey: testKey})
		require.ErrorIs(t, err, ErrCorrupt)
		var ce *CorruptError
		require.ErrorAs(t, err, &ce)
		assert.Equal(t, last, ce.Seq)
		db, err := bolt.Open(path, 0o600, &bolt.Options{ReadOnly: true, Timeout: time.Second})
		require.NoError(t, err)
		require.NoError(t, db.View(func(tx *bolt.Tx) error {
			assert.Equal(t, uint64(7), schemaOf(tx), "not migrated")
			assert.NotNil(t, tx.Bucket(bucketMeta).Get(metaHead))
			return nil
		}))
		require.NoError(t, db.Close())
	})
}
