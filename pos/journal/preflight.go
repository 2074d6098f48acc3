package journal

import (
	"errors"
	"fmt"
	"hash/fnv"
	"io"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"runtime/debug"
	"sort"
	"strings"

	berrors "go.etcd.io/bbolt/errors"
)

// bbolt's on-disk layout, read before bbolt is given the file (bbolt v1.5,
// internal/common/page.go and meta.go): a page starts with a 16-byte header (id,
// flags, count, overflow); pages 0 and 1 hold a meta right after it, in the
// machine's byte order (little-endian on every platform Galla ships for).
const (
	pageHeaderSize   = 16
	metaMagic        = 0xED0CDAED
	metaVersion      = 2
	metaChecksumAt   = 56 // the meta's bytes before its checksum
	metaSize         = 64
	pageFlagFreelist = 0x10
	noFreelist       = ^uint64(0)
	minPageSize      = 512
	maxPageSize      = 1 << 24
)

// fileMeta is the part of a bbolt meta page preflight needs.
type fileMeta struct {
	pageSize uint64
	root     uint64
	freelist uint64
	pgid     uint64 // the high-water page id: every page below it is in the file
	txid     uint64
}

// parseMeta decodes and validates the meta at the start of buf (after the page
// header): magic, version and FNV-64a checksum, as bbolt's Meta.Validate does.
func parseMeta(buf []byte) (fileMeta, bool) {
	if len(buf) < pageHeaderSize+metaSize {
		return fileMeta{}, false
	}
	m := buf[pageHeaderSize : pageHeaderSize+metaSize]
	if le.Uint32(m[0:]) != metaMagic || le.Uint32(m[4:]) != metaVersion {
		return fileMeta{}, false
	}
	h := fnv.New64a()
	h.Write(m[:metaChecksumAt])
	if h.Sum64() != le.Uint64(m[metaChecksumAt:]) {
		return fileMeta{}, false
	}
	fm := fileMeta{
		pageSize: uint64(le.Uint32(m[8:])),
		root:     le.Uint64(m[16:]),
		freelist: le.Uint64(m[32:]),
		pgid:     le.Uint64(m[40:]),
		txid:     le.Uint64(m[48:]),
	}
	if fm.pageSize < minPageSize || fm.pageSize > maxPageSize || fm.pageSize&(fm.pageSize-1) != 0 {
		return fileMeta{}, false
	}
	return fm, true
}

// fileState is what preflight found at a journal's path.
type fileState int

const (
	fileMissing fileState = iota // no file
	fileEmpty                    // a file of zero bytes
	fileBolt                     // a file bbolt can be given
)

// preflight looks at the journal file before bbolt maps it, so that a file bbolt
// would crash on (SIGBUS on a page past the end of a truncated file, a panic on an
// invalid meta or freelist page) is refused with a reason instead. It checks that a
// meta page is valid (the one bbolt would choose), that the file holds every page
// below the meta's high-water page id, and that the root and freelist pages are
// below it and the freelist page is one. The reason is "" when the file may be
// opened.
func preflight(path string) (fileState, string, error) {
	f, err := os.Open(path)
	if errors.Is(err, fs.ErrNotExist) {
		return fileMissing, "", nil
	}
	if err != nil {
		return 0, "", err
	}
	defer f.Close()
	info, err := f.Stat()
	if err != nil {
		return 0, "", err
	}
	size := uint64(info.Size())
	if size == 0 {
		return fileEmpty, "", nil
	}
	read := func(off, n uint64) []byte {
		buf := make([]byte, n)
		k, _ := f.ReadAt(buf, int64(off))
		return buf[:k]
	}
	m0, ok0 := parseMeta(read(0, pageHeaderSize+metaSize))
	var m1 fileMeta
	ok1 := false
	if ok0 {
		m1, ok1 = parseMeta(read(m0.pageSize, pageHeaderSize+metaSize))
	} else {
		// As bbolt does: look for the second meta at every page size.
		for ps := uint64(1024); ps <= maxPageSize && ps < size; ps <<= 1 {
			if m, ok := parseMeta(read(ps, pageHeaderSize+metaSize)); ok && m.pageSize == ps {
				m1, ok1 = m, true
				break
			}
		}
	}
	// bbolt uses the meta with the higher transaction id if it is valid, else the
	// other one.
	var m fileMeta
	switch {
	case ok0 && ok1:
		m = m0
		if m1.txid > m0.txid {
			m = m1
		}
	case ok0:
		m = m0
	case ok1:
		m = m1
	default:
		if size < 2*minPageSize {
			return fileBolt, fmt.Sprintf("the file is only %d bytes long, too short to hold a journal", size), nil
		}
		return fileBolt, "neither of its two meta pages is valid", nil
	}
	if m.pgid < 2 || m.pgid > math.MaxInt64/m.pageSize {
		return fileBolt, fmt.Sprintf("its meta page names %d pages", m.pgid), nil
	}
	if need := m.pgid * m.pageSize; size < need {
		return fileBolt, fmt.Sprintf("the file is %d bytes long but its pages need %d: it was cut short", size, need), nil
	}
	if m.root < 2 || m.root >= m.pgid {
		return fileBolt, fmt.Sprintf("its root page %d is outside the file's %d pages", m.root, m.pgid), nil
	}
	if m.freelist != noFreelist {
		if m.freelist < 2 || m.freelist >= m.pgid {
			return fileBolt, fmt.Sprintf("its freelist page %d is outside the file's %d pages", m.freelist, m.pgid), nil
		}
		hdr := read(m.freelist*m.pageSize, pageHeaderSize)
		if len(hdr) < pageHeaderSize {
			return fileBolt, "its freelist page cannot be read", nil
		}
		if le.Uint16(hdr[8:])&pageFlagFreelist == 0 || le.Uint64(hdr[0:]) != m.freelist {
			return fileBolt, fmt.Sprintf("page %d is not the freelist its meta names", m.freelist), nil
		}
		over := uint64(le.Uint32(hdr[12:]))
		if m.freelist+over >= m.pgid {
			return fileBolt, fmt.Sprintf("the freelist page %d runs past the file's %d pages", m.freelist, m.pgid), nil
		}
		ids, head := uint64(le.Uint16(hdr[10:])), uint64(pageHeaderSize)
		if ids == 0xFFFF {
			n := read(m.freelist*m.pageSize+pageHeaderSize, 8)
			if len(n) < 8 {
				return fileBolt, "its freelist page cannot be read", nil
			}
			ids, head = le.Uint64(n), pageHeaderSize+8
		}
		if ids > (over+1)*m.pageSize/8 || head+ids*8 > (over+1)*m.pageSize {
			return fileBolt, fmt.Sprintf("the freelist page %d claims %d free pages, more than it holds", m.freelist, ids), nil
		}
	}
	return fileBolt, "", nil
}

// guard runs fn and turns a panic inside it (bbolt panics on some damaged pages)
// and a memory fault (a page of the mapped file that is not there: SIGBUS, or an
// address past the mapping) into an error. debug.SetPanicOnFault makes the runtime
// raise such a fault as a panic in this goroutine instead of killing the process.
func guard(fn func() error) (err error) {
	defer debug.SetPanicOnFault(debug.SetPanicOnFault(true))
	defer func() {
		if r := recover(); r != nil {
			err = &panicError{value: fmt.Sprint(r)}
		}
	}()
	return fn()
}

// panicError is a panic or a memory fault caught by guard: the file is damaged in a
// way bbolt does not check for.
type panicError struct{ value string }

func (e *panicError) Error() string { return "bbolt failed reading the file: " + e.value }

// Signs of earlier use that DirUsed looks for in a data directory (DESIGN.md
// section 4). Main's files are named here because the rule is the journal's.
var (
	// usedFiles are file names that only a terminal that has run leaves behind.
	usedFiles = []string{"config.json", "receipt-qr.key", "sandbox.json"}
	// usedPrefixes are name prefixes of the same kind: the sandbox's state and its
	// temporary and set-aside copies.
	usedPrefixes = []string{"sandbox."}
)

// DirUsed reports whether the data directory dir holds any sign of earlier use,
// and which: config.json, receipt-qr.key, the sandbox's state (sandbox.json,
// sandbox.*), a backups directory, a number high-water file (*.numbers) or a
// journal set aside as damaged (*.damaged-*), and a journal file that is not
// empty. A journal is created only in a directory that was never used
// (Options.Create, CreateIfUnused), so that a journal that went missing is never
// silently replaced by a new one that numbers receipts from 1 again. A missing
// directory is unused.
func DirUsed(dir string) (bool, []string) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return false, nil
		}
		// A directory that cannot be read is not known to be new.
		return true, []string{dir + " (cannot be read: " + err.Error() + ")"}
	}
	var signs []string
	for _, e := range entries {
		if sign(e, usedFiles, usedPrefixes) {
			signs = append(signs, e.Name())
		}
	}
	return len(signs) > 0, signs
}

// journalSigns lists what a journal leaves in dir besides its file: a backups
// directory, a number high-water file, a file set aside as damaged. Open refuses to
// create a journal where one of them is, even with the zero Options.
func journalSigns(dir string) []string {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil
	}
	var signs []string
	for _, e := range entries {
		if sign(e, nil, nil) {
			signs = append(signs, e.Name())
		}
	}
	return signs
}

// sign reports whether the directory entry e is a sign of earlier use: one of the
// journal's own (backups, *.numbers, *.head, *.written, *.damaged-*, a journal file with content)
// or one of names and prefixes.
func sign(e fs.DirEntry, names, prefixes []string) bool {
	name := e.Name()
	if e.IsDir() {
		return name == defaultBackupDir
	}
	switch {
	case strings.HasSuffix(name, numbersSuffix), strings.HasSuffix(name, headSuffix), strings.HasSuffix(name, writtenSuffix), strings.Contains(name, damagedInfix):
		return true
	case strings.HasSuffix(name, ".db"):
		info, err := e.Info()
		return err == nil && info.Size() > 0
	}
	for _, n := range names {
		if name == n {
			return true
		}
	}
	for _, p := range prefixes {
		if strings.HasPrefix(name, p) {
			return true
		}
	}
	return false
}

// defaultBackupDir is the backups directory beside the journal file.
const defaultBackupDir = "backups"

// damagedInfix marks a journal file Restore set aside: journal.db.damaged-TIME.
const damagedInfix = ".damaged-"

// Backups returns the journal backups in dir (journal-DAY.db and
// journal-DAY.inc), newest first. A
// missing dir has none.
func Backups(dir string) ([]string, error) {
	entries, err := os.ReadDir(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("journal: backups: %w", err)
	}
	type b struct {
		path string
		mod  int64
	}
	var out []b
	for _, e := range entries {
		name := e.Name()
		if e.IsDir() || !isBackupName(name) {
			continue
		}
		info, err := e.Info()
		if err != nil {
			continue
		}
		out = append(out, b{filepath.Join(dir, name), info.ModTime().UnixNano()})
	}
	sort.Slice(out, func(i, k int) bool {
		if out[i].mod != out[k].mod {
			return out[i].mod > out[k].mod
		}
		return out[i].path > out[k].path
	})
	paths := make([]string, len(out))
	for i, x := range out {
		paths[i] = x.path
	}
	return paths, nil
}

// copyFile copies src to dst through a temporary file beside dst that is synced
// and renamed into place (mode 0600).
func copyFile(src, dst string) error {
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	return writeSynced(dst, func(w io.Writer) error {
		_, err := io.Copy(w, in)
		return err
	})
}

// errTimeout is bbolt's lock timeout, matched by Restore.
var errTimeout = berrors.ErrTimeout
