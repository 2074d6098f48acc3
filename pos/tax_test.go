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
	ph, tv, cbl, bk := TaxOf(7400000, Percent(18)), TaxOf(7799000, Percent(28)), TaxOf(149699, Percent(18)), TaxOf(79800, Percent(0))
	want := Totals{
		Items:    7,
		Gross:    7499900 + 7799000 + 149700 + 79800,
		Discount: 99901,
		Total:    7400000 + 7799000 + 149699 + 79800,
		Taxable:  ph.Taxable + tv.Taxable + cbl.Taxable + bk.Taxable,
		Tax:      ph.Tax + tv.Tax + cbl.Tax,
		CGST:     ph.CGST + tv.CGST + cbl.CGST,
		SGST:     ph.SGST + tv.SGST + cbl.SGST,
		ByRate: []RateTotal{
			{Rate: Percent(0), Amount: 79800, Taxable: 79800},
			{Rate: Percent(18), Amount: 7400000 + 149699, Taxable: ph.Taxable + cbl.Taxable, Tax: ph.Tax + cbl.Tax, CGST: ph.CGST + cbl.CGST, SGST: ph.SGST + cbl.SGST},
			{Rate: Percent(28), Amount: 7799000, Taxable: tv.Taxable, Tax: tv.Tax, CGST: tv.CGST, SGST: tv.SGST},
		},
	}
	assert.Equal(t, want, got)
	assert.Equal(t, got.Gross-got.Discount, got.Total)
	assert.Equal(t, got.Total, got.Taxable+got.Tax)
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
		require.Equal(t, tt.Total, tt.Taxable+tt.Tax)
		require.Equal(t, tt.Tax, tt.CGST+tt.SGST)
		var sum RateTotal
		for i, rt := range tt.ByRate {
			if i > 0 {
				require.Less(t, tt.ByRate[i-1].Rate.BP(), rt.Rate.BP(), "ByRate is sorted and has each rate once")
			}
			require.Equal(t, rt.Amount, rt.Taxable+rt.Tax)
			require.Equal(t, rt.Tax, rt.CGST+rt.SGST)
			sum.Amount += rt.Amount
			sum.Taxable += rt.Taxable
			sum.Tax += rt.Tax
			sum.CGST += rt.CGST
			sum.SGST += rt.SGST
		}
		require.Equal(t, RateTotal{Amount: tt.Total, Taxable: tt.Taxable, Tax: tt.Tax, CGST: tt.CGST, SGST: tt.SGST}, sum)
	}
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
