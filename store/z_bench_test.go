package store

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// fillDays puts days × counters × perDay paid orders (two lines each, one
// refund in ten) into the projections, ending on 2026-11-24, as a store of
// that age would hold them.
func fillDays(b *testing.B, db *DB, days, counters, perDay int) {
	ctx := context.Background()
	_, err := db.Pool().Exec(ctx, `
		INSERT INTO orders (terminal_id, order_id, day, paid_day, state, tender, amount, captured, refunded, tax, receipt_no, last_seq, snapshot)
		SELECT 'T' || c, 'O-' || d || '-' || c || '-' || n, date '2026-11-24' - d, date '2026-11-24' - d,
			CASE WHEN n % 10 = 0 THEN 'PARTLY_REFUNDED' ELSE 'PAID' END,
			CASE WHEN n % 3 = 0 THEN 'cash' ELSE 'card' END, 118000, 118000, CASE WHEN n % 10 = 0 THEN 10000 ELSE 0 END, 18000, n, n,
			'{"totals": {"by_rate": [{"rate": 18, "amount": 118000, "taxable": 100000, "tax": 18000, "cgst": 9000, "sgst": 9000}]}}'
		FROM generate_series(0, $1 - 1) d, generate_series(1, $2) c, generate_series(1, $3) n`, days, counters, perDay)
	require.NoError(b, err)
	// Each order's snapshot is the order as pos folds it, which the day report
	// reads through pos.BuildReport.
	_, err = db.Pool().Exec(ctx, `
		UPDATE orders SET snapshot = jsonb_build_object('id', order_id, 'day', day::text, 'paid_day', paid_day::text, 'state', state,
			'tender', tender, 'amount', amount, 'captured', captured, 'refunded', refunded, 'receipt_no', receipt_no,
			'totals', jsonb_build_object('total', amount, 'taxable', 100000, 'tax', 18000, 'cgst', 9000, 'sgst', 9000,
				'by_rate', jsonb_build_array(jsonb_build_object('rate', 18, 'amount', 118000, 'taxable', 100000, 'tax', 18000, 'cgst', 9000, 'sgst', 9000))),
			'refunds', CASE WHEN refunded > 0 THEN jsonb_build_array(jsonb_build_object('unique_txn_id', 'R-' || order_id, 'amount', refunded,
				'status', 'done', 'day', paid_day::text)) ELSE '[]'::jsonb END)`)
	require.NoError(b, err)
	_, err = db.Pool().Exec(ctx, `
		INSERT INTO order_lines (terminal_id, order_id, n, sku, name, qty, unit_price, gst_rate, amount, taxable, tax)
		SELECT terminal_id, order_id, k, 'SKU' || k, 'Item', 1, 59000, 18, 59000, 50000, 9000 FROM orders, generate_series(1, 2) k`)
	require.NoError(b, err)
	_, err = db.Pool().Exec(ctx, `
		INSERT INTO order_rates (terminal_id, order_id, rate, paid_day, amount, taxable, tax, cgst, sgst)
		SELECT terminal_id, order_id, 18, paid_day, 118000, 100000, 18000, 9000, 9000 FROM orders`)
	require.NoError(b, err)
	_, err = db.Pool().Exec(ctx, `
		INSERT INTO payments (terminal_id, seq, order_id, kind, tender, day, amount, status)
		SELECT terminal_id, row_number() OVER (), order_id, 'refund.done', tender, paid_day, 10000, 'REFUNDED' FROM orders WHERE refunded > 0`)
	require.NoError(b, err)
	_, err = db.Pool().Exec(ctx, "VACUUM ANALYZE") // history is vacuumed by autovacuum long since
	require.NoError(b, err)
}

// BenchmarkStoreDayReport measures the store's day report over a store of one
// day and over one of 365 days, both with 50 counters, in the same run: the
// report reads the day's rows by index, so the year costs what the day costs
// (ratio within 20%; run it with -benchtime 500x: below 100 rounds the
// medians are too noisy to judge).
func BenchmarkStoreDayReport(b *testing.B) {
	const counters, perDay = 50, 10
	small, big := newDB(b), newDB(b)
	fillDays(b, small, 1, counters, perDay)
	fillDays(b, big, 365, counters, perDay)
	ctx := context.Background()
	for _, db := range []*DB{small, big} {
		_, err := db.Master.PublishShop(ctx, storeShop, "meera") // a regular registrant: the report states GST
		require.NoError(b, err)
	}
	check := func(db *DB) {
		r, err := db.Reports.DayReport(ctx, "2026-11-24")
		require.NoError(b, err)
		require.Len(b, r.Counters, counters)
		// 10 orders of ₹1,180 per counter, one of them refunded ₹100.
		require.Equal(b, int64(counters*perDay*118000), int64(r.Store.GrossSales))
		require.Equal(b, int64(counters*10000), int64(r.Store.Refunded))
		require.Equal(b, int64(counters*perDay*18000), int64(r.Store.GST[0].Tax))
	}
	check(small)
	check(big)
	// Alternate which of the two goes first and compare medians: a machine
	// shared with other work slows single calls of either, not the median,
	// and neither always runs on the caches the other left.
	tSmall, tBig := make([]time.Duration, b.N), make([]time.Duration, b.N)
	report := func(db *DB, into *time.Duration) {
		start := time.Now()
		if _, err := db.Reports.DayReport(ctx, "2026-11-24"); err != nil {
			b.Fatal(err)
		}
		*into = time.Since(start)
	}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if i%2 == 0 {
			report(small, &tSmall[i])
			report(big, &tBig[i])
		} else {
			report(big, &tBig[i])
			report(small, &tSmall[i])
		}
	}
	b.StopTimer()
	slices.Sort(tSmall)
	slices.Sort(tBig)
	mSmall, mBig := tSmall[b.N/2], tBig[b.N/2]
	ratio := float64(mBig) / float64(mSmall)
	b.ReportMetric(float64(mSmall.Microseconds()), "µs/1-day")
	b.ReportMetric(float64(mBig.Microseconds()), "µs/365-days")
	b.ReportMetric(ratio, "ratio")
	if b.N >= 100 && ratio > 1.2 {
		b.Logf("medians: %v over 1 day, %v over 365 days", mSmall, mBig)
		b.Errorf("the day report over 365 days × %d counters takes %.2f× its time over 1 day: it must stay flat (at most 1.2×)", counters, ratio)
	}
}
