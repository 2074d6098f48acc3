package cli

import (
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestStockReportCommands: galla stock moves lists a day's delivery, sale,
// return set aside as damaged, count and transfer one row each, in text and
// CSV; the next day lists none of them; galla stock slow lists what has not
// sold in the days asked, the most stale first.
func TestStockReportCommands(t *testing.T) {
	d := newDatedCounter(t, time.Date(2026, 11, 22, 10, 0, 0, 0, time.Local))
	ok := func(env map[string]string, args ...string) string {
		t.Helper()
		code, out, errOut := d.run("", env, args...)
		require.Equal(t, exitOK, code, errOut)
		return out
	}
	ok(d.pin, "stock", "receive", "--supplier", "Sai Distributors", "--invoice", "SD/1", "--date", "2026-11-22",
		"--items", "PH-SAM-A55-128:2@2500000,ACC-CBL-CC1M:5@10000", "--imei", luhnIMEI(1)+","+luhnIMEI(3))
	d.clk.Advance(time.Hour)
	co := decodeCheckout(t, ok(d.pin, "checkout", "--staff", "Meera", "--items", "PH-SAM-A55-128,ACC-CBL-CC1M", "--pay", "cash", "--imei", luhnIMEI(1)))
	d.clk.Advance(time.Hour)
	ok(d.pin, "return", co.DocumentNo, "--items", "PH-SAM-A55-128", "--imei", luhnIMEI(1), "--to", "cash", "--reason", "screen", "--damaged")
	ok(d.pin, "stock", "count", "--sku", "ACC-CBL-CC1M", "--counted", "3", "--apply", "--reason", "one lost")
	ok(d.pin, "stock", "send", "--to", "Store 2", "--items", "PH-SAM-A55-128:1", "--imei", luhnIMEI(3))

	out := ok(nil, "stock", "moves", "--format", "csv")
	inv := "invoice " + co.DocumentNo
	want := strings.Join([]string{
		"time,kind,sku,imei,qty,document,staff",
		"2026-11-22 10:00:00,received,PH-SAM-A55-128," + luhnIMEI(1) + ",1,Sai Distributors SD/1,001",
		"2026-11-22 10:00:00,received,PH-SAM-A55-128," + luhnIMEI(3) + ",1,Sai Distributors SD/1,001",
		"2026-11-22 10:00:00,received,ACC-CBL-CC1M,,5,Sai Distributors SD/1,001",
		"2026-11-22 11:00:00,sold,ACC-CBL-CC1M,,-1," + inv + ",Meera",
		"2026-11-22 11:00:00,sold,PH-SAM-A55-128," + luhnIMEI(1) + ",-1," + inv + ",Meera",
		"2026-11-22 12:00:00,returned,PH-SAM-A55-128," + luhnIMEI(1) + ",1,credit note T1/C2627/00001,001",
		"2026-11-22 12:00:00,damaged,PH-SAM-A55-128," + luhnIMEI(1) + ",-1,returned damaged: screen,001",
		"2026-11-22 12:00:00,counted,ACC-CBL-CC1M,,-1,count: one lost,001",
		"2026-11-22 12:00:00,sent,PH-SAM-A55-128," + luhnIMEI(3) + ",-1,transfer T1/TR/1,001",
	}, "\n") + "\n"
	assert.Equal(t, want, out, "today, the day by default")
	assert.Equal(t, want, ok(nil, "stock", "moves", "--day", "2026-11-22", "--format", "csv"))
	assert.Equal(t, want, ok(nil, "stock", "moves", "--from", "2026-11-21", "--to", "2026-11-23", "--format", "csv"), "the days around it")
	assert.Equal(t, want, ok(nil, "stock", "moves", "--from", "2026-11-22", "--format", "csv"), "from the day to today")
	assert.Equal(t, "No stock moved.\n", ok(nil, "stock", "moves", "--from", "2026-11-20", "--to", "2026-11-21"), "the days before")

	// Text: the columns aligned, quantities signed.
	text := ok(nil, "stock", "moves", "--day", "2026-11-22")
	lines := strings.Split(strings.TrimSpace(text), "\n")
	require.Len(t, lines, 9, text)
	col := strings.Index(lines[0], "PH-SAM-A55-128")
	require.Positive(t, col)
	for _, l := range lines {
		assert.Equal(t, col, strings.IndexAny(l, "PA"), "the SKU column lines up: %q", l)
	}
	assert.Contains(t, lines[3], " -1 ")
	assert.Contains(t, lines[2], " +5 ")

	code, _, errOut := d.run("", nil, "stock", "moves", "--day", "2026-11-22", "--shift", "x")
	assert.Equal(t, exitBadInput, code)
	assert.Contains(t, errOut, "galla stock moves [--day")
	for _, bad := range [][]string{{"--day", "2026-11-22", "--from", "2026-11-21"}, {"--to", "2026-11-22"}} {
		code, _, errOut = d.run("", nil, append([]string{"stock", "moves"}, bad...)...)
		assert.Equal(t, exitBadInput, code, "%v", bad)
		assert.Contains(t, errOut, "--from YYYY-MM-DD", "%v", bad)
	}
	code, _, errOut = d.run("", nil, "stock", "moves", "--from", "2026-11-23", "--to", "2026-11-22")
	assert.Equal(t, exitBadInput, code)
	assert.Contains(t, errOut, "give the first day first")
	code, _, errOut = d.run("", nil, "stock", "moves", "--shift", "nope")
	assert.Equal(t, exitBadInput, code)
	assert.Contains(t, errOut, "nope")

	d.clk.Advance(24 * time.Hour)
	assert.Equal(t, "No stock moved.\n", ok(nil, "stock", "moves"), "the next day")

	// Seventy days on: the cables sold once, on the first day; the phones
	// are all sold, sent or set aside.
	d.clk.Advance(69 * 24 * time.Hour)
	assert.Equal(t, "sku,name,brand,days,never_sold,last_sold,on_hand,cost_paise\n"+
		"ACC-CBL-CC1M,Portronics Konnect USB-C to USB-C Cable 1 m,Portronics,70,false,2026-11-22,3,30000\n",
		ok(nil, "stock", "slow", "--format", "csv"))
	assert.Contains(t, ok(nil, "stock", "slow", "--days", "70"), "70 days")
	assert.Equal(t, "Everything on hand sold in the last 71 days.\n", ok(nil, "stock", "slow", "--days", "71"))
	code, _, _ = d.run("", nil, "stock", "slow", "--days", "0")
	assert.Equal(t, exitBadInput, code)
}
