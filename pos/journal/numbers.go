package journal

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
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

// numbersV1 is the high-water file as builds before format 2 wrote it, one
// JSON object rewritten whole (a temporary file renamed into place):
// {"v":1,"receipt_no":N,"z_no":M,"series":{...}}. It is still read.
type numbersV1 struct {
	V int `json:"v"`
	Numbers
}

// The high-water file of format 2 is two slots of the same size, written in
// place by turns with one pwrite each, so that handing out a number costs one
// write and no rename. A slot is
//
//	"GN" 0x02 | 0x00 | u64 generation | u32 n | u32 CRC-32C | n bytes JSON of Numbers | zeros
//
// the CRC over the 16 bytes before it and the JSON. A write cut short by a crash
// damages only the slot being written, whose CRC then fails; the other slot
// holds the numbers before it, at most one number behind, which is what the
// file promised already (it is not fsync'd, see writeNumbers). The reader takes,
// series by series, the larger of the two valid slots: numbers only grow.
const (
	numbersSlotHeader = 20
	numbersSlotMin    = 256 // the smallest slot; a slot grows by doubling when its JSON outgrows it
)

// numbersMagic opens every slot of format 2.
var numbersMagic = []byte{'G', 'N', 2, 0}

// numbersCRC is the table of the slots' CRC-32C.
var numbersCRC = crc32.MakeTable(crc32.Castagnoli)

// ReadNumbers reads the high-water file of the journal at path. A missing file,
// and one of which no slot decodes (or, of format 1, that does not decode: a
// crash between its write and its rename could leave one), give zero numbers
// and ok false: the journal's own counters then stand and Open writes the file
// again.
func ReadNumbers(path string) (n Numbers, ok bool, err error) {
	raw, err := os.ReadFile(NumbersPath(path))
	if errors.Is(err, fs.ErrNotExist) {
		return Numbers{}, false, nil
	}
	if err != nil {
		return Numbers{}, false, fmt.Errorf("journal: numbers: %w", err)
	}
	n, _, ok = decodeNumbers(raw)
	return n, ok, nil
}

// decodeNumbers decodes a high-water file of either format. For format 2 it
// also returns the generation of the newest valid slot.
func decodeNumbers(raw []byte) (Numbers, uint64, bool) {
	if len(raw) > 0 && raw[0] == '{' {
		var f numbersV1
		if json.Unmarshal(raw, &f) != nil || f.V != 1 {
			return Numbers{}, 0, false
		}
		return f.Numbers, 0, true
	}
	size := len(raw) / 2
	if len(raw)%2 != 0 || size < numbersSlotMin {
		return Numbers{}, 0, false
	}
	var (
		n   Numbers
		gen uint64
		ok  bool
	)
	for at := 0; at < len(raw); at += size {
		sn, sg, sok := decodeNumbersSlot(raw[at : at+size])
		if sok {
			n, gen, ok = n.max(sn), max(gen, sg), true
		}
	}
	return n, gen, ok
}

// decodeNumbersSlot decodes one slot of format 2.
func decodeNumbersSlot(slot []byte) (Numbers, uint64, bool) {
	if !bytes.HasPrefix(slot, numbersMagic) {
		return Numbers{}, 0, false
	}
	gen := binary.BigEndian.Uint64(slot[4:12])
	size := int(binary.BigEndian.Uint32(slot[12:16]))
	if size > len(slot)-numbersSlotHeader {
		return Numbers{}, 0, false
	}
	payload := slot[numbersSlotHeader : numbersSlotHeader+size]
	crc := crc32.Update(crc32.Checksum(slot[:16], numbersCRC), numbersCRC, payload)
	if crc != binary.BigEndian.Uint32(slot[16:20]) {
		return Numbers{}, 0, false
	}
	var n Numbers
	if json.Unmarshal(payload, &n) != nil {
		return Numbers{}, 0, false
	}
	return n, gen, true
}

// numbersSlot encodes n as a slot of generation gen into buf (its size the
// slot's); false when n's JSON does not fit.
func numbersSlot(buf []byte, gen uint64, n Numbers) bool {
	payload, err := json.Marshal(n)
	if err != nil || len(payload) > len(buf)-numbersSlotHeader {
		return false
	}
	clear(buf)
	copy(buf, numbersMagic)
	binary.BigEndian.PutUint64(buf[4:12], gen)
	binary.BigEndian.PutUint32(buf[12:16], uint32(len(payload)))
	copy(buf[numbersSlotHeader:], payload)
	binary.BigEndian.PutUint32(buf[16:20], crc32.Update(crc32.Checksum(buf[:16], numbersCRC), numbersCRC, payload))
	return true
}

// writeNumbers writes n to the high-water file of the journal at path as a new
// file of format 2, both slots holding n: a temporary file beside it, renamed
// into place, mode 0600. Restore and Salvage write it so; an open journal
// writes its slots in place (numbersWriter). Neither is fsync'd: the journal's
// commit that allocated the numbers is, so after a power cut the file is at
// worst one number behind the journal (Open lifts it again), and an fsync here
// would double the cost of every Append that hands out a number.
func writeNumbers(path string, n Numbers) error {
	_, err := freshNumbers(path, n, 0)
	return err
}

// freshNumbers is writeNumbers with slots of at least minSlot bytes; it
// returns the slot size it used.
func freshNumbers(path string, n Numbers, minSlot int) (int, error) {
	size := max(numbersSlotMin, minSlot)
	var buf []byte
	for {
		// Generation g lives in slot g%2: the next write (3) goes to slot 1.
		buf = make([]byte, 2*size)
		if numbersSlot(buf[:size], 2, n) && numbersSlot(buf[size:], 1, n) {
			break
		}
		size *= 2
	}
	dst := NumbersPath(path)
	tmp := dst + ".tmp"
	if err := os.WriteFile(tmp, buf, 0o600); err != nil {
		return 0, err
	}
	if err := os.Rename(tmp, dst); err != nil {
		_ = os.Remove(tmp)
		return 0, err
	}
	return size, nil
}

// numbersWriter writes the high-water file of an open journal in place: the
// slot after the one it wrote last. The first write of a
// process, or one whose numbers outgrow the slots, or one to a file of format 1
// or damaged, makes the file anew (freshNumbers) and opens it.
// The file once open is mapped and its slots stored into the mapping, as
// the head record's is (fileMap); a file cut short under the mapping is made
// anew.
type numbersWriter struct {
	path string
	f    *os.File
	fm   fileMap // f mapped, both slots
	size int     // the slot size of f
	gen  uint64  // the generation written last
	buf  []byte
}

// write writes n.
func (w *numbersWriter) write(n Numbers) error {
	if w.f == nil {
		w.adopt()
	}
	minSlot := 2 * w.size
	if w.f != nil {
		gen := w.gen + 1
		if numbersSlot(w.buf, gen, n) {
			off := int(gen%2) * w.size
			if !w.fm.mapped() {
				if _, err := w.f.WriteAt(w.buf, int64(off)); err != nil {
					return err
				}
				w.gen = gen
				w.fm.mapOnce(w.f, 2*w.size)
				return nil
			}
			if w.fm.store(off, w.buf) {
				w.gen = gen
				return nil
			}
			// The file was cut short under the mapping: made anew below
			// (slots of the same size), and written from then on.
			minSlot = w.size
		}
	}
	// No file to write in place, or n outgrew its slots, or the file was cut
	// short. (Closed first: a file open cannot be renamed over everywhere.)
	_ = w.close()
	size, err := freshNumbers(w.path, n, minSlot)
	if err != nil {
		return err
	}
	f, err := os.OpenFile(NumbersPath(w.path), os.O_RDWR, 0o600)
	if err != nil {
		return nil // written; the next write makes the file anew again
	}
	w.f, w.size, w.gen, w.buf = f, size, 2, make([]byte, size)
	w.fm.mapOnce(f, 2*size)
	return nil
}

// adopt opens the high-water file for writing in place when it is of format 2
// with a valid slot, and takes its newest generation.
func (w *numbersWriter) adopt() {
	f, err := os.OpenFile(NumbersPath(w.path), os.O_RDWR, 0o600)
	if err != nil {
		return
	}
	raw, err := io.ReadAll(f)
	_, gen, ok := decodeNumbers(raw)
	if err != nil || !ok || raw[0] == '{' {
		_ = f.Close()
		return
	}
	w.f, w.size, w.gen, w.buf = f, len(raw)/2, gen, make([]byte, len(raw)/2)
	w.fm.mapOnce(f, 2*w.size)
}

// close closes the file, if open.
func (w *numbersWriter) close() error {
	if w.f == nil {
		return nil
	}
	w.fm.unmap()
	err := w.f.Close()
	w.f = nil
	return err
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
