package sandbox

import (
	"encoding/json"
	"fmt"
	"math/big"
	"reflect"
	"sort"
	"strconv"
	"strings"
)

// EMI programs and subvention types (contract section 5).
const (
	// ProgramBankEMI is the program_type of bank EMI.
	ProgramBankEMI = 105
	// ProgramBrandEMI is the program_type of brand EMI.
	ProgramBrandEMI = 106
	// SubventionNoCost is the subvention_type of no-cost EMI: the brand pays all the interest.
	SubventionNoCost = 1
	// SubventionLowCost is the subvention_type of low-cost EMI: the brand pays part of it.
	SubventionLowCost = 2
	// SubventionStandard is the subvention_type of standard EMI: the customer pays it.
	SubventionStandard = 3
	// MinEMIAmount is the smallest amount (paise) that gets EMI offers: ₹3,000.
	MinEMIAmount = 300000
	rateScale    = 10000 // percentages are the percentage times 10000
)

// emiTenures are the bank tenures in months.
func emiTenures() []int { return []int{3, 6, 9, 12, 18, 24} }

type issuerInfo struct {
	name  string
	debit bool
	bin   string
	rates map[int]int64 // tenure -> annual rate ×10000
}

// issuers is the sandbox's bank EMI table: 13–16% a year.
func issuers() []issuerInfo {
	return []issuerInfo{
		{"HDFC", false, "438628", map[int]int64{3: 140000, 6: 140000, 9: 150000, 12: 150000, 18: 160000, 24: 160000}},
		{"ICICI", false, "552260", map[int]int64{3: 130000, 6: 130000, 9: 140000, 12: 140000, 18: 150000, 24: 150000}},
		{"AXIS", true, "512652", map[int]int64{3: 140000, 6: 145000, 9: 150000, 12: 155000, 18: 160000, 24: 160000}},
	}
}

func issuerByName(name string) (issuerInfo, bool) {
	for _, is := range issuers() {
		if is.name == name {
			return is, true
		}
	}
	return issuerInfo{}, false
}

type brandInfo struct {
	name       string
	subvention int         // SubventionNoCost or SubventionLowCost
	tenures    []int       // months with the brand offer
	imei       bool        // IMEI validation mandatory
	sharePct   int64       // low-cost: percent of the interest the brand pays
	products   [][2]string // product code, product name
	tacs       []string    // 8-digit type allocation codes of the brand's phones
}

// brands is the brand-offer table of ADR 0001.
func brands() []brandInfo {
	return []brandInfo{
		{"SAMSUNG", SubventionNoCost, []int{3, 6}, true, 100, [][2]string{
			{"SAMSUNG-S24", "Samsung Galaxy S24"}, {"SAMSUNG-A55", "Samsung Galaxy A55"},
			{"SAMSUNG-M35", "Samsung Galaxy M35"}, {"SAMSUNG-ZFLIP6", "Samsung Galaxy Z Flip6"}},
			[]string{"35290611", "35384110", "35698010"}},
		{"ONEPLUS", SubventionNoCost, []int{3, 6, 9}, true, 100, [][2]string{
			{"ONEPLUS-12", "OnePlus 12"}, {"ONEPLUS-12R", "OnePlus 12R"}, {"ONEPLUS-NORD4", "OnePlus Nord 4"}},
			[]string{"86413405", "86687106", "86015405"}},
		{"XIAOMI", SubventionNoCost, []int{3, 6}, true, 100, [][2]string{
			{"XIAOMI-14", "Xiaomi 14"}, {"XIAOMI-REDMI13", "Redmi 13"}},
			[]string{"86769705", "86216506"}},
		{"APPLE", SubventionNoCost, []int{3, 6}, true, 100, [][2]string{
			{"APPLE-IP15", "Apple iPhone 15"}, {"APPLE-IP15PRO", "Apple iPhone 15 Pro"}},
			[]string{"35391911", "35467514", "35306211"}},
		{"LG", SubventionLowCost, []int{6, 9, 12}, false, 50, [][2]string{
			{"LG-OLED55C4", "LG OLED evo C4 55\""}, {"LG-FRIDGE655", "LG 655 L side-by-side refrigerator"},
			{"LG-WM9KG", "LG 9 kg front-load washing machine"}}, nil},
		{"SONY", SubventionLowCost, []int{6, 12}, false, 40, [][2]string{
			{"SONY-X80L55", "Sony Bravia X80L 55\""}, {"SONY-WH1000XM5", "Sony WH-1000XM5 headphones"}}, nil},
		{"VOLTAS", SubventionLowCost, []int{6, 12}, false, 50, [][2]string{
			{"VOLTAS-AC15", "Voltas 1.5 t split AC"}, {"VOLTAS-AC2T", "Voltas 2 t split AC"}}, nil},
	}
}

// brandOfProduct returns the brand whose offer covers code.
func brandOfProduct(code string) (brandInfo, string, bool) {
	for _, b := range brands() {
		for _, p := range b.products {
			if p[0] == code {
				return b, p[1], true
			}
		}
	}
	return brandInfo{}, "", false
}

func (b brandInfo) offers(tenure int) bool {
	for _, t := range b.tenures {
		if t == tenure {
			return true
		}
	}
	return false
}

// ---- wire shapes (contract section 5) ----

type schemeJSON struct {
	SchemeID      string `json:"scheme_id"`
	ProgramType   int    `json:"program_type"`
	IsSchemeValid bool   `json:"is_scheme_valid"`
}

type productDetailJSON struct {
	Schemes                              []schemeJSON `json:"schemes"`
	ProductCode                          string       `json:"product_code"`
	ProductName                          string       `json:"product_name"`
	ProductAmount                        int64        `json:"product_amount"`
	SubventionCashbackDiscount           int64        `json:"subvention_cashback_discount"`
	ProductDiscount                      int64        `json:"product_discount"`
	SubventionCashbackDiscountPercentage int64        `json:"subvention_cashback_discount_percentage"`
	ProductDiscountPercentage            int64        `json:"product_discount_percentage"`
	SubventionType                       int          `json:"subvention_type"`
	BankInterestRatePercentage           int64        `json:"bank_interest_rate_percentage"`
	BankInterestRate                     int64        `json:"bank_interest_rate"`
}

type offerSchemeJSON struct {
	ProductDetails []productDetailJSON `json:"product_details"`
	EMIScheme      json.RawMessage     `json:"emi_scheme"`
}

type tenureJSON struct {
	OfferScheme                         offerSchemeJSON `json:"offer_scheme"`
	TenureID                            string          `json:"tenure_id"`
	TenureInMonth                       string          `json:"tenure_in_month"`
	MonthlyInstallment                  int64           `json:"monthly_installment"`
	BankInterestRate                    int64           `json:"bank_interest_rate"`
	InterestPayToBank                   int64           `json:"interest_pay_to_bank"`
	TotalOfferredDiscountCashbackAmount int64           `json:"total_offerred_discount_cashback_amount"`
	LoanAmount                          int64           `json:"loan_amount"`
	AuthAmount                          int64           `json:"auth_amount"`
}

type issuerJSON struct {
	IssuerName       string       `json:"issuer_name"`
	IsDebitEMIIssuer bool         `json:"is_debit_emi_issuer"`
	ListEMITenure    []tenureJSON `json:"list_emi_tenure"`
}

type acquirerJSON struct {
	AcquirerID int64 `json:"acquirerId"`
}

type calculatorReply struct {
	Issuer          []issuerJSON `json:"issuer"`
	AcquirerData    acquirerJSON `json:"acquirer_data"`
	ResponseCode    int          `json:"response_code"`
	ResponseMessage string       `json:"response_message"`
}

// ---- the math ----

// EMI is the reducing-balance monthly instalment, rounded half up to the paisa,
// of principal p (paise) over n months at annual rate rate (percent ×10000):
// EMI = P·r·(1+r)^n / ((1+r)^n − 1), r = rate/12. A zero rate gives P/n rounded.
func EMI(p int64, rate int64, n int) int64 {
	if n <= 0 {
		return 0
	}
	P := new(big.Rat).SetInt64(p)
	if rate == 0 {
		return roundRat(P.Quo(P, big.NewRat(int64(n), 1)))
	}
	r := big.NewRat(rate, 12*100*rateScale)
	onePlus := new(big.Rat).Add(big.NewRat(1, 1), r)
	pow := big.NewRat(1, 1)
	for i := 0; i < n; i++ {
		pow.Mul(pow, onePlus)
	}
	num := new(big.Rat).Mul(P, r)
	num.Mul(num, pow)
	den := new(big.Rat).Sub(pow, big.NewRat(1, 1))
	return roundRat(num.Quo(num, den))
}

// roundRat rounds a non-negative rational half up to an integer.
func roundRat(x *big.Rat) int64 {
	twice := new(big.Int).Mul(x.Num(), big.NewInt(2))
	twice.Add(twice, x.Denom())
	q := new(big.Int).Quo(twice, new(big.Int).Mul(x.Denom(), big.NewInt(2)))
	return q.Int64()
}

// tenureOffer computes the tenure object of one issuer and tenure for products.
func tenureOffer(is issuerInfo, n int, products []product) tenureJSON {
	rate := is.rates[n]
	var total int64
	for _, p := range products {
		total += p.Amount
	}
	emi := EMI(total, rate, n)
	interest := emi*int64(n) - total
	t := tenureJSON{
		TenureID: strconv.Itoa(n), TenureInMonth: strconv.Itoa(n), MonthlyInstallment: emi,
		BankInterestRate: rate, InterestPayToBank: interest, LoanAmount: total, AuthAmount: total,
		OfferScheme: offerSchemeJSON{EMIScheme: json.RawMessage("null")},
	}
	var shared int64
	for i, p := range products {
		share := interest - shared // the last product takes the rounding remainder
		if i < len(products)-1 && total > 0 {
			share = interest * p.Amount / total
		}
		shared += share
		d := productDetailJSON{
			ProductCode: p.Code, ProductName: p.Code, ProductAmount: p.Amount,
			SubventionType: SubventionStandard, BankInterestRatePercentage: rate, BankInterestRate: share,
			Schemes: []schemeJSON{{SchemeID: fmt.Sprintf("%s-%d-%d", is.name, ProgramBankEMI, n), ProgramType: ProgramBankEMI, IsSchemeValid: true}},
		}
		if b, name, ok := brandOfProduct(p.Code); ok {
			d.ProductName = name
			if b.offers(n) {
				d.Schemes = []schemeJSON{{SchemeID: fmt.Sprintf("%s-%d-%s-%d", b.name, ProgramBrandEMI, is.name, n), ProgramType: ProgramBrandEMI, IsSchemeValid: true}}
				d.SubventionType = b.subvention
				d.SubventionCashbackDiscount = share * b.sharePct / 100
				if p.Amount > 0 {
					d.SubventionCashbackDiscountPercentage = d.SubventionCashbackDiscount * 100 * rateScale / p.Amount
				}
			}
		}
		t.TotalOfferredDiscountCashbackAmount += d.SubventionCashbackDiscount
		t.OfferScheme.ProductDetails = append(t.OfferScheme.ProductDetails, d)
	}
	return t
}

// offers is the calculator's issuer list for products (empty under ₹3,000).
func offers(products []product) []issuerJSON {
	var total int64
	for _, p := range products {
		total += p.Amount
	}
	out := []issuerJSON{}
	if total < MinEMIAmount {
		return out
	}
	for _, is := range issuers() {
		ij := issuerJSON{IssuerName: is.name, IsDebitEMIIssuer: is.debit}
		for _, n := range emiTenures() {
			ij.ListEMITenure = append(ij.ListEMITenure, tenureOffer(is, n, products))
		}
		out = append(out, ij)
	}
	return out
}

// ---- schemes ----

// schemeIssuer names the issuer a scheme id belongs to.
func schemeIssuer(id string) string {
	parts := strings.Split(id, "-")
	switch {
	case len(parts) == 3 && parts[1] == strconv.Itoa(ProgramBankEMI):
		return parts[0]
	case len(parts) == 4 && parts[1] == strconv.Itoa(ProgramBrandEMI):
		return parts[2]
	}
	return ""
}

// checkScheme re-validates a tenure object copied from the calculator for a card
// and an amount: nil when valid, else the 14845, 14826 or 14819 answer.
func checkScheme(amount int64, card string, emi *tenureJSON) *reply {
	if emi == nil || len(emi.OfferScheme.ProductDetails) == 0 || len(card) < 12 || !allDigits(card) || !luhnValid(card) {
		return errInvalidResp()
	}
	n, err := strconv.Atoi(emi.TenureInMonth)
	if err != nil || n <= 0 {
		return errInvalidResp()
	}
	var products []product
	issuer := ""
	for _, d := range emi.OfferScheme.ProductDetails {
		if d.ProductCode == "" || len(d.Schemes) == 0 {
			return errInvalidResp()
		}
		products = append(products, product{Code: d.ProductCode, Amount: d.ProductAmount})
		for _, sc := range d.Schemes {
			si := schemeIssuer(sc.SchemeID)
			if si == "" || issuer != "" && si != issuer {
				return errOutdated()
			}
			issuer = si
		}
	}
	if issuerOf(card) != issuer {
		return errNotOnCard()
	}
	is, ok := issuerByName(issuer)
	if !ok || is.rates[n] == 0 {
		return errOutdated()
	}
	var sum int64
	for _, p := range products {
		sum += p.Amount
	}
	if sum < MinEMIAmount || sum != amount {
		return errOutdated()
	}
	want := tenureOffer(is, n, products)
	got := *emi
	got.OfferScheme.EMIScheme, want.OfferScheme.EMIScheme = nil, nil
	if !reflect.DeepEqual(got, want) {
		return errOutdated()
	}
	return nil
}

func validAcquirer(id int64) bool { return id == 0 || id == AcquirerID }

// sameProducts reports whether the EMI products are the order's (any order); an
// order without products accepts any.
func sameProducts(order []product, details []productDetailJSON) bool {
	if len(order) == 0 {
		return true
	}
	if len(order) != len(details) {
		return false
	}
	key := func(code string, amount int64) string { return code + "\x00" + strconv.FormatInt(amount, 10) }
	var a, b []string
	for _, p := range order {
		a = append(a, key(p.Code, p.Amount))
	}
	for _, d := range details {
		b = append(b, key(d.ProductCode, d.ProductAmount))
	}
	sort.Strings(a)
	sort.Strings(b)
	return reflect.DeepEqual(a, b)
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}
