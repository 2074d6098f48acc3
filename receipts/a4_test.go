package receipts

import (
	"strconv"
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

// A credit note on A4 is laid out as the A4 invoice is, on one page: the
// seller and the note's details side by side, the buyer as on the invoice, the
// table of what it reverses and the tax by rate.
func TestA4CreditNote(t *testing.T) {
	text := PageText(creditNote())
	for _, want := range []string{
		"Credit note No. T1/C2627/00003",
		"Against invoice T1/2627/000123",
		"Invoice date    22 Nov 2026",
		"Reverse charge  No",
		"Billed to (unregistered buyer)",
		"  Rohan Naik",
		"1  Silicone case",
		"1 PCS",
		"IGST @18%",
		"Amount in words: Rupees One Thousand Only",
		"Reason: wrong colour",
		"for Galla Mobiles",
		"Authorised signatory",
	} {
		assert.Contains(t, text, want)
	}
	var rec recorder
	assert.NoError(t, drawPDF(&rec, creditNote()))
	assert.Equal(t, 1, strings.Count(rec.b.String(), "page\n"), "one A4 page")
	for _, line := range strings.Split(text, "\n") {
		assert.LessOrEqual(t, runeLen(line), a4Cols, "%q is wider than the page", line)
	}
}

// A document that states no tax (NoTax) has none in any format: no taxable
// value, rate, GST, CGST, SGST, IGST, cess or HSN summary, and no '%'; its legend
// is at the top, before the goods.
func TestNoTaxInAnyFormat(t *testing.T) {
	note := creditNote()
	note.NoTax, note.Taxes, note.Legend = true, nil, "Composition taxable person, not eligible to collect tax on supplies"
	note.Credit.Lines[0].Taxable, note.Credit.Lines[0].Tax, note.Credit.Lines[0].GSTRate = 0, 0, 0
	for name, r := range map[string]Receipt{"bill": compositionBill(), "credit note": note} {
		texts := map[string]string{"a4": PageText(r)}
		for _, cols := range []int{32, 42, 48} {
			var b, esc strings.Builder
			assert.NoError(t, Text(&b, r, cols))
			texts["text "+strconv.Itoa(cols)] = b.String()
			assert.NoError(t, ESCPOS(&esc, r, Profile{Width: cols}))
			texts["escpos "+strconv.Itoa(cols)] = esc.String()
		}
		for format, text := range texts {
			flat := strings.Join(strings.Fields(text), " ")
			for _, no := range []string{"TAX INVOICE", "Taxable", "GST @", "CGST", "SGST", "IGST", "Cess", "HSN summary", "Tax reversed", "Rate"} {
				assert.NotContains(t, flat, no, "%s %s", name, format)
			}
			if !strings.HasPrefix(format, "escpos") {
				assert.NotContains(t, flat, "%", "%s %s", name, format)
			}
			legend := strings.Index(flat, "Composition taxable person, not eligible to collect tax on supplies")
			assert.GreaterOrEqual(t, legend, 0, "%s %s", name, format)
			assert.Less(t, legend, strings.Index(flat, "HSN "), "%s %s: the legend is at the top", name, format)
		}
	}
}
