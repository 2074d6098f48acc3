//go:build unix

package pgtest

import "syscall"

// detached puts the watchdog in a session of its own, so that it outlives
// the test binary and its process group.
func detached() *syscall.SysProcAttr { return &syscall.SysProcAttr{Setsid: true} }
