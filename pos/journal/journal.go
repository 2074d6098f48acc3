package journal

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
	"time"

	bolt "go.etcd.io/bbolt"
	berrors "go.etcd.io/bbolt/errors"

	"galla/pos"
)

// DefaultLockTimeout is how long Open waits for another process to let go of the
// journal file before it gives up with ErrAlreadyRunning.
const DefaultLockTimeout = time.Second

// ErrAlreadyRunning is matched (errors.Is) by the error Open returns when another
// process holds the journal file open: a second copy of the terminal.
var ErrAlreadyRunning = errors.New("galla is already running on this data directory")

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

	// Create says when Open may make a new journal file where there is none (or
	// an empty one). The zero value, CreateUnlessJournaled, refuses only where a
	// journal was kept before; the terminal opens with CreateIfUnused.
	Create CreateMode
	// ReadOnly opens the file for reading only, with a shared lock: nothing is
	// migrated, rebuilt or written (every write returns ErrReadOnly), and damage
	// that bbolt can still read past (a broken hash chain, a bad page elsewhere,
	// derived records that do not match) does not fail Open: Verified reports it,
	// and the reports stay readable. A file that bbolt cannot map safely (cut
	// short, no valid meta page) is refused even read-only, with an error that
	// says so.
	ReadOnly bool

	// ChainKey is the terminal's chain key, kept outside the journal file (the
	// OS keyring): every event appended is then sealed with HMAC-SHA256 under
	// it, and so are the checkpoints and Z digests, so that an event edited and
	// chained anew by someone who holds only the file does not verify. The
	// journal remembers a check value of the key (not the key): a journal whose
	// events were keyed is refused with another key, or with none, by an error
	// matching ErrDamaged and ErrKey that says so. Nil keeps the chain unkeyed
	// (plain SHA-256), as before; the chain then shows damage, not an edit.
	// Events written before the first keyed one stay as they were.
	ChainKey []byte

	// AppVersion is the version of the Galla opening the journal ("0.1.0"). The
	// journal keeps the last one in its meta bucket and journals a change
	// (journal.opened_by), a migration to a newer schema included; an older
	// Galla that finds a newer schema names both versions in its refusal
	// (NewerSchemaError). Empty records nothing (tests, the journal's tools).
	AppVersion string

	// continueNumbers makes Open lift the counters of a journal that is behind
	// its high-water file with a numbers.continued event instead of refusing it
	// (Restore).
	continueNumbers string

	// maxSize caps the file size (bbolt's MaxSize); tests use it to stand in for a
	// full disk.
	maxSize int
}

// Journal is Galla's bbolt journal: an append-only hash-chained log of events and
// the derived buckets read by pos. It is safe for concurrent use.
type Journal struct {
	db         *bolt.DB
	path       string
	backupDir  string
	now        func() time.Time
	commits    atomic.Uint64
	orders     orderCache // decoded orders for Append
	rec        sealer     // the chain key and the compressors of the records
	headMu     sync.Mutex // guards head, headSeq and headErr
	head       *os.File   // the head record beside the file (HeadPath); nil read-only
	headSeq    uint64     // the sequence it holds
	headErr    error      // its last write's error
	keyAdopted bool       // this Open gave the chain key to a journal that had none

	readOnly bool

	numMu      sync.Mutex // guards numWritten and numErr
	numWritten Numbers    // what the high-water file last received
	numErr     error      // its last write's error, tried again with the next number

	verifyRun sync.Mutex // one Verify at a time
	vmu       sync.Mutex // guards verified and verifyErr
	verified  bool       // a verification has finished (in Open or Verify)
	verifyErr error      // its result: nil or a *CorruptError; a failure stays
}

// alreadyRunningError is the error Open returns when the lock is held elsewhere.
type alreadyRunningError struct{ path string }

func (e *alreadyRunningError) Error() string {
	return fmt.Sprintf("Galla is already running on this data directory (journal %s): close the other window first.", e.path)
}

func (e *alreadyRunningError) Is(target error) bool { return target == ErrAlreadyRunning }

// Sentence is what the cashier reads (pos.Sentencer): the error is one already.
func (e *alreadyRunningError) Sentence() string { return e.Error() }

// CreateMode says when Open may make a new journal file (DESIGN.md section 4: a
// missing or empty journal is never silently replaced).
type CreateMode int

const (
	// CreateUnlessJournaled, the zero value, makes a new journal where the file is
	// missing or empty unless a journal was kept in its directory before: a number
	// high-water file, a backups directory, a journal set aside as damaged.
	CreateUnlessJournaled CreateMode = iota
	// CreateIfUnused makes a new journal only in a data directory that DirUsed
	// reports as never used (no config.json, receipt key, sandbox state, backups,
	// high-water file). The terminal's window and commands open with it.
	CreateIfUnused
	// CreateNever never makes a new journal: a missing or empty file is
	// ErrMissing. For commands that only read.
	CreateNever
	// CreateAnyway makes a new journal even in a used directory: the explicit
	// command. Every number series continues past the high-water file, so no
	// number is handed out twice.
	CreateAnyway
)

// Open opens the journal file at path with mode 0600 (its parent directory
// created with mode 0700), creating it only as opts.Create allows. Before bbolt
// maps the file it checks its size and meta pages (a file cut short or without a
// valid meta is refused with an error matching ErrDamaged, never a crash). It
// waits at most opts.LockTimeout for the file lock, migrates the schema to the
// current version, runs bbolt's consistency check and verifies the hash chain of
// the events (unless opts.DeferVerify leaves that to Verify), and refuses a
// journal whose counters are behind the number high-water file beside it
// (ErrBehind). Sync settings are bbolt's defaults: every commit is fsync'd.
//
// Every error that means the terminal cannot work with this journal matches one
// of ErrAlreadyRunning, ErrMissing, ErrDamaged, ErrBehind or ErrNewerSchema, and
// carries a sentence (pos.Sentence) that says what to do.
func Open(path string, opts Options) (*Journal, error) {
	if opts.LockTimeout <= 0 {
		opts.LockTimeout = DefaultLockTimeout
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	if opts.BackupDir == "" {
		opts.BackupDir = backupDirOf(path)
	}
	state, reason, err := preflight(path)
	if err != nil {
		return nil, fmt.Errorf("journal: open %s: %w", path, err)
	}
	creating := false
	switch {
	case reason != "":
		return nil, damagedOpen(path, opts, reason)
	case state == fileMissing || state == fileEmpty:
		if err := mayCreate(path, opts, state == fileEmpty); err != nil {
			return nil, err
		}
		if state == fileEmpty {
			// A file bbolt never finished (a full disk at the first start):
			// nothing was ever recorded in it, so it is made anew.
			if err := os.Remove(path); err != nil {
				return nil, fmt.Errorf("journal: open: %w", err)
			}
		}
		creating = true
	}
	if !opts.ReadOnly {
		if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
			return nil, fmt.Errorf("journal: open: %w", err)
		}
	}
	var db *bolt.DB
	err = guard(func() error {
		var err error
		db, err = bolt.Open(path, 0o600, boltOptions(opts))
		return err
	})
	switch {
	case errors.Is(err, berrors.ErrTimeout):
		return nil, &alreadyRunningError{path: path}
	case errors.Is(err, berrors.ErrInvalid), errors.Is(err, berrors.ErrChecksum),
		errors.Is(err, berrors.ErrVersionMismatch):
		return nil, damagedOpen(path, opts, "bbolt cannot open it: "+err.Error())
	case err != nil:
		var pe *panicError
		if errors.As(err, &pe) {
			return nil, damagedOpen(path, opts, pe.Error())
		}
		return nil, fmt.Errorf("journal: open %s: %w", path, err)
	}
	if !opts.ReadOnly {
		// bbolt only applies the mode when it creates the file; an older, looser
		// file is tightened here.
		if err := os.Chmod(path, 0o600); err != nil {
			_ = db.Close()
			return nil, fmt.Errorf("journal: open: %w", err)
		}
	}
	j := &Journal{db: db, path: path, backupDir: opts.BackupDir, now: opts.Now, readOnly: opts.ReadOnly,
		rec: sealer{key: chainKey(opts)}}
	if err := j.init(opts, creating); err != nil {
		_ = j.closeHead()
		_ = db.Close()
		return nil, err
	}
	return j, nil
}

// chainKey is a copy of opts.ChainKey, nil when it is empty.
func chainKey(opts Options) []byte {
	if len(opts.ChainKey) == 0 {
		return nil
	}
	return bytes.Clone(opts.ChainKey)
}

// damagedOpen is the error of a file Open cannot give to bbolt, or bbolt failed
// on: read-only too, it says so.
func damagedOpen(path string, opts Options, reason string) error {
	if opts.ReadOnly {
		reason += "; it cannot be opened even read-only"
	}
	return damaged(path, opts.BackupDir, reason)
}

// mayCreate refuses to make a new journal at path where opts.Create does not
// allow it.
func mayCreate(path string, opts Options, empty bool) error {
	dir := filepath.Dir(path)
	var signs []string
	switch {
	case opts.ReadOnly:
		signs = []string{"a journal opened read-only must exist"}
	case opts.Create == CreateNever:
		_, signs = DirUsed(dir)
		if len(signs) == 0 {
			signs = []string{"a new journal is only made by an explicit command"}
		}
	case opts.Create == CreateIfUnused:
		_, signs = DirUsed(dir)
	case opts.Create == CreateUnlessJournaled:
		signs = journalSigns(dir)
	}
	if _, err := os.Stat(opts.BackupDir); err == nil && opts.Create != CreateAnyway && len(signs) == 0 && opts.BackupDir != backupDirOf(path) {
		signs = []string{opts.BackupDir}
	}
	if len(signs) > 0 {
		return missing(path, opts.BackupDir, empty, signs)
	}
	return nil
}

// init brings an opened file to a journal Open can return: migrations, the
// check, the rebuild of missing derived buckets, the high-water numbers.
func (j *Journal) init(opts Options, creating bool) error {
	if opts.ReadOnly {
		var have uint64
		if err := j.view(func(tx *bolt.Tx) error { have = schemaOf(tx); return nil }); err != nil {
			return j.openErr(err)
		}
		var newer error
		if err := j.view(func(tx *bolt.Tx) error {
			if have > SchemaVersion() {
				newer = j.newerSchema(tx, have, opts.AppVersion)
			}
			return nil
		}); err != nil {
			return j.openErr(err)
		}
		switch {
		case newer != nil:
			return newer
		case have == 0:
			return j.corrupt(0, "the file holds no journal (no schema version)")
		}
	}
	var mig migrated
	if !opts.ReadOnly {
		var err error
		if mig, err = j.migrate(opts.AppVersion); err != nil {
			return j.openErr(err)
		}
	}
	if err := j.checkKey(); err != nil {
		if !opts.ReadOnly || !errors.Is(err, ErrDamaged) {
			return err
		}
		// Read-only, the reports stay readable; Verified says why the
		// journal cannot be trusted.
		j.verified, j.verifyErr = true, err
	}
	missing := j.derivedMissing()
	switch {
	case opts.ReadOnly:
		if !opts.DeferVerify {
			// The result is kept for Verified; a damaged journal still opens for
			// its reports.
			if err := j.Verify(context.Background()); err != nil && !errors.Is(err, ErrDamaged) {
				return err
			}
		}
	case !opts.DeferVerify || missing:
		// A rebuild replays the events, so they are verified first even when
		// verification was deferred.
		// A rebuild replays every event, so then the whole chain is checked.
		if err := j.verify(context.Background(), missing); err != nil {
			return err
		}
		j.verified = true
	}
	if missing && !opts.ReadOnly {
		if err := j.Rebuild(context.Background()); err != nil {
			return j.openErr(fmt.Errorf("journal: open: %w", err))
		}
	}
	if creating && !opts.ReadOnly {
		// The journal a head record beside names is gone, and Create allowed a
		// new one in its place: the record is of no use to it.
		if err := os.Remove(HeadPath(j.path)); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return fmt.Errorf("journal: open: %w", err)
		}
	}
	// The numbers first: an old copy put back is told as such (ErrBehind).
	if err := j.initNumbers(opts, creating); err != nil {
		return err
	}
	if err := j.checkHead(); err != nil {
		if !opts.ReadOnly || !errors.Is(err, ErrDamaged) {
			return err
		}
		if j.verifyErr == nil {
			j.verified, j.verifyErr = true, err
		}
	}
	return j.noteVersion(opts.AppVersion, creating, mig)
}

// closeHead closes the head record.
func (j *Journal) closeHead() error {
	j.headMu.Lock()
	defer j.headMu.Unlock()
	if j.head == nil {
		return nil
	}
	err := j.head.Close()
	j.head = nil
	return err
}

// openErr turns a bbolt failure caught by guard into the CorruptError it means.
func (j *Journal) openErr(err error) error {
	var pe *panicError
	if errors.As(err, &pe) {
		return j.corrupt(0, pe.Error())
	}
	return err
}

// initNumbers compares the journal's counters with the high-water file: a new
// journal made in a used directory, and a journal Restore put back, continue past
// it; any other journal behind it is refused; the file is caught up with the
// journal when it is behind or missing.
func (j *Journal) initNumbers(opts Options, creating bool) error {
	hw, _, err := ReadNumbers(j.path)
	if err != nil {
		return err
	}
	have, err := j.Numbers()
	if err != nil {
		return j.openErr(err)
	}
	if have.behind(hw) && !opts.ReadOnly {
		reason := opts.continueNumbers
		if creating && opts.Create == CreateAnyway {
			reason = "a new journal made in a used data directory"
		}
		if reason != "" {
			if err := j.continueNumbers(hw, reason); err != nil {
				return err
			}
			have = have.max(hw)
		}
	}
	if have.behind(hw) && !opts.ReadOnly {
		backup, _ := LatestBackup(j.backupDir)
		return &BehindError{Path: j.path, Numbers: NumbersPath(j.path), Journal: have, HighWater: hw, Backup: backup}
	}
	if opts.ReadOnly {
		return nil
	}
	j.numWritten = hw
	j.noteNumbers(have)
	if j.numErr != nil {
		return fmt.Errorf("journal: open: the number high-water file: %w", j.numErr)
	}
	return nil
}

// continueNumbers appends numbers.continued lifting the counters to n.
func (j *Journal) continueNumbers(n Numbers, reason string) error {
	data, err := json.Marshal(numbersEvent{Numbers: n, Reason: reason})
	if err != nil {
		return fmt.Errorf("journal: continue numbers: %w", err)
	}
	_, err = j.Append(context.Background(), pos.Event{Kind: EvNumbersContinued, Time: j.now(), Data: data})
	return err
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
		ReadOnly:     opts.ReadOnly,
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
	herr := j.closeHead()
	if err := j.db.Close(); err != nil {
		return fmt.Errorf("journal: close: %w", err)
	}
	if herr != nil {
		return fmt.Errorf("journal: close: the head record: %w", herr)
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
	if j.readOnly {
		return ErrReadOnly
	}
	var refused error
	err := guard(func() error {
		return j.db.Update(func(tx *bolt.Tx) error {
			if err := fn(tx); err != nil {
				refused = err
				return err
			}
			tx.OnCommit(func() { j.commits.Add(1) })
			return nil
		})
	})
	var pe *panicError
	switch {
	case errors.Is(err, berrors.ErrDatabaseNotOpen):
		return ErrClosed
	case errors.As(err, &pe):
		return j.corrupt(0, pe.Error())
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
	err := guard(func() error { return j.db.View(fn) })
	var pe *panicError
	switch {
	case errors.Is(err, berrors.ErrDatabaseNotOpen):
		return ErrClosed
	case errors.As(err, &pe):
		return j.corrupt(0, pe.Error())
	}
	return err
}
