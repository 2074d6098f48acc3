package journal

import (
	"bytes"
	"context"
	"errors"
	"fmt"
)

// ErrDerivedMismatch is matched (errors.Is) by the error of CheckDay and
// VerifyFile when a derived record (an order, a day's list, the unresolved list, a
// counter, a Z report) is not what replaying the events gives: the file was
// edited or damaged. It is a *MismatchError, and matches ErrDamaged too.
var ErrDerivedMismatch = errors.New("journal's derived records do not match its events")

// MismatchError names the first derived record that replay does not reproduce.
type MismatchError struct {
	Path   string // the journal file
	Bucket string // the derived bucket
	Key    string // the record, readable
	Reason string // what differs
	Backup string // the newest backup, or ""
}

// Error names the record.
func (e *MismatchError) Error() string {
	return fmt.Sprintf("journal: %s: %s %q: %s: %v", e.Path, e.Bucket, e.Key, e.Reason, ErrDerivedMismatch)
}

// Is makes errors.Is(err, ErrDerivedMismatch) and errors.Is(err, ErrDamaged) hold.
func (e *MismatchError) Is(target error) bool {
	return target == ErrDerivedMismatch || target == ErrDamaged
}

// Sentence is what the manager reads (pos.Sentencer).
func (e *MismatchError) Sentence() string {
	backup := "BACKUP"
	if e.Backup != "" {
		backup = e.Backup
	}
	return fmt.Sprintf("The journal %s has been changed outside Galla: the record %s in %s does not match the sales recorded (%s), so its reports cannot be trusted and Galla will not take payments from it. The last backup is %s. Close Galla and run \"galla journal salvage %s --backup %s --out NEW\", which rebuilds every record from the sales, then \"galla journal restore NEW\" to put it in place (both with a manager's PIN).",
		e.Path, e.Key, e.Bucket, e.Reason, backup, e.Path, backup)
}

// Report is what VerifyFile found.
type Report struct {
	Path      string  // the file checked
	Events    uint64  // the events in its log
	Numbers   Numbers // its counters
	HighWater Numbers // the high-water file beside it (zero when there is none)
	Verified  bool    // bbolt's check, the hash chain and the derived records all passed
}

// VerifyFile checks the journal file at path the whole way (galla journal
// verify): the file's size and meta pages, bbolt's consistency check, the hash
// chain, every derived bucket and counter against a replay of every event (into
// a temporary file), and the counters against the high-water file. It opens the
// file read-only, so it refuses a journal the terminal has open
// (ErrAlreadyRunning). The error matches ErrDamaged (a *CorruptError or a
// *MismatchError), ErrBehind or ErrMissing; the Report holds what could be read.
func VerifyFile(ctx context.Context, path string) (Report, error) {
	return VerifyFileWith(ctx, path, Options{})
}

// VerifyFileWith is VerifyFile with the options of the journal: opts.ChainKey is
// the key its keyed events, checkpoints and head are checked with (a journal
// whose events are keyed does not verify without it), opts.BackupDir where the
// sentences look for backups. The other options are not used.
func VerifyFileWith(ctx context.Context, path string, opts Options) (Report, error) {
	rep := Report{Path: path}
	hw, _, err := ReadNumbers(path)
	if err != nil {
		return rep, err
	}
	rep.HighWater = hw
	j, err := Open(path, Options{ReadOnly: true, DeferVerify: true, Create: CreateNever, ChainKey: opts.ChainKey, BackupDir: opts.BackupDir})
	if err != nil {
		return rep, err
	}
	defer j.Close()
	if rep.Numbers, err = j.Numbers(); err != nil {
		return rep, err
	}
	if rep.Events, err = j.Log.LastSeq(ctx); err != nil {
		return rep, err
	}
	if err := j.Log.VerifyAll(ctx); err != nil {
		return rep, err
	}
	if err := j.Log.checkDerived(ctx); err != nil {
		return rep, err
	}
	if rep.Numbers.behind(hw) {
		backup, _ := LatestBackup(j.core.backupDir)
		return rep, &BehindError{Path: path, Numbers: NumbersPath(path), Journal: rep.Numbers, HighWater: hw, Backup: backup}
	}
	rep.Verified = true
	return rep, nil
}

// printable shows a key with its binary parts (sequences) as numbers.
func printable(k []byte) string {
	if i := bytes.IndexByte(k, sep); i >= 0 && len(k) == i+9 {
		return fmt.Sprintf("%s %d", k[:i], beU64(k[i+1:]))
	}
	if len(k) == 8 && !isText(k) {
		return fmt.Sprint(beU64(k))
	}
	return string(k)
}

// isText reports whether k is printable ASCII (a key such as "products", not a
// number).
func isText(k []byte) bool {
	for _, c := range k {
		if c < 0x20 || c > 0x7e {
			return false
		}
	}
	return true
}
