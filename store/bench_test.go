package store

import (
	"context"
	"encoding/hex"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"galla/pos"
	"galla/store/api"
)

// The ingest goal of issue 15 (DESIGN.md section 11, docs/benchmarks.md):
// at least 20 000 events/s into one PostgreSQL, and the ingest at most 1.5× a
// bare COPY of the same rows.
const (
	goalEPS   = 20000 // events per second, stored
	goalFloor = 1.5   // ingest time / bare COPY time
	// BenchmarkIngest fails on the rate only where the machine is fast enough
	// to judge it: when its bare COPY reaches goalFloor × goalEPS. Below that,
	// the shared machine's load, not the ingest, sets the rate (the throwaway
	// cluster shares the benchmark's two cores).
	judgeCopyEPS = goalFloor * goalEPS
	// judgeBatches is the fewest batches whose ratio BenchmarkIngest judges.
	judgeBatches = 20
	// goalSync is the goal of issue 25 for a batch stored and projected (what
	// the server answers after): 20 000 events/s for one counter, judged
	// against the bare COPY of the same rows in the same run, as
	// (ingest + project) / COPY. 3.2 is 20 000 events/s where a bare COPY
	// stores 64 000, the lower end of this machine's kind when the goal was
	// set (64 000–74 000); a ratio, so that a loaded machine slows both.
	goalSync = 3.2
)

// BenchmarkIngest measures the store's ingest (issue 15: at least 20 000
// events/s into one PostgreSQL, at most 1.5× a bare COPY of the same rows).
// Each iteration makes a batch of up to api.MaxBatch events of a counter's
// day of sales (card sales with their order, attempt and payment, cash sales,
// a phone with its IMEI now and then, a refund in ten sales; about 600 bytes
// of JSON an event) and, in turn (which goes first alternates):
//
//   - ingest: DB.Ingest (checks, the terminal's row lock, COPY, the bodies'
//     fields checked against the envelope, the chain's end), timed alone;
//   - project: Projections.ProjectBatch of the same batch right after, as the
//     server does before it answers (orders, lines, payments, documents, IMEIs);
//   - floor: a bare COPY of the same rows into a table like events (its
//     columns, checks, primary key and index) in a transaction of its own.
//
// It reports x-floor (ingest / floor), ingest-eps, copy-eps, sync-eps (events
// stored and projected per second, what a store answers at) and x-sync
// ((ingest + project) / floor, the median turn; x-sync-sum over the sums). It
// fails when x-floor is above 1.5, when x-sync is above goalSync (3.2), or
// when ingest-eps is under 20 000 while copy-eps is at least 30 000, over at
// least 20 batches (-benchtime=100x).
func BenchmarkIngest(b *testing.B) {
	db := newDB(b)
	enrolled(b, db, "T1")
	ctx := context.Background()
	// The same columns, checks, primary key and index as events.
	if _, err := db.Pool().Exec(ctx, `CREATE TABLE events_floor (LIKE events INCLUDING ALL)`); err != nil {
		b.Fatal(err)
	}
	c := newCounter(b, "T1")
	var tIngest, tProject, tCopy time.Duration
	var ratios, syncs []float64 // ingest / floor and (ingest + project) / floor of each turn
	n, bytes, batches := 0, 0, 0
	for i := 0; b.Loop(); i++ {
		b.StopTimer()
		evs := daySales(c, api.MaxBatch)
		rows := make([][]any, len(evs))
		for k, e := range evs {
			h, _ := hex.DecodeString(e.Hash)
			p, _ := hex.DecodeString(e.PrevHash)
			rows[k] = []any{"T1", int64(e.Seq), h, p, e.Kind, time.Date(2026, 11, 24, 0, 0, 0, 0, time.UTC), []byte(e.Body)}
			bytes += len(e.Body)
		}
		b.StartTimer()
		ingest := func() {
			t0 := time.Now()
			resp, err := db.Events.Ingest(ctx, "T1", evs)
			if err != nil || resp.Stored != len(evs) {
				b.Fatalf("ingest: %v %+v", err, resp)
			}
			t1 := time.Now()
			if err := db.Projections.ProjectBatch(ctx, "T1", evs); err != nil {
				b.Fatalf("project: %v", err)
			}
			tIngest += t1.Sub(t0)
			tProject += time.Since(t1)
		}
		floor := func() {
			t0 := time.Now()
			err := pgx.BeginFunc(ctx, db.Pool(), func(tx pgx.Tx) error {
				_, err := tx.CopyFrom(ctx, pgx.Identifier{"events_floor"}, []string{"terminal_id", "seq", "hash", "prev_hash", "kind", "day", "body"}, pgx.CopyFromRows(rows))
				return err
			})
			if err != nil {
				b.Fatal(err)
			}
			tCopy += time.Since(t0)
		}
		i0, p0, c0 := tIngest, tProject, tCopy
		if i%2 == 0 {
			ingest()
			floor()
		} else {
			floor()
			ingest()
		}
		ratios = append(ratios, float64(tIngest-i0)/float64(tCopy-c0))
		syncs = append(syncs, float64(tIngest-i0+tProject-p0)/float64(tCopy-c0))
		n += len(evs)
		batches++
	}
	b.StopTimer()
	// The median turn: a stall of the shared machine slows one leg of a turn,
	// not the median.
	slices.Sort(ratios)
	slices.Sort(syncs)
	xFloor, xSync := ratios[len(ratios)/2], syncs[len(syncs)/2]
	ingestEPS := float64(n) / tIngest.Seconds()
	copyEPS := float64(n) / tCopy.Seconds()
	b.ReportMetric(xFloor, "x-floor")
	b.ReportMetric(float64(tIngest)/float64(tCopy), "x-floor-sum")
	b.ReportMetric(ingestEPS, "ingest-eps")
	b.ReportMetric(copyEPS, "copy-eps")
	b.ReportMetric(float64(n)/(tIngest+tProject).Seconds(), "sync-eps")
	b.ReportMetric(xSync, "x-sync")
	b.ReportMetric(float64(tIngest+tProject)/float64(tCopy), "x-sync-sum")
	b.ReportMetric(float64(bytes)/float64(n), "body-bytes")
	// What the projections hold is checked by the store's tests; here only
	// that they kept up (a sale in each batch at least).
	var orders int
	if err := db.Pool().QueryRow(ctx, "SELECT count(*) FROM orders WHERE terminal_id = 'T1' AND state = 'PAID'").Scan(&orders); err != nil || orders < batches {
		b.Fatalf("the projections hold %d paid orders after %d batches (%v)", orders, batches, err)
	}
	if batches < judgeBatches {
		return
	}
	if xFloor > goalFloor {
		b.Fatalf("the ingest took %.2f× a bare COPY of the same rows over %d batches; the goal is at most %.1f×", xFloor, batches, goalFloor)
	}
	if xSync > goalSync {
		b.Fatalf("a batch stored and projected took %.2f× a bare COPY of the same rows over %d batches (%.0f events/s, COPY %.0f); the goal is at most %.1f×",
			xSync, batches, float64(n)/(tIngest+tProject).Seconds(), copyEPS, goalSync)
	}
	if copyEPS >= judgeCopyEPS && ingestEPS < goalEPS {
		b.Fatalf("the ingest stored %.0f events/s while a bare COPY stored %.0f; the goal is at least %d", ingestEPS, copyEPS, goalEPS)
	}
}

// daySales journals sales on c until a batch of at most max events is full,
// and returns them: card sales (intent, order created, attempt, payment
// outcome with the receipt), cash sales (intent, cash received), one sale in
// five a phone with its IMEI, one in ten to a named buyer, a refund in ten
// sales.
func daySales(c *counter, max int) []api.Event {
	for len(c.events)+7 <= max {
		k := c.seq
		id := fmt.Sprintf("T1-20261124-%06d", k)
		lines := []pos.Line{line("CASE-A55", 1, 499, 18), line("CHARGER-25W", 1, 1299, 18)}
		if k%5 == 0 {
			imei := fmt.Sprintf("35693803%06d", k%1000000)
			imei += string('0' + luhnDigit(imei))
			lines = []pos.Line{line("SAMSUNG-A55", 1, 38999, 18, imei), line("CASE-A55", 1, 499, 18)}
		}
		if k%10 == 7 {
			c.buyer = &pos.Buyer{Name: fmt.Sprintf("Buyer %d", k), Phone: fmt.Sprintf("98450%05d", k%100000), Address: "14 Residency Road, Pune", State: "27"}
		}
		if k%3 == 0 {
			c.cashSale(id, day1, lines...)
		} else {
			c.cardSale(id, day1, fmt.Sprintf("%04d", k%10000), "9876543210", true, lines...)
		}
		if k%10 == 0 {
			c.refund(id, day1, pos.Rupees(499))
		}
	}
	return c.sent()
}
