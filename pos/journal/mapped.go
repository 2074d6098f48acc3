package journal

import (
	"os"
	"runtime/debug"
)

// fileMap is one of the small files beside the journal (the head record, the
// numbers' high-water file) mapped into memory once written (mapShared, on
// Linux, macOS and the BSDs), so that each write after is a store into the
// mapping, without a system call: on ext4 a write to another file cost an
// Append about 16 µs on the disk, a quarter of its time over its floor,
// most of it waiting on the file system's journal to update the file's time
// (docs/benchmarks.md, "The head record through a mapping"). Should the file
// be cut short under the mapping by someone else, a store faults; the fault
// is caught and the mapping dropped for good, the file written from then on.
// The zero value maps nothing yet.
type fileMap struct {
	m   []byte
	off bool // never mapped again: a store faulted, or the file would not map
}

// mapped reports whether the file is mapped.
func (fm *fileMap) mapped() bool { return fm.m != nil }

// mapOnce maps the first size bytes of f, which holds them, unless it is
// mapped or off.
func (fm *fileMap) mapOnce(f *os.File, size int) {
	if fm.m != nil || fm.off {
		return
	}
	if fm.m = mapShared(f, size); fm.m == nil {
		fm.off = true
	}
}

// store copies rec into the mapping at off. It reports false when there is
// no mapping, or when the store faulted (the mapping is then dropped and off).
func (fm *fileMap) store(off int, rec []byte) bool {
	if fm.m == nil {
		return false
	}
	if storeMapped(fm.m, off, rec) {
		return true
	}
	fm.unmap()
	fm.off = true
	return false
}

// unmap drops the mapping, if any.
func (fm *fileMap) unmap() {
	if fm.m != nil {
		unmapShared(fm.m)
		fm.m = nil
	}
}

// storeMapped copies rec into the mapping m at off, reporting false when the
// store faulted (the file under it cut short by someone else).
func storeMapped(m []byte, off int, rec []byte) (ok bool) {
	defer debug.SetPanicOnFault(debug.SetPanicOnFault(true))
	defer func() {
		if recover() != nil {
			ok = false
		}
	}()
	copy(m[off:], rec)
	return true
}
