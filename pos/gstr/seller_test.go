package gstr

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A GSTR-1 holds the documents issued under its GSTIN as a regular taxpayer:
// a receipt issued before the shop had a GSTIN, a bill of supply under the
// composition scheme and an invoice under another GSTIN are left out (listed
// in Other), and count neither in b2cs, nor in table 8, nor in table 13. A
// document that does not say (Seller nil) is the return's.
func TestGSTR1TakesItsGSTINsDocuments(t *testing.T) {
	line := func(taxable, half Paise) []Line {
		return []Line{{Description: "Phone case", HSN: "3926", Qty: 1, Rate: 1800, Taxable: taxable, CGST: half, SGST: half}}
	}
	doc := func(no, date string, seller *Seller, lines []Line) Document {
		return Document{Kind: Invoice, Number: no, Date: day(date), PlaceOfSupply: "27", ShopState: "27", Seller: seller, Lines: lines}
	}
	untaxed := []Line{{Description: "Phone case", HSN: "3926", Qty: 1, Taxable: 1180_00}}
	docs := []Document{
		doc("T1/2627/000001", "2026-07-01", &Seller{}, untaxed),                                       // no GSTIN yet
		doc("T1/2627/000002", "2026-07-10", &Seller{GSTIN: shopGSTIN}, line(1000_00, 90_00)),          // regular
		doc("T1/2627/000003", "2026-07-11", nil, line(500_00, 45_00)),                                 // does not say
		doc("T1/2627/000004", "2026-07-20", &Seller{GSTIN: "29AAPFU0939F1ZZ"}, line(2000_00, 180_00)), // another GSTIN
	}
	bos := doc("T1/B2627/00001", "2026-07-25", &Seller{GSTIN: shopGSTIN, Composition: true}, untaxed)
	bos.Kind = BillOfSupply
	docs = append(docs, bos)

	r, err := GSTR1(Month{2026, 7}, shopGSTIN, docs)
	require.NoError(t, err)
	camt := Paise(135_00) // 90.00 + 45.00
	assert.Equal(t, []B2CS{{SplyTy: "INTRA", POS: "27", Typ: "OE", Rt: 1800, TxVal: 1500_00, CAmt: &camt, SAmt: &camt}}, r.B2CS)
	assert.Nil(t, r.Nil, "the receipt and the bill of supply are no nil-rated or exempt supply of this GSTIN")
	require.NotNil(t, r.DocIssue)
	assert.Equal(t, []DocDet{{DocNum: 1, DocTyp: "Invoices for outward supply",
		Docs: []DocSeries{{Num: 1, From: "T1/2627/000002", To: "T1/2627/000003", TotNum: 2, NetIssue: 2}}}}, r.DocIssue.DocDet)
	var other []string
	for _, d := range r.Other {
		other = append(other, d.Number)
	}
	assert.Equal(t, []string{"T1/2627/000001", "T1/2627/000004", "T1/B2627/00001"}, other)

	assert.True(t, Seller{GSTIN: shopGSTIN}.Files(shopGSTIN))
	assert.False(t, Seller{}.Files(""), "no GSTIN files no return")
	assert.False(t, Seller{GSTIN: shopGSTIN, Composition: true}.Files(shopGSTIN))
}
