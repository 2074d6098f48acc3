package journal

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	bolt "go.etcd.io/bbolt"

	"galla/pos"
)

// TestBackupsWithCustomersInClearAreNamed: a counter upgraded from a build
// before schema 5 keeps, under the keeping rule, a year-end backup made by
// that build and the copy taken before the migration, both holding a buyer's
// name, phone, address and GSTIN in clear. The space of the backups (Settings)
// and the Z report's line of a day close name exactly those files and say
// what to do; the backups made since are sealed and not named.
func TestBackupsWithCustomersInClearAreNamed(t *testing.T) {
	path := filepath.Join(t.TempDir(), "data", "journal.db")
	j, err := Open(path, Options{ChainKey: testKey})
	require.NoError(t, err)
	// The build before sealing: the same journal, nothing sealed.
	j.core.rec.v, j.core.proofs.v = nil, nil
	var s script
	appendAll(t, j, s.representative(t))
	appendAll(t, j, buyerEvents(t, &s))
	require.NoError(t, j.Close())
	rawUpdate(t, path, func(tx *bolt.Tx) error {
		meta := tx.Bucket(bucketMeta)
		require.NoError(t, meta.Delete(metaSealed))
		return asSchema(tx, 4)
	})
	// That build's backup of the financial year's end.
	backups := filepath.Join(filepath.Dir(path), "backups")
	require.NoError(t, os.MkdirAll(backups, 0o700))
	yearEnd := backupPrefix + "2026-03-31" + backupSuffix
	require.NoError(t, copyFile(path, filepath.Join(backups, yearEnd)))

	// This build: the journal sealed at Open (a copy taken before), a day
	// backup made since.
	j, err = Open(path, Options{ChainKey: testKey})
	require.NoError(t, err)
	defer j.Close()
	_, err = j.Archive.BackupDay("2026-11-22")
	require.NoError(t, err)

	space, err := j.Archive.BackupSpace()
	require.NoError(t, err)
	entries, err := os.ReadDir(backups)
	require.NoError(t, err)
	copies := slices.DeleteFunc(slices.Clone(entries), func(e os.DirEntry) bool { return strings.HasSuffix(e.Name(), pagesSuffix) })
	require.Len(t, copies, 3, "the year end, the copy before the migration, today's (with its page digests beside it)")
	var clear []string
	for _, e := range entries {
		raw, err := os.ReadFile(filepath.Join(backups, e.Name()))
		require.NoError(t, err)
		if len(buyerLeaks(raw)) > 0 {
			clear = append(clear, e.Name())
		}
	}
	require.Len(t, clear, 2, "two files hold the buyer in clear")
	assert.Contains(t, clear, yearEnd)
	assert.True(t, slices.ContainsFunc(clear, func(n string) bool { return strings.HasPrefix(n, "journal-schema4-before-upgrade-") }))
	assert.Equal(t, clear, space.Clear, "exactly the files that hold them are named")

	res, err := j.Archive.PruneBackups("2026-11-22")
	require.NoError(t, err)
	assert.Empty(t, res.Removed, "the keeping rule keeps the year end")
	assert.Equal(t, clear, res.Kept.Clear)
	want := "2 backups (" + clear[0] + ", " + clear[1] + ") were made before the customers' details were sealed and hold them in clear: a manager seals them with galla journal seal-backups (docs/security.md)."
	assert.Equal(t, "Backups kept: 3 files, "+pos.SizeText(space.Bytes)+". "+want, res.Line())

	// Once they are gone, nothing is said.
	for _, n := range clear {
		require.NoError(t, os.Remove(filepath.Join(backups, n)))
	}
	space, err = j.Archive.BackupSpace()
	require.NoError(t, err)
	assert.Empty(t, space.Clear)
	assert.Empty(t, space.ClearText())
}
