package cli

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"galla/pos"
)

// TestCmdReturn takes a cable of a cash sale back with galla return, checks the
// credit note's JSON against hand-computed values, prints it by its number, and
// refuses a unit returned already.
func TestCmdReturn(t *testing.T) {
	dir := t.TempDir()
	pin, sale := twoCablesForCash(t, dir)
	fy := pos.FinancialYear(time.Now())
	var (
		code        int
		out, errOut string
	)

	code, out, errOut = tillRun(t, dir, "", pin, "return", sale.DocumentNo, "--items", "ACC-CBL-CC1M:1", "--to", "cash", "--reason", "does not charge")
	require.Equal(t, exitOK, code, errOut)
	var got returnOutput
	require.NoError(t, json.Unmarshal([]byte(out), &got), out)
	// One cable of two at ₹499: 49900 paise; taxable at 18% ⌊(4990000+59)/118⌋ =
	// 42288, tax 7612.
	assert.Equal(t, "T1/C"+fy+"/00001", got.CreditNoteNo)
	assert.Equal(t, sale.DocumentNo, got.InvoiceNo)
	assert.Equal(t, pos.Paise(49900), got.Amount)
	assert.Equal(t, pos.Paise(42288), got.Taxable)
	assert.Equal(t, pos.Paise(7612), got.Tax)
	assert.Equal(t, pos.RefundToCash, got.To)
	assert.Equal(t, "DONE", got.Status)

	code, out, errOut = tillRun(t, dir, "", nil, "receipt", got.CreditNoteNo)
	require.Equal(t, exitOK, code, errOut)
	for _, want := range []string{"CREDIT NOTE", got.CreditNoteNo, "Against invoice", sale.DocumentNo, "Taxable 422.88", "76.12", "Reason: does not charge"} {
		assert.Contains(t, out, want)
	}

	code, _, errOut = tillRun(t, dir, "", pin, "return", sale.DocumentNo, "--items", "ACC-CBL-CC1M:2", "--to", "cash")
	assert.Equal(t, exitBadInput, code)
	assert.Contains(t, errOut, "2 sold, 1 returned already, so at most 1 can come back")
	code, _, errOut = tillRun(t, dir, "", pin, "return", sale.DocumentNo, "--items", "ACC-CBL-CC1M:1", "--to", "card")
	assert.Equal(t, exitBadInput, code, errOut)
	code, _, _ = tillRun(t, dir, "", pin, "return", sale.DocumentNo, "--items", "ACC-CBL-CC1M:1")
	assert.Equal(t, exitBadInput, code, "--to is needed")

	// The second cable onto a credit note to spend.
	code, out, errOut = tillRun(t, dir, "", pin, "return", sale.MerchantOrderID, "--items", "ACC-CBL-CC1M", "--to", "note")
	require.Equal(t, exitOK, code, errOut)
	require.NoError(t, json.Unmarshal([]byte(out), &got), out)
	assert.Equal(t, "T1/C"+fy+"/00002", got.CreditNoteNo)
	code, out, _ = tillRun(t, dir, "", nil, "receipt", got.CreditNoteNo)
	require.Equal(t, exitOK, code)
	assert.Contains(t, out, "Credit note to spend")

	// The exchange: the note pays a new cable (₹499, all of the note's ₹499).
	code, out, errOut = tillRun(t, dir, "", pin, "checkout", "--staff", "Meera", "--items", "ACC-CBL-CC1M", "--pay", "note:"+got.CreditNoteNo)
	require.Equal(t, exitOK, code, errOut)
	var paid struct {
		checkoutOutput
		NoteLeft pos.Paise `json:"note_left"`
	}
	require.NoError(t, json.Unmarshal([]byte(out), &paid), out)
	assert.Equal(t, "PAID", paid.Status)
	assert.Equal(t, "T1/"+fy+"/000002", paid.DocumentNo)
	assert.Equal(t, "T1/"+fy+"/000002", paid.InvoiceNo, "invoice_no as for any sale paid in full")
	require.Len(t, paid.Tenders, 1)
	assert.Equal(t, pos.TenderNote, paid.Tenders[0].Kind)
	assert.Equal(t, pos.Paise(0), paid.NoteLeft)
	code, _, errOut = tillRun(t, dir, "", pin, "checkout", "--staff", "Meera", "--items", "ACC-CBL-CC1M", "--pay", "note:"+got.CreditNoteNo)
	assert.Equal(t, exitBadInput, code)
	assert.Contains(t, errOut, "is spent")

	// galla refund issues a credit note too: the next in the C series.
	code, out, errOut = tillRun(t, dir, "", pin, "checkout", "--staff", "Meera", "--items", "ACC-CASE-S24", "--pay", "cash")
	require.Equal(t, exitOK, code, errOut)
	caseSale := decodeCheckout(t, out)
	code, out, errOut = tillRun(t, dir, "", pin, "refund", caseSale.MerchantOrderID, "--amount", "10000")
	require.Equal(t, exitOK, code, errOut)
	assert.Contains(t, out, `"credit_note_no":"T1/C`+fy+`/00003"`)
}

// TestExchangeWithSplitTender returns a cable to a credit note and spends the
// note on a dearer case, the difference in cash: the note is one tender of a
// split sale, spent once, and the sale is numbered once covered.
func TestExchangeWithSplitTender(t *testing.T) {
	dir := t.TempDir()
	pin := map[string]string{"GALLA_PIN": "432100"}
	code, _, errOut := tillRun(t, dir, "432100\n", nil, "staff", "add", "Meera", "--role", "manager")
	require.Equal(t, exitOK, code, errOut)
	code, out, errOut := tillRun(t, dir, "", pin, "checkout", "--staff", "Meera", "--items", "ACC-CBL-CC1M", "--pay", "cash")
	require.Equal(t, exitOK, code, errOut)
	sale := decodeCheckout(t, out)
	code, out, errOut = tillRun(t, dir, "", pin, "return", sale.DocumentNo, "--items", "ACC-CBL-CC1M", "--to", "note", "--reason", "exchange")
	require.Equal(t, exitOK, code, errOut)
	var note returnOutput
	require.NoError(t, json.Unmarshal([]byte(out), &note), out)
	require.Equal(t, pos.Paise(499_00), note.Amount)

	// The case is ₹1,499.00: the note's ₹499.00 and ₹1,000.00 in cash.
	code, out, errOut = tillRun(t, dir, "", pin, "checkout", "--staff", "Meera", "--items", "ACC-CASE-S24", "--pay", "note:"+note.CreditNoteNo+":49900,cash")
	require.Equal(t, exitOK, code, errOut)
	co := decodeCheckout(t, out)
	assert.Equal(t, "PAID", co.Status)
	fy := pos.FinancialYear(time.Now())
	assert.Equal(t, "T1/"+fy+"/000002", co.InvoiceNo)
	require.Len(t, co.Tenders, 2)
	assert.Equal(t, pos.TenderNote, co.Tenders[0].Kind)
	assert.Equal(t, pos.Paise(499_00), co.Tenders[0].Amount)
	assert.Equal(t, pos.Paise(1000_00), co.Tenders[1].Amount, "cash takes the rest")

	// Spent once: nothing is left on the note.
	code, _, errOut = tillRun(t, dir, "", pin, "checkout", "--staff", "Meera", "--items", "ACC-CBL-CC1M", "--pay", "note:"+note.CreditNoteNo)
	assert.Equal(t, exitBadInput, code)
	assert.Contains(t, errOut, "is spent")
	code, _, errOut = tillRun(t, dir, "", pin, "checkout", "--staff", "Meera", "--items", "ACC-CASE-S24", "--pay", "note:"+note.CreditNoteNo+":10000,cash")
	assert.NotEqual(t, exitOK, code, "a spent note pays no part of a sale either: %s", errOut)
}

// twoCablesForCash adds the manager Meera on a fresh terminal in dir and sells
// two cables for cash (T1/FY/000001); it returns her PIN as GALLA_PIN and the
// sale.
// registerShop makes the shop in dir a regular GST registrant, whose documents
// state the tax they charge and reverse (a shop without a GSTIN states none).
func registerShop(t *testing.T, dir string, pin map[string]string) {
	t.Helper()
	code, _, errOut := tillRun(t, dir, "", pin, "shop", "set", "--name", "Galla Mobiles", "--address", "1 MG Road, Pune",
		"--state", "27", "--gstin", "27AAPFU0939F1ZV")
	require.Equal(t, exitOK, code, errOut)
}

func twoCablesForCash(t *testing.T, dir string) (map[string]string, checkoutOutput) {
	t.Helper()
	pin := map[string]string{"GALLA_PIN": "432100"}
	code, _, errOut := tillRun(t, dir, "432100\n", nil, "staff", "add", "Meera", "--role", "manager")
	require.Equal(t, exitOK, code, errOut)
	registerShop(t, dir, pin)
	code, out, errOut := tillRun(t, dir, "", pin, "checkout", "--staff", "Meera", "--items", "ACC-CBL-CC1M:2", "--pay", "cash", "--cash", "100000")
	require.Equal(t, exitOK, code, errOut)
	sale := decodeCheckout(t, out)
	require.Equal(t, "T1/"+pos.FinancialYear(time.Now())+"/000001", sale.DocumentNo)
	return pin, sale
}
