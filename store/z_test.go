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
	assert.Equal(t, CounterZ{Terminal: "T2", ZNo: 1, Period: 1, GrossSales: pos.Rupees(14160), NetSales: pos.Rupees(14160), CashExpected: pos.Rupees(2360), Tax: pos.Rupees(2160)}, zs[0])

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

// TestStoreZWaitsForTheLastZOfADate: a counter that sells after its Z on the
// same date (ADR 0010) closes the date again (Z 2, period 2); the store's day
// waits for that second Z, keeps both, and sums them.
func TestStoreZWaitsForTheLastZOfADate(t *testing.T) {
	db := newDB(t)
	ctx := t.Context()
	enrolled(t, db, "T1")
	t1 := newCounter(t, "T1")
	t1.cashSale("T1-A", day1, line("CHG", 1, 1180, 18))
	r1 := t1.closeDay(day1, 1)
	z1Seq := t1.seq
	_, err := db.Events.Ingest(ctx, "T1", t1.sent())
	require.NoError(t, err)

	// The evening's sale, after the Z, on the same date.
	t1.cashSale("T1-B", day1, line("TEA", 2, 105, 5))
	_, err = db.Events.Ingest(ctx, "T1", t1.sent())
	require.NoError(t, err)
	_, err = db.Reports.CloseStoreDay(ctx, day1, "meera")
	require.ErrorIs(t, err, ErrStoreZRefused)
	assert.Contains(t, err.Error(), "counter T1 sold on 2026-11-24 but its Z report has not reached the store", "the sale after the Z waits for the date's second Z")

	// The second Z of the date: the evening's sale only.
	r := t1.report(day1)
	r.Kind, r.ZNo, r.Period = "Z", 2, 2
	r.Sales, r.GrossSales, r.NetSales, r.CashExpected = []pos.TenderTotal{{Tender: pos.TenderCash, Count: 1, Amount: pos.Rupees(210)}}, pos.Rupees(210), pos.Rupees(210), pos.Rupees(210)
	r.GST = []pos.RateTotal{{Rate: pos.Percent(5), Amount: pos.Rupees(210), Tax: 1000}}
	sealed, err := pos.SealedReport(r)
	require.NoError(t, err)
	t1.add(pos.Event{Kind: pos.EvDayClosed, Day: day1, Staff: "meera", DayClose: &pos.DayClose{Day: day1, ZNo: 2, Period: 2, After: z1Seq, Report: sealed}})
	_, err = db.Events.Ingest(ctx, "T1", t1.sent())
	require.NoError(t, err)

	require.NoError(t, db.Projections.Project(ctx))
	zs, err := db.Reports.CounterZs(ctx, day1)
	require.NoError(t, err)
	require.Len(t, zs, 2, "both Zs of the date are kept")
	assert.Equal(t, []uint64{1, 2}, []uint64{zs[0].ZNo, zs[1].ZNo})
	assert.Equal(t, []int{1, 2}, []int{zs[0].Period, zs[1].Period})
	z, err := db.Reports.CloseStoreDay(ctx, day1, "meera")
	require.NoError(t, err)
	require.Len(t, z.Counters, 2)
	assert.Equal(t, r1.GrossSales+pos.Rupees(210), z.GrossSales, "the store's Z sums the date's Zs")
	assert.Equal(t, r1.CashExpected+pos.Rupees(210), z.CashExpected)
	var tax1 pos.Paise
	for _, g := range r1.GST {
		tax1 += g.Tax
	}
	assert.Equal(t, tax1+1000, z.Tax)
}
