package cli

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"galla/pos"
)

// TestCmdVoid cancels a cash invoice with galla void: the cash goes back, the
// invoice keeps its number and prints CANCELLED with the reason, the report
// counts it as cancelled and not as a sale, and a second void is refused.
func TestCmdVoid(t *testing.T) {
	dir := t.TempDir()
	pin, sale := twoCablesForCash(t, dir)
	fy := pos.FinancialYear(time.Now())
	var (
		code        int
		out, errOut string
	)

	code, _, errOut = tillRun(t, dir, "", pin, "void", sale.DocumentNo)
	assert.Equal(t, exitBadInput, code)
	assert.Contains(t, errOut, "--reason")

	code, out, errOut = tillRun(t, dir, "", pin, "void", sale.DocumentNo, "--reason", "customer left before delivery")
	require.Equal(t, exitOK, code, errOut)
	var got voidOutput
	require.NoError(t, json.Unmarshal([]byte(out), &got), out)
	assert.Equal(t, sale.DocumentNo, got.DocumentNo)
	assert.Equal(t, "CANCELLED", got.Status)
	assert.Equal(t, "customer left before delivery", got.Reason)
	assert.Equal(t, "Meera", got.Manager)
	require.Len(t, got.Tenders, 1)
	assert.Equal(t, pos.TenderCash, got.Tenders[0].Tender)
	assert.Equal(t, pos.Paise(99800), got.Tenders[0].Amount, "two cables at ₹499 back in cash")
	assert.Equal(t, pos.RefundDone, got.Tenders[0].Status)

	code, out, errOut = tillRun(t, dir, "", nil, "receipt", sale.DocumentNo)
	require.Equal(t, exitOK, code, errOut)
	for _, want := range []string{"CANCELLED", sale.DocumentNo, "Reason: customer left before delivery"} {
		assert.Contains(t, out, want)
	}

	code, out, errOut = tillRun(t, dir, "", nil, "report", "--format", "json")
	require.Equal(t, exitOK, code, errOut)
	var rep pos.Report
	require.NoError(t, json.Unmarshal([]byte(out), &rep), out)
	assert.Zero(t, rep.GrossSales)
	assert.Zero(t, rep.Refunded, "no credit note")
	assert.Zero(t, rep.CashExpected)
	assert.Equal(t, pos.Count{Count: 1, Amount: 99800}, rep.Cancelled)

	code, _, errOut = tillRun(t, dir, "", pin, "void", sale.DocumentNo, "--reason", "again")
	assert.Equal(t, exitBadInput, code)
	assert.Contains(t, errOut, "is already cancelled")
	code, _, errOut = tillRun(t, dir, "", pin, "void", "T1/"+fy+"/000009", "--reason", "no such")
	assert.Equal(t, exitBadInput, code, errOut)
}
