package pos

import (
	"bytes"
	"encoding/csv"
	"testing"
	"time"

	"galla/pos/gstr"
	"galla/receipts"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestZOfShopThatStatesNoTax: a shop whose journal holds its details but no
// registration history (a journal written before the history was kept) and
// that has no GSTIN, or is under the composition scheme, issued receipts or
// bills of supply: its Z report has no GST rows, no GST reversed and no GST on
// any row, its figures are sales only, and its slip prints no tax.
//
// By hand: a phone case ₹1,499.00 and a cable ₹499.00 sold, ₹100.00 of the
// case refunded: gross 1,998.00, net 1,898.00, every rupee of it a sale.
func TestZOfShopThatStatesNoTax(t *testing.T) {
	for _, tc := range []struct {
		name string
		shop Shop
	}{
		{"unregistered", Shop{Name: "Galla Mobiles", Address: []string{"1 MG Road, Pune"}, State: "27"}},
		{"composition", Shop{Name: "Galla Mobiles", Address: []string{"1 MG Road, Pune"}, State: "27", GSTIN: goodGSTIN, Composition: true}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := newRig(t)
			r.register(t, tc.shop)
			ctx := t.Context()
			day := r.e.Today()
			shops, err := LoadShops(ctx, r.j)
			require.NoError(t, err)
			require.Empty(t, shops.History, "no registration history")

			cased, err := sellCash(ctx, r.e, r.sale(t, "ACC-CASE"), Rupees(1500))
			require.NoError(t, err)
			_, err = sellCash(ctx, r.e, r.sale(t, "ACC-CBL"), Rupees(500))
			require.NoError(t, err)
			_, err = r.e.Refunds.Refund(ctx, RefundRequest{OrderID: cased.Order.ID, Amount: 100_00, PIN: managerPIN})
			require.NoError(t, err)

			x, err := r.e.Ledger.Report(ctx, day)
			require.NoError(t, err)
			z, err := r.e.Ledger.CloseDay(ctx, day, managerPIN)
			require.NoError(t, err)
			sealed, err := r.e.Ledger.Report(ctx, day)
			require.NoError(t, err)
			for _, rep := range []*Report{x, z, sealed} {
				assert.Equal(t, Paise(1998_00), rep.GrossSales, "%s: every sale is sold", rep.Kind)
				assert.Equal(t, Paise(100_00), rep.Refunded, rep.Kind)
				assert.Equal(t, Paise(1898_00), rep.NetSales, rep.Kind)
				assert.Empty(t, rep.GST, "%s: no GST rows", rep.Kind)
				assert.Empty(t, rep.ReturnsGST, "%s: no GST reversed", rep.Kind)
				require.Len(t, rep.Orders, 2, rep.Kind)
				for _, row := range rep.Orders {
					assert.Zero(t, row.GST, "%s: row %s states no GST", rep.Kind, row.OrderID)
				}
				var b bytes.Buffer
				require.NoError(t, rep.WriteText(&b))
				for _, no := range []string{"CGST", "SGST", "IGST", "Net GST"} {
					assert.NotContains(t, b.String(), no, rep.Kind)
				}
			}
			d, err := r.till(t).Documents.ReportDocument(ctx, sealed)
			require.NoError(t, err)
			assert.True(t, d.Receipt.NoTax, "the Z slip prints no tax")
			var slip bytes.Buffer
			require.NoError(t, receipts.Text(&slip, d.Receipt, 48))
			assert.NotContains(t, slip.String(), "CGST")
			assert.NotContains(t, slip.String(), "SGST")
		})
	}
}

// TestZOfShopRegisteredFromADate: a shop set up without a GSTIN on 22 Nov 2026
// takes one on 23 Nov. Each day's Z states the GST of the documents issued as
// a registered shop only, as its GSTR-1 and the lines CSV do (Shops.StatesTax).
//
// By hand. 22 Nov: a phone case ₹1,499.00 on a receipt, no tax. 23 Nov: a
// phone case ₹1,499.00 on a tax invoice: taxable 1,499.00 / 1.18 = 1,270.34,
// CGST = SGST = round(1,270.34 × 9%) = round(114.3306) = 114.33; and ₹100.00
// of the 22 Nov receipt refunded, which reverses no tax since the receipt
// stated none.
func TestZOfShopRegisteredFromADate(t *testing.T) {
	r, tl := newReturnTill(t)
	ctx := t.Context()
	_, _, err := tl.Setup.SetShop(ctx, ShopDetails{Name: "Galla Mobiles", Address: "1 MG Road, Pune", State: "27"}, managerPIN)
	require.NoError(t, err)
	day1 := r.e.Today()
	before, err := sellCash(ctx, r.e, r.sale(t, "ACC-CASE"), Rupees(1500))
	require.NoError(t, err)
	z1, err := r.e.Ledger.CloseDay(ctx, day1, managerPIN)
	require.NoError(t, err)

	r.clock.Advance(24 * time.Hour)
	registerShop(t, tl)
	day2 := r.e.Today()
	require.Equal(t, "2026-11-23", day2)
	after, err := sellCash(ctx, r.e, r.sale(t, "ACC-CASE"), Rupees(1500))
	require.NoError(t, err)
	_, err = r.e.Refunds.Refund(ctx, RefundRequest{OrderID: before.Order.ID, Amount: 100_00, PIN: managerPIN})
	require.NoError(t, err)
	z2, err := r.e.Ledger.CloseDay(ctx, day2, managerPIN)
	require.NoError(t, err)

	sealed1, err := r.e.Ledger.Report(ctx, day1)
	require.NoError(t, err)
	for _, rep := range []*Report{z1, sealed1} {
		assert.Equal(t, Paise(1499_00), rep.GrossSales)
		assert.Empty(t, rep.GST, "the day before the GSTIN states no tax")
		for _, row := range rep.Orders {
			assert.Zero(t, row.GST, row.OrderID)
		}
	}
	sealed2, err := r.e.Ledger.Report(ctx, day2)
	require.NoError(t, err)
	for _, rep := range []*Report{z2, sealed2} {
		assert.Equal(t, Paise(1499_00), rep.GrossSales)
		assert.Equal(t, Paise(100_00), rep.Refunded)
		assert.Equal(t, []RateTotal{{Rate: Percent(18), Amount: 1499_00, Taxable: 1270_34, Tax: 228_66, CGST: 114_33, SGST: 114_33}}, rep.GST)
		assert.Empty(t, rep.ReturnsGST, "the refund of the receipt reverses no tax")
		rows := map[string]Paise{}
		for _, row := range rep.Orders {
			rows[row.OrderID] = row.GST
		}
		assert.Equal(t, map[string]Paise{after.Order.ID: 228_66, before.Order.ID: 0}, rows)
	}

	// GSTR-1 and the lines CSV follow the same rule.
	ret, err := tl.Documents.GSTR1(ctx, gstr.Month{Year: 2026, Month: time.November})
	require.NoError(t, err)
	camt := gstr.Paise(114_33)
	assert.Equal(t, []gstr.B2CS{{SplyTy: "INTRA", POS: "27", Typ: "OE", Rt: 1800, TxVal: 1270_34, CAmt: &camt, SAmt: &camt}}, ret.B2CS)
	var out bytes.Buffer
	from := time.Date(2026, 11, 22, 0, 0, 0, 0, r.clock.Now().Location())
	require.NoError(t, tl.Documents.WriteLinesCSV(ctx, from, r.clock.Now(), &out))
	rows, err := csv.NewReader(&out).ReadAll()
	require.NoError(t, err)
	col := func(name string) int {
		for i, h := range gstr.CSVHeader {
			if h == name {
				return i
			}
		}
		t.Fatalf("no column %s", name)
		return -1
	}
	var cgst []string
	for _, row := range rows[1:] {
		cgst = append(cgst, row[col("document_no")]+" "+row[col("cgst")])
	}
	assert.Equal(t, []string{"T1/2627/000001 0.00", "T1/2627/000002 114.33", "T1/C2627/00001 0.00"}, cgst)
}
