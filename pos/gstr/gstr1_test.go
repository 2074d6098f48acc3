package gstr

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

const (
	shopGSTIN  = "27AAPFU0939F1ZV"
	buyerGSTIN = "27AAACR5055K1Z7"
)

func day(s string) time.Time {
	t, err := time.ParseInLocation(time.DateOnly, s, time.Local)
	if err != nil {
		panic(err)
	}
	return t.Add(11 * time.Hour)
}

// july2026 is a month of a shop in Maharashtra (27) whose every number is
// written by hand below; the expected return in TestGSTR1Month is computed by
// hand from these, not by the code.
func july2026() []Document {
	b2c := func(no, date, pos string, lines ...Line) Document {
		return Document{Kind: Invoice, Number: no, Date: day(date), PlaceOfSupply: pos, ShopState: "27", Lines: lines,
			Tender: "cash", Cashier: "Meera"}
	}
	docs := []Document{
		// Intra-state, two rates.
		b2c("T1/2627/000001", "2026-07-03", "27",
			Line{Description: "Phone case", HSN: "3926", Qty: 2, Rate: 1800, Taxable: 1000_00, CGST: 90_00, SGST: 90_00},
			Line{Description: "USB cable", HSN: "8544", Qty: 1, Rate: 500, Taxable: 200_00, CGST: 5_00, SGST: 5_00}),
		// Inter-state, small: b2cs INTER.
		b2c("T1/2627/000002", "2026-07-05", "29",
			Line{Description: "USB cable", HSN: "8544", Qty: 1, Rate: 500, Taxable: 400_00, IGST: 20_00}),
		// To a registered buyer: b2b.
		{Kind: Invoice, Number: "T1/2627/000003", Date: day("2026-07-08"), BuyerGSTIN: buyerGSTIN, BuyerName: "Rao Traders",
			PlaceOfSupply: "27", ShopState: "27", Tender: "card", Cashier: "Meera",
			Lines: []Line{{Description: "Phone X1", HSN: "8517", Qty: 1, Rate: 1800, Taxable: 50000_00, CGST: 4500_00, SGST: 4500_00, IMEIs: []string{"490154203237518"}}}},
		// Inter-state, unregistered, ₹1,18,000 > ₹1,00,000: b2cl.
		b2c("T1/2627/000004", "2026-07-10", "29",
			Line{Description: "Phone X9", HSN: "8517", Qty: 1, Rate: 1800, Taxable: 100000_00, IGST: 18000_00}),
		// Inter-state, unregistered, exactly ₹1,00,000: not above, so b2cs.
		b2c("T1/2627/000005", "2026-07-11", "24",
			Line{Description: "Phone X5", HSN: "8517", Qty: 1, Rate: 1800, Taxable: 84745_76, IGST: 15254_24}),
		// Cancelled: counted in doc_issue only.
		{Kind: Invoice, Number: "T1/2627/000006", Date: day("2026-07-12"), Cancelled: true, PlaceOfSupply: "27", ShopState: "27",
			Lines: []Line{{Description: "Phone case", HSN: "3926", Qty: 1, Rate: 1800, Taxable: 500_00, CGST: 45_00, SGST: 45_00}}},
		// One phone case of 000001 returned by an unregistered buyer: nets b2cs.
		{Kind: CreditNote, Number: "T1/C2627/00001", Date: day("2026-07-15"), OriginalNumber: "T1/2627/000001",
			OriginalDate: day("2026-07-03"), OriginalValue: 1390_00, PlaceOfSupply: "27", ShopState: "27",
			Lines: []Line{{Description: "Phone case", HSN: "3926", Qty: 1, Rate: 1800, Taxable: 500_00, CGST: 45_00, SGST: 45_00}}},
		// A price adjustment to the registered buyer: cdnr.
		{Kind: CreditNote, Number: "T1/C2627/00002", Date: day("2026-07-20"), OriginalNumber: "T1/2627/000003",
			OriginalDate: day("2026-07-08"), OriginalValue: 59000_00, BuyerGSTIN: buyerGSTIN, PlaceOfSupply: "27", ShopState: "27",
			Lines: []Line{{Description: "Phone X1", HSN: "8517", Qty: 0, Rate: 1800, Taxable: 1000_00, CGST: 90_00, SGST: 90_00}}},
		b2c("T1/2627/000007", "2026-07-25", "27",
			Line{Description: "USB cable", HSN: "8544", Qty: 3, Rate: 500, Taxable: 300_00, CGST: 7_50, SGST: 7_50}),
		// A price adjustment of the b2cl invoice: cdnur, typ B2CL.
		{Kind: CreditNote, Number: "T1/C2627/00003", Date: day("2026-07-28"), OriginalNumber: "T1/2627/000004",
			OriginalDate: day("2026-07-10"), OriginalValue: 118000_00, PlaceOfSupply: "29", ShopState: "27",
			Lines: []Line{{Description: "Phone X9", HSN: "8517", Qty: 0, Rate: 1800, Taxable: 2000_00, IGST: 360_00}}},
		// June and August: not in July's return.
		b2c("T1/2627/000000", "2026-06-30", "27", Line{Description: "Phone case", HSN: "3926", Qty: 1, Rate: 1800, Taxable: 100_00, CGST: 9_00, SGST: 9_00}),
		b2c("T1/2627/000008", "2026-08-01", "27", Line{Description: "Phone case", HSN: "3926", Qty: 1, Rate: 1800, Taxable: 100_00, CGST: 9_00, SGST: 9_00}),
	}
	// The HSN master's descriptions, as GSTRDocuments fills them in.
	master := map[string]string{"8517": "Telephone sets", "3926": "Other articles of plastics", "8544": "Insulated wire and cable"}
	for i := range docs {
		for k := range docs[i].Lines {
			docs[i].Lines[k].HSNDesc = master[docs[i].Lines[k].HSN]
		}
	}
	return docs
}

// july2026Return is the GSTR-1 of july2026, computed by hand:
//
//	b2cs INTRA 27 5%:  200.00 + 300.00 = 500.00; CGST 5.00 + 7.50 = 12.50, SGST the same
//	b2cs INTRA 27 18%: 1000.00 − 500.00 (credit note 00001) = 500.00; CGST 90.00 − 45.00 = 45.00
//	b2cs INTER 24 18%: 84745.76, IGST 15254.24 (value 1,00,000.00 is not above the threshold)
//	b2cs INTER 29 5%:  400.00, IGST 20.00
//	hsn_b2c 8517 18%:  100000.00 + 84745.76 − 2000.00 = 182745.76; IGST 18000.00 + 15254.24 − 360.00 = 32894.24
//	hsn_b2c 8544 5%:   qty 1 + 1 + 3 = 5; 200.00 + 400.00 + 300.00 = 900.00
const july2026Return = `{
  "gstin": "27AAPFU0939F1ZV", "fp": "072026", "version": "GST3.0.4", "hash": "hash",
  "b2b": [{"ctin": "27AAACR5055K1Z7", "inv": [
    {"inum": "T1/2627/000003", "idt": "08-07-2026", "val": 59000.00, "pos": "27", "rchrg": "N", "inv_typ": "R",
     "itms": [{"num": 1, "itm_det": {"rt": 18, "txval": 50000.00, "camt": 4500.00, "samt": 4500.00, "csamt": 0.00}}]}]}],
  "b2cl": [{"pos": "29", "inv": [
    {"inum": "T1/2627/000004", "idt": "10-07-2026", "val": 118000.00,
     "itms": [{"num": 1, "itm_det": {"rt": 18, "txval": 100000.00, "iamt": 18000.00, "csamt": 0.00}}]}]}],
  "b2cs": [
    {"sply_ty": "INTRA", "pos": "27", "typ": "OE", "rt": 5, "txval": 500.00, "camt": 12.50, "samt": 12.50, "csamt": 0.00},
    {"sply_ty": "INTRA", "pos": "27", "typ": "OE", "rt": 18, "txval": 500.00, "camt": 45.00, "samt": 45.00, "csamt": 0.00},
    {"sply_ty": "INTER", "pos": "24", "typ": "OE", "rt": 18, "txval": 84745.76, "iamt": 15254.24, "csamt": 0.00},
    {"sply_ty": "INTER", "pos": "29", "typ": "OE", "rt": 5, "txval": 400.00, "iamt": 20.00, "csamt": 0.00}],
  "cdnr": [{"ctin": "27AAACR5055K1Z7", "nt": [
    {"nt_num": "T1/C2627/00002", "nt_dt": "20-07-2026", "ntty": "C", "val": 1180.00, "pos": "27", "rchrg": "N", "inv_typ": "R",
     "itms": [{"num": 1, "itm_det": {"rt": 18, "txval": 1000.00, "camt": 90.00, "samt": 90.00, "csamt": 0.00}}]}]}],
  "cdnur": [
    {"typ": "B2CL", "nt_num": "T1/C2627/00003", "nt_dt": "28-07-2026", "ntty": "C", "val": 2360.00, "pos": "29",
     "itms": [{"num": 1, "itm_det": {"rt": 18, "txval": 2000.00, "iamt": 360.00, "csamt": 0.00}}]}],
  "hsn": {
    "hsn_b2b": [
      {"num": 1, "hsn_sc": "8517", "desc": "Telephone sets", "user_desc": "Phone X1", "uqc": "NOS", "qty": 1, "rt": 18, "txval": 49000.00,
       "iamt": 0.00, "camt": 4410.00, "samt": 4410.00, "csamt": 0.00}],
    "hsn_b2c": [
      {"num": 1, "hsn_sc": "3926", "desc": "Other articles of plastics", "user_desc": "Phone case", "uqc": "NOS", "qty": 1, "rt": 18, "txval": 500.00,
       "iamt": 0.00, "camt": 45.00, "samt": 45.00, "csamt": 0.00},
      {"num": 2, "hsn_sc": "8517", "desc": "Telephone sets", "user_desc": "Phone X9", "uqc": "NOS", "qty": 2, "rt": 18, "txval": 182745.76,
       "iamt": 32894.24, "camt": 0.00, "samt": 0.00, "csamt": 0.00},
      {"num": 3, "hsn_sc": "8544", "desc": "Insulated wire and cable", "user_desc": "USB cable", "uqc": "NOS", "qty": 5, "rt": 5, "txval": 900.00,
       "iamt": 20.00, "camt": 12.50, "samt": 12.50, "csamt": 0.00}]},
  "doc_issue": {"doc_det": [
    {"doc_num": 1, "doc_typ": "Invoices for outward supply", "docs": [{"num": 1, "from": "T1/2627/000001", "to": "T1/2627/000007", "totnum": 7, "cancel": 1, "net_issue": 6}]},
    {"doc_num": 5, "doc_typ": "Credit Note", "docs": [{"num": 1, "from": "T1/C2627/00001", "to": "T1/C2627/00003", "totnum": 3, "cancel": 0, "net_issue": 3}]}]}
}`

func TestGSTR1Month(t *testing.T) {
	m, err := ParseMonth("2026-07")
	require.NoError(t, err)
	r, err := GSTR1(m, shopGSTIN, july2026())
	require.NoError(t, err)
	got, err := json.MarshalIndent(r, "", "  ")
	require.NoError(t, err)
	assert.JSONEq(t, july2026Return, string(got))

	// The b2cs table is the month's small sales to unregistered buyers less
	// their returns: 1200.00 + 400.00 + 84745.76 + 300.00 of invoices 000001,
	// 000002, 000005 and 000007, less 500.00 of credit note 00001 = 86145.76.
	var b2cs Paise
	for _, e := range r.B2CS {
		b2cs += e.TxVal
	}
	assert.Equal(t, Paise(86145_76), b2cs, "b2cs taxable value")
}

func TestGSTR1AmountsAreRupeesWithTwoDecimals(t *testing.T) {
	for _, c := range []struct {
		p    Paise
		want string
	}{{0, "0.00"}, {5, "0.05"}, {1234_50, "1234.50"}, {-7_50, "-7.50"}, {100000_00, "100000.00"}} {
		got, err := json.Marshal(c.p)
		require.NoError(t, err)
		assert.Equal(t, c.want, string(got), "Paise(%d)", int64(c.p))
	}
	for _, c := range []struct {
		r    Rate
		want string
	}{{0, "0"}, {25, "0.25"}, {150, "1.5"}, {300, "3"}, {1800, "18"}, {4000, "40"}} {
		got, err := json.Marshal(c.r)
		require.NoError(t, err)
		assert.Equal(t, c.want, string(got), "Rate(%d)", int(c.r))
	}
}

func TestB2CLThreshold(t *testing.T) {
	inter := func(date string, taxable, igst Paise) Document {
		return Document{Kind: Invoice, Number: "T1/2425/000001", Date: day(date), PlaceOfSupply: "29", ShopState: "27",
			Lines: []Line{{HSN: "8517", Qty: 1, Rate: 1800, Taxable: taxable, IGST: igst}}}
	}
	for _, c := range []struct {
		name string
		doc  Document
		b2cl bool
	}{
		// ₹2,00,000 + 18% = ₹2,36,000: below the old ₹2.5 lakh, above the new ₹1 lakh.
		{"July 2024, ₹2,36,000", inter("2024-07-31", 200000_00, 36000_00), false},
		{"August 2024, ₹2,36,000", inter("2024-08-01", 200000_00, 36000_00), true},
		{"August 2024, ₹1,00,000.01", inter("2024-08-20", 84745_77, 15254_24), true},
		{"August 2024, ₹1,00,000.00", inter("2024-08-20", 84745_76, 15254_24), false},
	} {
		t.Run(c.name, func(t *testing.T) {
			m := Month{Year: c.doc.Date.Year(), Month: c.doc.Date.Month()}
			r, err := GSTR1(m, shopGSTIN, []Document{c.doc})
			require.NoError(t, err)
			assert.Equal(t, c.b2cl, len(r.B2CL) == 1, "b2cl")
			assert.Equal(t, !c.b2cl, len(r.B2CS) == 1, "b2cs")
		})
	}
}

func TestGSTR1BeforeMay2025HasOneHSNTable(t *testing.T) {
	docs := []Document{
		{Kind: Invoice, Number: "T1/2425/000001", Date: day("2025-04-02"), BuyerGSTIN: buyerGSTIN, PlaceOfSupply: "27", ShopState: "27",
			Lines: []Line{{Description: "Phone X1", HSN: "8517", Qty: 1, Rate: 1800, Taxable: 1000_00, CGST: 90_00, SGST: 90_00}}},
		{Kind: Invoice, Number: "T1/2425/000002", Date: day("2025-04-03"), PlaceOfSupply: "27", ShopState: "27",
			Lines: []Line{{Description: "Phone X1", HSN: "8517", Qty: 2, Rate: 1800, Taxable: 2000_00, CGST: 180_00, SGST: 180_00}}},
	}
	r, err := GSTR1(Month{2025, time.April}, shopGSTIN, docs)
	require.NoError(t, err)
	require.NotNil(t, r.HSN)
	assert.Empty(t, r.HSN.B2B)
	assert.Empty(t, r.HSN.B2C)
	assert.Equal(t, []HSNRow{{Num: 1, HSNSc: "8517", User: "Phone X1", UQC: "NOS", Qty: 3, Rt: 1800, TxVal: 3000_00,
		CAmt: 270_00, SAmt: 270_00}}, r.HSN.Data)

	r, err = GSTR1(Month{2025, time.May}, shopGSTIN, nil)
	require.NoError(t, err)
	assert.Nil(t, r.HSN, "no documents, no HSN table")
}

func TestGSTR1NilRatedAndExempt(t *testing.T) {
	docs := []Document{
		{Kind: Invoice, Number: "T1/2627/000001", Date: day("2026-07-01"), PlaceOfSupply: "27", ShopState: "27",
			Lines: []Line{{HSN: "4901", Qty: 1, Rate: 0, Taxable: 250_00}, {HSN: "3926", Qty: 1, Rate: 1800, Taxable: 100_00, CGST: 9_00, SGST: 9_00}}},
		{Kind: BillOfSupply, Number: "T1/B2627/00001", Date: day("2026-07-02"), PlaceOfSupply: "27", ShopState: "27",
			Lines: []Line{{HSN: "0701", Qty: 4, Rate: 0, Taxable: 80_00, Supply: "exempt"}}},
		// The same exempt vegetables on a tax invoice: the same column.
		{Kind: Invoice, Number: "T1/2627/000002", Date: day("2026-07-03"), PlaceOfSupply: "27", ShopState: "27",
			Lines: []Line{{HSN: "0701", Qty: 1, Rate: 0, Taxable: 20_00, Supply: "exempt"}, {HSN: "3926", Qty: 1, Rate: 1800, Taxable: 100_00, CGST: 9_00, SGST: 9_00}}},
		// A credit note against the bill of supply reverses the exempt column
		// (2 of the 4 units, 40.00), and one against the first invoice the
		// nil-rated book (250.00).
		{Kind: CreditNote, Number: "T1/C2627/00001", Date: day("2026-07-04"), PlaceOfSupply: "27", ShopState: "27", OriginalNumber: "T1/B2627/00001",
			Lines: []Line{{HSN: "0701", Qty: 2, Rate: 0, Taxable: 40_00, Supply: "exempt"}}},
		{Kind: CreditNote, Number: "T1/C2627/00002", Date: day("2026-07-05"), PlaceOfSupply: "27", ShopState: "27", OriginalNumber: "T1/2627/000001",
			Lines: []Line{{HSN: "4901", Qty: 1, Rate: 0, Taxable: 250_00, Supply: "nil"}}},
	}
	r, err := GSTR1(Month{2026, time.July}, shopGSTIN, docs)
	require.NoError(t, err)
	require.NotNil(t, r.Nil)
	// nil: 250.00 sold − 250.00 returned = 0.00; exempt: 80.00 + 20.00 − 40.00 = 60.00.
	assert.Equal(t, []NilRow{{SplyTy: "INTRAB2C", NilAmt: 0, ExptAmt: 60_00}}, r.Nil.Inv)
	assert.Equal(t, []B2CS{{SplyTy: "INTRA", POS: "27", Typ: "OE", Rt: 1800, TxVal: 200_00, CAmt: ptr(18_00), SAmt: ptr(18_00)}}, r.B2CS,
		"the 0% lines are not in b2cs")
	require.NotNil(t, r.DocIssue)
	require.Len(t, r.DocIssue.DocDet, 2, "invoices and credit notes")
	assert.Equal(t, []DocSeries{
		{Num: 1, From: "T1/2627/000001", To: "T1/2627/000002", TotNum: 2, NetIssue: 2},
		{Num: 2, From: "T1/B2627/00001", To: "T1/B2627/00001", TotNum: 1, NetIssue: 1},
	}, r.DocIssue.DocDet[0].Docs, "the bill of supply is its own series of invoices for outward supply")
}

func ptr(p Paise) *Paise { return &p }

func TestGSTR1Refuses(t *testing.T) {
	_, err := GSTR1(Month{2026, time.July}, " ", nil)
	assert.ErrorIs(t, err, ErrNoGSTIN)
	_, err = GSTR1(Month{2026, time.July}, shopGSTIN, []Document{{Kind: Invoice, Date: day("2026-07-01")}})
	assert.ErrorContains(t, err, "no number")
	_, err = GSTR1(Month{2026, time.July}, shopGSTIN, []Document{{Kind: "receipt", Number: "1", Date: day("2026-07-01")}})
	assert.ErrorContains(t, err, "unknown kind")
	_, err = GSTR1(Month{2026, time.July}, shopGSTIN, []Document{{Kind: Invoice, Number: "T1/2627/000001", Date: day("2026-07-01"),
		PlaceOfSupply: "29", ShopState: "27", Lines: []Line{{Rate: 1800, Taxable: 100_00, CGST: 9_00, SGST: 9_00}}}})
	assert.EqualError(t, err, "gstr: invoice T1/2627/000001 line 1: CGST and SGST on a supply from state 27 to 29 (IGST applies)")
	_, err = GSTR1(Month{2026, time.July}, shopGSTIN, []Document{{Kind: CreditNote, Number: "T1/C2627/00001", Date: day("2026-07-01"),
		ShopState: "27", Lines: []Line{{Rate: 1800, Taxable: 100_00, IGST: 18_00}}}})
	assert.EqualError(t, err, "gstr: credit-note T1/C2627/00001 line 1: IGST on a supply within state 27")
}

func TestParseMonth(t *testing.T) {
	m, err := ParseMonth("2026-03")
	require.NoError(t, err)
	assert.Equal(t, Month{2026, time.March}, m)
	assert.Equal(t, "032026", m.FP())
	first, last := m.Days(time.UTC)
	assert.Equal(t, "2026-03-01", first.Format(time.DateOnly))
	assert.Equal(t, "2026-03-31", last.Format(time.DateOnly))
	for _, bad := range []string{"2026-13", "2026-3", "26-03", "2026-03-01", ""} {
		_, err := ParseMonth(bad)
		assert.Error(t, err, "ParseMonth(%q)", bad)
	}
}

func TestGSTR1SaleWhollyReturnedLeavesNoRow(t *testing.T) {
	line := Line{Description: "Phone case", HSN: "3926", Qty: 1, Rate: 1800, Taxable: 500_00, CGST: 45_00, SGST: 45_00}
	docs := []Document{
		{Kind: Invoice, Number: "T1/2627/000001", Date: day("2026-07-01"), PlaceOfSupply: "27", ShopState: "27", Lines: []Line{line}},
		{Kind: CreditNote, Number: "T1/C2627/00001", Date: day("2026-07-02"), OriginalNumber: "T1/2627/000001", OriginalValue: 590_00,
			PlaceOfSupply: "27", ShopState: "27", Lines: []Line{line}},
	}
	r, err := GSTR1(Month{2026, time.July}, shopGSTIN, docs)
	require.NoError(t, err)
	assert.Empty(t, r.B2CS)
	assert.Nil(t, r.HSN)
	require.NotNil(t, r.DocIssue, "both documents were issued")
	assert.Len(t, r.DocIssue.DocDet, 2)
}

// hsnDesc cuts the catalog's name after its last whole word within 30
// characters, and hard at 30 only when no word ends in their second half.
func TestHSNDescCutsAtAWord(t *testing.T) {
	for in, want := range map[string]string{
		"USB cable": "USB cable",
		"Samsung Galaxy S24 5G 8GB/256GB Onyx Black":  "Samsung Galaxy S24 5G",
		"Portronics Konnect USB-C to USB-C Cable 1 m": "Portronics Konnect USB-C to",
		"abcdefghijklmnopqrstuvwxyz0123456789":        "abcdefghijklmnopqrstuvwxyz0123",
		"Thirty characters exactly okay":              "Thirty characters exactly okay",
		"Thirty characters exactly okay and more":     "Thirty characters exactly okay",
		"A verylongwordthatgoesonandonandon":          "A verylongwordthatgoesonandona",
	} {
		assert.Equal(t, want, hsnDesc(in), in)
		assert.LessOrEqual(t, len([]rune(hsnDesc(in))), 30, in)
	}
}

// DescribeHSN sets the desc of every tab of table 12 from the codes it
// describes, cut to 30 characters; a code it gives "" for keeps its desc.
func TestDescribeHSN(t *testing.T) {
	r := &Return{HSN: &HSN{
		Data: []HSNRow{{HSNSc: "8517", Desc: "Telephone sets"}, {HSNSc: "3926", Desc: "Other articles of plastics"}},
		B2B:  []HSNRow{{HSNSc: "8517", Desc: "Telephone sets"}},
		B2C:  []HSNRow{{HSNSc: "8544", Desc: ""}},
	}}
	r.DescribeHSN(func(code string) string {
		return map[string]string{"8517": "TELEPHONE SETS", "8544": "INSULATED WIRE, CABLE AND OTHER CONDUCTORS"}[code]
	})
	assert.Equal(t, []string{"TELEPHONE SETS", "Other articles of plastics"}, []string{r.HSN.Data[0].Desc, r.HSN.Data[1].Desc})
	assert.Equal(t, "TELEPHONE SETS", r.HSN.B2B[0].Desc)
	assert.Equal(t, "INSULATED WIRE, CABLE AND", r.HSN.B2C[0].Desc)
	(&Return{}).DescribeHSN(func(string) string { return "x" }) // no table 12: nothing to do
}
