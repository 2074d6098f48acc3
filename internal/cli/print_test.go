package cli

import (
	"bytes"
	"encoding/json"
	"image/png"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"galla/pos"
	"galla/pos/journal"
	"galla/receipts"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// refundFixture is receiptFixture's paid sale of ₹599.00 with two done cash
// refunds: ₹100.00 ("scratched") and then ₹49.00.
func refundFixture(t *testing.T, printer string) (dataDir, orderID string) {
	t.Helper()
	dataDir, orderID = receiptFixture(t, printer)
	at := time.Date(2026, 11, 22, 15, 0, 0, 0, time.UTC)
	j, err := journal.Open(filepath.Join(dataDir, journalFile), keyed(t, dataDir, journal.Options{Now: func() time.Time { return at }}))
	require.NoError(t, err)
	defer j.Close()
	day := pos.ToDay(at)
	events := []pos.Event{
		{Kind: pos.EvRefundIntent, OrderID: orderID, Day: day, Time: at, Staff: "Asha",
			Refund: &pos.RefundEvent{UniqueTxnID: "R-1", Amount: 10000, Reason: "scratched"}},
		{Kind: pos.EvRefundDone, OrderID: orderID, Day: day, Time: at, ReceiptNo: 2,
			Refund: &pos.RefundEvent{UniqueTxnID: "R-1", Amount: 10000, Refunded: 10000}},
		{Kind: pos.EvRefundIntent, OrderID: orderID, Day: day, Time: at.Add(time.Minute), Staff: "Asha",
			Refund: &pos.RefundEvent{UniqueTxnID: "R-2", Amount: 4900}},
		{Kind: pos.EvRefundDone, OrderID: orderID, Day: day, Time: at.Add(time.Minute), ReceiptNo: 3,
			Refund: &pos.RefundEvent{UniqueTxnID: "R-2", Amount: 4900, Refunded: 14900}},
	}
	for _, ev := range events {
		_, err := j.Log.Append(t.Context(), ev)
		require.NoError(t, err, "append %s", ev.Kind)
	}
	return dataDir, orderID
}

// fakePrinter is a TCP receipt printer that answers the status request as online
// and hands over each job it read.
func fakePrinter(t *testing.T) (addr string, jobs <-chan []byte) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	t.Cleanup(func() { ln.Close() })
	got := make(chan []byte, 4)
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			c.SetDeadline(time.Now().Add(5 * time.Second))
			var all []byte
			buf := make([]byte, 4096)
			for {
				n, err := c.Read(buf)
				all = append(all, buf[:n]...)
				if bytes.HasSuffix(all, []byte{0x10, 0x04, 0x01}) {
					c.Write([]byte{0x12}) // online
				}
				if err != nil {
					break
				}
			}
			c.Close()
			got <- all
		}
	}()
	return ln.Addr().String(), got
}

// silentPrinter accepts connections and never answers.
func silentPrinter(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	t.Cleanup(func() { ln.Close() })
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			t.Cleanup(func() { c.Close() })
		}
	}()
	return ln.Addr().String()
}

func openOrder(t *testing.T, dir, id string) *pos.Order {
	t.Helper()
	j, err := journal.Open(filepath.Join(dir, journalFile), keyed(t, dir, journal.Options{}))
	require.NoError(t, err)
	defer j.Close()
	o, err := j.Orders.Order(t.Context(), id)
	require.NoError(t, err)
	return o
}

func TestCmdReceiptRefund(t *testing.T) {
	dir, id := refundFixture(t, "")
	tests := []struct {
		name   string
		args   []string
		amount string
		txn    string
	}{
		{"latest", []string{"--refund"}, "Rs.49.00", "R-2"},
		{"first, flag value", []string{"--refund=1"}, "Rs.100.00", "R-1"},
		{"first, separate value", []string{"--refund", "1"}, "Rs.100.00", "R-1"},
		{"second, before the order", nil, "Rs.49.00", "R-2"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			// ESC/POS is a paper copy: each is journaled.
			args := append([]string{"--data", dir, "receipt", id, "--format", "escpos"}, tt.args...)
			if tt.args == nil {
				args = []string{"--data", dir, "receipt", "--format", "escpos", "--refund", "2", id}
			}
			code, out, errs := runGalla(t, args...)
			require.Equal(t, exitOK, code, errs)
			assert.Contains(t, out, "REFUND")
			assert.Contains(t, out, "Credit note")
			assert.Contains(t, out, tt.amount, "the refunded amount")
			assert.Contains(t, out, "Refund id")
			assert.Contains(t, out, tt.txn)
			assert.NotContains(t, out, "TAX INVOICE", "not the sale's receipt")
		})
	}
	o := openOrder(t, dir, id)
	assert.False(t, o.Printed, "refund receipts do not count as the sale's")
	assert.Zero(t, o.Reprints)
	r1, r2 := o.RefundByID("R-1"), o.RefundByID("R-2")
	require.NotNil(t, r1)
	require.NotNil(t, r2)
	assert.True(t, r1.Printed)
	assert.Equal(t, 1, r1.Reprints, "two copies of refund 1: the second is a reprint")
	assert.True(t, r2.Printed)
	assert.Equal(t, 1, r2.Reprints)

	code, out, errs := runGalla(t, "--data", dir, "receipt", id, "--refund")
	require.Equal(t, exitOK, code, errs)
	assert.Contains(t, out, "DUPLICATE — reprint 2", "every paper copy is journaled: a view shows the next copy's number")

	code, out, errs = runGalla(t, "--data", dir, "receipt", id)
	require.Equal(t, exitOK, code, errs)
	assert.Contains(t, out, "TAX INVOICE")
	assert.NotContains(t, out, "DUPLICATE", "the sale's receipt was never printed before")

	pdf := filepath.Join(t.TempDir(), "refund.pdf")
	code, _, errs = runGalla(t, "--data", dir, "receipt", id, "--refund", "--format", "pdf", "--out", pdf)
	require.Equal(t, exitOK, code, errs)
	b, err := os.ReadFile(pdf)
	require.NoError(t, err)
	assert.True(t, bytes.HasPrefix(b, []byte("%PDF")))
}

func TestCmdReceiptRefundErrors(t *testing.T) {
	sale, _ := receiptFixture(t, "")
	refunded, _ := refundFixture(t, "")
	tests := []struct {
		dir  string
		args []string
		want string
	}{
		{sale, []string{"receipt", "G-1", "--refund"}, "has no done refund"},
		{refunded, []string{"receipt", "G-1", "--refund", "3"}, "has no refund no. 3"},
		{refunded, []string{"receipt", "G-1", "--refund", "x"}, "not a number"},
		{refunded, []string{"receipt", "G-1", "--refund=0"}, "not a number from 1"},
		{refunded, []string{"receipt", "G-1", "--refund", "--print"}, "No receipt printer is configured"},
	}
	for _, tt := range tests {
		code, _, errs := runGalla(t, append([]string{"--data", tt.dir}, tt.args...)...)
		assert.Equal(t, exitBadInput, code, "%v: %s", tt.args, errs)
		assert.Contains(t, errs, tt.want, "%v", tt.args)
	}
}

func TestCmdReceiptRefundPrints(t *testing.T) {
	addr, jobs := fakePrinter(t)
	dir, id := refundFixture(t, addr)
	code, out, errs := runGalla(t, "--data", dir, "receipt", id, "--refund", "1", "--print")
	require.Equal(t, exitOK, code, errs)
	assert.Empty(t, out)
	job := <-jobs
	assert.True(t, bytes.HasPrefix(job, []byte{0x1b, 0x40}), "ESC @ first")
	assert.Contains(t, string(job), "REFUND")
	assert.Contains(t, string(job), "Rs.100.00")
	assert.NotContains(t, string(job), "DUPLICATE")
	r := openOrder(t, dir, id).RefundByID("R-1")
	require.NotNil(t, r)
	assert.True(t, r.Printed, "the print is journaled")
}

func TestCmdReportFormats(t *testing.T) {
	dir, _ := refundFixture(t, "")
	day := "2026-11-22"
	code, out, errs := runGalla(t, "--data", dir, "report", "--day", day)
	require.Equal(t, exitOK, code, errs)
	assert.NotEmpty(t, out, "text is the report's own text, as before")

	pngPath := filepath.Join(t.TempDir(), "x.png")
	code, out, errs = runGalla(t, "--data", dir, "report", "--day", day, "--format", "png", "--out", pngPath)
	require.Equal(t, exitOK, code, errs)
	assert.Empty(t, out)
	b, err := os.ReadFile(pngPath)
	require.NoError(t, err)
	img, err := png.Decode(bytes.NewReader(b))
	require.NoError(t, err, "the report's PNG decodes")
	assert.Greater(t, img.Bounds().Dy(), img.Bounds().Dx(), "a slip is taller than wide")

	code, out, errs = runGalla(t, "--data", dir, "report", "--day", day, "--format", "escpos")
	require.Equal(t, exitOK, code, errs)
	assert.True(t, strings.HasPrefix(out, "\x1b@"))
	assert.Contains(t, out, "X REPORT")
	assert.Contains(t, out, "Galla Mobiles")

	code, out, errs = runGalla(t, "--data", dir, "report", "--day", day, "--format", "pdf")
	require.Equal(t, exitOK, code, errs)
	assert.True(t, strings.HasPrefix(out, "%PDF"))

	csvPath := filepath.Join(t.TempDir(), "day.csv")
	code, _, errs = runGalla(t, "--data", dir, "report", "--day", day, "--format", "csv", "--out", csvPath)
	require.Equal(t, exitOK, code, errs)
	b, err = os.ReadFile(csvPath)
	require.NoError(t, err)
	assert.Contains(t, string(b), "G-1")

	code, _, errs = runGalla(t, "--data", dir, "report", "--format", "docx")
	assert.Equal(t, exitBadInput, code)
	assert.Contains(t, errs, "not known")
	code, _, errs = runGalla(t, "--data", dir, "report", "--day", day, "--print")
	assert.Equal(t, exitBadInput, code)
	assert.Contains(t, errs, "No receipt printer is configured")
}

func TestCmdReportPrints(t *testing.T) {
	addr, jobs := fakePrinter(t)
	dir, _ := refundFixture(t, addr)
	code, out, errs := runGalla(t, "--data", dir, "report", "--day", "2026-11-22", "--print")
	require.Equal(t, exitOK, code, errs)
	assert.Empty(t, out, "--print alone writes nothing to standard output")
	job := <-jobs
	assert.True(t, bytes.HasPrefix(job, []byte{0x1b, 0x40}))
	assert.Contains(t, string(job), "X REPORT")
	assert.Contains(t, string(job), "Sales (1)                 599.00", "the day's sales")
	assert.Contains(t, string(job), "Refunds (2)               149.00")
}

// closeDayFixture is a fresh data directory with a manager (PIN 432100) and a TCP
// receipt printer at addr.
func closeDayFixture(t *testing.T, addr string) string {
	t.Helper()
	dir := t.TempDir()
	code, _, errs := tillRun(t, dir, "432100\n", nil, "staff", "add", "Meera", "--role", "manager")
	require.Equal(t, exitOK, code, errs)
	j, err := journal.Open(filepath.Join(dir, journalFile), keyed(t, dir, journal.Options{}))
	require.NoError(t, err)
	defer j.Close()
	p, err := json.Marshal(receipts.Profile{Transport: receipts.TransportTCP, Address: addr, Width: 80, Timeout: 500 * time.Millisecond})
	require.NoError(t, err)
	_, err = j.Log.Append(t.Context(), pos.Event{Kind: pos.EvSettingsChanged, Day: pos.ToDay(time.Now()), Time: time.Now(),
		Setting: &pos.Setting{Key: pos.SettingPrinter, Value: p}})
	require.NoError(t, err)
	return dir
}

func TestCmdCloseDayPrintsZ(t *testing.T) {
	addr, jobs := fakePrinter(t)
	dir := closeDayFixture(t, addr)
	pin := map[string]string{"GALLA_PIN": "432100"}
	code, out, errs := tillRun(t, dir, "", pin, "close-day")
	require.Equal(t, exitOK, code, errs)
	assert.Contains(t, out, "Z", "the report is written as before")
	assert.Contains(t, errs, "Z report no. 1 printed")
	job := <-jobs
	assert.Contains(t, string(job), "Z REPORT No. 1")
	assert.Contains(t, string(job), "Day closed")
}

func TestCmdCloseDayPrinterNotAnswering(t *testing.T) {
	dir := closeDayFixture(t, silentPrinter(t))
	pin := map[string]string{"GALLA_PIN": "432100"}
	day := pos.ToDay(time.Now())
	start := time.Now()
	code, out, errs := tillRun(t, dir, "", pin, "close-day", "--format", "json")
	assert.Less(t, time.Since(start), 10*time.Second)
	require.Equal(t, exitOK, code, "a print failure does not undo the close: %s", errs)
	var rep pos.Report
	require.NoError(t, json.Unmarshal([]byte(out), &rep))
	assert.Equal(t, "Z", rep.Kind)
	lines := strings.Split(strings.TrimSpace(errs), "\n")
	require.Len(t, lines, 3, "the close's note, one sentence on the print, the full check: %q", errs)
	assert.Contains(t, lines[2], "checks out")
	assert.Contains(t, lines[1], "The Z report was not printed")
	assert.Contains(t, lines[1], "not answering")
	assert.Contains(t, lines[1], "galla report --day "+day+" --print")

	code, _, errs = tillRun(t, dir, "", pin, "close-day")
	assert.Equal(t, exitBadInput, code, "the day is closed: %s", errs)

	// the reprint renders the sealed Z report, not a new X report
	code, out, errs = tillRun(t, dir, "", nil, "report", "--day", day, "--format", "escpos")
	require.Equal(t, exitOK, code, errs)
	assert.Contains(t, out, "Z REPORT No. 1")
	assert.NotContains(t, out, "X REPORT")
}
