package journal

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
	"time"

	bolt "go.etcd.io/bbolt"
	berrors "go.etcd.io/bbolt/errors"
)

// DefaultLockTimeout is how long Open waits for another process to let go of the
// journal file before it gives up with ErrAlreadyRunning.
const DefaultLockTimeout = time.Second

// ErrAlreadyRunning is matched (errors.Is) by the error Open returns when another
// process holds the journal file open: a second copy of the terminal.
var ErrAlreadyRunning = errors.New("galla is already running with this data directory")

// ErrCorrupt is matched (errors.Is) by the error Open returns when bbolt's
// consistency check or the hash chain of the events fails. The error is a
// *CorruptError naming the broken sequence and the last backup.
var ErrCorrupt = errors.New("journal is corrupt")

// ErrClosed is returned by every method called after Close.
var ErrClosed = errors.New("journal is closed")

// ErrNewerSchema is returned by Open for a file written by a newer Galla whose
// schema this build does not know.
var ErrNewerSchema = errors.New("journal was written by a newer version of Galla")

// Options tunes Open. The zero value is ready to use.
type Options struct {
	// LockTimeout bounds the wait for the file lock; zero means DefaultLockTimeout.
	LockTimeout time.Duration
	// BackupDir is where BackupDay writes and LatestBackup looks; empty means a
	// "backups" directory beside the journal file.
	BackupDir string
	// Now is the clock; nil means time.Now.
	Now func() time.Time
	// DeferVerify leaves bbolt's consistency check and the walk of the hash chain
	// out of Open, so that Open costs the same however long the journal is: the
	// caller runs Verify (in the background) and checks Verified before it takes
	// payments. Without it Open verifies before it returns, as the command line
	// needs. A journal whose derived buckets are missing is still verified inside
	// Open, before they are rebuilt from the events.
	DeferVerify bool

	// maxSize caps the file size (bbolt's MaxSize); tests use it to stand in for a
	// full disk.
	maxSize int
}

// Journal is Galla's bbolt journal: an append-only hash-chained log of events and
// the derived buckets read by pos. It is safe for concurrent use.
type Journal struct {
	db        *bolt.DB
	path      string
	backupDir string
	now       func() time.Time
	commits   atomic.Uint64
	orders    orderCache // decoded orders for Append

	verifyRun sync.Mutex // one Verify at a time
	vmu       sync.Mutex // guards verified and verifyErr
	verified  bool       // a verification has finished (in Open or Verify)
	verifyErr error      // its result: nil or a *CorruptError; a failure stays
}

// alreadyRunningError is the error Open returns when the lock is held elsewhere.
type alreadyRunningError struct{ path string }

func (e *alreadyRunningError) Error() string {
	return fmt.Sprintf("Galla is already running with this data directory (journal %s): close the other window first.", e.path)
}

func (e *alreadyRunningError) Is(target error) bool { return target == ErrAlreadyRunning }

// Sentence is what the cashier reads (pos.Sentencer): the error is one already.
func (e *alreadyRunningError) Sentence() string { return e.Error() }

// Open opens (creating if needed) the journal file at path with mode 0600, its
// parent directory created with mode 0700. It waits at most opts.LockTimeout for
// the file lock, migrates the schema to the current version, runs bbolt's
// consistency check and verifies the hash chain of the events (unless
// opts.DeferVerify leaves that to Verify). Sync settings are bbolt's defaults:
// every commit is fsync'd.
func Open(path string, opts Options) (*Journal, error) {
	if opts.LockTimeout <= 0 {
		opts.LockTimeout = DefaultLockTimeout
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	if opts.BackupDir == "" {
		opts.BackupDir = filepath.Join(filepath.Dir(path), "backups")
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return nil, fmt.Errorf("journal: open: %w", err)
	}
	db, err := bolt.Open(path, 0o600, boltOptions(opts))
	if errors.Is(err, berrors.ErrTimeout) {
		return nil, &alreadyRunningError{path: path}
	}
	if err != nil {
		return nil, fmt.Errorf("journal: open %s: %w", path, err)
	}
	// bbolt only applies the mode when it creates the file; an older, looser
	// file is tightened here.
	if err := os.Chmod(path, 0o600); err != nil {
		_ = db.Close()
		return nil, fmt.Errorf("journal: open: %w", err)
	}
	j := &Journal{db: db, path: path, backupDir: opts.BackupDir, now: opts.Now}
	if err := j.migrate(); err != nil {
		_ = db.Close()
		return nil, err
	}
	missing := j.derivedMissing()
	if !opts.DeferVerify || missing {
		// A rebuild replays the events, so they are verified first even when
		// verification was deferred.
		if err := j.verify(context.Background()); err != nil {
			_ = db.Close()
			return nil, err
		}
		j.verified = true
	}
	if missing {
		if err := j.Rebuild(context.Background()); err != nil {
			_ = db.Close()
			return nil, fmt.Errorf("journal: open: %w", err)
		}
	}
	return j, nil
}

// boltOptions are the bbolt options of a journal: the lock timeout, bbolt's
// default sync settings (NoSync, NoGrowSync and NoFreelistSync all off) and the
// hashmap freelist.
//
// NoFreelistSync stays off on purpose. It would save one page write per commit
// (the freelist is derived data that bbolt can rebuild at Open by walking the
// tree), but the measured gain was within the noise of fsync on a shared disk,
// and with it bbolt panics inside Open while walking a damaged tree instead of
// opening the file, so a corrupt journal would no longer reach the consistency
// check that reports ErrCorrupt and offers the last backup (TestBrokenPageIsDetected).
func boltOptions(opts Options) *bolt.Options {
	return &bolt.Options{
		Timeout:      opts.LockTimeout,
		FreelistType: bolt.FreelistMapType,
		MaxSize:      opts.maxSize,
	}
}

// derivedMissing reports whether a derived bucket is missing (deleted by hand or
// by a tool); Open then rebuilds them all from the events.
func (j *Journal) derivedMissing() bool {
	missing := false
	_ = j.view(func(tx *bolt.Tx) error {
		for _, name := range derivedBuckets {
			if tx.Bucket(name) == nil {
				missing = true
			}
		}
		return nil
	})
	return missing
}

// Close closes the file and releases its lock. Close is idempotent.
func (j *Journal) Close() error {
	if err := j.db.Close(); err != nil {
		return fmt.Errorf("journal: close: %w", err)
	}
	return nil
}

// Path returns the path of the journal file.
func (j *Journal) Path() string { return j.path }

// Commits reports how many write transactions the journal has committed since
// Open. Each is one fsync'd bbolt commit; Append costs exactly one.
func (j *Journal) Commits() uint64 { return j.commits.Load() }

// update runs fn in one read-write transaction and counts its commit.
func (j *Journal) update(fn func(tx *bolt.Tx) error) error {
	var refused error
	err := j.db.Update(func(tx *bolt.Tx) error {
		if err := fn(tx); err != nil {
			refused = err
			return err
		}
		tx.OnCommit(func() { j.commits.Add(1) })
		return nil
	})
	switch {
	case errors.Is(err, berrors.ErrDatabaseNotOpen):
		return ErrClosed
	case err != nil && err != refused:
		// Not a rule that refused the event: the file itself could not be written.
		return &writeError{err: err}
	}
	return err
}

// writeError is a commit the file system refused (a full disk, an I/O error): the
// transaction was rolled back, so nothing of it is stored and nothing before it is
// lost.
type writeError struct{ err error }

func (e *writeError) Error() string { return "the journal file could not be written: " + e.err.Error() }

func (e *writeError) Unwrap() error { return e.err }

// Sentence is what the cashier reads (pos.Sentencer).
func (e *writeError) Sentence() string {
	return "The journal could not be written (the disk may be full or failing), so this step was not recorded; free space on the disk and try again. Everything recorded before is kept."
}

// view runs fn in one read-only transaction.
func (j *Journal) view(fn func(tx *bolt.Tx) error) error {
	err := j.db.View(fn)
	if errors.Is(err, berrors.ErrDatabaseNotOpen) {
		return ErrClosed
	}
	return err
}
