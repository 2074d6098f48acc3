//go:build unix

package cli

import "syscall"

// noCoreDumps keeps the process from leaving a core file, which would hold the card
// data in memory at the time (DESIGN.md section 5).
func noCoreDumps() error {
	return syscall.Setrlimit(syscall.RLIMIT_CORE, &syscall.Rlimit{Cur: 0, Max: 0})
}
