package atomicfile

import (
	"os"
	"path/filepath"
	"runtime"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestWriteReplacesWhole: a file written twice holds the second content, with
// mode 0600 and no temporary file left; one left by a stopped write is removed
// by RemoveTemps, and nothing else beside it.
func TestWriteReplacesWhole(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "data")
	path := filepath.Join(dir, "state.json")
	require.NoError(t, Write(path, []byte("one")))
	require.NoError(t, Write(path, []byte("two")))
	b, err := os.ReadFile(path)
	require.NoError(t, err)
	assert.Equal(t, "two", string(b))
	if runtime.GOOS != "windows" {
		fi, err := os.Stat(path)
		require.NoError(t, err)
		assert.Equal(t, os.FileMode(0o600), fi.Mode().Perm())
	}
	entries, err := os.ReadDir(dir)
	require.NoError(t, err)
	assert.Len(t, entries, 1, "no temporary file left")

	stray := filepath.Join(dir, ".state.json-123.tmp")
	other := filepath.Join(dir, ".other.json-123.tmp")
	require.NoError(t, os.WriteFile(stray, []byte("half"), 0o600))
	require.NoError(t, os.WriteFile(other, []byte("x"), 0o600))
	RemoveTemps(path)
	assert.NoFileExists(t, stray)
	assert.FileExists(t, other, "another file's temporary file is not ours")
	assert.FileExists(t, path)
}
