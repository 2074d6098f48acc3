package journal

import (
	"bufio"
	"context"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"hash"
	"hash/crc32"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"time"

	bolt "go.etcd.io/bbolt"

	"galla/pos"
)

// A day's backup is either a full copy of the journal file, a base
// (journal-DAY.db, with the digests of its pages beside it in
// journal-DAY.db.pages), or an increment (journal-DAY.inc) of the newest
// base: the pages of the day's copy that differ from the copy of the
// increment it continues (chain.go), and what the copy is (its size and
// CRC-32C). The copy an increment stands for is the base's bytes with the
// pages of each increment of its chain written over them in order, cut to its
// size: restoring it gives the bytes a full copy of that moment would have
// held, checked against the CRC kept (docs/journal-schema.md "Backups").

const (
	// incSuffix ends an increment's file name: journal-2026-11-22.inc.
	incSuffix = ".inc"
	// pagesSuffix ends the name of a base's page digests:
	// journal-2026-11-22.db.pages.
	pagesSuffix = ".pages"
	// incMagic and pagesMagic open the two files.
	incMagic   = "GALLAINC"
	pagesMagic = "GALLAPGS"
	// incMaxShare is the share of the copy above which a day's backup is a
	// new base rather than an increment of the old one: an increment grows
	// with what changed since its base, and restoring it reads both.
	incMaxShare = 4
	// incWholeShare is the share of a copy larger than a chunk of the next
	// base above which its increment would write about as much as the
	// whole copy (after a schema migration rebuilt the derived buckets, say):
	// the day's backup is then a new base written whole.
	incWholeShare = 2
)

// incTrailer ends an increment: what it stands for and what it needs.
type incTrailer struct {
	Version  int    `json:"version"`
	Base     string `json:"base"`      // the base's file name, in the same directory
	BaseSize int64  `json:"base_size"` // the base's size and CRC-32C as written
	BaseCRC  uint32 `json:"base_crc"`
	Size     int64  `json:"size"` // the copy's size and CRC-32C
	CRC      uint32 `json:"crc"`
	PageSize int    `json:"page_size"`
	Pages    int    `json:"pages"` // the pages the increment holds
	// Version 2 (chain.go): the increment it continues ("" when it is the
	// first after its base) and that increment's copy's CRC-32C; how many
	// pages of its copy differ from the base (its Since list).
	Prev    string `json:"prev,omitempty"`
	PrevCRC uint32 `json:"prev_crc,omitempty"`
	Since   int    `json:"since,omitempty"`
}

// pagesTrailer ends a base's page digests.
type pagesTrailer struct {
	Version  int    `json:"version"`
	Size     int64  `json:"size"` // the base's size and CRC-32C as written
	CRC      uint32 `json:"crc"`
	PageSize int    `json:"page_size"`
}

// pageDigest is what tells a page changed since the base: the page's CRC-32C
// and its CRC-32 (IEEE), two checksums of different polynomials, both
// computed by the processor. A page whose two sums both matched by chance
// would be missing from the increment; the copy's whole CRC, checked when it
// is restored, would then refuse it.
func pageDigest(p []byte) uint64 {
	return uint64(crc32.Checksum(p, backupCRC))<<32 | uint64(crc32.ChecksumIEEE(p))
}

// writeTrailer writes the JSON of t, its length and the CRC-32C of all that
// the file holds (sum, which has been given every byte before).
func writeTrailer(w io.Writer, sum hash.Hash32, t any) error {
	data, err := json.Marshal(t)
	if err != nil {
		return err
	}
	data = binary.BigEndian.AppendUint32(data, uint32(len(data)))
	sum.Write(data)
	data = binary.BigEndian.AppendUint32(data, sum.Sum32())
	_, err = w.Write(data)
	return err
}

// readTrailer reads the trailer of the file f (size bytes) into t after
// checking the CRC-32C of the whole file; it returns where the trailer starts.
func readTrailer(f *os.File, size int64, magic string, t any) (int64, error) {
	return readTrailerOf(f, size, magic, t, true)
}

// readTrailerOf reads the trailer of the file f (size bytes) into t, after
// checking the CRC-32C of the whole file when whole is set; it returns where
// the trailer starts.
func readTrailerOf(f *os.File, size int64, magic string, t any, whole bool) (int64, error) {
	if size < int64(len(magic))+8 {
		return 0, errors.New("it is too short")
	}
	var tail [8]byte
	if _, err := f.ReadAt(tail[:], size-8); err != nil {
		return 0, err
	}
	if whole {
		sum := crc32.New(backupCRC)
		if _, err := io.Copy(sum, io.NewSectionReader(f, 0, size-4)); err != nil {
			return 0, err
		}
		if sum.Sum32() != binary.BigEndian.Uint32(tail[4:]) {
			return 0, errors.New("its bytes are not the ones written")
		}
	}
	head := make([]byte, len(magic))
	if _, err := f.ReadAt(head, 0); err != nil {
		return 0, err
	}
	n := int64(binary.BigEndian.Uint32(tail[:4]))
	start := size - 8 - n
	if string(head) != magic || start < int64(len(magic)) {
		return 0, errors.New("it is not a backup of this kind")
	}
	data := make([]byte, n)
	if _, err := f.ReadAt(data, start); err != nil {
		return 0, err
	}
	if err := json.Unmarshal(data, t); err != nil {
		return 0, err
	}
	return start, nil
}

// readDigests reads the page digests of the base at path (its .pages file),
// checked whole and against the base file's size.
func readDigests(base string) ([]uint64, pagesTrailer, error) {
	var t pagesTrailer
	f, err := os.Open(base + pagesSuffix)
	if err != nil {
		return nil, t, err
	}
	defer f.Close()
	info, err := f.Stat()
	if err != nil {
		return nil, t, err
	}
	start, err := readTrailer(f, info.Size(), pagesMagic, &t)
	if err != nil {
		return nil, t, err
	}
	n := (start - int64(len(pagesMagic))) / 8
	if t.Version != 1 || t.PageSize <= 0 || n*int64(t.PageSize) != t.Size {
		return nil, t, errors.New("its digests do not cover the base")
	}
	if bi, err := os.Stat(base); err != nil || bi.Size() != t.Size {
		return nil, t, errors.New("the base is not the file they were taken of")
	}
	raw := make([]byte, n*8)
	if _, err := f.ReadAt(raw, int64(len(pagesMagic))); err != nil {
		return nil, t, err
	}
	digests := make([]uint64, n)
	for i := range digests {
		digests[i] = binary.BigEndian.Uint64(raw[i*8:])
	}
	return digests, t, nil
}

// writeDigests writes the .pages file of the base at path.
func writeDigests(base string, digests []uint64, t pagesTrailer) error {
	return writeSynced(base+pagesSuffix, func(w io.Writer) error {
		bw := bufio.NewWriterSize(w, 1<<20)
		sum := crc32.New(backupCRC)
		mw := io.MultiWriter(bw, sum)
		if _, err := io.WriteString(mw, pagesMagic); err != nil {
			return err
		}
		var b [8]byte
		for _, d := range digests {
			binary.BigEndian.PutUint64(b[:], d)
			if _, err := mw.Write(b[:]); err != nil {
				return err
			}
		}
		if err := writeTrailer(bw, sum, t); err != nil {
			return err
		}
		return bw.Flush()
	})
}

// dayFile is a day's backup file of the backup directory.
type dayFile struct {
	day  string
	name string
	inc  bool
}

// dayFiles lists the day backups of dir, bases and increments.
func dayFiles(files []backupFile) []dayFile {
	var out []dayFile
	for _, f := range files {
		if d, ok := backupDay(f.name); ok {
			out = append(out, dayFile{day: d, name: f.name})
		} else if d, ok := incDay(f.name); ok {
			out = append(out, dayFile{day: d, name: f.name, inc: true})
		}
	}
	return out
}

// incDay returns the day of an increment's file name (journal-DAY.inc), or
// false for any other name.
func incDay(name string) (string, bool) {
	day, ok := strings.CutSuffix(name, incSuffix)
	if !ok {
		return "", false
	}
	return backupDay(day + backupSuffix)
}

// isIncrement reports whether path names an increment.
func isIncrement(path string) bool { return strings.HasSuffix(path, incSuffix) }

// readIncrement reads and checks the trailer of the increment at path,
// after the CRC-32C of the whole file.
func readIncrement(path string) (incTrailer, int64, error) { return readIncrementOf(path, true) }

// incBase reads the trailer of the increment at path without reading the
// whole file: which base it needs, for sealing the backups (dependents),
// which would otherwise read every increment kept. Its end is checked for
// what it is (its length, its page count against the file's size), not its
// bytes: a restore checks those.
func incBase(path string) (string, error) {
	t, _, err := readIncrementOf(path, false)
	return t.Base, err
}

// readIncrementOf reads and checks the trailer of the increment at path,
// after the CRC-32C of the whole file when whole is set.
func readIncrementOf(path string, whole bool) (incTrailer, int64, error) {
	var t incTrailer
	f, err := os.Open(path)
	if err != nil {
		return t, 0, err
	}
	defer f.Close()
	info, err := f.Stat()
	if err != nil {
		return t, 0, err
	}
	start, err := readTrailerOf(f, info.Size(), incMagic, &t, whole)
	if err != nil {
		return t, 0, err
	}
	body := start - int64(len(incMagic))
	pages := int64(t.Pages) * int64(8+t.PageSize)
	ok := t.PageSize > 0 && t.Base != "" && filepath.Base(t.Base) == t.Base && t.Pages >= 0 && t.Since >= 0
	switch t.Version {
	case 1:
		ok = ok && t.Prev == "" && t.Since == 0 && body == pages
	case 2:
		ok = ok && (t.Prev == "" || filepath.Base(t.Prev) == t.Prev && isIncrement(t.Prev)) &&
			body == pages+int64(t.Since)*incSinceEntry
	default:
		ok = false
	}
	if !ok {
		return t, 0, errors.New("its pages are not the ones its end lists")
	}
	return t, start, nil
}

// IncrementError is an increment (journal-DAY.inc) that cannot be made into
// the copy it stands for: it is damaged, or its base is missing or changed.
// Nothing was written where the copy was to go.
type IncrementError struct {
	Path   string // the increment
	Base   string // its base, when its end could be read
	Prev   string // the increment of an earlier day it needs that cannot be used, if that is what is wrong
	Reason string
}

func (e *IncrementError) Error() string { return e.text() }

// Sentence says what the increment lacks and which backup to restore instead;
// nothing was changed.
func (e *IncrementError) Sentence() string {
	t := e.text()
	return strings.ToUpper(t[:1]) + t[1:] + "; nothing was changed."
}

func (e *IncrementError) text() string {
	if e.Base == "" {
		return fmt.Sprintf("the backup %s cannot be read (%s); restore an earlier backup of the same folder", e.Path, e.Reason)
	}
	if e.Prev != "" {
		return fmt.Sprintf("the backup %s holds only what changed since the backup %s of an earlier day, which %s; restore a backup of a day before %s, or the full backup %s",
			e.Path, e.Prev, e.Reason, e.Prev, e.Base)
	}
	return fmt.Sprintf("the backup %s holds only what changed since the full backup %s, which %s; restore %s itself or an earlier full backup",
		e.Path, e.Base, e.Reason, e.Base)
}

// materialize writes the copy the increment at inc stands for to out (mode
// 0600; through a temporary file synced and renamed): the base's bytes,
// checked against the CRC the increment names, the pages of each increment of
// its chain written over them in order (chain.go), each increment read whole
// against its CRC first, and the whole checked against the copy's CRC.
// Nothing is left at out when it fails (an *IncrementError).
func materialize(ctx context.Context, inc, out string) error {
	t, _, err := readIncrement(inc)
	if err != nil {
		return &IncrementError{Path: inc, Reason: err.Error()}
	}
	dir := filepath.Dir(inc)
	base := filepath.Join(dir, t.Base)
	fail := func(reason string) error { return &IncrementError{Path: inc, Base: base, Reason: reason} }
	names, trailers, err := incChain(dir, filepath.Base(inc), t)
	if err != nil {
		return &IncrementError{Path: inc, Base: base, Prev: filepath.Join(dir, errName(err)), Reason: errReason(err)}
	}
	for _, name := range names[:len(names)-1] {
		if _, _, err := readIncrement(filepath.Join(dir, name)); err != nil {
			return &IncrementError{Path: inc, Base: base, Prev: filepath.Join(dir, name), Reason: "cannot be read (" + err.Error() + ")"}
		}
	}
	in, err := os.Open(base)
	if errors.Is(err, fs.ErrNotExist) {
		return fail("is missing")
	}
	if err != nil {
		return fail("cannot be read: " + err.Error())
	}
	defer in.Close()
	if info, err := in.Stat(); err != nil || info.Size() != t.BaseSize {
		return fail("is not the file it was (its size differs)")
	}
	tmp := out + ".tmp"
	f, err := os.OpenFile(tmp, os.O_RDWR|os.O_CREATE|os.O_TRUNC, 0o600)
	if err != nil {
		return err
	}
	err = func() error {
		sum := crc32.New(backupCRC)
		if _, err := readChunks(in, func(p []byte) (int, error) {
			if err := ctx.Err(); err != nil {
				return 0, err
			}
			sum.Write(p)
			return f.Write(p)
		}); err != nil {
			return err
		}
		if sum.Sum32() != t.BaseCRC {
			return fail("has changed since (its bytes are not the ones written)")
		}
		for i, name := range names {
			if err := writePagesOf(f, filepath.Join(dir, name), trailers[i]); err != nil {
				return err
			}
		}
		if err := checkCRC(ctx, tmp, t.CRC); err != nil {
			return &IncrementError{Path: inc, Reason: "the copy made of it and its base is not the one written (" + err.Error() + ")"}
		}
		return f.Sync()
	}()
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp, out)
	}
	if err != nil {
		_ = os.Remove(tmp)
	}
	return err
}

// writePagesOf writes the pages of the increment at inc (its trailer t) over
// f (writePages).
func writePagesOf(f *os.File, inc string, t incTrailer) error {
	src, err := os.Open(inc)
	if err != nil {
		return &IncrementError{Path: inc, Reason: err.Error()}
	}
	defer src.Close()
	return writePages(f, src, t, inc)
}

// writePages writes the pages of the increment inc (its file src, its
// trailer t) over f, which holds its base's bytes, and cuts or extends f to
// the copy's size.
func writePages(f, src *os.File, t incTrailer, inc string) error {
	if err := f.Truncate(t.Size); err != nil {
		return err
	}
	r := bufio.NewReaderSize(io.NewSectionReader(src, int64(len(incMagic)), int64(t.Pages)*int64(8+t.PageSize)), 1<<20)
	rec := make([]byte, 8+t.PageSize)
	for range t.Pages {
		if _, err := io.ReadFull(r, rec); err != nil {
			return err
		}
		off := int64(binary.BigEndian.Uint64(rec[:8])) * int64(t.PageSize)
		if off+int64(t.PageSize) > t.Size {
			return &IncrementError{Path: inc, Reason: "a page lies past the copy's end"}
		}
		if _, err := f.WriteAt(rec[8:], off); err != nil {
			return err
		}
	}
	return nil
}

// readChunks reads r to its end in copyChunk pieces, handing each to write,
// in order. The next piece is read while write works on the one before (two
// buffers, the reads on a goroutine of their own), so that reading a large
// file from the page cache and checksumming it take the longer of the two,
// not their sum. It returns once that goroutine is done: r is not read after.
func readChunks(r io.Reader, write func([]byte) (int, error)) (int64, error) {
	return readChunksOf(r, copyChunk, write)
}

// readChunksOf is readChunks in pieces of size bytes.
func readChunksOf(r io.Reader, size int, write func([]byte) (int, error)) (int64, error) {
	type piece struct {
		buf []byte
		n   int
		err error
	}
	free := make(chan []byte, 2)
	free <- make([]byte, size)
	free <- make([]byte, size)
	full := make(chan piece, 2) // never more than the two buffers in flight
	stop := make(chan struct{})
	go func() {
		defer close(full)
		for {
			var buf []byte
			select {
			case <-stop:
				return
			case buf = <-free:
			}
			n, err := io.ReadFull(r, buf)
			full <- piece{buf, n, err}
			if err != nil {
				return
			}
		}
	}()
	// done stops the reads and waits for the goroutine to end.
	done := func() {
		close(stop)
		for range full {
		}
	}
	var total int64
	for p := range full {
		if p.n > 0 {
			if _, werr := write(p.buf[:p.n]); werr != nil {
				done()
				return total, werr
			}
			total += int64(p.n)
		}
		if errors.Is(p.err, io.EOF) || errors.Is(p.err, io.ErrUnexpectedEOF) {
			done()
			return total, nil
		}
		if p.err != nil {
			done()
			return total, p.err
		}
		free <- p.buf
	}
	return total, nil
}

// backupBase writes the full backup at path with the digests of its pages
// beside it (path.pages), so that later days can be increments of it.
func (bk *Archive) backupBase(path string) error {
	var (
		digests []uint64
		trailer pagesTrailer
	)
	err := bk.writeCopy(path, func(tx *bolt.Tx, w io.Writer) error {
		ps := tx.DB().Info().PageSize
		s := newPageStream(ps, nil, nil)
		s.keep, s.tee = true, w
		if _, err := tx.WriteTo(s); err != nil {
			return err
		}
		digests = s.digests
		trailer = pagesTrailer{Version: 1, Size: s.written, CRC: s.crc, PageSize: ps}
		if err := s.close(); err != nil {
			return err
		}
		bk.written.start(tx, filepath.Base(path), trailer, nil)
		return nil
	})
	if err != nil {
		return err
	}
	// Without its digests the base is still a full backup; the next day's is
	// then a new base.
	_ = os.Remove(path + pagesSuffix)
	return writeDigests(path, digests, trailer)
}

// writeCopy writes the file at path through write within one read
// transaction, the CRC-32C of the bytes written kept for VerifyBackup's read
// back (BackupTo).
func (bk *Archive) writeCopy(path string, write func(tx *bolt.Tx, w io.Writer) error) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return err
	}
	sum := crc32.New(backupCRC)
	err := writeSynced(path, func(w io.Writer) error {
		return bk.view(func(tx *bolt.Tx) error { return write(tx, &summedWriter{w: w, sum: sum}) })
	})
	if err != nil {
		return err
	}
	bk.noteSum(path, sum.Sum32())
	return nil
}

// noteSum keeps the CRC-32C of the backup written at path.
func (bk *Archive) noteSum(path string, sum uint32) {
	bk.backupMu.Lock()
	if bk.backupSums == nil {
		bk.backupSums = map[string]uint32{}
	}
	bk.backupSums[path] = sum
	delete(bk.backupChecks, path) // a check kept of an earlier file of that name
	bk.backupMu.Unlock()
}

// errIncTooLarge stops an increment that would hold more than
// 1/incMaxShare of a copy no larger than a chunk of the next base, or
// 1/incWholeShare of a larger one: the day's backup is then a new base,
// written whole.
var errIncTooLarge = errors.New("the increment would hold too much of the copy")

// backupIncrement writes the increment of the journal at path (journal-DAY.inc)
// against the base at base, whose page digests are given, continuing the
// increment prev (chain.go; nil: the first after the base), and returns its
// trailer: the pages that differ from prev's copy (from the base's without
// it), then the Since list of those that differ from the base. bound stops it
// with errIncTooLarge when more than 1/incMaxShare of a copy of at most chunk
// bytes differs from the base, more than 1/incWholeShare of a larger one
// (whose next base is otherwise built from the base, stepNext). In the same
// read transaction it checks the copy the increment stands for as
// VerifyBackup checks a full copy: the right edge of every bucket, the hash
// chain from where scopeFromPrevious starts to the head, both checkpoints,
// and the derived records those events wrote; its result waits for
// VerifyBackup.
func (bk *Archive) backupIncrement(ctx context.Context, path, base string, digests []uint64, bt pagesTrailer, prev *prevInc, bound bool, chunk int64) (incTrailer, error) {
	var (
		checked error
		t       incTrailer
	)
	err := bk.writeCopy(path, func(tx *bolt.Tx, w io.Writer) error {
		ps := tx.DB().Info().PageSize
		if ps != bt.PageSize {
			return errIncTooLarge
		}
		bw := bufio.NewWriterSize(w, 1<<20)
		sum := crc32.New(backupCRC)
		mw := io.MultiWriter(bw, sum)
		if _, err := io.WriteString(mw, incMagic); err != nil {
			return err
		}
		limit := tx.Size() / incMaxShare
		if tx.Size() > chunk {
			limit = tx.Size() / incWholeShare
		}
		var (
			held     int64
			tooLarge bool
			pages    int
			id       [8]byte
			since    []incPage
		)
		var s *pageStream
		s = newPageStream(ps, func(pgid, d uint64) bool {
			fromBase := pgid >= uint64(len(digests)) || digests[pgid] != d
			if fromBase {
				since = append(since, incPage{pgid, d})
				// The two meta pages change at every commit and are not counted.
				if held += int64(ps); bound && pgid > 1 && held > limit {
					tooLarge = true
					return true
				}
			}
			if prev == nil {
				return fromBase
			}
			return pgid >= uint64(len(prev.digests)) || prev.digests[pgid] != d
		}, func(pgid uint64, p []byte) error {
			if tooLarge {
				return errIncTooLarge
			}
			// The page as taken, which a page free in the journal read
			// again may no longer be as want saw it: its digest is the one
			// the Since list keeps.
			if n := len(since); n > 0 && since[n-1].id == pgid {
				since[n-1].digest = s.taken
			} else if pgid >= uint64(len(digests)) || digests[pgid] != s.taken {
				since = append(since, incPage{pgid, s.taken})
			}
			pages++
			binary.BigEndian.PutUint64(id[:], pgid)
			if _, err := mw.Write(id[:]); err != nil {
				return err
			}
			_, err := mw.Write(p)
			return err
		})
		// A page not written since the base is the base's; the pages of
		// prev's copy that differ from the base are among those written
		// since, or handed to want with the base's digest and read.
		since0 := bk.written.since(tx, filepath.Base(base), bt)
		s.since, s.known = since0, digests
		if _, err := tx.WriteTo(s); err != nil {
			if errors.Is(err, errIncTooLarge) {
				return errIncTooLarge
			}
			return err
		}
		if tooLarge {
			return errIncTooLarge
		}
		if err := s.close(); err != nil {
			return err
		}
		var e [incSinceEntry]byte
		for _, p := range since {
			binary.BigEndian.PutUint64(e[:8], p.id)
			binary.BigEndian.PutUint64(e[8:], p.digest)
			if _, err := mw.Write(e[:]); err != nil {
				return err
			}
		}
		if since0 == nil {
			// The whole journal was read: the pages written since the
			// base are kept from here on, starting with those found to
			// differ from it.
			bk.written.start(tx, filepath.Base(base), bt, func(add func(uint64)) {
				for _, p := range since {
					add(p.id)
				}
			})
		}
		t = incTrailer{Version: 2, Base: filepath.Base(base), BaseSize: bt.Size, BaseCRC: bt.CRC,
			Size: s.written, CRC: s.crc, PageSize: ps, Pages: pages, Since: len(since)}
		if prev != nil {
			t.Prev, t.PrevCRC = prev.name, prev.t.CRC
		}
		if err := writeTrailer(bw, sum, t); err != nil {
			return err
		}
		if err := bw.Flush(); err != nil {
			return err
		}
		checked = bk.checkSnapshot(ctx, tx, path)
		return nil
	})
	if err != nil {
		return t, err
	}
	bk.noteCheck(path, checked)
	return t, nil
}

// noteCheck keeps the check of the copy the backup at path stands for, made
// on the read transaction it was taken of, for VerifyBackup.
func (bk *Archive) noteCheck(path string, checked error) {
	bk.backupMu.Lock()
	if bk.backupChecks == nil {
		bk.backupChecks = map[string]error{}
	}
	bk.backupChecks[path] = checked
	bk.backupMu.Unlock()
}

// checkSnapshot checks the journal as the read transaction tx sees it, the
// bytes an increment was just taken of, as VerifyBackup checks a full copy
// once opened; a damage found is reported against the backup at path.
func (bk *Archive) checkSnapshot(ctx context.Context, tx *bolt.Tx, path string) error {
	err := guard(func() error { return walkTree(tx, true) })
	if err == nil {
		err = (&Log{bk.journalCore}).verifyChain(ctx, tx, scopeFromPrevious, nil)
	}
	if err == nil {
		return nil
	}
	if ce, ok := errors.AsType[*CorruptError](err); ok {
		c := *ce
		c.Path, c.Backup = path, path
		return &c
	}
	if me, ok := errors.AsType[*MismatchError](err); ok {
		m := *me
		m.Path, m.Backup = path, path
		return &m
	}
	return &CorruptError{Path: path, Reason: err.Error(), Backup: path}
}

// newestBase returns the path of the newest base (a full day backup with its
// page digests) of a day up to day in dir, and its digests; "" when there is
// none.
func newestBase(dir, day string) (string, []uint64, pagesTrailer, error) {
	files, err := backupFiles(dir)
	if err != nil {
		return "", nil, pagesTrailer{}, err
	}
	best := ""
	for _, f := range dayFiles(files) {
		if !f.inc && f.day <= day && (best == "" || f.day > best) {
			if _, err := os.Stat(filepath.Join(dir, f.name+pagesSuffix)); err == nil {
				best = f.day
			}
		}
	}
	if best == "" {
		return "", nil, pagesTrailer{}, nil
	}
	path := filepath.Join(dir, backupPrefix+best+backupSuffix)
	digests, t, err := readDigests(path)
	if err != nil {
		return "", nil, pagesTrailer{}, nil // not a base to build on: the day's backup is a new one
	}
	return path, digests, t, nil
}

// dependents returns the names of the increments in dir built on the base
// named base.
func dependents(dir, base string) []string {
	files, err := backupFiles(dir)
	if err != nil {
		return nil
	}
	var out []string
	for _, f := range dayFiles(files) {
		if !f.inc {
			continue
		}
		if b, err := incBase(filepath.Join(dir, f.name)); err == nil && b == base {
			out = append(out, f.name)
		}
	}
	return out
}

// The next base is built from files already on the disk, a chunk a
// close-day, so that no close-day of a journal larger than a chunk writes the
// whole file once it has a base: the base's bytes are copied into
// journal-next.partial, each page checked against the base's digest as it is
// read and read back once synced; on the close-day the copy is complete, the
// pages of that day's copy that differ from the base's digests (the pages its
// increment would hold) are written over it, which makes it that day's copy
// byte for byte (the copy an increment stands for is its base's bytes with
// its pages written over them). Those pages read back, it is renamed
// journal-DAY.db and given the copy's page digests: every page of it was read
// back on the day it was written, none twice (a 306 MB journal's base day
// read the whole copy back, 40 ms of its close-day); a page changed on the
// disk after is found by the close-days' reading of a slice a day
// (scrubSlice). The base and the increments already
// written are never changed on the way, so a close-day stopped at any point
// leaves them as they were; a partial that is damaged, missing its state or
// of a base no longer the newest is discarded with a line in backups.log, and
// the close-day goes on with the day's increment (docs/journal-schema.md
// "Backups").
//
// What a close-day writes is its increment (the pages changed since the
// base, which grow about 0.7 MB a day of 200 sales, measured on the grown
// 306 MB journal) and, while the next base is built, a chunk: with a chunk
// of c and the building started when the increment holds 1/s of the copy
// B, the most a day writes is about B/s + 0.7·B/c + c. The 32 MB chunk
// started at an eighth wrote up to 77 MB on a day (about 2× a fresh
// journal's close-day on this machine's disk); 16 MB started at a
// thirty-second writes at most about 40, each base then lasting about five
// weeks (docs/benchmarks.md, "The pages written since the base").
const (
	// nextBaseChunk is the most of the base copied into the next base at
	// one close-day. A copy no larger is written whole when it needs a new
	// base, as before.
	nextBaseChunk = 16 << 20
	// nextStartShare: the next base is started at the close-day whose
	// increment holds more than 1/nextStartShare of the copy.
	nextStartShare = 32
	// nextPartial holds the base's bytes copied so far; nextState says how
	// many, of which base.
	nextPartial = "journal-next.partial"
	nextState   = "journal-next.state"
	nextMagic   = "GALLANXT"
	// backupLog receives a line for each next base started, made or
	// discarded.
	backupLog = "backups.log"
)

// nextBaseKnobs are the tests' hold on the building of the next base.
type nextBaseKnobs struct {
	chunk int64                  // bytes of the base copied a close-day; 0 is nextBaseChunk
	stop  func(step string) bool // a simulated crash: BackupDay stops right after step
	off   bool                   // no next base is started
}

// errStopped is what BackupDay returns where a test's simulated crash
// stopped it.
var errStopped = errors.New("stopped (a simulated crash)")

// nextTrailer is the state of the next base being built.
type nextTrailer struct {
	Version  int    `json:"version"`
	Base     string `json:"base"` // the base copied, its size and CRC-32C as written
	BaseSize int64  `json:"base_size"`
	BaseCRC  uint32 `json:"base_crc"`
	PageSize int    `json:"page_size"`
	Copied   int64  `json:"copied"`  // the base's bytes in the partial, synced
	Started  string `json:"started"` // the day the building started
}

// baseDamageError is a page of the base that is not the one its digest was
// taken of: the base has changed on the disk since it was written.
type baseDamageError struct {
	base string
	pgid int64
}

func (e *baseDamageError) Error() string {
	return fmt.Sprintf("page %d of %s is not the one written", e.pgid, filepath.Base(e.base))
}

// nextChunk is the most of the base copied into the next base at one
// close-day, in whole pages of size ps.
func (bk *Archive) nextChunk(ps int) int64 {
	c := int64(nextBaseChunk)
	if bk.next.chunk > 0 {
		c = bk.next.chunk
	}
	return max(c/int64(ps), 1) * int64(ps)
}

// stopAt reports whether a test stops BackupDay right after step.
func (bk *Archive) stopAt(step string) bool { return bk.next.stop != nil && bk.next.stop(step) }

// readNextState reads the state of the next base being built in dir.
func readNextState(dir string) (nextTrailer, error) {
	var t nextTrailer
	f, err := os.Open(filepath.Join(dir, nextState))
	if err != nil {
		return t, err
	}
	defer f.Close()
	info, err := f.Stat()
	if err != nil {
		return t, err
	}
	if _, err := readTrailer(f, info.Size(), nextMagic, &t); err != nil {
		return t, err
	}
	if t.Version != 1 || t.PageSize <= 0 || t.Copied < 0 || t.Copied > t.BaseSize || t.Copied%int64(t.PageSize) != 0 {
		return t, errors.New("it does not describe a copy of a base")
	}
	return t, nil
}

// writeNextState writes the state of the next base being built in dir.
func writeNextState(dir string, t nextTrailer) error {
	return writeSynced(filepath.Join(dir, nextState), func(w io.Writer) error {
		sum := crc32.New(backupCRC)
		if _, err := io.MultiWriter(w, sum).Write([]byte(nextMagic)); err != nil {
			return err
		}
		return writeTrailer(w, sum, t)
	})
}

// logLine appends a line to the backups' log (backups.log), stamped with the
// journal's time and the day whose backup wrote it ("backup of DAY: "); a log
// that cannot be written is let be.
func (bk *Archive) logLine(day, format string, args ...any) {
	f, err := os.OpenFile(filepath.Join(bk.backupDir, backupLog), os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o600)
	if err != nil {
		return
	}
	defer f.Close()
	_, _ = fmt.Fprintf(f, "%s %s%s\n", bk.now().UTC().Format(time.RFC3339), logDay(day), fmt.Sprintf(format, args...))
}

// logDay is what a line of backups.log says after its time: the day whose
// backup wrote it.
func logDay(day string) string { return "backup of " + day + ": " }

// discardedPrefix begins, after logDay, the line of a next base discarded.
const discardedPrefix = nextPartial + " discarded: "

// logTail is the most of backups.log nextDiscarded reads, from its end: the
// lines of the day's backup, just written, are the last.
const logTail = 64 << 10

// nextDiscarded returns why the next base being built was discarded at the
// backups of day, from the lines of backups.log in dir (discardNext), oldest
// first; none when the log cannot be read.
func nextDiscarded(dir, day string) []string {
	f, err := os.Open(filepath.Join(dir, backupLog))
	if err != nil {
		return nil
	}
	defer f.Close()
	info, err := f.Stat()
	if err != nil {
		return nil
	}
	from := max(info.Size()-logTail, 0)
	buf := make([]byte, info.Size()-from)
	if _, err := f.ReadAt(buf, from); err != nil && !errors.Is(err, io.EOF) {
		return nil
	}
	lines := strings.Split(string(buf), "\n")
	if from > 0 {
		lines = lines[1:] // the first is cut
	}
	var out []string
	for _, l := range lines {
		_, rest, _ := strings.Cut(l, " ")
		if why, ok := strings.CutPrefix(rest, logDay(day)+discardedPrefix); ok {
			out = append(out, why)
		}
	}
	return out
}

// discardNext removes the next base being built, if there is one, with a
// line saying why, written at the backup of day: the close-day's Z report
// repeats it (nextDiscarded, PruneBackups).
func (bk *Archive) discardNext(day, why string) {
	partial := filepath.Join(bk.backupDir, nextPartial)
	_, perr := os.Stat(partial)
	_, serr := os.Stat(filepath.Join(bk.backupDir, nextState))
	if perr != nil && serr != nil {
		return
	}
	_ = os.Remove(filepath.Join(bk.backupDir, nextState))
	_ = os.Remove(partial)
	bk.logLine(day, "%s%s", discardedPrefix, why)
}

// stepNext takes the day's step in building the next base of the base at
// base (its digests and trailer given), before the day's increment: when a
// building of it is under way, it copies the next chunk, or, the base all
// copied at an earlier close-day, it makes the partial the day's base
// (makeBase), returning its path. It returns "" and whether a building is under way when the day's
// backup is still to be written; a *baseDamageError when the base is found
// damaged (the day needs a base written whole). A partial it cannot go on
// with is discarded with a line.
func (bk *Archive) stepNext(ctx context.Context, day, full, base string, digests []uint64, bt pagesTrailer) (string, bool, error) {
	dir := bk.backupDir
	st, err := readNextState(dir)
	switch {
	case err == nil && (st.Base != filepath.Base(base) || st.BaseSize != bt.Size || st.BaseCRC != bt.CRC || st.PageSize != bt.PageSize):
		bk.discardNext(day, "it was copied from "+st.Base+", which is no longer the newest base as written")
		return "", false, nil
	case err != nil && !errors.Is(err, fs.ErrNotExist):
		bk.discardNext(day, "its state cannot be read ("+err.Error()+")")
		return "", false, nil
	case err != nil:
		// A partial without its state was being made a day's base when
		// that close-day stopped.
		bk.discardNext(day, "its state is missing (a close-day stopped while it was made the day's base)")
		return "", false, nil
	}
	if info, err := os.Stat(filepath.Join(dir, nextPartial)); err != nil || info.Size() < st.Copied {
		bk.discardNext(day, fmt.Sprintf("it holds fewer bytes than the %d its state says were copied", st.Copied))
		return "", false, nil
	}
	if bad, err := bk.scrubFile(ctx, day, filepath.Join(dir, nextPartial), st.Copied, st.PageSize, digests); err != nil || bad >= 0 {
		why := fmt.Sprintf("page %d of it is not the one copied", bad)
		if err != nil {
			why = "it cannot be read back (" + err.Error() + ")"
		}
		bk.discardNext(day, why)
		return "", false, nil
	}
	if base == full {
		// The base is the day's own: it is not replaced; the building
		// goes on the next day.
		return "", true, nil
	}
	if st.Copied < st.BaseSize {
		// The base is made the close-day after its last chunk is
		// copied, never the same day: that day writes the day's pages
		// over it and no chunk (a make-base day with its last chunk read
		// 2.0–2.2× a fresh journal's 30 busy days after the base).
		if err := bk.copyNext(ctx, day, base, &st, digests, bk.nextChunk(bt.PageSize)); err != nil {
			return "", false, err
		}
		return "", true, nil
	}
	path, err := bk.makeBase(ctx, day, full, digests, st)
	if path != "" || err != nil {
		return path, false, err
	}
	// Still under way when the partial was let be, not discarded.
	_, err = os.Stat(filepath.Join(dir, nextPartial))
	return "", err == nil, nil
}

// startNext starts building the next base of the base at base after the
// day's increment (its trailer it): when the increment holds more than
// 1/nextStartShare of a copy larger than a chunk, it copies the base's first
// chunk. It returns a *baseDamageError when the base is found damaged.
func (bk *Archive) startNext(ctx context.Context, day, full, base string, digests []uint64, bt pagesTrailer, it incTrailer) error {
	chunk := bk.nextChunk(bt.PageSize)
	if bk.next.off || base == full || it.Size <= chunk || int64(it.fromBase())*int64(it.PageSize)*nextStartShare <= it.Size {
		return nil
	}
	st := nextTrailer{Version: 1, Base: filepath.Base(base), BaseSize: bt.Size, BaseCRC: bt.CRC, PageSize: bt.PageSize, Started: day}
	bk.logLine(day, "%s started: a copy of %s (%d bytes), %d bytes a close-day; %d of the day's %d pages differ from it",
		nextPartial, st.Base, st.BaseSize, chunk, it.fromBase(), it.Size/int64(it.PageSize))
	return bk.copyNext(ctx, day, base, &st, digests, chunk)
}

// copyNext copies the next chunk of the base at base into the partial, each
// page checked against its digest, syncs it and writes the state st moved
// on. A failure other than the base's damage (a *baseDamageError, returned)
// discards the partial with a line.
func (bk *Archive) copyNext(ctx context.Context, day, base string, st *nextTrailer, digests []uint64, chunk int64) error {
	n := min(chunk, st.BaseSize-st.Copied)
	err := copyPages(ctx, base, filepath.Join(bk.backupDir, nextPartial), st, digests, n)
	if err == nil {
		st.Copied += n
		err = writeNextState(bk.backupDir, *st)
	}
	if _, ok := errors.AsType[*baseDamageError](err); ok {
		bk.discardNext(day, err.Error())
		return err
	}
	if err != nil {
		bk.discardNext(day, "the copy of the base failed ("+err.Error()+")")
		return nil
	}
	if bk.stopAt("chunk") {
		return errStopped
	}
	return nil
}

// copyPages copies n bytes of the base at base into the partial from
// st.Copied, each page checked against its digest, and syncs the partial.
func copyPages(ctx context.Context, base, partial string, st *nextTrailer, digests []uint64, n int64) error {
	in, err := os.Open(base)
	if err != nil {
		return err
	}
	defer in.Close()
	flags := os.O_RDWR | os.O_CREATE
	if st.Copied == 0 {
		flags |= os.O_TRUNC
	}
	out, err := os.OpenFile(partial, flags, 0o600)
	if err != nil {
		return err
	}
	ps := int64(st.PageSize)
	buf := make([]byte, max(min(int64(copyChunk)/ps*ps, n), ps))
	err = func() error {
		for off, end := st.Copied, st.Copied+n; off < end; {
			if err := ctx.Err(); err != nil {
				return err
			}
			p := buf[:min(int64(len(buf)), end-off)]
			if _, err := in.ReadAt(p, off); err != nil {
				return err
			}
			for i := int64(0); i < int64(len(p)); i += ps {
				pgid := (off + i) / ps
				if pgid >= int64(len(digests)) || pageDigest(p[i:i+ps]) != digests[pgid] {
					return &baseDamageError{base: base, pgid: pgid}
				}
			}
			if _, err := out.WriteAt(p, off); err != nil {
				return err
			}
			off += int64(len(p))
		}
		if err := out.Sync(); err != nil {
			return err
		}
		return readBack(ctx, out, st.Copied, n, ps, func(pgid int64) uint64 { return digests[pgid] })
	}()
	if cerr := out.Close(); err == nil {
		err = cerr
	}
	return err
}

// readBack reads the n bytes of f from off, whole pages of ps bytes, back
// after they were written and synced, and compares each page's digest with
// want's: the next base is read back a day's share at a time, the pages
// copied into it on their close-day and those written over it on the day it
// is made, rather than whole on that day (a year's journal is 300 MB).
func readBack(ctx context.Context, f *os.File, off, n, ps int64, want func(pgid int64) uint64) error {
	bad, err := firstBadPage(ctx, f, off, n, ps, want)
	if err == nil && bad >= 0 {
		err = fmt.Errorf("page %d read back is not the one written", bad)
	}
	return err
}

// pageRunMax is the most bytes pageRun gathers before it writes them.
const pageRunMax = 1 << 20

// pageRun writes pages handed in ascending order to f at their places, the
// pages of a run of consecutive ids in one write: the day's changed pages
// written over the next base are thousands (5 260 after 30 busy days, one
// write each 32 ms of the close-day).
type pageRun struct {
	f     *os.File
	ps    int64
	first uint64 // the id of the first page in buf
	buf   []byte
}

// add adds page id, p, writing the run gathered first unless p continues it.
func (r *pageRun) add(id uint64, p []byte) error {
	if len(r.buf) > 0 && (id != r.first+uint64(int64(len(r.buf))/r.ps) || len(r.buf)+len(p) > pageRunMax) {
		if err := r.flush(); err != nil {
			return err
		}
	}
	if len(r.buf) == 0 {
		r.first = id
	}
	r.buf = append(r.buf, p...)
	return nil
}

// flush writes the run gathered.
func (r *pageRun) flush() error {
	if len(r.buf) == 0 {
		return nil
	}
	_, err := r.f.WriteAt(r.buf, int64(r.first)*r.ps)
	r.buf = r.buf[:0]
	return err
}

// readBackPages reads the pages ids (ascending) of f back, a run of
// consecutive ids in one read, and compares each page's digest with its
// own in digests.
func readBackPages(f *os.File, ids []uint64, ps int64, digests []uint64) error {
	var buf []byte
	for i := 0; i < len(ids); {
		j := i + 1
		for j < len(ids) && int64(j-i)*ps < pageRunMax && ids[j] == ids[j-1]+1 {
			j++
		}
		n := int64(j-i) * ps
		if int64(cap(buf)) < n {
			buf = make([]byte, max(n, pageRunMax))
		}
		p := buf[:n]
		if _, err := f.ReadAt(p, int64(ids[i])*ps); err != nil {
			return err
		}
		for k := i; k < j; k++ {
			if pageDigest(p[int64(k-i)*ps:int64(k-i+1)*ps]) != digests[ids[k]] {
				return fmt.Errorf("page %d read back is not the one written", ids[k])
			}
		}
		i = j
	}
	return nil
}

// firstBadPage reads the n bytes of r from off, whole pages of ps bytes, and
// returns the first page whose digest is not want's, -1 when there is none.
func firstBadPage(ctx context.Context, r io.ReaderAt, off, n, ps int64, want func(pgid int64) uint64) (int64, error) {
	var bad atomic.Int64
	bad.Store(-1)
	chunk := max(int64(digestChunk)/ps, 1) * ps
	err := readInPieces(ctx, r, off, n, chunk, func(c int64, p []byte) {
		first := (off + c*chunk) / ps
		for i := int64(0); i < int64(len(p)); i += ps {
			if pg := first + i/ps; pageDigest(p[i:i+ps]) != want(pg) {
				for {
					if b := bad.Load(); b >= 0 && b <= pg || bad.CompareAndSwap(b, pg) {
						break
					}
				}
				return
			}
		}
	})
	return bad.Load(), err
}

// Each close-day also reads a slice of the newest base back against its
// digests, and a slice of the next base being built against the base's: the
// slice of the day's number (days since 1970) modulo the slices there are,
// one chunk of the next base each, so that every page of a base is read
// again every few weeks while increments are built on it (a 306 MB base,
// every 20 close-days). A page of a partial found damaged discards it with a
// line; a page of the base found damaged makes the day's backup a base
// written whole, as when copying it finds one. A page written over on the
// disk after it was read back on its own day is found so, not the day after.

// scrubSlice returns the offset and length of the slice of a file of size
// bytes read again at the close-day of day, in chunks of chunk bytes.
func scrubSlice(day string, size, chunk int64) (int64, int64) {
	t, err := time.Parse(pos.DayLayout, day)
	if err != nil || size <= 0 || chunk <= 0 {
		return 0, 0
	}
	slices := (size + chunk - 1) / chunk
	i := (t.Unix() / 86400) % slices
	return i * chunk, min(chunk, size-i*chunk)
}

// scrubFile reads the day's slice (scrubSlice) of the first size bytes of
// the file at path back against digests and returns the first page that is
// not the one they were taken of, -1 when none.
func (bk *Archive) scrubFile(ctx context.Context, day, path string, size int64, ps int, digests []uint64) (int64, error) {
	off, n := scrubSlice(day, size, bk.nextChunk(ps))
	if n <= 0 {
		return -1, nil
	}
	f, err := os.Open(path)
	if err != nil {
		return -1, err
	}
	defer f.Close()
	return firstBadPage(ctx, f, off, n, int64(ps), func(pgid int64) uint64 {
		if pgid >= int64(len(digests)) {
			return 0
		}
		return digests[pgid]
	})
}

// makeBase makes the partial, the base's bytes all copied (st), the day's
// base full: in one read transaction, the pages of the day's copy whose
// digest is not the base's are written over it and the copy is checked as an
// increment's is (checkSnapshot, kept for VerifyBackup); it is cut to the
// copy's size, synced, those pages read back against their digests (the
// others were on the close-day that copied them), renamed and given the page
// digests of the copy. Its state is removed first: from there
// the partial is no longer the base's copy, and one a close-day left stopped
// on the way is discarded. It returns "" when the partial could not be made
// the base (discarded with a line): the day's backup is then its increment.
func (bk *Archive) makeBase(ctx context.Context, day, full string, digests []uint64, st nextTrailer) (string, error) {
	dir := bk.backupDir
	partial := filepath.Join(dir, nextPartial)
	if _, err := os.Stat(full); err == nil && len(dependents(dir, filepath.Base(full))) > 0 {
		return "", nil // a base of the same day others are built on is not replaced
	}
	if err := os.Remove(filepath.Join(dir, nextState)); err != nil {
		bk.discardNext(day, "its state could not be removed ("+err.Error()+")")
		return "", nil
	}
	if bk.stopAt("state removed") {
		return "", errStopped
	}
	var (
		all     []uint64
		pt      pagesTrailer
		checked error
		changed []uint64
	)
	err := func() error {
		f, err := os.OpenFile(partial, os.O_RDWR, 0o600)
		if err != nil {
			return err
		}
		defer f.Close()
		err = bk.view(func(tx *bolt.Tx) error {
			ps := tx.DB().Info().PageSize
			if ps != st.PageSize {
				return fmt.Errorf("the journal's pages are of %d bytes, the base's of %d", ps, st.PageSize)
			}
			run := &pageRun{f: f, ps: int64(ps)}
			s := newPageStream(ps, func(pgid, d uint64) bool {
				return pgid >= uint64(len(digests)) || digests[pgid] != d
			}, func(pgid uint64, p []byte) error {
				changed = append(changed, pgid)
				return run.add(pgid, p)
			})
			s.keep = true
			s.since = bk.written.since(tx, st.Base, pagesTrailer{Size: st.BaseSize, CRC: st.BaseCRC, PageSize: st.PageSize})
			s.known = digests
			if _, err := tx.WriteTo(s); err != nil {
				return err
			}
			if err := run.flush(); err != nil {
				return err
			}
			if err := s.close(); err != nil {
				return err
			}
			all = s.digests
			pt = pagesTrailer{Version: 1, Size: s.written, CRC: s.crc, PageSize: ps}
			bk.written.start(tx, filepath.Base(full), pt, nil)
			checked = bk.checkSnapshot(ctx, tx, full)
			return nil
		})
		if err != nil {
			return err
		}
		if err := f.Truncate(pt.Size); err != nil {
			return err
		}
		if err := f.Sync(); err != nil {
			return err
		}
		// The pages copied from the base were read back on the
		// close-day that copied them (copyPages); those of the day, here.
		if err := readBackPages(f, changed, int64(st.PageSize), all); err != nil {
			return fmt.Errorf("the day's copy made of it is not the one taken: %w", err)
		}
		return nil
	}()
	if err == nil && bk.stopAt("pages written") {
		return "", errStopped
	}
	if err == nil {
		// Digests of another file under the new base's name would be taken
		// for its own.
		if rerr := os.Remove(full + pagesSuffix); rerr != nil && !errors.Is(rerr, fs.ErrNotExist) {
			err = rerr
		}
	}
	if err == nil {
		err = os.Rename(partial, full)
	}
	if err != nil {
		bk.discardNext(day, "it could not be made the day's base ("+err.Error()+")")
		return "", nil
	}
	if bk.stopAt("renamed") {
		return "", errStopped
	}
	// Without its digests the new base is still the day's full backup; the
	// next day's backup is then an increment of the base before.
	if err := writeDigests(full, all, pt); err != nil {
		bk.logLine(day, "%s was made of %s but its page digests could not be written (%v)", filepath.Base(full), nextPartial, err)
	}
	if bk.stopAt("digests") {
		return "", errStopped
	}
	bk.backupMu.Lock()
	delete(bk.backupSums, full)
	bk.backupMu.Unlock()
	bk.noteCheck(full, checked)
	bk.logLine(day, "%s made the day's base from %s (copied since %s) and the %d pages of the day that differ from it",
		filepath.Base(full), st.Base, st.Started, len(changed))
	return full, nil
}
