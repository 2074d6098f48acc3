package journal

import (
	"context"
	"errors"
	"fmt"

	bolt "go.etcd.io/bbolt"
	berrors "go.etcd.io/bbolt/errors"
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
		backup = fmt.Sprintf("The last backup is %s: close Galla and run \"galla journal salvage %s --backup %s --out NEW\" to keep the sales after it too, or \"galla journal restore %s\"; the damaged file is kept aside.", e.Backup, e.Path, e.Backup, e.Backup)
	}
	return fmt.Sprintf("The journal %s is damaged%s (%s), so Galla will not take payments from it. %s", e.Path, where, e.Reason, backup)
}

// Is makes errors.Is(err, ErrCorrupt) and errors.Is(err, ErrDamaged) hold.
func (e *CorruptError) Is(target error) bool { return target == ErrCorrupt || target == ErrDamaged }

// Verify runs bbolt's consistency check and walks the whole hash chain, the check
// Open makes unless Options.DeferVerify is set, and remembers the result for
// Verified. A damaged file gives the same *CorruptError (matching ErrCorrupt) as
// Open would; once a verification has failed, Verify returns that error again
// without checking anew. Appends wait while bbolt's check runs (see checkPages)
// but not during the walk of the chain, which reads one snapshot of the file.
// When ctx ends first it returns ctx's error and remembers nothing.
func (j *Journal) Verify(ctx context.Context) error {
	j.verifyRun.Lock()
	defer j.verifyRun.Unlock()
	if done, err := j.Verified(); done && err != nil {
		return err
	}
	err := j.verify(ctx)
	if err != nil && !errors.Is(err, ErrCorrupt) {
		return err
	}
	j.vmu.Lock()
	j.verified, j.verifyErr = true, err
	j.vmu.Unlock()
	return err
}

// Verified reports whether a verification has finished (in Open, or a Verify)
// and, when it has, its result: nil, or the *CorruptError that says what is
// damaged and where the last backup is.
func (j *Journal) Verified() (done bool, err error) {
	j.vmu.Lock()
	defer j.vmu.Unlock()
	return j.verified, j.verifyErr
}

// verify runs bbolt's consistency check and then walks the hash chain.
func (j *Journal) verify(ctx context.Context) error {
	err := j.checkPages()
	if err == nil {
		err = ctx.Err()
	}
	if err == nil {
		err = j.view(func(tx *bolt.Tx) error { return j.verifyChain(ctx, tx) })
	}
	if err != nil {
		var ce *CorruptError
		if errors.As(err, &ce) {
			return err
		}
		return fmt.Errorf("journal: verify: %w", err)
	}
	return nil
}

// checkPages runs bbolt's consistency check (Tx.Check). bbolt allows it beside
// writers only in a read-write transaction (in a read-only one it reads the
// freelist that a concurrent commit changes), so it runs in one that is rolled
// back: nothing is written, and appends wait for the check (not for the chain
// walk, which reads a snapshot).
//
// A journal opened read-only has no writers, so its check runs in a read-only
// transaction. bbolt's check runs in a goroutine of its own, where guard cannot
// catch a fault; preflight has made sure every page it can name is in the file.
func (j *Journal) checkPages() error {
	var first error
	err := guard(func() error {
		tx, err := j.db.Begin(!j.readOnly)
		if err != nil {
			return err
		}
		defer func() { _ = tx.Rollback() }()
		if err := walkTree(tx); err != nil {
			first = err
			return nil
		}
		// Read the channel to its end so that the checking goroutine finishes.
		for cerr := range tx.Check() {
			if first == nil {
				first = cerr
			}
		}
		return nil
	})
	var pe *panicError
	switch {
	case errors.Is(err, berrors.ErrDatabaseNotOpen):
		return ErrClosed
	case errors.As(err, &pe):
		return j.corrupt(0, pe.Error())
	case err != nil:
		return err
	}
	if first != nil {
		return j.corrupt(0, "bbolt consistency check: "+first.Error())
	}
	return nil
}

// verifyChain decodes every event in sequence order and checks its own hash, its
// link to the one before and the head kept in meta.
// It stops with ctx's error when ctx ends.
func (j *Journal) verifyChain(ctx context.Context, tx *bolt.Tx) error {
	events := tx.Bucket(bucketEvents)
	meta := tx.Bucket(bucketMeta)
	if events == nil || meta == nil {
		return j.corrupt(0, "a bucket is missing")
	}
	var (
		prev [32]byte
		want uint64 = 1
	)
	c := events.Cursor()
	for k, v := c.First(); k != nil; k, v = c.Next() {
		if len(k) != 8 || beU64(k) != want {
			return j.corrupt(want, "a sequence number is missing or a key is malformed")
		}
		r, err := decodeRecord(v)
		switch {
		case err != nil:
			return j.corrupt(want, err.Error())
		case r.Seq != want:
			return j.corrupt(want, "the sequence number does not match its key")
		case r.Prev != prev:
			return j.corrupt(want, "hash chain broken: prev_hash is not the previous event's hash")
		}
		prev = r.Hash
		want++
		if want%1024 == 0 {
			if err := ctx.Err(); err != nil {
				return err
			}
		}
	}
	seq, h, ok := headOf(meta.Get(metaHead))
	if !ok || seq != want-1 || h != prev {
		return j.corrupt(max(seq, want-1), "the head in meta does not match the last event")
	}
	return nil
}

// corrupt builds the CorruptError for seq, naming the newest backup.
func (j *Journal) corrupt(seq uint64, reason string) error {
	backup, _ := LatestBackup(j.backupDir)
	return &CorruptError{Path: j.path, Seq: seq, Reason: reason, Backup: backup}
}
