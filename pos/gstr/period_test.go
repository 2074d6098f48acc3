package gstr

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestParseQuarter(t *testing.T) {
	q, err := ParseQuarter("2026-Q3")
	require.NoError(t, err)
	assert.Equal(t, Period{First: Month{Year: 2026, Month: time.July}, Months: 3}, q)
	assert.Equal(t, Month{Year: 2026, Month: time.September}, q.Last())
	assert.Equal(t, "092026", q.Last().FP())
	assert.Equal(t, "2026-Q3", q.String())
	assert.True(t, q.Contains(day("2026-07-01")))
	assert.True(t, q.Contains(day("2026-09-30")))
	assert.False(t, q.Contains(day("2026-10-01")))
	assert.False(t, q.Contains(day("2026-06-30")))
	q4, err := ParseQuarter("2026-q4")
	require.NoError(t, err)
	assert.Equal(t, Month{Year: 2026, Month: time.December}, q4.Last())
	assert.Equal(t, q, QuarterOf(Month{Year: 2026, Month: time.August}))
	for _, bad := range []string{"", "2026-Q5", "2026-Q0", "2026Q1", "26-Q1", "2026-07"} {
		_, err := ParseQuarter(bad)
		assert.ErrorIs(t, err, ErrBadQuarter, bad)
	}
}

// quarter is a quarterly filer's July–September 2026: a B2B invoice in July
// (furnished in July's IFF), a B2C invoice in August, a B2B invoice and a
// credit note to the July buyer in September, and an October sale left out.
func quarter() []Document {
	inv := func(no, date, gstin string, taxable, half Paise) Document {
		return Document{Kind: Invoice, Number: no, Date: day(date), PlaceOfSupply: "27", ShopState: "27", BuyerGSTIN: gstin,
			Lines: []Line{{Description: "Phone", HSN: "8517", Qty: 1, Rate: 1800, Taxable: taxable, CGST: half, SGST: half}}}
	}
	cn := inv("T1/C2627/00001", "2026-09-10", buyerGSTIN, 100_00, 9_00)
	cn.Kind, cn.OriginalNumber, cn.OriginalDate, cn.OriginalValue = CreditNote, "T1/2627/000001", day("2026-07-02"), 11800_00
	cn.Lines[0].Qty = 0
	return []Document{
		inv("T1/2627/000001", "2026-07-02", buyerGSTIN, 10000_00, 900_00),
		inv("T1/2627/000002", "2026-08-14", "", 1000_00, 90_00),
		inv("T1/2627/000003", "2026-09-20", buyerGSTIN, 5000_00, 450_00),
		cn,
		inv("T1/2627/000004", "2026-10-01", "", 500_00, 45_00),
	}
}

func TestGSTR1QuarterAndIFF(t *testing.T) {
	q, err := ParseQuarter("2026-Q3")
	require.NoError(t, err)

	// The whole quarter, with no IFF filed: every document of July to September.
	r, err := GSTR1Period(q, shopGSTIN, quarter(), false)
	require.NoError(t, err)
	assert.Equal(t, "092026", r.FP)
	require.Len(t, r.B2B, 1)
	assert.Len(t, r.B2B[0].Inv, 2, "July's and September's B2B invoices")
	require.Len(t, r.B2CS, 1)
	assert.Equal(t, Paise(1000_00), r.B2CS[0].TxVal, "August's B2C sale; October's is another quarter")
	require.Len(t, r.CDNR, 1)
	require.NotNil(t, r.DocIssue)
	raw, err := json.Marshal(r.DocIssue)
	require.NoError(t, err)
	assert.Contains(t, string(raw), `"from":"T1/2627/000001","to":"T1/2627/000003","totnum":3`)

	// July's IFF: its B2B invoice, nothing else.
	iff, err := IFF(Month{Year: 2026, Month: time.July}, shopGSTIN, quarter())
	require.NoError(t, err)
	assert.Equal(t, "072026", iff.FP)
	require.Len(t, iff.B2B, 1)
	assert.Equal(t, "T1/2627/000001", iff.B2B[0].Inv[0].INum)
	assert.Nil(t, iff.B2CS)
	assert.Nil(t, iff.HSN)
	assert.Nil(t, iff.DocIssue)
	_, err = IFF(Month{Year: 2026, Month: time.September}, shopGSTIN, quarter())
	assert.ErrorIs(t, err, ErrIFFMonth, "September's B2B invoices go in the quarter's return")

	// The quarter after July's IFF: July's B2B invoice is left out of b2b, but
	// September's invoice and credit note stay, and doc_issue and the HSN
	// summary still count July's (taxable 10,000 + 1,000 + 5,000 − 100 =
	// 15,900.00 at 18%).
	r, err = GSTR1Period(q, shopGSTIN, quarter(), true)
	require.NoError(t, err)
	require.Len(t, r.B2B, 1)
	require.Len(t, r.B2B[0].Inv, 1)
	assert.Equal(t, "T1/2627/000003", r.B2B[0].Inv[0].INum)
	require.Len(t, r.CDNR, 1)
	raw, err = json.Marshal(r.DocIssue)
	require.NoError(t, err)
	assert.Contains(t, string(raw), `"totnum":3`)
	require.NotNil(t, r.HSN)
	var txval Paise
	for _, h := range append(r.HSN.B2B, r.HSN.B2C...) {
		txval += h.TxVal
	}
	assert.Equal(t, Paise(15900_00), txval)
}

// TestHSNCodes: every code of table 12, in the order of its rows, once, in
// the one table of before May 2025 and in the two tabs after.
func TestHSNCodes(t *testing.T) {
	assert.Empty(t, (&Return{}).HSNCodes())
	r := &Return{HSN: &HSN{B2B: []HSNRow{{HSNSc: "851713"}, {HSNSc: "8544"}}, B2C: []HSNRow{{HSNSc: "8544"}, {HSNSc: "3926"}, {HSNSc: "8544"}}}}
	assert.Equal(t, []string{"851713", "8544", "3926"}, r.HSNCodes())
	r = &Return{HSN: &HSN{Data: []HSNRow{{HSNSc: "3926"}, {HSNSc: "3926"}, {HSNSc: "85444299"}}}}
	assert.Equal(t, []string{"3926", "85444299"}, r.HSNCodes())
}
