package journal

import (
	"fmt"
)

// CorruptError says where the journal broke and where the last backup is. It
// matches ErrCorrupt with errors.Is.
type CorruptError struct {
	Path   string // the journal file
	Seq    uint64 // the first event that fails; 0 when the damage is elsewhere (bbolt's pages, a bucket)
	Reason string // what failed, in a few words
	Backup string // the newest backup file, or "" when there is none
}

// Error says which sequence broke and where the last backup is.
func (e *CorruptError) Error() string {
	where := ""
	if e.Seq > 0 {
		where = fmt.Sprintf(" at event %d", e.Seq)
	}
	backup := "no backup was found"
	if e.Backup != "" {
		backup = "the last backup is at " + e.Backup
	}
	return fmt.Sprintf("journal: %s is corrupt%s (%s); %s", e.Path, where, e.Reason, backup)
}

// Sentence is what the manager reads (pos.Sentencer): what is damaged, that no
// card payment is taken from it, where the last backup is and the commands that
// salvage the sales after it or restore it.
func (e *CorruptError) Sentence() string {
	where := ""
	if e.Seq > 0 {
		where = fmt.Sprintf(" at event %d", e.Seq)
	}
	backup := fmt.Sprintf("No backup was found: keep the damaged file and do not delete it; run \"galla journal salvage %s --out NEW\" to copy what is intact into a new journal, or call support.", e.Path)
	if e.Backup != "" {
		backup = fmt.Sprintf("The last backup is %s: close Galla and run \"galla journal salvage %s --backup %s --out NEW\" to keep the sales after it too, or \"galla journal restore %s\"; the damaged file is kept aside. A salvaged journal is put in place with \"galla journal restore NEW\" (a manager's PIN).", e.Backup, e.Path, e.Backup, e.Backup)
	}
	return fmt.Sprintf("The journal %s is damaged%s (%s), so Galla will not take payments from it. %s", e.Path, where, e.Reason, backup)
}

// Is makes errors.Is(err, ErrCorrupt) and errors.Is(err, ErrDamaged) hold.
func (e *CorruptError) Is(target error) bool { return target == ErrCorrupt || target == ErrDamaged }
