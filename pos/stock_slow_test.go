package pos

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestStockSlow: the slow movers are the items on hand not sold for the
// days asked, the longest first, by days since the last sale or, never
// sold, since what is on hand was received; an item sold out is not one.
func TestStockSlow(t *testing.T) {
	r, tl, sj := stockRig(t)
	ctx := t.Context()
	_, err := tl.Stock.ReceiveItems(ctx, "Sai Distributors", "SD/1", "2026-11-22", "PH-SAM-S24:2@6500000,ACC-CBL:5@12000,ACC-CASE:2@40000",
		[]string{testIMEI(1), testIMEI(3)}, managerPIN)
	require.NoError(t, err)
	r.clock.Advance(10 * 24 * time.Hour)
	_, err = tl.Checkout.Pay(ctx, phoneSale(t, tl, testIMEI(1)), nil) // a phone and two cables
	require.NoError(t, err)
	r.clock.Advance(5 * 24 * time.Hour)
	_, err = tl.Stock.ReceiveItems(ctx, "Sai Distributors", "SD/2", "2026-12-07", "TV-LG-OLED55C4:1@11000000", nil, managerPIN)
	require.NoError(t, err)
	r.clock.Advance(60 * 24 * time.Hour)

	saleAt := time.Date(2026, 12, 2, 10, 0, 0, 0, time.Local)
	want := []SlowRow{
		{SKU: "ACC-CASE", Name: "Phone case", Days: 75, Never: true, OnHand: 2, Cost: 80_000},
		{SKU: "ACC-CBL", Name: "Cable", Days: 65, LastSold: saleAt, OnHand: 3, Cost: 36_000},
		{SKU: "PH-SAM-S24", Name: "Samsung Galaxy S24", Brand: "Samsung", Days: 65, LastSold: saleAt, OnHand: 1, Cost: 6_500_000},
		{SKU: "TV-LG-OLED55C4", Name: "LG OLED 55", Brand: "LG", Days: 60, Never: true, OnHand: 1, Cost: 11_000_000},
	}
	local := func(rows []SlowRow) []SlowRow {
		for i := range rows {
			if !rows[i].LastSold.IsZero() {
				rows[i].LastSold = rows[i].LastSold.Local()
			}
		}
		return rows
	}
	got, err := tl.Stock.Slow(ctx, 0)
	require.NoError(t, err)
	assert.Equal(t, want, local(got), "60 days, the default")
	got, err = tl.Stock.Slow(ctx, 61)
	require.NoError(t, err)
	assert.Equal(t, want[:3], local(got))
	got, err = tl.Stock.Slow(ctx, 70)
	require.NoError(t, err)
	assert.Equal(t, want[:1], local(got))

	// A till made again from the book's snapshot says the same.
	b := &tl.c.sb
	b.mu.Lock()
	b.mark.seq, b.mark.at = 0, b.mark.last.Add(-SnapshotAge)
	require.NoError(t, b.catchUp(ctx, sj))
	b.mu.Unlock()
	_, ok, err := sj.Snapshot(ctx, snapStock)
	require.NoError(t, err)
	require.True(t, ok)
	tl2, err := NewTill(ctx, TillConfig{Engine: r.e, SampleCatalog: catalogJSON(t)})
	require.NoError(t, err)
	got, err = tl2.Stock.Slow(ctx, 0)
	require.NoError(t, err)
	assert.Equal(t, want, local(got))
}
