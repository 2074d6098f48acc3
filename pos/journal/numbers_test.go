package journal

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestNumbersInPlace checks the high-water file of format 2: each number handed
// out is one write of one slot in place (the file keeps its inode and size), a
// write cut short leaves the slot before it, which still reads, and the file of
// format 1 is read and replaced.
func TestNumbersInPlace(t *testing.T) {
	path := filepath.Join(t.TempDir(), "journal.db")
	w := numbersWriter{path: path}
	t.Cleanup(func() { _ = w.close() })

	require.NoError(t, w.write(Numbers{Receipt: 1}))
	first, err := os.Stat(NumbersPath(path))
	require.NoError(t, err)
	for i := uint64(2); i <= 5; i++ {
		require.NoError(t, w.write(Numbers{Receipt: i, Series: map[string]uint64{"2627": i}}))
		n, ok, err := ReadNumbers(path)
		require.NoError(t, err)
		require.True(t, ok)
		assert.Equal(t, Numbers{Receipt: i, Series: map[string]uint64{"2627": i}}, n, "ReadNumbers after write %d", i)
	}
	now, err := os.Stat(NumbersPath(path))
	require.NoError(t, err)
	assert.True(t, os.SameFile(first, now), "the file is written in place, not renamed over")
	assert.Equal(t, first.Size(), now.Size())

	// A write cut short: the slot of the newest generation is torn half way.
	raw, err := os.ReadFile(NumbersPath(path))
	require.NoError(t, err)
	size := len(raw) / 2
	newest := int(w.gen%2) * size
	for i := newest + numbersSlotHeader + 5; i < newest+size; i++ {
		raw[i] = 0xff
	}
	require.NoError(t, os.WriteFile(NumbersPath(path), raw, 0o600))
	n, ok, err := ReadNumbers(path)
	require.NoError(t, err)
	require.True(t, ok, "the other slot still reads")
	assert.Equal(t, Numbers{Receipt: 4, Series: map[string]uint64{"2627": 4}}, n, "one number behind: the slot written before")

	// Both torn: nothing reads, and the journal's own counters stand.
	for i := size + numbersSlotHeader + 5 - newest; i < 2*size-newest; i++ {
		raw[i] = 0xff
	}
	require.NoError(t, os.WriteFile(NumbersPath(path), raw, 0o600))
	_, ok, err = ReadNumbers(path)
	require.NoError(t, err)
	assert.False(t, ok)

	// Format 1, as older builds wrote it, reads; the next write replaces it.
	require.NoError(t, w.close())
	require.NoError(t, os.WriteFile(NumbersPath(path), []byte(`{"v":1,"receipt_no":7,"z_no":2,"series":{"2627":3}}`), 0o600))
	n, ok, err = ReadNumbers(path)
	require.NoError(t, err)
	require.True(t, ok)
	assert.Equal(t, Numbers{Receipt: 7, Z: 2, Series: map[string]uint64{"2627": 3}}, n)
	w = numbersWriter{path: path}
	require.NoError(t, w.write(Numbers{Receipt: 8, Z: 2, Series: map[string]uint64{"2627": 3}}))
	n, _, err = ReadNumbers(path)
	require.NoError(t, err)
	assert.Equal(t, uint64(8), n.Receipt)
	raw, err = os.ReadFile(NumbersPath(path))
	require.NoError(t, err)
	assert.Equal(t, numbersMagic, raw[:4], "written anew in format 2")
}

// TestNumbersSlotsGrow checks that numbers whose JSON outgrows a slot (many
// document series) are written to a file with larger slots, and read back.
func TestNumbersSlotsGrow(t *testing.T) {
	path := filepath.Join(t.TempDir(), "journal.db")
	w := numbersWriter{path: path}
	t.Cleanup(func() { _ = w.close() })
	n := Numbers{Receipt: 1, Series: map[string]uint64{}}
	require.NoError(t, w.write(n))
	for year := 10; year < 60; year++ {
		n.Series[fmt.Sprintf("%02d%02d", year, year+1)] = uint64(year)
		n.Series[fmt.Sprintf("C%02d%02d", year, year+1)] = uint64(year)
		require.NoError(t, w.write(n))
	}
	got, ok, err := ReadNumbers(path)
	require.NoError(t, err)
	require.True(t, ok)
	assert.Equal(t, n, got)
	assert.Greater(t, w.size, numbersSlotMin)
}
