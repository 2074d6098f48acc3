package journal

import (
	"encoding/binary"
	"os"
	"path/filepath"
	"runtime"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestHeadRecordThroughItsMapping: after each Append the head record beside the
// journal names its last event, read from the file while the journal is open
// (stored through the mapping where there is one: the file reads what was
// stored at once). Cut short under the mapping by someone else, the next
// Append does not crash: the fault is caught, and the record written whole
// again. The journal closes and opens with it.
func TestHeadRecordThroughItsMapping(t *testing.T) {
	path := filepath.Join(t.TempDir(), "journal.db")
	j, err := Open(path, Options{ChainKey: testKey})
	require.NoError(t, err)
	t.Cleanup(func() { _ = j.Close() })

	var s script
	headIs := func(what string) {
		t.Helper()
		raw, err := os.ReadFile(HeadPath(path))
		require.NoError(t, err)
		require.Len(t, raw, headRecordSize, what)
		last, err := j.Log.LastSeq(t.Context())
		require.NoError(t, err)
		assert.Equal(t, last, binary.BigEndian.Uint64(raw), what)
		var h [32]byte
		copy(h[:], raw[8:40])
		assert.Equal(t, headRecord(testKey, last, h), raw, "%s: sealed", what)
	}
	for i, ev := range s.cardSale("G-1", "2026-11-27", 3999900) {
		_, err := j.Log.Append(t.Context(), ev)
		require.NoError(t, err)
		headIs(string(ev.Kind))
		if i == 1 && runtime.GOOS == "linux" {
			j.core.headMu.Lock()
			mapped := j.core.headMap.mapped()
			j.core.headMu.Unlock()
			assert.True(t, mapped, "the head record is mapped after its first write")
		}
	}

	// Cut short under the mapping.
	require.NoError(t, os.Truncate(HeadPath(path), 0))
	appendAll(t, j, s.cashSale("G-2", "2026-11-27", 1000))
	headIs("after the file was cut short")
	j.core.headMu.Lock()
	assert.False(t, j.core.headMap.mapped(), "the mapping dropped")
	j.core.headMu.Unlock()
	appendAll(t, j, s.cashSale("G-3", "2026-11-27", 1000))
	headIs("written from then on")

	require.NoError(t, j.Close())
	j, err = Open(path, Options{ChainKey: testKey})
	require.NoError(t, err, "it opens with the head record written beside it")
	require.NoError(t, j.Close())
}

// TestNumbersThroughTheirMapping: the high-water file, written in place
// through its mapping, reads each write at once; cut short under the mapping
// by someone else, the next write does not crash: the fault is caught, the
// slot written, and the file reads it.
func TestNumbersThroughTheirMapping(t *testing.T) {
	path := filepath.Join(t.TempDir(), "journal.db")
	w := numbersWriter{path: path}
	t.Cleanup(func() { _ = w.close() })
	for i := uint64(1); i <= 4; i++ {
		want := Numbers{Receipt: i, Series: map[string]uint64{"2627": i}}
		require.NoError(t, w.write(want))
		got, ok, err := ReadNumbers(path)
		require.NoError(t, err)
		require.True(t, ok)
		assert.Equal(t, want, got, "write %d read at once", i)
	}
	if runtime.GOOS == "linux" {
		assert.True(t, w.fm.mapped(), "the file is mapped")
	}
	require.NoError(t, os.Truncate(NumbersPath(path), 0))
	want := Numbers{Receipt: 5, Z: 1, Series: map[string]uint64{"2627": 5}}
	require.NoError(t, w.write(want))
	assert.False(t, w.fm.mapped(), "the mapping dropped")
	got, ok, err := ReadNumbers(path)
	require.NoError(t, err)
	require.True(t, ok)
	assert.Equal(t, want, got, "written after the file was cut short")
	want.Receipt = 6
	require.NoError(t, w.write(want))
	got, _, err = ReadNumbers(path)
	require.NoError(t, err)
	assert.Equal(t, want, got, "and written from then on")
}
