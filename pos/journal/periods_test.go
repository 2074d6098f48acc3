package journal

import (
	"encoding/json"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"galla/pos"
)

// TestSecondZOfADate: after the Z of a date, events of the same date are
// journaled (the date's next period, ADR 0010); a second Z of the date closes
// period 2 after the first Z's event, is what DayClose returns, passes CheckDay,
// Rebuild and the whole check; an event of the date after a later date's Z,
// and a period 2 that does not follow the date's last Z, are refused.
func TestSecondZOfADate(t *testing.T) {
	path := filepath.Join(t.TempDir(), "data", "journal.db")
	j, err := Open(path, Options{Now: func() time.Time { return t0 }})
	require.NoError(t, err)
	ctx := t.Context()
	var s script
	appendAll(t, j, s.cashSale("G-1", "2026-11-21", 5000))
	z1 := appendAll(t, j, []pos.Event{{Kind: pos.EvDayClosed, Day: "2026-11-21", Time: s.next(),
		DayClose: &pos.DayClose{Day: "2026-11-21", ZNo: 1, Report: json.RawMessage(`{}`)}}})[0]

	// Sold after the Z, on the same date: accepted, listed under the date.
	appendAll(t, j, s.cashSale("G-2", "2026-11-21", 700))
	orders, err := j.Orders.OrdersByDay(ctx, "2026-11-21")
	require.NoError(t, err)
	assert.Len(t, orders, 2)
	dc, err := j.Days.DayClose(ctx, "2026-11-21")
	require.NoError(t, err)
	require.NotNil(t, dc)
	assert.Equal(t, uint64(1), dc.ZNo)
	assert.Equal(t, z1.Seq, dc.Seq)

	// Period 2 must follow the date's last Z.
	_, err = j.Log.Append(ctx, pos.Event{Kind: pos.EvDayClosed, Day: "2026-11-21", Time: s.next(),
		DayClose: &pos.DayClose{Day: "2026-11-21", ZNo: 2, Period: 2, After: z1.Seq - 1, Report: json.RawMessage(`{}`)}})
	require.ErrorIs(t, err, pos.ErrDayClosed)
	z2 := appendAll(t, j, []pos.Event{{Kind: pos.EvDayClosed, Day: "2026-11-21", Time: s.next(),
		DayClose: &pos.DayClose{Day: "2026-11-21", ZNo: 2, Period: 2, After: z1.Seq, Report: json.RawMessage(`{}`)}}})[0]
	dc, err = j.Days.DayClose(ctx, "2026-11-21")
	require.NoError(t, err)
	require.NotNil(t, dc)
	assert.Equal(t, uint64(2), dc.ZNo)
	assert.Equal(t, 2, dc.Period)
	assert.Equal(t, z1.Seq, dc.After)
	assert.Equal(t, z2.Seq, dc.Seq)
	require.NoError(t, j.Days.CheckDay(ctx, "2026-11-21"))

	// The next date, and its Z: the 21st then takes nothing more.
	appendAll(t, j, s.cashSale("G-3", "2026-11-22", 900))
	appendAll(t, j, []pos.Event{{Kind: pos.EvDayClosed, Day: "2026-11-22", Time: s.next(),
		DayClose: &pos.DayClose{Day: "2026-11-22", ZNo: 3, Report: json.RawMessage(`{}`)}}})
	_, err = j.Log.Append(ctx, s.cashSale("G-4", "2026-11-21", 100)[0])
	require.ErrorIs(t, err, pos.ErrDayClosed)
	_, err = j.Log.Append(ctx, pos.Event{Kind: pos.EvDayClosed, Day: "2026-11-21", Time: s.next(),
		DayClose: &pos.DayClose{Day: "2026-11-21", ZNo: 4, Period: 3, After: z2.Seq, Report: json.RawMessage(`{}`)}})
	require.ErrorIs(t, err, pos.ErrDayClosed)

	before := snapshot(t, j)
	require.NoError(t, j.Log.Rebuild(ctx))
	assert.Equal(t, before, snapshot(t, j), "Rebuild replays both Zs of the date to the same records")
	require.NoError(t, j.Close())
	rep, err := VerifyFile(ctx, path)
	require.NoError(t, err)
	assert.True(t, rep.Verified)
}
