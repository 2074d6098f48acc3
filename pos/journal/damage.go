package journal

import (
	"errors"
	"fmt"
	"path/filepath"
	"strings"
)

// ErrDamaged is matched (errors.Is) by every error that says the journal file is
// damaged: a file cut short, a bad meta or page, a broken hash chain (ErrCorrupt),
// derived records that replay does not reproduce (ErrDerivedMismatch). The error
// is a *CorruptError or a *MismatchError whose sentence says what is damaged,
// where the last backup is and which command to run. The terminal cannot work on
// such a file (exit 5).
var ErrDamaged = errors.New("journal is damaged")

// ErrMissing is matched (errors.Is) by the error Open returns when the journal
// file is missing or empty in a data directory that was used before (DirUsed), or
// missing when Options.Create is CreateNever. The error is a *MissingError whose
// sentence names the backups and the commands that restore or salvage one. The
// terminal cannot work without its journal (exit 5).
var ErrMissing = errors.New("journal is missing")

// ErrReadOnly is returned by every write to a journal opened with
// Options.ReadOnly.
var ErrReadOnly = errors.New("journal is open read-only")

// MissingError says that the journal file is missing or empty where a journal
// was kept before, and which backups there are. It matches ErrMissing.
type MissingError struct {
	Path    string   // the journal file
	Empty   bool     // the file is there but holds no byte
	Signs   []string // what in the data directory shows earlier use (DirUsed)
	Backups []string // the backups found, newest first
}

// Error says what is missing and why no new journal was made.
func (e *MissingError) Error() string {
	what := "is missing"
	if e.Empty {
		what = "is empty"
	}
	return fmt.Sprintf("journal: %s %s in a data directory used before (%s); backups: %s: %v",
		e.Path, what, strings.Join(e.Signs, ", "), backupList(e.Backups), ErrMissing)
}

// Is makes errors.Is(err, ErrMissing) hold.
func (e *MissingError) Is(target error) bool { return target == ErrMissing }

// Sentence is what the manager reads (pos.Sentencer): the file, that no new
// journal is started, the backups and the commands.
func (e *MissingError) Sentence() string {
	what := "There is no journal at " + e.Path
	if e.Empty {
		what = "The journal " + e.Path + " is empty"
	}
	backup := "BACKUP"
	if len(e.Backups) > 0 {
		backup = e.Backups[0]
	}
	return fmt.Sprintf("%s, but this data directory was used before (%s), so Galla will not start a new journal, which would number receipts from 1 again and lose the staff and closed days. Backups: %s. Run \"galla journal restore %s\", or \"galla journal salvage DAMAGED --backup %s --out NEW\" if the journal was moved or damaged.",
		what, strings.Join(e.Signs, ", "), backupList(e.Backups), backup, backup)
}

// backupList names up to three backups.
func backupList(b []string) string {
	switch {
	case len(b) == 0:
		return "none found"
	case len(b) > 3:
		return strings.Join(b[:3], ", ") + fmt.Sprintf(" and %d older", len(b)-3)
	}
	return strings.Join(b, ", ")
}

// missing builds the MissingError of path, listing the backups in backupDir.
func missing(path, backupDir string, empty bool, signs []string) error {
	backups, _ := Backups(backupDir)
	return &MissingError{Path: path, Empty: empty, Signs: signs, Backups: backups}
}

// damaged builds the CorruptError of a file that could not be given to bbolt or
// that bbolt failed on, naming the newest backup in backupDir.
func damaged(path, backupDir, reason string) *CorruptError {
	backup, _ := LatestBackup(backupDir)
	return &CorruptError{Path: path, Reason: reason, Backup: backup}
}

// backupDirOf is the default backup directory of the journal at path.
func backupDirOf(path string) string { return filepath.Join(filepath.Dir(path), defaultBackupDir) }
