package ui

import (
	"testing"

	"fyne.io/fyne/v2"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"galla/pos"
)

// TestEMIHintQuotesWhatTheCustomerPays: the sale screen's "EMI from" hint
// quotes the instalment the customer pays (pos.EMIFigures), rounded up to the
// rupee: a no-cost plan's is the price over the tenure (74,999.00 in six:
// 12,499.83 and a last of 12,499.85, so ₹12,500), never the bank's instalment
// with the interest the brand pays (13,015.18); with no no-cost plan, the
// cheapest plan's instalment with interest.
func TestEMIHintQuotesWhatTheCustomerPays(t *testing.T) {
	noCost := EMIOffer{Issuer: "HDFC", Brand: "SAMSUNG", Program: pos.ProgramBrand, Subvention: pos.SubventionNoCost, TenureMonths: 6, RateBP: 140000,
		Loan: pos.Rupees(74999), AuthAmount: pos.Rupees(74999), Interest: 3_092_08, Benefit: 3_092_08}
	standard := EMIOffer{Issuer: "HDFC", Program: pos.ProgramBank, Subvention: pos.SubventionStandard, TenureMonths: 6, RateBP: 140000,
		Loan: pos.Rupees(74999), AuthAmount: pos.Rupees(74999), Interest: 3_092_08}
	longer := EMIOffer{Issuer: "ICICI", Program: pos.ProgramBank, Subvention: pos.SubventionStandard, TenureMonths: 12, RateBP: 140000,
		Loan: pos.Rupees(74999), AuthAmount: pos.Rupees(74999), Interest: 5_806_72}
	for _, o := range []*EMIOffer{&noCost, &standard, &longer} {
		f := o.Figures() // as pos's planOf stores them
		o.Monthly, o.TotalPayable = f.Instalment, f.Total
	}
	tests := []struct {
		name   string
		offers []EMIOffer
		want   string
	}{
		{"a no-cost plan", []EMIOffer{standard, noCost, longer}, "Samsung Galaxy S24: EMI from ₹12,500/month"},
		{"standard plans only", []EMIOffer{longer, standard}, "Samsung Galaxy S24: EMI from ₹13,016/month"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFakeTill()
			f.offers = tt.offers
			h := newHarness(t, f)
			h.press(fyne.KeyDown) // Ravi
			h.enter("1234")
			h.settle()
			require.Equal(t, h.u.sale, h.u.current)
			h.enter("8801643000011")
			h.settle()
			assert.Equal(t, tt.want, h.u.sale.emiHint.Text)
		})
	}
}

// TestSplitEMITitle: the EMI offers of a split sale's tender name the part and
// the sale's total, not the part twice.
func TestSplitEMITitle(t *testing.T) {
	f := newSplitTill()
	h := newSplitHarness(t, f)
	h.signIn("Ravi", "1234")
	h.openSplitSale()   // the ₹1,39,990.00 TV, ₹10,000.00 in cash down
	h.press(fyne.KeyF6) // EMI on the rest
	h.settle()
	require.Equal(t, h.u.emi, h.u.current)
	assert.Equal(t, "EMI offers for ₹1,29,990.00 of the ₹1,39,990.00 sale", h.u.emi.title.Text)
}

func TestEMITitle(t *testing.T) {
	tests := []struct {
		what   string
		amount pos.Paise
		want   string
	}{
		{"the whole cart", pos.Rupees(74999), "EMI offers for the whole cart (₹74,999.00)"},
		{"Samsung Galaxy S24", pos.Rupees(74999), "EMI offers for Samsung Galaxy S24 (₹74,999.00)"},
		{emiPartOf(pos.Rupees(29999), pos.Rupees(39999)), pos.Rupees(29999), "EMI offers for ₹29,999.00 of the ₹39,999.00 sale"},
	}
	for _, tt := range tests {
		assert.Equal(t, tt.want, emiTitle(tt.what, tt.amount), "emiTitle(%q, %s)", tt.what, tt.amount)
	}
}
