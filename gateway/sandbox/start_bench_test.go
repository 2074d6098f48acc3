package sandbox

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// writeHistory writes at path a state log (format version 2, as the sandbox kept
// it before the archive) of n orders paid by card after the OTP step, the i-th
// created at created plus i seconds, as a sandbox that took them one by one and
// compacted would have. It fills the file directly: a shop's history without
// the time of n checkouts.
func writeHistory(path string, n int, created time.Time) error {
	b := []byte("{\"v\":2}\n")
	for i := range n {
		at := created.Add(time.Duration(i) * time.Second)
		so := stateOrder{MerchantID: DefaultMerchantID, ID: fmt.Sprint(100000001 + i),
			MerchantOrderID: fmt.Sprintf("HIST-%d", i), Token: fmt.Sprintf("SBX+HIST/%08d==", i),
			Created: at, Amount: 149900, Currency: "INR", Desc: "phone case", ReturnURL: "https://shop.example/return",
			CountryCode: "91", Mobile: "9876543210", Email: "a@b.in",
			Payments: []statePayment{{ID: fmt.Sprint(200000001 + i), Amount: 149900, Mode: paymentModeCard,
				Status: statusCaptured, Stage: stageDone, OutcomeKind: int(outcomeApprove), Captured: true,
				Last4: "1111", Holder: "Asha Rao", Issuer: "HDFC", Mobile: "9876543210", Created: at,
				Completed: at.Add(20 * time.Second), Code: 1, Message: msgSuccess,
				AuthCode: fmt.Sprintf("%06d", i%1000000), RRN: fmt.Sprintf("%012d", i)}}}
		b = append(b, line(stateRecord{Order: &so})...)
	}
	return os.WriteFile(path, b, 0o600)
}

// BenchmarkStateStart measures New (and Close) on a state file holding the
// history of 100 orders and on one holding 40 000, each written as a version 2
// log of orders paid two days before and opened once before the timing (the
// sandbox then archives them). One start of each per iteration, which goes
// first alternating; it reports each one's time (start-ns@100,
// start-ns@40000) and x-100, the second over the first: flat is 1.
func BenchmarkStateStart(b *testing.B) {
	dir := b.TempDir()
	now := time.Now()
	open := func(path string) time.Duration {
		t0 := time.Now()
		sb, err := New(WithStateFile(path), WithClock(func() time.Time { return now }))
		if err != nil {
			b.Fatal(err)
		}
		d := time.Since(t0)
		if err := sb.Close(); err != nil {
			b.Fatal(err)
		}
		return d
	}
	small, large := filepath.Join(dir, "small.json"), filepath.Join(dir, "large.json")
	for path, n := range map[string]int{small: 100, large: 40000} {
		if err := writeHistory(path, n, now.Add(-48*time.Hour)); err != nil {
			b.Fatal(err)
		}
		open(path)
	}
	var ts, tl time.Duration
	i := 0
	for b.Loop() {
		if i%2 == 0 {
			ts += open(small)
			tl += open(large)
		} else {
			tl += open(large)
			ts += open(small)
		}
		i++
	}
	b.ReportMetric(float64(ts)/float64(i), "start-ns@100")
	b.ReportMetric(float64(tl)/float64(i), "start-ns@40000")
	b.ReportMetric(float64(tl)/float64(ts), "x-100")
}
