package pos

import (
	"bytes"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"galla/receipts"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// docShop is a registered shop in Maharashtra (27).
var docShop = Shop{Name: "Galla Mobiles", Address: []string{"14, FC Road, Pune 411004"}, GSTIN: "27AAPFU0939F1ZV", State: "27"}

// docOrder is a paid cash sale of lines to buyer (nil: nobody named).
func docOrder(lines []Line, buyer *Buyer) Order {
	paid := time.Date(2026, 11, 22, 14, 25, 0, 0, time.FixedZone("IST", 19800))
	tt := ComputeTotals(lines)
	return Order{
		ID: "G-20261122-0010", Day: "2026-11-22", State: StatePaid, Tender: TenderCash, Staff: "Asha",
		Opened: paid, PaidAt: paid, Lines: lines, Totals: tt, Amount: tt.Total, Captured: tt.Total,
		Verified: true, ReceiptNo: 7, CashTendered: tt.Total, Buyer: buyer,
	}
}

// docText renders r as 48-column text, one string per line.
func docText(t *testing.T, r receipts.Receipt) string {
	t.Helper()
	var b bytes.Buffer
	require.NoError(t, receipts.Text(&b, r, 48))
	return b.String()
}

// lr48 is a 48-column line with left on the left and right on the right.
func lr48(left, right string) string {
	return left + strings.Repeat(" ", 48-utf8.RuneCountInString(left)-utf8.RuneCountInString(right)) + right
}

func phoneLine(price Paise) Line {
	return Line{SKU: "PH", Name: "Samsung Galaxy A55", HSN: "8517", Qty: 1, UnitPrice: price, GSTRate: Percent(18), Serialised: true, IMEIs: []string{"356938035643809"}}
}

func TestDocumentIntraState(t *testing.T) {
	r := ReceiptFor(docOrder([]Line{phoneLine(59_000_00)}, nil), docShop, ReceiptOptions{Terminal: "T1"})
	assert.Equal(t, "TAX INVOICE", r.Title)
	assert.Equal(t, "Maharashtra (27)", r.PlaceOfSupply)
	assert.False(t, r.Interstate)
	// ₹59,000.00 at 18%: taxable 50,000.00, CGST 4,500.00, SGST 4,500.00.
	assert.Equal(t, []receipts.TaxLine{{Rate: 1800, Taxable: 50_000_00, CGST: 4_500_00, SGST: 4_500_00}}, r.Taxes)
	assert.Equal(t, []receipts.HSNLine{{HSN: "8517", Rate: 1800, Qty: 1, Taxable: 50_000_00, CGST: 4_500_00, SGST: 4_500_00}}, r.HSN)
	require.Len(t, r.Lines, 1)
	assert.Equal(t, int64(50_000_00), r.Lines[0].Taxable)
	assert.Equal(t, int64(9_000_00), r.Lines[0].Tax)
	text := docText(t, r)
	for _, want := range []string{
		"GSTIN 27AAPFU0939F1ZV",
		"State Maharashtra (27)",
		"Place of supply                 Maharashtra (27)",
		"  HSN 8517  1 NOS x 59,000.00          59,000.00",
		"  Taxable value                        50,000.00",
		"  GST @18%                              9,000.00",
		"  IMEI 356938035643809",
		"  CGST @9%                              4,500.00",
		"  SGST @9%                              4,500.00",
		"8517 @18%  Qty 1                       50,000.00",
		"Rupees Fifty-Nine Thousand Only",
	} {
		assert.Contains(t, text, want+"\n")
	}
	assert.NotContains(t, text, "IGST")
	assert.NotContains(t, text, "Buyer")
}

// s.10(1)(ca): an unregistered buyer whose address in Karnataka is on the invoice
// is supplied in Karnataka: IGST.
func TestDocumentInterStateUnregistered(t *testing.T) {
	buyer := &Buyer{Name: "Asha Rao", Address: "12 MG Road, Bengaluru", State: "29", Phone: "9845012345"}
	r := ReceiptFor(docOrder([]Line{phoneLine(59_000_00)}, buyer), docShop, ReceiptOptions{Terminal: "T1"})
	assert.Equal(t, "TAX INVOICE", r.Title)
	assert.True(t, r.Interstate)
	assert.Equal(t, "Karnataka (29)", r.PlaceOfSupply)
	assert.Equal(t, []receipts.TaxLine{{Rate: 1800, Taxable: 50_000_00, IGST: 9_000_00}}, r.Taxes)
	assert.Equal(t, []receipts.HSNLine{{HSN: "8517", Rate: 1800, Qty: 1, Taxable: 50_000_00, IGST: 9_000_00}}, r.HSN)
	text := docText(t, r)
	for _, want := range []string{
		"Buyer (unregistered)",
		"  Asha Rao",
		"  12 MG Road, Bengaluru",
		"  State Karnataka (29)",
		"Place of supply                   Karnataka (29)",
		"  IGST @18%                             9,000.00",
	} {
		assert.Contains(t, text, want+"\n")
	}
	assert.NotContains(t, text, "CGST")
}

// B2B: a registered buyer from Karnataka who takes the goods at the counter is
// supplied in Maharashtra (CGST + SGST); the GSTIN is printed.
func TestDocumentB2BAtTheCounter(t *testing.T) {
	buyer := &Buyer{Name: "Urban Mobiles", Address: "Bengaluru", GSTIN: "29AAPFU0939F1ZR"}
	r := ReceiptFor(docOrder([]Line{phoneLine(59_000_00)}, buyer), docShop, ReceiptOptions{Terminal: "T1"})
	assert.False(t, r.Interstate)
	assert.Equal(t, "Maharashtra (27)", r.PlaceOfSupply)
	require.NotNil(t, r.Buyer)
	assert.Equal(t, receipts.Buyer{Name: "Urban Mobiles", Address: "Bengaluru", State: "Karnataka (29)", GSTIN: "29AAPFU0939F1ZR"}, *r.Buyer)
	text := docText(t, r)
	assert.Contains(t, text, "Buyer (registered)\n")
	assert.Contains(t, text, "  GSTIN 29AAPFU0939F1ZR\n")
	assert.Contains(t, text, "  CGST @9%                              4,500.00\n")
}

// An exempt-only sale of a registered shop is a BILL OF SUPPLY with no tax lines.
func TestDocumentExemptOnly(t *testing.T) {
	lines := []Line{{SKU: "BK", Name: "Road atlas", HSN: "4901", Qty: 2, UnitPrice: 399_00}}
	r := ReceiptFor(docOrder(lines, nil), docShop, ReceiptOptions{Terminal: "T1"})
	assert.Equal(t, "BILL OF SUPPLY", r.Title)
	assert.Empty(t, r.Taxes)
	assert.Empty(t, r.HSN, "a bill of supply has no tax to summarise")
	assert.Equal(t, int64(798_00), r.Total)
	text := docText(t, r)
	assert.Contains(t, text, "BILL OF SUPPLY\n")
	assert.NotContains(t, text, "TAX INVOICE")
	assert.NotContains(t, text, "GST @")
	assert.NotContains(t, text, "Taxable value")
	assert.Contains(t, text, "Rupees Seven Hundred Ninety-Eight Only\n")
	// A 0% line beside a taxed one keeps the tax invoice.
	r = ReceiptFor(docOrder(append(lines, phoneLine(59_000_00)), nil), docShop, ReceiptOptions{})
	assert.Equal(t, "TAX INVOICE", r.Title)
	// A composition shop issues bills of supply that say it collects no tax.
	comp := docShop
	comp.Composition = true
	r = ReceiptFor(docOrder([]Line{phoneLine(59_000_00)}, nil), comp, ReceiptOptions{})
	assert.Equal(t, "BILL OF SUPPLY", r.Title)
	text = docText(t, r)
	assert.Contains(t, flat(text), CompositionLegend)
	assert.NotContains(t, text, "CGST")
}

// The rates of 22 September 2025 with decimals, a discount, and a cess.
func TestDocumentRatesDiscountCess(t *testing.T) {
	lines := []Line{
		{SKU: "DIA", Name: "Cut diamond", HSN: "71023910", Qty: 1, UnitPrice: 1_00_250_00, GSTRate: RateBP(25)},
		{SKU: "GOLD", Name: "Gold coin 1g", HSN: "7118", Qty: 1, UnitPrice: 10_250_00, Discount: 100_00, GSTRate: RateBP(150)},
		{SKU: "PAN", Name: "Pan masala 100g", HSN: "2106", Qty: 2, UnitPrice: 188_00, GSTRate: Percent(28), Cess: Percent(60)},
	}
	r := ReceiptFor(docOrder(lines, &Buyer{Name: "R. Shah", Address: "Pune", State: "27"}), docShop, ReceiptOptions{})
	// 1,00,250.00 / 1.0025 = 1,00,000.00, GST 250.00; (10,250 − 100) / 1.015 =
	// 10,000.00, GST 150.00; 376.00 / 1.88 = 200.00, cess 120.00, GST 56.00.
	assert.Equal(t, []receipts.TaxLine{
		{Rate: 25, Taxable: 1_00_000_00, CGST: 125_00, SGST: 125_00},
		{Rate: 150, Taxable: 10_000_00, CGST: 75_00, SGST: 75_00},
		{Rate: 2800, Taxable: 200_00, CGST: 28_00, SGST: 28_00, Cess: 120_00},
	}, r.Taxes)
	assert.Equal(t, int64(1_00_250_00+10_150_00+376_00), r.Total)
	text := docText(t, r)
	for _, want := range []string{
		"  HSN 7118  1 NOS x 10,250.00          10,250.00",
		"  Discount                               -100.00",
		"  Taxable value                        10,000.00",
		"  GST @1.5%                               150.00",
		lr48("  CGST @0.125%", "125.00"),
		lr48("  SGST @0.125%", "125.00"),
		lr48("  CGST @0.75%", "75.00"),
		"  Cess @60%                               120.00",
		"Cess on goods @28%                        120.00",
		"Rupees One Lakh Ten Thousand Seven Hundred\nSeventy-Six Only",
	} {
		assert.Contains(t, text, want+"\n")
	}
}

// Goods the shop delivers to Goa are supplied in Goa (s.10(1)(a)): IGST, and the
// invoice says where they went.
func TestDocumentDeliveredToAnotherState(t *testing.T) {
	buyer := &Buyer{Name: "R. Naik", Phone: "9822012345", ShipState: "30"}
	r := ReceiptFor(docOrder([]Line{phoneLine(59_000_00)}, buyer), docShop, ReceiptOptions{})
	assert.True(t, r.Interstate)
	assert.Equal(t, "Goa (30)", r.PlaceOfSupply)
	assert.Equal(t, []receipts.TaxLine{{Rate: 1800, Taxable: 50_000_00, IGST: 9_000_00}}, r.Taxes)
	text := docText(t, r)
	assert.Contains(t, text, "  Delivered to Goa (30)\n")
	assert.Contains(t, text, lr48("  IGST @18%", "9,000.00")+"\n")
}

// An invoice value of ₹58,999.50 (a ₹0.50 discount) paid as ₹59,000.00 prints
// the difference as its own round-off line; paid exactly, there is none.
func TestDocumentRoundOff(t *testing.T) {
	line := phoneLine(59_000_00)
	line.Discount = 50
	o := docOrder([]Line{line}, nil)
	r := ReceiptFor(o, docShop, ReceiptOptions{})
	assert.Zero(t, r.RoundOff)
	assert.Equal(t, int64(58_999_50), r.Total)
	assert.NotContains(t, docText(t, r), "Round off")

	o.Captured = 59_000_00
	r = ReceiptFor(o, docShop, ReceiptOptions{})
	assert.Equal(t, int64(50), r.RoundOff)
	assert.Equal(t, int64(59_000_00), r.Total)
	text := docText(t, r)
	assert.Contains(t, text, lr48("Invoice value", "58,999.50")+"\n")
	assert.Contains(t, text, lr48("Round off", "+0.50")+"\n")
	assert.Contains(t, text, "Rupees Fifty-Nine Thousand Only\n")
}

// SaleTotals states the tax as the document does: IGST for the buyer in
// Karnataka, CGST + SGST for a walk-in.
func TestSaleTotals(t *testing.T) {
	o := docOrder([]Line{phoneLine(59_000_00)}, &Buyer{Name: "A", Address: "Bengaluru", State: "29"})
	tt, place := SaleTotals(o, docShop)
	assert.True(t, place.Interstate)
	assert.Equal(t, Totals{Items: 1, Gross: 59_000_00, Total: 59_000_00, Taxable: 50_000_00, Tax: 9_000_00, IGST: 9_000_00,
		ByRate: []RateTotal{{Rate: Percent(18), Amount: 59_000_00, Taxable: 50_000_00, Tax: 9_000_00, IGST: 9_000_00}}}, tt)
	assert.Equal(t, Paise(4_500_00), o.Totals.CGST, "the journaled totals are not changed")
	tt, place = SaleTotals(docOrder([]Line{phoneLine(59_000_00)}, nil), docShop)
	assert.False(t, place.Interstate)
	assert.Equal(t, Paise(4_500_00), tt.CGST)
	assert.Equal(t, Paise(4_500_00), tt.SGST)
	assert.Zero(t, tt.IGST)
}
