package journal

import (
	"path/filepath"
	"testing"
	"time"

	"galla/pos"
)

// BenchmarkAppendSealed appends the state changes of card sales, in turn with
// a bare bbolt put+commit (the floor of BenchmarkAppend), through a journal
// keyed as the terminal's is: walk-in sales, whose events and orders are stored
// in clear, and sales to a named buyer, whose intent and order are sealed
// (seal.go). It reports x-floor and append-ns of each, so that the cost of
// sealing shows beside the floor: go test -run '^$' -bench AppendSealed
// -benchtime=600x ./pos/journal/
func BenchmarkAppendSealed(b *testing.B) {
	for _, c := range []struct {
		name  string
		buyer bool
	}{{"walk-in", false}, {"buyer", true}} {
		b.Run(c.name, func(b *testing.B) {
			j, err := Open(filepath.Join(b.TempDir(), "journal.db"), Options{ChainKey: testKey})
			if err != nil {
				b.Fatal(err)
			}
			b.Cleanup(func() { _ = j.Close() })
			d := openBare(b, "bare.db")
			ctx := b.Context()
			var (
				co             checkout
				appendT, bareT time.Duration
				n              int
			)
			buyer := sealBuyer
			next := func() pos.Event {
				ev := co.next()
				if c.buyer && ev.Intent != nil {
					ev.Intent.Buyer = &buyer
				}
				return ev
			}
			for b.Loop() {
				ev := next()
				steps := []func(){
					func() {
						t0 := time.Now()
						if _, err := j.Log.Append(ctx, ev); err != nil {
							b.Fatal(err)
						}
						appendT += time.Since(t0)
					},
					func() {
						t0 := time.Now()
						d.put(b)
						bareT += time.Since(t0)
					},
				}
				for k := range steps {
					steps[(n+k)%len(steps)]()
				}
				n++
			}
			b.ReportMetric(float64(appendT)/float64(bareT), "x-floor")
			b.ReportMetric(float64(appendT.Nanoseconds())/float64(n), "append-ns")
		})
	}
}

// BenchmarkSealRecord encodes a sale's intent as a keyed record of format 2,
// without a buyer (in clear) and with one (its body sealed), and decodes it
// again: the CPU that sealing adds to a commit, apart from the disk.
func BenchmarkSealRecord(b *testing.B) {
	for _, c := range []struct {
		name  string
		buyer bool
	}{{"walk-in", false}, {"buyer", true}} {
		b.Run(c.name, func(b *testing.B) {
			s := sealer{key: testKey, v: newVault(testKey)}
			var sc script
			ev := sc.intent("G-000000001", "2026-11-22", pos.TenderCard, 3999900)
			if c.buyer {
				buyer := sealBuyer
				ev.Intent.Buyer = &buyer
			}
			ev.Seq, ev.PrevHash = 1, "0000000000000000000000000000000000000000000000000000000000000000"
			for b.Loop() {
				data, _, err := s.seal(&ev)
				if err != nil {
					b.Fatal(err)
				}
				if _, err := s.decode(data); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
