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

	bolt "go.etcd.io/bbolt"
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
	names, trailers, broken := incChain(dir, filepath.Base(inc), t)
	if broken != nil {
		return &IncrementError{Path: inc, Base: base, Prev: filepath.Join(dir, broken.name), Reason: broken.reason}
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
// (whose next base is otherwise built a chunk a close-day, nextbase.go). In
// the same stream it writes the day's share of the next base, plan, into its
// partial (nextbase.go). In the same read transaction it checks the copy the
// increment stands for as
// VerifyBackup checks a full copy: the right edge of every bucket, the hash
// chain from where scopeFromPrevious starts to the head, both checkpoints,
// and the derived records those events wrote; its result waits for
// VerifyBackup.
func (bk *Archive) backupIncrement(ctx context.Context, path, base string, digests []uint64, bt pagesTrailer, prev *prevInc, plan *nextPlan, bound bool, chunk int64) (incTrailer, error) {
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
		// The day's share of the next base: the chunk [from, to) of the
		// copy, and the pages before it that the day changed.
		var pl *nextPlan
		if plan != nil {
			plan.size, plan.from = tx.Size(), plan.st.Copied
			plan.to = min(plan.from+bk.nextChunk(ps), plan.size)
			if plan.from > plan.size {
				plan.failed = "it holds more than the day's copy"
			} else {
				pl = plan
			}
		}
		inChunk := func(pgid uint64) bool {
			off := int64(pgid) * int64(ps)
			return pl != nil && off >= pl.from && off < pl.to
		}
		// changed reports whether page pgid of digest d differs from the
		// copy the increment continues.
		changed := func(pgid, d uint64) bool {
			if prev == nil {
				return pgid >= uint64(len(digests)) || digests[pgid] != d
			}
			return pgid >= uint64(len(prev.digests)) || prev.digests[pgid] != d
		}
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
			return changed(pgid, d) || inChunk(pgid)
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
			diff := changed(pgid, s.taken)
			if pl != nil && (inChunk(pgid) || diff && int64(pgid)*int64(ps) < pl.from) {
				if err := pl.run.add(pgid, p); err != nil {
					return err
				}
				pl.ids = append(pl.ids, pgid)
			}
			if !diff {
				return nil
			}
			pages++
			binary.BigEndian.PutUint64(id[:], pgid)
			if _, err := mw.Write(id[:]); err != nil {
				return err
			}
			_, err := mw.Write(p)
			return err
		})
		if pl != nil {
			s.keep = true
			s.readFrom, s.readTo = uint64(pl.from)/uint64(ps), uint64(pl.to)/uint64(ps)
		}
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
		if pl != nil {
			pl.digests = s.digests
			pl.pt = pagesTrailer{Version: 1, Size: s.written, CRC: s.crc, PageSize: ps}
		}
		if pl.complete() {
			// The partial is the day's copy, made the day's base after:
			// the pages written since it are kept from here on.
			bk.written.start(tx, filepath.Base(pl.full), pl.pt, nil)
		} else if since0 == nil {
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
		if pl != nil {
			pl.checked = bk.checkSnapshot(ctx, tx, pl.full)
		}
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
