package cli

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestExportGSTR1ForEachGSTIN: a shop that moved from Pune to Bengaluru on
// 20 Nov 2026 and took a new GSTIN there files November's GSTR-1 under each
// GSTIN: galla export gstr1 asks which with --gstin, each return holds only
// the documents issued under its GSTIN, and a GSTIN the shop never held, or
// did not hold in the period, is refused with a sentence.
//
// By hand, each return's one sale is a cable at ₹499.00, 18%: taxable
// 499.00 / 1.18 = 422.88, CGST = SGST = round(422.88 × 9%) = round(38.0592)
// = 38.06.
func TestExportGSTR1ForEachGSTIN(t *testing.T) {
	const pune, bengaluru, never = "27AAPFU0939F1ZV", "29AAGCB7383J1Z4", "29AAPFU0939F1ZR"
	d := newDatedCounter(t, time.Date(2026, 11, 10, 11, 0, 0, 0, time.Local))
	first := d.sell()
	d.clk.Advance(10 * 24 * time.Hour)
	code, _, errOut := d.run("", d.pin, "shop", "set", "--name", "Galla Mobiles", "--address", "5 Brigade Road, Bengaluru",
		"--state", "29", "--gstin", bengaluru)
	require.Equal(t, exitOK, code, errOut)
	second := d.sell()
	require.Equal(t, []string{"T1/2627/000001", "T1/2627/000002"}, []string{first.DocumentNo, second.DocumentNo})
	d.clk.Advance(12 * 24 * time.Hour) // 2 Dec

	code, out, errOut := d.run("", nil, "export", "gstr1", "--month", "2026-11")
	assert.Equal(t, exitBadInput, code)
	assert.Empty(t, out)
	assert.Contains(t, errOut, "In 2026-11 the shop was registered under "+pune+" and "+bengaluru+
		", and a GSTR-1 is filed per GSTIN: say which with --gstin (for example --gstin "+bengaluru+").")

	for _, tc := range []struct {
		gstin, state, doc, other string
	}{
		{pune, "27", first.DocumentNo, second.DocumentNo + " under GSTIN " + bengaluru},
		{bengaluru, "29", second.DocumentNo, first.DocumentNo + " under GSTIN " + pune},
	} {
		code, out, errOut = d.run("", nil, "export", "gstr1", "--month", "2026-11", "--gstin", tc.gstin)
		require.Equal(t, exitOK, code, errOut)
		var r exportReturn
		require.NoError(t, json.Unmarshal([]byte(out), &r), out)
		assert.Equal(t, tc.gstin, r.GSTIN)
		assert.Equal(t, "112026", r.FP)
		require.Len(t, r.B2CS, 1, tc.gstin)
		b := r.B2CS[0]
		assert.Equal(t, []any{"INTRA", tc.state, "18", int64(422_88), int64(38_06), int64(38_06)},
			[]any{b.SplyTy, b.POS, b.Rt.String(), paiseOf(t, b.TxVal), paiseOf(t, b.CAmt), paiseOf(t, b.SAmt)}, tc.gstin)
		require.Len(t, r.DocIssue.DocDet, 1, tc.gstin)
		require.Len(t, r.DocIssue.DocDet[0].Docs, 1, tc.gstin)
		assert.Equal(t, tc.doc, r.DocIssue.DocDet[0].Docs[0].From)
		assert.Equal(t, tc.doc, r.DocIssue.DocDet[0].Docs[0].To)
		assert.Contains(t, errOut, tc.other+".", "the other GSTIN's document is named")
	}

	// The quarter's return takes --gstin the same way.
	code, out, errOut = d.run("", nil, "export", "gstr1", "--quarter", "2026-Q4", "--gstin", pune)
	require.Equal(t, exitOK, code, errOut)
	var q exportReturn
	require.NoError(t, json.Unmarshal([]byte(out), &q), out)
	assert.Equal(t, pune, q.GSTIN)

	code, out, errOut = d.run("", nil, "export", "gstr1", "--month", "2026-11", "--gstin", never)
	assert.Equal(t, exitBadInput, code)
	assert.Empty(t, out)
	assert.Contains(t, errOut, "The shop never held GSTIN "+never+" (its GSTINs: "+pune+", "+bengaluru+"): give one of them to --gstin.")

	// December is wholly under the Bengaluru GSTIN: its return is that
	// GSTIN's without --gstin, and the Pune GSTIN files none.
	code, out, errOut = d.run("", nil, "export", "gstr1", "--month", "2026-12")
	require.Equal(t, exitOK, code, errOut)
	var dec exportReturn
	require.NoError(t, json.Unmarshal([]byte(out), &dec), out)
	assert.Equal(t, bengaluru, dec.GSTIN)
	code, _, errOut = d.run("", nil, "export", "gstr1", "--month", "2026-12", "--gstin", pune)
	assert.Equal(t, exitBadInput, code)
	assert.Contains(t, errOut, "GSTIN "+pune+" was not the shop's regular registration in 2026-12 ("+bengaluru+" was): it files no GSTR-1 for it; give the period in which it was.")

	code, _, errOut = d.run("", nil, "export", "csv", "--from", "2026-11-01", "--gstin", pune)
	assert.Equal(t, exitBadInput, code)
	assert.Contains(t, errOut, "not --month or --gstin")
}
