package cli

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"galla/internal/testclock"
)

// tillRunAt is tillRun with the counter's clock clk.
func tillRunAt(t *testing.T, clk *testclock.Clock, dataDir, stdin string, env map[string]string, args ...string) (int, string, string) {
	t.Helper()
	var out, errOut bytes.Buffer
	c := &cli{stdin: strings.NewReader(stdin), stdout: &out, stderr: &errOut,
		getenv: func(k string) string { return env[k] }, clock: clk}
	code := c.main(append([]string{"--data", dataDir}, args...))
	return code, out.String(), errOut.String()
}

// datedCounter is a counter with a manager and the shop's GSTIN, selling on clk.
type datedCounter struct {
	t   *testing.T
	clk *testclock.Clock
	dir string
	pin map[string]string
}

func newDatedCounter(t *testing.T, start time.Time) *datedCounter {
	d := &datedCounter{t: t, clk: testclock.New(start), dir: t.TempDir(), pin: map[string]string{"GALLA_PIN": "432100"}}
	code, _, errOut := d.run("432100\n", nil, "staff", "add", "Meera", "--role", "manager")
	require.Equal(t, exitOK, code, errOut)
	code, _, errOut = d.run("", d.pin, "shop", "set", "--name", "Galla Mobiles", "--address", "1 MG Road, Pune",
		"--state", "27", "--gstin", "27AAPFU0939F1ZV")
	require.Equal(t, exitOK, code, errOut)
	return d
}

func (d *datedCounter) run(stdin string, env map[string]string, args ...string) (int, string, string) {
	d.t.Helper()
	return tillRunAt(d.t, d.clk, d.dir, stdin, env, args...)
}

// sell sells a cable for cash and returns its document number.
func (d *datedCounter) sell() checkoutOutput {
	d.t.Helper()
	code, out, errOut := d.run("", d.pin, "checkout", "--staff", "Meera", "--items", "ACC-CBL-CC1M", "--pay", "cash", "--cash", "50000")
	require.Equal(d.t, exitOK, code, errOut)
	return decodeCheckout(d.t, out)
}

// saleDays reads the sale_day of every row of day's report as CSV, by order.
func (d *datedCounter) saleDays(day string) map[string]string {
	d.t.Helper()
	code, out, errOut := d.run("", nil, "report", "--day", day, "--format", "csv")
	require.Equal(d.t, exitOK, code, errOut)
	rows, err := csv.NewReader(strings.NewReader(out)).ReadAll()
	require.NoError(d.t, err)
	require.NotEmpty(d.t, rows)
	col := func(name string) int {
		for i, h := range rows[0] {
			if h == name {
				return i
			}
		}
		d.t.Fatalf("no column %s in %v", name, rows[0])
		return -1
	}
	days := map[string]string{}
	for _, r := range rows[1:] {
		days[r[col("order_id")]] = r[col("sale_day")]
	}
	return days
}

// gstr1Docs are the document ranges of month's GSTR-1.
func (d *datedCounter) gstr1Docs(month string) []string {
	d.t.Helper()
	code, out, errOut := d.run("", nil, "export", "gstr1", "--month", month)
	require.Equal(d.t, exitOK, code, errOut)
	var r exportReturn
	require.NoError(d.t, json.Unmarshal([]byte(out), &r), "%s", out)
	var docs []string
	for _, det := range r.DocIssue.DocDet {
		for _, s := range det.Docs {
			docs = append(docs, s.From+".."+s.To)
		}
	}
	return docs
}

// TestSaleAfterTheZKeepsItsDate: on Thu 26 Nov a sale, the Z at 20:00, and a
// sale at 20:30 (ADR 0010). The evening's sale, its shift, the X report, the
// report's CSV and the month's GSTR-1 all say 26 Nov; the second Z of the date
// is Z 2 of 26 Nov and covers only the evening; a third finds nothing after
// it; the next calendar date's sale is the 27th's.
func TestSaleAfterTheZKeepsItsDate(t *testing.T) {
	d := newDatedCounter(t, time.Date(2026, 11, 26, 11, 0, 0, 0, time.Local))
	code, _, errOut := d.run("", d.pin, "shift", "open", "--float", "0")
	require.Equal(t, exitOK, code, errOut)
	morning := d.sell()
	code, _, errOut = d.run("", d.pin, "shift", "close", "--counted", "49900")
	require.Equal(t, exitOK, code, errOut)

	d.clk.Advance(9 * time.Hour) // 20:00
	code, out, errOut := d.run("", d.pin, "close-day")
	require.Equal(t, exitOK, code, errOut)
	assert.Contains(t, out, "Z report no. 1 — 2026-11-26")

	// The evening's sale, after the Z, on a shift of the same date.
	d.clk.Advance(30 * time.Minute)
	code, _, errOut = d.run("", d.pin, "shift", "open", "--float", "0")
	require.Equal(t, exitOK, code, errOut)
	evening := d.sell()
	assert.Equal(t, "T1/2627/000002", evening.DocumentNo)
	code, out, errOut = d.run("", nil, "report", "--shift", "current")
	require.Equal(t, exitOK, code, errOut)
	assert.Contains(t, out, "Business day 2026-11-26")
	code, out, errOut = d.run("", nil, "report", "--format", "json")
	require.Equal(t, exitOK, code, errOut)
	var rep struct {
		Day    string `json:"day"`
		Orders []struct {
			SaleDay string `json:"sale_day"`
		} `json:"orders"`
	}
	require.NoError(t, json.Unmarshal([]byte(out), &rep), "%s", out)
	assert.Equal(t, "2026-11-26", rep.Day, "the report of today is the 26th's")
	assert.Len(t, rep.Orders, 2, "the date's report holds both periods")
	assert.Equal(t, map[string]string{morning.MerchantOrderID: "2026-11-26", evening.MerchantOrderID: "2026-11-26"}, d.saleDays("2026-11-26"),
		"the CSV dates the evening's invoice with its calendar date")
	assert.Equal(t, []string{"T1/2627/000001..T1/2627/000002"}, d.gstr1Docs("2026-11"), "both invoices are November's")

	// The second Z of the 26th: the evening only.
	code, _, errOut = d.run("", d.pin, "shift", "close", "--counted", "49900")
	require.Equal(t, exitOK, code, errOut)
	d.clk.Advance(time.Hour) // 21:30
	code, out, errOut = d.run("", d.pin, "close-day", "--format", "json")
	require.Equal(t, exitOK, code, errOut)
	var z2 struct {
		Kind       string `json:"kind"`
		ZNo        uint64 `json:"z_no"`
		Day        string `json:"day"`
		Period     int    `json:"period"`
		GrossSales int64  `json:"gross_sales"`
	}
	require.NoError(t, json.Unmarshal([]byte(out), &z2), "%s", out)
	assert.Equal(t, "Z", z2.Kind)
	assert.Equal(t, uint64(2), z2.ZNo)
	assert.Equal(t, "2026-11-26", z2.Day)
	assert.Equal(t, 2, z2.Period)
	assert.Equal(t, int64(49900), z2.GrossSales, "the second Z covers the sale after the first only")
	code, _, errOut = d.run("", d.pin, "close-day")
	assert.Equal(t, exitBadInput, code)
	assert.Contains(t, errOut, "Thu 26 Nov 2026 is closed (Z 2); nothing was sold after it.")
	assert.Equal(t, map[string]string{morning.MerchantOrderID: "2026-11-26", evening.MerchantOrderID: "2026-11-26"}, d.saleDays("2026-11-26"))

	// The next calendar date.
	d.clk.Advance(12 * time.Hour) // Fri 27 Nov 09:30
	code, _, errOut = d.run("", d.pin, "shift", "open", "--float", "0")
	require.Equal(t, exitOK, code, errOut)
	next := d.sell()
	assert.Equal(t, map[string]string{next.MerchantOrderID: "2026-11-27"}, d.saleDays("2026-11-27"))
	code, out, errOut = d.run("", nil, "report", "--shift", "current")
	require.Equal(t, exitOK, code, errOut)
	assert.Contains(t, out, "Business day 2026-11-27")
}

// TestMonthEndSaleAfterTheZ: the evening sale of 31 Dec after its Z is
// December's, in the CSV and in GSTR-1; January's return holds none of it.
func TestMonthEndSaleAfterTheZ(t *testing.T) {
	d := newDatedCounter(t, time.Date(2026, 12, 31, 12, 0, 0, 0, time.Local))
	day := d.sell()
	d.clk.Advance(8 * time.Hour) // 20:00
	code, _, errOut := d.run("", d.pin, "close-day")
	require.Equal(t, exitOK, code, errOut)
	d.clk.Advance(time.Hour) // 21:00
	evening := d.sell()
	assert.Equal(t, map[string]string{day.MerchantOrderID: "2026-12-31", evening.MerchantOrderID: "2026-12-31"}, d.saleDays("2026-12-31"))
	assert.Equal(t, []string{"T1/2627/000001..T1/2627/000002"}, d.gstr1Docs("2026-12"), "the evening's invoice is in December's return")
	assert.Empty(t, d.gstr1Docs("2027-01"), "and not in January's")
}
