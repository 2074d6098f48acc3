package cli

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"galla/pos"
	"galla/pos/journal"
)

// TestStoreTotalsAreTheCountersOwnReports sells on two real counters (their
// journals, the embedded sandbox), syncs them to a store server, and checks
// the store's day against each counter's own report, then the store's Z
// against the counters' Z reports.
func TestStoreTotalsAreTheCountersOwnReports(t *testing.T) {
	db := pg.Get(t).Database(t)
	dir := t.TempDir()
	code, out, errOut := tillRun(t, dir, "", nil, "store", "init", "--db", db, "--host", "till-server.local")
	require.Equal(t, exitOK, code, errOut)
	addStoreManager(t, dir, db, "Meera")
	fp := strings.TrimSpace(out)
	addr, _ := serveStore(t, dir, db)

	pin := map[string]string{"GALLA_PIN": "432100"}
	counters := map[string]string{"T1": t.TempDir(), "T2": t.TempDir()}
	for id, cdir := range counters {
		code, _, errOut = tillRun(t, cdir, "432100\n", nil, "staff", "add", "Meera", "--role", "manager")
		require.Equal(t, exitOK, code, errOut)
		code, out, errOut = tillRun(t, dir, "", nil, "store", "enrol-code", id, "--db", db)
		require.Equal(t, exitOK, code, errOut)
		code, _, errOut = tillRun(t, cdir, "", pin, "enrol", addr, strings.TrimSpace(out), "--fingerprint", fp, "--staff", "Meera")
		require.Equal(t, exitOK, code, errOut)
	}
	// T1: two cash sales and a card sale; T2: one cash sale.
	for range 2 {
		code, _, errOut = tillRun(t, counters["T1"], "", pin, "checkout", "--staff", "Meera", "--items", "ACC-CBL-CC1M", "--pay", "cash")
		require.Equal(t, exitOK, code, errOut)
	}
	code, _, errOut = tillRun(t, counters["T1"], visaJSON, pin, "checkout", "--staff", "Meera", "--items", "ACC-CASE-S24", "--pay", "card", "--otp", "123456")
	require.Equal(t, exitOK, code, errOut)
	code, _, errOut = tillRun(t, counters["T2"], "", pin, "checkout", "--staff", "Meera", "--items", "ACC-CASE-S24:2", "--pay", "cash")
	require.Equal(t, exitOK, code, errOut)

	own := map[string]pos.Report{}
	for id, cdir := range counters {
		code, _, errOut = tillRun(t, cdir, "", nil, "sync")
		require.Equal(t, exitOK, code, errOut)
		code, out, errOut = tillRun(t, cdir, "", nil, "report", "--format", "json")
		require.Equal(t, exitOK, code, errOut)
		var r pos.Report
		require.NoError(t, json.Unmarshal([]byte(out), &r), out)
		own[id] = r
	}
	day := own["T1"].Day
	d := openStoreDB(t, dir, db)
	defer d.Close()
	rep, err := d.Reports.DayReport(t.Context(), day)
	require.NoError(t, err)
	require.Len(t, rep.Counters, 2)
	var sum pos.Paise
	for _, c := range rep.Counters {
		r := own[c.Terminal]
		assert.Equal(t, r.GrossSales, c.GrossSales, c.Terminal)
		assert.Equal(t, r.NetSales, c.NetSales, c.Terminal)
		assert.Equal(t, r.CashExpected, c.CashExpected, c.Terminal)
		assert.Equal(t, r.Sales, c.Sales, c.Terminal)
		assert.Equal(t, r.GST, c.GST, c.Terminal)
		assert.Equal(t, r.Unknown, c.Unknown, c.Terminal)
		sum += r.GrossSales
	}
	assert.Equal(t, sum, rep.Store.GrossSales)
	assert.Equal(t, 3, rep.Store.Sales[1].Count, "three cash sales in the store")

	// The store's day waits for T2's Z, then is the sum of the two.
	code, _, errOut = tillRun(t, counters["T1"], "", pin, "close-day")
	require.Equal(t, exitOK, code, errOut)
	code, _, errOut = tillRun(t, counters["T1"], "", nil, "sync")
	require.Equal(t, exitOK, code, errOut)
	code, _, errOut = tillRun(t, dir, "", storeManager, "store", "z", "--day", day, "--db", db)
	assert.Equal(t, exitFailed, code)
	assert.Contains(t, errOut, "counter T2 sold on "+day+" but its Z report has not reached the store")
	code, _, errOut = tillRun(t, counters["T2"], "", pin, "close-day")
	require.Equal(t, exitOK, code, errOut)
	code, _, errOut = tillRun(t, counters["T2"], "", nil, "sync")
	require.Equal(t, exitOK, code, errOut)
	code, out, errOut = tillRun(t, dir, "", storeManager, "store", "z", "--day", day, "--db", db)
	require.Equal(t, exitOK, code, errOut)
	assert.Contains(t, out, "the sum of 2 counters' Z reports")
	z, err := d.Reports.StoreZReport(t.Context(), day)
	require.NoError(t, err)
	assert.Equal(t, own["T1"].GrossSales+own["T2"].GrossSales, z.GrossSales)
	assert.Equal(t, own["T1"].CashExpected+own["T2"].CashExpected, z.CashExpected)
}

// TestIMEISoldOnceAcrossCounters sells a phone at one counter and its IMEI
// again at another: the store server refuses the second sale before anything
// is journaled or charged, and the first counter's sale stands. A counter whose
// store server is down refuses the phone too, with a sentence, and still sells
// what has no IMEI.
func TestIMEISoldOnceAcrossCounters(t *testing.T) {
	db := pg.Get(t).Database(t)
	dir := t.TempDir()
	code, out, errOut := tillRun(t, dir, "", nil, "store", "init", "--db", db, "--host", "till-server.local")
	require.Equal(t, exitOK, code, errOut)
	fp := strings.TrimSpace(out)
	addr, stop := serveStore(t, dir, db)

	pin := map[string]string{"GALLA_PIN": "432100"}
	counters := map[string]string{"T1": t.TempDir(), "T2": t.TempDir()}
	for id, cdir := range counters {
		code, _, errOut = tillRun(t, cdir, "432100\n", nil, "staff", "add", "Meera", "--role", "manager")
		require.Equal(t, exitOK, code, errOut)
		code, out, errOut = tillRun(t, dir, "", nil, "store", "enrol-code", id, "--db", db)
		require.Equal(t, exitOK, code, errOut)
		code, _, errOut = tillRun(t, cdir, "", pin, "enrol", addr, strings.TrimSpace(out), "--fingerprint", fp, "--staff", "Meera")
		require.Equal(t, exitOK, code, errOut)
	}
	const imei = "490154203237518"
	code, out, errOut = tillRun(t, counters["T1"], "", pin, "checkout", "--staff", "Meera", "--items", "PH-SAM-A55-128", "--imei", imei, "--pay", "cash")
	require.Equal(t, exitOK, code, errOut)
	first := decodeCheckout(t, out)

	code, out, errOut = tillRun(t, counters["T2"], "", pin, "checkout", "--staff", "Meera", "--items", "PH-SAM-A55-128", "--imei", imei, "--pay", "cash")
	assert.Equal(t, exitBadInput, code, "the IMEI is sold at T1: %s", out)
	assert.Contains(t, errOut, "The store refused")
	assert.Contains(t, errOut, "Nothing was charged")
	code, out, errOut = tillRun(t, counters["T2"], "", nil, "report", "--format", "json")
	require.Equal(t, exitOK, code, errOut)
	var rep pos.Report
	require.NoError(t, json.Unmarshal([]byte(out), &rep), out)
	assert.Zero(t, rep.GrossSales, "nothing was sold at T2")

	// The store server down: a phone waits, a cable sells.
	require.Equal(t, exitOK, stop())
	code, _, errOut = tillRun(t, counters["T2"], "", pin, "checkout", "--staff", "Meera", "--items", "PH-SAM-A55-128", "--imei", "356938035643809", "--pay", "cash")
	assert.Equal(t, exitBadInput, code)
	assert.Contains(t, errOut, "store server cannot be reached")
	code, _, errOut = tillRun(t, counters["T2"], "", pin, "checkout", "--staff", "Meera", "--items", "ACC-CBL-CC1M", "--pay", "cash")
	assert.Equal(t, exitOK, code, errOut)
	assert.NotEmpty(t, first.DocumentNo)

	// A cashier cannot override; the manager can, and the override is journaled.
	code, _, errOut = tillRun(t, counters["T2"], "2468\n432100\n", nil, "staff", "add", "Ravi", "--role", "cashier")
	require.Equal(t, exitOK, code, errOut)
	code, _, errOut = tillRun(t, counters["T2"], "", map[string]string{"GALLA_PIN": "2468"}, "checkout", "--staff", "Ravi", "--override-imei",
		"--items", "PH-SAM-A55-128", "--imei", "356938035643809", "--pay", "cash")
	assert.Equal(t, exitBadInput, code, "a cashier's PIN is no manager's: %s", errOut)
	code, out, errOut = tillRun(t, counters["T2"], "", pin, "checkout", "--staff", "Meera", "--override-imei",
		"--items", "PH-SAM-A55-128", "--imei", "356938035643809", "--pay", "cash")
	require.Equal(t, exitOK, code, errOut)
	sold := decodeCheckout(t, out)
	j, err := journal.Open(filepath.Join(counters["T2"], journalFile), keyed(t, counters["T2"], journal.Options{ReadOnly: true}))
	require.NoError(t, err)
	defer j.Close()
	var overrides []map[string]string
	require.NoError(t, j.Log.EventsFrom(t.Context(), 1, func(ev pos.Event) error {
		if ev.Kind == pos.EvOverride && ev.Extra["what"] == "imei" {
			overrides = append(overrides, ev.Extra)
		}
		return nil
	}))
	require.Len(t, overrides, 1, "the manager's override, once")
	assert.Equal(t, sold.MerchantOrderID, overrides[0]["order_id"])
	assert.Equal(t, "356938035643809", overrides[0]["imei1"])
}
