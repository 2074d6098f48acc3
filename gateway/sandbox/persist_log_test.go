package sandbox

import (
	"bytes"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"galla/gateway"
	"galla/internal/testclock"
)

// live is sb's whole state as a compacted log.
func live(sb *Sandbox) []byte {
	sb.core.mu.Lock()
	defer sb.core.mu.Unlock()
	return sb.core.state.liveState(nil)
}

// dirNames lists the names in dir, sorted.
func dirNames(t *testing.T, dir string) []string {
	t.Helper()
	entries, err := os.ReadDir(dir)
	require.NoError(t, err)
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	sort.Strings(names)
	return names
}

// closeSandbox closes sb at the end of the test.
func closeSandbox(t *testing.T, sb *Sandbox) {
	t.Helper()
	t.Cleanup(func() { assert.NoError(t, sb.Close()) })
}

func TestStateLogReplaysToTheSameState(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "sandbox.json")
	f := setup(t, WithStateFile(path))
	closeSandbox(t, f.sb)
	// Every kind of change: paid after the OTP, frictionless, declined then paid,
	// pending at the issuer, an IMEI block, refunds, an unpaid order.
	tokA, idA := f.create(150000)
	pidA := f.pay(tokA, "4111111111111111")
	require.Equal(t, 303, f.acs(pidA, map[string][]string{"otp": {TestOTP}}).Code)
	tokB, _ := f.create(2000)
	f.pay(tokB, "5555555555554444")
	tokC, _ := f.create(3000)
	pidC := f.pay(tokC, "4000000000000002")
	require.Equal(t, 303, f.acs(pidC, map[string][]string{"otp": {TestOTP}}).Code)
	f.pay(tokC, "5555555555554444")
	tokD, _ := f.create(4000)
	pidD := f.pay(tokD, "4000000000000119")
	require.Equal(t, 303, f.acs(pidD, map[string][]string{"otp": {TestOTP}}).Code)
	tokE, _ := f.create(7999900, product{"SAMSUNG-S24", 7999900})
	code, _ := f.validateIMEI(tokE, imeiItemJSON{"SAMSUNG-S24", TestData().Brands[0].TestIMEI})
	require.Equal(t, 200, code)
	f.create(1000)
	cl := gatewayClient(t, f.sb, f.clock)
	_, err := cl.Refund(t.Context(), gateway.RefundRequest{UniqueTxnID: "RF-1", AmountInPaise: 100, ServiceOrderID: idA, PaymentID: pidA})
	require.NoError(t, err)
	_, err = cl.Refund(t.Context(), gateway.RefundRequest{UniqueTxnID: "RF-2", AmountInPaise: 200, ServiceOrderID: idA, PaymentID: pidA})
	require.NoError(t, err)

	require.NoError(t, f.sb.Close())
	g := reopen(t, path, f.clock, f.n)
	closeSandbox(t, g.sb)
	assert.Equal(t, string(live(f.sb)), string(live(g.sb)), "the replayed state")
	assert.Equal(t, []string{"sandbox.json"}, dirNames(t, dir), "the files after open and close")
}

func TestStateWriteIsOneLine(t *testing.T) {
	// A state change appends the lines of what it changed, whatever the number of
	// orders already kept: the proof that a save does not grow with the state.
	path := filepath.Join(t.TempDir(), "sandbox.json")
	f := setup(t, WithStateFile(path))
	closeSandbox(t, f.sb)
	for _, n := range []int{1, 10, 100} {
		for len(f.sb.core.seq) < n {
			f.create(1000)
		}
		before, err := os.ReadFile(path)
		require.NoError(t, err)
		tok, id := f.create(1000)
		after, err := os.ReadFile(path)
		require.NoError(t, err)
		require.True(t, bytes.HasPrefix(after, before), "the file is appended to")
		added := string(after[len(before):])
		assert.Equal(t, 1, strings.Count(added, "\n"), "one line with %d orders kept: %s", n, added)
		assert.Contains(t, added, `"service_order_id":"`+id+`"`)

		// A read that changes nothing writes nothing.
		f.inquire(id, "")
		unchanged, err := os.ReadFile(path)
		require.NoError(t, err)
		assert.Equal(t, len(after), len(unchanged), "an inquiry wrote to the state file")

		pid := f.pay(tok, "4111111111111111")
		paid, err := os.ReadFile(path)
		require.NoError(t, err)
		added = string(paid[len(after):])
		assert.Equal(t, 1, strings.Count(added, "\n"), "one line for the payment: %s", added)
		assert.Contains(t, added, `"payment_id":"`+pid+`"`)
	}
}

func TestStateTornLastLine(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "sandbox.json")
	f := setup(t, WithStateFile(path))
	tok, id := f.create(1000)
	f.pay(tok, "5555555555554444")
	want := live(f.sb)
	require.NoError(t, f.sb.Close())
	good, err := os.ReadFile(path)
	require.NoError(t, err)

	tests := []struct {
		name string
		tail string
	}{
		{"half a line", `{"order":{"merchant_id":"770001","service_order_id":"1000`},
		{"a whole record without its newline", `{"refund_id":"300000009"}`},
		{"zeros", "\x00\x00\x00\x00"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := filepath.Join(t.TempDir(), "sandbox.json")
			require.NoError(t, os.WriteFile(p, append(append([]byte(nil), good...), tt.tail...), 0o600))
			g := reopen(t, p, f.clock, f.n)
			closeSandbox(t, g.sb)
			assert.Equal(t, string(want), string(live(g.sb)), "the state without the cut-off line")
			b, err := os.ReadFile(p)
			require.NoError(t, err)
			assert.Equal(t, string(good), string(b), "the cut-off line is dropped from the file")

			// The next change follows a whole line, and the file reads back.
			g.create(2000)
			require.NoError(t, g.sb.Close())
			h := reopen(t, p, g.clock, g.n)
			closeSandbox(t, h.sb)
			assert.Equal(t, string(live(g.sb)), string(live(h.sb)))
			assert.Equal(t, orderCharged, h.ledger(id).Status)
		})
	}
}

func TestStateMigratesVersion1(t *testing.T) {
	// testdata/sandbox-v1.json was written by the sandbox before the log: five
	// orders (paid and partly refunded, IMEI blocked, frictionless, declined,
	// unpaid), with the salted card hashes it then kept.
	old, err := os.ReadFile(filepath.Join("testdata", "sandbox-v1.json"))
	require.NoError(t, err)
	require.Contains(t, string(old), "salted_card_hash")
	dir := t.TempDir()
	path := filepath.Join(dir, "sandbox.json")
	require.NoError(t, os.WriteFile(path, old, 0o600))

	c := testclock.New(start)
	f := reopen(t, path, c, 5)
	closeSandbox(t, f.sb)
	led := f.sb.Controls.Ledger()
	require.Len(t, led, 5)
	var statuses []string
	for _, o := range led {
		statuses = append(statuses, o.Status)
	}
	assert.Equal(t, []string{orderPartialRefunded, orderCreated, orderCharged, orderAttempted, orderCreated}, statuses)
	assert.Equal(t, "XXXXXXXXXXXX1111", f.inquire(led[0].ServiceOrderID, "").PaymentInfoData.MaskedCardNumber)

	b, err := os.ReadFile(path)
	require.NoError(t, err)
	assert.True(t, strings.HasPrefix(string(b), `{"v":3}`+"\n"), "rewritten as a log: %.40s", b)
	assert.NotContains(t, string(b), "salted_card_hash", "the old card hashes are gone from the disk")
	assert.Equal(t, string(live(f.sb)), string(b))
	assert.Equal(t, []string{"sandbox.json"}, dirNames(t, dir))

	// The used refund id stays used after the migration.
	cl := gatewayClient(t, f.sb, f.clock)
	_, err = cl.Refund(t.Context(), gateway.RefundRequest{UniqueTxnID: "RF-1", AmountInPaise: 100,
		ServiceOrderID: led[0].ServiceOrderID, PaymentID: led[0].Payments[0].PaymentID})
	assert.ErrorIs(t, err, gateway.ErrDuplicateRefund)
	require.NoError(t, f.sb.Close())
	g := reopen(t, path, c, 6)
	closeSandbox(t, g.sb)
	assert.Equal(t, string(live(f.sb)), string(live(g.sb)))
}

func TestStateCompaction(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "sandbox.json")
	f := setup(t, WithStateFile(path))
	// One order changed many times: each refund rewrites its line.
	tok, id := f.create(100000)
	pid := f.pay(tok, "5555555555554444")
	cl := gatewayClient(t, f.sb, f.clock)
	for i := range 20 {
		_, err := cl.Refund(t.Context(), gateway.RefundRequest{UniqueTxnID: "RF-" + string(rune('A'+i)), AmountInPaise: 100, ServiceOrderID: id, PaymentID: pid})
		require.NoError(t, err)
	}
	require.NoError(t, f.sb.Close())
	grown, err := os.ReadFile(path)
	require.NoError(t, err)
	want := live(f.sb)
	require.Greater(t, len(grown), 2*len(want), "the log holds the replaced lines")

	// Below the least garbage worth it, New leaves the log as it is.
	g, err := New(WithClock(f.clock.Now), WithStateFile(path))
	require.NoError(t, err)
	require.NoError(t, g.Close())
	b, err := os.ReadFile(path)
	require.NoError(t, err)
	assert.Equal(t, len(grown), len(b))

	h, err := New(WithClock(f.clock.Now), WithStateFile(path), withCompactMin(1), WithAllowedHosts("sandbox.test"))
	require.NoError(t, err)
	closeSandbox(t, h)
	b, err = os.ReadFile(path)
	require.NoError(t, err)
	assert.Equal(t, string(want), string(b), "compacted to the live state")
	assert.Equal(t, []string{"sandbox.json"}, dirNames(t, dir), "the files after compaction")
	st, err := os.Stat(path)
	require.NoError(t, err)
	assert.Equal(t, os.FileMode(0o600), st.Mode().Perm())

	// The compacted log takes appends and reads back.
	hf := &fix{t: t, sb: h, clock: f.clock, key: f.key, n: f.n}
	hf.create(2000)
	require.NoError(t, h.Close())
	k := reopen(t, path, f.clock, hf.n)
	closeSandbox(t, k.sb)
	assert.Equal(t, string(live(h)), string(live(k.sb)))
	assert.Equal(t, int64(2000), k.ledger(id).RefundedAmount)
}

func TestStateLeftoverTemporaryFileRemoved(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "sandbox.json")
	leftover := filepath.Join(dir, ".sandbox.json-123456.tmp") // a compaction cut short by a crash
	require.NoError(t, os.WriteFile(leftover, []byte(`{"v":2}`), 0o600))
	other := filepath.Join(dir, ".other.json-1.tmp")
	require.NoError(t, os.WriteFile(other, nil, 0o600))
	sb, err := New(WithStateFile(path))
	require.NoError(t, err)
	require.NoError(t, sb.Close())
	assert.Equal(t, []string{".other.json-1.tmp"}, dirNames(t, dir), "only the sandbox's own leftover is removed")
}

func TestStateFailedAppendIsRetried(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "sandbox.json")
	f := setup(t, WithStateFile(path))
	closeSandbox(t, f.sb)
	f.create(1000)
	require.NoError(t, f.sb.Close())

	// The state file is out of reach for one request.
	kept := filepath.Join(dir, "kept")
	require.NoError(t, os.Rename(path, kept))
	require.NoError(t, os.Mkdir(path, 0o700))
	w := f.createRaw(f.orderDoc(2000))
	assert.Equal(t, 500, w.Code)
	require.NoError(t, os.Remove(path))
	require.NoError(t, os.Rename(kept, path))

	// The next save writes the change the failed one could not.
	f.create(3000)
	require.NoError(t, f.sb.Close())
	g := reopen(t, path, f.clock, f.n)
	closeSandbox(t, g.sb)
	assert.Len(t, g.sb.Controls.Ledger(), 3)
	assert.Equal(t, string(live(f.sb)), string(live(g.sb)))
}
