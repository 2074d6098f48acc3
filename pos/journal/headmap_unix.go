//go:build linux || darwin || freebsd || netbsd || openbsd || dragonfly

package journal

import (
	"os"
	"syscall"
)

// mapHead maps the first headRecordSize bytes of the head record f, which
// holds at least that many, shared and writable: a head stored into the
// mapping reaches the file as a write would, without a system call. nil when
// it cannot be mapped (then the record is written).
func mapHead(f *os.File) []byte {
	m, err := syscall.Mmap(int(f.Fd()), 0, headRecordSize, syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_SHARED)
	if err != nil {
		return nil
	}
	return m
}

// unmapHead undoes mapHead.
func unmapHead(m []byte) { _ = syscall.Munmap(m) }
