package journal

import (
	"bytes"
	"errors"
	"hash/crc32"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	bolt "go.etcd.io/bbolt"

	"galla/pos"
)

// busyJournal opens a journal in a fresh data directory with n busy days of
// 20 sales from 2026-11-01 (each closed by its Z report), its backups beside it.
func busyJournal(t *testing.T, n int) (*Journal, *script, string) {
	t.Helper()
	dir := t.TempDir()
	bdir := filepath.Join(dir, "backups")
	j, err := Open(filepath.Join(dir, "journal.db"), Options{BackupDir: bdir, Now: func() time.Time { return t0 }})
	require.NoError(t, err)
	t.Cleanup(func() { _ = j.Close() })
	s := &script{}
	for i := range n {
		appendAll(t, j, s.busyDay(time.Date(2026, 11, 1+i, 0, 0, 0, 0, time.UTC).Format(pos.DayLayout), 20, uint64(i+1)))
	}
	return j, s, bdir
}

// TestBackupIncrement: a day's backup after a base is an increment holding
// only the pages that changed, far smaller than the copy; it checks out, it is
// the newest backup, and the copy made of it with its base is byte for byte the
// full copy of the same moment, which restores to a journal of the same days.
func TestBackupIncrement(t *testing.T) {
	j, s, bdir := busyJournal(t, 12)
	ctx := t.Context()
	base, err := j.Archive.BackupDay("2026-11-12")
	require.NoError(t, err)
	assert.Equal(t, "journal-2026-11-12.db", filepath.Base(base), "the first backup is a base")
	require.FileExists(t, base+pagesSuffix, "with its page digests")
	require.NoError(t, j.Archive.VerifyBackup(ctx, base))
	require.NoError(t, os.Chtimes(base, t0, t0))

	appendAll(t, j, s.busyDay("2026-11-13", 20, 13))
	inc, err := j.Archive.BackupDay("2026-11-13")
	require.NoError(t, err)
	assert.Equal(t, "journal-2026-11-13.inc", filepath.Base(inc))
	var full bytes.Buffer
	require.NoError(t, j.Archive.Backup(&full), "the full copy of the same moment")
	require.NoError(t, j.Archive.VerifyBackup(ctx, inc))

	tr, _, err := readIncrement(inc)
	require.NoError(t, err)
	assert.Equal(t, "journal-2026-11-12.db", tr.Base)
	assert.Equal(t, int64(full.Len()), tr.Size)
	incInfo, err := os.Stat(inc)
	require.NoError(t, err)
	assert.Less(t, incInfo.Size(), int64(full.Len())/incMaxShare, "the pages of one day, not the file: %d pages of %d", tr.Pages, full.Len()/tr.PageSize)
	assert.Greater(t, tr.Pages, 2, "the meta pages and the day's pages")

	latest, err := LatestBackup(bdir)
	require.NoError(t, err)
	assert.Equal(t, inc, latest, "the increment is the newest backup, offered for a restore")

	img := filepath.Join(t.TempDir(), "image.db")
	require.NoError(t, materialize(ctx, inc, img))
	got, err := os.ReadFile(img)
	require.NoError(t, err)
	assert.True(t, bytes.Equal(full.Bytes(), got), "base + increment = the full copy, byte for byte")

	// A journal that did not write the increment checks it through the
	// copy made of it.
	other, err := Open(filepath.Join(t.TempDir(), "journal.db"), Options{BackupDir: bdir, Create: CreateAnyway})
	require.NoError(t, err)
	defer other.Close()
	require.NoError(t, other.Archive.VerifyBackup(ctx, inc))
	left, err := filepath.Glob(filepath.Join(bdir, ".*"))
	require.NoError(t, err)
	assert.Empty(t, left, "the copy checked is removed")

	dst := filepath.Join(t.TempDir(), "data", "journal.db")
	require.NoError(t, Restore(ctx, inc, dst))
	r, err := Open(dst, Options{})
	require.NoError(t, err)
	defer r.Close()
	for _, day := range []string{"2026-11-01", "2026-11-13"} {
		want, err := j.Orders.OrdersByDay(ctx, day)
		require.NoError(t, err)
		have, err := r.Orders.OrdersByDay(ctx, day)
		require.NoError(t, err)
		assert.Equal(t, want, have, day)
	}
	_, err = os.Stat(dst + ".restoring")
	assert.ErrorIs(t, err, fs.ErrNotExist, "the copy made for the restore is removed")
}

// TestBackupIncrementChecked: the check of an increment is the check of the
// copy it stands for, run on the read transaction its pages were taken of: an
// event of the day damaged is found and named against the backup; an
// increment changed after it was written is found by its CRC.
func TestBackupIncrementChecked(t *testing.T) {
	j, s, _ := busyJournal(t, 10)
	ctx := t.Context()
	_, err := j.Archive.BackupDay("2026-11-10")
	require.NoError(t, err)
	appendAll(t, j, s.busyDay("2026-11-11", 20, 11))

	var seq uint64
	require.NoError(t, j.core.view(func(tx *bolt.Tx) error {
		cp, _, err := lastCheckpoint(tx)
		seq = cp.Seq - 5
		return err
	}))
	require.NoError(t, j.core.db.Update(func(tx *bolt.Tx) error {
		b := tx.Bucket(bucketEvents)
		v := append([]byte(nil), b.Get(u64(seq))...)
		v[len(v)-3] ^= 0x01
		return b.Put(u64(seq), v)
	}))
	inc, err := j.Archive.BackupDay("2026-11-11")
	require.NoError(t, err)
	require.True(t, isIncrement(inc))
	err = j.Archive.VerifyBackup(ctx, inc)
	require.ErrorIs(t, err, ErrDamaged)
	var ce *CorruptError
	require.ErrorAs(t, err, &ce)
	assert.Equal(t, seq, ce.Seq)
	assert.Equal(t, inc, ce.Path)

	t.Run("a byte of the increment", func(t *testing.T) {
		data, err := os.ReadFile(inc)
		require.NoError(t, err)
		data[len(incMagic)+8+100] ^= 0x5a
		require.NoError(t, os.WriteFile(inc, data, 0o600))
		assert.ErrorIs(t, j.Archive.VerifyBackup(ctx, inc), ErrDamaged)
	})
}

// TestRestoreIncrementRefused: an increment whose base is missing or
// changed, or which is damaged itself, is refused with a sentence naming what
// to restore instead, and the journal in place is left as it was.
func TestRestoreIncrementRefused(t *testing.T) {
	tests := []struct {
		name   string
		damage func(t *testing.T, inc, base string)
		want   string
	}{
		{"the base missing", func(t *testing.T, _, base string) {
			require.NoError(t, os.Rename(base, base+".moved"))
		}, "which is missing"},
		{"the base changed", func(t *testing.T, _, base string) {
			flipByte(t, base, 3*4096+17)
		}, "which has changed since"},
		{"a page of the increment", func(t *testing.T, inc, _ string) {
			flipByte(t, inc, len(incMagic)+8+40)
		}, "cannot be read"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			j, s, _ := busyJournal(t, 10)
			base, err := j.Archive.BackupDay("2026-11-10")
			require.NoError(t, err)
			appendAll(t, j, s.busyDay("2026-11-11", 20, 11))
			inc, err := j.Archive.BackupDay("2026-11-11")
			require.NoError(t, err)
			require.True(t, isIncrement(inc))
			require.NoError(t, j.Close())

			dst := j.core.path
			before, err := os.ReadFile(dst)
			require.NoError(t, err)
			tt.damage(t, inc, base)
			err = Restore(t.Context(), inc, dst)
			var ie *IncrementError
			require.ErrorAs(t, err, &ie)
			assert.Contains(t, err.Error(), tt.want)
			assert.Contains(t, err.Error(), "restore ")
			assert.Contains(t, pos.Sentence(err), "; nothing was changed.", "the sentence the command line prints")
			after, err := os.ReadFile(dst)
			require.NoError(t, err)
			assert.True(t, bytes.Equal(before, after), "the journal in place is untouched")
			aside, err := filepath.Glob(dst + damagedInfix + "*")
			require.NoError(t, err)
			assert.Empty(t, aside, "nothing set aside")
			left, err := filepath.Glob(filepath.Join(filepath.Dir(dst), "*.restoring*"))
			require.NoError(t, err)
			assert.Empty(t, left)
		})
	}
}

// flipByte changes the byte at off of the file at path.
func flipByte(t *testing.T, path string, off int) {
	t.Helper()
	data, err := os.ReadFile(path)
	require.NoError(t, err)
	data[off] ^= 0x5a
	require.NoError(t, os.WriteFile(path, data, 0o600))
}

// TestBackupNewBase: when more than a quarter of a copy no larger than a
// chunk changed since the base, or more than half of a larger one, the day's
// backup is a new base, and the next day's an increment of it.
func TestBackupNewBase(t *testing.T) {
	t.Run("a copy no larger than a chunk", func(t *testing.T) { testBackupNewBase(t, 0) })
	t.Run("a copy larger than a chunk", func(t *testing.T) { testBackupNewBase(t, 8192) })
}

func testBackupNewBase(t *testing.T, chunk int64) {
	j, s, bdir := busyJournal(t, 2)
	j.core.next.chunk = chunk
	first, err := j.Archive.BackupDay("2026-11-02")
	require.NoError(t, err)
	require.False(t, isIncrement(first))
	for i := 3; i <= 8; i++ {
		appendAll(t, j, s.busyDay(time.Date(2026, 11, i, 0, 0, 0, 0, time.UTC).Format(pos.DayLayout), 20, uint64(i)))
	}
	second, err := j.Archive.BackupDay("2026-11-08")
	require.NoError(t, err)
	assert.Equal(t, "journal-2026-11-08.db", filepath.Base(second), "three times the file since the base: a new base")
	require.FileExists(t, second+pagesSuffix)
	assert.NoFileExists(t, filepath.Join(bdir, nextPartial), "no next base being built of the base before")
	appendAll(t, j, s.busyDay("2026-11-09", 20, 9))
	third, err := j.Archive.BackupDay("2026-11-09")
	require.NoError(t, err)
	tr, _, err := readIncrement(third)
	require.NoError(t, err)
	assert.Equal(t, "journal-2026-11-08.db", tr.Base, "built on the newest base")
	require.NoError(t, j.Archive.VerifyBackup(t.Context(), third))
}

// writeIncrement writes a valid increment of no pages at path built on base
// (for the keeping rule, which reads only what an increment is built on).
func writeIncrement(t *testing.T, path, base string) {
	t.Helper()
	var b bytes.Buffer
	b.WriteString(incMagic)
	sum := crc32.New(backupCRC)
	sum.Write(b.Bytes())
	require.NoError(t, writeTrailer(&b, sum, incTrailer{Version: 1, Base: base, PageSize: 4096, Size: 8192}))
	require.NoError(t, os.WriteFile(path, b.Bytes(), 0o600))
	_, _, err := readIncrement(path)
	require.NoError(t, err)
}

// TestPruneKeepsBases: the keeping rule counts days, bases and increments
// alike, and a base that a kept day's increment is built on is kept with its
// digests, whatever its own day; a base no kept increment needs goes with its
// digests.
func TestPruneKeepsBases(t *testing.T) {
	dir := t.TempDir()
	bdir := filepath.Join(dir, "backups")
	j, err := Open(filepath.Join(dir, "journal.db"), Options{BackupDir: bdir})
	require.NoError(t, err)
	t.Cleanup(func() { _ = j.Close() })
	require.NoError(t, os.MkdirAll(bdir, 0o700))
	bases := map[string]string{ // base day: the last day of its increments
		"2026-08-20": "2026-09-14",
		"2026-09-15": "2026-10-31",
		"2026-11-01": "2026-11-26",
	}
	for b, last := range bases {
		name := "journal-" + b + ".db"
		require.NoError(t, os.WriteFile(filepath.Join(bdir, name), make([]byte, 1000), 0o600))
		require.NoError(t, os.WriteFile(filepath.Join(bdir, name+pagesSuffix), make([]byte, 100), 0o600))
		days := everyDay(t, b, last)
		for _, d := range days[1:] {
			writeIncrement(t, filepath.Join(bdir, "journal-"+d+incSuffix), name)
		}
	}
	res, err := j.Archive.PruneBackups("2026-11-26")
	require.NoError(t, err)
	left, err := os.ReadDir(bdir)
	require.NoError(t, err)
	var names []string
	for _, e := range left {
		names = append(names, e.Name())
	}
	// Kept by the rule: 2026-11-13..26, the month-ends 2026-08-31,
	// 2026-09-30 and 2026-10-31 (increments of 2026-08-20 and 2026-09-15).
	for _, want := range []string{
		"journal-2026-11-13.inc", "journal-2026-11-26.inc", "journal-2026-10-31.inc", "journal-2026-09-30.inc", "journal-2026-08-31.inc",
		"journal-2026-08-20.db", "journal-2026-08-20.db.pages", // a kept month-end's base
		"journal-2026-09-15.db", "journal-2026-09-15.db.pages",
		"journal-2026-11-01.db", "journal-2026-11-01.db.pages",
	} {
		assert.Contains(t, names, want)
	}
	for _, gone := range []string{"journal-2026-11-12.inc", "journal-2026-09-16.inc", "journal-2026-08-21.inc"} {
		assert.NotContains(t, names, gone)
	}
	assert.Len(t, names, 14+3+3*2)
	assert.False(t, slices.Contains(res.Removed, "journal-2026-09-15.db"))
	assert.Equal(t, 14+3+3, res.Kept.Files, "a base's digests are part of it, not a file of their own")

	// With the month-ends of 2026-08 and 2026-09 no longer kept (a later
	// close), their bases go with their digests.
	res, err = j.Archive.PruneBackups("2028-11-01")
	require.NoError(t, err)
	assert.Contains(t, res.Removed, "journal-2026-08-20.db")
	_, err = os.Stat(filepath.Join(bdir, "journal-2026-08-20.db"+pagesSuffix))
	assert.ErrorIs(t, err, fs.ErrNotExist)
}

// TestBackupDataDir writes the day backup of a data directory's journal, keyed
// with its key, as the day before's close-day would have: a base with its page
// digests (scripts/bench-500k.sh gives its grown template yesterday's backup
// this way, with GALLA_BACKUP_DIR and GALLA_BACKUP_DAY, without a Z report).
// Without them it backs up a small grown data directory and checks that the
// next day's backup is an increment of that base.
//
// With GALLA_BACKUP_NEXT=1 it writes no backup but the next base of the
// newest base there, the copy of its newest backup all copied, so that the
// next close-day makes the day's base of it (the bench's BASE=1); with
// GALLA_BACKUP_NEXT_LEFT=2 too, all but its last two chunks, so that the next
// close-day copies a chunk and makes no base (CHUNK=1).
func TestBackupDataDir(t *testing.T) {
	dir, day := os.Getenv("GALLA_BACKUP_DIR"), os.Getenv("GALLA_BACKUP_DAY")
	bench := dir != ""
	if bench && os.Getenv("GALLA_BACKUP_NEXT") == "1" {
		nextAllButAChunk(t, dir)
		return
	}
	if !bench {
		dir, _ = keyedDataDir(t, 9)
		day = "2026-11-26"
		growDataDir(t, dir, 1500, 1, time.Date(2026, 11, 27, 10, 0, 0, 0, time.UTC))
	}
	key := dataDirKey(t, dir)
	require.NotNil(t, key, "%s holds no journal key", dir)
	j, err := Open(filepath.Join(dir, "journal.db"), Options{Create: CreateNever, ChainKey: key})
	require.NoError(t, err)
	defer j.Close()
	path, err := j.Archive.BackupDay(day)
	require.NoError(t, err)
	require.NoError(t, j.Archive.VerifyBackup(t.Context(), path))
	if bench {
		t.Logf("%s written", path)
		return
	}
	assert.Equal(t, "journal-"+day+".db", filepath.Base(path))
	next, err := j.Archive.BackupDay("2026-11-27")
	require.NoError(t, err)
	assert.True(t, isIncrement(next), "the next day's backup: %s", next)
	require.NoError(t, j.Archive.VerifyBackup(t.Context(), next))
}

// TestSalvageFromIncrement: salvage takes the events of an increment, read
// as the copy it stands for with its base, where the damaged file lost them.
func TestSalvageFromIncrement(t *testing.T) {
	j, s, _ := busyJournal(t, 10)
	_, err := j.Archive.BackupDay("2026-11-10")
	require.NoError(t, err)
	appendAll(t, j, s.busyDay("2026-11-11", 20, 11))
	inc, err := j.Archive.BackupDay("2026-11-11")
	require.NoError(t, err)
	require.True(t, isIncrement(inc))
	n, err := j.Numbers()
	require.NoError(t, err)
	require.NoError(t, j.Close())
	path := j.core.path
	info, err := os.Stat(path)
	require.NoError(t, err)
	require.NoError(t, os.Truncate(path, info.Size()/2))

	out := filepath.Join(t.TempDir(), "salvaged.db")
	rep, err := Salvage(t.Context(), path, inc, out)
	require.NoError(t, err)
	assert.Positive(t, rep.FromBackup, "events found only in the increment's copy")
	assert.Equal(t, n.Z, rep.Numbers.Z, "the Z report of the day the increment holds")
	_, err = os.Stat(out + ".backup")
	assert.ErrorIs(t, err, fs.ErrNotExist, "the copy read is removed")
}

// TestSealBackupsKeepsABase: a backup in clear that increments are built on
// is not rewritten (its pages would no longer be those they were taken
// against): seal-backups leaves it, naming them, and seals the others.
func TestSealBackupsKeepsABase(t *testing.T) {
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
	base, other := backupPrefix+"2026-03-31"+backupSuffix, backupPrefix+"2026-02-28"+backupSuffix
	require.NoError(t, copyFile(path, filepath.Join(backups, base)))
	require.NoError(t, copyFile(path, filepath.Join(backups, other)))
	writeIncrement(t, filepath.Join(backups, "journal-2026-04-01"+incSuffix), base)
	baseBytes, err := os.ReadFile(filepath.Join(backups, base))
	require.NoError(t, err)

	j, err = Open(path, Options{ChainKey: testKey})
	require.NoError(t, err)
	defer j.Close()
	sealed, err := j.SealBackups(t.Context(), "001")
	require.Error(t, err)
	assert.Contains(t, err.Error(), base+": it is the base of the backups journal-2026-04-01.inc, so it is left as it is")
	assert.Contains(t, sealed, other)
	assert.NotContains(t, sealed, base)
	after, err := os.ReadFile(filepath.Join(backups, base))
	require.NoError(t, err)
	assert.Equal(t, baseBytes, after, "the base is left as it was")
}

// TestPageStream: the pages handed on and the bytes written through are the
// copy's, whatever the chunks Tx.WriteTo writes in; a copy that ends inside a
// page is refused.
func TestPageStream(t *testing.T) {
	const size = 64
	data := make([]byte, 10*size)
	for i := range data {
		data[i] = byte(i * 7)
	}
	for _, chunk := range []int{1, 13, size, 3 * size, 3*size + 5, len(data)} {
		var pages [][]byte
		var ids []uint64
		var tee bytes.Buffer
		s := newPageStream(size, func(uint64, uint64) bool { return true }, func(id uint64, p []byte) error {
			ids = append(ids, id)
			pages = append(pages, bytes.Clone(p))
			return nil
		})
		s.tee = &tee
		for off := 0; off < len(data); off += chunk {
			_, err := s.Write(data[off:min(off+chunk, len(data))])
			require.NoError(t, err)
		}
		require.NoError(t, s.close(), "chunk %d", chunk)
		assert.Equal(t, []uint64{0, 1, 2, 3, 4, 5, 6, 7, 8, 9}, ids, "chunk %d", chunk)
		assert.Equal(t, data, bytes.Join(pages, nil), "chunk %d", chunk)
		assert.Equal(t, data, tee.Bytes(), "chunk %d", chunk)
		assert.Equal(t, crc32.Checksum(data, backupCRC), s.crc)
	}
	s := newPageStream(size, nil, nil)
	_, err := s.Write(data[:size+1])
	require.NoError(t, err)
	assert.Error(t, s.close(), "a copy that ends inside a page")
}

// writtenBytes is what this process has written so far through write
// system calls (wchar of /proc/self/io): what a backup writes, counted by
// the kernel, whatever the code path.
func writtenBytes(t *testing.T) int64 { return ioBytes(t, "wchar") }

// readBytes is what this process has read so far through read system calls
// (rchar of /proc/self/io).
func readBytes(t *testing.T) int64 { return ioBytes(t, "rchar") }

// ioBytes is the count named field of /proc/self/io.
func ioBytes(t *testing.T, field string) int64 {
	t.Helper()
	data, err := os.ReadFile("/proc/self/io")
	if errors.Is(err, fs.ErrNotExist) && runtime.GOOS != "linux" {
		t.Skip("no /proc/self/io to count the bytes read and written")
	}
	require.NoError(t, err)
	for line := range strings.Lines(string(data)) {
		if v, ok := strings.CutPrefix(line, field+": "); ok {
			n, err := strconv.ParseInt(strings.TrimSpace(v), 10, 64)
			require.NoError(t, err)
			return n
		}
	}
	t.Fatalf("/proc/self/io has no %s", field)
	return 0
}

// changedPages counts the pages of the copy (its digests now) that differ
// from the base's (was): the pages of the increment of the copy.
// digestsOf returns the digest of each page of the copy data.
func digestsOf(data []byte) []uint64 {
	out := make([]uint64, 0, len(data)/4096)
	for i := 0; i+4096 <= len(data); i += 4096 {
		out = append(out, pageDigest(data[i:i+4096]))
	}
	return out
}

func changedPages(was, now []uint64) int {
	n := 0
	for i, d := range now {
		if i >= len(was) || was[i] != d {
			n++
		}
	}
	return n
}

// dayOf is the day i of November 2026.
func dayOf(i int) string {
	return time.Date(2026, 11, i, 0, 0, 0, 0, time.UTC).Format(pos.DayLayout)
}

// TestNextBaseBuilt: on a journal larger than a chunk, no close-day writes
// the whole file once it has a base. The next base is copied from the base a
// chunk a close-day once the day's increment holds an eighth of the copy;
// every close-day writes at most the chunk and its increment (on the day the
// base is made, the pages the increment would hold, written over the copy,
// and the page digests), counted by the kernel. The base made is byte for byte
// the copy of the day it is made on; it checks out, restores, verifies whole,
// and the next day's increment is built on it, while the base before is kept
// for the increments built on it.
func TestNextBaseBuilt(t *testing.T) {
	j, s, bdir := busyJournal(t, 10)
	ctx := t.Context()
	first, err := j.Archive.BackupDay(dayOf(10))
	require.NoError(t, err)
	assert.Equal(t, "journal-2026-11-10.db", filepath.Base(first), "the first backup of a counter is the whole file")
	info, err := os.Stat(first)
	require.NoError(t, err)
	j.core.next.chunk = info.Size() / 3
	chunk := j.Archive.nextChunk(4096)
	_, bt, err := readDigests(first)
	require.NoError(t, err)
	require.Greater(t, bt.Size, 2*chunk)
	before := digestsOf(copyNow(t, j)) // the copy of the day before

	built, building := "", 0
	i := 11
	for ; i <= 25 && built == ""; i++ {
		appendAll(t, j, s.busyDay(dayOf(i), 20, uint64(i)))
		w0 := writtenBytes(t)
		path, err := j.Archive.BackupDay(dayOf(i))
		written := writtenBytes(t) - w0
		require.NoError(t, err)
		if isIncrement(path) {
			inc, err := os.Stat(path)
			require.NoError(t, err)
			// The increment, a chunk, the day's pages written into the
			// partial too, its state.
			assert.LessOrEqual(t, written, 2*inc.Size()+chunk+8<<10, "%s: %d bytes written; the increment is %d, a chunk %d", dayOf(i), written, inc.Size(), chunk)
			before = digestsOf(copyNow(t, j))
			tr, _, err := readIncrement(path)
			require.NoError(t, err)
			assert.Equal(t, filepath.Base(first), tr.Base)
			if _, err := os.Stat(filepath.Join(bdir, nextState)); err == nil {
				building++
			}
			require.NoError(t, j.Archive.VerifyBackup(ctx, path))
			continue
		}
		built = path
		var full bytes.Buffer
		require.NoError(t, j.Archive.Backup(&full), "the copy of the same moment")
		got, err := os.ReadFile(built)
		require.NoError(t, err)
		require.True(t, bytes.Equal(full.Bytes(), got), "the base made over %d close-days is byte for byte the copy of %s", building+1, dayOf(i))
		now, pt, err := readDigests(built)
		require.NoError(t, err, "with its page digests")
		assert.Equal(t, crc32.Checksum(full.Bytes(), backupCRC), pt.CRC)
		// The last chunk, the day's pages (its increment, removed, and
		// the same written into the partial) and the digests: not the
		// pages changed since the base before.
		pages := changedPages(before, now)
		bound := chunk + int64(2*pages*(4096+8)+24*len(now)+len(pagesMagic)+512) + 8<<10
		assert.LessOrEqual(t, written, bound, "%s: %d bytes written: a chunk %d, the %d pages of the day and the digests", dayOf(i), written, chunk, pages)
		assert.Less(t, written, int64(full.Len()), "less than the file")
		require.NoError(t, j.Archive.VerifyBackup(ctx, built))
	}
	require.NotEmpty(t, built, "a base made by %s", dayOf(i-1))
	assert.GreaterOrEqual(t, building, 3, "copied over several close-days")
	assert.Equal(t, "journal-"+dayOf(i-1)+".db", filepath.Base(built))
	for _, gone := range []string{nextPartial, nextState, "journal-" + dayOf(i-1) + incSuffix} {
		assert.NoFileExists(t, filepath.Join(bdir, gone), "%s: the day's increment is held by the base", gone)
	}
	log, err := os.ReadFile(filepath.Join(bdir, backupLog))
	require.NoError(t, err)
	assert.Contains(t, string(log), nextPartial+" started: the copy of the day, ")
	assert.Contains(t, string(log), " pages of the copy of journal-2026-11-11.inc differ from journal-2026-11-10.db")
	assert.Contains(t, string(log), filepath.Base(built)+" made the day's base from "+nextPartial+" (copied since 2026-11-12, the chain of journal-2026-11-10.db)")
	latest, err := LatestBackup(bdir)
	require.NoError(t, err)
	assert.Equal(t, built, latest)
	space, err := j.Archive.BackupSpace()
	require.NoError(t, err)
	assert.Equal(t, i-10, space.Files, "the bases and the increments, not the log")

	// The base made is a full backup as any other: checked whole and
	// restored.
	rep, err := VerifyFile(ctx, built)
	require.NoError(t, err)
	assert.Positive(t, rep.Events)
	dst := filepath.Join(t.TempDir(), "data", "journal.db")
	require.NoError(t, Restore(ctx, built, dst))
	r, err := Open(dst, Options{})
	require.NoError(t, err)
	for _, day := range []string{dayOf(1), dayOf(i - 1)} {
		want, err := j.Orders.OrdersByDay(ctx, day)
		require.NoError(t, err)
		have, err := r.Orders.OrdersByDay(ctx, day)
		require.NoError(t, err)
		assert.Equal(t, want, have, day)
	}
	require.NoError(t, r.Close())

	// The next day's backup is an increment of it; the base before is kept
	// while the kept increments are built on it.
	appendAll(t, j, s.busyDay(dayOf(i), 20, uint64(i)))
	next, err := j.Archive.BackupDay(dayOf(i))
	require.NoError(t, err)
	tr, _, err := readIncrement(next)
	require.NoError(t, err)
	assert.Equal(t, filepath.Base(built), tr.Base)
	require.NoError(t, j.Archive.VerifyBackup(ctx, next))
	var full bytes.Buffer
	require.NoError(t, j.Archive.Backup(&full))
	img := filepath.Join(t.TempDir(), "image.db")
	require.NoError(t, materialize(ctx, next, img))
	got, err := os.ReadFile(img)
	require.NoError(t, err)
	assert.True(t, bytes.Equal(full.Bytes(), got), "the made base + the next increment = the copy")
	_, err = j.Archive.PruneBackups(dayOf(i))
	require.NoError(t, err)
	assert.FileExists(t, first, "the base before, which kept increments are built on")
	assert.FileExists(t, first+pagesSuffix)
	_, err = j.Archive.PruneBackups("2027-01-10")
	require.NoError(t, err)
	assert.NoFileExists(t, first, "no kept increment needs it")
	assert.FileExists(t, built, "the month-end's base")

	// Salvage reads an increment of the made base.
	require.NoError(t, j.Close())
	require.NoError(t, os.Truncate(j.core.path, info.Size()/2))
	out := filepath.Join(t.TempDir(), "salvaged.db")
	sr, err := Salvage(ctx, j.core.path, next, out)
	require.NoError(t, err)
	assert.Positive(t, sr.FromBackup)
}

// checkBackupsRestorable checks that every backup in bdir is what it says:
// an increment makes its copy with its base, a base is the file its digests
// were taken of, a full copy without digests checks out whole.
func checkBackupsRestorable(t *testing.T, bdir string) {
	t.Helper()
	ctx := t.Context()
	all, err := Backups(bdir)
	require.NoError(t, err)
	require.NotEmpty(t, all)
	for _, b := range all {
		switch {
		case isIncrement(b):
			require.NoError(t, materialize(ctx, b, filepath.Join(t.TempDir(), "copy.db")), b)
		default:
			if _, pt, err := readDigests(b); err == nil {
				require.NoError(t, checkCRC(ctx, b, pt.CRC), b)
				continue
			}
			_, err := VerifyFile(ctx, b)
			require.NoError(t, err, b)
		}
	}
}

// nextBaseTemplate is a data directory, its journal closed, of 10 busy
// days with their first backup (a base); with started, days 11 and 12 closed
// as well, the second of which started the next base (half the base a
// close-day).
// The script that wrote it comes with it.
func nextBaseTemplate(t *testing.T, started bool) (string, script) {
	t.Helper()
	j, s, bdir := busyJournal(t, 10)
	first, err := j.Archive.BackupDay(dayOf(10))
	require.NoError(t, err)
	require.False(t, isIncrement(first))
	if started {
		j.core.next.chunk = halfBase(t, bdir)
		for i := 11; i <= 12; i++ {
			appendAll(t, j, s.busyDay(dayOf(i), 20, uint64(i)))
			inc, err := j.Archive.BackupDay(dayOf(i))
			require.NoError(t, err)
			require.True(t, isIncrement(inc))
		}
		require.FileExists(t, filepath.Join(bdir, nextState), "the next base started")
	}
	require.NoError(t, j.Close())
	return filepath.Dir(j.core.path), *s
}

// halfBase is a chunk a little over half the first base in bdir.
func halfBase(t *testing.T, bdir string) int64 {
	t.Helper()
	info, err := os.Stat(filepath.Join(bdir, "journal-2026-11-10.db"))
	require.NoError(t, err)
	return info.Size()/2 + 4096
}

// openCopy opens a copy of the data directory tmpl (nextBaseTemplate), its
// chunk half its first base, and returns it and its backups directory.
func openCopy(t *testing.T, tmpl string) (*Journal, string) {
	t.Helper()
	dir := t.TempDir()
	require.NoError(t, filepath.WalkDir(tmpl, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(tmpl, path)
		if err != nil {
			return err
		}
		if d.IsDir() {
			return os.MkdirAll(filepath.Join(dir, rel), 0o700)
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		return os.WriteFile(filepath.Join(dir, rel), data, 0o600)
	}))
	bdir := filepath.Join(dir, "backups")
	j, err := Open(filepath.Join(dir, "journal.db"), Options{BackupDir: bdir, Now: func() time.Time { return t0 }})
	require.NoError(t, err)
	t.Cleanup(func() { _ = j.Close() })
	j.core.next.chunk = halfBase(t, bdir)
	return j, bdir
}

// TestNextBaseStopped: a close-day stopped at any step of building the next
// base (a crash, simulated) leaves every backup restorable; the close-days
// after go on, discarding a partial they cannot use with a line, and make a
// base that is the copy of its day.
func TestNextBaseStopped(t *testing.T) {
	tmpl, s := nextBaseTemplate(t, false)
	for _, step := range []string{"chunk", "state removed", "pages written", "renamed", "digests"} {
		t.Run(step, func(t *testing.T) {
			j, bdir := openCopy(t, tmpl)
			s := s
			stopped := false
			j.core.next.stop = func(at string) bool {
				if at == step && !stopped {
					stopped = true
					return true
				}
				return false
			}
			i := 11
			for ; !stopped; i++ {
				require.Less(t, i, 15, "the step %q was reached", step)
				appendAll(t, j, s.busyDay(dayOf(i), 20, uint64(i)))
				if _, err := j.Archive.BackupDay(dayOf(i)); err != nil {
					require.ErrorIs(t, err, errStopped)
				}
			}
			// The process ends there; another opens the journal.
			require.NoError(t, j.Close())
			checkBackupsRestorable(t, bdir)
			j, err := Open(j.core.path, Options{BackupDir: bdir, Now: func() time.Time { return t0 }})
			require.NoError(t, err)
			defer j.Close()
			j.core.next.chunk = halfBase(t, bdir)

			built := ""
			for ; i <= 22 && built == ""; i++ {
				appendAll(t, j, s.busyDay(dayOf(i), 20, uint64(i)))
				path, err := j.Archive.BackupDay(dayOf(i))
				require.NoError(t, err)
				require.NoError(t, j.Archive.VerifyBackup(t.Context(), path))
				if !isIncrement(path) {
					built = path
				}
			}
			if built == "" {
				log, _ := os.ReadFile(filepath.Join(bdir, backupLog))
				t.Logf("log:\n%s", log)
			}
			require.NotEmpty(t, built, "a base made after the stop")
			var full bytes.Buffer
			require.NoError(t, j.Archive.Backup(&full))
			got, err := os.ReadFile(built)
			require.NoError(t, err)
			assert.True(t, bytes.Equal(full.Bytes(), got), "the base made is the copy of its day")
			checkBackupsRestorable(t, bdir)
			log, err := os.ReadFile(filepath.Join(bdir, backupLog))
			require.NoError(t, err)
			switch step {
			case "state removed":
				assert.Contains(t, string(log), nextPartial+" discarded: its state is missing")
			case "pages written":
				assert.Contains(t, string(log), nextPartial+" discarded: a close-day stopped while it wrote it")
			}
		})
	}
}

// TestNextBaseDiscarded: a partial that is damaged, missing or cut short, or
// whose state is damaged, is discarded with a line and the close-day's
// backup is the day's increment (the building starts again); a base found
// damaged when the day's slice of it is read again gets a base written
// whole. Why the
// partial was discarded reaches the close-day's prune of the backups, which
// the Z report's note carries, for that day only.
func TestNextBaseDiscarded(t *testing.T) {
	tests := []struct {
		name   string
		damage func(t *testing.T, bdir, base string)
		line   string
		why    string // the start of why PruneBackups says it was discarded
		whole  bool   // the day's backup is a base written whole
	}{
		// Read back the day after it was copied, when the day's slice
		// holds it (scrubSlice).
		{"a byte of the partial", func(t *testing.T, bdir, _ string) {
			flipByte(t, filepath.Join(bdir, nextPartial), 3*4096+17)
		}, "discarded: page 3 of it is not the one copied", "page 3 of it is not the one copied", false},
		{"the partial missing", func(t *testing.T, bdir, _ string) {
			require.NoError(t, os.Remove(filepath.Join(bdir, nextPartial)))
		}, "discarded: it holds fewer bytes than the", "it holds fewer bytes than the", false},
		{"the partial cut short", func(t *testing.T, bdir, _ string) {
			require.NoError(t, os.Truncate(filepath.Join(bdir, nextPartial), 4096))
		}, "discarded: it holds fewer bytes than the", "it holds fewer bytes than the", false},
		{"its state damaged", func(t *testing.T, bdir, _ string) {
			flipByte(t, filepath.Join(bdir, nextState), 10)
		}, "discarded: its state cannot be read", "its state cannot be read", false},
		{"its state of an earlier Galla", func(t *testing.T, bdir, _ string) {
			st, err := readNextState(bdir)
			require.NoError(t, err)
			st.Version = 1
			require.NoError(t, writeNextState(bdir, st))
		}, "discarded: its state cannot be read (it holds the bytes of a base, as an earlier Galla built it)", "its state cannot be read", false},
		// The day's increment continues the day before's, not the one
		// whose copy the partial is.
		{"the increment it is the copy of missing", func(t *testing.T, bdir, _ string) {
			require.NoError(t, os.Remove(filepath.Join(bdir, "journal-2026-11-12.inc")))
		}, "discarded: it is the copy of journal-2026-11-12.inc, which the day's backup does not continue", "it is the copy of journal-2026-11-12.inc", false},
		// Read again on the day its slice holds it.
		{"the base damaged", func(t *testing.T, bdir, base string) {
			info, err := os.Stat(base)
			require.NoError(t, err)
			off, n := scrubSlice(dayOf(13), info.Size(), halfBase(t, bdir)/4096*4096)
			flipByte(t, base, int(off+n)-4096+10)
		}, "journal-2026-11-10.db is damaged (page ", "page ", true},
	}
	tmpl, s := nextBaseTemplate(t, true)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			j, bdir := openCopy(t, tmpl)
			s := s
			tt.damage(t, bdir, filepath.Join(bdir, "journal-2026-11-10.db"))
			appendAll(t, j, s.busyDay(dayOf(13), 20, 13))
			path, err := j.Archive.BackupDay(dayOf(13))
			require.NoError(t, err, "the close-day goes on")
			require.NoError(t, j.Archive.VerifyBackup(t.Context(), path))
			if tt.whole {
				assert.Equal(t, "journal-2026-11-13.db", filepath.Base(path))
				var full bytes.Buffer
				require.NoError(t, j.Archive.Backup(&full))
				got, err := os.ReadFile(path)
				require.NoError(t, err)
				assert.True(t, bytes.Equal(full.Bytes(), got))
			} else {
				assert.Equal(t, "journal-2026-11-13.inc", filepath.Base(path), "the day's increment")
				require.NoError(t, materialize(t.Context(), path, filepath.Join(t.TempDir(), "copy.db")))
			}
			if tt.whole {
				assert.NoFileExists(t, filepath.Join(bdir, nextPartial))
			}
			log, err := os.ReadFile(filepath.Join(bdir, backupLog))
			require.NoError(t, err)
			assert.Contains(t, string(log), tt.line)

			p, err := j.Archive.PruneBackups(dayOf(13))
			require.NoError(t, err)
			require.Len(t, p.Discarded, 1, "PruneBackups(%s).Discarded", dayOf(13))
			assert.True(t, strings.HasPrefix(p.Discarded[0], tt.why), "PruneBackups(%s).Discarded = %q; want it to begin %q", dayOf(13), p.Discarded[0], tt.why)
			assert.Contains(t, p.Line(), "The next base being built from the backups was discarded: "+tt.why, "the Z report's line")
			p, err = j.Archive.PruneBackups(dayOf(14))
			require.NoError(t, err)
			assert.Empty(t, p.Discarded, "a day whose backup discarded nothing")
		})
	}
}

// nextAllButAChunk writes, in the data directory dir, the next base of the
// newest base of its backups: the copy of its newest backup (its newest
// increment's, or the base's own), its last GALLA_BACKUP_NEXT_LEFT chunks
// (none unless set) left to copy.
func nextAllButAChunk(t *testing.T, dir string) {
	bdir := filepath.Join(dir, defaultBackupDir)
	base, digests, bt, err := newestBase(bdir, "9999-12-31")
	require.NoError(t, err)
	require.NotEmpty(t, base, "%s holds no base", bdir)
	left := int64(0)
	if v := os.Getenv("GALLA_BACKUP_NEXT_LEFT"); v != "" {
		n, err := strconv.ParseInt(v, 10, 64)
		require.NoError(t, err, "GALLA_BACKUP_NEXT_LEFT")
		left = n
	}
	// The copy the next day's increment continues: the newest increment's
	// of the base, or the base's own (continueFrom).
	src, name, crc := base, filepath.Base(base), bt.CRC
	if prev := (&Archive{&journalCore{backupDir: bdir}}).continueFrom(t.Context(), "9999-12-31", base, bt, digests); prev != nil {
		name, crc = prev.name, prev.t.CRC
		src = filepath.Join(t.TempDir(), "copy.db")
		require.NoError(t, materialize(t.Context(), filepath.Join(bdir, name), src))
	}
	data, err := os.ReadFile(src)
	require.NoError(t, err)
	chunk := (&Archive{&journalCore{}}).nextChunk(bt.PageSize)
	require.Greater(t, int64(len(data)), left*chunk, "a copy larger than the chunks left")
	copied := int64(len(data)) - left*chunk
	require.NoError(t, os.WriteFile(filepath.Join(bdir, nextPartial), data[:copied], 0o600))
	st := nextTrailer{Version: 2, Base: filepath.Base(base), BaseSize: bt.Size, BaseCRC: bt.CRC, PageSize: bt.PageSize,
		Copied: copied, Started: "2026-11-01", Copy: name, CopyCRC: crc}
	require.NoError(t, writeNextState(bdir, st))
	t.Logf("%s: %d of %d bytes of the copy of %s", nextPartial, st.Copied, len(data), name)
}
