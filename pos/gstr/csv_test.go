package gstr

import (
	"bytes"
	"encoding/csv"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestCSVText(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"", ""},
		{"Phone case", "Phone case"},
		{"=HYPERLINK(\"http://x\")", "'=HYPERLINK(\"http://x\")"},
		{"+91 98200", "'+91 98200"},
		{"-2+3", "'-2+3"},
		{"@SUM(A1)", "'@SUM(A1)"},
		{"\t=1", "'\t=1"},
		{"\r=1", "'\r=1"},
		{"a=1", "a=1"},
	} {
		assert.Equal(t, c.want, CSVText(c.in), "CSVText(%q)", c.in)
	}
}

func TestWriteCSV(t *testing.T) {
	docs := []Document{
		{Kind: Invoice, Number: "T1/2627/000003", Date: day("2026-07-08"), BuyerGSTIN: buyerGSTIN, BuyerName: "=cmd|' /C calc'!A0",
			PlaceOfSupply: "27", ShopState: "27", Tender: "card VISA 1111", Cashier: "Meera", Seller: &Seller{GSTIN: shopGSTIN},
			Lines: []Line{
				{Description: "Phone X1", HSN: "8517", Qty: 2, Rate: 1800, Taxable: 50000_00, CGST: 4500_00, SGST: 4500_00,
					IMEIs: []string{"490154203237518", "356938035643809"}},
				{Description: "@case", HSN: "3926", Qty: 1, Rate: 250, Taxable: 100_00, Cess: 1_00, CGST: 1_25, SGST: 1_25},
			}},
		{Kind: CreditNote, Number: "T1/C2627/00001", Date: day("2026-07-15"), OriginalNumber: "T1/2627/000001",
			PlaceOfSupply: "29", ShopState: "27", Tender: "cash", Cashier: "-Ravi",
			Lines: []Line{{Description: "USB cable", HSN: "8544", Qty: 1, Rate: 500, Taxable: 400_00, IGST: 20_00}}},
		{Kind: Invoice, Number: "T1/2627/000006", Date: day("2026-07-12"), Cancelled: true, PlaceOfSupply: "27", ShopState: "27",
			Lines: []Line{{Description: "Phone case", HSN: "3926", Qty: 1, Rate: 1800, Taxable: 500_00}}},
	}
	var b bytes.Buffer
	require.NoError(t, WriteCSV(&b, docs))
	rows, err := csv.NewReader(&b).ReadAll()
	require.NoError(t, err)
	want := [][]string{
		CSVHeader,
		{"T1/2627/000003", "2026-07-08", "invoice", "", buyerGSTIN, "'=cmd|' /C calc'!A0", "27", "Phone X1", "8517", "2", "NOS",
			"50000.00", "18", "0.00", "4500.00", "4500.00", "0.00", "59000.00", "490154203237518 356938035643809", "card VISA 1111", "Meera", shopGSTIN},
		{"T1/2627/000003", "2026-07-08", "invoice", "", buyerGSTIN, "'=cmd|' /C calc'!A0", "27", "'@case", "3926", "1", "NOS",
			"100.00", "2.5", "0.00", "1.25", "1.25", "1.00", "103.50", "", "card VISA 1111", "Meera", shopGSTIN},
		{"T1/C2627/00001", "2026-07-15", "credit-note", "T1/2627/000001", "", "", "29", "USB cable", "8544", "-1", "NOS",
			"-400.00", "5", "-20.00", "0.00", "0.00", "0.00", "-420.00", "", "cash", "'-Ravi", ""},
		{"T1/2627/000006", "2026-07-12", "invoice (cancelled)", "", "", "", "27", "", "", "", "", "", "", "", "", "", "", "", "", "", "", ""},
	}
	assert.Equal(t, want, rows)
}
