package store

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"galla/pos"
)

func TestStoreZIsTheSumOfTheCountersZAndWaitsForThem(t *testing.T) {
	db := newDB(t)
	ctx := t.Context()
	t1, t2 := storeDay(t, db)

	_, err := db.Reports.CloseStoreDay(ctx, day1, "meera")
	require.ErrorIs(t, err, ErrStoreZRefused)
	assert.Contains(t, err.Error(), "counter T1 sold on 2026-11-24 but its Z report has not reached the store")

	r2 := t2.closeDay(day1, 1)
	_, err = db.Events.Ingest(ctx, "T2", t2.sent())
	require.NoError(t, err)
	_, err = db.Reports.CloseStoreDay(ctx, day1, "meera")
	require.ErrorIs(t, err, ErrStoreZRefused)
	assert.Contains(t, err.Error(), "counter T1 sold")
	zs, err := db.Reports.CounterZs(ctx, day1)
	require.NoError(t, err)
	require.Len(t, zs, 1)
	assert.Equal(t, CounterZ{Terminal: "T2", ZNo: 1, GrossSales: pos.Rupees(14160), NetSales: pos.Rupees(14160), CashExpected: pos.Rupees(2360), Tax: pos.Rupees(2160)}, zs[0])

	r1 := t1.closeDay(day1, 1)
	_, err = db.Events.Ingest(ctx, "T1", t1.sent())
	require.NoError(t, err)
	_, err = db.Reports.CloseStoreDay(ctx, day1, "meera")
	require.ErrorIs(t, err, ErrStoreZRefused)
	assert.Contains(t, err.Error(), "the payment of order T1-C on counter T1 is not settled (UNKNOWN)")
	z, err := db.Reports.StoreZReport(ctx, day1)
	require.NoError(t, err)
	assert.Nil(t, z, "a refused store Z seals nothing")

	// The lost answer is inquired the next day: captured.
	t1.add(pos.Event{Kind: pos.EvPaymentOutcome, OrderID: "T1-C", Day: "2026-11-25", ReceiptNo: 4, Outcome: &pos.Outcome{
		MerchantOrderID: "T1-C", ServiceOrderID: "S-T1-C", PaymentID: "P-T1-C", OrderStatus: "CHARGED", PaymentStatus: "CAPTURED",
		Amount: pos.Rupees(500), Captured: pos.Rupees(500)}})
	_, err = db.Events.Ingest(ctx, "T1", t1.sent())
	require.NoError(t, err)

	z, err = db.Reports.CloseStoreDay(ctx, day1, "meera")
	require.NoError(t, err)
	require.Len(t, z.Counters, 2)
	// Hand-computed: ₹60,390 + ₹14,160 gross, ₹1,000 refunded, cash ₹1,390 + ₹2,360.
	assert.Equal(t, pos.Rupees(74550), z.GrossSales)
	assert.Equal(t, pos.Rupees(1000), z.Refunded)
	assert.Equal(t, pos.Rupees(73550), z.NetSales)
	assert.Equal(t, pos.Rupees(3750), z.CashExpected)
	assert.Equal(t, pos.Rupees(9190+2160), z.Tax)
	// And the counters' own Z reports add up to it.
	assert.Equal(t, r1.GrossSales+r2.GrossSales, z.GrossSales)
	assert.Equal(t, r1.NetSales+r2.NetSales, z.NetSales)
	assert.Equal(t, r1.CashExpected+r2.CashExpected, z.CashExpected)
	assert.Equal(t, "T1", z.Counters[0].Terminal)
	assert.Equal(t, r1.NetSales, z.Counters[0].NetSales)

	again, err := db.Reports.CloseStoreDay(ctx, day1, "ravi")
	require.NoError(t, err)
	assert.Equal(t, "meera", again.ClosedBy, "a closed day gives the sealed report again")
	assert.Equal(t, z.NetSales, again.NetSales)
}

func TestStoreZRefusesABlockedCounterAndABadDay(t *testing.T) {
	db := newDB(t)
	ctx := t.Context()
	_, err := db.Reports.CloseStoreDay(ctx, "24-11-2026", "meera")
	require.ErrorIs(t, err, ErrStoreZRefused)
	assert.Contains(t, err.Error(), "write it YYYY-MM-DD")

	_, err = db.Reports.CloseStoreDay(ctx, day1, "meera")
	require.ErrorIs(t, err, ErrStoreZRefused)
	assert.Contains(t, err.Error(), "no counter has sent a Z report of 2026-11-24")

	enrolled(t, db, "T3")
	_, err = db.Pool().Exec(ctx, "UPDATE terminals SET state = 'blocked', blocked_reason = 'its journal forked at event 7' WHERE id = 'T3'")
	require.NoError(t, err)
	_, err = db.Reports.CloseStoreDay(ctx, day1, "meera")
	require.ErrorIs(t, err, ErrStoreZRefused)
	assert.Contains(t, err.Error(), "counter T3 is blocked (its journal forked at event 7)")
}
