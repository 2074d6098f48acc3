package journal

import (
	"bytes"
	"context"
	"crypto/hmac"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
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

	// RecoveredBy names the manager who restores or salvages a journal
	// (RestoreWith, SalvageWith): the journal.recovered event they append
	// records it. Authorise, when set, names the manager instead: it is given
	// the staff of the journal to be put in place (Restore: the backup's,
	// before anything is moved; Salvage: the new journal's, before it is
	// finished) and returns who allowed it, or an error that stops it with
	// nothing put in place. The command line checks a manager's PIN there.
	RecoveredBy string
	Authorise   func(ctx context.Context, staff pos.StaffStore) (string, error)

	// recovery is set by Restore: the journal is put in place by a manager, so
	// the head record of the journal it replaces is not asked for.
	recovery bool

	// continueNumbers makes Open lift the counters of a journal that is behind
	// its high-water file with a numbers.continued event instead of refusing it
	// (Restore).
	continueNumbers string

	// maxSize caps the file size (bbolt's MaxSize); tests use it to stand in for a
	// full disk.
	maxSize int
}

// Journal is Galla's bbolt journal: an append-only hash-chained log of events and
// the derived buckets read by pos. As go-github's Client holds its services, it
// holds one part per capability over one shared core (journalCore: the bbolt
// handle, the head record, the number high-water file, the verification and their
// locks): the Log is the chain of events itself (append, read, iterate, verify,
// rebuild), the Orders the orders derived from it and the numbers of their
// documents, the Days the closed days, their Z reports and checkpoints, the Staff
// the staff records, the Shop the settings and the catalog, the IMEIs the
// record of every IMEI sold or freed, the Stock the stock events by day, and
// the Archive the copies of the file. Each is a named field and none is embedded: callers name the
// part they use (j.Log.Append, j.Days.CheckDay). The Journal's own methods are
// only the facade's: opening and closing the file, its path, commits, version and
// numbers, and Port, the journal as package pos uses it. It is safe for
// concurrent use.
type Journal struct {
	Log     *Log
	Orders  *Orders
	Days    *Days
	Staff   *Staff
	Shop    *Shop
	IMEIs   *IMEIs
	Stock   *Stock
	Archive *Archive

	core *journalCore // the state the parts share; the facade's own methods read it
	port *Port        // the parts pos uses, as one value
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
	j := newJournal(&journalCore{db: db, path: path, backupDir: opts.BackupDir, now: opts.Now, readOnly: opts.ReadOnly,
		rec: newSealer(chainKey(opts)), proofs: newProver(chainKey(opts)),
		nums: numbersWriter{path: path}})
	if !opts.ReadOnly {
		j.core.written = openWritten(path, db.Info().PageSize)
	}
	if err := j.init(opts, creating); err != nil {
		j.core.written.close()
		_ = j.closeHead()
		_ = j.core.nums.close()
		_ = db.Close()
		return nil, err
	}
	return j, nil
}

// newJournal builds the facade and its parts over c.
func newJournal(c *journalCore) *Journal {
	j := &Journal{core: c, Log: &Log{c}, Orders: &Orders{c}, Days: &Days{c}, Staff: &Staff{c}, Shop: &Shop{c}, IMEIs: &IMEIs{c}, Stock: &Stock{c}, Archive: &Archive{c}}
	j.port = &Port{Log: j.Log, Orders: j.Orders, Days: j.Days, Staff: j.Staff, Shop: j.Shop, IMEIs: j.IMEIs, Stock: j.Stock}
	return j
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

// Changed returns the first derived record found, since Open, not to match the
// events it was derived from (a *MismatchError matching ErrDerivedMismatch),
// nil while none was: whichever path met it, the command line exits with the
// journal's damage code.
func (j *Journal) Changed() error { return j.core.changedErr() }

// Close closes the file and releases its lock. Close is idempotent.
func (j *Journal) Close() error {
	j.core.written.close()
	herr := j.closeHead()
	j.core.numMu.Lock()
	nerr := j.core.nums.close()
	j.core.numMu.Unlock()
	if err := j.core.db.Close(); err != nil {
		return fmt.Errorf("journal: close: %w", err)
	}
	if herr != nil {
		return fmt.Errorf("journal: close: the head record: %w", herr)
	}
	if nerr != nil {
		return fmt.Errorf("journal: close: the number high-water file: %w", nerr)
	}
	return nil
}

// Path returns the path of the journal file.
func (j *Journal) Path() string { return j.core.path }

// Commits reports how many write transactions the journal has committed since
// Open. Each is one fsync'd bbolt commit; Append costs exactly one.
func (j *Journal) Commits() uint64 { return j.core.commits.Load() }

// Version returns the version of the last Galla that opened the journal for
// writing, as recorded in it; "" when none was.
func (j *Journal) Version() (string, error) {
	var v string
	if err := j.core.view(func(tx *bolt.Tx) error { v = versionOf(tx); return nil }); err != nil {
		return "", fmt.Errorf("journal: version: %w", err)
	}
	return v, nil
}

// Numbers returns the last number of every series this journal has handed out.
func (j *Journal) Numbers() (Numbers, error) {
	var n Numbers
	if err := j.core.view(func(tx *bolt.Tx) error { n = numbersOf(tx); return nil }); err != nil {
		return Numbers{}, fmt.Errorf("journal: numbers: %w", err)
	}
	return n, nil
}

// init brings an opened file to a journal Open can return: migrations, the
// check, the rebuild of missing derived buckets, the high-water numbers.
func (j *Journal) init(opts Options, creating bool) error {
	if opts.ReadOnly {
		var have uint64
		if err := j.core.view(func(tx *bolt.Tx) error { have = schemaOf(tx); return nil }); err != nil {
			return j.core.openErr(err)
		}
		var newer error
		if err := j.core.view(func(tx *bolt.Tx) error {
			if have > SchemaVersion() {
				newer = j.newerSchema(tx, have, opts.AppVersion)
			}
			return nil
		}); err != nil {
			return j.core.openErr(err)
		}
		switch {
		case newer != nil:
			return newer
		case have == 0:
			return j.core.corrupt(0, "the file holds no journal (no schema version)")
		}
	}
	var mig migrated
	if !opts.ReadOnly {
		var err error
		if mig, err = j.migrate(opts.AppVersion); err != nil {
			return j.core.openErr(err)
		}
	}
	if err := j.checkKey(mig); err != nil {
		if !opts.ReadOnly || !errors.Is(err, ErrDamaged) {
			return err
		}
		// Read-only, the reports stay readable; Verified says why the
		// journal cannot be trusted.
		j.core.verified, j.core.verifyErr = true, err
	}
	// A missing head record is refused before anything is written (the
	// proof of the records, a rebuild); checkHead checks the record itself.
	if last, _ := j.Log.LastSeq(context.Background()); j.headExpected(opts, creating, mig, last) {
		if fi, err := os.Stat(HeadPath(j.core.path)); err != nil || fi.Size() != headRecordSize {
			return j.headMissing(last)
		}
	}
	missing := j.derivedMissing()
	switch {
	case opts.ReadOnly:
		if !opts.DeferVerify {
			// The result is kept for Verified; a damaged journal still opens for
			// its reports.
			if err := j.Log.Verify(context.Background()); err != nil && !errors.Is(err, ErrDamaged) {
				return err
			}
		}
	case !opts.DeferVerify || missing:
		// A rebuild replays the events, so they are verified first even when
		// verification was deferred.
		// A rebuild replays every event, so then the whole chain is checked.
		if err := j.Log.verify(context.Background(), missing); err != nil {
			return err
		}
		j.core.verified = true
	}
	switch {
	case missing && !opts.ReadOnly && j.unproved():
		// Written before proofs, or its proofs deleted: every record is
		// compared with the events before it is given a proof.
		if err := j.proveRecords(context.Background(), mig); err != nil {
			return err
		}
	case missing && !opts.ReadOnly:
		if err := j.Log.Rebuild(context.Background()); err != nil {
			return j.core.openErr(fmt.Errorf("journal: open: %w", err))
		}
	}
	if creating && !opts.ReadOnly {
		// The journal a head record beside names is gone, and Create allowed a
		// new one in its place: the record is of no use to it.
		if err := os.Remove(HeadPath(j.core.path)); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return fmt.Errorf("journal: open: %w", err)
		}
	}
	// The records every command reads first (who signs in, the shop's
	// details) are few: their proofs are checked here, so that an edit of one
	// stops the terminal before anything is sold.
	if err := j.checkStaffAndSettings(); err != nil {
		if !opts.ReadOnly {
			return err
		}
	}
	// The customers' details a journal of an older build holds in clear are
	// sealed, once (reseal.go).
	if err := j.sealPersonal(opts); err != nil {
		return err
	}
	// The numbers first: an old copy put back is told as such (ErrBehind).
	if err := j.initNumbers(opts, creating); err != nil {
		return err
	}
	if err := j.checkHead(opts, creating, mig); err != nil {
		if !opts.ReadOnly || !errors.Is(err, ErrDamaged) {
			return err
		}
		if j.core.verifyErr == nil {
			j.core.verified, j.core.verifyErr = true, err
		}
	}
	return j.noteVersion(opts.AppVersion, creating, mig)
}

// initNumbers compares the journal's counters with the high-water file: a new
// journal made in a used directory, and a journal Restore put back, continue past
// it; any other journal behind it is refused; the file is caught up with the
// journal when it is behind or missing.
func (j *Journal) initNumbers(opts Options, creating bool) error {
	hw, _, err := ReadNumbers(j.core.path)
	if err != nil {
		return err
	}
	have, err := j.Numbers()
	if err != nil {
		return j.core.openErr(err)
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
		backup, _ := LatestBackup(j.core.backupDir)
		return &BehindError{Path: j.core.path, Numbers: NumbersPath(j.core.path), Journal: have, HighWater: hw, Backup: backup}
	}
	if opts.ReadOnly {
		return nil
	}
	j.core.numWritten = hw
	j.core.noteNumbers(have)
	if j.core.numErr != nil {
		return fmt.Errorf("journal: open: the number high-water file: %w", j.core.numErr)
	}
	return nil
}

// continueNumbers appends numbers.continued lifting the counters to n.
func (j *Journal) continueNumbers(n Numbers, reason string) error {
	data, err := json.Marshal(numbersEvent{Numbers: n, Reason: reason})
	if err != nil {
		return fmt.Errorf("journal: continue numbers: %w", err)
	}
	_, err = j.Log.Append(context.Background(), pos.Event{Kind: EvNumbersContinued, Time: j.core.now(), Data: data})
	return err
}

// unproved reports whether the journal holds derived records without their
// proofs (written before proofs, or the proofs deleted). When every derived
// bucket is gone there is nothing to prove: Rebuild makes them from the events.
func (j *Journal) unproved() bool {
	missing := false
	_ = j.core.view(func(tx *bolt.Tx) error {
		if tx.Bucket(bucketProofs) != nil {
			return nil
		}
		for _, name := range derivedBuckets {
			missing = missing || tx.Bucket(name) != nil
		}
		return nil
	})
	return missing
}

// derivedMissing reports whether a derived bucket is missing (deleted by hand or
// by a tool); Open then rebuilds them all from the events.
func (j *Journal) derivedMissing() bool {
	missing := false
	_ = j.core.view(func(tx *bolt.Tx) error {
		for _, name := range derivedBuckets {
			if tx.Bucket(name) == nil {
				missing = true
			}
		}
		return nil
	})
	return missing
}

// migrate applies, each in its own transaction, every migration the file
// lacks. A file that holds a journal already (schema 1 or later) is copied
// first into the backup directory, and the copy checked (migrationBackup):
// nothing is migrated without it. A file of a newer schema is refused with a
// *NewerSchemaError naming both versions, unchanged.
func (j *Journal) migrate(appVersion string) (migrated, error) {
	var have uint64
	var newer error
	if err := j.core.view(func(tx *bolt.Tx) error {
		have = schemaOf(tx)
		if have > SchemaVersion() {
			newer = j.newerSchema(tx, have, appVersion)
		}
		return nil
	}); err != nil {
		return migrated{}, fmt.Errorf("journal: migrate: %w", err)
	}
	if newer != nil {
		return migrated{}, newer
	}
	var mig migrated
	if have > 0 && have < SchemaVersion() {
		backup, err := j.migrationBackup(have)
		if err != nil {
			return migrated{}, &UpgradeCopyError{Path: j.core.path, BackupDir: j.core.backupDir, From: have, To: SchemaVersion(), Err: err}
		}
		mig = migrated{from: have, backup: backup}
	}
	for _, m := range migrations {
		if m.version <= have {
			continue
		}
		err := j.core.update(func(tx *bolt.Tx) error {
			if err := m.apply(tx); err != nil {
				return err
			}
			return putU64(tx.Bucket(bucketMeta), metaSchema, m.version)
		})
		var hm *headMismatchError
		if errors.As(err, &hm) {
			return migrated{}, j.core.corrupt(hm.seq, hm.Error())
		}
		if err != nil {
			return migrated{}, fmt.Errorf("journal: migrate to schema %d (%s): %w", m.version, m.name, err)
		}
	}
	return mig, nil
}

// newerSchema is the refusal of a file of schema have, read from tx.
func (j *Journal) newerSchema(tx *bolt.Tx, have uint64, appVersion string) error {
	return &NewerSchemaError{Path: j.core.path, FileSchema: have, FileVersion: versionOf(tx),
		Schema: SchemaVersion(), Version: appVersion}
}

// migrationBackup writes a copy of the file, as it is before a migration from
// schema have, into the backup directory and checks it: bbolt's consistency
// check of the copy, and its schema and head the same as the file's. It
// returns the copy's path. The copy is named like a day's backup
// (journal-….db), so LatestBackup and every sentence that offers a backup find it.
func (j *Journal) migrationBackup(have uint64) (string, error) {
	stamp := j.core.now().UTC().Format("20060102-150405")
	path := filepath.Join(j.core.backupDir, fmt.Sprintf("%sschema%d-before-upgrade-%s%s", backupPrefix, have, stamp, backupSuffix))
	var head []byte
	if err := j.core.view(func(tx *bolt.Tx) error {
		head = fileHead(tx)
		return nil
	}); err != nil {
		return "", err
	}
	if err := j.Archive.BackupTo(path); err != nil {
		return "", err
	}
	if err := checkCopy(path, have, head); err != nil {
		return "", fmt.Errorf("the copy %s does not check out: %w", path, err)
	}
	return path, nil
}

// noteVersion records that the Galla of version opened the journal: a new
// journal takes the version in meta; an existing one written last by another
// version, or migrated by this Open, gets a journal.opened_by event. Nothing is
// recorded without a version (tests, the journal's own tools).
func (j *Journal) noteVersion(version string, creating bool, mig migrated) error {
	if version == "" || j.core.readOnly {
		return nil
	}
	var prev string
	if err := j.core.view(func(tx *bolt.Tx) error { prev = versionOf(tx); return nil }); err != nil {
		return j.core.openErr(err)
	}
	if creating {
		if err := j.core.update(func(tx *bolt.Tx) error {
			return tx.Bucket(bucketMeta).Put(metaGallaVersion, []byte(version))
		}); err != nil {
			return fmt.Errorf("journal: open: record the version: %w", err)
		}
		return nil
	}
	if prev == version && mig.from == 0 {
		return nil
	}
	d := openedBy{Version: version, Previous: prev, Backup: mig.backup}
	if mig.from != 0 {
		d.From, d.To = mig.from, SchemaVersion()
	}
	data, err := json.Marshal(d)
	if err != nil {
		return fmt.Errorf("journal: open: record the version: %w", err)
	}
	if _, err := j.Log.Append(context.Background(), pos.Event{Kind: EvOpenedBy, Time: j.core.now(), Data: data}); err != nil {
		return fmt.Errorf("journal: open: record the version: %w", err)
	}
	return nil
}

// checkKey compares the chain key with the key check kept in meta. A journal
// that has one needs that very key; one that has none but whose last event is
// keyed lost it (an edit); one that has none is given it when a key is given
// (not read-only), and from then on its events are keyed. It is given the key
// only when it cannot have had one: it was of a schema before keys (2 or older)
// until this Open, or it holds no event, or the head record beside it is there
// and sealed without a key (checkHead). Proofs of its records made with this
// very key show that it had it (the key check deleted, the chain made anew
// without it): that is refused. Its records are then proved anew with the key
// (their proofs removed here, given again by proveRecords).
func (j *Journal) checkKey(mig migrated) error {
	var (
		stored    []byte
		headKeyed bool
		head      uint64
		hadKey    string // a record whose proof is made with the key given
	)
	err := j.core.view(func(tx *bolt.Tx) error {
		meta, events := tx.Bucket(bucketMeta), tx.Bucket(bucketEvents)
		if meta == nil || events == nil {
			return nil
		}
		stored = bytes.Clone(meta.Get(metaKey))
		head, _, _ = headIn(events)
		if stored == nil && j.core.rec.key != nil {
			hadKey = provedWith(tx, j.core.proofs)
		}
		if v := events.Get(u64(head)); v != nil {
			if r, _, err := splitV2(v); err == nil {
				headKeyed = r.Keyed
			}
		}
		return nil
	})
	if err != nil {
		return j.core.openErr(err)
	}
	key := j.core.rec.key
	switch {
	case stored == nil && headKeyed && key == nil:
		return &KeyError{Path: j.core.path, Missing: true}
	case stored == nil && headKeyed:
		return j.core.corrupt(head, "the check of the chain key is missing, but the events are keyed")
	case stored == nil && key != nil && hadKey != "":
		return j.core.corrupt(head, fmt.Sprintf("the journal was kept with this terminal's chain key (the proof of %s is made with it), but its check of the key is gone and its events are not keyed: it was made anew without the key", hadKey))
	case stored == nil && key != nil && !j.core.readOnly:
		old := (mig.from > 0 && mig.from < 3) || head == 0
		if !old && !j.keptUnkeyed() {
			return j.core.corrupt(head, fmt.Sprintf("the journal has no check of the chain key, and the head record %s that would show it was kept without one is missing or does not match: its check of the key may have been deleted and its chain made anew without the key", HeadPath(j.core.path)))
		}
		j.core.keyAdopted = true
		j.core.keyAdoptOld = old
		return j.core.update(func(tx *bolt.Tx) error {
			if head > 0 && tx.Bucket(bucketProofs) != nil {
				// Made without the key: proved anew with it at this Open.
				if err := tx.DeleteBucket(bucketProofs); err != nil {
					return err
				}
			}
			return tx.Bucket(bucketMeta).Put(metaKey, keyCheck(key))
		})
	case stored == nil:
		return nil
	case key == nil:
		return &KeyError{Path: j.core.path, Missing: true}
	case !hmac.Equal(stored, keyCheck(key)):
		return &KeyError{Path: j.core.path}
	}
	return nil
}

// keptUnkeyed reports whether the head record beside the journal is sealed
// without a key and names the journal's head: the journal was kept without a
// chain key until now (a journal the terminal's key can be given).
func (j *Journal) keptUnkeyed() bool {
	raw, err := os.ReadFile(HeadPath(j.core.path))
	if err != nil || len(raw) != headRecordSize {
		return false
	}
	seq := binary.BigEndian.Uint64(raw)
	h := [32]byte(raw[8:40])
	if !hmac.Equal(raw[40:], headSeal(nil, seq, h)) {
		return false
	}
	var last uint64
	var lastHash [32]byte
	if err := j.core.view(func(tx *bolt.Tx) error {
		last, lastHash, _ = headIn(tx.Bucket(bucketEvents))
		return nil
	}); err != nil {
		return false
	}
	return seq == last && h == lastHash
}

// checkHead compares the head record beside the journal with the log: the
// event it names must be there with the hash it names. A missing record is
// refused when the journal is kept with a chain key (writing it anew would take
// a journal cut short or made anew for whole), except where no record can be
// expected: a new journal, an empty one,
// one of a schema before the record (2 or older) until this Open, one Restore
// puts in place (Options.recovery), and a read-only Open (a backup). It opens
// the record for the Appends to come (not read-only).
func (j *Journal) checkHead(opts Options, creating bool, mig migrated) error {
	raw, err := os.ReadFile(HeadPath(j.core.path))
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("journal: open: the head record: %w", err)
	}
	var seq, last, named uint64
	var h, lastHash, have [32]byte
	found, inFile := false, false
	err = j.core.view(func(tx *bolt.Tx) error {
		last, lastHash, _ = headIn(tx.Bucket(bucketEvents))
		inFile, named = fileHeadMatches(tx, last, lastHash)
		if len(raw) != headRecordSize {
			return nil
		}
		seq = binary.BigEndian.Uint64(raw)
		copy(h[:], raw[8:40])
		if v := tx.Bucket(bucketEvents).Get(u64(seq)); v != nil {
			if r, _, err := splitV2(v); err == nil {
				have, found = r.Hash, true
			} else if r, err := j.core.rec.decode(v); err == nil {
				have, found = r.Hash, true
			}
		}
		return nil
	})
	if err != nil {
		return j.core.openErr(err)
	}
	sealed := len(raw) == headRecordSize && hmac.Equal(raw[40:], headSeal(j.core.rec.key, seq, h))
	if !sealed && j.core.keyAdopted && len(raw) == headRecordSize {
		// Written before the journal had a key: its unkeyed seal still counts.
		sealed = hmac.Equal(raw[40:], headSeal(nil, seq, h))
	}
	// Without a key the record only catches a torn write (anyone can seal
	// it), and a missing one is written anew.
	switch {
	case len(raw) != headRecordSize && j.headExpected(opts, creating, mig, last):
		return j.headMissing(last)
	case len(raw) == headRecordSize && !sealed && j.core.rec.key != nil:
		return j.core.corrupt(0, "the head record beside the journal is not sealed with the chain key")
	case sealed && seq > last:
		return j.core.corrupt(last+1, fmt.Sprintf("the journal ends at event %d, but event %d was recorded: its last events were cut off (a journal salvaged or restored by a manager is put in place with \"galla journal restore FILE\", which records its new head)", last, seq))
	case sealed && (!found || have != h):
		return j.core.corrupt(seq, "the event is not the one the head record beside the journal names: the chain was made anew")
	case !inFile:
		return j.core.corrupt(max(named, last), "the head the journal keeps does not match the last event")
	}
	if j.core.readOnly {
		return nil
	}
	f, err := os.OpenFile(HeadPath(j.core.path), os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return fmt.Errorf("journal: open: the head record: %w", err)
	}
	j.core.headMu.Lock()
	j.core.head = f
	if sealed && seq == last {
		j.core.headSeq = last
	}
	j.core.headMu.Unlock()
	j.core.writeHead(last, lastHash)
	if j.core.headErr != nil {
		return fmt.Errorf("journal: open: the head record: %w", j.core.headErr)
	}
	return nil
}

// headExpected reports whether the journal, whose last event is last, must have
// its head record beside it (checkHead): a keyed journal that is not new,
// empty, migrated from a schema before the record in this Open, or put in place
// by Restore, opened for writing.
func (j *Journal) headExpected(opts Options, creating bool, mig migrated, last uint64) bool {
	return j.core.rec.key != nil && !j.core.readOnly && !creating && last > 0 && !opts.recovery &&
		!j.core.keyAdoptOld && (mig.from == 0 || mig.from >= 3)
}

// headMissing is the refusal of a journal whose head record is missing.
func (j *Journal) headMissing(last uint64) error {
	return j.core.corrupt(last, fmt.Sprintf("the head record %s beside the journal is missing or cut short: it records the journal's last event, so that a journal cut short or made anew is found, and Galla will not write it anew. Put it back from where it was moved; a journal salvaged or restored by a manager is put in place with \"galla journal restore FILE\"", HeadPath(j.core.path)))
}

// closeHead closes the head record.
func (j *Journal) closeHead() error {
	j.core.headMu.Lock()
	defer j.core.headMu.Unlock()
	if j.core.head == nil {
		return nil
	}
	return j.core.closeHeadFile()
}

// Port returns the journal as package pos uses it (pos.Config.Journal): one value
// whose methods are its parts'.
func (j *Journal) Port() *Port { return j.port }
