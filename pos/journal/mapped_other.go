//go:build !(linux || darwin || freebsd || netbsd || openbsd || dragonfly)

package journal

import "os"

// mapShared is not used here: the files beside the journal are written.
func mapShared(*os.File, int) []byte { return nil }

// unmapShared undoes mapShared.
func unmapShared([]byte) {}

// mapRead is not used here: the pages written since a backup's base are not
// recorded (written.go), and each close-day reads the whole journal.
func mapRead(*os.File, int) []byte { return nil }
