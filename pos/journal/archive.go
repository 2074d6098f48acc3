package journal

import (
	"context"
	"errors"
	"fmt"
	"hash"
	"hash/crc32"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	bolt "go.etcd.io/bbolt"
)

// backupPrefix and backupSuffix frame the day in a backup's file name:
// journal-2026-11-22.db.
const (
	backupPrefix = "journal-"
	backupSuffix = ".db"
)

// Archive copies the live file while the terminal keeps working (Backup,
// BackupTo, BackupDay at day close: pos.Backuper), finds the newest copy, and
// checks a copy whole (pos.BackupVerifier).
type Archive struct{ *journalCore }

// Backup writes a consistent copy of the whole journal file to w while the
// terminal keeps working (a hot backup through one read transaction). w is
// written inside that transaction, so it must not use this journal: a read
// begun there waits behind a write that grows the file, and that write waits
// for the transaction to end. A write to the journal waits for w as long as
// it needs the file grown.
func (bk *Archive) Backup(w io.Writer) error {
	if err := bk.backup(w); err != nil {
		return fmt.Errorf("journal: backup: %w", err)
	}
	return nil
}

// backup is Backup without the error's prefix.
func (bk *Archive) backup(w io.Writer) error {
	return bk.view(func(tx *bolt.Tx) error {
		_, err := tx.WriteTo(w)
		return err
	})
}

// BackupTo writes a hot backup to the file at path (mode 0600, its directory
// created 0700). It writes a temporary file beside it, syncs it and renames it
// into place, so path is either the old file or a complete new one. The CRC-32C
// of the bytes written is kept for VerifyBackup.
func (bk *Archive) BackupTo(path string) error {
	if err := bk.writeCopy(path, func(tx *bolt.Tx, w io.Writer) error {
		_, err := tx.WriteTo(w)
		return err
	}); err != nil {
		return fmt.Errorf("journal: backup: %w", err)
	}
	return nil
}

// summedWriter writes to w and adds what it wrote to sum. It reads what it is
// given to copy in large chunks (ReadFrom: io.Copy hands it the reader, and
// Tx.WriteTo copies the file through io.CopyN), where io.Copy's own buffer is
// 32 KB: a copy of a year's journal is some ten thousand system calls, not
// some twenty thousand of each.
type summedWriter struct {
	w   io.Writer
	sum hash.Hash32
}

func (s *summedWriter) Write(p []byte) (int, error) {
	n, err := s.w.Write(p)
	s.sum.Write(p[:n])
	return n, err
}

// copyChunk is the size of the reads of a backup's copy.
const copyChunk = 4 << 20

func (s *summedWriter) ReadFrom(r io.Reader) (int64, error) { return readChunks(r, s.Write) }

// backupCRC is the table of the CRC-32C kept of each backup written.
var backupCRC = crc32.MakeTable(crc32.Castagnoli)

// BackupDay writes the hot backup of day close into the backup directory and
// returns its path (increment.go): an increment, journal-DAY.inc, of the
// newest base of a day up to day, or a base, journal-DAY.db with its page
// digests. The first backup is a base, the whole file. A copy no larger than
// a chunk of the next base (8 MB) that changed by more than a quarter since
// its base gets a new base written whole, as it is small; a larger copy does
// only when more than half of it changed (its increment would write about as
// much): from the close-day after one whose copy differs from the base in a
// thirty-second of it, the next base is built of the day's copy a chunk a
// close-day, kept the day's copy as the days go (nextbase.go), and the
// close-day it is complete it becomes the day's base. A second backup of the
// same day replaces the first, but a base that increments are built on is
// kept and the day's backup is then its increment. A base found damaged on
// the disk when the day's slice of it is read again (scrubSlice) gets a new
// base written whole. The pages read
// from the journal are those written since the base (written.go) when its
// record says which; else all of them.
func (bk *Archive) BackupDay(day string) (string, error) {
	if err := checkDay(day); err != nil {
		return "", fmt.Errorf("journal: backup day %q: %w", day, err)
	}
	ctx := context.Background()
	full := filepath.Join(bk.backupDir, backupPrefix+day+backupSuffix)
	inc := filepath.Join(bk.backupDir, backupPrefix+day+incSuffix)
	base, digests, bt, err := newestBase(bk.backupDir, day)
	if err != nil {
		return "", fmt.Errorf("journal: backup: %w", err)
	}
	if base != "" {
		path, err := bk.dayFromBase(ctx, day, full, inc, base, digests, bt)
		_, damaged := errors.AsType[*baseDamageError](err)
		switch {
		case err == nil:
			return path, nil
		case !damaged && !errors.Is(err, errIncTooLarge):
			return "", fmt.Errorf("journal: backup: %w", err)
		case damaged:
			bk.logLine(day, "%s is damaged (%v): the backups built on it cannot be restored; %s is written whole",
				filepath.Base(base), err, filepath.Base(full))
		}
	}
	// A next base being built is of an older base than this one.
	bk.discardNext(day, "a new base is written whole")
	if err := bk.backupBase(full); err != nil {
		return "", fmt.Errorf("journal: backup: %w", err)
	}
	// The day's increment, if any, is older than its new base.
	if err := removeInc(bk.backupDir, day, inc); err != nil {
		return "", fmt.Errorf("journal: backup: %w", err)
	}
	return full, nil
}

// removeInc removes the day's increment at inc, older than the day's new
// base, unless an increment of a later day continues it.
func removeInc(dir, day, inc string) error {
	if continuedBy(dir, day, filepath.Base(inc)) != "" {
		return nil
	}
	if err := os.Remove(inc); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	return nil
}

// dayFromBase writes the day's backup from the newest base at base (its
// digests and trailer given): the day's increment, continuing the day
// before's (continueFrom), in the read transaction of which the day's share
// of the next base is written (planNext, finishNext); the day's base when
// that share completes it. It returns errIncTooLarge or a *baseDamageError
// when the day needs a base written whole.
func (bk *Archive) dayFromBase(ctx context.Context, day, full, inc, base string, digests []uint64, bt pagesTrailer) (string, error) {
	if bad, err := bk.scrubFile(ctx, day, base, bt.Size, bt.PageSize, digests); err != nil {
		return "", err
	} else if bad >= 0 {
		err := &baseDamageError{base: base, pgid: bad}
		bk.discardNext(day, err.Error())
		return "", err
	}
	if by := continuedBy(bk.backupDir, day, filepath.Base(inc)); by != "" {
		// The day's increment is continued by one of a later day (the
		// clock set back since): it is kept, and the day's backup is a
		// base written whole.
		bk.logLine(day, "%s is continued by %s and is kept as it is; the day's backup is a base written whole", filepath.Base(inc), by)
		return "", errIncTooLarge
	}
	// A base of the same day that others are built on is not replaced.
	bound := base != full || len(dependents(bk.backupDir, filepath.Base(full))) == 0
	prev := bk.continueFrom(ctx, day, base, bt, digests)
	plan := bk.planNext(ctx, day, full, base, bt, digests, prev)
	defer plan.close()
	it, err := bk.backupIncrement(ctx, inc, base, digests, bt, prev, plan, bound, bk.nextChunk(bt.PageSize))
	if err != nil {
		// A partial left part-written is discarded by the next
		// close-day, or by the base written whole.
		return "", err
	}
	if plan != nil {
		path, err := bk.finishNext(day, inc, it, plan)
		if err != nil || path != "" {
			return path, err
		}
	}
	return inc, nil
}

// LatestBackup returns the path of the most recently written backup in the
// backup directory of this journal, or "" when there is none.
func (bk *Archive) LatestBackup() (string, error) { return LatestBackup(bk.backupDir) }

// VerifyBackup checks the day's backup at path (pos.BackupVerifier) in time
// and memory bounded by the day, not by the history: the file's bytes against
// the CRC-32C of what BackupDay wrote (read back in chunks; skipped for a file
// this journal did not write), then the copy opened read-only as start-up
// opens a journal (its size and meta pages, the right edge of every bucket),
// its hash chain from the checkpoint before the last one (the day the Z report
// just sealed, from event 1 when it is the first), or from the mark an Open of
// the live journal left after it (the events before it were checked there, and
// the copy's bytes are the live file's), to its head, both checkpoints, and
// every derived record the events walked wrote against a replay of them.
//
// An increment this journal wrote (journal-DAY.inc) was taken page by page of
// one read transaction whose bytes are those of the copy it stands for (every
// page not in it has the digest of its base's page; the copy's whole CRC is in
// it): that transaction was checked as the copy above, right after the pages
// were taken, and VerifyBackup reads the increment back against its CRC and
// returns that check. An increment it did not write is made into its copy in
// a temporary file, checked as above and removed. A base made from the next
// base (finishNext) was checked the same way on the read transaction its
// day's pages were taken of, each of its pages read back on the close-day it
// was written: VerifyBackup returns that check.
// The days before were checked when their own backups were; VerifyFile (galla
// journal verify) still checks a file whole.
func (bk *Archive) VerifyBackup(ctx context.Context, path string) error {
	bk.backupMu.Lock()
	want, ok := bk.backupSums[path]
	checked, done := bk.backupChecks[path]
	bk.backupMu.Unlock()
	if ok {
		if err := checkCRC(ctx, path, want); err != nil {
			return &CorruptError{Path: path, Reason: err.Error(), Backup: path}
		}
	}
	if !isIncrement(path) && done {
		// A base made from the next base (finishNext): checked as an
		// increment is, and each page read back on the close-day it was
		// written.
		return checked
	}
	if isIncrement(path) {
		// Read back whole above (its CRC-32C as written, over the same
		// bytes as its trailer's): its end is checked, not read again.
		if _, _, err := readIncrementOf(path, !ok); err != nil {
			return &CorruptError{Path: path, Reason: err.Error(), Backup: path}
		}
		if ok && done {
			return checked
		}
		tmp := filepath.Join(filepath.Dir(path), "."+filepath.Base(path)+".check")
		defer os.Remove(tmp)
		if err := materialize(ctx, path, tmp); err != nil {
			return &CorruptError{Path: path, Reason: err.Error(), Backup: path}
		}
		path = tmp
	}
	b, err := Open(path, Options{ReadOnly: true, Create: CreateNever, DeferVerify: true, ChainKey: bk.rec.key, BackupDir: bk.backupDir})
	if err != nil {
		return err
	}
	defer b.Close()
	if err := b.Log.checkPages(false); err != nil {
		return err
	}
	return b.Log.view(func(tx *bolt.Tx) error { return b.Log.verifyChain(ctx, tx, scopeFromPrevious, nil) })
}

// checkCRC reads the file at path, in pieces by several goroutines at once
// (fileCRC), and compares its CRC-32C with want.
func checkCRC(ctx context.Context, path string, want uint32) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	info, err := f.Stat()
	if err != nil {
		return err
	}
	sum, err := fileCRC(ctx, f, info.Size())
	if err != nil {
		return err
	}
	if sum != want {
		return errors.New("the backup's bytes are not the ones written")
	}
	return nil
}

// writeSynced writes the file at path through write (mode 0600): into a
// temporary file beside it, synced and renamed into place, so path is either the
// old file or a complete new one.
func writeSynced(path string, write func(io.Writer) error) error {
	tmp := path + ".tmp"
	f, err := os.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o600)
	if err != nil {
		return err
	}
	err = write(f)
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp, path)
	}
	if err != nil {
		_ = os.Remove(tmp)
	}
	return err
}

// isBackupName reports whether name is a copy of the journal that restore
// takes: journal-….db (a day's base, a copy before a migration) or
// journal-DAY.inc.
func isBackupName(name string) bool {
	if !strings.HasPrefix(name, backupPrefix) {
		return false
	}
	_, inc := incDay(name)
	return strings.HasSuffix(name, backupSuffix) || inc
}

// LatestBackup returns the path of the most recently written journal-DAY.db or
// journal-DAY.inc in dir, or "" when there is none (a missing dir is not an error). It needs no open
// journal, so a terminal whose journal is corrupt can still offer the backup.
func LatestBackup(dir string) (string, error) {
	entries, err := os.ReadDir(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return "", nil
	}
	if err != nil {
		return "", fmt.Errorf("journal: latest backup: %w", err)
	}
	var (
		best    string
		bestMod int64
	)
	for _, e := range entries {
		name := e.Name()
		if e.IsDir() || !isBackupName(name) {
			continue
		}
		info, err := e.Info()
		if err != nil {
			continue
		}
		mod := info.ModTime().UnixNano()
		if best == "" || mod > bestMod || (mod == bestMod && name > filepath.Base(best)) {
			best, bestMod = filepath.Join(dir, name), mod
		}
	}
	return best, nil
}
