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

// openSplitSales opens two split sales on the command line and leaves both
// open: a Samsung S24 (₹74,999.00) with ₹10,000.00 cash down whose ICICI brand
// EMI tender is refused (the HDFC card's bank does not give it), and a ₹1,499.00
// case with ₹500.00 cash whose card is declined. It returns the manager's PIN
// and the two sales' ids.
func openSplitSales(t *testing.T, dir string) (pin map[string]string, phone, cover string) {
	t.Helper()
	pin = map[string]string{"GALLA_PIN": "432100"}
	code, _, errOut := tillRun(t, dir, "432100\n", nil, "staff", "add", "Meera", "--role", "manager")
	require.Equal(t, exitOK, code, errOut)

	hdfc := strings.Replace(visaJSON, "4111 1111 1111 1111", "4386280000000004", 1)
	code, out, errOut := tillRun(t, dir, hdfc, pin, "checkout", "--staff", "Meera", "--items", "PH-SAM-S24-256-BLK", "--imei", "352906110000017",
		"--pay", "cash:1000000,emi", "--issuer", "ICICI", "--tenure", "6", "--otp", "123456")
	require.Equal(t, exitBadInput, code, "the offer is refused before anything is sent for it: %s", errOut)
	assert.Contains(t, errOut, "not available on this card")
	assert.Contains(t, errOut, "galla pay ")
	co := decodeCheckout(t, out)
	require.Equal(t, "OPEN", co.Status)
	phone = co.MerchantOrderID

	declined := strings.Replace(visaJSON, "4111 1111 1111 1111", "4000000000000002", 1)
	code, out, errOut = tillRun(t, dir, declined, pin, "checkout", "--staff", "Meera", "--items", "ACC-CASE-S24", "--pay", "cash:50000,card", "--otp", "123456")
	require.Equal(t, exitFailed, code, errOut)
	co = decodeCheckout(t, out)
	require.Equal(t, "FAILED", co.Status)
	cover = co.MerchantOrderID
	return pin, phone, cover
}

// TestOpenSalesListedFinishedAndVoided: two split sales left open are listed
// by galla sales --open (text and JSON) with what each tender paid, what is
// left and why a tender failed; galla pay SALE_ID --pay card finishes the one,
// galla void SALE_ID --reason voids the other (its cash given back), and the X
// report then counts the finished sale in the sales, the voided one's cash as
// sold and given back, and nothing open.
func TestOpenSalesListedFinishedAndVoided(t *testing.T) {
	dir := t.TempDir()
	code, out, errOut := tillRun(t, dir, "", nil, "sales", "--open")
	require.Equal(t, exitOK, code, errOut)
	assert.Equal(t, "No open sales.\n", out)
	code, out, _ = tillRun(t, dir, "", nil, "sales", "--open", "--format", "json")
	require.Equal(t, exitOK, code)
	assert.Equal(t, "[]\n", out)

	pin, phone, cover := openSplitSales(t, dir)
	code, out, errOut = tillRun(t, dir, "", nil, "report")
	require.Equal(t, exitOK, code, errOut)
	assert.Contains(t, out, "Paid on open sales", "the open sales' tenders are listed apart")

	code, out, errOut = tillRun(t, dir, "", nil, "sales", "--open")
	require.Equal(t, exitOK, code, errOut)
	lines := strings.Split(strings.TrimSpace(out), "\n")
	require.Len(t, lines, 3, out)
	assert.True(t, strings.HasPrefix(lines[0], phone+"\topened "), out)
	assert.Contains(t, lines[0], "\tamount ₹74,999.00\tpaid ₹10,000.00 (cash ₹10,000.00)\tdue ₹64,999.00")
	assert.True(t, strings.HasPrefix(lines[1], cover+"\topened "), "oldest first: %s", out)
	assert.Contains(t, lines[1], "\tamount ₹1,499.00\tpaid ₹500.00 (cash ₹500.00)\tdue ₹999.00")
	assert.Regexp(t, `^\tfailed: card ₹999.00 \(order T1\S+\): Transaction declined by issuer\.$`, lines[2])

	code, out, errOut = tillRun(t, dir, "", nil, "sales", "--open", "--format", "json")
	require.Equal(t, exitOK, code, errOut)
	var open []openSaleOutput
	require.NoError(t, json.Unmarshal([]byte(out), &open), out)
	require.Len(t, open, 2)
	assert.Equal(t, phone, open[0].Sale)
	assert.Equal(t, "Meera", open[0].Staff)
	assert.Equal(t, []pos.Paise{7499900, 1000000, 0, 6499900}, []pos.Paise{open[0].Amount, open[0].Paid, open[0].Pending, open[0].Due})
	require.Len(t, open[0].Tenders, 1, "the refused EMI tender was never added")
	assert.Equal(t, cover, open[1].Sale)
	require.Len(t, open[1].Tenders, 2)
	assert.Equal(t, "PAID", open[1].Tenders[0].Status)
	assert.Equal(t, pos.TenderCard, open[1].Tenders[1].Kind)
	assert.Equal(t, "FAILED", open[1].Tenders[1].Status)
	assert.Equal(t, "Transaction declined by issuer.", open[1].Tenders[1].Reason)
	assert.False(t, open[0].Opened.IsZero())

	// Finishing the phone's sale: --pay is needed, its tenders must fit what
	// is left, and the card pays the rest.
	code, _, errOut = tillRun(t, dir, visaJSON, pin, "pay", phone, "--otp", "123456")
	assert.Equal(t, exitBadInput, code)
	assert.Contains(t, errOut, "is an open sale: name how the rest is paid with --pay")
	code, _, errOut = tillRun(t, dir, visaJSON, pin, "pay", phone, "--staff", "Meera", "--pay", "cash:6499900,card")
	assert.Equal(t, exitBadInput, code)
	assert.Contains(t, errOut, "what is left to pay of the sale "+phone+" is ₹64,999.00")
	code, _, errOut = tillRun(t, dir, visaJSON, pin, "pay", phone, "--staff", "Meera", "--pay", "emi")
	assert.Equal(t, exitBadInput, code)
	assert.Contains(t, errOut, "--issuer")
	code, _, errOut = tillRun(t, dir, visaJSON, nil, "pay", phone, "--pay", "card", "--otp", "123456")
	assert.Equal(t, exitBadInput, code, "a tender is taken by a signed-in member, as in checkout")
	assert.Contains(t, errOut, "--staff")

	code, out, errOut = tillRun(t, dir, visaJSON, pin, "pay", phone, "--staff", "Meera", "--pay", "card", "--otp", "123456")
	require.Equal(t, exitOK, code, errOut)
	co := decodeCheckout(t, out)
	assert.Equal(t, "PAID", co.Status)
	assert.Equal(t, phone, co.MerchantOrderID)
	assert.Equal(t, pos.Paise(7499900), co.Amount)
	assert.Equal(t, "T1/"+pos.FinancialYear(time.Now())+"/000001", co.InvoiceNo)
	require.Len(t, co.Tenders, 2)
	assert.Equal(t, tenderOutput{Kind: "cash", Amount: 1000000, Status: "PAID", Verified: true, MerchantOrderID: co.Tenders[0].MerchantOrderID}, co.Tenders[0])
	assert.Equal(t, pos.TenderCard, co.Tenders[1].Kind)
	assert.Equal(t, pos.Paise(6499900), co.Tenders[1].Amount, "the card takes what was left")
	assert.True(t, co.Tenders[1].Verified)
	assertNoCardNumber(t, out+errOut)

	code, _, errOut = tillRun(t, dir, "", pin, "pay", phone, "--staff", "Meera", "--pay", "cash")
	assert.Equal(t, exitBadInput, code, "a sale paid is not open any more")
	assert.Contains(t, errOut, "is not an open sale")
	code, _, errOut = tillRun(t, dir, "", pin, "pay", "T1-NO-SUCH-SALE", "--pay", "cash")
	assert.Equal(t, exitBadInput, code)
	assert.Contains(t, errOut, "is not an open sale")

	// Voiding the case's sale: a wrong PIN voids nothing; the manager's gives
	// the cash back.
	code, _, errOut = tillRun(t, dir, "", map[string]string{"GALLA_PIN": "999999"}, "void", cover, "--reason", "customer left")
	assert.Equal(t, exitBadInput, code, errOut)
	code, out, errOut = tillRun(t, dir, "", pin, "void", cover, "--reason", "customer left")
	require.Equal(t, exitOK, code, errOut)
	var v voidOutput
	require.NoError(t, json.Unmarshal([]byte(out), &v), out)
	assert.Equal(t, voidOutput{MerchantOrderID: cover, Status: "VOIDED", Reason: "customer left", Manager: "Meera",
		Tenders: []pos.CancelTender{{OrderID: v.Tenders[0].OrderID, Tender: pos.TenderCash, Amount: 50000, Status: pos.RefundDone}}}, v)
	code, _, errOut = tillRun(t, dir, "", pin, "void", cover, "--reason", "again")
	assert.Equal(t, exitBadInput, code, "a voided sale is neither open nor an invoice: %s", errOut)

	code, out, errOut = tillRun(t, dir, "", nil, "sales", "--open")
	require.Equal(t, exitOK, code, errOut)
	assert.Equal(t, "No open sales.\n", out)

	code, out, errOut = tillRun(t, dir, "", nil, "report", "--format", "json")
	require.Equal(t, exitOK, code, errOut)
	var rep pos.Report
	require.NoError(t, json.Unmarshal([]byte(out), &rep), out)
	assert.Empty(t, rep.OpenSales, "nothing open")
	assert.Zero(t, rep.OpenPaid)
	assert.Equal(t, pos.Paise(7499900), rep.NetSales, "the finished sale")
	// The voided sale's cash counts as sold on the day it is given back,
	// against its refund (docs/adr/0005-split-tender.md, Amended).
	assert.Equal(t, pos.Paise(7499900+50000), rep.GrossSales)
	assert.Equal(t, pos.Paise(50000), rep.Refunded)
	assert.Equal(t, pos.Paise(1000000), rep.CashExpected, "the phone's cash down; the case's cash went back")
	assert.Equal(t, 1, rep.Failed.Count, "the declined card")
	assert.Zero(t, rep.Unknown.Count)
	code, out, errOut = tillRun(t, dir, "", nil, "report")
	require.Equal(t, exitOK, code, errOut)
	assert.NotContains(t, out, "open sales")
}

// TestOpenSaleFinishedInCashNamesNoFailedPayment: a sale whose card was
// declined and whose rest was then taken in cash prints, once finished, no
// service order or payment id of its own: the declined card's ids stay with
// that tender (its failed status), not on the sale that no card paid.
func TestOpenSaleFinishedInCashNamesNoFailedPayment(t *testing.T) {
	dir := t.TempDir()
	pin, _, cover := openSplitSales(t, dir)
	code, out, errOut := tillRun(t, dir, "", pin, "pay", cover, "--staff", "Meera", "--pay", "cash", "--cash", "100000")
	require.Equal(t, exitOK, code, errOut)
	co := decodeCheckout(t, out)
	require.Equal(t, "PAID", co.Status)
	assert.NotEmpty(t, co.InvoiceNo)
	assert.Empty(t, co.ServiceOrderID, "no card paid the sale")
	assert.Empty(t, co.PaymentID, "no card paid the sale")
	require.Len(t, co.Tenders, 3)
	assert.Equal(t, "FAILED", co.Tenders[1].Status)
	assert.NotEmpty(t, co.Tenders[1].PaymentID, "the declined card keeps its own payment id")
}

// TestVoidDropsSaleWithNothingPaid: a split sale whose only tender the issuer
// declined holds no money: galla void drops it with no PIN (nothing given
// back), after which it is neither open nor to be paid.
func TestVoidDropsSaleWithNothingPaid(t *testing.T) {
	dir := t.TempDir()
	pin := map[string]string{"GALLA_PIN": "432100"}
	code, _, errOut := tillRun(t, dir, "432100\n", nil, "staff", "add", "Meera", "--role", "manager")
	require.Equal(t, exitOK, code, errOut)
	declined := strings.Replace(visaJSON, "4111 1111 1111 1111", "4000000000000002", 1)
	code, out, errOut := tillRun(t, dir, declined, pin, "checkout", "--staff", "Meera", "--items", "ACC-CASE-S24", "--pay", "card:50000,cash", "--otp", "123456")
	require.Equal(t, exitFailed, code, errOut)
	co := decodeCheckout(t, out)
	require.Equal(t, "FAILED", co.Status)
	sale := co.MerchantOrderID

	code, out, errOut = tillRun(t, dir, "", nil, "void", sale, "--reason", "customer left")
	require.Equal(t, exitOK, code, "no PIN is asked for a sale that holds no money: %s", errOut)
	var v voidOutput
	require.NoError(t, json.Unmarshal([]byte(out), &v), out)
	assert.Equal(t, voidOutput{MerchantOrderID: sale, Status: "VOIDED", Reason: "customer left", Tenders: []pos.CancelTender{}}, v)
	code, out, errOut = tillRun(t, dir, "", nil, "sales", "--open", "--format", "json")
	require.Equal(t, exitOK, code, errOut)
	assert.Equal(t, "[]\n", out)
	code, _, errOut = tillRun(t, dir, "", pin, "pay", sale, "--staff", "Meera", "--pay", "cash")
	assert.Equal(t, exitBadInput, code)
	assert.Contains(t, errOut, "is not an open sale")
}
