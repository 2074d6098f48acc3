package receipts

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
)

func a4Text(r Receipt) string {
	var b strings.Builder
	for _, rw := range a4Layout(r) {
		b.WriteString(strings.TrimRight(rw.compose(a4Cols), " "))
		b.WriteByte('\n')
	}
	return b.String()
}

// The A4 invoice carries what CGST Rule 46 asks for, in its tables.
func TestA4Invoice(t *testing.T) {
	text := a4Text(taxInvoice())
	for _, want := range []string{
		"Invoice No.     T1/2627/000123",
		"Place of supply Goa (30)",
		"Supply          inter-state (IGST)",
		"GSTIN 29ABCDE1234F1Z5",
		"State Karnataka (29)",
		"Billed to (unregistered buyer)",
		"  State Goa (30)",
		"#  Description        HSN           Qty Unit price Discount    Taxable  Rate       IGST       Amount",
		"1  Samsung Galaxy A55 8517        1 NOS  59,000.00           50,000.00   18%   9,000.00    59,000.00",
		"2  Silicone case      3926        1 PCS   1,180.00   180.00     847.46   18%     152.54     1,000.00",
		"   IMEI 356938035643809",
		"8517          18%     1      50,000.00        0.00        0.00    9,000.00       0.00       9,000.00",
		"Total                 2      50,847.46        0.00        0.00    9,152.54       0.00       9,152.54",
		"IGST @18%",
		"Amount in words: Rupees Sixty Thousand Only",
		"Paid by VISA •••• 1111",
		"Reverse charge  No",
		"ORIGINAL FOR RECIPIENT",
		"for Galla Mobiles",
		"Authorised signatory",
	} {
		assert.Contains(t, text, want)
	}
	assert.NotContains(t, text, "CGST @")

	// Within the state: CGST and SGST at half the rate each, 0.125% for 0.25%.
	r := taxInvoice()
	r.Interstate, r.PlaceOfSupply = false, "Karnataka (29)"
	r.Taxes = []TaxLine{{Rate: 25, Taxable: 1_00_000_00, CGST: 125_00, SGST: 125_00}}
	r.RoundOff = 50
	text = a4Text(r)
	assert.Contains(t, text, "CGST+SGST")
	assert.Contains(t, text, "CGST @0.125%")
	assert.Contains(t, text, "Round off")
	assert.Contains(t, text, "+0.50")
	assert.NotContains(t, text, "inter-state")
}

// A figure wider than its column pushes the row on; it is never cut.
func TestA4RowNeverCutsAFigure(t *testing.T) {
	cols := []a4Col{{"A", 4, true}, {"B", 6, true}}
	assert.Equal(t, "1,00,000.00  1.00", a4Row(cols, "1,00,000.00", "1.00"))
}

// A bill of supply has no tax columns and numbers itself as a bill.
func TestA4BillOfSupply(t *testing.T) {
	r := Receipt{Kind: KindSale, Title: "BILL OF SUPPLY", Shop: testShop(), Number: "T1/B2627/00012", Time: testTime(),
		Lines: []Line{{Name: "Road atlas", HSN: "4901", Qty: 2, UnitPrice: 39900, Amount: 79800}},
		Total: 79800, Tenders: []Tender{{Kind: TenderCash, Amount: 79800}}}
	text := a4Text(r)
	assert.Contains(t, text, "Bill No.        T1/B2627/00012")
	assert.Contains(t, text, "#  Description                       HSN            Qty     Unit price      Discount          Amount")
	assert.Contains(t, text, "1  Road atlas                        4901             2         399.00                        798.00")
	for _, no := range []string{"CGST", "IGST", "Taxable", "Rate", "HSN summary", "Invoice No."} {
		assert.NotContains(t, text, no)
	}
	assert.Contains(t, text, "Amount in words: Rupees Seven Hundred Ninety-Eight Only")
}

// A UPI payment's reference is printed as such.
func TestUPIReference(t *testing.T) {
	r := taxInvoice()
	r.Tenders = []Tender{{Kind: TenderPhone, Method: "UPI", Amount: 6000000, RRN: "432612345680", Verified: true}}
	text := a4Text(r)
	assert.Contains(t, text, "Paid by phone (UPI)")
	assert.Contains(t, text, "  UPI ref")
	assert.Contains(t, text, "432612345680")
	assert.NotContains(t, text, "RRN")
}
