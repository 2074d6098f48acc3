package journal

import (
	"encoding/binary"
	"hash/crc32"
	"io"
	"os"
	"runtime/debug"
	"sync"
	"sync/atomic"

	bolt "go.etcd.io/bbolt"
)

// The pages written since the newest base (journal.db.written) are what
// lets a close-day's backup read only those pages of the journal instead of
// all of them (issue 25: a year's journal is 300 MB, and streaming it to find
// the few thousand pages that differ from the base cost a close-day about
// 50 ms, as much again as the rest of the close-day).
//
// bbolt copies on write: a commit writes its two meta pages and pages it
// allocates, and it allocates only pages that are free in the freelist of the
// commit before (which lists the pending pages too) or past that commit's
// high-water mark. So the pages written by the commits after a base's
// snapshot are among the pages past the base's high-water mark and those
// listed in the freelist of any commit from the snapshot's on. Each write
// transaction, before it writes anything, adds the freelist of the commit
// before it (read from the file through a read-only mapping, in place) to
// the record; a page of the base's range never listed there was not written
// since, and holds the base's bytes: its digest is the base's.
//
// The record is kept like the head record, stored into a mapping without
// fsync. It counts only while it is whole and unbroken: its CRC-32C (a power
// cut that left part of it on the disk fails it), the base it is of (name,
// size and CRC-32C of the base as written, its page size) and the commits it
// covers, up to one named by its id and its meta page's checksum: a write
// transaction finding the record not up to the commit before it, or that
// commit not the one in the file (a commit by a Galla that did not keep it,
// one lost to a power cut, a journal restored or made anew), drops it. A data
// folder copied whole keeps it. Without it, or on a system where
// files are not mapped (mapShared), the close-day streams the whole journal
// as before and starts the record again from what it found.
const (
	writtenSuffix  = ".written"
	writtenMagic   = "GALLAWRT"
	writtenVersion = 1
	// writtenHeader is the record's header: magic, CRC-32C of the rest,
	// version, page size, the base's CRC-32C and size, the checksum of the
	// meta page of the last commit whose freelist is in the bits and that
	// commit's id, the base's name (its FNV-1a) and its high-water mark (the
	// pages the bits cover), each big-endian.
	writtenHeader = 64
	// journalMapStep rounds the journal's read-only mapping up, so that it
	// is made again only as the file grows past it.
	journalMapStep = 256 << 20
)

var be = binary.BigEndian

// writtenPath is the record of the pages written since the newest base of
// the journal at path: path with ".written" added.
func writtenPath(path string) string { return path + writtenSuffix }

// pageSet is the pages of a journal written since its base: the bits of the
// base's pages, and every page at or past the base's high-water mark.
type pageSet struct {
	bits []byte
	hw0  uint64
}

// has reports whether page id may have been written since the base.
func (s *pageSet) has(id uint64) bool {
	return id >= s.hw0 || s.bits[id>>3]&(1<<(id&7)) != 0
}

// writtenLog keeps the record of one open journal.
type writtenLog struct {
	on   atomic.Bool // a record is kept, and whole
	ps   int         // the journal's page size
	mu   sync.Mutex  // guards the rest
	path string      // the record's path
	jf   *os.File    // the journal, read-only, for jm
	jm   []byte      // the journal mapped read-only
	f    *os.File    // the record
	fm   fileMap
	rec  []byte // the record as kept: header and bits
}

// openWritten opens the record of the journal at path, of pages of ps
// bytes, for a journal opened for writing. It keeps nothing where files are
// not mapped.
func openWritten(path string, ps int) *writtenLog {
	w := &writtenLog{path: writtenPath(path), ps: ps}
	jf, err := os.Open(path)
	if err != nil {
		return w
	}
	fi, err := jf.Stat()
	if err != nil {
		_ = jf.Close()
		return w
	}
	w.jf = jf
	if !w.mapJournal(uint64(fi.Size())) {
		return w
	}
	raw, err := os.ReadFile(w.path)
	if err != nil || !w.whole(raw) {
		return w
	}
	w.install(raw)
	return w
}

// mapJournal maps the journal read-only, at least its first size bytes.
func (w *writtenLog) mapJournal(size uint64) bool {
	if uint64(len(w.jm)) >= size {
		return true
	}
	if w.jm != nil {
		unmapShared(w.jm)
		w.jm = nil
	}
	n := (size/journalMapStep + 1) * journalMapStep
	if int64(n) < 0 || uint64(int(n)) != n {
		return false
	}
	w.jm = mapRead(w.jf, int(n))
	return w.jm != nil
}

// whole reports whether raw is a record, not cut or changed, of a journal of
// this page size (which journal, and of which base, note and since check).
func (w *writtenLog) whole(raw []byte) bool {
	if len(raw) < writtenHeader || string(raw[:8]) != writtenMagic ||
		be.Uint32(raw[8:]) != crc32.Checksum(raw[12:], backupCRC) ||
		be.Uint32(raw[12:]) != writtenVersion || be.Uint32(raw[16:]) != uint32(w.ps) {
		return false
	}
	hw0 := be.Uint64(raw[56:])
	return hw0 < 1<<40 && uint64(len(raw)) == writtenHeader+(hw0+7)/8
}

// install makes raw, a whole record just read from or written to its file,
// the one kept, the file mapped. The caller holds mu, or is openWritten.
func (w *writtenLog) install(raw []byte) {
	w.closeRecord()
	f, err := os.OpenFile(w.path, os.O_RDWR, 0o600)
	if err != nil {
		return
	}
	w.f, w.rec = f, raw
	w.fm.mapOnce(f, len(raw))
	if !w.fm.mapped() {
		w.closeRecord()
		return
	}
	w.on.Store(true)
}

// closeRecord stops keeping the record, unmapped and closed. The caller holds
// mu, or is openWritten.
func (w *writtenLog) closeRecord() {
	w.on.Store(false)
	w.fm.unmap()
	w.fm.off = false
	if w.f != nil {
		_ = w.f.Close()
		w.f = nil
	}
	w.rec = nil
}

// close closes the record and the journal's mapping.
func (w *writtenLog) close() {
	if w == nil {
		return
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	w.closeRecord()
	if w.jm != nil {
		unmapShared(w.jm)
		w.jm = nil
	}
	if w.jf != nil {
		_ = w.jf.Close()
		w.jf = nil
	}
}

// drop stops keeping the record and leaves it broken in the file (its magic
// cleared), so that no later Open takes it. The caller holds mu.
func (w *writtenLog) drop() {
	w.fm.store(0, make([]byte, 8))
	w.closeRecord()
}

// note adds the freelist of the commit before tx, a write transaction that
// has written nothing yet, to the record; a record not up to that commit is
// dropped.
func (w *writtenLog) note(tx *bolt.Tx) {
	if w == nil || !w.on.Load() {
		return
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.rec == nil {
		return
	}
	ps := w.ps
	prev := uint64(tx.ID()) - 1
	through := be.Uint64(w.rec[40:])
	// The commit the record is up to is still in the file: the commit
	// before tx, or the one before that, whose meta page tx has not
	// written over yet.
	if through != prev && through+1 != prev {
		w.drop()
		return
	}
	if _, _, t, sum, ok := w.meta(through%2, ps); !ok || t != through || sum != be.Uint64(w.rec[32:]) {
		w.drop()
		return
	}
	if through == prev {
		return // a transaction of that id rolled back after adding it
	}
	sum, ok := w.addFreelist(prev, ps, w.rec[writtenHeader:], be.Uint64(w.rec[56:]))
	if !ok {
		w.drop()
		return
	}
	be.PutUint64(w.rec[32:], sum)
	be.PutUint64(w.rec[40:], prev)
	be.PutUint32(w.rec[8:], crc32.Checksum(w.rec[12:], backupCRC))
	if !w.fm.store(0, w.rec) {
		w.closeRecord()
	}
}

// meta returns the freelist's page, the high-water mark, the commit and the
// checksum of the meta page at page id of the mapped journal; ok false when
// it is not a whole meta page.
func (w *writtenLog) meta(id uint64, ps int) (freelist, hw, txid, sum uint64, ok bool) {
	off := id * uint64(ps)
	if off+80 > uint64(len(w.jm)) {
		return 0, 0, 0, 0, false
	}
	m := w.jm[off : off+80]
	var bad bool
	func() {
		defer debug.SetPanicOnFault(debug.SetPanicOnFault(true))
		defer func() { bad = recover() != nil }()
		ok = le.Uint16(m[8:]) == 0x04 && le.Uint32(m[16:]) == 0xED0CDAED && le.Uint32(m[20:]) == 2 &&
			le.Uint32(m[24:]) == uint32(ps) && le.Uint64(m[72:]) == fnv64a(m[16:72])
		freelist, hw, txid, sum = le.Uint64(m[48:]), le.Uint64(m[56:]), le.Uint64(m[64:]), le.Uint64(m[72:])
	}()
	return freelist, hw, txid, sum, ok && !bad
}

// fnv64a is the FNV-1a hash of b, bbolt's checksum of a meta page.
func fnv64a(b []byte) uint64 {
	h := uint64(14695981039346656037)
	for _, c := range b {
		h = (h ^ uint64(c)) * 1099511628211
	}
	return h
}

// addFreelist sets in bits each page id below hw0 in the freelist of commit
// txid, as written in the journal, and returns the checksum of that commit's
// meta page; false when the meta page or the freelist cannot be read from the
// mapping (the file grown past it is mapped again).
func (w *writtenLog) addFreelist(txid uint64, ps int, bits []byte, hw0 uint64) (uint64, bool) {
	fl, hw, t, sum, ok := w.meta(txid%2, ps)
	if !ok || t != txid || fl >= hw {
		return 0, false
	}
	if !w.mapJournal(hw * uint64(ps)) {
		return 0, false
	}
	off := fl * uint64(ps)
	var bad bool
	func() {
		defer debug.SetPanicOnFault(debug.SetPanicOnFault(true))
		defer func() { bad = recover() != nil }()
		p := w.jm[off:]
		if le.Uint64(p) != fl || le.Uint16(p[8:]) != 0x10 {
			bad = true
			return
		}
		count, at := uint64(le.Uint16(p[10:])), uint64(16)
		if count == 0xFFFF {
			count, at = le.Uint64(p[16:]), 24
		}
		over := uint64(le.Uint32(p[12:]))
		if fl+over >= hw || at+count*8 > (over+1)*uint64(ps) {
			bad = true
			return
		}
		for i := range count {
			if id := le.Uint64(p[at+i*8:]); id < hw0 {
				bits[id>>3] |= 1 << (id & 7)
			}
		}
	}()
	return sum, !bad
}

// since returns the pages written since the base (its name, and its trailer
// bt) up to the snapshot of tx, a read transaction; nil when the record does
// not say (not kept, broken, of another base or behind tx).
func (w *writtenLog) since(tx *bolt.Tx, base string, bt pagesTrailer) *pageSet {
	if w == nil || !w.on.Load() {
		return nil
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	r := w.rec
	if r == nil || !w.ofBase(r, base, bt) || be.Uint64(r[40:])+1 < uint64(tx.ID()) {
		return nil
	}
	return &pageSet{bits: append([]byte(nil), r[writtenHeader:]...), hw0: be.Uint64(r[56:])}
}

// ofBase reports whether the record r is of the base named base, written as
// bt says.
func (w *writtenLog) ofBase(r []byte, base string, bt pagesTrailer) bool {
	n := len(base)
	return n <= 255 && be.Uint32(r[16:]) == uint32(bt.PageSize) && be.Uint32(r[20:]) == bt.CRC &&
		be.Uint64(r[24:]) == uint64(bt.Size) && be.Uint64(r[48:]) == baseNameSum(base)
}

// baseNameSum stands for a base's file name in the record.
func baseNameSum(base string) uint64 {
	return fnv64a([]byte(base))
}

// start begins the record of the base named base (written as bt says) at
// the snapshot of tx, a read transaction, the pages of the base's range
// written since handed by written to add (nil for a base of that snapshot),
// with the freelist of that commit: it is kept only when tx's snapshot is
// the journal's newest commit, so that nothing was written in between.
func (w *writtenLog) start(tx *bolt.Tx, base string, bt pagesTrailer, written func(add func(id uint64))) {
	if w == nil || w.jf == nil {
		return
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	ps := w.ps
	if ps != bt.PageSize || bt.Size%int64(ps) != 0 || !w.mapJournal(uint64(2*ps)) {
		return
	}
	td := uint64(tx.ID())
	if _, _, t, _, ok := w.meta(td%2, ps); !ok || t != td {
		w.drop()
		return
	}
	if _, _, t, _, ok := w.meta((td+1)%2, ps); !ok || t > td {
		w.drop()
		return
	}
	hw0 := uint64(bt.Size / int64(ps))
	raw := make([]byte, writtenHeader+(hw0+7)/8)
	copy(raw, writtenMagic)
	be.PutUint32(raw[12:], writtenVersion)
	be.PutUint32(raw[16:], uint32(ps))
	be.PutUint32(raw[20:], bt.CRC)
	be.PutUint64(raw[24:], uint64(bt.Size))
	be.PutUint64(raw[40:], td)
	be.PutUint64(raw[48:], baseNameSum(base))
	be.PutUint64(raw[56:], hw0)
	bits := raw[writtenHeader:]
	if written != nil {
		written(func(id uint64) {
			if id < hw0 {
				bits[id>>3] |= 1 << (id & 7)
			}
		})
	}
	sum, ok := w.addFreelist(td, ps, bits, hw0)
	if !ok {
		w.drop()
		return
	}
	be.PutUint64(raw[32:], sum)
	be.PutUint32(raw[8:], crc32.Checksum(raw[12:], backupCRC))
	w.drop()
	if err := writeSynced(w.path, func(f io.Writer) error {
		_, err := f.Write(raw)
		return err
	}); err != nil {
		return
	}
	w.install(raw)
}
