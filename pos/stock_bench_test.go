package pos

import (
	"bytes"
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"galla/internal/testclock"
)

// BenchmarkStockList measures the Stock screen's search as typed and the
// IMEI field's offer with 50 000 units on hand (1 000 phone models of 50
// units each among 50 000 products), against the 1 ms budget (x-budget) and
// against the catalog's search as typed over the same catalog, run in turn in
// the same loop (x-floor: stock time / catalog search time). Each iteration
// lists the items matching a query (20 at most), offers the units of a model
// beginning with 10 typed digits, and looks one IMEI up.
func BenchmarkStockList(b *testing.B) {
	ps := genCatalog(b, 50_000).Products()
	for i := range 1000 {
		ps[i].Serialised = true
	}
	cat, err := NewCatalog(ps)
	require.NoError(b, err)
	var raw bytes.Buffer
	require.NoError(b, cat.WriteJSON(&raw))
	sj := &stockJournal{memJournal: newMemJournal(), snaps: map[string]Snapshot{}}
	e, err := New(Config{Journal: sj, Clock: testclock.New(time.Date(2026, 11, 22, 10, 0, 0, 0, time.Local))})
	require.NoError(b, err)
	tl, err := NewTill(b.Context(), TillConfig{Engine: e, SampleCatalog: raw.Bytes()})
	require.NoError(b, err)
	n := 0
	imei := func() string {
		n++
		return fmt.Sprintf("%s%c", benchIMEIBody(n), benchCheck(benchIMEIBody(n)))
	}
	for box := range 100 { // a delivery of 500 phones each: 10 models × 50
		d := Delivery{Supplier: "Sai", Invoice: fmt.Sprintf("SD/%d", box), Date: "2026-11-01"}
		for m := range 10 {
			l := DeliveryLine{SKU: ps[box*10+m].SKU, Qty: 50, Cost: 1_000_000}
			for range 50 {
				l.Units = append(l.Units, Unit{IMEI: imei()})
			}
			d.Lines = append(d.Lines, l)
		}
		_, err := tl.Stock.receive(b.Context(), d, "bench")
		require.NoError(b, err)
	}
	st, err := tl.Stock.Enforced(b.Context())
	require.NoError(b, err)
	require.Equal(b, 50_000, st.Units)
	ctx := b.Context()
	var stock, floor time.Duration
	i := 0
	for b.Loop() {
		q := searchQueries[i%len(searchQueries)]
		sku := ps[(i*37)%1000].SKU
		one := fmt.Sprintf("%s%c", benchIMEIBody(i%50_000+1), benchCheck(benchIMEIBody(i%50_000+1)))
		run := func() {
			t0 := time.Now()
			_, err := tl.Stock.List(ctx, q, 20, false)
			require.NoError(b, err)
			_, err = tl.Stock.Offer(ctx, sku, one[:10], 10)
			require.NoError(b, err)
			_, ok, err := tl.Stock.Unit(ctx, one)
			require.NoError(b, err)
			require.True(b, ok)
			stock += time.Since(t0)
		}
		search := func() {
			t0 := time.Now()
			cat.Search(q, 20)
			floor += time.Since(t0)
		}
		if i%2 == 0 {
			run()
			search()
		} else {
			search()
			run()
		}
		i++
	}
	b.ReportMetric(float64(stock)/float64(b.N)/float64(time.Millisecond), "x-budget")
	b.ReportMetric(float64(stock)/float64(floor), "x-floor")
	b.ReportMetric(float64(stock)/float64(b.N), "stock-ns")
	b.ReportMetric(float64(floor)/float64(b.N), "search-ns")
}

// benchIMEIBody is the first 14 digits of the benchmark's n-th IMEI.
func benchIMEIBody(n int) string { return fmt.Sprintf("86%012d", n) }

// benchCheck is the check digit of body.
func benchCheck(body string) byte {
	for d := byte('0'); d <= '9'; d++ {
		if Luhn(body + string(d)) {
			return d
		}
	}
	panic("no check digit")
}
