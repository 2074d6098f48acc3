package pos

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"galla/gateway"
	"galla/receipts"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The figures of the plans on a ₹74,999.00 phone and a ₹1,49,990.00 television,
// worked by hand from the reducing-balance formula of the contract (section 5):
// HDFC at 14% for 6 months charges an instalment of 13,015.18, so 3,092.08 of
// interest (6 × 13,015.18 − 74,999.00); at 15% for 12 months on 1,49,990.00,
// 13,537.84 and 12,464.08.
func TestEMIFigures(t *testing.T) {
	tests := []struct {
		name string
		plan EMIPlan
		want EMIFigures
	}{
		{"no-cost: the price in six, the paise left over on the last",
			EMIPlan{Subvention: SubventionNoCost, TenureMonths: 6, Loan: 74_999_00, AuthAmount: 74_999_00, Interest: 3_092_08, Benefit: 3_092_08},
			EMIFigures{Months: 6, Principal: 74_999_00, Interest: 3_092_08, Discount: 3_092_08, Total: 74_999_00,
				Instalment: 12_499_83, Last: 12_499_85, NoCost: true}},
		{"standard: the bank's instalment with interest",
			EMIPlan{Subvention: SubventionStandard, TenureMonths: 6, Loan: 74_999_00, AuthAmount: 74_999_00, Interest: 3_092_08},
			EMIFigures{Months: 6, Principal: 74_999_00, Interest: 3_092_08, Total: 78_091_08, Instalment: 13_015_18, Last: 13_015_18}},
		{"low-cost: the brand pays half the interest",
			EMIPlan{Subvention: SubventionLowCost, TenureMonths: 12, Loan: 1_49_990_00, AuthAmount: 1_49_990_00, Interest: 12_464_08, Benefit: 6_232_04},
			EMIFigures{Months: 12, Principal: 1_49_990_00, Interest: 12_464_08, Discount: 6_232_04, Total: 1_56_222_04,
				Instalment: 13_018_50, Last: 13_018_54}},
		{"no-cost whose discount falls short: not no-cost to the customer",
			EMIPlan{Subvention: SubventionNoCost, TenureMonths: 3, Loan: 30_000_00, Interest: 600_00, Benefit: 599_99},
			EMIFigures{Months: 3, Principal: 30_000_00, Interest: 600_00, Discount: 599_99, Total: 30_000_01,
				Instalment: 10_000_00, Last: 10_000_01}},
		{"a plan journaled without its loan: the amount authorised",
			EMIPlan{Subvention: SubventionNoCost, TenureMonths: 3, AuthAmount: 10_000_00, Interest: 200_00, Benefit: 200_00},
			EMIFigures{Months: 3, Principal: 10_000_00, Interest: 200_00, Discount: 200_00, Total: 10_000_00,
				Instalment: 3_333_33, Last: 3_333_34, NoCost: true}},
		{"a plan journaled with neither: its total payable and the interest given back",
			EMIPlan{Subvention: SubventionNoCost, TenureMonths: 6, Monthly: 13_015_18, Interest: 3_092_08, Benefit: 3_092_08, TotalPayable: 74_999_00},
			EMIFigures{Months: 6, Principal: 74_999_00, Interest: 3_092_08, Discount: 3_092_08, Total: 74_999_00,
				Instalment: 12_499_83, Last: 12_499_85, NoCost: true}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := tt.plan.Figures()
			assert.Equal(t, tt.want, got)
			assert.Equal(t, got.Total, got.Instalment*Paise(got.Months-1)+got.Last,
				"Instalment × %d + Last = %s; want the total %s", got.Months-1, got.Instalment*Paise(got.Months-1)+got.Last, got.Total)
			assert.Equal(t, got.Total, got.Principal+got.Interest-got.Discount, "principal + interest − discount")
		})
	}
}

// TestEMIFiguresOfSandboxOffers takes every plan the payment service offers for
// a phone with a no-cost brand offer and a television with a low-cost one and
// checks the customer's figures against the service's own tenure object: a
// standard plan's instalment is the service's monthly_installment and its total
// that times the tenure; a no-cost plan's instalments add up to the price and
// its discount is the whole interest; every plan's instalments add up to its
// total to the paisa.
func TestEMIFiguresOfSandboxOffers(t *testing.T) {
	r := newRig(t)
	kinds := map[string]int{}
	for _, sku := range []string{"PH-SAM-S24", "TV-LG-OLED55C4"} {
		sale := r.sale(t, sku)
		offers, err := r.e.Payments.EMIOffers(t.Context(), sale.Lines)
		require.NoError(t, err)
		for _, is := range offers.Issuers {
			for _, p := range is.Plans {
				var ten gateway.EMITenure
				require.NoError(t, json.Unmarshal(p.Tenure, &ten))
				f := p.Figures()
				kinds[p.Subvention]++
				where := sku + " " + p.Issuer + " " + p.Subvention + " " + ten.TenureInMonth
				assert.Equal(t, sale.Lines[0].UnitPrice, f.Principal, where)
				assert.Equal(t, f.Total, f.Instalment*Paise(f.Months-1)+f.Last, where)
				assert.LessOrEqual(t, f.Last-f.Instalment, Paise(f.Months-1), "%s: the last instalment takes under a paisa a month", where)
				assert.Equal(t, f.Instalment, p.Monthly, "%s: the plan's monthly is the customer's", where)
				assert.Equal(t, f.Total, p.TotalPayable, where)
				bank := Paise(ten.MonthlyInstallment)
				switch p.Subvention {
				case SubventionStandard:
					assert.Equal(t, bank, f.Instalment, where)
					assert.Equal(t, bank*Paise(f.Months), f.Total, where)
					assert.Zero(t, f.Discount, where)
				case SubventionNoCost:
					assert.True(t, f.NoCost, where)
					assert.Equal(t, f.Interest, f.Discount, where)
					assert.Equal(t, f.Principal, f.Total, "%s: a no-cost plan costs the price", where)
					assert.Less(t, f.Last, bank, "%s: the customer's instalment is not the bank's with interest", where)
				case SubventionLowCost:
					assert.Positive(t, f.Discount, where)
					assert.Less(t, f.Discount, f.Interest, where)
					assert.Equal(t, f.Principal+f.Interest-f.Discount, f.Total, where)
				}
			}
		}
	}
	for _, k := range []string{SubventionStandard, SubventionNoCost, SubventionLowCost} {
		assert.Positive(t, kinds[k], "the sandbox offers %s plans", k)
	}
}

// TestReceiptEMIFigures prints the EMI sale's receipt of a no-cost and of a
// standard plan and reads its figures back: the amount financed, the interest
// less the discount and the total, the instalment and how many, all agreeing to
// the paisa; a no-cost receipt never shows the bank's instalment with interest.
func TestReceiptEMIFigures(t *testing.T) {
	shop := Shop{Name: "Galla Mobiles", Address: []string{"14, MG Road"}, GSTIN: "29ABCDE1234F1Z5", State: "29"}
	tests := []struct {
		name string
		plan EMIPlan
		want []string // the rows, label and figure, as printed at 48 columns
		not  []string
	}{
		{"no-cost",
			EMIPlan{Issuer: "HDFC", Brand: "SAMSUNG", Program: ProgramBrand, Subvention: SubventionNoCost, TenureMonths: 6, RateBP: 140000,
				Monthly: 12_499_83, Interest: 3_092_08, Benefit: 3_092_08, TotalPayable: 74_999_00, Loan: 74_999_00, AuthAmount: 74_999_00},
			[]string{
				"  Amount financed                      74,999.00",
				"  Interest @14% p.a.                    3,092.08",
				"  Less discount                        -3,092.08",
				"  You pay in all                       74,999.00",
				"  Monthly instalment                   12,499.83",
				"    5 of 12,499.83 and a last of 12,499.85",
				"    No-cost EMI: the discount pays the bank's",
			},
			[]string{"13,015.18", "78,091"}},
		{"standard",
			EMIPlan{Issuer: "HDFC", Program: ProgramBank, Subvention: SubventionStandard, TenureMonths: 6, RateBP: 140000,
				Monthly: 13_015_18, Interest: 3_092_08, TotalPayable: 78_091_08, Loan: 74_999_00, AuthAmount: 74_999_00},
			[]string{
				"  Amount financed                      74,999.00",
				"  Interest @14% p.a.                    3,092.08",
				"  You pay in all                       78,091.08",
				"  Monthly instalment                   13,015.18",
				"    6 instalments of 13,015.18",
			},
			[]string{"No-cost", "discount"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			o := receiptOrder(t, TenderEMI)
			o.EMI = &tt.plan
			r := ReceiptFor(o, shop, ReceiptOptions{Terminal: "T1"})
			var b bytes.Buffer
			require.NoError(t, receipts.Text(&b, r, 48))
			rows := strings.Split(b.String(), "\n")
			for _, w := range tt.want {
				assert.Contains(t, rows, w, b.String())
			}
			for _, n := range tt.not {
				assert.NotContains(t, b.String(), n)
			}
			require.NotNil(t, r.Tenders[0].EMI)
			e := *r.Tenders[0].EMI
			assert.Equal(t, e.TotalCost, e.Financed+e.Interest-e.Discount)
			assert.Equal(t, e.TotalCost, e.Monthly*int64(e.TenureMonths-1)+e.LastMonthly)
		})
	}
}
