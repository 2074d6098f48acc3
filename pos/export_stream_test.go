package pos

import (
	"bytes"
	"io"
	"runtime"
	"slices"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"galla/pos/gstr"
)

// inMemoryCSV is the accountant's CSV as it was built before it was written a
// day at a time: every document of the period in one slice (ExportDocuments),
// sorted, then written.
func inMemoryCSV(t *testing.T, tl *Till, from, to time.Time) string {
	t.Helper()
	docs, err := tl.Documents.ExportDocuments(t.Context(), from, to)
	require.NoError(t, err)
	var b bytes.Buffer
	require.NoError(t, gstr.WriteCSV(&b, docs))
	return b.String()
}

// streamedCSV is WriteLinesCSV's output for the days from to to.
func streamedCSV(t *testing.T, tl *Till, from, to time.Time) string {
	t.Helper()
	var b bytes.Buffer
	require.NoError(t, tl.Documents.WriteLinesCSV(t.Context(), from, to, &b))
	return b.String()
}

// TestStreamedCSVMatchesInMemory: over five days, with a card invoice cancelled
// on its day, a day with no sale, and a credit note issued three days after its
// invoice, the CSV written a day at a time is byte for byte the one built from
// every document at once, over the whole period and over periods that cut
// between an invoice and its credit note.
func TestStreamedCSVMatchesInMemory(t *testing.T) {
	r, tl := newReturnTill(t)
	registerShop(t, tl)
	ctx := t.Context()
	day1 := r.clock.Now() // Sun 22 Nov

	cable, err := sellCash(ctx, r.e, r.sale(t, "ACC-CBL", "ACC-CASE"), Rupees(1998))
	require.NoError(t, err)
	paid, err := sellCard(ctx, r.e, r.sale(t, "ACC-CASE"), card("4111111111111111"), r.otp())
	require.NoError(t, err)
	require.Equal(t, ResultPaid, paid.Status, paid.Reason)
	cancelled := paid.Order.Number("T1")
	_, err = tl.Returns.CancelDocument(ctx, cancelled, managerPIN, "customer left")
	require.NoError(t, err)

	r.clock.Advance(24 * time.Hour) // the 23rd: a sale
	_, err = sellCash(ctx, r.e, r.sale(t, "ACC-CASE"), Rupees(1499))
	require.NoError(t, err)
	r.clock.Advance(48 * time.Hour) // the 24th has no sale; the 25th: a return of the 22nd's cable, and a sale
	rt, err := tl.Returns.Return(ctx, ReturnRequest{Document: cable.Order.Number("T1"), Items: []ReturnQty{{SKU: "ACC-CBL", Qty: 1}}, To: RefundToCash, PIN: managerPIN})
	require.NoError(t, err)
	require.NotEmpty(t, rt.CreditNote)
	_, err = sellCash(ctx, r.e, r.sale(t, "ACC-CBL"), Rupees(499))
	require.NoError(t, err)
	day5 := r.clock.Now().Add(24 * time.Hour) // the 26th, with nothing

	all := streamedCSV(t, tl, day1, day5)
	assert.Equal(t, inMemoryCSV(t, tl, day1, day5), all)
	assert.Contains(t, all, cancelled+",2026-11-22,invoice (cancelled)")
	assert.Contains(t, all, rt.CreditNote+",2026-11-25,credit-note,"+cable.Order.Number("T1"))
	for _, p := range [][2]time.Time{
		{day1, day1},                                      // the invoice, not its note
		{day1.AddDate(0, 0, 1), day5},                     // the note, not its invoice
		{day1.AddDate(0, 0, 2), day1.AddDate(0, 0, 2)},    // a day with nothing
		{day1.AddDate(0, 0, 1), day1.AddDate(0, 0, 3)},    // the 23rd to the 25th
		{day1.AddDate(0, 0, -10), day1.AddDate(0, 0, 10)}, // beyond the journal both ways
	} {
		assert.Equal(t, inMemoryCSV(t, tl, p[0], p[1]), streamedCSV(t, tl, p[0], p[1]), "%s to %s", ToDay(p[0]), ToDay(p[1]))
	}
	var none bytes.Buffer
	require.ErrorIs(t, tl.Documents.WriteLinesCSV(ctx, day5, day1, &none), ErrExportRange)
	assert.Empty(t, none.String(), "nothing written for a refused period")
}

// peakWriter records, at each write, the heap in use beyond base after a
// collection: the most the export held at once while writing.
type peakWriter struct {
	base, peak uint64
}

func (p *peakWriter) Write(b []byte) (int, error) {
	ms := liveHeap()
	if ms.HeapAlloc > p.base && ms.HeapAlloc-p.base > p.peak {
		p.peak = ms.HeapAlloc - p.base
	}
	return len(b), nil
}

// liveHeap is the heap's statistics after two collections: the second frees
// what sync.Pool kept through the first, so HeapAlloc is what is reachable.
func liveHeap() runtime.MemStats {
	runtime.GC()
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return ms
}

// exportPeak is the most heap the export of days held at once, beyond what
// the journal holds (the median of three exports).
func exportPeak(t *testing.T, days int, write func(io.Writer) error) uint64 {
	t.Helper()
	var peaks []uint64
	for range 3 { // the median of three: the heap's base moves now and then under the test's feet
		p := &peakWriter{base: liveHeap().HeapAlloc}
		require.NoError(t, write(p))
		peaks = append(peaks, p.peak)
	}
	slices.Sort(peaks)
	t.Logf("%d days: peaks %v", days, peaks)
	return peaks[1]
}

// TestStreamedCSVMemoryFlat: the CSV export of 100 days holds no more memory at
// once than that of 10 days with the same sales a day (within 2x), where the
// export that builds every document first grows with the days (more than 3x:
// the measure sees growth when there is some).
func TestStreamedCSVMemoryFlat(t *testing.T) {
	if testing.Short() {
		t.Skip("sells 300 sales")
	}
	r, tl := newReturnTill(t)
	registerShop(t, tl)
	ctx := t.Context()
	first := r.clock.Now()
	const days, perDay = 100, 3
	for d := range days {
		for range perDay {
			_, err := sellCash(ctx, r.e, r.sale(t, "ACC-CBL", "ACC-CASE"), Rupees(1998))
			require.NoError(t, err)
		}
		if d < days-1 {
			r.clock.Advance(24 * time.Hour)
		}
	}
	streamed := func(n int) uint64 {
		return exportPeak(t, n, func(w io.Writer) error {
			return tl.Documents.WriteLinesCSV(ctx, first, first.AddDate(0, 0, n-1), w)
		})
	}
	inMemory := func(n int) uint64 {
		return exportPeak(t, n, func(w io.Writer) error {
			docs, err := tl.Documents.ExportDocuments(ctx, first, first.AddDate(0, 0, n-1))
			if err != nil {
				return err
			}
			err = gstr.WriteCSV(w, docs)
			runtime.KeepAlive(docs) // held to the end, as WriteLinesCSV held them before
			return err
		})
	}
	streamed(days) // the journal's own caches filled before measuring
	inMemory(days)
	s10, s100 := streamed(10), streamed(100)
	m10, m100 := inMemory(10), inMemory(100)
	t.Logf("peak heap held by the export: streamed 10 days %d B, 100 days %d B (x%.2f); in memory 10 days %d B, 100 days %d B (x%.2f)",
		s10, s100, float64(s100)/float64(s10), m10, m100, float64(m100)/float64(m10))
	require.NotZero(t, s10)
	assert.Less(t, float64(s100)/float64(s10), 2.0, "the streamed export grows with the days")
	assert.Greater(t, float64(m100)/float64(m10), 3.0, "the in-memory export should grow with the days")
}
