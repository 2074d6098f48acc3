package journal

import (
	"context"
	"errors"
	"fmt"

	bolt "go.etcd.io/bbolt"
	berrors "go.etcd.io/bbolt/errors"

	"galla/pos"
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

// Verify is the check of start-up, the one Open makes unless
// Options.DeferVerify is set: it walks the hash chain from the last checkpoint
// (the newest Z report's seal) to the head, after checking that the checkpoint's
// event is still the one it sealed, and reads the pages the next Append rewrites
// (every bucket's root and right edge) from the file. Its cost is that of the
// events since the last Z report, not of the file; VerifyAll and VerifyFile check
// everything. It remembers the result for Verified. A damaged file gives the
// same *CorruptError (matching ErrCorrupt) as Open would; once a verification
// has failed, Verify returns that error again without checking anew. When ctx
// ends first it returns ctx's error and remembers nothing.
func (j *Journal) Verify(ctx context.Context) error {
	return j.verifyOnce(ctx, false)
}

// VerifyAll is the whole check of the file on an open journal: bbolt's
// consistency check (Tx.Check) after a walk of every page from the file, and the
// hash chain from the first event to the head. Appends wait while bbolt's check
// runs; on a large journal prefer VerifyFile on the day's backup, which checks
// the derived records too and leaves the live file alone. It remembers its
// result for Verified as Verify does.
func (j *Journal) VerifyAll(ctx context.Context) error {
	return j.verifyOnce(ctx, true)
}

// verifyOnce runs verify and keeps its result; a failure stays.
func (j *Journal) verifyOnce(ctx context.Context, full bool) error {
	j.verifyRun.Lock()
	defer j.verifyRun.Unlock()
	if done, err := j.Verified(); done && err != nil {
		return err
	}
	err := j.verify(ctx, full)
	if err != nil && !errors.Is(err, ErrDamaged) {
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

// verify checks the pages and then walks the hash chain: everything when full is
// set, else the right edge of every bucket and the chain from the last
// checkpoint.
func (j *Journal) verify(ctx context.Context, full bool) error {
	err := j.checkPages(full)
	if err == nil {
		err = ctx.Err()
	}
	if err == nil {
		err = j.view(func(tx *bolt.Tx) error { return j.verifyChain(ctx, tx, full) })
	}
	if err != nil {
		var (
			ce *CorruptError
			me *MismatchError
		)
		if errors.As(err, &ce) || errors.As(err, &me) {
			return err
		}
		return fmt.Errorf("journal: verify: %w", err)
	}
	return nil
}

// checkPages walks the page tree from the file (walkTree; only the right edge of
// every bucket unless full is set) and, when full is set, runs bbolt's
// consistency check (Tx.Check). bbolt allows it beside
// writers only in a read-write transaction (in a read-only one it reads the
// freelist that a concurrent commit changes), so it runs in one that is rolled
// back: nothing is written, and appends wait for the check (not for the chain
// walk, which reads a snapshot).
//
// A journal opened read-only has no writers, so its check runs in a read-only
// transaction. bbolt's check runs in a goroutine of its own, where guard cannot
// catch a fault; preflight has made sure every page it can name is in the file.
func (j *Journal) checkPages(full bool) error {
	var first error
	err := guard(func() error {
		tx, err := j.db.Begin(!j.readOnly)
		if err != nil {
			return err
		}
		defer func() { _ = tx.Rollback() }()
		if err := walkTree(tx, !full); err != nil {
			first = err
			return nil
		}
		if !full {
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
// link to the one before and the head kept in meta. Unless full is set it starts
// after the last checkpoint, whose own event must still be the day.closed it
// sealed, with the hash it sealed. It stops with ctx's error when ctx ends.
func (j *Journal) verifyChain(ctx context.Context, tx *bolt.Tx, full bool) error {
	events := tx.Bucket(bucketEvents)
	meta := tx.Bucket(bucketMeta)
	if events == nil || meta == nil {
		return j.corrupt(0, "a bucket is missing")
	}
	var (
		prev    [32]byte
		want    uint64 = 1
		keyed   bool   // an event before was keyed: every one after must be
		cpSeq   uint64 // the last checkpoint's event
		derived since  // what the events after it wrote
	)
	cp, ok, err := lastCheckpoint(tx)
	if err != nil {
		return j.corrupt(0, err.Error())
	}
	if ok {
		cpSeq = cp.Seq
	}
	if ok && !full {
		r, err := j.checkCheckpoint(events, cp)
		if err != nil {
			return err
		}
		prev, want, keyed = cp.Hash, cp.Seq+1, r.Keyed
	}
	c := events.Cursor()
	for k, v := c.Seek(u64(want)); k != nil; k, v = c.Next() {
		if len(k) != 8 || beU64(k) != want {
			return j.corrupt(want, "a sequence number is missing or a key is malformed")
		}
		r, err := j.rec.decode(v)
		switch {
		case err != nil:
			return j.corrupt(want, err.Error())
		case r.Seq != want:
			return j.corrupt(want, "the sequence number does not match its key")
		case r.Prev != prev:
			return j.corrupt(want, "hash chain broken: prev_hash is not the previous event's hash")
		case keyed && !r.Keyed:
			return j.corrupt(want, "an event without the chain key after keyed ones")
		}
		if want > cpSeq {
			ev, err := r.event()
			if err != nil {
				return j.corrupt(want, err.Error())
			}
			derived.note(&ev)
		}
		prev, keyed = r.Hash, r.Keyed
		want++
		if want%1024 == 0 {
			if err := ctx.Err(); err != nil {
				return err
			}
		}
	}
	seq, h, headOK := headOf(meta.Get(metaHead))
	if !headOK || seq != want-1 || h != prev {
		return j.corrupt(max(seq, want-1), "the head in meta does not match the last event")
	}
	if ok && full {
		if _, err := j.checkCheckpoint(events, cp); err != nil {
			return err
		}
	}
	return j.checkSince(tx, &derived)
}

// corrupt builds the CorruptError for seq, naming the newest backup.
func (j *Journal) corrupt(seq uint64, reason string) error {
	backup, _ := LatestBackup(j.backupDir)
	return &CorruptError{Path: j.path, Seq: seq, Reason: reason, Backup: backup}
}

// checkCheckpoint checks that the event cp names is still the day.closed of its Z
// report, with the hash cp sealed.
func (j *Journal) checkCheckpoint(events *bolt.Bucket, cp Checkpoint) (*record, error) {
	v := events.Get(u64(cp.Seq))
	if v == nil {
		return nil, j.corrupt(cp.Seq, fmt.Sprintf("the event sealed by Z report %d is missing", cp.ZNo))
	}
	r, err := j.rec.decode(v)
	if err != nil {
		return nil, j.corrupt(cp.Seq, err.Error())
	}
	if r.Seq != cp.Seq || r.Hash != cp.Hash || cp.Events != cp.Seq {
		return nil, j.corrupt(cp.Seq, fmt.Sprintf("the event is not the one Z report %d sealed", cp.ZNo))
	}
	ev, err := r.event()
	if err != nil {
		return nil, j.corrupt(cp.Seq, err.Error())
	}
	if ev.Kind != pos.EvDayClosed || ev.DayClose == nil || ev.DayClose.ZNo != cp.ZNo {
		return nil, j.corrupt(cp.Seq, fmt.Sprintf("the event is not the day.closed of Z report %d", cp.ZNo))
	}
	return r, nil
}
