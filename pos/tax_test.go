package pos

import (
	"encoding/json"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestTaxOf(t *testing.T) {
	tests := []struct {
		amount Paise
		rate   Rate
		want   LineTax
	}{
		// 7499900 × 100/118 = 6355847.46 → 6355847; tax 1144053 = 572026 + 572027.
		{7499900, Percent(18), LineTax{Amount: 7499900, Taxable: 6355847, Tax: 1144053, CGST: 572026, SGST: 572027}},
		// 100 × 100/105 = 95.24 → 95; tax 5 = 2 + 3.
		{100, Percent(5), LineTax{Amount: 100, Taxable: 95, Tax: 5, CGST: 2, SGST: 3}},
		// Exactly half a paisa rounds up: 16 × 100/128 = 12.5 → 13; 14 × 100/112 = 12.5 → 13.
		{16, Percent(28), LineTax{Amount: 16, Taxable: 13, Tax: 3, CGST: 1, SGST: 2}},
		{14, Percent(12), LineTax{Amount: 14, Taxable: 13, Tax: 1, CGST: 0, SGST: 1}},
		// Just under half rounds down: 15 × 100/128 = 11.72 → 12; 13 × 100/112 = 11.61 → 12.
		{15, Percent(28), LineTax{Amount: 15, Taxable: 12, Tax: 3, CGST: 1, SGST: 2}},
		{39900, Percent(0), LineTax{Amount: 39900, Taxable: 39900}},
		{0, Percent(18), LineTax{}},
		{-7499900, Percent(18), LineTax{Amount: -7499900, Taxable: -6355847, Tax: -1144053, CGST: -572026, SGST: -572027}},
		// A phone at ₹59,000.00, 18%: 59,000 / 1.18 = 50,000.00; GST 9,000.00 = 4,500 + 4,500.
		{5900000, Percent(18), LineTax{Amount: 5900000, Taxable: 5000000, Tax: 900000, CGST: 450000, SGST: 450000}},
		// 0.25%: ₹1,00,250.00 / 1.0025 = 1,00,000.00; GST 250.00 = 125 + 125.
		{10025000, RateBP(25), LineTax{Amount: 10025000, Taxable: 10000000, Tax: 25000, CGST: 12500, SGST: 12500}},
		// 1.5%: ₹10,150.00 / 1.015 = 10,000.00; GST 150.00 = 75 + 75.
		{1015000, RateBP(150), LineTax{Amount: 1015000, Taxable: 1000000, Tax: 15000, CGST: 7500, SGST: 7500}},
		// 1.5% of one rupee: 100 / 1.015 = 98.52 → 99 paise; GST 1 paisa, to SGST.
		{100, RateBP(150), LineTax{Amount: 100, Taxable: 99, Tax: 1, CGST: 0, SGST: 1}},
		// 40%: ₹1,400.00 / 1.40 = 1,000.00; GST 400.00.
		{140000, Percent(40), LineTax{Amount: 140000, Taxable: 100000, Tax: 40000, CGST: 20000, SGST: 20000}},
	}
	for _, tt := range tests {
		assert.Equal(t, tt.want, TaxOf(tt.amount, tt.rate), "TaxOf(%d, %d)", tt.amount, tt.rate)
	}
}

func TestTaxOfProperties(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	for range 20000 {
		amount := Paise(r.Int64N(int64(MaxPrice) * 10))
		rate := GSTRates()[r.IntN(len(GSTRates()))]
		lt := TaxOf(amount, rate)
		require.Equal(t, amount, lt.Taxable+lt.Tax, "TaxOf(%d, %d): taxable + tax", amount, rate)
		require.Equal(t, lt.Tax, lt.CGST+lt.SGST, "TaxOf(%d, %d): CGST + SGST", amount, rate)
		require.True(t, lt.SGST == lt.CGST || lt.SGST == lt.CGST+1, "TaxOf(%d, %d): SGST takes at most the odd paisa", amount, rate)
		// taxable is the nearest paisa to amount×100/(100+rate), half up.
		d := int64(10000 + rate.BP())
		diff := int64(lt.Taxable)*d - int64(amount)*10000 // in 1/d paise
		require.True(t, 2*diff > -d && 2*diff <= d, "TaxOf(%d, %d): taxable %d is not the nearest paisa", amount, rate, lt.Taxable)
	}
}

func TestComputeTotals(t *testing.T) {
	lines := []Line{
		{SKU: "PH", Qty: 1, UnitPrice: 7499900, Discount: 99900, GSTRate: Percent(18)},
		{SKU: "TV", Qty: 1, UnitPrice: 7799000, GSTRate: Percent(28)},
		{SKU: "CBL", Qty: 3, UnitPrice: 49900, Discount: 1, GSTRate: Percent(18)},
		{SKU: "BK", Qty: 2, UnitPrice: 39900, GSTRate: Percent(0)},
	}
	got := ComputeTotals(lines)
	// Worked by hand. Taxable per line, half up: 74,000.00/1.18 = 62,711.8644 →
	// 62,711.86; 1,496.99/1.18 = 1,268.6356 → 1,268.64; 77,990.00/1.28 =
	// 60,929.6875 → 60,929.69. At 18% together 63,980.50 taxable:
	// CGST = SGST = 63,980.50 × 9% = 5,758.245 → 5,758.25 (half away from zero).
	// At 28%: 60,929.69 × 14% = 8,530.1566 → 8,530.16 each. Taxable 1,25,708.19,
	// GST 11,516.50 + 17,060.32 = 28,576.82; paid 1,54,284.99, so the round-off
	// is 1,54,284.99 − 1,25,708.19 − 28,576.82 = −0.02.
	want := Totals{
		Items:    7,
		Gross:    155284_00,
		Discount: 999_01,
		Total:    154284_99,
		Taxable:  125708_19,
		Tax:      28576_82,
		CGST:     14288_41,
		SGST:     14288_41,
		RoundOff: -2,
		ByRate: []RateTotal{
			{Rate: Percent(0), Amount: 798_00, Taxable: 798_00},
			{Rate: Percent(18), Amount: 75496_99, Taxable: 63980_50, Tax: 11516_50, CGST: 5758_25, SGST: 5758_25},
			{Rate: Percent(28), Amount: 77990_00, Taxable: 60929_69, Tax: 17060_32, CGST: 8530_16, SGST: 8530_16},
		},
	}
	assert.Equal(t, want, got)
	assert.Equal(t, got.Gross-got.Discount, got.Total)
	assert.Equal(t, got.Total, got.Taxable+got.Tax+got.RoundOff)
	assert.Equal(t, got.Tax, got.CGST+got.SGST)

	assert.Equal(t, Totals{}, ComputeTotals(nil))
}

func TestComputeTotalsProperties(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	for range 2000 {
		lines := make([]Line, r.IntN(8))
		for i := range lines {
			l := Line{Qty: r.IntN(MaxQty) + 1, UnitPrice: Paise(r.Int64N(10_000_000) + 1), GSTRate: GSTRates()[r.IntN(len(GSTRates()))]}
			l.Discount = Paise(r.Int64N(int64(l.Gross()) + 1))
			lines[i] = l
		}
		tt := ComputeTotals(lines)
		require.Equal(t, tt.Gross-tt.Discount, tt.Total)
		require.Equal(t, tt.Total, tt.Taxable+tt.Tax+tt.RoundOff)
		require.Equal(t, tt.Tax, tt.CGST+tt.SGST)
		// Each line's taxable value is within half a paisa of its share, so the
		// round-off is within about half a paisa × (1 + rate) per line, and a
		// paisa per rate for the rounding of its GST.
		require.LessOrEqual(t, abs(tt.RoundOff), Paise(len(lines)+len(tt.ByRate)), "round-off %d of %d lines", tt.RoundOff, len(lines))
		var sum RateTotal
		for i, rt := range tt.ByRate {
			if i > 0 {
				require.Less(t, tt.ByRate[i-1].Rate.BP(), rt.Rate.BP(), "ByRate is sorted and has each rate once")
			}
			require.Equal(t, rt.Tax, rt.CGST+rt.SGST)
			require.Equal(t, rt.CGST, rt.SGST, "CGST and SGST at one rate are equal")
			// CGST is the nearest paisa to taxable × rate / 200.
			diff := int64(rt.CGST)*20000 - int64(rt.Taxable)*int64(rt.Rate.BP())
			require.True(t, 2*diff >= -20000 && 2*diff <= 20000, "CGST %d of taxable %d at %v", rt.CGST, rt.Taxable, rt.Rate)
			sum.Amount += rt.Amount
			sum.Taxable += rt.Taxable
			sum.Tax += rt.Tax
			sum.CGST += rt.CGST
			sum.SGST += rt.SGST
		}
		require.Equal(t, RateTotal{Amount: tt.Total, Taxable: tt.Taxable, Tax: tt.Tax, CGST: tt.CGST, SGST: tt.SGST}, sum)
	}
}

func abs(p Paise) Paise { return max(p, -p) }

// TestPortalArithmetic checks GSTOn and a document's figures against numbers
// worked by hand, as the GST portal's offline tool computes them: per rate of
// the document, CGST = SGST = round(taxable × rate / 200), IGST = round(taxable ×
// rate / 100).
func TestPortalArithmetic(t *testing.T) {
	tests := []struct {
		taxable          Paise
		rate             Rate
		cgst, sgst, igst Paise
	}{
		// 59,237.29 × 9% = 5,331.3561 → 5,331.36 each (never 5,331.35 + 5,331.36);
		// × 18% = 10,662.7122 → 10,662.71.
		{59237_29, Percent(18), 5331_36, 5331_36, 10662_71},
		// 0.50 × 9% = 0.045 → 0.05 each, half away from zero; × 18% = 0.09.
		{50, Percent(18), 5, 5, 9},
		// 32.23 × 2.5% = 0.80575 → 0.81 each; × 5% = 1.6115 → 1.61.
		{32_23, Percent(5), 81, 81, 1_61},
		// 1,00,000.00 at 0.25%: 125.00 each, IGST 250.00.
		{100000_00, RateBP(25), 125_00, 125_00, 250_00},
		// A credit note's negative value: −0.50 × 9% = −0.045 → −0.05.
		{-50, Percent(18), -5, -5, -9},
		{1234_56, Percent(0), 0, 0, 0},
	}
	for _, tt := range tests {
		c, s, _ := GSTOn(tt.taxable, tt.rate, false)
		_, _, i := GSTOn(tt.taxable, tt.rate, true)
		assert.Equal(t, [3]Paise{tt.cgst, tt.sgst, tt.igst}, [3]Paise{c, s, i}, "GSTOn(%d, %v)", tt.taxable, tt.rate)
	}

	// The invoice of the issue: a phone at ₹69,900.00, 18%. Taxable 69,900/1.18
	// = 59,237.2881 → 59,237.29; CGST = SGST = 5,331.36; the invoice value
	// 69,900.01, paid 69,900.00: round-off −0.01.
	lines := []Line{{SKU: "PH", HSN: "8517", Qty: 1, UnitPrice: 69900_00, GSTRate: Percent(18)}}
	got := ComputeTotals(lines)
	assert.Equal(t, Paise(59237_29), got.Taxable)
	assert.Equal(t, Paise(5331_36), got.CGST)
	assert.Equal(t, Paise(5331_36), got.SGST)
	assert.Equal(t, Paise(-1), got.RoundOff)
	// Across states: IGST 10,662.71, the invoice value 69,900.00, no round-off.
	inter := got.Interstate()
	assert.Equal(t, Paise(10662_71), inter.IGST)
	assert.Equal(t, Paise(0), inter.CGST+inter.SGST)
	assert.Equal(t, Paise(0), inter.RoundOff)

	// Two lines at one rate share the rate's GST in proportion to their
	// taxable values: ₹590.00 and ₹1,180.00 at 18% are taxable 500.00 and
	// 1,000.00; CGST of 1,500.00 is 135.00, shared 45.00 and 90.00. And the same
	// two at 5% beside: ₹105.00 is 100.00, CGST 2.50.
	two := []Line{
		{SKU: "A", HSN: "8517", Qty: 1, UnitPrice: 590_00, GSTRate: Percent(18)},
		{SKU: "B", HSN: "8544", Qty: 1, UnitPrice: 1180_00, GSTRate: Percent(18)},
		{SKU: "C", HSN: "8544", Qty: 1, UnitPrice: 105_00, GSTRate: Percent(5)},
	}
	lts := DocumentLines(two, false)
	assert.Equal(t, []Paise{45_00, 90_00, 2_50}, []Paise{lts[0].CGST, lts[1].CGST, lts[2].CGST})
	assert.Equal(t, []Paise{90_00, 180_00, 5_00}, []Paise{lts[0].Tax, lts[1].Tax, lts[2].Tax})
	// One paisa the lines cannot split evenly goes to the larger remainder:
	// ₹1.00 and ₹2.00 at 18% are taxable 0.85 and 1.69 (2.54 together); CGST
	// 2.54 × 9% = 0.2286 → 0.23, shared 0.85/2.54 × 23 = 7.70 and 15.30 paise:
	// 7 and 15, the paisa left to the first (remainder 0.70 against 0.30): 8 and 15.
	odd := DocumentLines([]Line{
		{SKU: "A", Qty: 1, UnitPrice: 1_00, GSTRate: Percent(18)},
		{SKU: "B", Qty: 1, UnitPrice: 2_00, GSTRate: Percent(18)},
	}, false)
	assert.Equal(t, []Paise{85, 1_69}, []Paise{odd[0].Taxable, odd[1].Taxable})
	assert.Equal(t, []Paise{8, 15}, []Paise{odd[0].CGST, odd[1].CGST})
}

func TestTaxWithCess(t *testing.T) {
	tests := []struct {
		amount     Paise
		rate, cess Rate
		want       LineTax
	}{
		// 28% + 60% cess: ₹188.00 / (1 + 0.28 + 0.60) = 100.00; cess 60.00; GST 28.00 = 14 + 14.
		{18800, Percent(28), Percent(60), LineTax{Amount: 18800, Taxable: 10000, Tax: 2800, CGST: 1400, SGST: 1400, Cess: 6000}},
		// One rupee: 100 / 1.88 = 53.19 → 53; cess 53 × 0.6 = 31.8 → 32; GST 100 − 53 − 32 = 15 = 7 + 8.
		{100, Percent(28), Percent(60), LineTax{Amount: 100, Taxable: 53, Tax: 15, CGST: 7, SGST: 8, Cess: 32}},
		// Without a cess it is TaxOf.
		{5900000, Percent(18), Rate{}, LineTax{Amount: 5900000, Taxable: 5000000, Tax: 900000, CGST: 450000, SGST: 450000}},
		{-18800, Percent(28), Percent(60), LineTax{Amount: -18800, Taxable: -10000, Tax: -2800, CGST: -1400, SGST: -1400, Cess: -6000}},
	}
	for _, tt := range tests {
		assert.Equal(t, tt.want, TaxWithCess(tt.amount, tt.rate, tt.cess), "TaxWithCess(%d, %v, %v)", tt.amount, tt.rate, tt.cess)
	}
	r := rand.New(rand.NewPCG(7, 8))
	for range 20000 {
		amount := Paise(r.Int64N(int64(MaxPrice) * 10))
		rate, cess := GSTRates()[r.IntN(len(GSTRates()))], RateBP(r.IntN(30000))
		lt := TaxWithCess(amount, rate, cess)
		require.Equal(t, amount, lt.Taxable+lt.Tax+lt.Cess, "TaxWithCess(%d, %v, %v): taxable + tax + cess", amount, rate, cess)
		require.Equal(t, lt.Tax, lt.CGST+lt.SGST, "TaxWithCess(%d, %v, %v): CGST + SGST", amount, rate, cess)
		require.GreaterOrEqual(t, lt.Tax, Paise(0))
	}
}

func TestInterstateAndHSN(t *testing.T) {
	lines := []Line{
		{SKU: "PH", HSN: "8517", Qty: 1, UnitPrice: 5900000, GSTRate: Percent(18)},
		{SKU: "CBL", HSN: "8544", Qty: 2, UnitPrice: 59000, GSTRate: Percent(18)},
		{SKU: "PH2", HSN: "8517", Qty: 1, UnitPrice: 1180000, GSTRate: Percent(18)},
		{SKU: "BK", HSN: "4901", Qty: 1, UnitPrice: 40000},
	}
	tt := ComputeTotals(lines).Interstate()
	// ₹59,000 + ₹1,180 + ₹11,800 at 18%: taxable 50,000 + 1,000 + 10,000; IGST 9,000 + 180 + 1,800.
	assert.Equal(t, Paise(0), tt.CGST+tt.SGST)
	assert.Equal(t, Paise(1098000), tt.IGST)
	assert.Equal(t, Paise(6100000+40000), tt.Taxable)
	assert.Equal(t, []RateTotal{
		{Rate: Percent(0), Amount: 40000, Taxable: 40000},
		{Rate: Percent(18), Amount: 7198000, Taxable: 6100000, Tax: 1098000, IGST: 1098000},
	}, tt.ByRate)

	assert.Equal(t, []HSNTotal{
		{HSN: "8517", Rate: Percent(18), Qty: 2, Taxable: 6000000, Tax: 1080000, IGST: 1080000},
		{HSN: "8544", Rate: Percent(18), Qty: 2, Taxable: 100000, Tax: 18000, IGST: 18000},
		{HSN: "4901", Rate: Percent(0), Qty: 1, Taxable: 40000},
	}, HSNSummary(lines, true))
	assert.Equal(t, HSNTotal{HSN: "8517", Rate: Percent(18), Qty: 2, Taxable: 6000000, Tax: 1080000, CGST: 540000, SGST: 540000}, HSNSummary(lines, false)[0])
}

func TestRateJSON(t *testing.T) {
	for _, tt := range []struct {
		in   string
		want Rate
		out  string
	}{
		{"18", Percent(18), "18"}, // a journal written with whole percents
		{"0", Rate{}, "0"},
		{"0.25", RateBP(25), "0.25"},
		{"1.5", RateBP(150), "1.5"},
		{"1.50", RateBP(150), "1.5"},
		{"40", Percent(40), "40"},
	} {
		var r Rate
		require.NoError(t, json.Unmarshal([]byte(tt.in), &r), tt.in)
		assert.Equal(t, tt.want, r, tt.in)
		b, err := json.Marshal(r)
		require.NoError(t, err)
		assert.Equal(t, tt.out, string(b))
	}
	for _, bad := range []string{`"18"`, "0.125", "-5", "1e2", "abc", "100000"} {
		var r Rate
		assert.Error(t, json.Unmarshal([]byte(bad), &r), bad)
	}
	// A line journaled before rates had decimals decodes to the same rate.
	var l Line
	require.NoError(t, json.Unmarshal([]byte(`{"sku":"A","qty":1,"unit_price":118,"gst_rate":18}`), &l))
	assert.Equal(t, Percent(18), l.GSTRate)
	assert.True(t, l.Cess.IsZero())
	b, err := json.Marshal(l)
	require.NoError(t, err)
	assert.NotContains(t, string(b), "cess_rate", "a line without cess writes none")
	assert.Equal(t, "0.25%", RateBP(25).String())
}

func BenchmarkComputeTotals(b *testing.B) {
	lines := make([]Line, 20)
	for i := range lines {
		lines[i] = Line{Qty: i + 1, UnitPrice: Paise(1000 * (i + 1)), GSTRate: GSTRates()[i%len(GSTRates())]}
	}
	for b.Loop() {
		ComputeTotals(lines)
	}
}
