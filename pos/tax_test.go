package pos

import (
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestTaxOf(t *testing.T) {
	tests := []struct {
		amount Paise
		rate   int
		want   LineTax
	}{
		// 7499900 × 100/118 = 6355847.46 → 6355847; tax 1144053 = 572026 + 572027.
		{7499900, 18, LineTax{Amount: 7499900, Taxable: 6355847, Tax: 1144053, CGST: 572026, SGST: 572027}},
		// 100 × 100/105 = 95.24 → 95; tax 5 = 2 + 3.
		{100, 5, LineTax{Amount: 100, Taxable: 95, Tax: 5, CGST: 2, SGST: 3}},
		// Exactly half a paisa rounds up: 16 × 100/128 = 12.5 → 13; 14 × 100/112 = 12.5 → 13.
		{16, 28, LineTax{Amount: 16, Taxable: 13, Tax: 3, CGST: 1, SGST: 2}},
		{14, 12, LineTax{Amount: 14, Taxable: 13, Tax: 1, CGST: 0, SGST: 1}},
		// Just under half rounds down: 15 × 100/128 = 11.72 → 12; 13 × 100/112 = 11.61 → 12.
		{15, 28, LineTax{Amount: 15, Taxable: 12, Tax: 3, CGST: 1, SGST: 2}},
		{39900, 0, LineTax{Amount: 39900, Taxable: 39900}},
		{0, 18, LineTax{}},
		{-7499900, 18, LineTax{Amount: -7499900, Taxable: -6355847, Tax: -1144053, CGST: -572026, SGST: -572027}},
	}
	for _, tt := range tests {
		assert.Equal(t, tt.want, TaxOf(tt.amount, tt.rate), "TaxOf(%d, %d)", tt.amount, tt.rate)
	}
}

func TestTaxOfProperties(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	for range 20000 {
		amount := Paise(r.Int64N(int64(MaxPrice) * 10))
		rate := GSTRates()[r.IntN(5)]
		lt := TaxOf(amount, rate)
		require.Equal(t, amount, lt.Taxable+lt.Tax, "TaxOf(%d, %d): taxable + tax", amount, rate)
		require.Equal(t, lt.Tax, lt.CGST+lt.SGST, "TaxOf(%d, %d): CGST + SGST", amount, rate)
		require.True(t, lt.SGST == lt.CGST || lt.SGST == lt.CGST+1, "TaxOf(%d, %d): SGST takes at most the odd paisa", amount, rate)
		// taxable is the nearest paisa to amount×100/(100+rate), half up.
		d := int64(100 + rate)
		diff := int64(lt.Taxable)*d - int64(amount)*100 // in 1/d paise
		require.True(t, 2*diff > -d && 2*diff <= d, "TaxOf(%d, %d): taxable %d is not the nearest paisa", amount, rate, lt.Taxable)
	}
}

func TestComputeTotals(t *testing.T) {
	lines := []Line{
		{SKU: "PH", Qty: 1, UnitPrice: 7499900, Discount: 99900, GSTRate: 18},
		{SKU: "TV", Qty: 1, UnitPrice: 7799000, GSTRate: 28},
		{SKU: "CBL", Qty: 3, UnitPrice: 49900, Discount: 1, GSTRate: 18},
		{SKU: "BK", Qty: 2, UnitPrice: 39900, GSTRate: 0},
	}
	got := ComputeTotals(lines)
	ph, tv, cbl, bk := TaxOf(7400000, 18), TaxOf(7799000, 28), TaxOf(149699, 18), TaxOf(79800, 0)
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
			{Rate: 0, Amount: 79800, Taxable: 79800},
			{Rate: 18, Amount: 7400000 + 149699, Taxable: ph.Taxable + cbl.Taxable, Tax: ph.Tax + cbl.Tax, CGST: ph.CGST + cbl.CGST, SGST: ph.SGST + cbl.SGST},
			{Rate: 28, Amount: 7799000, Taxable: tv.Taxable, Tax: tv.Tax, CGST: tv.CGST, SGST: tv.SGST},
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
			l := Line{Qty: r.IntN(MaxQty) + 1, UnitPrice: Paise(r.Int64N(10_000_000) + 1), GSTRate: GSTRates()[r.IntN(5)]}
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
				require.Less(t, tt.ByRate[i-1].Rate, rt.Rate, "ByRate is sorted and has each rate once")
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

func BenchmarkComputeTotals(b *testing.B) {
	lines := make([]Line, 20)
	for i := range lines {
		lines[i] = Line{Qty: i + 1, UnitPrice: Paise(1000 * (i + 1)), GSTRate: GSTRates()[i%5]}
	}
	for b.Loop() {
		ComputeTotals(lines)
	}
}
