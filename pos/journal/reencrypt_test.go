package journal

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	bolt "go.etcd.io/bbolt"
)

// TestSealBackupsRewritesTheBackupsInClear: a counter upgraded from a build
// before schema 5 keeps that build's year-end backup, the copy taken before
// the migration and a month-end whose bytes were changed since, all three
// holding a buyer in clear. SealBackups verifies each first and leaves the
// changed one as it was, naming it; the other two are rewritten with the
// buyer sealed, verify with the same events and numbers, still give the
// buyer back through the journal's key, and are no longer named. The act is
// journaled naming the manager and the files.
func TestSealBackupsRewritesTheBackupsInClear(t *testing.T) {
	path := filepath.Join(t.TempDir(), "data", "journal.db")
	j, err := Open(path, Options{ChainKey: testKey})
	require.NoError(t, err)
	j.core.rec.v, j.core.proofs.v = nil, nil // the build before sealing
	var s script
	appendAll(t, j, s.representative(t))
	appendAll(t, j, buyerEvents(t, &s))
	require.NoError(t, j.Close())
	rawUpdate(t, path, func(tx *bolt.Tx) error {
		meta := tx.Bucket(bucketMeta)
		require.NoError(t, meta.Delete(metaSealed))
		return asSchema(tx, 4)
	})
	backups := filepath.Join(filepath.Dir(path), "backups")
	require.NoError(t, os.MkdirAll(backups, 0o700))
	yearEnd, changed := backupPrefix+"2026-03-31"+backupSuffix, backupPrefix+"2026-02-28"+backupSuffix
	require.NoError(t, copyFile(path, filepath.Join(backups, yearEnd)))
	require.NoError(t, copyFile(path, filepath.Join(backups, changed)))
	rawUpdate(t, filepath.Join(backups, changed), func(tx *bolt.Tx) error {
		k, v := tx.Bucket(bucketEvents).Cursor().First()
		v = bytes.Clone(v)
		v[len(v)-1] ^= 1
		return tx.Bucket(bucketEvents).Put(bytes.Clone(k), v)
	})
	changedBytes, err := os.ReadFile(filepath.Join(backups, changed))
	require.NoError(t, err)

	j, err = Open(path, Options{ChainKey: testKey})
	require.NoError(t, err)
	defer j.Close()
	space, err := j.Archive.BackupSpace()
	require.NoError(t, err)
	require.Len(t, space.Clear, 3, "the year end, the month end, the copy before the migration")
	want := map[string]Report{}
	for _, n := range space.Clear {
		raw, err := os.ReadFile(filepath.Join(backups, n))
		require.NoError(t, err)
		require.NotEmpty(t, buyerLeaks(readable(t, raw)), "%s holds the buyer in clear", n)
		if n != changed {
			want[n], err = verifyChain(t.Context(), filepath.Join(backups, n), Options{ChainKey: testKey})
			require.NoError(t, err)
		}
	}

	sealed, err := j.SealBackups(t.Context(), "001")
	require.Error(t, err, "the changed backup does not verify")
	assert.Contains(t, err.Error(), changed+": it does not verify, so it is left as it is")
	require.Len(t, sealed, 2)
	for _, n := range sealed {
		p := filepath.Join(backups, n)
		raw, err := os.ReadFile(p)
		require.NoError(t, err)
		assert.Empty(t, buyerLeaks(readable(t, raw)), "%s holds the buyer sealed", n)
		rep, err := VerifyFileWith(t.Context(), p, Options{ChainKey: testKey})
		require.NoError(t, err, n)
		assert.Equal(t, want[n].Events, rep.Events, n)
		assert.Equal(t, want[n].Numbers, rep.Numbers, n)
		b, err := Open(p, Options{ReadOnly: true, Create: CreateNever, ChainKey: testKey})
		require.NoError(t, err)
		o, v := readBuyer(t, b)
		require.NoError(t, b.Close())
		require.NotNil(t, o.Buyer)
		assert.Equal(t, sealBuyer.Name, o.Buyer.Name, "the buyer read back with the key")
		assert.Contains(t, string(v), sealBuyer.Phone)
		assert.NoFileExists(t, p+".sealing")
		assert.NoFileExists(t, p+".sealed")
	}
	assert.Contains(t, sealed, yearEnd)
	after, err := os.ReadFile(filepath.Join(backups, changed))
	require.NoError(t, err)
	assert.Equal(t, changedBytes, after, "the changed backup is left as it was")
	space, err = j.Archive.BackupSpace()
	require.NoError(t, err)
	assert.Equal(t, []string{changed}, space.Clear)

	last, err := j.Log.LastSeq(t.Context())
	require.NoError(t, err)
	ev, err := j.Log.Event(t.Context(), last)
	require.NoError(t, err)
	assert.Equal(t, EvBackupsSealed, ev.Kind)
	assert.Equal(t, "001", ev.Staff)
	var d backupsSealed
	require.NoError(t, json.Unmarshal(ev.Data, &d))
	assert.Equal(t, sealed, d.Files)
	require.NoError(t, j.Log.VerifyAll(t.Context()), "the journal with its new event verifies")

	// Nothing left to seal but the changed one: a second run seals nothing
	// and journals nothing.
	sealed, err = j.SealBackups(t.Context(), "001")
	require.Error(t, err)
	assert.Empty(t, sealed)
	again, err := j.Log.LastSeq(t.Context())
	require.NoError(t, err)
	assert.Equal(t, last, again)
}
