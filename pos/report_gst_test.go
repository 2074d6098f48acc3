package pos

import (
	"bytes"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestReportStatesIGSTAndCess: the X/Z report's GST is each document's: a phone
// sold to a buyer in Karnataka is IGST, pan masala carries its cess, a credit
// note reverses its own, and every rate prints as a percent (never "{1800}%").
func TestReportStatesIGSTAndCess(t *testing.T) {
	const day = "2026-01-20"
	shop := Shop{Name: "Galla Mobiles", State: "27", GSTIN: goodGSTIN} // a regular registrant: its documents state tax
	phone := []Line{{SKU: "PH", Name: "Phone", HSN: "8517", Qty: 1, UnitPrice: 59000_00, GSTRate: Percent(18)}}
	pan := []Line{{SKU: "PM", Name: "Pan masala", HSN: "2106", Qty: 1, UnitPrice: 188_00, GSTRate: Percent(28), Cess: Percent(60)}}
	orders := []*Order{
		{ID: "A", Day: day, PaidDay: day, State: StatePaid, Tender: TenderCash, Lines: phone, Totals: ComputeTotals(phone), Amount: 59000_00, Captured: 59000_00,
			Buyer: &Buyer{Name: "Asha Rao", Address: "12 MG Road, Bengaluru", State: "29"}},
		{ID: "B", Day: day, PaidDay: day, State: StatePartlyRefunded, Tender: TenderCash, Lines: pan, Totals: ComputeTotals(pan), Amount: 188_00, Captured: 188_00,
			Refunds: []Refund{{UniqueTxnID: "R1", Amount: 188_00, Status: RefundDone, Day: day, To: RefundToCash,
				Items: []ReturnItem{{Line: 0, SKU: "PM", Qty: 1, Amount: 188_00, Taxable: 100_00, Tax: 28_00, CGST: 14_00, Rate: Percent(28)}}}}},
	}
	r := ShopReport(day, orders, oldJournalAt, shop)
	// By hand. The phone: 59,000.00 / 1.18 = 50,000.00; IGST 18% = 9,000.00.
	// Pan masala: 188.00 / 1.88 = 100.00; CGST = SGST = 14% = 14.00; cess 60.00.
	require.Equal(t, []RateTotal{
		{Rate: Percent(18), Amount: 59000_00, Taxable: 50000_00, Tax: 9000_00, IGST: 9000_00},
		{Rate: Percent(28), Amount: 188_00, Taxable: 100_00, Tax: 28_00, CGST: 14_00, SGST: 14_00, Cess: 60_00},
	}, r.GST)
	// The credit note reverses 100.00, its GST 28.00 as CGST + SGST, and 60.00 of cess.
	require.Equal(t, []RateTotal{{Rate: Percent(28), Amount: 188_00, Taxable: 100_00, Tax: 28_00, CGST: 14_00, SGST: 14_00, Cess: 60_00}}, r.ReturnsGST)
	var b bytes.Buffer
	require.NoError(t, r.WriteText(&b))
	text := b.String()
	for _, want := range []string{
		"18% on ₹50,000.00", "IGST @18%", "₹9,000.00",
		"28% on ₹100.00", "CGST @14%", "SGST @14%", "Cess", "₹60.00",
		"GST reversed by credit notes", "Net GST",
	} {
		assert.Contains(t, text, want)
	}
	assert.NotContains(t, text, "{", "a rate is written as a percent")
	assert.NotContains(t, text, "CGST @9%", "the inter-state sale has no CGST")
}
