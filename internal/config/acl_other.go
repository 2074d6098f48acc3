//go:build !windows

package config

import (
	"fmt"
	"os"
)

// makePrivate sets path's mode to 0600: readable and writable by this user only.
func makePrivate(path string) error { return os.Chmod(path, 0o600) }

// checkPrivate refuses a file other users of this computer can read or write.
func checkPrivate(path string) error {
	if st, err := os.Stat(path); err == nil && st.Mode().Perm()&0o077 != 0 {
		return fmt.Errorf("the file %s can be read by other users of this computer; run \"chmod 600 %s\" and start again", path, path)
	}
	return nil
}
