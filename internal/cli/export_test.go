package cli

import (
	"encoding/csv"
	"encoding/json"
	"galla/pos"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// exportReturn is the part of the GSTR-1 JSON the command-line test reads.
type exportReturn struct {
	GSTIN string `json:"gstin"`
	FP    string `json:"fp"`
	B2CS  []struct {
		SplyTy string      `json:"sply_ty"`
		POS    string      `json:"pos"`
		Rt     json.Number `json:"rt"`
		TxVal  json.Number `json:"txval"`
		CAmt   json.Number `json:"camt"`
		SAmt   json.Number `json:"samt"`
	} `json:"b2cs"`
	HSN struct {
		B2C []struct {
			HSNSc string      `json:"hsn_sc"`
			Qty   int         `json:"qty"`
			TxVal json.Number `json:"txval"`
		} `json:"hsn_b2c"`
	} `json:"hsn"`
	DocIssue struct {
		DocDet []struct {
			DocNum int `json:"doc_num"`
			Docs   []struct {
				From   string `json:"from"`
				To     string `json:"to"`
				TotNum int    `json:"totnum"`
			} `json:"docs"`
		} `json:"doc_det"`
	} `json:"doc_issue"`
}

// paiseOf reads a JSON amount of rupees with two decimals as paise, exactly.
func paiseOf(t *testing.T, n json.Number) int64 {
	t.Helper()
	s := n.String()
	i := strings.IndexByte(s, '.')
	require.True(t, i >= 0 && len(s)-i == 3, "an amount with two decimals: %s", s)
	var p int64
	for _, r := range strings.Replace(s, ".", "", 1) {
		require.True(t, r >= '0' && r <= '9', "digits: %s", s)
		p = p*10 + int64(r-'0')
	}
	return p
}

func TestExportCommands(t *testing.T) {
	dir := t.TempDir()
	pin := map[string]string{"GALLA_PIN": "432100"}
	code, _, errOut := tillRun(t, dir, "432100\n", nil, "staff", "add", "Meera", "--role", "manager")
	require.Equal(t, exitOK, code, errOut)

	fy := pos.FinancialYear(time.Now()) // the series of this year's documents (T1/2627/…)

	// No GSTIN yet: no GSTR-1.
	month := time.Now().Format("2006-01")
	code, _, errOut = tillRun(t, dir, "", nil, "export", "gstr1", "--month", month)
	assert.Equal(t, exitBadInput, code)
	assert.Contains(t, errOut, "GSTIN, which is not set")

	code, _, errOut = tillRun(t, dir, "", pin, "shop", "set", "--name", "Galla Mobiles", "--address", "1 MG Road, Pune",
		"--state", "27", "--gstin", "27AAPFU0939F1ZV")
	require.Equal(t, exitOK, code, errOut)

	before := time.Now()
	// Two cables at ₹499.00 and a case at ₹1,499.00, all at 18%, by cash; then
	// ₹100.00 of the case's sale refunded.
	code, out, errOut := tillRun(t, dir, "", pin, "checkout", "--staff", "Meera", "--items", "ACC-CBL-CC1M:2", "--pay", "cash", "--cash", "100000")
	require.Equal(t, exitOK, code, errOut)
	assert.Equal(t, uint64(1), decodeCheckout(t, out).ReceiptNo)
	code, out, errOut = tillRun(t, dir, "", pin, "checkout", "--staff", "Meera", "--items", "ACC-CASE-S24", "--pay", "cash", "--cash", "150000")
	require.Equal(t, exitOK, code, errOut)
	caseSale := decodeCheckout(t, out)
	code, _, errOut = tillRun(t, dir, "", pin, "refund", caseSale.MerchantOrderID, "--amount", "10000")
	require.Equal(t, exitOK, code, errOut)
	after := time.Now()

	// The sales and the refund fall in one month, or (past midnight at a month's
	// end) in two: the b2cs of those months add up to the sales less the refund.
	months := []string{before.Format("2006-01")}
	if m := after.Format("2006-01"); m != months[0] {
		months = append(months, m)
	}
	var txval, camt, samt int64
	var docs []string
	for _, m := range months {
		file := filepath.Join(dir, "gstr1-"+m+".json")
		code, out, errOut = tillRun(t, dir, "", nil, "export", "gstr1", "--month", m, "--out", file)
		require.Equal(t, exitOK, code, errOut)
		assert.Empty(t, out, "the JSON goes to the file")
		assert.Contains(t, errOut, "written to "+file)
		raw, err := os.ReadFile(file)
		require.NoError(t, err)
		var r exportReturn
		require.NoError(t, json.Unmarshal(raw, &r), "%s", raw)
		assert.Equal(t, "27AAPFU0939F1ZV", r.GSTIN)
		assert.Equal(t, m[5:7]+m[:4], r.FP)
		for _, e := range r.B2CS {
			assert.Equal(t, "INTRA", e.SplyTy)
			assert.Equal(t, "27", e.POS)
			assert.Equal(t, "18", e.Rt.String())
			txval += paiseOf(t, e.TxVal)
			camt += paiseOf(t, e.CAmt)
			samt += paiseOf(t, e.SAmt)
		}
		for _, d := range r.DocIssue.DocDet {
			for _, s := range d.Docs {
				docs = append(docs, s.From+".."+s.To)
			}
		}
	}
	// By hand: 2 × 499.00 = 998.00 → taxable 99800×100/118 = 845.762… → 845.76,
	// CGST = SGST = 9% of it, 76.1184 → 76.12; 1,499.00 → 1,270.34, 114.3306 →
	// 114.33 each; the refund of 100.00 → 84.75, 7.6275 → 7.63 each (half away
	// from zero, as the portal computes per document and rate).
	assert.Equal(t, int64(845_76+1270_34-84_75), txval, "b2cs taxable value: the sales less the return")
	assert.Equal(t, int64(76_12+114_33-7_63), camt, "CGST")
	assert.Equal(t, int64(76_12+114_33-7_63), samt, "SGST")
	assert.ElementsMatch(t, []string{"T1/" + fy + "/000001..T1/" + fy + "/000002", "T1/C" + fy + "/00001..T1/C" + fy + "/00001"}, docs, "two invoices and one credit note")

	// To standard output without --out.
	code, out, errOut = tillRun(t, dir, "", nil, "export", "gstr1", "--month", months[0])
	require.Equal(t, exitOK, code, errOut)
	assert.True(t, json.Valid([]byte(out)), "%s", out)

	// The CSV: one row per line sold or returned.
	file := filepath.Join(dir, "lines.csv")
	code, _, errOut = tillRun(t, dir, "", nil, "export", "csv", "--from", before.Format(time.DateOnly), "--to", after.Format(time.DateOnly), "--out", file)
	require.Equal(t, exitOK, code, errOut)
	f, err := os.Open(file)
	require.NoError(t, err)
	defer f.Close()
	rows, err := csv.NewReader(f).ReadAll()
	require.NoError(t, err)
	require.Len(t, rows, 4, "a header, the cables, the case and the refund")
	assert.Equal(t, "document_no", rows[0][0])
	assert.Equal(t, []string{"T1/" + fy + "/000001", "invoice", "8544", "2", "845.76", "76.12", "76.12"},
		[]string{rows[1][0], rows[1][2], rows[1][8], rows[1][9], rows[1][11], rows[1][14], rows[1][15]})
	assert.Equal(t, []string{"T1/C" + fy + "/00001", "credit-note", "T1/" + fy + "/000002", "0", "-84.75", "-7.63", "-7.63"},
		[]string{rows[3][0], rows[3][2], rows[3][3], rows[3][9], rows[3][11], rows[3][14], rows[3][15]})
}

func TestExportBadInput(t *testing.T) {
	dir := t.TempDir()
	for _, c := range []struct {
		name string
		args []string
		says string
	}{
		{"month 13", []string{"export", "gstr1", "--month", "2026-13"}, `The month "2026-13" is not YYYY-MM`},
		{"no month", []string{"export", "gstr1"}, "--month YYYY-MM"},
		{"a day for a month", []string{"export", "gstr1", "--month", "2026-07-01"}, "is not YYYY-MM"},
		{"days for gstr1", []string{"export", "gstr1", "--month", "2026-07", "--from", "2026-07-01"}, "takes a --month"},
		{"quarter 5", []string{"export", "gstr1", "--quarter", "2026-Q5"}, `The quarter "2026-Q5" is not YYYY-Qn`},
		{"month and quarter", []string{"export", "gstr1", "--month", "2026-07", "--quarter", "2026-Q3"}, "Give one period"},
		{"iff-filed alone", []string{"export", "gstr1", "--month", "2026-07", "--iff-filed"}, "--iff-filed goes with --quarter"},
		{"from after to", []string{"export", "csv", "--from", "2026-07-10", "--to", "2026-07-09"}, "is after the last day"},
		{"too long", []string{"export", "csv", "--from", "2020-01-01", "--to", "2026-01-01"}, "at most 1096 days"},
		{"no from", []string{"export", "csv", "--to", "2026-07-09"}, "--from YYYY-MM-DD"},
		{"bad day", []string{"export", "csv", "--from", "2026-02-30"}, `the day "2026-02-30" is not YYYY-MM-DD`},
		{"no such export", []string{"export", "gstr3b"}, `"gstr3b" is not an export`},
		{"no export", []string{"export"}, "Use galla export gstr1"},
		{"unwritable out", []string{"export", "csv", "--from", "2026-07-01", "--out", filepath.Join(dir, "no", "such", "lines.csv")}, "cannot be written to"},
		{"out is a folder", []string{"export", "gstr1", "--month", "2026-07", "--out", dir}, "is a folder"},
	} {
		t.Run(c.name, func(t *testing.T) {
			code, out, errOut := tillRun(t, dir, "", nil, c.args...)
			assert.Equal(t, exitBadInput, code)
			assert.Empty(t, out)
			assert.Contains(t, errOut, c.says)
			assert.Equal(t, 1, strings.Count(strings.TrimSpace(errOut), "\n")+1, "one sentence: %q", errOut)
		})
	}
	entries, err := os.ReadDir(dir)
	require.NoError(t, err)
	for _, e := range entries {
		assert.False(t, strings.HasPrefix(e.Name(), "."), "no temporary file left: %s", e.Name())
	}
}
