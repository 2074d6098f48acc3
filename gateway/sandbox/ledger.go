package sandbox

import (
	"galla/gateway"
	"strconv"
)

// LedgerOrder is what the sandbox believes about one order.
type LedgerOrder struct {
	MerchantID       string          `json:"merchant_id"`
	MerchantOrderID  string          `json:"merchant_order_id"`
	ServiceOrderID   string          `json:"service_order_id"`
	Amount           int64           `json:"amount"`
	Status           string          `json:"status"`
	CapturedAmount   int64           `json:"captured_amount"`
	CapturedPayments int             `json:"captured_payments"` // never more than 1
	RefundedAmount   int64           `json:"refunded_amount"`
	Payments         []LedgerPayment `json:"payments"`
}

// LedgerPayment is one payment attempt of a LedgerOrder.
type LedgerPayment struct {
	PaymentID      string `json:"payment_id"`
	Mode           string `json:"mode"`
	Amount         int64  `json:"amount"`
	Status         string `json:"status"`
	Captured       bool   `json:"captured"`
	RefundedAmount int64  `json:"refunded_amount"`
	ResponseCode   int    `json:"response_code"`
	Message        string `json:"message"`
}

// TestDataSet is everything a person or a test needs to use the sandbox:
// credentials, test cards, EMI offers per product code and test IMEIs.
type TestDataSet struct {
	Merchant      Merchant           `json:"merchant"`
	BaseURL       string             `json:"base_url"`
	OTP           string             `json:"otp"`
	Cards         []TestCard         `json:"cards"`
	BankEMI       []TestBankEMI      `json:"bank_emi"`
	MinEMIAmount  int64              `json:"min_emi_amount"`
	ProductOffers []TestProductOffer `json:"product_offers"`
	Brands        []TestBrand        `json:"brands"`
}

// TestCard is one sandbox test card and what it does.
type TestCard struct {
	Number  string `json:"number"`
	Brand   string `json:"brand"`
	CVV     string `json:"cvv"`
	Expiry  string `json:"expiry"` // any future month works; this is one
	Issuer  string `json:"issuer,omitempty"`
	Outcome string `json:"outcome"`
}

// TestBankEMI is one issuer's bank EMI (program 105, standard) offer.
type TestBankEMI struct {
	Issuer        string         `json:"issuer"`
	BIN           string         `json:"bin"`
	Debit         bool           `json:"is_debit_emi_issuer"`
	RatesByTenure map[string]int `json:"rate_percent_x10000_by_tenure"`
}

// TestProductOffer is the brand EMI offer (program 106) of one product code.
type TestProductOffer struct {
	ProductCode    string `json:"product_code"`
	ProductName    string `json:"product_name"`
	Brand          string `json:"brand"`
	SubventionType int    `json:"subvention_type"`
	Program        string `json:"program"` // "no-cost" or "low-cost"
	Tenures        []int  `json:"brand_tenures"`
	IMEIRequired   bool   `json:"imei_required"`
}

// TestBrand is a brand's type allocation codes and one valid test IMEI.
type TestBrand struct {
	Brand        string   `json:"brand"`
	IMEIRequired bool     `json:"imei_required"`
	TACs         []string `json:"tacs"`
	TestIMEI     string   `json:"test_imei,omitempty"`
}

// TestData describes the sandbox's built-in test data.
func TestData() TestDataSet {
	td := TestDataSet{
		Merchant: Merchant{ID: DefaultMerchantID, AccessCode: DefaultAccessCode, Secret: DefaultSecret},
		BaseURL:  "http://127.0.0.1:7070", OTP: TestOTP, MinEMIAmount: MinEMIAmount,
	}
	for _, c := range testCards() {
		cvv := "123"
		if brandOf(c.number) == "AMEX" {
			cvv = "1234"
		}
		td.Cards = append(td.Cards, TestCard{Number: c.number, Brand: c.brand, CVV: cvv, Expiry: "12/2035", Issuer: c.issuer, Outcome: c.text})
	}
	for _, is := range issuers() {
		rates := map[string]int{}
		for n, r := range is.rates {
			rates[strconv.Itoa(n)] = int(r)
		}
		td.BankEMI = append(td.BankEMI, TestBankEMI{Issuer: is.name, BIN: is.bin, Debit: is.debit, RatesByTenure: rates})
	}
	for _, b := range brands() {
		prog := "no-cost"
		if b.subvention == SubventionLowCost {
			prog = "low-cost"
		}
		for _, p := range b.products {
			td.ProductOffers = append(td.ProductOffers, TestProductOffer{ProductCode: p[0], ProductName: p[1], Brand: b.name,
				SubventionType: b.subvention, Program: prog, Tenures: b.tenures, IMEIRequired: b.imei})
		}
		tb := TestBrand{Brand: b.name, IMEIRequired: b.imei, TACs: b.tacs}
		if len(b.tacs) > 0 {
			tb.TestIMEI = TestIMEI(b.tacs[0], 1)
		}
		if tb.TACs == nil {
			tb.TACs = []string{}
		}
		td.Brands = append(td.Brands, tb)
	}
	return td
}

// TestIMEI returns a Luhn-valid 15-digit IMEI made of an 8-digit TAC, a 6-digit
// serial number and the check digit. Different serials give different IMEIs of
// the same brand (the sandbox blocks an IMEI once an order uses it).
func TestIMEI(tac string, serial int) string {
	body := tac + strconv.Itoa(1000000 + serial%1000000)[1:]
	return body + luhnDigit(body)
}

// luhnDigit is the Luhn check digit to append to digits (gateway's, the one Luhn).
func luhnDigit(digits string) string {
	d, _ := gateway.LuhnCheckDigit(digits)
	return string(d)
}

// luhnValid reports whether a string of digits passes the Luhn check.
func luhnValid(digits string) bool { return gateway.Luhn(digits) }
