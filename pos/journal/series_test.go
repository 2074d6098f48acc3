package journal

import (
	"bytes"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	bolt "go.etcd.io/bbolt"

	"galla/pos"
)

// numberedCash is a cash sale whose payment takes number no of series.
func (s *script) numberedCash(id, day string, amount pos.Paise, series string, no uint64) []pos.Event {
	return []pos.Event{
		s.intent(id, day, pos.TenderCash, amount),
		{Kind: pos.EvCashReceived, OrderID: id, Day: day, Time: s.next(), Series: series, DocNo: no,
			Cash: &pos.CashEvent{Tendered: amount, Change: 0}},
	}
}

func TestDocumentSeries(t *testing.T) {
	path := filepath.Join(t.TempDir(), "journal.db")
	j, err := Open(path, Options{Now: func() time.Time { return t0 }})
	require.NoError(t, err)
	ctx := t.Context()
	var s script
	appendAll(t, j, s.numberedCash("G-1", "2026-11-21", 5000, "2627", 1))
	appendAll(t, j, s.numberedCash("G-2", "2026-11-21", 6000, "2627", 2))
	// A credit note of G-2: its own series, from 1.
	appendAll(t, j, []pos.Event{
		{Kind: pos.EvRefundIntent, OrderID: "G-2", Day: "2026-11-21", Time: s.next(), Staff: "001", Refund: &pos.RefundEvent{UniqueTxnID: "UG-2", Amount: 6000}},
		{Kind: pos.EvRefundDone, OrderID: "G-2", Day: "2026-11-21", Time: s.next(), Series: "C2627", DocNo: 1, Refund: &pos.RefundEvent{UniqueTxnID: "UG-2", Amount: 6000}},
	})

	for _, tt := range []struct {
		series string
		want   uint64
	}{{"2627", 2}, {"C2627", 1}, {"B2627", 0}, {"2728", 0}} {
		n, err := j.Orders.LastDocNo(ctx, tt.series)
		require.NoError(t, err)
		assert.Equal(t, tt.want, n, "LastDocNo(%s)", tt.series)
	}
	id, ref, err := j.Orders.FindDocument(ctx, "C2627", 1)
	require.NoError(t, err)
	assert.Equal(t, [2]string{"G-2", "UG-2"}, [2]string{id, ref})
	id, ref, err = j.Orders.FindDocument(ctx, "2627", 1)
	require.NoError(t, err)
	assert.Equal(t, [2]string{"G-1", ""}, [2]string{id, ref})
	_, _, err = j.Orders.FindDocument(ctx, "2627", 3)
	assert.ErrorIs(t, err, pos.ErrOrderNotFound)

	// A skipped number and a repeated one are refused, and nothing is stored.
	appendAll(t, j, []pos.Event{s.intent("G-3", "2026-11-21", pos.TenderCash, 100)})
	for _, no := range []uint64{4, 2} {
		_, err = j.Log.Append(ctx, pos.Event{Kind: pos.EvCashReceived, OrderID: "G-3", Day: "2026-11-21", Time: s.next(),
			Series: "2627", DocNo: no, Cash: &pos.CashEvent{Tendered: 100}})
		require.ErrorIs(t, err, pos.ErrSequence, "number %d after 2", no)
	}
	o, err := j.Orders.Order(ctx, "G-3")
	require.NoError(t, err)
	assert.Equal(t, pos.StateIntent, o.State, "the refused payment left the order unpaid")
	// A new financial year's series starts at 1.
	appendAll(t, j, s.numberedCash("G-4", "2026-11-21", 100, "2728", 1))

	// A crash: the journal is closed without more and opened again; the series go
	// on from the last number handed out, none skipped.
	before := snapshot(t, j)
	require.NoError(t, j.Close())
	hw, ok, err := ReadNumbers(path)
	require.NoError(t, err)
	require.True(t, ok)
	assert.Equal(t, map[string]uint64{"2627": 2, "C2627": 1, "2728": 1}, hw.Series, "the high-water file keeps every series")
	backup := path + ".copy"
	require.NoError(t, copyFile(path, backup))

	j, err = Open(path, Options{Now: func() time.Time { return t0 }})
	require.NoError(t, err)
	appendAll(t, j, []pos.Event{{Kind: pos.EvCashReceived, OrderID: "G-3", Day: "2026-11-21", Time: s.next(),
		Series: "2627", DocNo: 3, Cash: &pos.CashEvent{Tendered: 100}}})
	require.NoError(t, j.Log.Rebuild(ctx))
	n, err := j.Orders.LastDocNo(ctx, "2627")
	require.NoError(t, err)
	assert.Equal(t, uint64(3), n, "a rebuild replays the series")
	assert.NotEqual(t, before["documents"], snapshot(t, j)["documents"])
	require.NoError(t, j.Close())

	// The copy from before invoice 3 put back is refused: it would print 3 twice.
	require.NoError(t, os.Rename(backup, path))
	_, err = Open(path, Options{})
	require.ErrorIs(t, err, ErrBehind)
	assert.Contains(t, err.Error(), "2627 numbers up to 3")
}

// TestSalvageContinuesASeries loses the event that numbered invoice 2: the
// salvaged journal keeps invoices 1, 3 and 4 with their numbers and continues
// at 5, never giving 2 again.
func TestSalvageContinuesASeries(t *testing.T) {
	path := filepath.Join(t.TempDir(), "journal.db")
	j, err := Open(path, Options{Now: func() time.Time { return t0 }})
	require.NoError(t, err)
	var s script
	for i, id := range []string{"G-1", "G-2", "G-3", "G-4"} {
		appendAll(t, j, s.numberedCash(id, "2026-11-21", 1000, "2627", uint64(i+1)))
	}
	require.NoError(t, j.Close())
	// G-2's cash.received (event 4, invoice 2) is damaged everywhere the file
	// holds a copy of it, so no copy can be salvaged.
	var rec []byte
	rawUpdate(t, path, func(tx *bolt.Tx) error {
		rec = bytes.Clone(tx.Bucket(bucketEvents).Get(u64(4)))
		return nil
	})
	raw, err := os.ReadFile(path)
	require.NoError(t, err)
	bad := bytes.Clone(rec)
	bad[len(bad)/2] ^= 0xff
	require.Positive(t, bytes.Count(raw, rec))
	require.NoError(t, os.WriteFile(path, bytes.ReplaceAll(raw, rec, bad), 0o600))
	out := filepath.Join(t.TempDir(), "new.db")
	rep, err := Salvage(t.Context(), path, "", out)
	require.NoError(t, err)
	assert.Equal(t, 7, rep.Recovered, "every event but the damaged one")
	assert.NotEmpty(t, rep.Lost, "the loss is said")
	assert.Equal(t, uint64(4), rep.Numbers.Series["2627"])
	_, err = VerifyFile(t.Context(), out)
	require.NoError(t, err)
	j, err = Open(out, Options{})
	require.NoError(t, err)
	defer j.Close()
	for id, want := range map[string]uint64{"G-1": 1, "G-3": 3, "G-4": 4} {
		o, err := j.Orders.Order(t.Context(), id)
		require.NoError(t, err)
		assert.Equal(t, want, o.DocNo, "%s keeps its number", id)
	}
	n, err := j.Orders.LastDocNo(t.Context(), "2627")
	require.NoError(t, err)
	assert.Equal(t, uint64(4), n, "the next invoice is 5")
}

// TestCheckDayFindsASeriesCounterBehind lowers the stored last number of a
// series below the numbers the day's events handed out: the start-up check and
// the day's check name it.
func TestCheckDayFindsASeriesCounterBehind(t *testing.T) {
	path := filepath.Join(t.TempDir(), "journal.db")
	j, err := Open(path, Options{Now: func() time.Time { return t0 }})
	require.NoError(t, err)
	var s script
	appendAll(t, j, s.numberedCash("G-1", "2026-11-21", 1000, "2627", 1))
	appendAll(t, j, s.numberedCash("G-2", "2026-11-21", 1000, "2627", 2))
	require.NoError(t, j.Days.CheckDay(t.Context(), "2026-11-21"))
	require.NoError(t, j.Close())
	rawUpdate(t, path, func(tx *bolt.Tx) error {
		return putU64(tx.Bucket(bucketDocuments), append(slices.Clone(docLastPrefix), "2627"...), 1)
	})
	require.NoError(t, os.Remove(NumbersPath(path))) // else Open itself refuses the file as behind
	_, err = Open(path, Options{Now: func() time.Time { return t0 }})
	require.ErrorIs(t, err, ErrDerivedMismatch, "the start-up check compares the counter with the events since the last Z")
	j, err = Open(path, Options{DeferVerify: true, Now: func() time.Time { return t0 }})
	require.NoError(t, err)
	defer j.Close()
	err = j.Days.CheckDay(t.Context(), "2026-11-21")
	require.ErrorIs(t, err, ErrDerivedMismatch)
	assert.Contains(t, err.Error(), "2627")
}
