package gateway

import (
	"encoding/json"
	"strconv"
	"time"
)

// Program types of an EMI scheme (contract section 5).
const (
	ProgramBankEMI  = 105 // bank EMI
	ProgramBrandEMI = 106 // brand EMI
)

// Subvention types of an EMI offer (contract section 5).
const (
	SubventionNoCost   = 1 // the interest is given back as cashback
	SubventionLowCost  = 2 // part of the interest is given back
	SubventionStandard = 3 // the customer pays the interest
)

// Response codes of the service's answers. The code that means success differs per
// call (contract sections 4 and 5).
const (
	CodeSuccess      = 1     // card payment, calculator, scheme validation, inquiry payment_response_code
	CodeEMISuccess   = 14010 // EMI payment
	CodeIMEISuccess  = 0     // IMEI validation, per item and overall
	CodeIMEIFailed   = 107   // IMEI validation: at least one item failed
	CodeInvalidIMEI  = 1     // IMEI item: not 15 digits or a bad check digit
	CodeIMEINotBrand = 2     // IMEI item: the type allocation code is not of the product's brand
	CodeIMEIBlocked  = 3     // IMEI item: blocked by another order
)

// Defaults of a Client and of an Order.
const (
	DefaultCurrency  = "INR"                  // the currency of an order that names none
	DefaultTimeout   = 15 * time.Second       // Config.Timeout when zero
	DefaultRetryMax  = 3                      // Retry.Max when zero
	DefaultRetryBase = 200 * time.Millisecond // Retry.Base when zero
	DefaultRetryCap  = 5 * time.Second        // Retry.Cap when zero
)

// maxRetryAfterWait is the longest Retry-After the client waits for; a longer one
// ends the call with the 429 error (its RetryAfter says how long).
const maxRetryAfterWait = time.Minute

// Order states and payment states the service reports (contract section 6).
const (
	OrderCreated         = "ORDER_CREATED"
	OrderAttempted       = "ORDER_ATTEMPTED"
	OrderPending         = "PENDING"
	OrderCharged         = "CHARGED"
	OrderFailed          = "FAILED"
	OrderPartialRefunded = "PARTIAL_REFUNDED"
	OrderRefunded        = "REFUNDED"

	PaymentPending           = "PENDING"
	PaymentCaptured          = "CAPTURED"
	PaymentFailed            = "FAILED"
	PaymentPartiallyRefunded = "PARTIALLY_REFUNDED"
	PaymentRefunded          = "REFUNDED"
)

// Retry bounds the retries of the calls that may be retried (see Client). Max is the
// number of retries after the first attempt (0 means the default 3, a negative
// value means none); the wait before retry n is Base·2ⁿ capped at Cap, with jitter,
// and never shorter than a Retry-After the service sent.
type Retry struct {
	Max  int
	Base time.Duration
	Cap  time.Duration
}

// Address is a billing or shipping address of an order (interface 2.1).
type Address struct {
	FirstName string `json:"first_name,omitempty"`
	LastName  string `json:"last_name,omitempty"`
	Address1  string `json:"address1,omitempty"`
	Address2  string `json:"address2,omitempty"`
	Address3  string `json:"address3,omitempty"`
	PinCode   string `json:"pin_code,omitempty"`
	City      string `json:"city,omitempty"`
	State     string `json:"state,omitempty"`
	Country   string `json:"country,omitempty"`
}

// Customer is the customer data of an order or a payment: telephone country code,
// mobile number and e-mail address. Token is the token of a returning customer and
// is sent only with an EMI payment.
type Customer struct {
	CountryCode string
	Mobile      string
	Email       string
	Token       string
}

// ProductAmount is one product of an order or of an EMI calculator request: its
// product code and its amount in paise.
type ProductAmount struct {
	Code   string `json:"product_code"`
	Amount int64  `json:"product_amount"`
}

// Order is what CreateOrder sends (interface 2.1). Amounts are integer paise. An
// empty ReturnURL takes Config.ReturnURL, an empty CurrencyCode takes INR. When
// Products is not empty its amounts must add up to Amount.
type Order struct {
	MerchantOrderID string
	ReturnURL       string
	Amount          int64
	CurrencyCode    string
	Description     string
	Customer        Customer
	Billing         *Address
	Shipping        *Address
	Products        []ProductAmount
	RFU1            string
}

// CreateOrderResponse is the answer to CreateOrder (interface 2.2). Token arrives
// URL-encoded and is passed on verbatim to the payment calls.
type CreateOrderResponse struct {
	Token          string `json:"token"`
	ServiceOrderID string `json:"service_order_id"`
}

// PaymentResponse is the answer to a card or EMI payment (interface 2.4, contract
// section 5). Content is the HTML page with the auto-submitting form of the card
// authentication step (see SubmitAuthentication). Acceptance is not payment: the
// outcome arrives only through the status inquiry.
type PaymentResponse struct {
	Content         string `json:"content"`
	PaymentID       string `json:"payment_id"`
	OrderID         string `json:"order_id"`
	AmountInPaise   int64  `json:"amount_in_paise"`
	Token           string `json:"token"`
	ResponseCode    int    `json:"response_code"`
	ResponseMessage string `json:"response_message"`
}

// EMIOffers is the answer of the EMI calculator (contract section 5).
type EMIOffers struct {
	Issuers         []EMIIssuer `json:"issuer"`
	AcquirerID      int64       `json:"acquirer_id"`
	ResponseCode    int         `json:"response_code"`
	ResponseMessage string      `json:"response_message"`
}

// EMIIssuer is one issuer of the EMI calculator's answer with its tenures.
type EMIIssuer struct {
	IssuerName       string      `json:"issuer_name"`
	IsDebitEMIIssuer bool        `json:"is_debit_emi_issuer"`
	Tenures          []EMITenure `json:"list_emi_tenure"`
}

// EMITenure is one tenure object of the EMI calculator's answer, field for field
// with the service's JSON names (interface 2.6). It is sent back unchanged as the
// emi_data of scheme validation and of the EMI payment, and it re-encodes to what
// the calculator sent. Amounts are paise; rates are the percentage times 10000.
type EMITenure struct {
	OfferScheme                         OfferScheme `json:"offer_scheme"`
	TenureID                            string      `json:"tenure_id"`
	TenureInMonth                       string      `json:"tenure_in_month"`
	MonthlyInstallment                  int64       `json:"monthly_installment"`
	BankInterestRate                    int64       `json:"bank_interest_rate"`
	InterestPayToBank                   int64       `json:"interest_pay_to_bank"`
	TotalOfferredDiscountCashbackAmount int64       `json:"total_offerred_discount_cashback_amount"`
	LoanAmount                          int64       `json:"loan_amount"`
	AuthAmount                          int64       `json:"auth_amount"`
}

// Months returns the tenure in months, or 0 when tenure_in_month is not a number.
func (t EMITenure) Months() int {
	n, err := strconv.Atoi(t.TenureInMonth)
	if err != nil || n < 0 {
		return 0
	}
	return n
}

// ProgramType returns the program type of the tenure's first scheme (ProgramBankEMI
// or ProgramBrandEMI), or 0 when it names none.
func (t EMITenure) ProgramType() int {
	for _, p := range t.OfferScheme.ProductDetails {
		for _, s := range p.Schemes {
			if s.ProgramType != 0 {
				return s.ProgramType
			}
		}
	}
	return 0
}

// OfferScheme is the offer_scheme of a tenure: the products it covers. EMIScheme is
// kept as the raw JSON the service sent (usually null).
type OfferScheme struct {
	ProductDetails []OfferProduct  `json:"product_details"`
	EMIScheme      json.RawMessage `json:"emi_scheme"`
}

// OfferProduct is one product of an offer scheme. BankInterestRate is the interest
// amount in paise; the percentages are the percentage times 10000.
type OfferProduct struct {
	Schemes                              []Scheme `json:"schemes"`
	ProductCode                          string   `json:"product_code"`
	ProductName                          string   `json:"product_name"`
	ProductAmount                        int64    `json:"product_amount"`
	SubventionCashbackDiscount           int64    `json:"subvention_cashback_discount"`
	ProductDiscount                      int64    `json:"product_discount"`
	SubventionCashbackDiscountPercentage int64    `json:"subvention_cashback_discount_percentage"`
	ProductDiscountPercentage            int64    `json:"product_discount_percentage"`
	SubventionType                       int      `json:"subvention_type"`
	BankInterestRatePercentage           int64    `json:"bank_interest_rate_percentage"`
	BankInterestRate                     int64    `json:"bank_interest_rate"`
}

// Scheme names an EMI scheme of a product: its id, its program type (ProgramBankEMI
// or ProgramBrandEMI) and whether it is valid.
type Scheme struct {
	SchemeID      string `json:"scheme_id"`
	ProgramType   int    `json:"program_type"`
	IsSchemeValid bool   `json:"is_scheme_valid"`
}

// IMEIItem is one serialised product sent to IMEI validation.
type IMEIItem struct {
	ProductCode string `json:"product_code"`
	IMEI        string `json:"imei_no"`
}

// IMEIResult is the answer of IMEI validation (contract section 5): the overall code
// (CodeIMEISuccess or CodeIMEIFailed) and one result per item.
type IMEIResult struct {
	Items           []IMEIItemResult `json:"product_imei_details"`
	ResponseCode    int              `json:"response_code"`
	ResponseMessage string           `json:"response_message"`
}

// OK reports whether every item was validated.
func (r *IMEIResult) OK() bool {
	if r == nil || r.ResponseCode != CodeIMEISuccess || len(r.Items) == 0 {
		return false
	}
	for _, it := range r.Items {
		if it.Status.ResponseCode != CodeIMEISuccess {
			return false
		}
	}
	return true
}

// IMEIItemResult is the validation result of one item.
type IMEIItemResult struct {
	ProductCode string     `json:"product_code"`
	IMEI        string     `json:"imei_no"`
	Status      IMEIStatus `json:"imei_processing_status"`
}

// IMEIStatus is the processing status of one IMEI: CodeIMEISuccess, or
// CodeInvalidIMEI, CodeIMEINotBrand, CodeIMEIBlocked with its message.
type IMEIStatus struct {
	ResponseCode    int    `json:"response_code"`
	ResponseMessage string `json:"response_message"`
}

// RefundRequest is what Refund sends (contract section 7). UniqueTxnID is chosen by
// the caller and unique per refund; a retry of the same refund reuses it.
// MerchantOrderID is not sent: when set, the answer must name that merchant order
// id (merchant_data.order_id) to count.
type RefundRequest struct {
	UniqueTxnID     string
	AmountInPaise   int64
	ServiceOrderID  string
	PaymentID       string
	MerchantOrderID string
}

// Inquiry is the status-inquiry document (interface 2.9), also the answer of a
// refund. Numbers are int64, and the text NA becomes zero or the empty string. Raw
// holds the bytes received (at most the first MaxRaw when unverified); Verified
// reports whether their x-verify matched.
type Inquiry struct {
	MerchantData    InquiryMerchant `json:"merchant_data"`
	OrderData       InquiryOrder    `json:"order_data"`
	PaymentInfoData InquiryPayment  `json:"payment_info_data"`
	Raw             []byte          `json:"-"`
	Verified        bool            `json:"-"`
}

// InquiryMerchant is the merchant_data of an inquiry; OrderID is the merchant's
// order id.
type InquiryMerchant struct {
	MerchantID int64  `json:"merchant_id"`
	OrderID    string `json:"order_id"`
}

// InquiryOrder is the order_data of an inquiry.
type InquiryOrder struct {
	OrderStatus    string `json:"order_status"`
	ServiceOrderID int64  `json:"service_order_id"`
	Amount         int64  `json:"amount"`
	OrderDesc      string `json:"order_desc"`
	RefundAmount   int64  `json:"refund_amount"`
}

// InquiryPayment is the payment_info_data of an inquiry. RefundID is present in the
// answer of a refund.
type InquiryPayment struct {
	AcquirerName              string `json:"acquirer_name"`
	AuthCode                  string `json:"auth_code"`
	CapturedAmountInPaisa     int64  `json:"captured_amount_in_paisa"`
	CardHolderName            string `json:"card_holder_name"`
	MaskedCardNumber          string `json:"masked_card_number"`
	MerchantReturnURL         string `json:"merchant_return_url"`
	MobileNo                  string `json:"mobile_no"`
	PaymentCompletionDateTime string `json:"payment_completion_date_time"`
	PaymentID                 string `json:"payment_id"`
	PaymentStatus             string `json:"payment_status"`
	PaymentResponseCode       int64  `json:"payment_response_code"`
	PaymentResponseMessage    string `json:"payment_response_message"`
	ProductCode               string `json:"product_code"`
	RRN                       string `json:"rrn"`
	RefundAmountInPaisa       int64  `json:"refund_amount_in_paisa"`
	SaltedCardHash            string `json:"salted_card_hash"`
	UDFField1                 string `json:"udf_field_1"`
	UDFField2                 string `json:"udf_field_2"`
	UDFField3                 string `json:"udf_field_3"`
	UDFField4                 string `json:"udf_field_4"`
	PaymentMode               string `json:"payment_mode"`
	IssuerName                string `json:"issuer_name"`
	GatewayPaymentID          string `json:"gateway_payment_id"`
	RefundID                  string `json:"refund_id"`
}

// ServiceOrderID returns the service order id of the inquiry as text ("" when the
// answer carried none).
func (q *Inquiry) ServiceOrderID() string {
	if q == nil || q.OrderData.ServiceOrderID == 0 {
		return ""
	}
	return strconv.FormatInt(q.OrderData.ServiceOrderID, 10)
}

// Charged reports whether the inquiry is verified and says the order is CHARGED
// with its payment CAPTURED. An unverified answer is never a success.
func (q *Inquiry) Charged() bool {
	return q != nil && q.Verified && q.OrderData.OrderStatus == OrderCharged &&
		q.PaymentInfoData.PaymentStatus == PaymentCaptured
}

// Failed reports whether the inquiry is verified and says the payment failed. An
// unverified answer is never a failure.
func (q *Inquiry) Failed() bool {
	return q != nil && q.Verified && (q.PaymentInfoData.PaymentStatus == PaymentFailed ||
		q.OrderData.OrderStatus == OrderFailed)
}

// CompletedAt parses payment_completion_date_time (ISO 8601 UTC with milliseconds).
// It reports false when the value is NA or cannot be read.
func (q *Inquiry) CompletedAt() (time.Time, bool) {
	if q == nil || q.PaymentInfoData.PaymentCompletionDateTime == "" {
		return time.Time{}, false
	}
	t, err := time.Parse(time.RFC3339Nano, q.PaymentInfoData.PaymentCompletionDateTime)
	if err != nil {
		return time.Time{}, false
	}
	return t, true
}
