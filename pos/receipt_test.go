package pos

import (
	"bytes"
	"testing"
	"time"

	"galla/receipts"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func receiptOrder(t *testing.T, tender TenderKind) Order {
	t.Helper()
	paid := time.Date(2026, 11, 22, 14, 25, 0, 0, time.FixedZone("IST", 19800))
	lines := []Line{{SKU: "S24", Name: "Samsung Galaxy S24", HSN: "8517", Qty: 1, UnitPrice: 7499900, GSTRate: Percent(18), Serialised: true}}
	o := Order{
		ID: "G-20261122-0008", Day: "2026-11-22", State: StatePaid, Tender: tender, Staff: "Asha",
		Opened: paid.Add(-5 * time.Minute), PaidAt: paid, Lines: lines, Totals: ComputeTotals(lines), Amount: 7499900,
		ServiceOrderID: "15230000012346", PaymentID: "15230000012346_1", CardBrand: "VISA", CardLast4: "1111",
		AuthCode: "775533", RRN: "432612349999", Captured: 7499900, Verified: true, ReceiptNo: 124,
		IMEIs: []string{"356938035643809"},
	}
	switch tender {
	case TenderEMI:
		o.EMI = &EMIPlan{Issuer: "HDFC Bank", Brand: "SAMSUNG", Program: "brand", Subvention: "no-cost", TenureMonths: 6,
			RateBP: 140000, Monthly: 1249983, Interest: 309208, Benefit: 309208, TotalPayable: 7499900, Loan: 7499900, AuthAmount: 7499900}
	case TenderCash:
		o.CardBrand, o.CardLast4, o.ServiceOrderID, o.PaymentID, o.AuthCode, o.RRN = "", "", "", "", "", ""
		o.CashTendered, o.Change = 7500000, 100
	}
	return o
}

func TestReceiptFor(t *testing.T) {
	key := []byte("terminal key of T1, 32 bytes..")
	shop := Shop{Name: "Galla Mobiles", Address: []string{"14, MG Road"}, GSTIN: "29ABCDE1234F1Z5"}
	tests := []struct {
		tender TenderKind
		want   []string
	}{
		{TenderCard, []string{"Paid by VISA •••• 1111", "Auth code", "775533", "432612349999", "15230000012346_1", "PAYMENT VERIFIED"}},
		{TenderEMI, []string{"Paid by EMI", "EMI HDFC Bank, 6 months", "SAMSUNG brand EMI, no-cost", "5 of 12,499.83 and a last of 12,499.85", "@14% p.a.", "No-cost EMI", "Less discount"}},
		{TenderCash, []string{"Paid by cash", "Cash tendered", "75,000.00", "Change", "1.00"}},
	}
	for _, tt := range tests {
		t.Run(string(tt.tender), func(t *testing.T) {
			o := receiptOrder(t, tt.tender)
			r := ReceiptFor(o, shop, ReceiptOptions{Terminal: "T1", QRKey: key})
			assert.Equal(t, "T1-000124", r.Number)
			assert.Equal(t, "Asha", r.Cashier)
			assert.Equal(t, int64(7499900), r.Total)
			require.Len(t, r.Lines, 1)
			assert.Equal(t, 1800, r.Lines[0].GSTRate)
			assert.Equal(t, []string{"356938035643809"}, r.Lines[0].IMEIs, "the order's IMEI goes to its serialised line")
			require.Len(t, r.Taxes, 1)
			// 74,999.00/1.18 = 63,558.4746 → 63,558.47; 9% of it 5,720.2623 →
			// 5,720.26 each; the invoice value 74,998.99, paid 74,999.00: round-off 0.01.
			assert.Equal(t, int64(6355847), r.Taxes[0].Taxable)
			assert.Equal(t, int64(572026), r.Taxes[0].CGST)
			assert.Equal(t, int64(572026), r.Taxes[0].SGST)
			assert.Equal(t, int64(1), r.RoundOff)
			assert.Equal(t, int64(7499900), r.Taxes[0].Taxable+r.Taxes[0].CGST+r.Taxes[0].SGST+r.RoundOff)

			p, err := receipts.ParseQR(key, r.QR)
			require.NoError(t, err)
			assert.Equal(t, receipts.QRPayload{MerchantOrderID: o.ID, ServiceOrderID: o.ServiceOrderID, PaymentID: o.PaymentID, Amount: 7499900}, p)

			var b bytes.Buffer
			require.NoError(t, receipts.Text(&b, r, 48))
			for _, w := range tt.want {
				assert.Contains(t, b.String(), w)
			}
			assert.Equal(t, "Rupees Seventy-Four Thousand Nine Hundred Ninety-Nine Only", receipts.Words(r.Total))
			assert.NotContains(t, b.String(), "DUPLICATE")
		})
	}
}

func TestReceiptReprint(t *testing.T) {
	o := receiptOrder(t, TenderCard)
	assert.Equal(t, 0, NextReprint(o))
	o.Printed = true
	assert.Equal(t, 1, NextReprint(o))
	o.Reprints = 2
	assert.Equal(t, 3, NextReprint(o))
	r := ReceiptFor(o, Shop{}, ReceiptOptions{Reprint: NextReprint(o)})
	var b bytes.Buffer
	require.NoError(t, receipts.Text(&b, r, 32))
	assert.Contains(t, b.String(), "DUPLICATE — reprint 3")
	assert.Empty(t, r.QR, "no key, no QR code")
}

func TestRefundReceiptFor(t *testing.T) {
	o := receiptOrder(t, TenderCard)
	at := o.PaidAt.Add(24 * time.Hour)
	o.Refunds = []Refund{
		{UniqueTxnID: "RF-1", Amount: 100000, Status: RefundDone, Time: at, Staff: "Ravi", Reason: "scratched", ReceiptNo: 130},
		{UniqueTxnID: "RF-2", Amount: 100, Status: RefundPending},
	}
	o.State = StatePartlyRefunded
	key := []byte("the terminal key of this counter")
	r, err := RefundReceiptFor(o, "RF-1", Shop{Name: "Galla"}, ReceiptOptions{Terminal: "T1", QRKey: key})
	require.NoError(t, err)
	assert.Equal(t, receipts.KindRefund, r.Kind)
	assert.Equal(t, "T1-000130", r.Number)
	assert.Equal(t, "Ravi", r.Cashier)
	assert.Equal(t, int64(100000), r.Total)
	assert.Empty(t, r.Lines, "a partial refund lists no lines")
	require.NotNil(t, r.Refund)
	assert.Equal(t, "T1-000124", r.Refund.OriginalNumber)
	assert.True(t, r.Refund.Partial)
	p, err := receipts.ParseQR(key, r.QR)
	require.NoError(t, err)
	assert.Equal(t, int64(-100000), p.Amount)

	_, err = RefundReceiptFor(o, "RF-2", Shop{}, ReceiptOptions{})
	assert.ErrorIs(t, err, ErrNotRefundable, "a pending refund has no receipt yet")
	_, err = RefundReceiptFor(o, "RF-9", Shop{}, ReceiptOptions{})
	assert.ErrorIs(t, err, ErrOrderNotFound)
}

func TestReportReceipt(t *testing.T) {
	gen := time.Date(2026, 11, 22, 21, 0, 0, 0, time.UTC)
	rep := Report{
		Kind: "Z", ZNo: 57, Day: "2026-11-22", Generated: gen, ClosedBy: "Ravi",
		Sales:      []TenderTotal{{Tender: TenderCard, Count: 2, Amount: 300000}, {Tender: TenderCash, Count: 1, Amount: 50000}},
		EMIPlans:   []PlanTotal{{Issuer: "HDFC Bank", Program: "brand", Months: 6, Count: 1, Amount: 7499900}},
		GrossSales: 350000, Refunded: 1000, NetSales: 349000, CashExpected: 50000,
		Refunds: []TenderTotal{{Tender: TenderCard, Count: 1, Amount: 1000}},
		Failed:  Count{Count: 1, Amount: 999}, FirstReceipt: 1, LastReceipt: 4,
	}
	r := ReportReceipt(rep, Shop{Name: "Galla"}, ReceiptOptions{Terminal: "T1"})
	assert.Equal(t, receipts.KindZReport, r.Kind)
	assert.Equal(t, "T1-Z-0057", r.Number)
	var b bytes.Buffer
	require.NoError(t, receipts.Text(&b, r, 48))
	for _, w := range []string{"Z REPORT No. 57", "Sales (3)", "3,500.00", "Refunds (1)", "Card (2)", "HDFC Bank 6m brand (1)", "NET", "₹3,490.00", "T1-000001 to T1-000004", "22 Nov 2026", "Day closed"} {
		assert.Contains(t, b.String(), w)
	}
	rep.Kind, rep.ZNo = "X", 0
	assert.Equal(t, receipts.KindXReport, ReportReceipt(rep, Shop{}, ReceiptOptions{}).Kind)
}
