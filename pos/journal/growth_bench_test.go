package journal

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	bolt "go.etcd.io/bbolt"

	"galla/pos"
)

// bulkJournal writes a journal of at least n events at path as busy days of
// 200 sales, each closed by its Z report (sealed as pos.Engine.Ledger.CloseDay seals
// it), without Append's one fsync'd commit per event: events are chained,
// derived and checkpointed by the journal's own code (derive, sealEvent,
// sealCheckpoint) in large transactions with NoSync. The file is a journal
// Open accepts as it is; it returns the number of events.
func bulkJournal(tb testing.TB, path string, n int) uint64 {
	tb.Helper()
	return bulkDays(tb, path, n, n)
}

// bulkJournalNoZ is bulkJournal's journal with no day closed: no Z report, so
// no checkpoint of the Z's.
func bulkJournalNoZ(tb testing.TB, path string, n int) uint64 {
	tb.Helper()
	return bulkDays(tb, path, n, 0)
}

// bulkDays writes bulkJournal's days; a day that starts at event openFrom or
// later is left without its Z report.
func bulkDays(tb testing.TB, path string, n, openFrom int) uint64 {
	tb.Helper()
	return bulkDaysAt(tb, path, n, openFrom, growth{})
}

// growth is how bulkDaysAt writes a journal: keyed with a chain key as the
// terminal keys its journal (nil: unkeyed, as the journal's tests), and from
// its first day (zero: 1 January 2026).
type growth struct {
	key   []byte
	first time.Time
}

// bulkDaysAt is bulkDays with the chain key and the first day of g. The
// journal at path may exist already, empty (as a terminal's first command
// leaves it).
func bulkDaysAt(tb testing.TB, path string, n, openFrom int, g growth) uint64 {
	tb.Helper()
	j, err := Open(path, Options{ChainKey: g.key})
	require.NoError(tb, err)
	require.NoError(tb, j.Close())
	db, err := bolt.Open(path, 0o600, &bolt.Options{NoSync: true, FreelistType: bolt.FreelistMapType})
	require.NoError(tb, err)
	defer db.Close()
	key := chainKey(Options{ChainKey: g.key})
	rec, pv := sealer{key: key, v: newVault(key)}, newProver(key)
	var (
		s    script
		seq  uint64
		prev [32]byte
		day  = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
		zno  uint64
	)
	if !g.first.IsZero() {
		day = g.first
	}
	require.NoError(tb, db.View(func(tx *bolt.Tx) error {
		h, p, ok := headIn(tx.Bucket(bucketEvents))
		if ok && h != 0 {
			return fmt.Errorf("the journal %s holds %d events already", path, h)
		}
		seq, prev = h, p
		return nil
	}))
	for int(seq) < n {
		zno++
		d := pos.ToDay(day)
		evs := s.busyDay(d, 200, zno)
		if int(seq) >= openFrom {
			evs, zno = evs[:len(evs)-1], zno-1 // no day.closed
		}
		err := db.Update(func(tx *bolt.Tx) error {
			events := tx.Bucket(bucketEvents)
			events.FillPercent = 1
			for _, ev := range evs {
				if ev.Kind == pos.EvDayClosed {
					report := pos.BuildReport(d, mustOrdersByDay(tx, d), ev.Time)
					report.Kind, report.ZNo = "Z", zno
					raw, err := pos.SealedReport(report)
					if err != nil {
						return err
					}
					ev.DayClose.Report = raw
				}
				seq++
				ev.V, ev.Seq, ev.PrevHash = pos.EventVersion, seq, hex.EncodeToString(prev[:])
				if err := derive(tx, &ev, nil, pv); err != nil {
					return err
				}
				data, sum, err := rec.seal(&ev)
				if err != nil {
					return err
				}
				if err := events.Put(u64(seq), data); err != nil {
					return err
				}
				if err := sealCheckpoint(tx, &ev, sum, key); err != nil {
					return err
				}
				prev = sum
			}
			return events.SetSequence(headMark(seq, prev))
		})
		require.NoError(tb, err)
		day = day.AddDate(0, 0, 1)
	}
	require.NoError(tb, db.Sync())
	if key != nil {
		// A keyed journal keeps its head record beside it (head.go), as Append
		// writes it.
		require.NoError(tb, os.WriteFile(HeadPath(path), headRecord(key, seq, prev), 0o600))
	}
	return seq
}

// mustOrdersByDay reads the orders of day inside tx, as OrdersByDay does.
func mustOrdersByDay(tx *bolt.Tx, day string) []*pos.Order {
	var out []*pos.Order
	orders := tx.Bucket(bucketOrders)
	prefix := dayPrefix(day)
	c := tx.Bucket(bucketDays).Cursor()
	for k, id := c.Seek(prefix); k != nil && len(k) > len(prefix) && string(k[:len(prefix)]) == string(prefix); k, id = c.Next() {
		var o pos.Order
		if err := json.Unmarshal(orders.Get(id), &o); err == nil {
			out = append(out, &o)
		}
	}
	return out
}

// openReady is start-up as the command line does it: Open (which verifies from
// the last checkpoint) and one read of the counters, then Close.
func openReady(tb testing.TB, path string) {
	j, err := Open(path, Options{Create: CreateNever})
	if err != nil {
		tb.Fatal(err)
	}
	if _, err := j.Numbers(); err != nil {
		tb.Fatal(err)
	}
	if err := j.Close(); err != nil {
		tb.Fatal(err)
	}
}

// bareOpen is the floor: bbolt.Open of the same file with the journal's options,
// one read transaction of the head (the last event), Close.
func bareOpen(tb testing.TB, path string) {
	db, err := bolt.Open(path, 0o600, boltOptions(Options{LockTimeout: time.Second}))
	if err != nil {
		tb.Fatal(err)
	}
	_ = db.View(func(tx *bolt.Tx) error { _, _, _ = headIn(tx.Bucket(bucketEvents)); return nil })
	if err := db.Close(); err != nil {
		tb.Fatal(err)
	}
}

// BenchmarkStartUp measures start-up on a journal of 500 thousand events
// (about eight months of a busy counter, generated once per run by bulkJournal
// in a temporary directory) against its floor, opening a bare bbolt file of the
// same size: bbolt.Open of the very same file and one read. Open and the floor
// run in turn inside one loop. It reports x-floor (Open and ready / bare open),
// x-empty (the same ratio on a new, empty journal: what Open costs anyway) and
// open-ns, floor-ns, events and file-MiB.
func BenchmarkStartUp(b *testing.B) {
	dir := b.TempDir()
	big := filepath.Join(dir, "big", "journal.db")
	n := bulkJournal(b, big, 500_000)
	empty := filepath.Join(dir, "empty", "journal.db")
	j, err := Open(empty, Options{})
	require.NoError(b, err)
	require.NoError(b, j.Close())
	size := fileSize(b, big)
	runtime.GC()
	var openT, floorT, emptyT, emptyFloorT time.Duration
	i := 0
	steps := []func(){
		func() { t := time.Now(); openReady(b, big); openT += time.Since(t) },
		func() { t := time.Now(); bareOpen(b, big); floorT += time.Since(t) },
		func() { t := time.Now(); openReady(b, empty); emptyT += time.Since(t) },
		func() { t := time.Now(); bareOpen(b, empty); emptyFloorT += time.Since(t) },
	}
	b.ResetTimer()
	for b.Loop() {
		for k := range steps {
			steps[(i+k)%len(steps)]()
		}
		i++
	}
	b.ReportMetric(float64(openT)/float64(floorT), "x-floor")
	b.ReportMetric(float64(emptyT)/float64(emptyFloorT), "x-empty")
	b.ReportMetric(float64(openT.Nanoseconds())/float64(i), "open-ns")
	b.ReportMetric(float64(floorT.Nanoseconds())/float64(i), "floor-ns")
	b.ReportMetric(float64(n), "events")
	b.ReportMetric(float64(size)/(1<<20), "file-MiB")
	b.ReportMetric(float64(size)/float64(n), "bytes/event")
}

// TestStartUpFromCheckpoint is BenchmarkStartUp's generator and subject at a
// small size: the bulk journal opens, its last checkpoint is the last Z report,
// start-up walks only the events after it, and VerifyFile passes.
func TestStartUpFromCheckpoint(t *testing.T) {
	path := filepath.Join(t.TempDir(), "journal.db")
	n := bulkJournal(t, path, 2_000)
	openReady(t, path)
	bareOpen(t, path)
	j, err := Open(path, Options{Create: CreateNever})
	require.NoError(t, err)
	cp, ok, err := j.Days.LastCheckpoint(t.Context())
	require.NoError(t, err)
	require.True(t, ok)
	assert.Equal(t, n, cp.Seq, "the generator ends each day with its Z report")
	require.NoError(t, j.Close())
	rep, err := VerifyFile(context.Background(), path)
	require.NoError(t, err)
	assert.Equal(t, n, rep.Events)
	assert.True(t, rep.Verified)
}

// zBudget and eventBudget are DESIGN.md section 7's journal size budgets.
const (
	zBudget     = 8 << 10
	eventBudget = 700
)

// TestJournalSize appends a realistic day (200 card, cash and EMI sales, some
// refunded, one card refused now and then) through Append, closes it with a Z
// report sealed as pos.Engine.Ledger.CloseDay seals it, and checks the sizes: the
// stored Z report within its budget, and the file's pages in use per event.
func TestJournalSize(t *testing.T) {
	j := openTest(t)
	var s script
	const day = "2026-11-21"
	evs := s.busyDay(day, 200, 1)
	ctx := t.Context()
	for _, ev := range evs {
		if ev.Kind == pos.EvDayClosed {
			orders, err := j.Orders.OrdersByDay(ctx, day)
			require.NoError(t, err)
			r := pos.BuildReport(day, orders, ev.Time)
			require.GreaterOrEqual(t, len(r.Orders), 200, "the rows the Z report is made from")
			r.Kind, r.ZNo = "Z", 1
			raw, err := pos.SealedReport(r)
			require.NoError(t, err)
			ev.DayClose.Report = raw
		}
		_, err := j.Log.Append(ctx, ev)
		require.NoError(t, err)
	}
	var zSize, inUse int
	require.NoError(t, j.core.db.View(func(tx *bolt.Tx) error {
		zSize = len(tx.Bucket(bucketZ).Get(u64(1)))
		free := j.core.db.Stats().FreePageN + j.core.db.Stats().PendingPageN
		inUse = int(tx.Size()) - free*j.core.db.Info().PageSize
		return nil
	}))
	perEvent := inUse / len(evs)
	t.Logf("%d events, %d bytes of pages in use, %d per event; Z report %d bytes", len(evs), inUse, perEvent, zSize)
	assert.LessOrEqual(t, zSize, zBudget, "stored Z report bytes")
	assert.LessOrEqual(t, perEvent, eventBudget, "bytes of the file per event")
}

// TestEventDictIsFrozen: records of format 2 inflate only with the dictionary
// they were compressed with, so eventDict never changes.
func TestEventDictIsFrozen(t *testing.T) {
	sum := sha256.Sum256([]byte(eventDict))
	assert.Equal(t, "01eb6e16e2de2bd1f0cb06f80a2313365567101071f745130e25bd760c3e339e", hex.EncodeToString(sum[:]), "eventDict changed: the records already written would no longer read")
}

// fileSize is the size of the file at path.
func fileSize(tb testing.TB, path string) int64 {
	tb.Helper()
	fi, err := os.Stat(path)
	require.NoError(tb, err)
	return fi.Size()
}
