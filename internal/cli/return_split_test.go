package cli

import (
	"encoding/json"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"galla/gateway/sandbox"
	"galla/pos"
)

// TestCmdReturnSplitSale sells a charger (₹1,299) and a cable (₹499) for ₹500
// in cash and the rest (₹1,298) by card, then returns with galla return: the
// cable onto a credit note (₹499: taxable 422.88, GST 76.12), the charger
// refused in cash (₹500 was paid in cash) and to the card (₹1,298 was paid by
// card), then on a note; a third return is refused. A second sale returns the
// cable to its card: the card tender's order is refunded ₹499 once at the
// sandbox.
func TestCmdReturnSplitSale(t *testing.T) {
	dir := t.TempDir()
	pin := map[string]string{"GALLA_PIN": "135790"}
	code, _, errOut := tillRun(t, dir, "135790\n", nil, "staff", "add", "Asha", "--role", "manager")
	require.Equal(t, exitOK, code, errOut)
	code, _, errOut = tillRun(t, dir, "", pin, "shift", "open", "--float", "200000")
	require.Equal(t, exitOK, code, errOut)
	registerShop(t, dir, pin)
	fy := pos.FinancialYear(time.Now())
	sell := func(n string) checkoutOutput {
		t.Helper()
		code, out, errOut := tillRun(t, dir, visaJSON, pin, "checkout", "--staff", "Asha", "--items", "ACC-CHG-SAM25W,ACC-CBL-CC1M",
			"--pay", "cash:50000,card", "--otp", "123456", "--cash", "50000")
		require.Equal(t, exitOK, code, errOut)
		co := decodeCheckout(t, out)
		require.Equal(t, "T1/"+fy+"/"+n, co.DocumentNo)
		require.Equal(t, pos.Paise(179800), co.Amount)
		require.Len(t, co.Tenders, 2)
		require.Equal(t, pos.Paise(129800), co.Tenders[1].Amount)
		return co
	}
	ret := func(doc string, args ...string) (int, returnOutput, string) {
		t.Helper()
		code, out, errOut := tillRun(t, dir, "", pin, append([]string{"return", doc}, args...)...)
		var got returnOutput
		if code == exitOK {
			require.NoError(t, json.Unmarshal([]byte(out), &got), out)
		}
		return code, got, errOut
	}

	co := sell("000001")
	code, got, errOut := ret(co.DocumentNo, "--items", "ACC-CBL-CC1M:1", "--to", "note", "--reason", "faulty")
	require.Equal(t, exitOK, code, errOut)
	assert.Equal(t, "T1/C"+fy+"/00001", got.CreditNoteNo)
	assert.Equal(t, co.DocumentNo, got.InvoiceNo)
	assert.Equal(t, pos.RefundToNote, got.To)
	assert.Equal(t, pos.Paise(49900), got.Amount)
	assert.Equal(t, pos.Paise(42288), got.Taxable)
	assert.Equal(t, pos.Paise(7612), got.Tax)
	assert.Equal(t, "DONE", got.Status)
	code, out, errOut := tillRun(t, dir, "", nil, "receipt", got.CreditNoteNo)
	require.Equal(t, exitOK, code, errOut)
	for _, want := range []string{"CREDIT NOTE", "Against invoice", co.DocumentNo, "Taxable 422.88", "76.12", "Credit note to spend"} {
		assert.Contains(t, out, want)
	}

	code, _, errOut = ret(co.DocumentNo, "--items", "ACC-CHG-SAM25W", "--to", "cash")
	assert.Equal(t, exitBadInput, code)
	assert.Contains(t, errOut, "Only ₹500.00 of sale "+fy+"/000001 can go back in cash")
	assert.Contains(t, errOut, "refund it to the card (up to ₹1,298.00) or give a credit note")
	code, _, errOut = ret(co.DocumentNo, "--items", "ACC-CHG-SAM25W", "--to", "card")
	assert.Equal(t, exitBadInput, code)
	assert.Contains(t, errOut, "Only ₹1,298.00 of sale "+fy+"/000001 can go back to the card")
	code, got, errOut = ret(co.DocumentNo, "--items", "ACC-CHG-SAM25W", "--to", "note")
	require.Equal(t, exitOK, code, errOut)
	assert.Equal(t, pos.Paise(129900), got.Amount)
	assert.Equal(t, "T1/C"+fy+"/00002", got.CreditNoteNo)
	code, _, errOut = ret(co.DocumentNo, "--amount", "100", "--to", "note")
	assert.Equal(t, exitBadInput, code, "nothing is left: %s", errOut)

	// The second sale's cable to its card.
	co = sell("000002")
	code, got, errOut = ret(co.DocumentNo, "--items", "ACC-CBL-CC1M", "--to", "card")
	require.Equal(t, exitOK, code, errOut)
	assert.Equal(t, "T1/C"+fy+"/00003", got.CreditNoteNo)
	assert.Equal(t, pos.RefundToCard, got.To)
	assert.Equal(t, pos.Paise(49900), got.Amount)
	code, _, errOut = ret(co.DocumentNo, "--items", "ACC-CBL-CC1M", "--to", "card")
	assert.Equal(t, exitBadInput, code)
	assert.Contains(t, errOut, "1 returned already")
	code, _, errOut = tillRun(t, dir, "", nil, "reconcile")
	require.Equal(t, exitOK, code, errOut)

	sb, err := sandbox.New(sandbox.WithStateFile(filepath.Join(dir, sandboxFile)))
	require.NoError(t, err)
	refunded := map[string]int64{}
	for _, lo := range sb.Controls.Ledger() {
		refunded[lo.MerchantOrderID] = lo.RefundedAmount
	}
	assert.Equal(t, map[string]int64{co.Tenders[1].MerchantOrderID: 49900}, func() map[string]int64 {
		out := map[string]int64{}
		for id, n := range refunded {
			if n != 0 {
				out[id] = n
			}
		}
		return out
	}(), "only the second sale's card tender was refunded, ₹499 once")
}
