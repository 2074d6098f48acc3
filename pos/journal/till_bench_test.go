package journal

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"galla/pos"
)

// The till's commands on a journal of a year's history against the same
// command on a fresh journal (issue 25 item 1): each is a whole command as the
// command line runs it, Open (verified from the last checkpoint), the engine
// and the till, the command, Close.

// tillCmd is one command of the counter, timed from Open to Close.
type tillCmd struct {
	name string
	// prepare runs untimed before each run (the shift open needs none open);
	// do is the command itself.
	prepare func(ctx context.Context, tl *pos.Till) error
	do      func(ctx context.Context, tl *pos.Till, n int) error
}

// imeiN is a valid IMEI of unit n, none of the generator's.
func imeiN(n int) string {
	body := fmt.Sprintf("86%012d", n)
	d, _ := pos.LuhnCheckDigit(body)
	return body + string(d)
}

func phoneLine() pos.CartLine {
	return pos.CartLine{Product: pos.Product{SKU: "PH-A15", Name: "Galaxy A15", HSN: "8517", Price: 15_999_00, GSTRate: pos.Percent(18),
		Serialised: true, ProductCode: "PH-A15"}, Qty: 1}
}

func cableLine() pos.CartLine {
	return pos.CartLine{Product: pos.Product{SKU: "CBL", Name: "Cable", HSN: "8544", Price: 499_00, GSTRate: pos.Percent(18)}, Qty: 1}
}

// paid refuses an outcome that is not paid.
func paid(out pos.PayOutcome, err error) error {
	if err != nil {
		return err
	}
	if out.State != pos.StatePaid {
		return fmt.Errorf("sale %s: %s", out.State, out.Reason)
	}
	return nil
}

var tillCmds = []tillCmd{
	{name: "phone", do: func(ctx context.Context, tl *pos.Till, n int) error {
		imei := imeiN(n)
		if err := tl.IMEIs.CheckIMEIFree(ctx, imei); err != nil { // the scan
			return err
		}
		return paid(tl.Checkout.Pay(ctx, pos.PayRequest{Lines: []pos.CartLine{phoneLine()}, Tender: pos.TenderCash, Cashier: "001",
			IMEIs: []pos.UnitIMEI{{ProductCode: "PH-A15", IMEI: imei}}}, nil))
	}},
	{name: "cash-shift", do: func(ctx context.Context, tl *pos.Till, _ int) error {
		return paid(tl.Checkout.Pay(ctx, pos.PayRequest{Lines: []pos.CartLine{cableLine()}, Tender: pos.TenderCash, Cashier: "001"}, nil))
	}},
	{name: "shift-open",
		prepare: func(ctx context.Context, tl *pos.Till) error {
			if s, err := tl.Drawer.CurrentShift(ctx); err != nil || s == nil {
				return err
			}
			_, err := tl.Drawer.CloseShift(ctx, "001", pos.CashCount{Paise: 1000_00})
			return err
		},
		do: func(ctx context.Context, tl *pos.Till, _ int) error {
			_, err := tl.Drawer.OpenShift(ctx, "001", 1000_00)
			return err
		}},
}

// tillRun opens the journal at path, the engine and a till, runs fn and closes
// the journal.
func tillRun(ctx context.Context, path string, fn func(tl *pos.Till) error) error {
	return tillRunCounting(ctx, path, nil, fn)
}

// reads is what a till read from the journal: the events from the log
// (EventsFrom, Event), the work that grew with the journal before
// snapshots; the bytes of the snapshots it loaded (a book of every IMEI ever
// sold grew with the journal after them); and the records of IMEIs.
type reads struct {
	events, snapBytes, imeis int
}

// countingPort counts a till's reads.
type countingPort struct {
	*Port
	read *reads
}

func (p countingPort) Event(ctx context.Context, seq uint64) (pos.Event, error) {
	p.read.events++
	return p.Port.Event(ctx, seq)
}

func (p countingPort) EventsFrom(ctx context.Context, from uint64, fn func(pos.Event) error) error {
	return p.Port.EventsFrom(ctx, from, func(ev pos.Event) error { p.read.events++; return fn(ev) })
}

func (p countingPort) Snapshot(ctx context.Context, name string) (pos.Snapshot, bool, error) {
	s, ok, err := p.Port.Snapshot(ctx, name)
	p.read.snapBytes += len(s.Data)
	return s, ok, err
}

func (p countingPort) IMEI(ctx context.Context, imei string) (pos.IMEIRecord, error) {
	p.read.imeis++
	return p.Port.IMEI(ctx, imei)
}

// tillRunCounting is tillRun that adds to *read, when read is not nil, what
// the till read.
func tillRunCounting(ctx context.Context, path string, read *reads, fn func(tl *pos.Till) error) error {
	j, err := Open(path, Options{Create: CreateNever})
	if err != nil {
		return err
	}
	defer j.Close()
	var port pos.Journal = j.Port()
	if os.Getenv("GALLA_BENCH_NO_SNAPSHOTS") != "" {
		port = noSnapshots{j.Port()} // the book read from the first event, as before snapshots
	} else if read != nil {
		port = countingPort{j.Port(), read}
	}
	e, err := pos.New(pos.Config{Journal: port})
	if err != nil {
		return err
	}
	tl, err := pos.NewTill(ctx, pos.TillConfig{Engine: e})
	if err != nil {
		return err
	}
	return fn(tl)
}

// keepShifts opens a shift at the journal at path (from then on cash needs
// one) and scans an IMEI: the first command of each kind on a journal without
// snapshots reads every event once and seals them (the upgrade), which the
// commands timed after do not pay again.
func keepShifts(tb testing.TB, path string) {
	tb.Helper()
	require.NoError(tb, tillRun(tb.Context(), path, func(tl *pos.Till) error {
		if _, err := tl.Drawer.OpenShift(tb.Context(), "001", 1000_00); err != nil {
			return err
		}
		return tl.IMEIs.CheckIMEIFree(tb.Context(), imeiN(0))
	}))
}

// pastClock is the till's time in the days before now: it moves on ten
// seconds at each reading.
type pastClock struct{ at time.Time }

func (c *pastClock) Now() time.Time { c.at = c.at.Add(10 * time.Second); return c.at }

func (c *pastClock) Sleep(ctx context.Context, _ time.Duration) error { return ctx.Err() }

// holdShifts holds n shifts at the journal at path in the two days before
// now, as a counter holds two or three a day (some 700 in a year): each
// opened with a float, a drop taken to the safe, and closed with the cash
// counted.
func holdShifts(tb testing.TB, path string, n int) {
	tb.Helper()
	ctx := tb.Context()
	j, err := Open(path, Options{Create: CreateNever})
	require.NoError(tb, err)
	defer j.Close()
	e, err := pos.New(pos.Config{Journal: j.Port(), Clock: &pastClock{at: time.Now().Add(-48 * time.Hour)}})
	require.NoError(tb, err)
	tl, err := pos.NewTill(ctx, pos.TillConfig{Engine: e})
	require.NoError(tb, err)
	for range n {
		_, err := tl.Drawer.OpenShift(ctx, "001", 1000_00)
		require.NoError(tb, err)
		_, err = tl.Drawer.MoveCash(ctx, "001", pos.CashDrop, 500_00, "safe drop")
		require.NoError(tb, err)
		_, err = tl.Drawer.CloseShift(ctx, "001", pos.CashCount{Pieces: map[int]int{500: 1}})
		require.NoError(tb, err)
	}
}

// tillJournals makes the two journals of a run: bulkJournal's at least n
// events, the last of them (from event n - open on) in days never closed (no
// Z report, so no checkpoint of the Z's), with shifts closed shifts held
// before now, and a fresh one, each with a shift open.
func tillJournals(tb testing.TB, n, open, shifts int) (big, fresh string, events uint64) {
	tb.Helper()
	big, fresh = filepath.Join(tb.TempDir(), "journal.db"), filepath.Join(tb.TempDir(), "journal.db")
	events = bulkDays(tb, big, n, n-open)
	j, err := Open(fresh, Options{})
	require.NoError(tb, err)
	require.NoError(tb, j.Close())
	holdShifts(tb, big, shifts)
	keepShifts(tb, big)
	keepShifts(tb, fresh)
	return big, fresh, events
}

// benchTill runs each command on the big and the fresh journal in turn (which
// goes first alternating) as long as loop says, and returns, per command, the
// median over the turns of the big journal's run over the fresh journal's run
// of the same turn: the two runs of a turn are adjacent, so that the load of
// a shared machine weighs on both alike. (The fastest run on the big journal
// over the fastest on the fresh one, what it returned before, spread from
// 0.90 to 3.12 for one command in five runs of 30 at a quiet moment, where
// the paired median stayed within 1.03–1.22: the fastest of some thirty runs
// with fsyncs is one lucky fsync; docs/benchmarks.md "The till on a grown
// journal".) report, when not nil, is given x-fresh-NAME, fastest-NAME (the
// ratio of the fastest runs, for comparison) and NAME-ms (the big journal's
// mean). unit numbers the phones sold, across calls.
func benchTill(tb testing.TB, loop func() bool, report func(v float64, unit string), big, fresh string, unit *int) (map[string]float64, int) {
	return benchCmds(tb, tillCmds, "x-fresh-", loop, report, big, fresh, unit)
}

// benchCmds is benchTill of the commands cmds, with the paired medians
// reported as label+NAME: big against base.
func benchCmds(tb testing.TB, cmds []tillCmd, label string, loop func() bool, report func(v float64, unit string), big, fresh string, unit *int) (map[string]float64, int) {
	ctx := context.Background()
	fastest := map[string][2]time.Duration{}
	pairs := map[string][]float64{} // each turn's big run over its fresh run
	bigMS := map[string]float64{}
	runs := 0
	for i := 0; loop(); i++ {
		for _, c := range cmds {
			f := fastest[c.name]
			var turn [2]time.Duration
			for k := range 2 {
				which := (i + k) % 2 // 0 big, 1 fresh
				path := []string{big, fresh}[which]
				if c.prepare != nil {
					if err := tillRun(ctx, path, func(tl *pos.Till) error { return c.prepare(ctx, tl) }); err != nil {
						tb.Fatalf("%s: %v", c.name, err)
					}
				}
				*unit++
				n := *unit
				start := time.Now()
				err := tillRun(ctx, path, func(tl *pos.Till) error { return c.do(ctx, tl, n) })
				took := time.Since(start)
				if err != nil {
					tb.Fatalf("%s: %v", c.name, err)
				}
				turn[which] = took
				if f[which] == 0 || took < f[which] {
					f[which] = took
				}
				if which == 0 {
					bigMS[c.name] += float64(took) / 1e6
				}
			}
			fastest[c.name] = f
			pairs[c.name] = append(pairs[c.name], float64(turn[0])/float64(turn[1]))
		}
		runs = i + 1
	}
	out := map[string]float64{}
	for _, c := range cmds {
		f := fastest[c.name]
		if f[1] == 0 {
			continue
		}
		out[c.name] = median(pairs[c.name])
		if report != nil {
			report(out[c.name], label+c.name)
			report(float64(f[0])/float64(f[1]), "fastest-"+c.name)
			report(bigMS[c.name]/float64(runs), c.name+"-ms")
		}
	}
	return out, runs
}

// BenchmarkTillGrowth runs a phone sale with its IMEI (the scan and the cash
// sale), a cash sale with a shift open, and a shift open, each a whole command
// on a journal of 200 thousand events (about 190 busy days by bulkJournal,
// the last 20 thousand events, about 19 days, never closed by a Z report,
// and 700 closed shifts, a year of a counter's) and on a fresh one in turn; budget x-fresh ≤ 1.3 for each, judged from 10 runs
// on. GALLA_BENCH_NO_SNAPSHOTS=1 hides the journal's snapshots from the till,
// which then reads every event as before them.
func BenchmarkTillGrowth(b *testing.B) {
	big, fresh, events := tillJournals(b, 200_000, 20_000, 700)
	b.ReportMetric(float64(events), "events")
	unit := 0
	got, runs := benchTill(b, b.Loop, b.ReportMetric, big, fresh, &unit)
	b.Logf("%d events, %d runs: x-fresh %v", events, runs, got)
	for name, x := range got {
		if runs >= 10 && x > 1.3 {
			b.Errorf("%s on %d events took %.2f× the same command on a fresh journal; budget 1.3×", name, events, x)
		}
	}
}

// BenchmarkIMEIGrowth runs the phone sale with its IMEI (the scan and the
// cash sale), a whole command, on a journal of 200 thousand events (about
// 4 300 phones sold, each its own IMEI; GALLA_BENCH_EVENTS sets another size,
// 1000000 the million) and on one of 10 thousand (about 210 phones) in
// turn; budget x-10k ≤ 1.3, judged from 10 runs on. The phone's check reads
// the record of its IMEI (schema 6), so the two journals differ in their
// size, not in what the check reads.
func BenchmarkIMEIGrowth(b *testing.B) {
	n := 200_000
	if v, err := strconv.Atoi(os.Getenv("GALLA_BENCH_EVENTS")); err == nil && v > 10_000 {
		n = v
	}
	big, _, events := tillJournals(b, n, n/10, 0)
	small, _, _ := tillJournals(b, 10_000, 3_000, 0) // as TestTillGrowth: both Opens start at a verified mark
	b.ReportMetric(float64(events), "events")
	unit := 0
	got, runs := benchCmds(b, tillCmds[:1], "x-10k-", b.Loop, b.ReportMetric, big, small, &unit)
	b.Logf("%d events against 10 thousand, %d runs: %v", events, runs, got)
	if x := got["phone"]; runs >= 10 && x > 1.3 {
		b.Errorf("phone on %d events took %.2f× the same command on 10 thousand; budget 1.3×", events, x)
	}
}

// TestTillGrowth is the short BenchmarkTillGrowth of make test, judged by a
// count rather than by time (make test shares the machine): on a journal of 10
// thousand events (the last 3 thousand in days never closed) and 100 closed
// shifts each command's till reads from the log no more events than the same
// command on a fresh journal (one shift), give or take the few the commands
// before it appended, no more bytes of snapshots, give or take those few, and
// the same records of IMEIs. Reading the book from the first event, what made
// a phone sale 34–227× slower at 20 thousand events, reads thousands of
// events; a snapshot of every IMEI ever sold, what made it 1.5× slower at 200
// thousand, reads a record of every phone (about 24 bytes each); a book that
// keeps every shift ever held reads some 380 bytes of each (38 KB here).
func TestTillGrowth(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a journal of 10 thousand events")
	}
	big, fresh, events := tillJournals(t, 10_000, 3_000, 100)
	ctx := t.Context()
	const (
		runs      = 3
		slack     = 20   // events appended since the till last sealed its book
		snapSlack = 2048 // bytes of the orders of those events in the book's snapshot
	)
	unit := 0
	for i := range runs {
		for _, c := range tillCmds {
			var read [2]reads
			for which, path := range []string{big, fresh} {
				if c.prepare != nil {
					require.NoError(t, tillRun(ctx, path, func(tl *pos.Till) error { return c.prepare(ctx, tl) }), c.name)
				}
				unit++
				n := unit
				require.NoError(t, tillRunCounting(ctx, path, &read[which], func(tl *pos.Till) error { return c.do(ctx, tl, n) }), c.name)
			}
			t.Logf("run %d, %s: read %+v on %d events, %+v on a fresh journal", i, c.name, read[0], events, read[1])
			assert.LessOrEqual(t, read[0].events, read[1].events+slack, "%s: events the till read on a journal of %d events / on a fresh one", c.name, events)
			assert.LessOrEqual(t, read[0].snapBytes, read[1].snapBytes+snapSlack, "%s: bytes of snapshots the till read on a journal of %d events / on a fresh one", c.name, events)
			assert.Equal(t, read[1].imeis, read[0].imeis, "%s: records of IMEIs the till read on a journal of %d events / on a fresh one", c.name, events)
		}
	}
}

// BenchmarkShiftOfSales runs cash sales one after another in one shift, each
// a whole command as the command line runs it (Open, the till, the sale,
// Close), on a journal that starts fresh: what a counter selling by the
// command line waits for at each sale as the shift goes on. Each command
// replays the events since the till's snapshots and checks those since the
// journal's verified mark, fewer than pos.SnapshotEvents and markEvery; it
// reports the mean, the median, the 90th percentile and the slowest command,
// in milliseconds. It judges nothing: the time of a command is mostly its
// commits' fsyncs, which depend on the disk (docs/benchmarks.md "Commands in
// a long shift" gives the figures at 2 000 events and at 128).
func BenchmarkShiftOfSales(b *testing.B) {
	ctx := context.Background()
	path := filepath.Join(b.TempDir(), "journal.db")
	j, err := Open(path, Options{})
	require.NoError(b, err)
	require.NoError(b, j.Close())
	keepShifts(b, path)
	var took []time.Duration
	for b.Loop() {
		t0 := time.Now()
		err := tillRun(ctx, path, func(tl *pos.Till) error {
			return paid(tl.Checkout.Pay(ctx, pos.PayRequest{Lines: []pos.CartLine{cableLine()}, Tender: pos.TenderCash, Cashier: "001"}, nil))
		})
		require.NoError(b, err)
		took = append(took, time.Since(t0))
	}
	slices.Sort(took)
	var sum time.Duration
	for _, d := range took {
		sum += d
	}
	ms := func(d time.Duration) float64 { return float64(d) / 1e6 }
	b.ReportMetric(ms(sum)/float64(len(took)), "mean-ms")
	b.ReportMetric(ms(took[len(took)/2]), "median-ms")
	b.ReportMetric(ms(took[len(took)*9/10]), "p90-ms")
	b.ReportMetric(ms(took[len(took)-1]), "max-ms")
}

// median is the middle of v (the upper one of an even count).
func median(v []float64) float64 {
	p := slices.Clone(v)
	slices.Sort(p)
	return p[len(p)/2]
}
