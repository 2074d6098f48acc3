package journal

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	bolt "go.etcd.io/bbolt"

	"galla/pos"
)

// TestVerifyBackupBounded: the day's backup is checked from the checkpoint
// before the Z that sealed it, and damage is still found: any byte of the file
// changed after it was written (the CRC of what was written, the days before
// too), an event of the day, or a derived record the day wrote.
func TestVerifyBackupBounded(t *testing.T) {
	dir := t.TempDir()
	bdir := filepath.Join(dir, "backups")
	j, err := Open(filepath.Join(dir, "journal.db"), Options{BackupDir: bdir})
	require.NoError(t, err)
	t.Cleanup(func() { _ = j.Close() })
	var s script
	for i, day := range []string{"2026-11-20", "2026-11-21", "2026-11-22"} {
		appendAll(t, j, s.busyDay(day, 20, uint64(i+1)))
	}
	ctx := t.Context()
	path, err := j.Archive.BackupDay("2026-11-22")
	require.NoError(t, err)
	require.NoError(t, j.Archive.VerifyBackup(ctx, path), "a good backup")

	var firstOfDay, lastSeq uint64 // the events of the day the last Z sealed
	err = j.core.view(func(tx *bolt.Tx) error {
		cp, _, err := lastCheckpoint(tx)
		prev, _, err2 := checkpointBefore(tx, cp.ZNo)
		require.NoError(t, err)
		require.NoError(t, err2)
		firstOfDay, lastSeq = prev.Seq+1, cp.Seq
		return nil
	})
	require.NoError(t, err)
	require.Greater(t, lastSeq, firstOfDay)

	original, err := os.ReadFile(path)
	require.NoError(t, err)
	restore := func() { require.NoError(t, os.WriteFile(path, original, 0o600)) }

	t.Run("a byte of an old page", func(t *testing.T) {
		t.Cleanup(restore)
		data := append([]byte(nil), original...)
		page := os.Getpagesize()
		// Past the two meta pages, in the middle of a page of the first day.
		data[4*page+100] ^= 0x5a
		require.NoError(t, os.WriteFile(path, data, 0o600))
		assert.ErrorIs(t, j.Archive.VerifyBackup(ctx, path), ErrDamaged)
	})

	// A copy this journal did not write has no CRC to compare: its check is
	// the chain and the records of the day alone.
	edit := func(t *testing.T, fn func(tx *bolt.Tx) error) string {
		t.Helper()
		other := filepath.Join(dir, "other.db")
		require.NoError(t, os.WriteFile(other, original, 0o600))
		db, err := bolt.Open(other, 0o600, nil)
		require.NoError(t, err)
		require.NoError(t, db.Update(fn))
		require.NoError(t, db.Close())
		return other
	}
	t.Run("the copy as written", func(t *testing.T) {
		other := edit(t, func(*bolt.Tx) error { return nil })
		assert.NoError(t, j.Archive.VerifyBackup(ctx, other))
	})
	t.Run("an event of the day", func(t *testing.T) {
		seq := (firstOfDay + lastSeq) / 2
		other := edit(t, func(tx *bolt.Tx) error {
			b := tx.Bucket(bucketEvents)
			v := append([]byte(nil), b.Get(u64(seq))...)
			v[len(v)-3] ^= 0x01
			return b.Put(u64(seq), v)
		})
		err := j.Archive.VerifyBackup(ctx, other)
		require.ErrorIs(t, err, ErrDamaged)
		var ce *CorruptError
		require.ErrorAs(t, err, &ce)
		assert.Equal(t, seq, ce.Seq)
	})
	t.Run("an order of the day", func(t *testing.T) {
		other := edit(t, func(tx *bolt.Tx) error {
			b := tx.Bucket(bucketOrders)
			id := []byte("G261122-0002") // a cash sale of the day
			v := b.Get(id)
			require.NotNil(t, v)
			return b.Put(id, append(append([]byte(nil), v[:len(v)-1]...), ' ', '}'))
		})
		assert.ErrorIs(t, j.Archive.VerifyBackup(ctx, other), ErrDerivedMismatch)
	})
	t.Run("an event of an earlier day is the full check's", func(t *testing.T) {
		// What makes the check bounded: the days before were checked with their
		// own backups; a copy without a CRC edited there passes this check, and
		// VerifyFile (galla journal verify) finds it.
		other := edit(t, func(tx *bolt.Tx) error {
			b := tx.Bucket(bucketEvents)
			v := append([]byte(nil), b.Get(u64(5))...)
			v[len(v)-3] ^= 0x01
			return b.Put(u64(5), v)
		})
		assert.NoError(t, j.Archive.VerifyBackup(ctx, other))
		_, err := VerifyFile(ctx, other)
		assert.ErrorIs(t, err, ErrDamaged)
	})
}

// TestReplayInBatches: the whole check's replay commits its temporary file in
// batches (so that its memory does not grow with the history) and still finds
// every record the events give, and a difference.
func TestReplayInBatches(t *testing.T) {
	j := openTest(t)
	var s script
	for i, day := range []string{"2026-11-20", "2026-11-21", "2026-11-22"} {
		appendAll(t, j, s.busyDay(day, 15, uint64(i+1)))
	}
	j.core.replayBatch = 7
	require.NoError(t, j.Log.checkDerived(t.Context()))
	require.NoError(t, j.core.db.Update(func(tx *bolt.Tx) error {
		b := tx.Bucket(bucketUnresolved)
		return b.Put(u64(3), []byte("G-NOT-AN-ORDER"))
	}))
	assert.ErrorIs(t, j.Log.checkDerived(t.Context()), ErrDerivedMismatch)
}

// TestVerifyBackupFromMark: a day closed after thousands of events without a
// Z report is checked from the mark the Open before its close left, not from
// the checkpoint before: an event after the mark is still found, one before
// it is the full check's (the Opens of the live journal walked it).
func TestVerifyBackupFromMark(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "journal.db")
	// Day 1 closed, days 2 and 3 (2 126 events) never: more than an Open walks
	// before it leaves its mark.
	n := bulkDays(t, path, 3000, 1000)
	j, err := Open(path, Options{BackupDir: filepath.Join(dir, "backups")})
	require.NoError(t, err)
	t.Cleanup(func() { _ = j.Close() })
	ctx := t.Context()
	var cpSeq, markSeq uint64
	require.NoError(t, j.core.view(func(tx *bolt.Tx) error {
		cp, _, err := lastCheckpoint(tx)
		require.NoError(t, err)
		m, _, found, err := j.Log.snapshotIn(tx, markVerified)
		require.NoError(t, err)
		require.True(t, found, "Open walked %d events and left its mark", n-cp.Seq)
		cpSeq, markSeq = cp.Seq, m.Seq
		return nil
	}))
	require.Equal(t, n, markSeq)

	nums, err := j.Numbers()
	require.NoError(t, err)
	s := script{receipt: nums.Receipt, at: t0}
	const day = "2026-01-04"
	evs := s.cashSale("G260104-0001", day, 49900)
	evs = append(evs, pos.Event{Kind: pos.EvDayClosed, Day: day, Time: s.next(), Staff: "001", DayClose: &pos.DayClose{Day: day, ZNo: nums.Z + 1}})
	appendAll(t, j, evs)
	backup, err := j.Archive.BackupDay(day)
	require.NoError(t, err)
	require.NoError(t, j.Archive.VerifyBackup(ctx, backup), "a good backup")
	original, err := os.ReadFile(backup)
	require.NoError(t, err)

	damaged := func(t *testing.T, seq uint64) string {
		t.Helper()
		other := filepath.Join(dir, "other.db")
		require.NoError(t, os.WriteFile(other, original, 0o600))
		db, err := bolt.Open(other, 0o600, nil)
		require.NoError(t, err)
		require.NoError(t, db.Update(func(tx *bolt.Tx) error {
			b := tx.Bucket(bucketEvents)
			v := append([]byte(nil), b.Get(u64(seq))...)
			v[len(v)-3] ^= 0x01
			return b.Put(u64(seq), v)
		}))
		require.NoError(t, db.Close())
		return other
	}
	t.Run("an event after the mark", func(t *testing.T) {
		err := j.Archive.VerifyBackup(ctx, damaged(t, markSeq+1))
		var ce *CorruptError
		require.ErrorAs(t, err, &ce)
		assert.Equal(t, markSeq+1, ce.Seq)
	})
	t.Run("an event between the checkpoint and the mark", func(t *testing.T) {
		other := damaged(t, cpSeq+10)
		assert.NoError(t, j.Archive.VerifyBackup(ctx, other), "walked by the Opens of the live journal")
		_, err := VerifyFile(ctx, other)
		assert.ErrorIs(t, err, ErrDamaged)
	})
}
