package cli

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"galla/pos"
)

// TestCountersOfOneStore returns at T2 a cable T1 sold, and spends at T2 a
// credit note T1 issued, from the command line: each once, store-wide.
func TestCountersOfOneStore(t *testing.T) {
	db := pg.Get(t).Database(t)
	dir := t.TempDir()
	code, out, errOut := tillRun(t, dir, "", nil, "store", "init", "--db", db, "--host", "till-server.local")
	require.Equal(t, exitOK, code, errOut)
	fp := strings.TrimSpace(out)
	addr, stop := serveStore(t, dir, db)
	pin := map[string]string{"GALLA_PIN": "432100"}
	counters := map[string]string{}
	for _, id := range []string{"T1", "T2"} {
		code, out, errOut = tillRun(t, dir, "", nil, "store", "enrol-code", id, "--db", db)
		require.Equal(t, exitOK, code, errOut)
		counters[id] = t.TempDir()
		// A new counter is enrolled before its first use: the enrolment starts
		// its journal, and the counter then works as any other.
		enrolCode := strings.TrimSpace(out)
		code, _, errOut = tillRun(t, counters[id], "432100\n", nil, "staff", "add", "Meera", "--role", "manager")
		require.Equal(t, exitOK, code, errOut)
		code, _, errOut = tillRun(t, counters[id], "", pin, "enrol", addr, enrolCode, "--fingerprint", fp, "--staff", "Meera")
		require.Equal(t, exitOK, code, errOut)
	}
	t1, t2 := counters["T1"], counters["T2"]
	fy := pos.FinancialYear(time.Now())

	// T1 sells two cables for cash and takes one back onto a note (₹499).
	code, out, errOut = tillRun(t, t1, "", pin, "checkout", "--staff", "Meera", "--items", "ACC-CBL-CC1M:2", "--pay", "cash")
	require.Equal(t, exitOK, code, errOut)
	sale := decodeCheckout(t, out)
	require.Equal(t, "T1/"+fy+"/000001", sale.DocumentNo)
	code, out, errOut = tillRun(t, t1, "", pin, "return", sale.DocumentNo, "--items", "ACC-CBL-CC1M:1", "--to", "note")
	require.Equal(t, exitOK, code, errOut)
	var note returnOutput
	require.NoError(t, json.Unmarshal([]byte(out), &note), out)
	require.Equal(t, "T1/C"+fy+"/00001", note.CreditNoteNo)
	code, _, errOut = tillRun(t, t1, "", nil, "sync")
	require.Equal(t, exitOK, code, errOut)

	// T2 takes the other cable back in cash: ₹998 − ₹499 = ₹499; taxable
	// ⌊(9980000+59)/118⌋ − ⌊(4990000+59)/118⌋ = 84576 − 42288 = 42288, tax 7612.
	code, out, errOut = tillRun(t, t2, "", pin, "return", sale.DocumentNo, "--items", "ACC-CBL-CC1M:1", "--to", "cash")
	require.Equal(t, exitOK, code, errOut)
	var got returnOutput
	require.NoError(t, json.Unmarshal([]byte(out), &got), out)
	assert.Equal(t, "T2/C"+fy+"/00001", got.CreditNoteNo)
	assert.Equal(t, sale.DocumentNo, got.InvoiceNo)
	assert.Equal(t, []pos.Paise{49900, 42288, 7612}, []pos.Paise{got.Amount, got.Taxable, got.Tax})
	code, out, errOut = tillRun(t, t2, "", nil, "receipt", got.CreditNoteNo)
	require.Equal(t, exitOK, code, errOut)
	assert.Contains(t, out, "Against invoice")
	assert.Contains(t, out, sale.DocumentNo)

	// Nothing is left of the invoice, at T2 or at T1.
	code, _, errOut = tillRun(t, t2, "", pin, "return", sale.DocumentNo, "--amount", "100", "--to", "cash")
	assert.Equal(t, exitBadInput, code)
	assert.Contains(t, errOut, "refunded in full already")
	code, _, errOut = tillRun(t, t1, "", pin, "return", sale.DocumentNo, "--amount", "100", "--to", "cash")
	assert.Equal(t, exitBadInput, code)
	assert.Contains(t, errOut, "The store refused")

	// T2 spends T1's note on a cable; then T1 cannot.
	code, out, errOut = tillRun(t, t2, "", pin, "checkout", "--staff", "Meera", "--items", "ACC-CBL-CC1M", "--pay", "note:"+note.CreditNoteNo)
	require.Equal(t, exitOK, code, errOut)
	var paid struct {
		checkoutOutput
		NoteLeft pos.Paise `json:"note_left"`
	}
	require.NoError(t, json.Unmarshal([]byte(out), &paid), out)
	assert.Equal(t, "PAID", paid.Status)
	assert.Equal(t, "T2/"+fy+"/000001", paid.DocumentNo)
	assert.Equal(t, pos.Paise(0), paid.NoteLeft)
	code, _, errOut = tillRun(t, t1, "", pin, "checkout", "--staff", "Meera", "--items", "ACC-CBL-CC1M", "--pay", "note:"+note.CreditNoteNo)
	assert.NotEqual(t, exitOK, code)
	assert.Contains(t, errOut, "has ₹0.00 left of ₹499.00")

	// Without the store, another counter's invoice and any note wait for it.
	require.Equal(t, exitOK, stop())
	code, _, errOut = tillRun(t, t2, "", pin, "return", "T1/"+fy+"/000002", "--amount", "100", "--to", "cash")
	assert.Equal(t, exitFailed, code)
	assert.Contains(t, errOut, "cannot be reached")
}
