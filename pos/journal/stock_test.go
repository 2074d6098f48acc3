package journal

import (
	"encoding/json"
	"errors"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	bolt "go.etcd.io/bbolt"

	"galla/internal/testclock"
	"galla/pos"
)

// noStockIndex is a counting port without the journal's stock days: the
// till's stock moves read the journal through, as before them. Its
// StockEvents and StockBegan hide the port's, so that it is no
// pos.StockDayIndex.
type noStockIndex struct{ countingPort }

func (noStockIndex) StockEvents() {}
func (noStockIndex) StockBegan()  {}

var _ = []any{noStockIndex.StockEvents, noStockIndex.StockBegan}

// stockTills opens a till on the journal at path that reads the stock days
// and one that reads the journal through, each counting what it reads.
func stockTills(t *testing.T, path string, clk pos.Clock) (j *Journal, indexed, through *pos.Till, ri, rt *reads) {
	t.Helper()
	j, err := Open(path, Options{ChainKey: testKey})
	require.NoError(t, err)
	ri, rt = &reads{}, &reads{}
	for _, c := range []struct {
		port pos.Journal
		tl   **pos.Till
	}{{countingPort{j.Port(), ri}, &indexed}, {noStockIndex{countingPort{j.Port(), rt}}, &through}} {
		e, err := pos.New(pos.Config{Journal: c.port, Clock: clk})
		require.NoError(t, err)
		*c.tl, err = pos.NewTill(t.Context(), pos.TillConfig{Engine: e})
		require.NoError(t, err)
	}
	return j, indexed, through, ri, rt
}

// deliver journals a delivery of the phones imeis at the clock's time.
func deliver(t *testing.T, j *Journal, clk pos.Clock, invoice string, imeis ...string) {
	t.Helper()
	l := pos.DeliveryLine{SKU: "PH-A15", Qty: len(imeis)}
	for _, m := range imeis {
		l.Units = append(l.Units, pos.Unit{IMEI: m})
	}
	now := clk.Now()
	raw, err := json.Marshal(pos.Delivery{Supplier: "Sai Distributors", Invoice: invoice, Date: pos.ToDay(now), Lines: []pos.DeliveryLine{l}})
	require.NoError(t, err)
	_, err = j.Log.Append(t.Context(), pos.Event{Kind: pos.EvStockReceived, Day: pos.ToDay(now), Time: now, Staff: "001", Data: raw})
	require.NoError(t, err)
}

// The stock moves of a day, of days and of a shift, read from the journal's
// stock days and the orders of those days, are those of a reading of the
// whole journal: a sale before stock began moves nothing, a day without a
// delivery lists the sales from stock, a day with nothing lists nothing. The
// till that reads the stock days reads no event from the log's beginning; the
// other reads every one, each time.
func TestStockMovesByDay(t *testing.T) {
	path := filepath.Join(t.TempDir(), "journal.db")
	ctx := t.Context()
	clk := testclock.New(time.Date(2026, 11, 20, 10, 0, 0, 0, time.Local))
	j, tl := openTill(t, path, clk)
	_, err := sellPhone(ctx, tl, imeiN(100)) // before stock began
	require.NoError(t, err)
	clk.Advance(time.Hour)
	deliver(t, j, clk, "SD/1", imeiN(1), imeiN(2))
	clk.Advance(time.Hour)
	_, err = sellPhone(ctx, tl, imeiN(1))
	require.NoError(t, err)
	clk.Advance(24 * time.Hour)
	deliver(t, j, clk, "SD/2", imeiN(3))
	_, err = tl.Drawer.OpenShift(ctx, "001", 0)
	require.NoError(t, err)
	clk.Advance(time.Hour)
	_, err = sellPhone(ctx, tl, imeiN(2))
	require.NoError(t, err)
	clk.Advance(48 * time.Hour)
	_, err = sellPhone(ctx, tl, imeiN(3))
	require.NoError(t, err)
	require.NoError(t, j.Close())

	j, indexed, through, ri, rt := stockTills(t, path, clk)
	defer j.Close()
	last, err := j.Log.LastSeq(ctx)
	require.NoError(t, err)
	days := []string{"2026-11-20", "2026-11-21", "2026-11-22", "2026-11-23"}
	rows := map[string]int{"2026-11-20": 3, "2026-11-21": 2, "2026-11-22": 0, "2026-11-23": 1}
	for _, d := range days {
		*ri, *rt = reads{}, reads{}
		got, err := indexed.Stock.MovesOfDay(ctx, d)
		require.NoError(t, err)
		want, err := through.Stock.MovesOfDay(ctx, d)
		require.NoError(t, err)
		assert.Equal(t, want, got, d)
		assert.Len(t, got, rows[d], "%s: %v", d, got)
		assert.Zero(t, ri.events, "%s: events read by the till that reads the stock days", d)
		assert.Equal(t, int(last), rt.events, "%s: events read by the till that reads the journal through", d)
	}
	for _, r := range [][2]string{{"2026-11-20", "2026-11-23"}, {"2026-11-21", "2026-11-22"}, {"2026-11-01", "2026-11-19"}} {
		got, err := indexed.Stock.MovesOfDays(ctx, r[0], r[1])
		require.NoError(t, err)
		want, err := through.Stock.MovesOfDays(ctx, r[0], r[1])
		require.NoError(t, err)
		assert.Equal(t, want, got, "%v", r)
	}
	all, err := indexed.Stock.MovesOfDays(ctx, days[0], days[3])
	require.NoError(t, err)
	assert.Len(t, all, 6)
	sh, err := indexed.Drawer.CurrentShift(ctx)
	require.NoError(t, err)
	require.NotNil(t, sh)
	got, err := indexed.Stock.MovesOfShift(ctx, sh)
	require.NoError(t, err)
	want, err := through.Stock.MovesOfShift(ctx, sh)
	require.NoError(t, err)
	assert.Equal(t, want, got, "the open shift")
	assert.Len(t, got, 3, "the shift opened with the second delivery: it and two sales")

	_, err = indexed.Stock.MovesOfDays(ctx, "2026-11-23", "2026-11-20")
	assert.Error(t, err, "the days the wrong way round")
}

// An entry of the stock days edited in the file to name an event that is not
// a stock event of its day is refused with a *MismatchError naming it, and
// the whole check finds an entry deleted.
func TestEditedStockDayIsRefused(t *testing.T) {
	path := filepath.Join(t.TempDir(), "journal.db")
	ctx := t.Context()
	clk := testclock.New(time.Date(2026, 11, 20, 10, 0, 0, 0, time.Local))
	j, tl := openTill(t, path, clk)
	deliver(t, j, clk, "SD/1", imeiN(1))
	_, err := sellPhone(ctx, tl, imeiN(1))
	require.NoError(t, err)
	last, err := j.Log.LastSeq(ctx)
	require.NoError(t, err)
	require.NoError(t, j.Close())

	var key []byte
	rawUpdate(t, path, func(tx *bolt.Tx) error {
		b := tx.Bucket(bucketStockDays)
		k, _ := b.Cursor().First()
		require.NotNil(t, k)
		key = dayKey("2026-11-20", last) // the sale's last event
		require.NoError(t, b.Delete(k))
		return b.Put(key, nil)
	})
	j, indexed, _, _, _ := stockTills(t, path, clk)
	_, err = indexed.Stock.MovesOfDay(ctx, "2026-11-20")
	var me *MismatchError
	require.True(t, errors.As(err, &me), "%v", err)
	assert.Equal(t, "stock_days", me.Bucket)
	require.NoError(t, j.Close())

	rawUpdate(t, path, func(tx *bolt.Tx) error { return tx.Bucket(bucketStockDays).Delete(key) })
	_, err = VerifyFileWith(ctx, path, Options{ChainKey: testKey})
	assert.ErrorIs(t, err, ErrDerivedMismatch, "galla journal verify finds the entry gone")
}
