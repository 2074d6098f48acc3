package cli

import (
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"galla/pos"
)

// TestCheckoutSplitTender pays a ₹1,499.00 case with ₹500.00 cash (₹1,000.00
// handed over) and the card for the rest, then a declined card that leaves a
// sale open with its cash paid.
func TestCheckoutSplitTender(t *testing.T) {
	dir := t.TempDir()
	pin := map[string]string{"GALLA_PIN": "432100"}
	code, _, errOut := tillRun(t, dir, "432100\n", nil, "staff", "add", "Meera", "--role", "manager")
	require.Equal(t, exitOK, code, errOut)

	code, out, errOut := tillRun(t, dir, visaJSON, pin, "checkout", "--staff", "Meera", "--items", "ACC-CASE-S24", "--pay", "cash:50000,card",
		"--cash", "100000", "--otp", "123456")
	require.Equal(t, exitOK, code, errOut)
	co := decodeCheckout(t, out)
	assert.Equal(t, "PAID", co.Status)
	assert.Equal(t, pos.Paise(149900), co.Amount)
	assert.Equal(t, "T1/"+pos.FinancialYear(time.Now())+"/000001", co.InvoiceNo)
	assert.Equal(t, uint64(1), co.ReceiptNo)
	assert.Equal(t, pos.Paise(50000), co.Change)
	require.Len(t, co.Tenders, 2)
	assert.Equal(t, tenderOutput{Kind: "cash", Amount: 50000, Status: "PAID", Verified: true, MerchantOrderID: co.Tenders[0].MerchantOrderID, Change: 50000}, co.Tenders[0])
	assert.Equal(t, pos.TenderCard, co.Tenders[1].Kind)
	assert.Equal(t, pos.Paise(99900), co.Tenders[1].Amount, "the card takes the rest")
	assert.Equal(t, "PAID", co.Tenders[1].Status)
	assert.True(t, co.Tenders[1].Verified)
	assert.NotEmpty(t, co.Tenders[1].PaymentID)
	assert.NotEqual(t, co.MerchantOrderID, co.Tenders[1].MerchantOrderID, "the card is its own order")
	assertNoCardNumber(t, out+errOut)

	declined := strings.Replace(visaJSON, "4111 1111 1111 1111", "4000000000000002", 1)
	code, out, errOut = tillRun(t, dir, declined, pin, "checkout", "--staff", "Meera", "--items", "ACC-CASE-S24", "--pay", "upi:40000,card", "--otp", "123456")
	assert.Equal(t, exitFailed, code)
	co = decodeCheckout(t, out)
	assert.Equal(t, "FAILED", co.Status)
	assert.Empty(t, co.InvoiceNo)
	require.Len(t, co.Tenders, 2)
	assert.Equal(t, "PAID", co.Tenders[0].Status)
	assert.False(t, co.Tenders[0].Verified, "UPI is confirmed by the cashier")
	assert.Equal(t, "Meera", co.Tenders[0].ConfirmedBy, "confirmed by the signed-in member")
	assert.Equal(t, "FAILED", co.Tenders[1].Status)
	assert.Contains(t, errOut, "stays open with ₹400.00 paid")
	assert.NotContains(t, errOut, "try again")

	code, out, _ = tillRun(t, dir, "", pin, "checkout", "--staff", "Meera", "--items", "ACC-CBL-CC1M", "--pay", "cash")
	require.Equal(t, exitOK, code)
	co = decodeCheckout(t, out)
	assert.Equal(t, "T1/"+pos.FinancialYear(time.Now())+"/000002", co.InvoiceNo, "the single-tender sale as before, with its tender listed")
	assert.Equal(t, []tenderOutput{{Kind: "cash", Amount: 49900, Status: "PAID", Verified: true}}, co.Tenders)
}

// TestCheckoutSplitTenderEMI pays a phone with ₹20,000.00 in cash down and
// Samsung's HDFC no-cost EMI on the rest, the IMEI given on the command line.
func TestCheckoutSplitTenderEMI(t *testing.T) {
	dir := t.TempDir()
	hdfc := strings.Replace(visaJSON, "4111 1111 1111 1111", "4386280000000004", 1)
	code, out, errOut := tillRun(t, dir, hdfc, nil, "checkout", "--items", "PH-SAM-S24-256-BLK", "--imei", "352906110000017",
		"--pay", "cash:2000000,emi", "--issuer", "HDFC", "--tenure", "6", "--otp", "123456")
	require.Equal(t, exitOK, code, errOut)
	co := decodeCheckout(t, out)
	assert.Equal(t, "PAID", co.Status)
	assert.Equal(t, "T1/"+pos.FinancialYear(time.Now())+"/000001", co.InvoiceNo)
	require.Len(t, co.Tenders, 2)
	assert.Equal(t, pos.Paise(2000000), co.Tenders[0].Amount)
	assert.Equal(t, pos.TenderEMI, co.Tenders[1].Kind)
	assert.Equal(t, co.Amount-2000000, co.Tenders[1].Amount, "EMI on the rest")
	assert.Equal(t, "PAID", co.Tenders[1].Status)
	assert.True(t, co.Tenders[1].Verified)
}

func TestCheckoutTendersRefused(t *testing.T) {
	dir := t.TempDir()
	for _, tt := range []struct {
		pay, want string
	}{
		{"cash:150000,card", "leaves nothing"},
		{"cash:50000,upi:50000", "add up to ₹1,000.00 but the sale is ₹1,499.00"},
		{"cash,card", "Only one tender may go without an amount"},
		{"card:100,emi", "One card or EMI tender"},
		{"cash:abc,card", "whole number above 0"},
		{"note,cash", "note:CREDIT_NOTE_NO"},
		{"upi", "on the command line upi is one part of a split sale"},
		{"cheque", "is not a tender"},
	} {
		code, out, errOut := tillRun(t, dir, visaJSON, nil, "checkout", "--items", "ACC-CASE-S24", "--pay", tt.pay)
		assert.Equal(t, exitBadInput, code, tt.pay)
		assert.Empty(t, out, tt.pay)
		assert.Contains(t, errOut, tt.want, tt.pay)
	}
}

// TestPayAgainAnOpenSalesCard: a split sale whose card was declined stays open
// with its cash; galla pay SALE_ID with the card alone (as the FAILED answer
// names the sale) pays that card tender again on its own order and finishes
// the sale, printing the sale's answer; a tender whose outcome is not known is
// reconciled, never paid again.
func TestPayAgainAnOpenSalesCard(t *testing.T) {
	dir := t.TempDir()
	pin := map[string]string{"GALLA_PIN": "432100"}
	code, _, errOut := tillRun(t, dir, "432100\n", nil, "staff", "add", "Meera", "--role", "manager")
	require.Equal(t, exitOK, code, errOut)
	declined := strings.Replace(visaJSON, "4111 1111 1111 1111", "4000000000000002", 1)
	code, out, _ := tillRun(t, dir, declined, pin, "checkout", "--staff", "Meera", "--items", "ACC-CASE-S24", "--pay", "cash:50000,card", "--otp", "123456")
	require.Equal(t, exitFailed, code)
	failed := decodeCheckout(t, out)
	require.Equal(t, "FAILED", failed.Status)
	require.Len(t, failed.Tenders, 2)

	code, out, errOut = tillRun(t, dir, visaJSON, pin, "pay", failed.MerchantOrderID, "--staff", "Meera", "--otp", "123456")
	require.Equal(t, exitOK, code, errOut)
	paid := decodeCheckout(t, out)
	assert.Equal(t, "PAID", paid.Status)
	assert.Equal(t, failed.MerchantOrderID, paid.MerchantOrderID, "the sale's answer")
	assert.Equal(t, "T1/"+pos.FinancialYear(time.Now())+"/000001", paid.InvoiceNo)
	require.Len(t, paid.Tenders, 2)
	assert.Equal(t, failed.Tenders[1].MerchantOrderID, paid.Tenders[1].MerchantOrderID, "paid again on the same order")
	assert.Equal(t, "PAID", paid.Tenders[1].Status)

	code, _, errOut = tillRun(t, dir, visaJSON, pin, "pay", failed.MerchantOrderID, "--staff", "Meera", "--otp", "123456")
	assert.Equal(t, exitBadInput, code, "a paid sale is not paid again")
	assert.Contains(t, errOut, "already paid")

	code, out, _ = tillRun(t, dir, visaJSON, pin, "checkout", "--staff", "Meera", "--items", "ACC-CASE-S24", "--pay", "cash:50000,card", "--wait", "2s")
	require.Equal(t, exitUnknown, code)
	code, _, errOut = tillRun(t, dir, visaJSON, pin, "pay", decodeCheckout(t, out).MerchantOrderID, "--staff", "Meera", "--otp", "123456")
	assert.Equal(t, exitBadInput, code, "an unknown outcome is reconciled, never paid again")
	assert.Contains(t, errOut, "reconcile")
}
