package sandbox

import (
	"encoding/json"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"galla/gateway"
	"galla/internal/testclock"
)

func TestStateStartReadsNoHistory(t *testing.T) {
	// A sandbox that has kept 10 000 orders starts reading what one that has kept
	// 100 reads: the log of the recent and unfinished orders and the list of the
	// archive, never the archive.
	now := start.Add(48 * time.Hour)
	clock := func() time.Time { return now }
	read, logSize := map[int]int64{}, map[int]int64{}
	for _, n := range []int{100, 10000} {
		path := filepath.Join(t.TempDir(), "sandbox.json")
		require.NoError(t, writeHistory(path, n, start))
		sb, err := New(WithStateFile(path), WithClock(clock)) // the one start that archives
		require.NoError(t, err)
		require.NoError(t, sb.Close())

		sb, err = New(WithStateFile(path), WithClock(clock), WithAllowedHosts("sandbox.test"))
		require.NoError(t, err)
		read[n] = sb.core.state.bytesRead.Load()
		st, err := os.Stat(path)
		require.NoError(t, err)
		logSize[n] = st.Size()

		// Every order is still there: the first, the last, and all in the ledger.
		f := &fix{t: t, sb: sb, clock: testclock.New(now), key: mustKey(t)}
		for _, id := range []string{"100000001", fmt.Sprint(100000000 + n)} {
			d := f.inquire(id, "")
			assert.Equal(t, orderCharged, d.OrderData.OrderStatus, "order %s with %d kept", id, n)
		}
		assert.Len(t, sb.Controls.Ledger(), n)
		require.NoError(t, sb.Close())
	}
	assert.Greater(t, read[100], int64(0))
	assert.LessOrEqual(t, read[10000], read[100]+512, "bytes read by New: %d with 10 000 orders kept, %d with 100", read[10000], read[100])
	assert.LessOrEqual(t, logSize[10000], logSize[100]+512, "the log New replays: %d bytes with 10 000 orders kept, %d with 100", logSize[10000], logSize[100])
}

func mustKey(t *testing.T) []byte {
	t.Helper()
	key, err := gateway.DecodeSecret(DefaultSecret)
	require.NoError(t, err)
	return key
}

// history is what historyState made: the orders' ids, tokens and payments.
type history struct {
	paid, partly, imei, declinedThenPaid, unpaid, openOTP, failed, pending, hostedUPI string // service order ids
	tok                                                                               map[string]string
	pid                                                                               map[string]string // the order's last payment
	imeiNo                                                                            string
}

// historyState makes, at start, one order of every kind an archive must answer
// for, and returns the fixture and what it made. The state file is at path.
func historyState(t *testing.T, path string) (*fix, history) {
	t.Helper()
	f := setup(t, WithStateFile(path))
	h := history{tok: map[string]string{}, pid: map[string]string{}, imeiNo: TestData().Brands[0].TestIMEI}
	mk := func(amount int64, products ...product) string {
		tok, id := f.create(amount, products...)
		h.tok[id] = tok
		return id
	}
	otp := func(pid string) { require.Equal(t, 303, f.acs(pid, url.Values{"otp": {TestOTP}}).Code) }

	h.paid = mk(150000)
	h.pid[h.paid] = f.pay(h.tok[h.paid], "4111111111111111")
	otp(h.pid[h.paid])
	h.partly = mk(300000)
	h.pid[h.partly] = f.pay(h.tok[h.partly], "5555555555554444")
	w := f.refundRaw(map[string]any{"unique_txn_id": "RF-1", "amount_in_paise": 1000, "merchant_id": 770001,
		"order_id": atoi(h.partly), "payment_id": atoi(h.pid[h.partly])}, defaultAuth)
	require.Equal(t, 200, w.Code, w.Body.String())
	h.imei = mk(7999900, product{"SAMSUNG-S24", 7999900})
	code, _ := f.validateIMEI(h.tok[h.imei], imeiItemJSON{"SAMSUNG-S24", h.imeiNo})
	require.Equal(t, 200, code)
	h.pid[h.imei] = f.pay(h.tok[h.imei], "5555555555554444")
	h.declinedThenPaid = mk(3000)
	otp(f.pay(h.tok[h.declinedThenPaid], "4000000000000002"))
	h.pid[h.declinedThenPaid] = f.pay(h.tok[h.declinedThenPaid], "5555555555554444")
	h.unpaid = mk(1000)
	h.openOTP = mk(2000)
	h.pid[h.openOTP] = f.pay(h.tok[h.openOTP], "4111111111111111")
	h.failed = mk(4000)
	for range MaxAttempts {
		h.pid[h.failed] = f.pay(h.tok[h.failed], "4000000000000002")
		otp(h.pid[h.failed])
	}
	h.pending = mk(5000)
	h.pid[h.pending] = f.pay(h.tok[h.pending], "4000000000000119")
	otp(h.pid[h.pending])
	h.hostedUPI = mk(6000)
	raw, err := url.QueryUnescape(h.tok[h.hostedUPI])
	require.NoError(t, err)
	code, m := f.hosted("pay", map[string]any{"orderToken": raw, "mode": "UPI"})
	require.Equal(t, 200, code, m)
	h.pid[h.hostedUPI] = fmt.Sprint(m["payment_id"])
	require.NoError(t, f.sb.Close())
	return f, h
}

// answers makes the same requests of f, naming every order of h, and returns
// each answer (status and body; status only for the HTML pages, whose nonce
// differs). Some change the state: a refund of an old order, a new order paid.
func answers(f *fix, h history) []string {
	t := f.t
	t.Helper()
	var out []string
	add := func(what string, code int, body string) {
		out = append(out, fmt.Sprintf("%s: %d %s", what, code, body))
	}
	all := []string{h.paid, h.partly, h.imei, h.declinedThenPaid, h.unpaid, h.openOTP, h.failed, h.pending, h.hostedUPI}
	for _, id := range all {
		w := f.do("GET", "/api/v1/inquiry/order/"+id, nil, map[string]string{"Authorization": defaultAuth})
		add("inquiry "+id, w.Code, w.Body.String()+" "+w.Header().Get("x-verify"))
		if pid := h.pid[id]; pid != "" {
			w = f.do("GET", "/api/v1/inquiry/order/"+id+"/payment/"+pid, nil, map[string]string{"Authorization": defaultAuth})
			add("payment inquiry "+pid, w.Code, w.Body.String())
			w = f.do("GET", "/acs/"+pid, nil, nil)
			add("acs page "+pid, w.Code, "")
		}
		w = f.payRaw(h.tok[id], card("5555555555554444"))
		add("pay again "+id, w.Code, w.Body.String())
	}
	raw, _ := url.QueryUnescape(h.tok[h.hostedUPI])
	code, m := f.hosted("status", map[string]any{"orderToken": raw, "payment_id": h.pid[h.hostedUPI]})
	add("hosted status", code, fmt.Sprint(m))
	w := f.do("GET", "/checkout/v1/pay?orderToken="+h.tok[h.paid], nil, nil)
	add("hosted page of a paid order", w.Code, "")

	// The idempotency signals, for old orders and refunds.
	doc := f.orderDoc(1000)
	doc["merchant_data"].(map[string]any)["merchant_order_id"] = "ORDER-1"
	w = f.createRaw(doc)
	add("duplicate merchant order id", w.Code, w.Body.String())
	refund := func(txn string, id string, amount int64) {
		w := f.refundRaw(map[string]any{"unique_txn_id": txn, "amount_in_paise": amount, "merchant_id": 770001,
			"order_id": atoi(id), "payment_id": atoi(h.pid[id])}, defaultAuth)
		add("refund "+txn, w.Code, w.Body.String())
	}
	refund("RF-1", h.paid, 100)    // used before
	refund("RF-2", h.paid, 100)    // a refund of an old paid order, with a fresh refund id
	refund("RF-3", h.paid, 149900) // the rest: REFUNDED
	refund("RF-5", h.paid, 100)    // more than is left

	// The IMEI the old order blocks stays blocked until its full refund.
	tok, id := f.create(7999900, product{"SAMSUNG-S24", 7999900})
	add("new order", 200, id+" "+tok)
	code, r := f.validateIMEI(tok, imeiItemJSON{"SAMSUNG-S24", h.imeiNo})
	add("IMEI of the old order", code, fmt.Sprint(r))
	refund("RF-4", h.imei, 7999900)
	code, r = f.validateIMEI(tok, imeiItemJSON{"SAMSUNG-S24", h.imeiNo})
	add("IMEI after the full refund", code, fmt.Sprint(r))
	pid := f.pay(tok, "5555555555554444") // a fresh payment id, none of the old ones
	add("new payment", 200, pid)
	w = f.do("GET", "/api/v1/inquiry/order/"+id, nil, map[string]string{"Authorization": defaultAuth})
	add("inquiry of the new order", w.Code, w.Body.String())

	led, err := json.Marshal(f.sb.Controls.Ledger())
	require.NoError(t, err)
	add("ledger", 0, string(led))
	return out
}

// segments lists the archive files beside path.
func segments(t *testing.T, path string) []string {
	t.Helper()
	var out []string
	for _, n := range dirNames(t, filepath.Dir(path)) {
		if generation(path, n) >= 0 {
			out = append(out, n)
		}
	}
	return out
}

func copyFile(t *testing.T, from, to string) {
	t.Helper()
	b, err := os.ReadFile(from)
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(to, b, 0o600))
}

func TestStateArchiveAnswersAsBefore(t *testing.T) {
	// The same state two days later, once kept whole in the log and once with its
	// old orders archived: every request answers the same, byte for byte.
	dir := t.TempDir()
	path := filepath.Join(dir, "sandbox.json")
	f, h := historyState(t, path)
	f.clock.Advance(48 * time.Hour)
	logged, archived := filepath.Join(t.TempDir(), "sandbox.json"), filepath.Join(t.TempDir(), "sandbox.json")
	copyFile(t, path, logged)
	copyFile(t, path, archived)

	open := func(path string, compactMin int64) *fix {
		sb, err := New(WithClock(f.clock.Now), WithIDs(Sequential()), WithStateFile(path), WithAllowedHosts("sandbox.test"),
			withCompactMin(compactMin))
		require.NoError(t, err)
		closeSandbox(t, sb)
		return &fix{t: t, sb: sb, clock: f.clock, key: f.key, n: f.n}
	}
	ref := open(logged, 1<<40)
	require.Empty(t, segments(t, logged), "the reference keeps everything in its log")
	arc := open(archived, 1)
	require.Len(t, segments(t, archived), 1)
	b, err := os.ReadFile(archived)
	require.NoError(t, err)
	lines := strings.Split(strings.TrimSuffix(string(b), "\n"), "\n")
	require.Len(t, lines, 2, "the header and the order waiting for its issuer: %s", b)
	assert.Contains(t, lines[1], `"service_order_id":"`+h.pending+`"`)

	want := answers(ref, h)
	got := answers(arc, h)
	require.Equal(t, len(want), len(got))
	for i := range want {
		assert.Equal(t, want[i], got[i])
	}
	assert.Contains(t, strings.Join(got, "\n"), "1170", "the used refund id is refused")
	assert.Contains(t, strings.Join(got, "\n"), "IMEI_ALREADY_BLOCKED")

	// What the requests changed survives a restart, archived or not, and the
	// restarted archive answers as the log does.
	require.NoError(t, ref.sb.Close())
	require.NoError(t, arc.sb.Close())
	ref2, arc2 := open(logged, 1<<40), open(archived, 1)
	assert.Equal(t, ledgerJSON(t, ref2.sb), ledgerJSON(t, arc2.sb))
	for _, id := range []string{h.paid, h.imei, h.unpaid} {
		assert.Equal(t, ref2.inquire(id, ""), arc2.inquire(id, ""))
	}
	assert.Equal(t, orderRefunded, arc2.ledger(h.imei).Status)
	assert.Equal(t, int64(150000), arc2.ledger(h.paid).RefundedAmount, "the old order's refunds kept")
	assert.Equal(t, orderRefunded, arc2.ledger(h.paid).Status)
}

func ledgerJSON(t *testing.T, sb *Sandbox) string {
	t.Helper()
	b, err := json.Marshal(sb.Controls.Ledger())
	require.NoError(t, err)
	return string(b)
}

func TestStateArchiveSegmentsMerge(t *testing.T) {
	// Day after day of orders archived: the segments stay about log2 of the
	// history's size, merged ones are removed, and every order is found.
	dir := t.TempDir()
	path := filepath.Join(dir, "sandbox.json")
	c := testclock.New(start)
	f := reopen(t, path, c, 0)
	var ids []string
	for day := range 12 {
		for range 3 << (day % 3) {
			tok, id := f.create(1000)
			f.pay(tok, "5555555555554444")
			ids = append(ids, id)
		}
		require.NoError(t, f.sb.Close())
		c.Advance(25 * time.Hour)
		sb, err := New(WithClock(c.Now), WithIDs(Sequential()), WithStateFile(path), WithAllowedHosts("sandbox.test"), withCompactMin(1))
		require.NoError(t, err)
		f = &fix{t: t, sb: sb, clock: c, key: f.key, n: f.n}
		segs := segments(t, path)
		assert.LessOrEqual(t, len(segs), 5, "day %d: %v", day, segs)
		assert.Len(t, segs, len(f.sb.core.state.segments), "day %d: only the listed segments are on disk", day)
	}
	closeSandbox(t, f.sb)
	assert.Less(t, len(f.sb.core.state.segments), 4, "12 days archived, merged")
	for _, id := range ids {
		assert.Equal(t, orderCharged, f.inquire(id, "").OrderData.OrderStatus, "order %s", id)
	}
	assert.Len(t, f.sb.Controls.Ledger(), len(ids))
}

func TestStateArchiveCrashes(t *testing.T) {
	now := start.Add(48 * time.Hour)
	clock := func() time.Time { return now }
	mk := func(t *testing.T) string {
		path := filepath.Join(t.TempDir(), "sandbox.json")
		require.NoError(t, writeHistory(path, 20, start))
		sb, err := New(WithStateFile(path), WithClock(clock))
		require.NoError(t, err)
		require.NoError(t, sb.Close())
		require.Len(t, segments(t, path), 1)
		return path
	}
	t.Run("a segment no log lists is removed", func(t *testing.T) {
		// A compaction cut short after writing its segment and before its log.
		path := mk(t)
		stray := path + ".a7"
		require.NoError(t, os.WriteFile(stray, []byte("half a segment"), 0o600))
		other := path + ".aside"
		require.NoError(t, os.WriteFile(other, nil, 0o600))
		sb, err := New(WithStateFile(path), WithClock(clock))
		require.NoError(t, err)
		require.NoError(t, sb.Close())
		assert.NoFileExists(t, stray)
		assert.FileExists(t, other, "only the sandbox's own segments are removed")
		assert.Len(t, sb.Controls.Ledger(), 20)
	})
	t.Run("a torn last line after the archive", func(t *testing.T) {
		path := mk(t)
		good, err := os.ReadFile(path)
		require.NoError(t, err)
		require.NoError(t, os.WriteFile(path, append(append([]byte(nil), good...), `{"order":{"merchant_id":"77`...), 0o600))
		sb, err := New(WithStateFile(path), WithClock(clock))
		require.NoError(t, err)
		require.NoError(t, sb.Close())
		b, err := os.ReadFile(path)
		require.NoError(t, err)
		assert.Equal(t, string(good), string(b))
		assert.Len(t, sb.Controls.Ledger(), 20)
	})
	t.Run("a damaged segment fails the request, not the answer", func(t *testing.T) {
		path := mk(t)
		seg := filepath.Join(filepath.Dir(path), segments(t, path)[0])
		b, err := os.ReadFile(seg)
		require.NoError(t, err)
		require.NoError(t, os.WriteFile(seg, b[:len(b)-1], 0o600))
		sb, err := New(WithStateFile(path), WithClock(clock), WithAllowedHosts("sandbox.test"))
		require.NoError(t, err, "New does not read the archive")
		closeSandbox(t, sb)
		f := &fix{t: t, sb: sb, clock: testclock.New(now), key: mustKey(t)}
		w := f.do("GET", "/api/v1/inquiry/order/100000001", nil, map[string]string{"Authorization": defaultAuth})
		assert.Equal(t, 500, w.Code, "never ORDER_NOT_FOUND for an order the archive holds")
	})
	t.Run("version 2 is read and rewritten as version 3", func(t *testing.T) {
		path := filepath.Join(t.TempDir(), "sandbox.json")
		require.NoError(t, writeHistory(path, 3, now.Add(-time.Hour))) // recent: stays in the log
		sb, err := New(WithStateFile(path), WithClock(clock))
		require.NoError(t, err)
		require.NoError(t, sb.Close())
		b, err := os.ReadFile(path)
		require.NoError(t, err)
		assert.True(t, strings.HasPrefix(string(b), `{"v":3}`+"\n"), "%.40s", b)
		assert.Equal(t, 4, strings.Count(string(b), "\n"))
		assert.Empty(t, segments(t, path))
	})
}

func TestStateArchiveWaitsForEnough(t *testing.T) {
	// A few old orders stay in the log: archiving them would cost a segment and a
	// rewrite for a replay of a few lines.
	path := filepath.Join(t.TempDir(), "sandbox.json")
	f := setup(t, WithStateFile(path))
	for range 3 {
		tok, _ := f.create(1000)
		f.pay(tok, "5555555555554444")
	}
	require.NoError(t, f.sb.Close())
	before, err := os.ReadFile(path)
	require.NoError(t, err)
	f.clock.Advance(48 * time.Hour)

	g := reopen(t, path, f.clock, f.n)
	require.NoError(t, g.sb.Close())
	after, err := os.ReadFile(path)
	require.NoError(t, err)
	assert.Equal(t, string(before), string(after), "below a quarter of the least compaction: left in the log")
	assert.Empty(t, segments(t, path))

	sb, err := New(WithClock(f.clock.Now), WithStateFile(path), withCompactMin(int64(len(before))))
	require.NoError(t, err)
	require.NoError(t, sb.Close())
	assert.Len(t, segments(t, path), 1, "a quarter of the least compaction reached: archived")
	assert.Len(t, sb.Controls.Ledger(), 3)
}
