package pos

import (
	"bytes"
	"encoding/csv"
	"testing"
	"time"

	"galla/pos/gstr"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// exportOrder is a paid sale of two phone cases at ₹1,499.00 (18%) and a cable at
// ₹105.00 (5%) with a done partial refund of ₹1,000.00 and a pending one.
func exportOrder() Order {
	paid := time.Date(2026, 7, 3, 18, 30, 0, 0, time.Local)
	lines := []Line{
		{SKU: "ACC-CASE", Name: "Phone case", HSN: "3926", Qty: 2, UnitPrice: 1499_00, GSTRate: Percent(18)},
		{SKU: "ACC-CBL", Name: "Cable", HSN: "8544", Qty: 1, UnitPrice: 105_00, GSTRate: Percent(5)},
	}
	return Order{ID: "ord-1", Day: "2026-07-03", State: StatePartlyRefunded, Tender: TenderCard, Staff: "002",
		Lines: lines, Totals: ComputeTotals(lines), Amount: 3103_00, Captured: 3103_00, CardBrand: "VISA", CardLast4: "1111",
		PaidAt: paid, PaidDay: "2026-07-03", ReceiptNo: 41, Refunded: 1000_00,
		Refunds: []Refund{
			{UniqueTxnID: "r1", Amount: 1000_00, Status: RefundDone, Day: "2026-07-09", Time: paid.AddDate(0, 0, 6), Staff: "001", ReceiptNo: 57},
			{UniqueTxnID: "r2", Amount: 50_00, Status: RefundPending, Day: "2026-07-10", Time: paid.AddDate(0, 0, 7), Staff: "001"},
		}}
}

func TestGSTRDocuments(t *testing.T) {
	shop := Shop{Name: "Galla Mobiles", State: "27", GSTIN: "27AAPFU0939F1ZV"}
	names := map[string]string{"001": "Meera", "002": "Ravi"}
	docs := GSTRDocuments(exportOrder(), shop, "T1", time.Local, func(id string) string { return names[id] })
	require.Len(t, docs, 2, "the invoice and the done refund's credit note; the pending refund issued none")

	inv := docs[0]
	assert.Equal(t, gstr.Invoice, inv.Kind)
	assert.Equal(t, "T1-000041", inv.Number)
	assert.Equal(t, "2026-07-03", ToDay(inv.Date))
	assert.Equal(t, "27", inv.PlaceOfSupply, "no buyer: supplied in the shop's state")
	assert.Empty(t, inv.BuyerGSTIN)
	assert.Equal(t, "card VISA 1111", inv.Tender)
	assert.Equal(t, "Ravi", inv.Cashier)
	// 2 × 1,499.00 = 2,998.00 at 18%: taxable 299800×100/118 = 2,540.678 → 2,540.68,
	// tax 457.32 split 228.66 + 228.66; 105.00 at 5%: 100.00 and 2.50 + 2.50.
	assert.Equal(t, []gstr.Line{
		{Description: "Phone case", HSN: "3926", HSNDesc: "Other articles of plastics", Qty: 2, Rate: 1800, Taxable: 2540_68, CGST: 228_66, SGST: 228_66},
		{Description: "Cable", HSN: "8544", HSNDesc: "Insulated wire and cable", Qty: 1, Rate: 500, Taxable: 100_00, CGST: 2_50, SGST: 2_50},
	}, inv.Lines)
	assert.Equal(t, gstr.Paise(3103_00), inv.Value())

	cn := docs[1]
	assert.Equal(t, gstr.CreditNote, cn.Kind)
	assert.Equal(t, "T1-000057", cn.Number)
	assert.Equal(t, "2026-07-09", ToDay(cn.Date))
	assert.Equal(t, "T1-000041", cn.OriginalNumber)
	assert.Equal(t, gstr.Paise(3103_00), cn.OriginalValue)
	assert.Equal(t, "Meera", cn.Cashier, "the manager who authorised the refund")
	// ₹1,000.00 spread over 2,998.00 and 105.00 of 3,103.00: 966.161… and 33.838…,
	// rounded down to 966.16 and 33.83, the odd paisa to the larger remainder
	// (the cable's): 966.16 and 33.84. Then 966.16 at 18%: 818.78 + 73.69 + 73.69;
	// 33.84 at 5%: 32.23, and 2.5% of it 0.80575 → 0.81 each (the portal's
	// arithmetic: the credit note's own rate, rounded half away from zero).
	// A value-only note: no quantity. 818.78 + 147.38 + 32.23 + 1.62 = 1,000.01,
	// so the note gives back 1,000.00 with a round-off of −0.01.
	assert.Equal(t, []gstr.Line{
		{Description: "Phone case", HSN: "3926", HSNDesc: "Other articles of plastics", Qty: 0, Rate: 1800, Taxable: 818_78, CGST: 73_69, SGST: 73_69},
		{Description: "Cable", HSN: "8544", HSNDesc: "Insulated wire and cable", Qty: 0, Rate: 500, Taxable: 32_23, CGST: 81, SGST: 81},
	}, cn.Lines)
	assert.Equal(t, gstr.Paise(-1), cn.RoundOff)
	assert.Equal(t, gstr.Paise(1000_00), cn.Value())

	// A full refund reverses every line with its quantity.
	o := exportOrder()
	o.Refunds = []Refund{{UniqueTxnID: "r1", Amount: 3103_00, Status: RefundDone, Day: "2026-07-04", Time: o.PaidAt.Add(24 * time.Hour), ReceiptNo: 42}}
	docs = GSTRDocuments(o, shop, "T1", time.Local, nil)
	require.Len(t, docs, 2)
	assert.Equal(t, docs[0].Lines, docs[1].Lines)

	// Nothing paid, nothing issued.
	o.State = StateFailed
	assert.Empty(t, GSTRDocuments(o, shop, "T1", time.Local, nil))
}

func TestSpread(t *testing.T) {
	for _, c := range []struct {
		amount Paise
		parts  []Paise
		want   []Paise
	}{
		{100, []Paise{1, 1, 1}, []Paise{34, 33, 33}},
		{1000_00, []Paise{2998_00, 105_00}, []Paise{966_16, 33_84}},
		{10, []Paise{0, 5}, []Paise{0, 10}},
		{7, []Paise{0, 0}, []Paise{0, 0}},
		{0, []Paise{3, 4}, []Paise{0, 0}},
	} {
		assert.Equal(t, c.want, Spread(c.amount, c.parts), "Spread(%d, %v)", c.amount, c.parts)
	}
}

// TestTillGSTR1 sells, refunds and exports through the till and the journal.
func TestTillGSTR1(t *testing.T) {
	r := newRig(t)
	ctx := t.Context()
	tl, err := NewTill(ctx, TillConfig{Engine: r.e, SampleCatalog: catalogJSON(t)})
	require.NoError(t, err)
	month := gstr.Month{Year: 2026, Month: time.November}

	_, err = tl.Documents.GSTR1(ctx, month)
	assert.EqualError(t, err, "GSTR-1 is filed under the shop's GSTIN, which is not set: set it with galla shop set --gstin (or in Settings), then export again.")

	_, _, err = tl.Setup.SetShop(ctx, ShopDetails{Name: "Galla Mobiles", Address: "1 MG Road, Pune", State: "27", GSTIN: "27AAPFU0939F1ZV"}, managerPIN)
	require.NoError(t, err)

	_, err = sellCash(ctx, r.e, r.sale(t, "ACC-CBL"), Rupees(500))
	require.NoError(t, err)
	paid, err := sellCard(ctx, r.e, r.sale(t, "ACC-CASE"), card("4111111111111111"), r.otp())
	require.NoError(t, err)
	_, err = sellCard(ctx, r.e, r.sale(t, "ACC-CASE"), card("4000000000000002"), r.otp())
	require.NoError(t, err)
	_, err = r.e.Refunds.Refund(ctx, RefundRequest{OrderID: paid.Order.ID, Amount: 100_00, PIN: managerPIN})
	require.NoError(t, err)

	ret, err := tl.Documents.GSTR1(ctx, month)
	require.NoError(t, err)
	assert.Equal(t, "27AAPFU0939F1ZV", ret.GSTIN)
	assert.Equal(t, "112026", ret.FP)
	assert.Empty(t, ret.B2B)
	assert.Empty(t, ret.B2CL)
	// 499.00 and 1,499.00 at 18% sold, 100.00 refunded, all within Maharashtra:
	// taxable 422.88 + 1,270.34 − 84.75 = 1,608.47;
	// per invoice and rate, CGST = SGST = 9% of the taxable value, half away
	// from zero: 38.0592 → 38.06, 114.3306 → 114.33, and the credit note's
	// 7.6275 → 7.63; CGST = SGST = 38.06 + 114.33 − 7.63 = 144.76.
	require.Len(t, ret.B2CS, 1)
	b := ret.B2CS[0]
	assert.Equal(t, "INTRA", b.SplyTy)
	assert.Equal(t, "27", b.POS)
	assert.Equal(t, gstr.Rate(1800), b.Rt)
	assert.Equal(t, gstr.Paise(1608_47), b.TxVal)
	require.NotNil(t, b.CAmt)
	require.NotNil(t, b.SAmt)
	assert.Equal(t, gstr.Paise(144_76), *b.CAmt)
	assert.Equal(t, gstr.Paise(144_76), *b.SAmt)
	assert.Nil(t, b.IAmt)
	require.NotNil(t, ret.DocIssue)
	assert.Equal(t, []gstr.DocDet{
		{DocNum: 1, DocTyp: "Invoices for outward supply", Docs: []gstr.DocSeries{{Num: 1, From: "T1/2627/000001", To: "T1/2627/000002", TotNum: 2, NetIssue: 2}}},
		{DocNum: 5, DocTyp: "Credit Note", Docs: []gstr.DocSeries{{Num: 1, From: "T1/C2627/00001", To: "T1/C2627/00001", TotNum: 1, NetIssue: 1}}},
	}, ret.DocIssue.DocDet, "the failed sale issued no document")

	// October has nothing.
	oct, err := tl.Documents.GSTR1(ctx, gstr.Month{Year: 2026, Month: time.October})
	require.NoError(t, err)
	assert.Empty(t, oct.B2CS)
	assert.Nil(t, oct.DocIssue)

	var out bytes.Buffer
	day := r.clock.Now()
	require.NoError(t, tl.Documents.WriteLinesCSV(ctx, day, day, &out))
	rows, err := csv.NewReader(&out).ReadAll()
	require.NoError(t, err)
	require.Len(t, rows, 4, "a header, two lines sold, one returned")
	assert.Equal(t, []string{"T1/2627/000001", "Cable", "422.88", "cash", "Meera"}, []string{rows[1][0], rows[1][7], rows[1][11], rows[1][19], rows[1][20]})
	assert.Equal(t, []string{"T1/C2627/00001", "credit-note", "T1/2627/000002", "-84.75"}, []string{rows[3][0], rows[3][2], rows[3][3], rows[3][11]})

	assert.ErrorIs(t, tl.Documents.WriteLinesCSV(ctx, day, day.AddDate(0, 0, -1), &out), ErrExportRange)
	// 2026-11-22 to 2029-11-21 is 1,096 days (2028 is a leap year); a day more is too long.
	_, err = tl.Documents.ExportDocuments(ctx, day, time.Date(2029, 11, 21, 0, 0, 0, 0, time.Local))
	require.NoError(t, err)
	_, err = tl.Documents.ExportDocuments(ctx, day, time.Date(2029, 11, 22, 0, 0, 0, 0, time.Local))
	assert.ErrorIs(t, err, ErrExportTooLong)

	// A refund in December of November's sale is in December's return, citing
	// the November invoice; November's return stays as it was.
	r.clock.Advance(9 * 24 * time.Hour)
	require.Equal(t, "2026-12-01", ToDay(r.clock.Now()))
	_, err = r.e.Refunds.Refund(ctx, RefundRequest{OrderID: paid.Order.ID, Amount: 100_00, PIN: managerPIN})
	require.NoError(t, err)
	dec, err := tl.Documents.GSTR1(ctx, gstr.Month{Year: 2026, Month: time.December})
	require.NoError(t, err)
	require.Len(t, dec.B2CS, 1)
	assert.Equal(t, gstr.Paise(-84_75), dec.B2CS[0].TxVal)
	assert.Equal(t, []gstr.DocDet{{DocNum: 5, DocTyp: "Credit Note", Docs: []gstr.DocSeries{{Num: 1, From: "T1/C2627/00002", To: "T1/C2627/00002", TotNum: 1, NetIssue: 1}}}},
		dec.DocIssue.DocDet)
	docs, err := tl.Documents.ExportDocuments(ctx, r.clock.Now(), r.clock.Now())
	require.NoError(t, err)
	require.Len(t, docs, 1)
	assert.Equal(t, "T1/2627/000002", docs[0].OriginalNumber)
	assert.Equal(t, "2026-11-22", ToDay(docs[0].OriginalDate))
	nov, err := tl.Documents.GSTR1(ctx, month)
	require.NoError(t, err)
	assert.Equal(t, ret, nov)

	_, _, err = tl.Setup.SetShop(ctx, ShopDetails{Name: "Galla Mobiles", Address: "1 MG Road, Pune", State: "27", GSTIN: "27AAPFU0939F1ZV", Composition: true}, managerPIN)
	require.NoError(t, err)
	// November was filed under the regular registration of November: joining
	// the composition scheme later leaves its return as it was; a month wholly
	// under the scheme has none.
	nov, err = tl.Documents.GSTR1(ctx, month)
	require.NoError(t, err)
	assert.Equal(t, ret, nov)
	_, err = tl.Documents.GSTR1(ctx, gstr.Month{Year: 2027, Month: time.January})
	assert.ErrorContains(t, err, "composition scheme")
}

// A buyer's details decide GSTR-1's sections: an unregistered buyer whose
// address in another state is on the invoice is supplied there (IGST Act
// s.10(1)(ca): IGST), a registered buyer from another state who takes the goods
// at the counter is supplied in the shop's state (CGST and SGST, in b2b under
// the buyer's GSTIN), and a return's credit note reverses the goods and tax its
// items name.
func TestGSTRDocumentsBuyerAndPlace(t *testing.T) {
	shop := Shop{Name: "Galla Mobiles", State: "27", GSTIN: "27AAPFU0939F1ZV"}
	paid := time.Date(2026, 7, 3, 18, 30, 0, 0, time.Local)
	phone := []Line{{SKU: "PH-1", Name: "Phone", HSN: "8517", Qty: 1, UnitPrice: 59000_00, GSTRate: Percent(18)}}
	sale := func(b *Buyer) Order {
		return Order{ID: "ord-2", State: StatePaid, Tender: TenderCash, Lines: phone, Totals: ComputeTotals(phone),
			Amount: 59000_00, Captured: 59000_00, PaidAt: paid, PaidDay: "2026-07-03", Series: "2627", DocNo: 7, Buyer: b}
	}

	// ₹59,000.00 at 18%: taxable 5900000×100/118 = 50,000.00, tax 9,000.00.
	away := GSTRDocuments(sale(&Buyer{Name: "R. Rao", Address: "80 Feet Road, Koramangala, Bengaluru", State: "29"}), shop, "T1", time.Local, nil)
	require.Len(t, away, 1)
	assert.Equal(t, "T1/2627/000007", away[0].Number)
	assert.Equal(t, "29", away[0].PlaceOfSupply, "s.10(1)(ca): the unregistered buyer's address in Karnataka")
	assert.Empty(t, away[0].BuyerGSTIN)
	assert.Equal(t, []gstr.Line{{Description: "Phone", HSN: "8517", HSNDesc: "Telephone sets", Qty: 1, Rate: 1800, Taxable: 50000_00, IGST: 9000_00}}, away[0].Lines)

	b2b := GSTRDocuments(sale(&Buyer{Name: "Rao Traders", Address: "MG Road, Bengaluru", State: "29", GSTIN: "29AAPFU0939F1ZR"}), shop, "T1", time.Local, nil)
	require.Len(t, b2b, 1)
	assert.Equal(t, "29AAPFU0939F1ZR", b2b[0].BuyerGSTIN)
	assert.Equal(t, "Rao Traders", b2b[0].BuyerName)
	assert.Equal(t, "27", b2b[0].PlaceOfSupply, "taken at the counter: supplied in the shop's state")
	assert.Equal(t, []gstr.Line{{Description: "Phone", HSN: "8517", HSNDesc: "Telephone sets", Qty: 1, Rate: 1800, Taxable: 50000_00, CGST: 4500_00, SGST: 4500_00}}, b2b[0].Lines)
	ret, err := gstr.GSTR1(gstr.Month{Year: 2026, Month: time.July}, shop.GSTIN, b2b)
	require.NoError(t, err)
	require.Len(t, ret.B2B, 1)
	assert.Equal(t, "29AAPFU0939F1ZR", ret.B2B[0].CTIN)
	assert.Empty(t, ret.B2CS)

	// The phone returned: the credit note reverses exactly the sale's taxable
	// value and tax, as the return's item records them, as IGST across states.
	o := sale(&Buyer{Name: "R. Rao", Address: "80 Feet Road, Koramangala, Bengaluru", State: "29"})
	o.State, o.Refunded = StateRefunded, 59000_00
	o.Refunds = []Refund{{UniqueTxnID: "r1", Amount: 59000_00, Status: RefundDone, Day: "2026-07-05", Time: paid.AddDate(0, 0, 2), Series: "C2627", DocNo: 3, To: RefundToCash,
		Items: []ReturnItem{{Line: 0, SKU: "PH-1", Qty: 1, Amount: 59000_00, Taxable: 50000_00, Tax: 9000_00, CGST: 4500_00, Rate: Percent(18), IMEIs: []string{"490154203237518"}}}}}
	docs := GSTRDocuments(o, shop, "T1", time.Local, nil)
	require.Len(t, docs, 2)
	cn := docs[1]
	assert.Equal(t, "T1/C2627/00003", cn.Number)
	assert.Equal(t, "29", cn.PlaceOfSupply)
	assert.Equal(t, []gstr.Line{{Description: "Phone", HSN: "8517", HSNDesc: "Telephone sets", Qty: 1, Rate: 1800, Taxable: 50000_00, IGST: 9000_00, IMEIs: []string{"490154203237518"}}}, cn.Lines)
}
