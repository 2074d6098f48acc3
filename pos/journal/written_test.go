package journal

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	bolt "go.etcd.io/bbolt"

	"galla/pos"
)

// sinceOf returns the record's pages written since the newest base up to
// now, nil when it does not say.
func sinceOf(t *testing.T, j *Journal) *pageSet {
	t.Helper()
	base, _, bt, err := newestBase(j.core.backupDir, "9999-12-31")
	require.NoError(t, err)
	require.NotEmpty(t, base)
	var s *pageSet
	require.NoError(t, j.core.view(func(tx *bolt.Tx) error {
		s = j.core.written.since(tx, filepath.Base(base), bt)
		return nil
	}))
	return s
}

// changedSinceBase returns the pages of the journal, as of now, whose digest is
// not the newest base's: what the record must hold.
func changedSinceBase(t *testing.T, j *Journal) []uint64 {
	t.Helper()
	_, digests, _, err := newestBase(j.core.backupDir, "9999-12-31")
	require.NoError(t, err)
	var out []uint64
	require.NoError(t, j.core.view(func(tx *bolt.Tx) error {
		s := newPageStream(tx.DB().Info().PageSize, func(pgid, d uint64) bool {
			return pgid >= uint64(len(digests)) || digests[pgid] != d
		}, func(pgid uint64, _ []byte) error {
			if pgid > 1 {
				out = append(out, pgid)
			}
			return nil
		})
		_, err := tx.WriteTo(s)
		return err
	}))
	return out
}

// requireCovers fails unless every page changed since the base is in the
// record.
func requireCovers(t *testing.T, j *Journal) *pageSet {
	t.Helper()
	s := sinceOf(t, j)
	require.NotNil(t, s, "the record of the pages written since the base")
	changed := changedSinceBase(t, j)
	require.NotEmpty(t, changed)
	for _, id := range changed {
		require.True(t, s.has(id), "page %d changed since the base, and the record does not have it", id)
	}
	return s
}

// TestWrittenSinceBase: the record of the pages written since the base
// holds every page that differs from it, across appends, a refused append,
// a process that reopens the journal and a second day; the increment taken
// with it, reading only those pages, is byte for byte the one taken by
// reading the whole journal, and so is the next base made of it.
func TestWrittenSinceBase(t *testing.T) {
	j, s, bdir := busyJournal(t, 20)
	ctx := t.Context()
	_, err := j.Archive.BackupDay("2026-11-20")
	require.NoError(t, err)
	require.FileExists(t, writtenPath(j.core.path))

	appendAll(t, j, s.busyDay("2026-11-21", 10, 21))
	// A refused append rolls its transaction back: the next one has the
	// same id.
	commits := j.Commits()
	_, err = j.Log.Append(ctx, pos.Event{Kind: pos.EvPaymentOutcome, OrderID: "G-NO-SUCH-ORDER", Day: "2026-11-22"})
	require.Error(t, err)
	require.Equal(t, commits, j.Commits())
	appendAll(t, j, s.busyDay("2026-11-22", 5, 22))
	requireCovers(t, j)

	// Reopened, as each command of the command line does.
	path := j.core.path
	require.NoError(t, j.Close())
	j, err = Open(path, Options{BackupDir: bdir, Now: func() time.Time { return t0 }})
	require.NoError(t, err)
	t.Cleanup(func() { _ = j.Close() })
	appendAll(t, j, s.busyDay("2026-11-23", 10, 23))
	set := requireCovers(t, j)
	n := 0
	for id := range set.hw0 {
		if set.has(id) {
			n++
		}
	}
	assert.Less(t, n, int(set.hw0)/2, "the record holds the pages written, not the whole base")

	// The increment from the record and from the whole journal, of the
	// same snapshot.
	base, digests, bt, err := newestBase(bdir, "2026-11-23")
	require.NoError(t, err)
	withRecord := filepath.Join(t.TempDir(), "with.inc")
	_, err = j.Archive.backupIncrement(ctx, withRecord, base, digests, bt, nil, nil, false, 1<<40)
	require.NoError(t, err)
	kept := j.core.written
	j.core.written = nil
	whole := filepath.Join(t.TempDir(), "whole.inc")
	_, err = j.Archive.backupIncrement(ctx, whole, base, digests, bt, nil, nil, false, 1<<40)
	j.core.written = kept
	require.NoError(t, err)
	a, err := os.ReadFile(withRecord)
	require.NoError(t, err)
	b, err := os.ReadFile(whole)
	require.NoError(t, err)
	require.Equal(t, b, a, "the increment read from the record's pages")
	require.NoError(t, j.Archive.VerifyBackup(ctx, withRecord))

	// The close-day's own backup, restored, is the journal of that day.
	inc, err := j.Archive.BackupDay("2026-11-23")
	require.NoError(t, err)
	require.True(t, isIncrement(inc))
	full := copyNow(t, j)
	require.NoError(t, j.Archive.VerifyBackup(ctx, inc))
	requireStandsFor(t, inc, full)
}

// requireStandsFor fails unless the backup written last, made into its copy
// when an increment, is byte for byte full, the journal's copy taken right
// after it.
func requireStandsFor(t *testing.T, backup string, full []byte) {
	t.Helper()
	out := backup
	if isIncrement(backup) {
		out = filepath.Join(t.TempDir(), "restored.db")
		require.NoError(t, materialize(t.Context(), backup, out))
	}
	got, err := os.ReadFile(out)
	require.NoError(t, err)
	if !bytes.Equal(full, got) {
		t.Logf("sizes %d %d", len(full), len(got))
		for i := 0; i+4096 <= min(len(full), len(got)); i += 4096 {
			if !bytes.Equal(full[i:i+4096], got[i:i+4096]) {
				t.Logf("page %d differs", i/4096)
			}
		}
	}
	require.True(t, bytes.Equal(full, got), "%s stands for the day's copy, byte for byte", filepath.Base(backup))
}

// copyNow is the journal's full copy now.
func copyNow(t *testing.T, j *Journal) []byte {
	t.Helper()
	var full bytes.Buffer
	require.NoError(t, j.Archive.Backup(&full))
	return full.Bytes()
}

// TestWrittenNextBaseFromRecord: the next base made with the record (the
// journal's pages read only where written since the old base) is byte for
// byte the copy of its day, and the record starts again from it.
func TestWrittenNextBaseFromRecord(t *testing.T) {
	j, s, _ := busyJournal(t, 8)
	ctx := t.Context()
	j.Archive.next.chunk = 64 << 10
	_, err := j.Archive.BackupDay("2026-11-08")
	require.NoError(t, err)
	day := time.Date(2026, 11, 9, 0, 0, 0, 0, time.UTC)
	made, zno := "", uint64(0)
	for i := 0; i < 60 && made == ""; i++ {
		d := day.AddDate(0, 0, i).Format(pos.DayLayout)
		appendAll(t, j, s.busyDay(d, 40, uint64(9+i)))
		requireCovers(t, j)
		p, err := j.Archive.BackupDay(d)
		require.NoError(t, err)
		requireStandsFor(t, p, copyNow(t, j))
		require.NoError(t, j.Archive.VerifyBackup(ctx, p))
		if !isIncrement(p) {
			made = p
			zno = uint64(10 + i)
		}
	}
	require.NotEmpty(t, made, "a next base was made")
	require.FileExists(t, made+pagesSuffix)
	assert.NotNil(t, sinceOf(t, j), "the record of the new base")
	appendAll(t, j, s.busyDay("2027-01-20", 10, zno))
	requireCovers(t, j)
}

// TestWrittenDropped: a record that cannot be trusted is not used: one the
// journal was written past without it (a commit by bbolt alone, as a Galla
// that did not keep it), one of an older copy of the journal put back, and
// one cut short or changed. The close-day then reads the whole journal,
// its increment is right, and the record starts again from it.
func TestWrittenDropped(t *testing.T) {
	for _, c := range []struct {
		name  string
		spoil func(t *testing.T, path string)
	}{
		{"written past", func(t *testing.T, path string) {
			db, err := bolt.Open(path, 0o600, &bolt.Options{Timeout: time.Second})
			require.NoError(t, err)
			// Two commits: the first's pages come from a freelist the
			// record holds, the second's from one it never saw.
			for _, name := range []string{"elsewhere", "and again"} {
				require.NoError(t, db.Update(func(tx *bolt.Tx) error {
					_, err := tx.CreateBucketIfNotExists([]byte(name))
					return err
				}))
			}
			require.NoError(t, db.Close())
		}},
		{"older copy put back", nil},
		{"changed", func(t *testing.T, path string) {
			raw, err := os.ReadFile(writtenPath(path))
			require.NoError(t, err)
			raw[len(raw)-1] ^= 0x80
			require.NoError(t, os.WriteFile(writtenPath(path), raw, 0o600))
		}},
		{"cut short", func(t *testing.T, path string) {
			require.NoError(t, os.Truncate(writtenPath(path), writtenHeader+1))
		}},
	} {
		t.Run(c.name, func(t *testing.T) {
			j, s, bdir := busyJournal(t, 12)
			ctx := t.Context()
			_, err := j.Archive.BackupDay("2026-11-12")
			require.NoError(t, err)
			path := j.core.path
			then := *s
			older := map[string][]byte{}
			if c.spoil == nil {
				for _, p := range []string{path, HeadPath(path), NumbersPath(path)} {
					older[p], err = os.ReadFile(p)
					require.NoError(t, err)
				}
			}
			z := uint64(13)
			appendAll(t, j, s.busyDay("2026-11-13", 5, z))
			requireCovers(t, j)
			require.NoError(t, j.Close())
			if c.spoil != nil {
				c.spoil(t, path)
			} else {
				for p, b := range older {
					require.NoError(t, os.WriteFile(p, b, 0o600))
				}
				*s = then
				z-- // the day closed is no longer in the journal
			}
			j, err = Open(path, Options{BackupDir: bdir, Now: func() time.Time { return t0 }})
			require.NoError(t, err)
			defer j.Close()
			appendAll(t, j, s.busyDay("2026-11-14", 5, z+1))
			assert.Nil(t, sinceOf(t, j), "a record that cannot be trusted")
			inc, err := j.Archive.BackupDay("2026-11-14")
			require.NoError(t, err)
			require.True(t, isIncrement(inc), inc)
			requireStandsFor(t, inc, copyNow(t, j))
			require.NoError(t, j.Archive.VerifyBackup(ctx, inc))
			appendAll(t, j, s.busyDay("2026-11-15", 5, z+2))
			requireCovers(t, j)
		})
	}
}

// TestScrubFindsDamagedBase: a page of the newest base changed on the disk
// after it was written (or carried into a base made of a partial damaged
// after its pages were read back) is found by the close-days' reading of a
// slice of the base a day within as many close-days as the base has slices;
// that close-day's backup is a base written whole, with a line, and the
// backups kept from then on restore.
func TestScrubFindsDamagedBase(t *testing.T) {
	j, s, bdir := busyJournal(t, 12)
	ctx := t.Context()
	first, err := j.Archive.BackupDay(dayOf(12))
	require.NoError(t, err)
	require.False(t, isIncrement(first))
	info, err := os.Stat(first)
	require.NoError(t, err)
	j.core.next.chunk = 8 * 4096
	slices := (info.Size() + j.core.next.chunk - 1) / j.core.next.chunk
	page := info.Size()/4096 - 5
	flipByte(t, first, int(page)*4096+100)
	found, i := "", 13
	for ; i <= 13+int(slices) && found == ""; i++ {
		appendAll(t, j, s.busyDay(dayOf(i), 2, uint64(i)))
		p, err := j.Archive.BackupDay(dayOf(i))
		require.NoError(t, err)
		require.NoError(t, j.Archive.VerifyBackup(ctx, p))
		if !isIncrement(p) {
			found = p
		}
	}
	require.NotEmpty(t, found, "the damaged page found within %d close-days", slices)
	log, err := os.ReadFile(filepath.Join(bdir, backupLog))
	require.NoError(t, err)
	assert.Contains(t, string(log), fmt.Sprintf("journal-2026-11-12.db is damaged (page %d of journal-2026-11-12.db is not the one written)", page))
	requireStandsFor(t, found, copyNow(t, j))
	appendAll(t, j, s.busyDay(dayOf(i), 2, uint64(i)))
	p, err := j.Archive.BackupDay(dayOf(i))
	require.NoError(t, err)
	assert.True(t, isIncrement(p), "the next day's backup is an increment of the base written whole")
	requireStandsFor(t, p, copyNow(t, j))
}

// TestCloseDayReadsTheDay: with the record of the pages written since the
// base, a close-day's backup, its check and the pruning of the backups read
// what the day changed, not the journal nor every increment kept: the bytes
// read by system calls (rchar) are a fraction of the journal's size and of
// the increments', where reading the journal (without the record) costs at
// least its size.
func TestCloseDayReadsTheDay(t *testing.T) {
	j, s, bdir := busyJournal(t, 30)
	ctx := t.Context()
	j.core.next.chunk = 8 * 4096 // the day's slice of the base read again
	_, err := j.Archive.BackupDay(dayOf(30))
	require.NoError(t, err)
	var kept int64
	for i := 1; i <= 6; i++ {
		d := time.Date(2026, 12, i, 0, 0, 0, 0, time.UTC).Format(pos.DayLayout)
		appendAll(t, j, s.busyDay(d, 20, uint64(30+i)))
		p, err := j.Archive.BackupDay(d)
		require.NoError(t, err)
		require.True(t, isIncrement(p))
		info, err := os.Stat(p)
		require.NoError(t, err)
		kept += info.Size()
	}
	var size int64
	require.NoError(t, j.core.view(func(tx *bolt.Tx) error { size = tx.Size(); return nil }))
	appendAll(t, j, s.busyDay("2026-12-07", 2, 37))
	var pruned int64
	closeDay := func() int64 {
		r0 := readBytes(t)
		p, err := j.Archive.BackupDay("2026-12-07")
		require.NoError(t, err)
		require.NoError(t, j.Archive.VerifyBackup(ctx, p))
		r1 := readBytes(t)
		_, err = j.Archive.PruneBackups("2026-12-07")
		require.NoError(t, err)
		pruned = readBytes(t) - r1
		return readBytes(t) - r0
	}
	read := closeDay()
	assert.Less(t, read, size/2, "read %d bytes of a %d-byte journal", read, size)
	assert.Less(t, pruned, kept/20, "the prune read %d bytes with %d bytes of increments kept", pruned, kept)

	// Without the record, the close-day reads the whole journal.
	require.NoError(t, os.Remove(filepath.Join(bdir, "journal-2026-12-07.inc")))
	kept2 := j.core.written
	j.core.written = nil
	defer func() { j.core.written = kept2 }()
	assert.Greater(t, closeDay(), size*9/10, "the whole journal read")
}
