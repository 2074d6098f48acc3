//go:build !(linux || darwin || freebsd || netbsd || openbsd || dragonfly)

package journal

import "os"

// mapHead is not used here: the head record is written (writeHead).
func mapHead(*os.File) []byte { return nil }

// unmapHead undoes mapHead.
func unmapHead([]byte) {}
