package sandbox

import (
	"encoding/json"
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestEMIMath(t *testing.T) {
	// Hand-computed: P = ₹50,000, 15% a year, r = 0.0125 a month, n = 12:
	// (1.0125)^12 = 1.160754518, EMI = 50000 × 0.0125 × 1.160754518 / 0.160754518
	// = ₹4,512.9156 -> 451292 paise; interest 451292 × 12 − 5000000 = 415504 paise.
	tests := []struct {
		p    int64
		rate int64
		n    int
		want int64
	}{
		{5000000, 150000, 12, 451292},
		// ₹79,999 at 14% over 3 months: 27290.9534 -> 2729095.
		{7999900, 140000, 3, 2729095},
		// ₹89,999 at 13% over 6 months: 15573.6835 -> 1557368.
		{8999900, 130000, 6, 1557368},
		// ₹1,20,000 at 15% over 9 months: 14180.4666 -> 1418047 (rounds up).
		{12000000, 150000, 9, 1418047},
		// No interest: the price split evenly, rounded half up.
		{1000, 0, 3, 333},
	}
	for _, tt := range tests {
		assert.Equal(t, tt.want, EMI(tt.p, tt.rate, tt.n), "EMI(%d, %d, %d)", tt.p, tt.rate, tt.n)
	}
}

// calc calls the EMI calculator.
func (f *fix) calc(amount int64, products ...product) (int, calculatorReply, map[string]any) {
	f.t.Helper()
	var pd []map[string]any
	for _, p := range products {
		pd = append(pd, map[string]any{"product_code": p.Code, "product_amount": p.Amount})
	}
	body, err := json.Marshal(map[string]any{"merchant_data": map[string]any{"merchant_id": 770001},
		"payment_data": map[string]any{"amount_in_paisa": amount}, "product_details": pd})
	require.NoError(f.t, err)
	w := f.do("POST", "/api/v1/emi/calculator", body, nil)
	var r calculatorReply
	_ = json.Unmarshal(w.Body.Bytes(), &r)
	return w.Code, r, decode(f.t, w.Body.Bytes())
}

func tenureOf(t *testing.T, r calculatorReply, issuer string, n int) tenureJSON {
	t.Helper()
	for _, is := range r.Issuer {
		if is.IssuerName != issuer {
			continue
		}
		for _, te := range is.ListEMITenure {
			if te.TenureInMonth == fmt.Sprint(n) {
				return te
			}
		}
	}
	t.Fatalf("no %s tenure %d", issuer, n)
	return tenureJSON{}
}

func TestEMICalculator(t *testing.T) {
	f := setup(t)
	code, r, raw := f.calc(5000000, product{"GENERIC-TV", 5000000})
	require.Equal(t, 200, code)
	assert.Equal(t, 1, r.ResponseCode)
	assert.Equal(t, "SUCCESS", r.ResponseMessage)
	assert.Equal(t, int64(8004), r.AcquirerData.AcquirerID)
	require.Len(t, r.Issuer, 3)
	assert.Equal(t, []bool{false, false, true}, []bool{r.Issuer[0].IsDebitEMIIssuer, r.Issuer[1].IsDebitEMIIssuer, r.Issuer[2].IsDebitEMIIssuer})
	assert.Equal(t, "AXIS", r.Issuer[2].IssuerName)
	for _, is := range r.Issuer {
		require.Len(t, is.ListEMITenure, 6)
		for _, te := range is.ListEMITenure {
			assert.GreaterOrEqual(t, te.BankInterestRate, int64(130000))
			assert.LessOrEqual(t, te.BankInterestRate, int64(160000))
		}
	}

	// Bank EMI (standard) at HDFC 12 months, 15%: the hand-computed values above.
	te := tenureOf(t, r, "HDFC", 12)
	assert.Equal(t, tenureJSON{
		OfferScheme: offerSchemeJSON{ProductDetails: []productDetailJSON{{
			Schemes:     []schemeJSON{{SchemeID: "HDFC-105-12", ProgramType: 105, IsSchemeValid: true}},
			ProductCode: "GENERIC-TV", ProductName: "GENERIC-TV", ProductAmount: 5000000,
			SubventionType: 3, BankInterestRatePercentage: 150000, BankInterestRate: 415504,
		}}, EMIScheme: json.RawMessage("null")},
		TenureID: "12", TenureInMonth: "12", MonthlyInstallment: 451292, BankInterestRate: 150000,
		InterestPayToBank: 415504, LoanAmount: 5000000, AuthAmount: 5000000,
	}, te)

	// The exact shape of contract section 5: every key, spelled as the service does.
	is0 := raw["issuer"].([]any)[0].(map[string]any)
	assert.ElementsMatch(t, []string{"issuer_name", "is_debit_emi_issuer", "list_emi_tenure"}, keys(is0))
	t0 := is0["list_emi_tenure"].([]any)[0].(map[string]any)
	assert.ElementsMatch(t, []string{"offer_scheme", "tenure_id", "tenure_in_month", "monthly_installment", "bank_interest_rate",
		"interest_pay_to_bank", "total_offerred_discount_cashback_amount", "loan_amount", "auth_amount"}, keys(t0))
	os := t0["offer_scheme"].(map[string]any)
	assert.ElementsMatch(t, []string{"product_details", "emi_scheme"}, keys(os))
	assert.Nil(t, os["emi_scheme"])
	pd := os["product_details"].([]any)[0].(map[string]any)
	assert.ElementsMatch(t, []string{"schemes", "product_code", "product_name", "product_amount", "subvention_cashback_discount",
		"product_discount", "subvention_cashback_discount_percentage", "product_discount_percentage", "subvention_type",
		"bank_interest_rate_percentage", "bank_interest_rate"}, keys(pd))
	assert.IsType(t, "", t0["tenure_id"])
	assert.ElementsMatch(t, []string{"acquirerId"}, keys(raw["acquirer_data"].(map[string]any)))
}

func keys(m map[string]any) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	return out
}

func TestEMICalculatorBrandOffers(t *testing.T) {
	f := setup(t)
	// No-cost (SAMSUNG, 3 and 6 months): the interest comes back as cashback, so the
	// customer pays the price. HDFC 3 months is 14%: EMI 2729095, interest 187385.
	_, r, _ := f.calc(7999900, product{"SAMSUNG-S24", 7999900})
	te := tenureOf(t, r, "HDFC", 3)
	pd := te.OfferScheme.ProductDetails[0]
	assert.Equal(t, []schemeJSON{{SchemeID: "SAMSUNG-106-HDFC-3", ProgramType: 106, IsSchemeValid: true}}, pd.Schemes)
	assert.Equal(t, SubventionNoCost, pd.SubventionType)
	assert.Equal(t, "Samsung Galaxy S24", pd.ProductName)
	assert.Equal(t, int64(2729095), te.MonthlyInstallment)
	assert.Equal(t, int64(187385), te.InterestPayToBank)
	assert.Equal(t, int64(187385), pd.SubventionCashbackDiscount)
	assert.Equal(t, int64(187385), te.TotalOfferredDiscountCashbackAmount)
	assert.Equal(t, int64(187385*1000000/7999900), pd.SubventionCashbackDiscountPercentage)
	assert.Equal(t, int64(7999900), te.MonthlyInstallment*3-te.TotalOfferredDiscountCashbackAmount, "the customer pays the price")
	// Beyond the brand's tenures it is bank EMI.
	te12 := tenureOf(t, r, "HDFC", 12)
	assert.Equal(t, ProgramBankEMI, te12.OfferScheme.ProductDetails[0].Schemes[0].ProgramType)
	assert.Equal(t, int64(0), te12.TotalOfferredDiscountCashbackAmount)

	// Low-cost (LG, 50% of the interest): ICICI 6 months 13%, EMI 1557368,
	// interest 1557368 × 6 − 8999900 = 344308, cashback 172154.
	_, r, _ = f.calc(8999900, product{"LG-OLED55C4", 8999900})
	te = tenureOf(t, r, "ICICI", 6)
	pd = te.OfferScheme.ProductDetails[0]
	assert.Equal(t, SubventionLowCost, pd.SubventionType)
	assert.Equal(t, "LG-106-ICICI-6", pd.Schemes[0].SchemeID)
	assert.Equal(t, int64(1557368), te.MonthlyInstallment)
	assert.Equal(t, int64(344308), te.InterestPayToBank)
	assert.Equal(t, int64(172154), pd.SubventionCashbackDiscount)
	assert.Equal(t, ProgramBankEMI, tenureOf(t, r, "ICICI", 3).OfferScheme.ProductDetails[0].Schemes[0].ProgramType)

	// A cart: ₹50,000 phone + ₹30,000 other at HDFC 12 months (15%): EMI 722066,
	// interest 664792 shared 415495 / 249297 by amount.
	_, r, _ = f.calc(8000000, product{"SAMSUNG-A55", 5000000}, product{"GENERIC", 3000000})
	te = tenureOf(t, r, "HDFC", 12)
	assert.Equal(t, int64(722066), te.MonthlyInstallment)
	assert.Equal(t, int64(664792), te.InterestPayToBank)
	assert.Equal(t, int64(415495), te.OfferScheme.ProductDetails[0].BankInterestRate)
	assert.Equal(t, int64(249297), te.OfferScheme.ProductDetails[1].BankInterestRate)
}

func TestEMICalculatorLimitsAndErrors(t *testing.T) {
	f := setup(t)
	code, r, raw := f.calc(299999, product{"SAMSUNG-M35", 299999})
	require.Equal(t, 200, code)
	assert.Equal(t, 1, r.ResponseCode)
	assert.Equal(t, []any{}, raw["issuer"], "under ₹3,000: an empty issuer list")
	code, r, _ = f.calc(300000, product{"SAMSUNG-M35", 300000})
	assert.Equal(t, 200, code)
	assert.Len(t, r.Issuer, 3)

	for name, body := range map[string]string{
		"not JSON":         `{`,
		"unknown merchant": `{"merchant_data":{"merchant_id":1},"payment_data":{"amount_in_paisa":500000},"product_details":[{"product_code":"A","product_amount":500000}]}`,
		"merchant as text": `{"merchant_data":{"merchant_id":"770001"},"payment_data":{"amount_in_paisa":500000},"product_details":[{"product_code":"A","product_amount":500000}]}`,
		"no products":      `{"merchant_data":{"merchant_id":770001},"payment_data":{"amount_in_paisa":500000}}`,
		"sum differs":      `{"merchant_data":{"merchant_id":770001},"payment_data":{"amount_in_paisa":500000},"product_details":[{"product_code":"A","product_amount":400000}]}`,
	} {
		w := f.do("POST", "/api/v1/emi/calculator", []byte(body), nil)
		assert.Equal(t, 400, w.Code, name)
		assert.Equal(t, map[string]any{"error_code": "14845", "error_message": "Request Data is not valid"}, decode(t, w.Body.Bytes()), name)
	}
}

func (f *fix) validateScheme(amount int64, cardNumber string, emi any) (int, map[string]any) {
	f.t.Helper()
	body, err := json.Marshal(map[string]any{"merchant_data": map[string]any{"merchant_id": 770001},
		"payment_data": map[string]any{"amount_in_paisa": amount}, "card_data": map[string]any{"card_number": cardNumber},
		"emi_data": emi, "acquirer_data": map[string]any{"acquirerId": 8004}})
	require.NoError(f.t, err)
	w := f.do("POST", "/api/v1/emi/scheme/validation", body, nil)
	return w.Code, decode(f.t, w.Body.Bytes())
}

func TestSchemeValidation(t *testing.T) {
	f := setup(t)
	_, r, raw := f.calc(7999900, product{"SAMSUNG-S24", 7999900})
	hdfc3 := tenureOf(t, r, "HDFC", 3)
	// The tenure object exactly as the calculator sent it (raw JSON).
	rawHDFC3 := raw["issuer"].([]any)[0].(map[string]any)["list_emi_tenure"].([]any)[0]

	ok := map[string]any{"response_code": float64(1), "response_message": "SUCCESS"}
	notOnCard := map[string]any{"response_code": float64(14826), "response_message": "Offer is not applicable on card"}
	outdated := map[string]any{"response_code": float64(14819), "response_message": "Offer is outdated"}
	invalid := map[string]any{"response_code": float64(14845), "response_message": "Request Data is not valid"}
	changed := func(edit func(*tenureJSON)) tenureJSON {
		c := hdfc3
		c.OfferScheme.ProductDetails = append([]productDetailJSON(nil), hdfc3.OfferScheme.ProductDetails...)
		edit(&c)
		return c
	}
	tests := []struct {
		name   string
		amount int64
		card   string
		emi    any
		status int
		want   map[string]any
	}{
		{"valid (raw copy)", 7999900, "4386280000000004", rawHDFC3, 200, ok},
		{"valid (decoded)", 7999900, "4386280000000004", hdfc3, 200, ok},
		{"ICICI card on an HDFC offer", 7999900, "5522600000000005", hdfc3, 400, notOnCard},
		{"card of no EMI issuer", 7999900, "4111111111111111", hdfc3, 400, notOnCard},
		{"instalment changed", 7999900, "4386280000000004", changed(func(c *tenureJSON) { c.MonthlyInstallment++ }), 400, outdated},
		{"cashback changed", 7999900, "4386280000000004", changed(func(c *tenureJSON) { c.OfferScheme.ProductDetails[0].SubventionCashbackDiscount-- }), 400, outdated},
		{"auth amount changed", 7999900, "4386280000000004", changed(func(c *tenureJSON) { c.AuthAmount = 1 }), 400, outdated},
		{"amount differs", 8000000, "4386280000000004", hdfc3, 400, outdated},
		{"unknown scheme", 7999900, "4386280000000004", changed(func(c *tenureJSON) {
			c.OfferScheme.ProductDetails[0].Schemes = []schemeJSON{{SchemeID: "X", ProgramType: 106, IsSchemeValid: true}}
		}), 400, outdated},
		{"bad card number", 7999900, "4386280000000005", hdfc3, 400, invalid},
		{"no emi_data", 7999900, "4386280000000004", nil, 400, invalid},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, m := f.validateScheme(tt.amount, tt.card, tt.emi)
			assert.Equal(t, tt.status, code)
			assert.Equal(t, tt.want, m)
		})
	}
}

// emiPay calls the EMI payment.
func (f *fix) emiPay(token, cardNumber string, emi tenureJSON) (int, map[string]any) {
	f.t.Helper()
	body, err := json.Marshal(map[string]any{
		"merchant_data": map[string]any{"merchant_id": 770001},
		"card_data": map[string]any{"card_number": cardNumber, "card_expiry_year": "2030", "card_expiry_month": "12",
			"card_holder_name": "Asha Rao", "cvv": "123", "is_card_to_be_saved": false},
		"customer_data": map[string]any{"country_code": "91", "mobile_number": "9876543210", "email_id": "a@b.in"},
		"emi_data":      emi, "acquirer_data": map[string]any{"acquirerId": 8004}})
	require.NoError(f.t, err)
	w := f.do("POST", "/api/v1/emi/process/payment?token="+token, body, map[string]string{"checkoutmode": "SEAMLESS"})
	return w.Code, decode(f.t, w.Body.Bytes())
}

func (f *fix) validateIMEI(token string, items ...imeiItemJSON) (int, imeiReply) {
	f.t.Helper()
	body, err := json.Marshal(map[string]any{"merchant_data": map[string]any{"merchant_id": 770001}, "product_imei_details": items})
	require.NoError(f.t, err)
	w := f.do("POST", "/api/v1/emi/imei/validation?token="+token, body, nil)
	var r imeiReply
	require.NoError(f.t, json.Unmarshal(w.Body.Bytes(), &r))
	return w.Code, r
}

func TestEMIPaymentWithIMEI(t *testing.T) {
	f := setup(t)
	_, r, _ := f.calc(7999900, product{"SAMSUNG-S24", 7999900})
	hdfc3 := tenureOf(t, r, "HDFC", 3)
	tok, id := f.create(7999900, product{"SAMSUNG-S24", 7999900})

	code, m := f.emiPay(tok, "4386280000000004", hdfc3)
	assert.Equal(t, 400, code)
	assert.Equal(t, map[string]any{"response_code": float64(14831), "response_message": "IMEI_VALIDATION_REQUIRED"}, m)
	code, m = f.emiPay(tok, "5522600000000005", hdfc3)
	assert.Equal(t, 400, code)
	assert.Equal(t, float64(14826), m["response_code"], "scheme validated again")
	wrong := hdfc3
	wrong.AuthAmount = 7999800
	code, m = f.emiPay(tok, "4386280000000004", wrong)
	assert.Equal(t, 400, code)
	assert.Equal(t, "1150", m["error_code"])

	samsung := TestData().Brands[0]
	require.Equal(t, "SAMSUNG", samsung.Brand)
	apple := TestIMEI("35391911", 7)
	tests := []struct {
		name  string
		items []imeiItemJSON
		top   int
		codes []int
	}{
		{"not 15 digits", []imeiItemJSON{{"SAMSUNG-S24", "12345"}}, 107, []int{1}},
		{"luhn fails", []imeiItemJSON{{"SAMSUNG-S24", samsung.TestIMEI[:14] + fmt.Sprint((samsung.TestIMEI[14]-'0'+1)%10)}}, 107, []int{1}},
		{"another brand's TAC", []imeiItemJSON{{"SAMSUNG-S24", apple}}, 107, []int{2}},
		{"product without a brand", []imeiItemJSON{{"GENERIC", samsung.TestIMEI}}, 107, []int{2}},
		{"one bad item fails all", []imeiItemJSON{{"SAMSUNG-S24", samsung.TestIMEI}, {"SAMSUNG-S24", "1"}}, 107, []int{0, 1}},
		{"valid", []imeiItemJSON{{"SAMSUNG-S24", samsung.TestIMEI}}, 0, []int{0}},
		{"again for the same order", []imeiItemJSON{{"SAMSUNG-S24", samsung.TestIMEI}}, 0, []int{0}},
	}
	for _, tt := range tests {
		code, ir := f.validateIMEI(tok, tt.items...)
		require.Equal(t, 200, code, tt.name)
		assert.Equal(t, tt.top, ir.ResponseCode, tt.name)
		if tt.top == 107 {
			assert.Equal(t, "IMEI VALIDATION FAILED", ir.ResponseMessage)
		}
		var got []int
		for _, it := range ir.ProductIMEIDetails {
			got = append(got, it.IMEIProcessingStatus.ResponseCode)
		}
		assert.Equal(t, tt.codes, got, tt.name)
	}

	code, m = f.emiPay(tok, "4386280000000004", hdfc3)
	require.Equal(t, 200, code, m)
	assert.Equal(t, float64(14010), m["response_code"])
	assert.Equal(t, "SUCCESS", m["response_message"])
	assert.Equal(t, float64(7999900), m["amount_in_paise"])
	assert.Equal(t, tok, m["token"])
	assert.Contains(t, m, "api_url")
	assert.Nil(t, m["api_url"])
	pid := fmt.Sprint(int64(m["payment_id"].(float64)))
	require.Equal(t, 303, f.acs(pid, map[string][]string{"otp": {TestOTP}}).Code)
	d := f.inquire(id, pid)
	assert.Equal(t, orderCharged, d.OrderData.OrderStatus)
	assert.Equal(t, "EMI", d.PaymentInfoData.PaymentMode)
	assert.Equal(t, "HDFC", d.PaymentInfoData.IssuerName)

	// The IMEI is blocked for other orders until a full refund.
	tok2, _ := f.create(7999900, product{"SAMSUNG-S24", 7999900})
	_, ir := f.validateIMEI(tok2, imeiItemJSON{"SAMSUNG-S24", samsung.TestIMEI})
	assert.Equal(t, 107, ir.ResponseCode)
	assert.Equal(t, 3, ir.ProductIMEIDetails[0].IMEIProcessingStatus.ResponseCode)
	assert.Equal(t, "IMEI_ALREADY_BLOCKED", ir.ProductIMEIDetails[0].IMEIProcessingStatus.ResponseMessage)
	w := f.refundRaw(map[string]any{"unique_txn_id": "R1", "amount_in_paise": 7999900, "merchant_id": 770001,
		"order_id": atoi(id), "payment_id": atoi(pid)}, defaultAuth)
	require.Equal(t, 200, w.Code, w.Body.String())
	_, ir = f.validateIMEI(tok2, imeiItemJSON{"SAMSUNG-S24", samsung.TestIMEI})
	assert.Equal(t, 0, ir.ResponseCode, "a full refund unblocks the IMEI")

	// IMEI validation needs a valid token.
	body := []byte(`{"merchant_data":{"merchant_id":770001},"product_imei_details":[]}`)
	assert.Equal(t, 401, f.do("POST", "/api/v1/emi/imei/validation?token=x", body, nil).Code)
	w = f.do("POST", "/api/v1/emi/imei/validation?token="+tok2, body, nil)
	assert.Equal(t, float64(14845), decode(t, w.Body.Bytes())["response_code"], "no items")
}

func TestEMIPaymentBankAndDebit(t *testing.T) {
	f := setup(t)
	// LG low-cost: no IMEI needed. AXIS is a debit EMI issuer.
	_, r, _ := f.calc(8999900, product{"LG-OLED55C4", 8999900})
	axis6 := tenureOf(t, r, "AXIS", 6)
	tok, id := f.create(8999900, product{"LG-OLED55C4", 8999900})
	code, m := f.emiPay(tok, "5126520000000005", axis6)
	require.Equal(t, 200, code, m)
	pid := fmt.Sprint(int64(m["payment_id"].(float64)))
	require.Equal(t, 303, f.acs(pid, map[string][]string{"otp": {TestOTP}}).Code)
	d := f.inquire(id, pid)
	assert.Equal(t, "DEBIT_EMI", d.PaymentInfoData.PaymentMode)
	assert.Equal(t, "AXIS", d.PaymentInfoData.IssuerName)
	assert.Equal(t, "8999900", d.PaymentInfoData.CapturedAmountInPaisa)

	// The EMI products must be the order's.
	tok2, _ := f.create(8999900, product{"SONY-X80L55", 8999900})
	code, m = f.emiPay(tok2, "5126520000000005", axis6)
	assert.Equal(t, 400, code)
	assert.Equal(t, "1150", m["error_code"])
	// checkoutmode is required.
	body, _ := json.Marshal(map[string]any{})
	w := f.do("POST", "/api/v1/emi/process/payment?token="+tok2, body, nil)
	assert.Equal(t, float64(14845), decode(t, w.Body.Bytes())["response_code"])
}

// TestIMEIFreedWhenOrderFails checks that an order which ends FAILED unpaid (its
// token expired) no longer blocks its IMEIs, while an order that can still be paid
// does.
func TestIMEIFreedWhenOrderFails(t *testing.T) {
	f := setup(t)
	samsung := TestData().Brands[0]
	require.Equal(t, "SAMSUNG", samsung.Brand)
	item := imeiItemJSON{"SAMSUNG-S24", samsung.TestIMEI}

	tok1, _ := f.create(7999900, product{"SAMSUNG-S24", 7999900})
	_, ir := f.validateIMEI(tok1, item)
	require.Equal(t, 0, ir.ResponseCode)

	tok2, _ := f.create(7999900, product{"SAMSUNG-S24", 7999900})
	_, ir = f.validateIMEI(tok2, item)
	assert.Equal(t, 3, ir.ProductIMEIDetails[0].IMEIProcessingStatus.ResponseCode, "blocked while the first order can still be paid")

	f.clock.Advance(TokenLifetime + TokenLifetime/30) // the first order expires unpaid: FAILED
	tok3, _ := f.create(7999900, product{"SAMSUNG-S24", 7999900})
	_, ir = f.validateIMEI(tok3, item)
	assert.Equal(t, 0, ir.ResponseCode, "the failed order's block lapsed")
	assert.Equal(t, 0, ir.ProductIMEIDetails[0].IMEIProcessingStatus.ResponseCode)
}
