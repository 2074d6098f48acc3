package sandbox

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/fnv"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"galla/internal/atomicfile"
)

// The archive keeps the orders nobody is likely to name again out of the log, so
// that New reads a log the size of the recent and unfinished orders, whatever the
// number of orders the sandbox has ever kept.
//
// An order is archived at New once it is older than archiveAfter and final: paid
// with no attempt still open, or unpaid past its token's lifetime with no payment
// waiting for the issuer (settling it then fails its open attempts and expires it,
// as the next request naming it would; nothing in that draws an identifier, so
// the answers stay what they would have been). The used refund ids go along.
//
// The archive is a list of segments, files beside the state file named
// <state file>.a<generation>, listed in the log's header line:
//
//	{"v":3,"archive":[{"file":"sandbox.json.a1","index":81234,"keys":5210},...]}
//
// A segment is the log lines of what it archives (the same records as the log's),
// then its index: keys entries of 16 bytes, each the FNV-1a hash of a key and the
// offset of the line that holds it, sorted by hash then offset. The keys of an
// order are its service order id, its token, its merchant order id, its payment
// ids and its blocked IMEIs; of a refund record its unique_txn_id or refund id. A
// request that names something memory has not finds it by a binary search of each
// segment's index (reading a few dozen entries, never the segment), reads the
// line, checks that the line really holds the key (hashes collide), and keeps the
// order in memory from then on. The order's newest version wins: memory (the log)
// before the segments, a newer segment before an older one, a later line before
// an earlier one. An archived order a request changes goes back into the log.
//
// Each compaction that archives writes one new segment and then merges it with
// the newest ones while they are less than twice its size, so that there are
// about log2 of the history's size segments and each line is copied a logarithmic
// number of times. Segments are written whole through a renamed temporary file
// before the log that lists them; a segment no log lists (a compaction cut short)
// is removed at New, and a merged one after the log that no longer lists it.
const archiveAfter = 24 * time.Hour

// The kinds of key in a segment's index.
const (
	keyOrder         = 'o' // service order id
	keyToken         = 't' // raw token
	keyMerchantOrder = 'm' // merchant id, NUL, merchant order id
	keyPayment       = 'p' // payment id
	keyIMEI          = 'i' // an IMEI the order blocks
	keyRefundTxn     = 'r' // merchant id, NUL, unique_txn_id
	keyRefundID      = 'n' // refund id
)

// entrySize is the size of one index entry: hash and offset, big-endian.
const entrySize = 16

// segment is one archive file as the log's header lists it.
type segment struct {
	File  string `json:"file"`  // name beside the state file
	Index int64  `json:"index"` // where the index starts: the length of the lines
	Keys  int64  `json:"keys"`  // number of index entries

	f *os.File // opened at the first lookup; closed by Close
}

type indexEntry struct {
	hash uint64
	off  uint64
}

type indexKey struct {
	kind byte
	key  string
}

func keyHash(kind byte, key string) uint64 {
	h := fnv.New64a()
	_, _ = h.Write([]byte{kind})
	_, _ = h.Write([]byte(key))
	return h.Sum64()
}

// keysOf lists the index keys of one record.
func keysOf(r stateRecord) []indexKey {
	switch {
	case r.Order != nil:
		so := r.Order
		ks := []indexKey{{keyOrder, so.ID}, {keyToken, so.Token}, {keyMerchantOrder, so.MerchantID + "\x00" + so.MerchantOrderID}}
		for _, p := range so.Payments {
			ks = append(ks, indexKey{keyPayment, p.ID})
		}
		for _, imei := range so.IMEIs {
			ks = append(ks, indexKey{keyIMEI, imei})
		}
		return ks
	case r.RefundTxn != nil:
		return []indexKey{{keyRefundTxn, r.RefundTxn.MerchantID + "\x00" + r.RefundTxn.UniqueTxnID}}
	case r.RefundID != "":
		return []indexKey{{keyRefundID, r.RefundID}}
	}
	return nil
}

// holds reports whether r holds the key.
func holds(r stateRecord, kind byte, key string) bool {
	return slices.Contains(keysOf(r), indexKey{kind, key})
}

// archivable reports whether o is old and final enough to be archived at now:
// settling it then can change nothing a request would see differently later, and
// draws no identifier.
func archivable(o *order, now time.Time) bool {
	if now.Sub(o.created) < archiveAfter {
		return false
	}
	paid := o.capturedPayment() != nil
	for _, p := range o.payments {
		if p.stage == stageIssuer || paid && p.stage != stageDone {
			return false
		}
	}
	return true
}

// segmentFile is a segment's bytes: the lines, then the index.
type segmentFile struct {
	lines   []byte
	entries []indexEntry
}

func (sf *segmentFile) add(r stateRecord) {
	off := uint64(len(sf.lines))
	sf.lines = append(sf.lines, line(r)...)
	for _, k := range keysOf(r) {
		sf.entries = append(sf.entries, indexEntry{keyHash(k.kind, k.key), off})
	}
}

func (sf *segmentFile) bytes() []byte {
	slices.SortFunc(sf.entries, func(a, b indexEntry) int {
		if a.hash != b.hash {
			if a.hash < b.hash {
				return -1
			}
			return 1
		}
		return int(int64(a.off) - int64(b.off))
	})
	b := make([]byte, 0, len(sf.lines)+entrySize*len(sf.entries))
	b = append(b, sf.lines...)
	for _, e := range sf.entries {
		b = binary.BigEndian.AppendUint64(b, e.hash)
		b = binary.BigEndian.AppendUint64(b, e.off)
	}
	return b
}

// segmentPrefix starts the names of path's segments.
func segmentPrefix(path string) string { return filepath.Base(path) + ".a" }

// generation is the number in a segment's name, or -1 when the name is not one
// of path's segments.
func generation(path, name string) int {
	rest, ok := strings.CutPrefix(name, segmentPrefix(path))
	if !ok || !allDigits(rest) || len(rest) > 9 {
		return -1
	}
	n, _ := strconv.Atoi(rest)
	return n
}

// removeStraySegments removes the segments beside the state file that its log
// does not list: written by a compaction cut short, or merged into another.
func (sl *stateLog) removeStraySegments() {
	dir := filepath.Dir(sl.path)
	entries, err := os.ReadDir(dir)
	if err != nil {
		return
	}
	listed := map[string]bool{}
	for _, s := range sl.segments {
		listed[s.File] = true
	}
	for _, e := range entries {
		if n := e.Name(); generation(sl.path, n) >= 0 && !listed[n] && e.Type().IsRegular() {
			_ = os.Remove(filepath.Join(dir, n))
		}
	}
}

// checkSegments checks the segment list of a log's header.
func checkSegments(segs []*segment) error {
	seen := map[string]bool{}
	for _, s := range segs {
		if s.File == "" || filepath.Base(s.File) != s.File || seen[s.File] || s.Index < 0 || s.Keys < 0 {
			return fmt.Errorf("archive segment %q is listed badly", s.File)
		}
		seen[s.File] = true
	}
	return nil
}

// open opens s for lookups and checks its size.
func (sl *stateLog) open(s *segment) (*os.File, error) {
	if s.f != nil {
		return s.f, nil
	}
	f, err := os.Open(filepath.Join(filepath.Dir(sl.path), s.File))
	if err != nil {
		return nil, fmt.Errorf("sandbox: archive %s: %w", s.File, err)
	}
	st, err := f.Stat()
	if err == nil && st.Size() != s.Index+entrySize*s.Keys {
		err = fmt.Errorf("%d bytes, its log says %d", st.Size(), s.Index+entrySize*s.Keys)
	}
	if err != nil {
		_ = f.Close()
		return nil, fmt.Errorf("sandbox: archive %s: %w", s.File, err)
	}
	s.f = f
	return f, nil
}

// readAt reads len(b) bytes of f at off, counting them.
func (sl *stateLog) readAt(f *os.File, b []byte, off int64) error {
	n, err := f.ReadAt(b, off)
	sl.bytesRead.Add(int64(n))
	if n == len(b) {
		return nil
	}
	if err == nil || errors.Is(err, io.EOF) {
		err = io.ErrUnexpectedEOF
	}
	return err
}

// find returns the offsets of the lines of s whose index entry has hash h, in
// order: a binary search reading one entry per step.
func (sl *stateLog) find(s *segment, h uint64) ([]int64, error) {
	f, err := sl.open(s)
	if err != nil {
		return nil, err
	}
	var e [entrySize]byte
	at := func(i int64) (uint64, uint64, error) {
		if err := sl.readAt(f, e[:], s.Index+i*entrySize); err != nil {
			return 0, 0, fmt.Errorf("sandbox: archive %s: %w", s.File, err)
		}
		return binary.BigEndian.Uint64(e[:8]), binary.BigEndian.Uint64(e[8:]), nil
	}
	lo, hi := int64(0), s.Keys
	for lo < hi {
		mid := lo + (hi-lo)/2
		hm, _, err := at(mid)
		if err != nil {
			return nil, err
		}
		if hm < h {
			lo = mid + 1
		} else {
			hi = mid
		}
	}
	var offs []int64
	for i := lo; i < s.Keys; i++ {
		hk, off, err := at(i)
		if err != nil {
			return nil, err
		}
		if hk != h {
			break
		}
		if off >= uint64(s.Index) {
			return nil, fmt.Errorf("sandbox: archive %s: an index entry points past the lines", s.File)
		}
		offs = append(offs, int64(off))
	}
	return offs, nil
}

// record reads and decodes the line of s at off.
func (sl *stateLog) record(s *segment, off int64) (stateRecord, error) {
	f, err := sl.open(s)
	if err != nil {
		return stateRecord{}, err
	}
	var l []byte
	chunk := int64(4096)
	for {
		n := min(chunk, s.Index-off-int64(len(l)))
		if n <= 0 {
			return stateRecord{}, fmt.Errorf("sandbox: archive %s: the line at %d is cut off", s.File, off)
		}
		b := make([]byte, n)
		if err := sl.readAt(f, b, off+int64(len(l))); err != nil {
			return stateRecord{}, fmt.Errorf("sandbox: archive %s: %w", s.File, err)
		}
		if i := bytes.IndexByte(b, '\n'); i >= 0 {
			l = append(l, b[:i]...)
			break
		}
		l = append(l, b...)
	}
	var r stateRecord
	if err := strict(l, &r); err != nil {
		return stateRecord{}, fmt.Errorf("sandbox: archive %s: the line at %d: %w", s.File, off, err)
	}
	return r, nil
}

// archived returns the archive's records that hold the key, newest first (newer
// segment first, later line first). With first it stops at the first one.
func (sl *stateLog) archived(kind byte, key string, first bool) ([]stateRecord, error) {
	h := keyHash(kind, key)
	var out []stateRecord
	for i := len(sl.segments) - 1; i >= 0; i-- {
		s := sl.segments[i]
		offs, err := sl.find(s, h)
		if err != nil {
			return nil, err
		}
		for j := len(offs) - 1; j >= 0; j-- {
			r, err := sl.record(s, offs[j])
			if err != nil {
				return nil, err
			}
			if !holds(r, kind, key) {
				continue // another key with the same hash
			}
			out = append(out, r)
			if first {
				return out, nil
			}
		}
	}
	return out, nil
}

// inArchive reports whether any segment's index has the key's hash: enough to
// refuse a fresh identifier (a hash shared with another key only costs drawing
// one more).
func (sl *stateLog) inArchive(kind byte, key string) (bool, error) {
	h := keyHash(kind, key)
	for _, s := range sl.segments {
		offs, err := sl.find(s, h)
		if err != nil || len(offs) > 0 {
			return len(offs) > 0, err
		}
	}
	return false, nil
}

// order is the order with service order id id: in memory, or the archive's
// newest version, which stays in memory from then on. nil when there is none.
// The caller holds sl.mu.
func (sl *stateLog) order(id string) (*order, error) {
	if o := sl.orders[id]; o != nil || len(sl.segments) == 0 {
		return o, nil
	}
	recs, err := sl.archived(keyOrder, id, true)
	if err != nil || len(recs) == 0 {
		return nil, err
	}
	return sl.unarchive(*recs[0].Order)
}

// unarchive keeps an archived order in memory, as saved: a request that changes
// it appends it to the log again (see done).
func (sl *stateLog) unarchive(so stateOrder) (*order, error) {
	o, err := sl.adopt(so)
	if err != nil {
		return nil, fmt.Errorf("sandbox: archived order %s: %w", so.ID, err)
	}
	o.archived = true
	o.savedSum = sumOf(line(stateRecord{Order: &so}))
	return o, nil
}

// holders brings into memory the archived orders that hold a key (a token, a
// payment id, a merchant order id, an IMEI), so that the memory's indexes answer
// for them. The caller holds sl.mu.
func (sl *stateLog) holders(kind byte, key string) error {
	if len(sl.segments) == 0 {
		return nil
	}
	recs, err := sl.archived(kind, key, false)
	if err != nil {
		return err
	}
	for _, r := range recs {
		if _, err := sl.order(r.Order.ID); err != nil {
			return err
		}
	}
	return nil
}

// orderWithToken is the order of a raw token, or nil. The caller holds sl.mu.
func (sl *stateLog) orderWithToken(tok string) (*order, error) {
	if o := sl.byToken[tok]; o != nil {
		return o, nil
	}
	if err := sl.holders(keyToken, tok); err != nil {
		return nil, err
	}
	return sl.byToken[tok], nil
}

// payment is the payment with id, or nil. The caller holds sl.mu.
func (sl *stateLog) payment(id string) (*payment, error) {
	if p := sl.payments[id]; p != nil {
		return p, nil
	}
	if err := sl.holders(keyPayment, id); err != nil {
		return nil, err
	}
	return sl.payments[id], nil
}

// merchantOrderUsed reports whether a merchant has used a merchant order id. The
// caller holds sl.mu.
func (sl *stateLog) merchantOrderUsed(key string) (bool, error) {
	if sl.orderIDs[key] {
		return true, nil
	}
	if err := sl.holders(keyMerchantOrder, key); err != nil {
		return false, err
	}
	return sl.orderIDs[key], nil
}

// imeiHolder is the service order id of the order blocking imei, or "". The
// caller holds sl.mu.
func (sl *stateLog) imeiHolder(imei string) (string, error) {
	if id := sl.imeis[imei]; id != "" {
		return id, nil
	}
	if err := sl.holders(keyIMEI, imei); err != nil {
		return "", err
	}
	return sl.imeis[imei], nil
}

// refundTxnUsed reports whether a merchant has used a unique_txn_id. The caller
// holds sl.mu.
func (sl *stateLog) refundTxnUsed(key string) (bool, error) {
	if sl.refundIDs[key] || len(sl.segments) == 0 {
		return sl.refundIDs[key], nil
	}
	recs, err := sl.archived(keyRefundTxn, key, true)
	return len(recs) > 0, err
}

// idUsed reports whether a fresh identifier of kind (keyOrder, keyToken,
// keyPayment, keyRefundID) is taken. The caller holds sl.mu.
func (sl *stateLog) idUsed(kind byte, id string) (bool, error) {
	var mem bool
	switch kind {
	case keyOrder:
		mem = sl.orders[id] != nil
	case keyToken:
		mem = sl.byToken[id] != nil
	case keyPayment:
		mem = sl.payments[id] != nil
	case keyRefundID:
		mem = sl.refundNos[id]
	}
	if mem {
		return true, nil
	}
	return sl.inArchive(kind, id)
}

// segmentLines reads the lines of s.
func (sl *stateLog) segmentLines(s *segment) ([]byte, error) {
	f, err := sl.open(s)
	if err != nil {
		return nil, err
	}
	b := make([]byte, s.Index)
	if err := sl.readAt(f, b, 0); err != nil {
		return nil, fmt.Errorf("sandbox: archive %s: %w", s.File, err)
	}
	return b, nil
}

// eachLine calls fn with each whole line of b.
func eachLine(b []byte, fn func(l []byte) error) error {
	for len(b) > 0 {
		i := bytes.IndexByte(b, '\n')
		if i < 0 {
			return errors.New("a line is cut off")
		}
		if err := fn(b[:i]); err != nil {
			return err
		}
		b = b[i+1:]
	}
	return nil
}

// allOrders is every order, the archived ones brought into memory: in the log's
// order when nothing is archived, else by creation time and, for orders created
// at the same time, by service order id (shorter first: the order the sequential
// test ids are drawn in). The caller holds sl.mu.
func (sl *stateLog) allOrders() ([]*order, error) {
	var out []*order
	if len(sl.segments) > 0 {
		var ids []string
		newest := map[string]stateOrder{}
		for _, s := range sl.segments {
			b, err := sl.segmentLines(s)
			if err != nil {
				return nil, err
			}
			err = eachLine(b, func(l []byte) error {
				var r stateRecord
				if err := strict(l, &r); err != nil {
					return err
				}
				if r.Order != nil {
					if _, ok := newest[r.Order.ID]; !ok {
						ids = append(ids, r.Order.ID)
					}
					newest[r.Order.ID] = *r.Order
				}
				return nil
			})
			if err != nil {
				return nil, fmt.Errorf("sandbox: archive %s: %w", s.File, err)
			}
		}
		for _, id := range ids {
			o := sl.orders[id]
			if o == nil {
				var err error
				if o, err = sl.unarchive(newest[id]); err != nil {
					return nil, err
				}
			}
			out = append(out, o)
		}
		for _, id := range sl.seq {
			if _, ok := newest[id]; !ok {
				out = append(out, sl.orders[id])
			}
		}
		slices.SortStableFunc(out, func(a, b *order) int {
			if c := a.created.Compare(b.created); c != 0 {
				return c
			}
			if len(a.id) != len(b.id) {
				return len(a.id) - len(b.id)
			}
			return strings.Compare(a.id, b.id)
		})
		return out, nil
	}
	for _, id := range sl.seq {
		out = append(out, sl.orders[id])
	}
	return out, nil
}

// archive moves the orders old into a new segment with every used refund id the
// log holds, merges segments as the package comment says, and takes them out of
// the log's part of memory (they stay in memory as archived). It returns the
// files of the segments merged away, to remove once a log no longer lists them.
// New calls it before writing the compacted log.
func (sl *stateLog) archive(old []*order) ([]string, error) {
	var sf segmentFile
	for _, o := range old {
		sl.settle(o) // as the next request naming it would
		o.dirty = false
		so := stateOf(o)
		r := stateRecord{Order: &so}
		o.savedSum = sumOf(line(r))
		sf.add(r)
	}
	sl.dirty = sl.dirty[:0]
	for _, key := range sortedKeys(sl.refundIDs) {
		m, txn, _ := strings.Cut(key, "\x00")
		sf.add(stateRecord{RefundTxn: &stateRefund{MerchantID: m, UniqueTxnID: txn}})
	}
	for _, id := range sortedKeys(sl.refundNos) {
		sf.add(stateRecord{RefundID: id})
	}
	var merged []string
	for len(sl.segments) > 0 {
		last := sl.segments[len(sl.segments)-1]
		if last.Index >= 2*int64(len(sf.lines)) {
			break
		}
		b, err := sl.segmentLines(last)
		if err != nil {
			return nil, err
		}
		f, _ := sl.open(last)
		idx := make([]byte, entrySize*last.Keys)
		if err := sl.readAt(f, idx, last.Index); err != nil {
			return nil, fmt.Errorf("sandbox: archive %s: %w", last.File, err)
		}
		shift := uint64(len(b))
		for i := range sf.entries {
			sf.entries[i].off += shift
		}
		for i := int64(0); i < last.Keys; i++ {
			e := idx[i*entrySize:]
			sf.entries = append(sf.entries, indexEntry{binary.BigEndian.Uint64(e[:8]), binary.BigEndian.Uint64(e[8:16])})
		}
		sf.lines = append(b, sf.lines...)
		_ = f.Close()
		last.f = nil
		merged = append(merged, last.File)
		sl.segments = sl.segments[:len(sl.segments)-1]
	}
	gen := 0
	for _, s := range sl.segments {
		gen = max(gen, generation(sl.path, s.File))
	}
	for _, name := range merged {
		gen = max(gen, generation(sl.path, name))
	}
	s := &segment{File: fmt.Sprintf("%s%d", segmentPrefix(sl.path), gen+1), Index: int64(len(sf.lines)), Keys: int64(len(sf.entries))}
	if err := atomicfile.Write(filepath.Join(filepath.Dir(sl.path), s.File), sf.bytes()); err != nil {
		return nil, fmt.Errorf("sandbox: write archive %s: %w", s.File, err)
	}
	sl.segments = append(sl.segments, s)

	keep := sl.seq[:0]
	archived := map[string]bool{}
	for _, o := range old {
		o.archived = true
		archived[o.id] = true
	}
	for _, id := range sl.seq {
		if !archived[id] {
			keep = append(keep, id)
		}
	}
	sl.seq = keep
	clear(sl.refundIDs)
	clear(sl.refundNos)
	return merged, nil
}
