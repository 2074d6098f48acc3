package journal

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"slices"

	bolt "go.etcd.io/bbolt"

	"galla/pos"
)

// Numbers is the last number handed out in each document series of a journal.
// Receipt numbers are the one series sales and refunds were numbered in before
// document series (pos/series.go); Series holds the last number of each of those
// ("2627", "B2627", "C2627"); Z numbers are the day closes.
type Numbers struct {
	Receipt uint64            `json:"receipt_no"`
	Z       uint64            `json:"z_no"`
	Series  map[string]uint64 `json:"series,omitempty"`
}

// max returns the larger of n and o in each series.
func (n Numbers) max(o Numbers) Numbers {
	m := Numbers{Receipt: max(n.Receipt, o.Receipt), Z: max(n.Z, o.Z)}
	for _, src := range []map[string]uint64{n.Series, o.Series} {
		for k, v := range src {
			if m.Series == nil {
				m.Series = map[string]uint64{}
			}
			m.Series[k] = max(m.Series[k], v)
		}
	}
	return m
}

// behind reports whether n is below o in some series.
func (n Numbers) behind(o Numbers) bool {
	if n.Receipt < o.Receipt || n.Z < o.Z {
		return true
	}
	_, behind := n.behindSeries(o)
	return behind
}

// behindSeries returns a document series in which n is below o, sorted first.
func (n Numbers) behindSeries(o Numbers) (string, bool) {
	for _, k := range slices.Sorted(maps.Keys(o.Series)) {
		if n.Series[k] < o.Series[k] {
			return k, true
		}
	}
	return "", false
}

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
	n := Numbers{Receipt: getU64(meta, metaReceipt), Z: getU64(meta, metaZ)}
	if docs := tx.Bucket(bucketDocuments); docs != nil {
		c := docs.Cursor()
		for k, v := c.Seek(docLastPrefix); k != nil && bytes.HasPrefix(k, docLastPrefix); k, v = c.Next() {
			if n.Series == nil {
				n.Series = map[string]uint64{}
			}
			if len(v) == 8 {
				n.Series[string(k[len(docLastPrefix):])] = binary.BigEndian.Uint64(v)
			}
		}
	}
	return n
}

// The keys of the documents bucket: "last" 0x00 SERIES → the series' last number
// (8 bytes big-endian); "doc" 0x00 SERIES 0x00 NUMBER (8 bytes) → the order id,
// and for a credit note 0x00 and the refund's unique_txn_id.
var (
	docLastPrefix = []byte("last\x00")
	docNoPrefix   = []byte("doc\x00")
)

func docKey(series string, no uint64) []byte {
	k := append(append(slices.Clone(docNoPrefix), series...), sep)
	return append(k, u64(no)...)
}

// lastDoc reads the last number of series in tx; 0 when none.
func lastDoc(tx *bolt.Tx, series string) uint64 {
	docs := tx.Bucket(bucketDocuments)
	if docs == nil {
		return 0
	}
	return getU64(docs, append(slices.Clone(docLastPrefix), series...))
}

// document reads which order (and refund) number no of series was given to.
func document(tx *bolt.Tx, series string, no uint64) (orderID, refund string, ok bool) {
	docs := tx.Bucket(bucketDocuments)
	if docs == nil {
		return "", "", false
	}
	v := docs.Get(docKey(series, no))
	if v == nil {
		return "", "", false
	}
	id, ref, _ := bytes.Cut(v, []byte{sep})
	return string(id), string(ref), true
}

// deriveDocument checks that ev's DocNo is the last number of its series plus
// one, and records it as the last and as the document of ev's order.
func deriveDocument(tx *bolt.Tx, ev *pos.Event) error {
	if !validSeries(ev.Series) {
		return fmt.Errorf("%w: document series %q", pos.ErrBadEvent, ev.Series)
	}
	docs, err := tx.CreateBucketIfNotExists(bucketDocuments)
	if err != nil {
		return err
	}
	last := lastDoc(tx, ev.Series)
	if ev.DocNo != last+1 {
		return fmt.Errorf("the document number %s/%d after %d: %w", ev.Series, ev.DocNo, last, pos.ErrSequence)
	}
	if err := putU64(docs, append(slices.Clone(docLastPrefix), ev.Series...), ev.DocNo); err != nil {
		return err
	}
	v := []byte(ev.OrderID)
	if ev.Refund != nil && ev.Refund.UniqueTxnID != "" {
		v = append(append(v, sep), ev.Refund.UniqueTxnID...)
	}
	return docs.Put(docKey(ev.Series, ev.DocNo), v)
}

// validSeries reports whether s is a series name: 4 digits, or B or C and 4 digits.
func validSeries(s string) bool {
	if len(s) == 5 && (s[0] == 'B' || s[0] == 'C') {
		s = s[1:]
	}
	if len(s) != 4 {
		return false
	}
	for _, c := range []byte(s) {
		if c < '0' || c > '9' {
			return false
		}
	}
	return true
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
	for series, to := range d.Series {
		if !validSeries(series) {
			return fmt.Errorf("%w: numbers.continued: series %q", pos.ErrBadEvent, series)
		}
		if to > lastDoc(tx, series) {
			docs, err := tx.CreateBucketIfNotExists(bucketDocuments)
			if err != nil {
				return err
			}
			if err := putU64(docs, append(slices.Clone(docLastPrefix), series...), to); err != nil {
				return err
			}
		}
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
	if s, ok := e.Journal.behindSeries(e.HighWater); ok {
		return fmt.Sprintf("document %s/%d, but %s numbers up to %d", s, e.Journal.Series[s], s, e.HighWater.Series[s])
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
