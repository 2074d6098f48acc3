package irp_test

import (
	"strings"
	"testing"
	"time"

	"galla/gateway/irp"
)

// Valid GSTINs (their check characters computed by hand with the mod-36 rule).
const (
	sellerGSTIN = "27AAPFU0939F1ZV" // Maharashtra
	buyerGSTIN  = "29AAGCB7383J1Z4" // Karnataka
	localBuyer  = "27AAACR5055K1Z7" // Maharashtra
)

var saleDay = time.Date(2026, time.November, 26, 11, 30, 0, 0, irp.IST)

// invoiceDoc is a B2B invoice of two lines to a buyer in the shop's own state:
// 2 × ₹10,000.00 at 18% and 1 × ₹499.00 at 5%, rounded off by −₹0.96.
func invoiceDoc() irp.Document {
	return irp.Document{
		Type: irp.TypeInvoice, Number: "T1/2627/000123", Date: saleDay,
		Seller:        irp.Seller{GSTIN: sellerGSTIN, Name: "Galla Mobiles", Address: []string{"Shop 4, Linking Road", "Bandra West, Mumbai 400050"}, State: "27", Phone: "+91 98200 12345"},
		Buyer:         irp.Buyer{GSTIN: localBuyer, Name: "Reliance Traders", Address: "12 MG Road, Pune", State: "27"},
		PlaceOfSupply: "27",
		Lines: []irp.Line{
			{Description: "Phone X1 128GB", HSN: "851713", Qty: 2, RateBP: 1800, Taxable: 2000000, CGST: 180000, SGST: 180000},
			{Description: "Case", HSN: "3926", Qty: 1, RateBP: 500, Taxable: 49900, CGST: 1248, SGST: 1248},
		},
		RoundOff: -96,
	}
}

// creditNoteDoc is a B2B credit note to an inter-state buyer against an invoice.
func creditNoteDoc() irp.Document {
	d := invoiceDoc()
	d.Type, d.Number = irp.TypeCreditNote, "CT1/2627/000007"
	d.Buyer = irp.Buyer{GSTIN: buyerGSTIN, Name: "Bangalore Gadgets", Address: "1 Residency Road, Bengaluru 560025", State: "29"}
	d.PlaceOfSupply = "29"
	d.Lines = []irp.Line{{Description: "Phone X1 128GB", HSN: "85171300", Qty: 1, RateBP: 1800, Taxable: 1000000, IGST: 180000}}
	d.RoundOff = 0
	d.OriginalNumber, d.OriginalDate = "T1/2627/000100", saleDay.AddDate(0, 0, -3)
	return d
}

func mustBuild(t *testing.T, d irp.Document) irp.Invoice {
	t.Helper()
	inv, err := irp.Build(d)
	if err != nil {
		t.Fatalf("Build(%s %s) = %v", d.Type, d.Number, err)
	}
	return inv
}

func hex64(s string) bool {
	return len(s) == 64 && strings.Trim(s, "0123456789abcdef") == ""
}
