package journal

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"

	bolt "go.etcd.io/bbolt"

	"galla/pos"
)

// Numbers is the last number handed out in each document series of a journal.
// Receipt numbers are one series for sales and refunds (a refund receipt takes the
// next receipt number); Z numbers are the day closes.
type Numbers struct {
	Receipt uint64 `json:"receipt_no"`
	Z       uint64 `json:"z_no"`
}

// max returns the larger of n and o in each series.
func (n Numbers) max(o Numbers) Numbers {
	return Numbers{Receipt: max(n.Receipt, o.Receipt), Z: max(n.Z, o.Z)}
}

// behind reports whether n is below o in some series.
func (n Numbers) behind(o Numbers) bool { return n.Receipt < o.Receipt || n.Z < o.Z }

// numbersSuffix ends the name of the number high-water file beside a journal.
const numbersSuffix = ".numbers"

// NumbersPath is the number high-water file of the journal at path: path with
// ".numbers" added (journal.db.numbers). It holds the last number of every series
// the journal at path ever handed out, outside the journal file (DESIGN.md
// section 4), so that a journal put back from an old copy cannot hand a number out
// twice.
func NumbersPath(path string) string { return path + numbersSuffix }

// numbersFile is the high-water file's JSON: {"v":1,"receipt_no":N,"z_no":M}.
type numbersFile struct {
	V int `json:"v"`
	Numbers
}

// ReadNumbers reads the high-water file of the journal at path. A missing file,
// and one that is empty or does not decode (a crash between its write and its
// rename can leave one, since it is not fsync'd), give zero numbers and ok false:
// the journal's own counters then stand and Open writes the file again.
func ReadNumbers(path string) (n Numbers, ok bool, err error) {
	raw, err := os.ReadFile(NumbersPath(path))
	if errors.Is(err, fs.ErrNotExist) {
		return Numbers{}, false, nil
	}
	if err != nil {
		return Numbers{}, false, fmt.Errorf("journal: numbers: %w", err)
	}
	var f numbersFile
	if json.Unmarshal(raw, &f) != nil || f.V != 1 {
		return Numbers{}, false, nil
	}
	return f.Numbers, true, nil
}

// writeNumbers writes n to the high-water file of the journal at path: a
// temporary file beside it, renamed into place, mode 0600. It is not fsync'd: the
// journal's commit that allocated the numbers is, so after a power cut the file is
// at worst one number behind the journal (Open lifts it again), and an fsync here
// would double the cost of every Append that hands out a number.
func writeNumbers(path string, n Numbers) error {
	data, err := json.Marshal(numbersFile{V: 1, Numbers: n})
	if err != nil {
		return err
	}
	dst := NumbersPath(path)
	tmp := dst + ".tmp"
	if err := os.WriteFile(tmp, data, 0o600); err != nil {
		return err
	}
	if err := os.Rename(tmp, dst); err != nil {
		_ = os.Remove(tmp)
		return err
	}
	return nil
}

// numbersOf reads the counters of a journal in tx.
func numbersOf(tx *bolt.Tx) Numbers {
	meta := tx.Bucket(bucketMeta)
	if meta == nil {
		return Numbers{}
	}
	return Numbers{Receipt: getU64(meta, metaReceipt), Z: getU64(meta, metaZ)}
}

// Numbers returns the last number of every series this journal has handed out.
func (j *Journal) Numbers() (Numbers, error) {
	var n Numbers
	if err := j.view(func(tx *bolt.Tx) error { n = numbersOf(tx); return nil }); err != nil {
		return Numbers{}, fmt.Errorf("journal: numbers: %w", err)
	}
	return n, nil
}

// noteNumbers raises the high-water file to n when n is above what it last wrote.
// Appends that hand out no number never call it. A failed write is kept and tried
// again with the next number, and Open catches the file up, since the journal
// itself already holds the numbers.
func (j *Journal) noteNumbers(n Numbers) {
	j.numMu.Lock()
	defer j.numMu.Unlock()
	if !j.numWritten.behind(n) && j.numErr == nil {
		return
	}
	hw := j.numWritten.max(n)
	if err := writeNumbers(j.path, hw); err != nil {
		j.numErr = err
		return
	}
	j.numWritten, j.numErr = hw, nil
}

// EvNumbersContinued is the kind of the journal's own event that lifts the
// counters of the number series to the values in its Data ({"receipt_no":N,
// "z_no":M,"reason":"..."}): Restore and Salvage append it so that the next number
// continues past the highest ever handed out, and none is used twice. It never
// lowers a counter.
const EvNumbersContinued pos.EventKind = "numbers.continued"

// numbersEvent is the Data of numbers.continued.
type numbersEvent struct {
	Numbers
	Reason string `json:"reason,omitempty"`
}

// deriveNumbers applies numbers.continued.
func deriveNumbers(tx *bolt.Tx, ev *pos.Event) error {
	var d numbersEvent
	if err := json.Unmarshal(ev.Data, &d); err != nil {
		return fmt.Errorf("%w: numbers.continued: %w", pos.ErrBadEvent, err)
	}
	meta := tx.Bucket(bucketMeta)
	for _, c := range []struct {
		key []byte
		to  uint64
	}{{metaReceipt, d.Receipt}, {metaZ, d.Z}} {
		if c.to > getU64(meta, c.key) {
			if err := putU64(meta, c.key, c.to); err != nil {
				return err
			}
		}
	}
	return nil
}

// BehindError is the error Open returns for a journal whose counters are below
// the number high-water file beside it: an old copy put back, whose next receipt
// or Z number was already handed out. It matches ErrBehind.
type BehindError struct {
	Path      string  // the journal file
	Numbers   string  // its high-water file
	Journal   Numbers // the journal's counters
	HighWater Numbers // the high-water file's
	Backup    string  // the newest backup, or ""
}

// ErrBehind is matched (errors.Is) by a *BehindError.
var ErrBehind = errors.New("journal is behind the numbers already handed out")

func (e *BehindError) series() string {
	if e.Journal.Receipt < e.HighWater.Receipt {
		return fmt.Sprintf("receipt number %d, but receipt numbers up to %d", e.Journal.Receipt, e.HighWater.Receipt)
	}
	return fmt.Sprintf("Z report number %d, but Z reports up to %d", e.Journal.Z, e.HighWater.Z)
}

// Error names both numbers.
func (e *BehindError) Error() string {
	return fmt.Sprintf("journal: %s ends at %s were handed out (%s): %v", e.Path, e.series(), e.Numbers, ErrBehind)
}

// Is makes errors.Is(err, ErrBehind) hold.
func (e *BehindError) Is(target error) bool { return target == ErrBehind }

// Sentence is what the manager reads (pos.Sentencer).
func (e *BehindError) Sentence() string {
	backup := "BACKUP"
	if e.Backup != "" {
		backup = e.Backup
	}
	return fmt.Sprintf("The journal %s is an old copy: it ends at %s were already handed out on this terminal (%s), so Galla will not use it, which would print numbers twice. Run \"galla journal salvage %s --backup %s --out NEW\" to keep every sale, or \"galla journal restore %s\", which continues the numbers.",
		e.Path, e.series(), e.Numbers, e.Path, backup, backup)
}
