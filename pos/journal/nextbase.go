package journal

import (
	"context"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"time"
)

// The next base is the copy of a day, built a chunk a close-day, so that no
// close-day of a journal larger than a chunk writes the whole file once it
// has a base. journal-next.partial holds the first bytes of the copy of the
// newest day's backup (the copy of the increment the state names, or of the
// base itself before its first increment): each close-day, in the read
// transaction its increment is taken of, the pages of the day's copy that
// differ from that copy and lie in those bytes (the pages of the day's
// increment there, written to both) and the next chunk of the day's copy are
// written into it, so that it holds the first bytes of the day's copy; the
// pages written are read back once synced, and the state names the day's
// increment. The close-day whose chunk reaches the copy's end makes it the
// day's base: the state removed, it is renamed journal-DAY.db and given the
// copy's page digests (the day's increment, held by the base, removed). Every
// page of it was read back on the day it was written; a page changed on the
// disk after is found by the close-days' reading of a slice a day
// (scrubSlice). The base and the increments already written are never
// changed on the way, so a close-day stopped at any point leaves them as
// they were; a partial that is damaged, left part-written, missing its state,
// of a base no longer the newest or of a copy the day's increment does not
// continue is discarded with a line in backups.log, and the close-day goes on
// with the day's increment (docs/journal-schema.md "Backups").
//
// What a close-day writes is so its increment (what the day changed: about
// 0.9 MB a day of 200 sales on the grown 306 MB journal), and while the next
// base is built a chunk and the day's pages once more: the base made on the
// day its last chunk is copied writes nothing more but its digests (the base
// made of the base's bytes wrote every page changed since it over them, 21 MB
// thirty busy days after it). The building starts the close-day after one
// whose increment's copy differs from the base in more than a thirty-second.
const (
	// nextBaseChunk is the most of the day's copy copied into the next
	// base at one close-day (2026-11-28, 500k bench, a chunk day: 1.38–1.47×
	// a fresh journal's close-day with 8 MB, 1.61–1.67 with 16). A copy no
	// larger is written whole when it needs a new base, as before.
	nextBaseChunk = 8 << 20
	// scrubChunk is the slice of the base and of the partial read again at
	// each close-day (scrubSlice).
	scrubChunk = 16 << 20
	// nextStartShare: the next base is started at the close-day whose
	// increment holds more than 1/nextStartShare of the copy.
	nextStartShare = 32
	// nextPartial holds the bytes of the copy copied so far; nextState says
	// how many, of which base's chain and which day's copy.
	nextPartial = "journal-next.partial"
	nextState   = "journal-next.state"
	nextMagic   = "GALLANXT"
	// backupLog receives a line for each next base started, made or
	// discarded.
	backupLog = "backups.log"
)

// nextBaseKnobs are the tests' hold on the building of the next base.
type nextBaseKnobs struct {
	chunk int64                  // bytes of the copy copied a close-day, and of a slice read again; 0 is nextBaseChunk and scrubChunk
	stop  func(step string) bool // a simulated crash: BackupDay stops right after step
	off   bool                   // no next base is started
}

// errStopped is what BackupDay returns where a test's simulated crash
// stopped it.
var errStopped = errors.New("stopped (a simulated crash)")

// nextTrailer is the state of the next base being built.
type nextTrailer struct {
	Version  int    `json:"version"` // 2: the partial is the copy of a day (1 held the base's bytes)
	Base     string `json:"base"`    // the base whose chain it follows, its size and CRC-32C as written
	BaseSize int64  `json:"base_size"`
	BaseCRC  uint32 `json:"base_crc"`
	PageSize int    `json:"page_size"`
	Copied   int64  `json:"copied"`  // the copy's bytes in the partial, synced
	Started  string `json:"started"` // the day the building started
	// The backup whose copy the partial's bytes are (an increment, or the
	// base) and that copy's CRC-32C; "" while a close-day writes them.
	Copy    string `json:"copy"`
	CopyCRC uint32 `json:"copy_crc"`
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

// nextChunk is the most of the day's copy copied into the next base at one
// close-day, in whole pages of size ps.
func (bk *Archive) nextChunk(ps int) int64 { return bk.pages(nextBaseChunk, ps) }

// scrubSize is the slice of a file read again at a close-day (scrubSlice),
// in whole pages of size ps.
func (bk *Archive) scrubSize(ps int) int64 { return bk.pages(scrubChunk, ps) }

// pages is c bytes, or the tests' chunk when set, in whole pages of size ps.
func (bk *Archive) pages(c int64, ps int) int64 {
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
	if t.Version == 1 {
		return t, errors.New("it holds the bytes of a base, as an earlier Galla built it")
	}
	if t.Version != 2 || t.PageSize <= 0 || t.Copied < 0 || t.Copied%int64(t.PageSize) != 0 {
		return t, errors.New("it does not describe a copy of a day")
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
// digests, and a slice of the next base being built against those of the
// copy it holds: the slice of the day's number (days since 1970) modulo the
// slices there are, 16 MB each, so that every page of a base is read again
// every few weeks while increments are built on it (a 306 MB base, every 20
// close-days). A page of a partial found damaged discards it with a line; a
// page of the base found damaged makes the day's backup a base written
// whole. A page written over on the disk after it was read back on its own
// day is found so, not the day after.

// scrubSlice returns the offset and length of the slice of a file of size
// bytes read again at the close-day of day, in chunks of chunk bytes.
func scrubSlice(day string, size, chunk int64) (int64, int64) {
	if size <= 0 || chunk <= 0 {
		return 0, 0
	}
	i := int64(scrubIndex(day, int((size+chunk-1)/chunk)))
	return i * chunk, min(chunk, size-i*chunk)
}

// scrubFile reads the day's slice (scrubSlice) of the first size bytes of
// the file at path back against digests and returns the first page that is
// not the one they were taken of, -1 when none.
func (bk *Archive) scrubFile(ctx context.Context, day, path string, size int64, ps int, digests []uint64) (int64, error) {
	off, n := scrubSlice(day, size, bk.scrubSize(ps))
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

// nextPlan is the day's share of building the next base: the partial, open,
// its state, and what the day's read transaction writes into it.
type nextPlan struct {
	f        *os.File
	st       nextTrailer
	full     string // the day's base, journal-DAY.db, when the copy is complete
	run      pageRun
	ids      []uint64 // the pages written into the partial, ascending
	from, to int64    // the chunk of the day's copy copied, in bytes
	size     int64    // the day's copy's size
	digests  []uint64 // the day's copy's page digests
	pt       pagesTrailer
	checked  error  // the check of the day's copy (checkSnapshot)
	failed   string // why the day's writing cannot go on, if it cannot
}

// complete reports whether the partial holds the whole day's copy.
func (p *nextPlan) complete() bool { return p != nil && p.failed == "" && p.to == p.size }

// close closes the partial.
func (p *nextPlan) close() {
	if p != nil && p.f != nil {
		_ = p.f.Close()
		p.f = nil
	}
}

// copyOf returns the name and copy CRC-32C of the backup the day's increment
// continues: prev, or the base (name, trailer bt) when it is the first after
// it.
func copyOf(prev *prevInc, base string, bt pagesTrailer) (string, uint32) {
	if prev != nil {
		return prev.name, prev.t.CRC
	}
	return filepath.Base(base), bt.CRC
}

// planNext prepares the day's share of building the next base of the base
// at base (its trailer bt and digests), whose day's increment continues prev
// (nil: the base): the building under way goes on when its partial is the
// copy prev stands for, whole as far as the day's slice of it read again
// shows; else one is started when prev's copy differs from the base in more
// than 1/nextStartShare of it. A partial it cannot go on with is discarded
// with a line. Before it returns a plan, the state says the partial is being
// written (no copy named), so that a close-day stopped while it writes it
// leaves a partial the next discards. It returns nil when the day builds
// nothing.
func (bk *Archive) planNext(ctx context.Context, day, full, base string, bt pagesTrailer, digests []uint64, prev *prevInc) *nextPlan {
	dir := bk.backupDir
	partial := filepath.Join(dir, nextPartial)
	copyName, copyCRC := copyOf(prev, base, bt)
	known := digests
	if prev != nil {
		known = prev.digests
	}
	st, err := readNextState(dir)
	switch {
	case err == nil && (st.Base != filepath.Base(base) || st.BaseSize != bt.Size || st.BaseCRC != bt.CRC || st.PageSize != bt.PageSize):
		bk.discardNext(day, "it was copied from the chain of "+st.Base+", which is no longer the newest base as written")
		return nil
	case err != nil && !errors.Is(err, fs.ErrNotExist):
		bk.discardNext(day, "its state cannot be read ("+err.Error()+")")
		return nil
	case err != nil:
		if _, perr := os.Stat(partial); perr == nil {
			// A partial without its state was being made a day's base
			// when that close-day stopped.
			bk.discardNext(day, "its state is missing (a close-day stopped while it was made the day's base)")
			return nil
		}
		return bk.startNext(day, full, base, bt, prev)
	case st.Copy == "":
		bk.discardNext(day, "a close-day stopped while it wrote it")
		return nil
	case st.Copy != copyName || st.CopyCRC != copyCRC:
		bk.discardNext(day, "it is the copy of "+st.Copy+", which the day's backup does not continue")
		return nil
	}
	if info, err := os.Stat(partial); err != nil || info.Size() < st.Copied {
		bk.discardNext(day, fmt.Sprintf("it holds fewer bytes than the %d its state says were copied", st.Copied))
		return nil
	}
	if bad, err := bk.scrubFile(ctx, day, partial, st.Copied, st.PageSize, known); err != nil || bad >= 0 {
		why := fmt.Sprintf("page %d of it is not the one copied", bad)
		if err != nil {
			why = "it cannot be read back (" + err.Error() + ")"
		}
		bk.discardNext(day, why)
		return nil
	}
	if base == full {
		// The base is the day's own: it is not replaced; the building
		// goes on the next day.
		return nil
	}
	return bk.openNext(day, full, st, 0)
}

// startNext starts building the next base when it is due (planNext).
func (bk *Archive) startNext(day, full, base string, bt pagesTrailer, prev *prevInc) *nextPlan {
	chunk := bk.nextChunk(bt.PageSize)
	if bk.next.off || base == full || prev == nil || prev.t.Size <= chunk ||
		int64(prev.t.fromBase())*int64(prev.t.PageSize)*nextStartShare <= prev.t.Size {
		return nil
	}
	st := nextTrailer{Version: 2, Base: filepath.Base(base), BaseSize: bt.Size, BaseCRC: bt.CRC, PageSize: bt.PageSize, Started: day}
	p := bk.openNext(day, full, st, os.O_TRUNC)
	if p != nil {
		bk.logLine(day, "%s started: the copy of the day, %d bytes a close-day; %d of the %d pages of the copy of %s differ from %s",
			nextPartial, chunk, prev.t.fromBase(), prev.t.Size/int64(prev.t.PageSize), prev.name, st.Base)
	}
	return p
}

// openNext writes the state st saying the partial is being written and opens
// it (with flag added: os.O_TRUNC to start it).
func (bk *Archive) openNext(day, full string, st nextTrailer, flag int) *nextPlan {
	st.Copy, st.CopyCRC = "", 0
	if err := writeNextState(bk.backupDir, st); err != nil {
		bk.discardNext(day, "its state could not be written ("+err.Error()+")")
		return nil
	}
	f, err := os.OpenFile(filepath.Join(bk.backupDir, nextPartial), os.O_RDWR|os.O_CREATE|flag, 0o600)
	if err != nil {
		bk.discardNext(day, "it could not be opened ("+err.Error()+")")
		return nil
	}
	return &nextPlan{f: f, st: st, full: full, run: pageRun{f: f, ps: int64(st.PageSize)}}
}

// finishNext ends the day's share of the next base p after the day's
// increment inc (its trailer it) was written: the pages written into the
// partial synced and read back against their digests, the state moved on to
// the day's copy; or, the copy complete, the partial made the day's base
// (returned, the day's increment removed). A partial that cannot go on is
// discarded with a line, and the day's backup is its increment ("").
func (bk *Archive) finishNext(day, inc string, it incTrailer, p *nextPlan) (string, error) {
	defer p.close()
	dir := bk.backupDir
	ps := int64(p.st.PageSize)
	var err error
	if p.failed != "" {
		err = errors.New(p.failed)
	} else {
		err = p.run.flush()
	}
	if err == nil && p.complete() {
		err = p.f.Truncate(p.size)
	}
	if err == nil {
		err = p.f.Sync()
	}
	if err == nil {
		if err = readBackPages(p.f, p.ids, ps, p.digests); err != nil {
			err = fmt.Errorf("the day's pages written into it are not the ones taken: %w", err)
		}
	}
	if err != nil {
		p.close()
		bk.discardNext(day, "it could not be written ("+err.Error()+")")
		return "", nil
	}
	if bk.stopAt("pages written") {
		return "", errStopped
	}
	if !p.complete() {
		p.st.Copied = p.to
		p.st.Copy, p.st.CopyCRC = filepath.Base(inc), it.CRC
		if err := writeNextState(dir, p.st); err != nil {
			p.close()
			bk.discardNext(day, "its state could not be written ("+err.Error()+")")
			return "", nil
		}
		if bk.stopAt("chunk") {
			return "", errStopped
		}
		return "", nil
	}
	p.close()
	full := p.full
	// From here the partial is no longer the copy its state names; one a
	// close-day left stopped on the way is discarded.
	if err := os.Remove(filepath.Join(dir, nextState)); err != nil {
		bk.discardNext(day, "its state could not be removed ("+err.Error()+")")
		return "", nil
	}
	if bk.stopAt("state removed") {
		return "", errStopped
	}
	// Digests of another file under the new base's name would be taken for
	// its own.
	err = os.Remove(full + pagesSuffix)
	if errors.Is(err, fs.ErrNotExist) {
		err = nil
	}
	if err == nil {
		err = os.Rename(filepath.Join(dir, nextPartial), full)
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
	if err := writeDigests(full, p.digests, p.pt); err != nil {
		bk.logLine(day, "%s was made of %s but its page digests could not be written (%v)", filepath.Base(full), nextPartial, err)
	}
	if bk.stopAt("digests") {
		return "", errStopped
	}
	bk.backupMu.Lock()
	delete(bk.backupSums, full)
	bk.backupMu.Unlock()
	bk.noteCheck(full, p.checked)
	bk.logLine(day, "%s made the day's base from %s (copied since %s, the chain of %s)",
		filepath.Base(full), nextPartial, p.st.Started, p.st.Base)
	if err := removeInc(dir, day, inc); err != nil {
		return "", err
	}
	return full, nil
}
