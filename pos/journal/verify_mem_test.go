package journal

import (
	"path/filepath"
	"runtime"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// replayPeak verifies the journal at path the whole way, as VerifyFile does,
// with the replay committing every batch events, and returns the most heap in
// use (live objects after a collection) seen at the replay's commits and
// before its comparison.
func replayPeak(t *testing.T, path string, batch int) (peak uint64) {
	t.Helper()
	j, err := Open(path, Options{ReadOnly: true, DeferVerify: true, Create: CreateNever})
	require.NoError(t, err)
	defer j.Close()
	j.core.replayBatch = batch
	// The events decoded ahead wait in a channel whose filling at a commit is
	// the scheduler's: none ahead, so that the peak is the replay's own.
	j.core.replayAhead = -1
	j.core.replayHook = func() {
		runtime.GC()
		var ms runtime.MemStats
		runtime.ReadMemStats(&ms)
		peak = max(peak, ms.HeapAlloc)
	}
	require.NoError(t, j.Log.VerifyAll(t.Context()))
	require.NoError(t, j.Log.checkDerived(t.Context()))
	return peak
}

// TestVerifyMemoryFlat: the whole check's memory does not grow with the
// history. Its replay of a journal four times as long holds no more in the
// heap at its commits and at its comparison than that of the short one
// (within a slack below what the longer history's records take), while the
// same replay in one transaction, the measure's own check, does hold the
// whole history's pages.
func TestVerifyMemoryFlat(t *testing.T) {
	if testing.Short() {
		t.Skip("writes two journals of thousands of events")
	}
	const n, batch, slack = 2000, 500, 256 << 10
	shortPath, longPath := filepath.Join(t.TempDir(), "journal.db"), filepath.Join(t.TempDir(), "journal.db")
	short, long := bulkJournal(t, shortPath, n), bulkJournal(t, longPath, 4*n)
	require.GreaterOrEqual(t, long, 3*short, "the long journal is about four times the short one")

	peakShort, peakLong := replayPeak(t, shortPath, batch), replayPeak(t, longPath, batch)
	t.Logf("batches of %d: %d events %d bytes, %d events %d bytes", batch, short, peakShort, long, peakLong)
	assert.LessOrEqual(t, peakLong, peakShort+slack,
		"verifying %d events held %d bytes, %d events %d", long, peakLong, short, peakShort)

	// The measure sees a replay that keeps the history: one transaction for
	// all the events holds every page it wrote until its comparison.
	allShort, allLong := replayPeak(t, shortPath, 1<<30), replayPeak(t, longPath, 1<<30)
	t.Logf("one transaction: %d events %d bytes, %d events %d bytes", short, allShort, long, allLong)
	assert.Greater(t, allLong, allShort+slack,
		"one transaction of %d events held %d bytes, of %d events %d", long, allLong, short, allShort)
}

// BenchmarkVerifyFile is the whole check (galla journal verify) of a journal
// of 20 000 events (bulkJournal: busy days of 200 sales, each closed), its
// time per event and the heap it allocates per event.
//
//	go test -run '^$' -bench 'VerifyFile$' -benchtime=3x ./pos/journal/
func BenchmarkVerifyFile(b *testing.B) {
	path := filepath.Join(b.TempDir(), "journal.db")
	n := bulkJournal(b, path, 20_000)
	b.ReportAllocs()
	b.ResetTimer()
	for range b.N {
		rep, err := VerifyFile(b.Context(), path)
		require.NoError(b, err)
		require.True(b, rep.Verified)
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(n), "ns/event")
}
