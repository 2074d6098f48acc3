//go:build !unix

package pgtest

import "syscall"

func detached() *syscall.SysProcAttr { return nil }
