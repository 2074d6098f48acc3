package sandbox

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io/fs"
	"net/http"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"galla/gateway"
	"galla/internal/testclock"
)

// reopen builds a new sandbox from the state file at path, with a fresh
// sequential id source (which starts again at the first ids) and the clock c.
func reopen(t *testing.T, path string, c *testclock.Clock, n int) *fix {
	t.Helper()
	sb, err := New(WithClock(c.Now), WithIDs(Sequential()), WithStateFile(path), WithAllowedHosts("sandbox.test"))
	require.NoError(t, err)
	key, err := gateway.DecodeSecret(DefaultSecret)
	require.NoError(t, err)
	return &fix{t: t, sb: sb, clock: c, key: key, n: n}
}

// gatewayClient is the real gateway client talking to sb in process.
func gatewayClient(t *testing.T, sb *Sandbox, c *testclock.Clock) *gateway.Client {
	t.Helper()
	cl, err := gateway.New(gateway.Config{BaseURL: "http://sandbox.test", MerchantID: DefaultMerchantID,
		AccessCode: DefaultAccessCode, Secret: DefaultSecret, ReturnURL: "https://shop.example/return",
		HTTPClient: &http.Client{Transport: sb.Transport()}, Now: c.Now, Retry: gateway.Retry{Max: -1}})
	require.NoError(t, err)
	return cl
}

func TestStateSurvivesRestart(t *testing.T) {
	path := filepath.Join(t.TempDir(), "sandbox.json")
	f := setup(t, WithStateFile(path))
	_, err := os.Stat(path)
	require.ErrorIs(t, err, fs.ErrNotExist, "a sandbox that changed nothing writes nothing")

	// A: paid with the OTP step. B: an IMEI blocked for it. D: left unpaid.
	// E: the pending card, waiting for the issuer.
	tokA, idA := f.create(150000)
	pidA := f.pay(tokA, "4111111111111111")
	require.Equal(t, 303, f.acs(pidA, map[string][]string{"otp": {TestOTP}}).Code)
	imei := TestData().Brands[0].TestIMEI
	tokB, idB := f.create(7999900, product{"SAMSUNG-S24", 7999900})
	code, ir := f.validateIMEI(tokB, imeiItemJSON{"SAMSUNG-S24", imei})
	require.Equal(t, 200, code)
	require.Equal(t, 0, ir.ResponseCode)
	tokD, _ := f.create(1000)
	tokE, idE := f.create(2000)
	pidE := f.pay(tokE, "4000000000000119")
	require.Equal(t, 303, f.acs(pidE, map[string][]string{"otp": {TestOTP}}).Code)
	require.Equal(t, orderPending, f.ledger(idE).Status)
	f.clock.Advance(20 * time.Minute)

	st, err := os.Stat(path)
	require.NoError(t, err)
	if runtime.GOOS != "windows" {
		assert.Equal(t, fs.FileMode(0o600), st.Mode().Perm(), "mode of %s", path)
	}
	before := f.sb.Controls.Ledger()
	docA := f.inquire(idA, "")

	g := reopen(t, path, f.clock, f.n)
	assert.Equal(t, before, g.sb.Controls.Ledger(), "the ledger after a restart")
	assert.Equal(t, docA, g.inquire(idA, ""), "the inquiry document after a restart")
	assert.Equal(t, orderCreated, g.ledger(idB).Status)

	// The real gateway client finds the order and refunds it.
	cl := gatewayClient(t, g.sb, g.clock)
	q, err := cl.InquireOrder(t.Context(), idA)
	require.NoError(t, err)
	assert.True(t, q.Verified)
	assert.Equal(t, gateway.OrderCharged, q.OrderData.OrderStatus)
	assert.Equal(t, pidA, q.PaymentInfoData.PaymentID)
	rq, err := cl.Refund(t.Context(), gateway.RefundRequest{UniqueTxnID: "RF-1", AmountInPaise: 50000, ServiceOrderID: idA, PaymentID: pidA})
	require.NoError(t, err)
	assert.Equal(t, gateway.OrderPartialRefunded, rq.OrderData.OrderStatus)
	firstRefundID := rq.PaymentInfoData.RefundID
	require.NotEmpty(t, firstRefundID)

	// The IMEI stays blocked and the merchant order id stays taken.
	tokC, _ := g.create(7999900, product{"SAMSUNG-S24", 7999900})
	_, ir = g.validateIMEI(tokC, imeiItemJSON{"SAMSUNG-S24", imei})
	require.Len(t, ir.ProductIMEIDetails, 1)
	assert.Equal(t, "IMEI_ALREADY_BLOCKED", ir.ProductIMEIDetails[0].IMEIProcessingStatus.ResponseMessage)
	dup := g.orderDoc(1000)
	dup["merchant_data"].(map[string]any)["merchant_order_id"] = "ORDER-1"
	w := g.createRaw(dup)
	assert.Equal(t, 400, w.Code)
	assert.Equal(t, "1130", decode(t, w.Body.Bytes())["error_code"])

	// New ids never collide with loaded ones, though the id source started again.
	seen := map[string]bool{}
	for _, o := range g.sb.Controls.Ledger() {
		assert.False(t, seen[o.ServiceOrderID], "order id %s twice", o.ServiceOrderID)
		seen[o.ServiceOrderID] = true
	}
	pidC := g.pay(tokC, "5555555555554444")
	assert.NotEqual(t, pidA, pidC)
	assert.NotEqual(t, pidE, pidC)

	// Token expiry counts from the order's creation in the first run: 20 + 11 minutes.
	g.clock.Advance(11 * time.Minute)
	w = g.payRaw(tokD, card("4111111111111111"))
	assert.Equal(t, 401, w.Code)
	assert.Equal(t, "TOKEN_EXPIRED", decode(t, w.Body.Bytes())["error_message"])
	// The pending payment of the first run is captured after its hold.
	assert.Equal(t, orderCharged, g.inquire(idE, "").OrderData.OrderStatus)

	// A third run: the used unique_txn_id is still a duplicate, and a new refund
	// gets an id not handed out before.
	h := reopen(t, path, g.clock, g.n)
	cl = gatewayClient(t, h.sb, h.clock)
	_, err = cl.Refund(t.Context(), gateway.RefundRequest{UniqueTxnID: "RF-1", AmountInPaise: 100, ServiceOrderID: idA, PaymentID: pidA})
	assert.ErrorIs(t, err, gateway.ErrDuplicateRefund)
	rq, err = cl.Refund(t.Context(), gateway.RefundRequest{UniqueTxnID: "RF-2", AmountInPaise: 100, ServiceOrderID: idA, PaymentID: pidA})
	require.NoError(t, err)
	assert.NotEqual(t, firstRefundID, rq.PaymentInfoData.RefundID)
	assert.Equal(t, int64(50100), rq.OrderData.RefundAmount)
}

func TestStateSavedBeforeDroppedAnswer(t *testing.T) {
	// "Apply then drop": the caller hears nothing, but the next run knows the payment.
	path := filepath.Join(t.TempDir(), "sandbox.json")
	f := setup(t, WithStateFile(path))
	tok, id := f.create(1000)
	f.sb.Controls.Inject(EndpointCardPayment, Fault{Kind: FaultDrop}, 1)
	body, err := json.Marshal(map[string]any{"card_data": card("5555555555554444")})
	require.NoError(t, err)
	req, err := http.NewRequestWithContext(t.Context(), "POST", "http://sandbox.test/api/v1/card/process/payment?token="+tok, bytes.NewReader(body))
	require.NoError(t, err)
	req.Header.Set("checkoutmode", "SEAMLESS")
	_, err = (&http.Client{Transport: f.sb.Transport()}).Do(req)
	require.ErrorIs(t, err, ErrConnectionDropped)

	g := reopen(t, path, f.clock, f.n)
	assert.Equal(t, orderCharged, g.ledger(id).Status)
	assert.Equal(t, 1, g.ledger(id).CapturedPayments)
}

func TestStateHoldsNoCardData(t *testing.T) {
	path := filepath.Join(t.TempDir(), "sandbox.json")
	f := setup(t, WithStateFile(path))
	const cvv, amexCVV = "862", "8621"
	numbers := []string{"4111111111111111", "5555555555554444", "378282246310005", "4386280000000004"}

	for _, n := range numbers[:3] {
		tok, _ := f.create(150000)
		c := card(n)
		c["cvv"] = cvv
		if strings.HasPrefix(n, "37") {
			c["cvv"] = amexCVV
		}
		w := f.payRaw(tok, c)
		require.Equal(t, 200, w.Code, w.Body.String())
	}
	_, r, _ := f.calc(5000000, product{"GENERIC-TV", 5000000})
	tok, id := f.create(5000000, product{"GENERIC-TV", 5000000})
	body, err := json.Marshal(map[string]any{
		"merchant_data": map[string]any{"merchant_id": 770001},
		"card_data": map[string]any{"card_number": numbers[3], "card_expiry_year": "2030", "card_expiry_month": "12",
			"card_holder_name": "Asha Rao", "cvv": cvv, "is_card_to_be_saved": false},
		"customer_data": map[string]any{"country_code": "91", "mobile_number": "9876543210", "email_id": "a@b.in"},
		"emi_data":      tenureOf(t, r, "HDFC", 6), "acquirer_data": map[string]any{"acquirerId": 8004}})
	require.NoError(t, err)
	w := f.do("POST", "/api/v1/emi/process/payment?token="+tok, body, map[string]string{"checkoutmode": "SEAMLESS"})
	require.Equal(t, 200, w.Code, w.Body.String())
	pid := fmt.Sprint(int64(decode(t, w.Body.Bytes())["payment_id"].(float64)))
	require.Equal(t, 303, f.acs(pid, map[string][]string{"otp": {TestOTP}}).Code)
	require.Equal(t, orderCharged, f.ledger(id).Status)

	b, err := os.ReadFile(path)
	require.NoError(t, err)
	require.Contains(t, string(b), `"last4":"0004"`, "the state holds the EMI payment")
	for _, n := range numbers {
		assert.NotContains(t, string(b), n, "card number in the state file")
		assert.NotContains(t, string(b), n[:12], "most of a card number in the state file")
	}
	assert.NotContains(t, string(b), cvv, "CVV in the state file")
	assert.NotContains(t, strings.ToLower(string(b)), "cvv")
}

func TestDamagedStateFile(t *testing.T) {
	legacy, err := os.ReadFile(filepath.Join("testdata", "sandbox-v1.json"))
	require.NoError(t, err)
	valid := func(t *testing.T) []byte {
		t.Helper()
		path := filepath.Join(t.TempDir(), "sandbox.json")
		f := setup(t, WithStateFile(path))
		tok, _ := f.create(1000)
		f.pay(tok, "5555555555554444")
		f.create(2000)
		b, err := os.ReadFile(path)
		require.NoError(t, err)
		return b
	}(t)
	lines := strings.SplitAfter(string(valid), "\n")
	require.Len(t, lines, 5, "header, order, order again (paid), second order, and the empty rest")
	withLine := func(i int, l string) []byte {
		c := append([]string(nil), lines...)
		c[i] = l
		return []byte(strings.Join(c, ""))
	}
	tests := []struct {
		name string
		data []byte
		want string
	}{
		{"cut off", legacy[:len(legacy)/2], "damaged"},
		{"empty", []byte{}, "damaged"},
		{"not JSON", []byte("\x00\x01garbage"), "damaged"},
		{"no version", []byte(`{"orders":[]}`), "no format version"},
		{"newer version", []byte(`{"v":4,"orders":[]}`), "format version 4"},
		{"unknown field", []byte(`{"v":1,"orders":[],"x":1}`), "damaged"},
		{"order twice", []byte(strings.Replace(string(legacy), `"orders":[`, `"orders":[`+orderOf(t, legacy)+`,`, 1)), "appears twice"},
		{"bad stage", []byte(strings.Replace(string(legacy), `"stage":3`, `"stage":9`, 1)), "bad stage"},
		{"log header cut off", []byte(`{"v":2}`), "header line is cut off"},
		{"log header with more", withLine(0, `{"v":2,"orders":[]}`+"\n"), "line 1"},
		{"log line damaged", withLine(2, "\x00\x00garbage\n"), "line 3"},
		{"log line cut off before the last", withLine(1, lines[1][:len(lines[1])/2]+"\n"), "line 2"},
		{"log empty line", withLine(2, "\n"), "line 3"},
		{"log unknown record", withLine(3, `{"order":null,"x":1}`+"\n"), "line 4"},
		{"log two records in a line", withLine(3, `{"refund_id":"1","refund_txn":{"merchant_id":"770001","unique_txn_id":"A"}}`+"\n"), "not one order"},
		{"log no record in a line", withLine(3, "{}\n"), "not one order"},
		{"log bad stage", []byte(strings.Replace(string(valid), `"stage":3`, `"stage":9`, 1)), "bad stage"},
		{"log merchant order id twice", withLine(3, strings.Replace(lines[3], `"merchant_order_id":"ORDER-2"`, `"merchant_order_id":"ORDER-1"`, 1)), "appears twice"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "sandbox.json")
			require.NoError(t, os.WriteFile(path, tt.data, 0o600))
			sb, err := New(WithStateFile(path))
			require.Error(t, err)
			assert.Nil(t, sb)
			assert.ErrorIs(t, err, ErrStateFile)
			msg := err.Error()
			assert.Contains(t, msg, tt.want)
			assert.Contains(t, msg, "the sandbox's state file "+path)
			assert.Contains(t, msg, "move it away to start the sandbox empty")
			assert.NotContains(t, msg, "\n", "one sentence")
			after, err := os.ReadFile(path)
			require.NoError(t, err)
			assert.Equal(t, tt.data, after, "the damaged file is left as it was")
		})
	}

	t.Run("unreadable", func(t *testing.T) {
		dir := filepath.Join(t.TempDir(), "sandbox.json") // a directory cannot be read as a file
		require.NoError(t, os.Mkdir(dir, 0o700))
		_, err := New(WithStateFile(dir))
		require.ErrorIs(t, err, ErrStateFile)
		assert.Contains(t, err.Error(), "cannot be read")
		st, err := os.Stat(dir)
		require.NoError(t, err)
		assert.True(t, st.IsDir())
	})
	t.Run("missing is empty", func(t *testing.T) {
		sb, err := New(WithStateFile(filepath.Join(t.TempDir(), "no", "such", "sandbox.json")))
		require.NoError(t, err)
		assert.Empty(t, sb.Controls.Ledger())
	})
}

// orderOf returns the JSON of the first order in a version 1 state file.
func orderOf(t *testing.T, state []byte) string {
	t.Helper()
	var doc struct {
		Orders []json.RawMessage `json:"orders"`
	}
	require.NoError(t, json.Unmarshal(state, &doc))
	require.NotEmpty(t, doc.Orders)
	return string(doc.Orders[0])
}

func TestStateSaveFailureAnswers500(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "sandbox.json")
	f := setup(t, WithStateFile(path))
	require.NoError(t, os.Mkdir(path, 0o700)) // the rename over a directory fails
	w := f.createRaw(f.orderDoc(1000))
	assert.Equal(t, 500, w.Code, "an answer whose state was not saved is not given")
	assert.Equal(t, "14020", decode(t, w.Body.Bytes())["error_code"])
	entries, err := os.ReadDir(dir)
	require.NoError(t, err)
	assert.Len(t, entries, 1, "no temporary file is left behind: %v", entries)
}

func TestStateConcurrentRequests(t *testing.T) {
	path := filepath.Join(t.TempDir(), "sandbox.json")
	f := setup(t, WithStateFile(path))
	const workers, each = 4, 5
	// The signed bodies are made here: require must not run on other goroutines.
	type job struct {
		body []byte
		sig  string
	}
	jobs := make([][]job, workers)
	for i := range workers {
		for range each {
			body, sig := signed(t, f.key, f.orderDoc(1000))
			jobs[i] = append(jobs[i], job{body, sig})
		}
	}
	cardBody, err := json.Marshal(map[string]any{"card_data": card("5555555555554444"), "customer_data": map[string]any{}})
	require.NoError(t, err)

	type made struct{ id, pid string }
	var mu sync.Mutex
	var all []made
	var wg sync.WaitGroup
	errs := make(chan error, workers*each)
	for i := range workers {
		wg.Go(func() {
			for _, jb := range jobs[i] {
				w := f.do("POST", "/api/v1/order/create", jb.body, map[string]string{"x-verify": jb.sig})
				var o map[string]string
				if err := json.Unmarshal(w.Body.Bytes(), &o); err != nil || w.Code != 200 {
					errs <- fmt.Errorf("create: %d %s", w.Code, w.Body.String())
					return
				}
				pw := f.do("POST", "/api/v1/card/process/payment?token="+o["token"], cardBody, map[string]string{"checkoutmode": "SEAMLESS"})
				var p paymentReply
				if err := json.Unmarshal(pw.Body.Bytes(), &p); err != nil || pw.Code != 200 {
					errs <- fmt.Errorf("pay: %d %s", pw.Code, pw.Body.String())
					return
				}
				mu.Lock()
				all = append(all, made{o["service_order_id"], fmt.Sprint(p.PaymentID)})
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		require.NoError(t, err)
	}
	require.Len(t, all, workers*each)

	g := reopen(t, path, f.clock, f.n)
	assert.Equal(t, f.sb.Controls.Ledger(), g.sb.Controls.Ledger(), "the file holds the last state")
	assert.Equal(t, string(live(f.sb)), string(live(g.sb)), "the replayed state")
	for _, m := range all {
		o := g.ledger(m.id)
		assert.Equal(t, orderCharged, o.Status, "order %s", m.id)
		require.Len(t, o.Payments, 1)
		assert.Equal(t, m.pid, o.Payments[0].PaymentID)
	}
	leftovers, err := filepath.Glob(filepath.Join(filepath.Dir(path), ".*"))
	require.NoError(t, err)
	assert.Empty(t, leftovers, "temporary files left behind")
}
