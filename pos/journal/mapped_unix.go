//go:build linux || darwin || freebsd || netbsd || openbsd || dragonfly

package journal

import (
	"os"
	"syscall"
)

// mapShared maps the first size bytes of f, which holds at least that many,
// shared and writable: what is stored into the mapping reaches the file as a
// write would, without a system call. nil when it cannot be mapped (then the
// file is written). The journal's two small files beside it are written so
// (writeHead, numbersWriter.write).
func mapShared(f *os.File, size int) []byte {
	m, err := syscall.Mmap(int(f.Fd()), 0, size, syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_SHARED)
	if err != nil {
		return nil
	}
	return m
}

// unmapShared undoes mapShared.
func unmapShared(m []byte) { _ = syscall.Munmap(m) }

// mapRead maps the first size bytes of f read-only and shared; size may run
// past the file's end (a read there faults). nil when it cannot be mapped.
func mapRead(f *os.File, size int) []byte {
	m, err := syscall.Mmap(int(f.Fd()), 0, size, syscall.PROT_READ, syscall.MAP_SHARED)
	if err != nil {
		return nil
	}
	return m
}
