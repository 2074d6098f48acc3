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
	// judgeBatches is the fewest turns (two batches each) whose ratios
	// BenchmarkIngest judges.
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
// events/s into one PostgreSQL, at most 1.5× a bare COPY of the same rows)
// and a batch stored and projected as the server does it (issue 25). Each
// iteration makes two batches of up to api.MaxBatch events of a counter's
// day of sales (card sales with their order, attempt and payment, cash sales,
// a phone with its IMEI now and then, a refund in ten sales; about 600 bytes
// of JSON an event) and, for each, a bare COPY of the same rows into a table
// like events (its columns, checks, primary key and index) in a transaction
// of its own: the floor. Beside its floor (which goes first alternates):
//
//   - the first batch is ingested alone, timed (DB.Events.Ingest: checks, the
//     terminal's row lock, COPY, the bodies' fields checked against the
//     envelope, the chain's end), then projected after it (ProjectBatch), as
//     the server did before the projection went alongside the ingest;
//   - the second is stored and projected as the server does it, timed
//     (Events.IngestAndProject).
//
// It reports x-floor (ingest / floor), ingest-eps, copy-eps, x-serial (the
// first batch's ingest + projection / floor), sync-eps (events stored and
// projected per second, what a store answers at) and x-sync (the second
// batch's IngestAndProject / floor, the median turn; x-sync-sum over the
// sums). It fails when x-floor is above 1.5, when x-sync is above goalSync
// (3.2), or when ingest-eps is under 20 000 while copy-eps is at least
// 30 000, over at least 20 turns (-benchtime=20x).
func BenchmarkIngest(b *testing.B) {
	db := newDB(b)
	enrolled(b, db, "T1")
	ctx := context.Background()
	// The same columns, checks, primary key and index as events.
	if _, err := db.Pool().Exec(ctx, `CREATE TABLE events_floor (LIKE events INCLUDING ALL)`); err != nil {
		b.Fatal(err)
	}
	c := newCounter(b, "T1")
	var tIngest, tSerial, tSync, tCopyA, tCopyB time.Duration
	var ratios, serials, syncs []float64 // of each turn: ingest / floor, ingest + project / floor, IngestAndProject / floor
	nA, nB, bytes, turns := 0, 0, 0, 0
	var lastSeq uint64 // the last event sent
	// batch makes the next batch and the floor's rows of it.
	batch := func() ([]api.Event, [][]any) {
		evs := daySales(c, api.MaxBatch)
		rows := make([][]any, len(evs))
		for k, e := range evs {
			h, _ := hex.DecodeString(e.Hash)
			p, _ := hex.DecodeString(e.PrevHash)
			rows[k] = []any{"T1", int64(e.Seq), h, p, e.Kind, time.Date(2026, 11, 24, 0, 0, 0, 0, time.UTC), []byte(e.Body)}
			bytes += len(e.Body)
		}
		return evs, rows
	}
	floor := func(rows [][]any) time.Duration {
		t0 := time.Now()
		err := pgx.BeginFunc(ctx, db.Pool(), func(tx pgx.Tx) error {
			_, err := tx.CopyFrom(ctx, pgx.Identifier{"events_floor"}, []string{"terminal_id", "seq", "hash", "prev_hash", "kind", "day", "body"}, pgx.CopyFromRows(rows))
			return err
		})
		if err != nil {
			b.Fatal(err)
		}
		return time.Since(t0)
	}
	for i := 0; b.Loop(); i++ {
		b.StopTimer()
		evsA, rowsA := batch()
		evsB, rowsB := batch()
		b.StartTimer()
		var ingest, project, sync, copyA, copyB time.Duration
		serial := func() {
			t0 := time.Now()
			resp, err := db.Events.Ingest(ctx, "T1", evsA)
			if err != nil || resp.Stored != len(evsA) {
				b.Fatalf("ingest: %v %+v", err, resp)
			}
			t1 := time.Now()
			if err := db.Projections.ProjectBatch(ctx, "T1", evsA); err != nil {
				b.Fatalf("project: %v", err)
			}
			ingest, project = t1.Sub(t0), time.Since(t1)
		}
		alongside := func() {
			t0 := time.Now()
			resp, perr, err := db.Events.IngestAndProject(ctx, "T1", evsB)
			if err != nil || perr != nil || resp.Stored != len(evsB) {
				b.Fatalf("ingest and project: %v %v %+v", err, perr, resp)
			}
			sync = time.Since(t0)
		}
		if i%2 == 0 {
			serial()
			copyA = floor(rowsA)
			alongside()
			copyB = floor(rowsB)
		} else {
			copyA = floor(rowsA)
			serial()
			copyB = floor(rowsB)
			alongside()
		}
		tIngest, tSerial, tSync, tCopyA, tCopyB = tIngest+ingest, tSerial+ingest+project, tSync+sync, tCopyA+copyA, tCopyB+copyB
		ratios = append(ratios, float64(ingest)/float64(copyA))
		serials = append(serials, float64(ingest+project)/float64(copyA))
		syncs = append(syncs, float64(sync)/float64(copyB))
		nA += len(evsA)
		nB += len(evsB)
		lastSeq = evsB[len(evsB)-1].Seq
		turns++
	}
	b.StopTimer()
	// The median turn: a stall of the shared machine slows one leg of a turn,
	// not the median.
	slices.Sort(ratios)
	slices.Sort(serials)
	slices.Sort(syncs)
	xFloor, xSerial, xSync := ratios[len(ratios)/2], serials[len(serials)/2], syncs[len(syncs)/2]
	ingestEPS := float64(nA) / tIngest.Seconds()
	copyEPS := float64(nA+nB) / (tCopyA + tCopyB).Seconds()
	b.ReportMetric(xFloor, "x-floor")
	b.ReportMetric(float64(tIngest)/float64(tCopyA), "x-floor-sum")
	b.ReportMetric(ingestEPS, "ingest-eps")
	b.ReportMetric(copyEPS, "copy-eps")
	b.ReportMetric(xSerial, "x-serial")
	b.ReportMetric(float64(nB)/tSync.Seconds(), "sync-eps")
	b.ReportMetric(xSync, "x-sync")
	b.ReportMetric(float64(tSync)/float64(tCopyB), "x-sync-sum")
	b.ReportMetric(float64(bytes)/float64(nA+nB), "body-bytes")
	// What the projections hold is checked by the store's tests; here only
	// that they kept up: every batch projected, a sale in each at least.
	var orders, mark int64
	if err := db.Pool().QueryRow(ctx, "SELECT count(*) FROM orders WHERE terminal_id = 'T1' AND state = 'PAID'").Scan(&orders); err != nil || orders < int64(2*turns) {
		b.Fatalf("the projections hold %d paid orders after %d batches (%v)", orders, 2*turns, err)
	}
	if err := db.Pool().QueryRow(ctx, "SELECT seq FROM projection_marks WHERE terminal_id = 'T1'").Scan(&mark); err != nil || mark != int64(lastSeq) {
		b.Fatalf("the projections' mark is at %d after %d batches (%v)", mark, 2*turns, err)
	}
	if turns < judgeBatches {
		return
	}
	if xFloor > goalFloor {
		b.Fatalf("the ingest took %.2f× a bare COPY of the same rows over %d batches; the goal is at most %.1f×", xFloor, turns, goalFloor)
	}
	if xSync > goalSync {
		b.Fatalf("a batch stored and projected took %.2f× a bare COPY of the same rows over %d batches (%.0f events/s, COPY %.0f); the goal is at most %.1f×",
			xSync, turns, float64(nB)/tSync.Seconds(), copyEPS, goalSync)
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
