// Package atomicfile replaces a small file whole or not at all: the state
// files kept beside the journal (the payment sandbox's, the IRP sandbox's,
// the store link's). It is a leaf: it imports nothing of ours.
package atomicfile

import (
	"os"
	"path/filepath"
	"runtime"
	"strings"
)

// tempPrefix starts the names of Write's temporary files in path's
// directory: "." + base + "-".
func tempPrefix(path string) string { return "." + filepath.Base(path) + "-" }

// Write replaces path with b: a temporary file in the same directory with
// mode 0600, synced, then renamed over path, and the directory synced where
// the system allows it. A failure leaves path as it was.
func Write(path string, b []byte) error {
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return err
	}
	tmp, err := os.CreateTemp(dir, tempPrefix(path)+"*.tmp")
	if err != nil {
		return err
	}
	name := tmp.Name()
	ok := false
	defer func() {
		if !ok {
			_ = tmp.Close()
			_ = os.Remove(name)
		}
	}()
	if err := tmp.Chmod(0o600); err != nil && runtime.GOOS != "windows" {
		return err
	}
	if _, err := tmp.Write(b); err != nil {
		return err
	}
	if err := tmp.Sync(); err != nil {
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	if err := os.Rename(name, path); err != nil {
		return err
	}
	ok = true
	if d, err := os.Open(dir); err == nil { // make the rename durable; not possible on every system
		_ = d.Sync()
		_ = d.Close()
	}
	return nil
}

// RemoveTemps removes the temporary files Write left beside path when the
// program stopped in the middle of one.
func RemoveTemps(path string) {
	entries, err := os.ReadDir(filepath.Dir(path))
	if err != nil {
		return
	}
	prefix := tempPrefix(path)
	for _, e := range entries {
		if n := e.Name(); strings.HasPrefix(n, prefix) && strings.HasSuffix(n, ".tmp") && e.Type().IsRegular() {
			_ = os.Remove(filepath.Join(filepath.Dir(path), n))
		}
	}
}
