package store

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"galla/pos"
)

// stockEvent journals a stock event with its record.
func (c *counter) stockEvent(kind pos.EventKind, day string, v any) {
	data, err := json.Marshal(v)
	require.NoError(c.t, err)
	c.add(pos.Event{Kind: kind, Day: day, Staff: "meera", Data: data})
}

// TestStockIsProjected: two counters' goods received, a phone sold, one
// set aside, one sent from T1 and received at T2: the store's units and
// transfers agree with the counters unit by unit, in transit until the
// other end receives, and the same after a rebuild.
func TestStockIsProjected(t *testing.T) {
	db := newDB(t)
	ctx := t.Context()
	enrolled(t, db, "T1")
	enrolled(t, db, "T2")
	t1, t2 := newCounter(t, "T1"), newCounter(t, "T2")
	const a, b, c2, d = "356938035643809", "356938035643817", "490154203237518", "356938035643825"
	t1.stockEvent(pos.EvStockReceived, day1, pos.Delivery{Supplier: "Sai", Invoice: "SD/1", Date: day1, Lines: []pos.DeliveryLine{
		{SKU: "PH", Qty: 3, Cost: 6_500_000, Units: []pos.Unit{{IMEI: a, IMEI2: b}, {IMEI: c2}, {IMEI: d}}},
		{SKU: "CBL", Qty: 10, Cost: 12_000}}})
	t1.cashSale("T1-A", day1, line("PH", 1, 74999, 18, b))
	t1.stockEvent(pos.EvStockAdjusted, day1, pos.StockAdjustment{Reason: "returned damaged", Units: []pos.UnitMove{{IMEI: d, To: pos.UnitDamaged}}})
	t1.stockEvent(pos.EvStockSent, day1, pos.Transfer{ID: "T1/TR/1", To: "T2", Lines: []pos.DeliveryLine{
		{SKU: "PH", Qty: 1, Units: []pos.Unit{{IMEI: c2}}}, {SKU: "CBL", Qty: 4}}})
	_, err := db.Events.Ingest(ctx, "T1", t1.sent())
	require.NoError(t, err)

	units, err := db.Projections.StockUnits(ctx, true)
	require.NoError(t, err)
	states := map[string]string{}
	for _, u := range units {
		states[u.Terminal+" "+u.IMEI] = u.State
	}
	assert.Equal(t, map[string]string{"T1 " + a: "sold", "T1 " + c2: "in_transit", "T1 " + d: "damaged"}, states, "a unit sold by its second IMEI")
	tr, err := db.Projections.StockTransfers(ctx)
	require.NoError(t, err)
	require.Len(t, tr, 1)
	assert.Equal(t, StoreTransfer{From: "T1", ID: "T1/TR/1", To: "T2", Sent: tr[0].Sent, Units: 5}, tr[0], "in transit")

	t2.stockEvent(pos.EvStockReceived, day1, pos.Delivery{From: "T1", Supplier: "transfer from T1", Invoice: "T1/TR/1", Date: day1, Lines: []pos.DeliveryLine{
		{SKU: "PH", Qty: 1, Units: []pos.Unit{{IMEI: c2}}}, {SKU: "CBL", Qty: 4}}})
	_, err = db.Events.Ingest(ctx, "T2", t2.sent())
	require.NoError(t, err)
	tr, err = db.Projections.StockTransfers(ctx)
	require.NoError(t, err)
	require.Len(t, tr, 1)
	assert.Equal(t, "T2", tr[0].ReceivedBy)
	require.NotNil(t, tr[0].Received)
	units, err = db.Projections.StockUnits(ctx, false)
	require.NoError(t, err)
	var on []string
	for _, u := range units {
		on = append(on, u.Terminal+" "+u.IMEI+" "+u.State)
	}
	assert.Equal(t, []string{"T1 " + d + " damaged", "T1 " + c2 + " in_transit", "T2 " + c2 + " in_stock"}, on)
	var qty1, qty2 int64
	require.NoError(t, db.Pool().QueryRow(ctx, "SELECT qty FROM stock_qty WHERE terminal_id = 'T1' AND sku = 'CBL'").Scan(&qty1))
	require.NoError(t, db.Pool().QueryRow(ctx, "SELECT qty FROM stock_qty WHERE terminal_id = 'T2' AND sku = 'CBL'").Scan(&qty2))
	assert.Equal(t, []int64{6, 4}, []int64{qty1, qty2})

	before := dump(t, db)
	_, err = db.Projections.Rebuild(ctx)
	require.NoError(t, err)
	assert.Equal(t, before, dump(t, db), "a rebuild gives the same stock")
}
