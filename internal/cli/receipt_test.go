package cli

import (
	"bytes"
	"encoding/json"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"galla/internal/config"
	"galla/pos"
	"galla/pos/journal"
	"galla/receipts"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// receiptFixture makes a data directory whose journal holds one paid cash sale, the
// shop's settings and, when printer is not empty, a TCP printer at that address.
func receiptFixture(t *testing.T, printer string) (dataDir, orderID string) {
	t.Helper()
	dataDir = t.TempDir()
	at := time.Date(2026, 11, 22, 14, 5, 0, 0, time.UTC)
	j, err := journal.Open(filepath.Join(dataDir, journalFile), keyed(t, dataDir, journal.Options{Now: func() time.Time { return at }}))
	require.NoError(t, err)
	defer j.Close()
	ctx := t.Context()
	lines := []pos.Line{{SKU: "CASE", Name: "Phone case", HSN: "3926", Qty: 1, UnitPrice: 59900, GSTRate: pos.Percent(18)}}
	totals := pos.ComputeTotals(lines)
	day := pos.ToDay(at)
	shop, _ := json.Marshal(pos.Shop{Name: "Galla Mobiles", Address: []string{"14, MG Road"}, GSTIN: "29ABCDE1234F1Z5"})
	events := []pos.Event{
		{Kind: pos.EvSettingsChanged, Day: day, Time: at, Setting: &pos.Setting{Key: pos.SettingShop, Value: shop}},
		{Kind: pos.EvOrderIntent, OrderID: "G-1", Day: day, Time: at, Staff: "Asha",
			Intent: &pos.Intent{Tender: pos.TenderCash, Lines: lines, Totals: totals, Amount: totals.Total}},
		{Kind: pos.EvCashReceived, OrderID: "G-1", Day: day, Time: at, ReceiptNo: 1,
			Cash: &pos.CashEvent{Tendered: 100000, Change: 100000 - totals.Total}},
	}
	if printer != "" {
		p, _ := json.Marshal(receipts.Profile{Transport: receipts.TransportTCP, Address: printer, Width: 58, Timeout: 500 * time.Millisecond})
		events = append(events, pos.Event{Kind: pos.EvSettingsChanged, Day: day, Time: at, Setting: &pos.Setting{Key: pos.SettingPrinter, Value: p}})
	}
	for _, ev := range events {
		_, err := j.Log.Append(ctx, ev)
		require.NoError(t, err, "append %s", ev.Kind)
	}
	return dataDir, "G-1"
}

func runGalla(t *testing.T, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var out, errb bytes.Buffer
	c := &cli{stdin: strings.NewReader(""), stdout: &out, stderr: &errb, getenv: func(string) string { return "" }}
	code = c.main(args)
	return code, out.String(), errb.String()
}

func TestCmdReceipt(t *testing.T) {
	dir, id := receiptFixture(t, "")
	code, out, errs := runGalla(t, "--data", dir, "receipt", id)
	require.Equal(t, exitOK, code, errs)
	assert.Contains(t, out, "Galla Mobiles")
	assert.Contains(t, out, "Phone case")
	assert.Contains(t, out, "₹599.00")
	assert.Contains(t, out, "Paid by cash")
	assert.NotContains(t, out, "DUPLICATE", "the first copy is the original")

	code, out, errs = runGalla(t, "--data", dir, "receipt", id, "--format", "text")
	require.Equal(t, exitOK, code, errs)
	assert.NotContains(t, out, "DUPLICATE", "a view is no copy: the original is still to print")

	png := filepath.Join(dir, "r.png")
	code, _, errs = runGalla(t, "--data", dir, "receipt", id, "--format", "png", "--out", png)
	require.Equal(t, exitOK, code, errs)
	b, err := os.ReadFile(png)
	require.NoError(t, err)
	assert.True(t, bytes.HasPrefix(b, []byte("\x89PNG")))

	code, out, errs = runGalla(t, "--data", dir, "receipt", id, "--format", "escpos")
	require.Equal(t, exitOK, code, errs)
	assert.True(t, strings.HasPrefix(out, "\x1b@"))
	assert.NotContains(t, out, "DUPLICATE", "the PNG did not consume the original: the first paper copy is it")
	code, again, errs := runGalla(t, "--data", dir, "receipt", id, "--format", "escpos")
	require.Equal(t, exitOK, code, errs)
	assert.Contains(t, again, "DUPLICATE - reprint 1", "the second paper copy is a reprint")

	key, err := config.OpenSecrets(dir, nil).QRKey()
	require.NoError(t, err)
	i := strings.Index(out, "GALLA1|")
	require.GreaterOrEqual(t, i, 0, "the QR text is in the ESC/POS bytes")
	qr := out[i:]
	qr = qr[:strings.IndexByte(qr, 0x1d)]
	p, err := receipts.ParseQR(key, qr)
	require.NoError(t, err, "the QR code is signed with the terminal's key")
	assert.Equal(t, "G-1", p.MerchantOrderID)
	assert.Equal(t, int64(59900), p.Amount)
}

func TestCmdReceiptErrors(t *testing.T) {
	dir, _ := receiptFixture(t, "")
	tests := []struct {
		args []string
		code int
		want string
	}{
		{[]string{"receipt"}, exitBadInput, "Name one order"},
		{[]string{"receipt", "G-1", "--format", "docx"}, exitBadInput, "not known"},
		{[]string{"receipt", "G-404"}, exitBadInput, "No sale with this order number"},
		{[]string{"receipt", "G-1", "--print"}, exitBadInput, "No receipt printer is configured"},
	}
	for _, tt := range tests {
		code, _, errs := runGalla(t, append([]string{"--data", dir}, tt.args...)...)
		assert.Equal(t, tt.code, code, "%v: %s", tt.args, errs)
		assert.Contains(t, errs, tt.want, "%v", tt.args)
	}
	code, _, errs := runGalla(t, "--data", t.TempDir(), "receipt", "G-1")
	assert.Equal(t, exitBadInput, code)
	assert.Contains(t, errs, "no journal")
}

func TestCmdReceiptPrinterNotAnswering(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	t.Cleanup(func() { ln.Close() })
	go func() {
		for {
			c, err := ln.Accept() // accepts and never answers
			if err != nil {
				return
			}
			t.Cleanup(func() { c.Close() })
		}
	}()
	dir, id := receiptFixture(t, ln.Addr().String())
	start := time.Now()
	code, _, errs := runGalla(t, "--data", dir, "receipt", id, "--print")
	assert.Less(t, time.Since(start), 5*time.Second)
	assert.Equal(t, exitFailed, code)
	assert.Equal(t, "galla: Printer at 127.0.0.1 is not answering; the sale is saved — print it again once the printer answers (it prints as the original).\n", errs)

	j, err := journal.Open(filepath.Join(dir, journalFile), keyed(t, dir, journal.Options{}))
	require.NoError(t, err)
	defer j.Close()
	o, err := j.Orders.Order(t.Context(), id)
	require.NoError(t, err)
	assert.Contains(t, o.PrintError, "not answering", "the failed print is journaled")
	assert.Equal(t, pos.StatePaid, o.State, "the sale stands")
}

func TestCmdReceiptPrints(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	t.Cleanup(func() { ln.Close() })
	got := make(chan []byte, 1)
	go func() {
		c, err := ln.Accept()
		if err != nil {
			got <- nil
			return
		}
		defer c.Close()
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
		got <- all
	}()
	dir, id := receiptFixture(t, ln.Addr().String())
	code, out, errs := runGalla(t, "--data", dir, "receipt", id, "--print")
	require.Equal(t, exitOK, code, errs)
	assert.Empty(t, out, "--print alone writes nothing to standard output")
	job := <-got
	assert.True(t, bytes.HasPrefix(job, []byte{0x1b, 0x40}), "ESC @ first")
	assert.Contains(t, string(job), "Phone case")
	assert.Contains(t, string(job), "Rs.599.00", "a printer without ₹ gets Rs.")
	assert.NotContains(t, string(job), "DUPLICATE")

	j, err := journal.Open(filepath.Join(dir, journalFile), keyed(t, dir, journal.Options{}))
	require.NoError(t, err)
	defer j.Close()
	o, err := j.Orders.Order(t.Context(), id)
	require.NoError(t, err)
	assert.True(t, o.Printed, "the print is journaled")
	assert.Empty(t, o.PrintError)
}
