package gateway

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"time"
)

// Paths of the service's endpoints (interface section 4, contract sections 5 and 7).
const (
	PathCreateOrder      = "/api/v1/order/create"
	PathCardPayment      = "/api/v1/card/process/payment"
	PathEMIPayment       = "/api/v1/emi/process/payment"
	PathEMICalculator    = "/api/v1/emi/calculator"
	PathSchemeValidation = "/api/v1/emi/scheme/validation"
	PathIMEIValidation   = "/api/v1/emi/imei/validation"
	PathInquiry          = "/api/v1/inquiry/order/"
	PathRefund           = "/api/v1/refunds/payment/refund"
)

// orderJSON is the inner JSON of create order (interface 2.1).
type orderJSON struct {
	MerchantData struct {
		MerchantID         string `json:"merchant_id"`
		MerchantAccessCode string `json:"merchant_access_code"`
		MerchantReturnURL  string `json:"merchant_return_url"`
		MerchantOrderID    string `json:"merchant_order_id"`
	} `json:"merchant_data"`
	PaymentInfoData struct {
		Amount       int64  `json:"amount"`
		CurrencyCode string `json:"currency_code"`
		OrderDesc    string `json:"order_desc,omitempty"`
	} `json:"payment_info_data"`
	CustomerData        *orderCustomerJSON `json:"customer_data,omitempty"`
	BillingAddressData  *Address           `json:"billing_address_data,omitempty"`
	ShippingAddressData *Address           `json:"shipping_address_data,omitempty"`
	ProductInfoData     *productInfoJSON   `json:"product_info_data,omitempty"`
	AdditionalInfoData  *additionalJSON    `json:"additional_info_data,omitempty"`
}

type orderCustomerJSON struct {
	CountryCode  string `json:"country_code,omitempty"`
	MobileNumber string `json:"mobile_number,omitempty"`
	EmailID      string `json:"email_id,omitempty"`
}

type productInfoJSON struct {
	ProductDetails []ProductAmount `json:"product_details"`
}

type additionalJSON struct {
	RFU1 string `json:"rfu1"`
}

// CreateOrder creates an order (contract section 3). The order JSON is
// base64-encoded and signed once; a retry (transport error, 5xx, 429) resends the
// identical body and x-verify. An error matching ErrDuplicateOrder means the
// merchant order id exists already; one matching ErrOutcomeUnknown means an order
// may have been created whose answer was lost.
func (c *Client) CreateOrder(ctx context.Context, o *Order) (*CreateOrderResponse, error) {
	const op = "create order"
	if o == nil || o.MerchantOrderID == "" {
		return nil, fmt.Errorf("gateway: %s: %w: the order and its merchant order id are required", op, ErrInvalidInput)
	}
	var in orderJSON
	in.MerchantData.MerchantID = c.merchantID
	in.MerchantData.MerchantAccessCode = c.accessCode
	in.MerchantData.MerchantReturnURL = firstNonEmpty(o.ReturnURL, c.returnURL)
	in.MerchantData.MerchantOrderID = o.MerchantOrderID
	in.PaymentInfoData.Amount = o.Amount
	in.PaymentInfoData.CurrencyCode = firstNonEmpty(o.CurrencyCode, DefaultCurrency)
	in.PaymentInfoData.OrderDesc = o.Description
	if cu := o.Customer; cu.CountryCode != "" || cu.Mobile != "" || cu.Email != "" {
		in.CustomerData = &orderCustomerJSON{CountryCode: cu.CountryCode, MobileNumber: cu.Mobile, EmailID: cu.Email}
	}
	in.BillingAddressData = o.Billing
	in.ShippingAddressData = o.Shipping
	if len(o.Products) > 0 {
		in.ProductInfoData = &productInfoJSON{ProductDetails: o.Products}
	}
	if o.RFU1 != "" {
		in.AdditionalInfoData = &additionalJSON{RFU1: o.RFU1}
	}
	inner, err := json.Marshal(in)
	if err != nil {
		return nil, fmt.Errorf("gateway: %s: %w", op, err)
	}
	b, sig := c.signedBody(inner)
	clear(inner) // it holds the access code
	defer b.wipe()
	r := &request{op: op, method: http.MethodPost, path: PathCreateOrder, body: b,
		header: http.Header{"X-Verify": {sig}}, class: retrySameBytes, moneyMoving: true}
	var out CreateOrderResponse
	err = c.send(ctx, r, func(a *answer) error {
		if err := decodeLenient(a.body, &out); err != nil {
			return fmt.Errorf("%w: %w", ErrMalformed, err)
		}
		if out.Token == "" || out.ServiceOrderID == "" {
			return fmt.Errorf("%w: the answer lacks the token or the service order id", ErrMalformed)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return &out, nil
}

// CardPayment sends a seamless card payment (contract section 4) for the order
// token from CreateOrder, passed on verbatim. It is never re-sent: when the request
// may have reached the service and no usable answer came back, the error matches
// ErrOutcomeUnknown and the caller inquires. A success means the attempt was
// accepted; the customer then authenticates (SubmitAuthentication or a browser)
// and the outcome comes from the status inquiry. The card is not zeroed here.
func (c *Client) CardPayment(ctx context.Context, token string, card *Card, cust Customer) (*PaymentResponse, error) {
	const op = "card payment"
	q, err := tokenQuery(token)
	if err != nil {
		return nil, fmt.Errorf("gateway: %s: %w", op, err)
	}
	if err := cardDigits(card); err != nil {
		return nil, fmt.Errorf("gateway: %s: %w", op, err)
	}
	w := newJSONWriter(len(card.number)+len(card.cvv), card.Holder, card.ExpiryYear, card.ExpiryMonth, cust.CountryCode, cust.Mobile, cust.Email)
	w.raw(`{"card_data":{"card_number":"`)
	w.bytes(card.number)
	w.raw(`","cvv":"`)
	w.bytes(card.cvv)
	w.raw(`","card_holder_name":`)
	w.str(card.Holder)
	w.raw(`,"card_expiry_year":`)
	w.str(card.ExpiryYear)
	w.raw(`,"card_expiry_month":`)
	w.str(card.ExpiryMonth)
	w.raw(`},"customer_data":{"country_code":`)
	w.str(cust.CountryCode)
	w.raw(`,"mobile_no":`)
	w.str(cust.Mobile)
	w.raw(`,"email_id":`)
	w.str(cust.Email)
	w.raw(`}}`)
	return c.payment(ctx, op, PathCardPayment+q, newBody(w.b), CodeSuccess)
}

// EMIPaymentRequest is what an EMI payment sends: the order's token, the card, the
// customer, the tenure chosen from EMICalculator's answer and its acquirer id.
type EMIPaymentRequest struct {
	Token      string
	Card       *Card
	Customer   Customer
	Tenure     EMITenure
	AcquirerID int64
}

// EMIPayment sends an EMI payment (contract section 5). Like CardPayment it is
// never re-sent and a lost answer matches ErrOutcomeUnknown. Brand offers whose
// brand makes IMEI mandatory need ValidateIMEI first (else ErrIMEIRequired).
func (c *Client) EMIPayment(ctx context.Context, r EMIPaymentRequest) (*PaymentResponse, error) {
	const op = "EMI payment"
	token, card, cust, emi, acquirerID := r.Token, r.Card, r.Customer, r.Tenure, r.AcquirerID
	q, err := tokenQuery(token)
	if err != nil {
		return nil, fmt.Errorf("gateway: %s: %w", op, err)
	}
	if err := cardDigits(card); err != nil {
		return nil, fmt.Errorf("gateway: %s: %w", op, err)
	}
	emiJSON, err := json.Marshal(emi)
	if err != nil {
		return nil, fmt.Errorf("gateway: %s: %w", op, err)
	}
	w := newJSONWriter(len(emiJSON)+len(card.number)+len(card.cvv), card.Holder, card.ExpiryYear, card.ExpiryMonth, cust.CountryCode, cust.Mobile, cust.Email, cust.Token)
	w.raw(`{"merchant_data":{"merchant_id":`)
	w.raw(strconv.FormatInt(c.merchantNo, 10))
	w.raw(`},"card_data":{"card_number":"`)
	w.bytes(card.number)
	w.raw(`","card_expiry_year":`)
	w.str(card.ExpiryYear)
	w.raw(`,"card_expiry_month":`)
	w.str(card.ExpiryMonth)
	w.raw(`,"card_holder_name":`)
	w.str(card.Holder)
	w.raw(`,"cvv":"`)
	w.bytes(card.cvv)
	w.raw(`","is_card_to_be_saved":false},"customer_data":{"country_code":`)
	w.str(cust.CountryCode)
	w.raw(`,"mobile_number":`)
	w.str(cust.Mobile)
	w.raw(`,"email_id":`)
	w.str(cust.Email)
	w.raw(`,"customer_token":`)
	w.str(cust.Token)
	w.raw(`},"emi_data":`)
	w.raw(string(emiJSON))
	w.raw(`,"acquirer_data":{"acquirerId":`)
	w.raw(strconv.FormatInt(acquirerID, 10))
	w.raw(`}}`)
	return c.payment(ctx, op, PathEMIPayment+q, newBody(w.b), CodeEMISuccess)
}

// payment sends a card or EMI payment body once and reads its answer. The body,
// which holds card data, is wiped when the call is over.
func (c *Client) payment(ctx context.Context, op, path string, b *body, okCode int) (*PaymentResponse, error) {
	defer b.wipe()
	r := &request{op: op, method: http.MethodPost, path: path, body: b,
		header: http.Header{"Checkoutmode": {"SEAMLESS"}}, class: retryNever, moneyMoving: true}
	var out PaymentResponse
	err := c.send(ctx, r, func(a *answer) error {
		return decodeCoded(a, &out, &out.ResponseCode, &out.ResponseMessage, okCode, CodeSuccess)
	})
	if err != nil {
		return nil, err
	}
	return &out, nil
}

// decodeCoded reads a 2xx answer that carries response_code: malformed bodies give
// ErrMalformed, a code other than the success codes gives *Error with the HTTP
// status of the answer.
func decodeCoded(a *answer, v any, code *int, msg *string, okCodes ...int) error {
	if err := decodeLenient(a.body, v); err != nil {
		return fmt.Errorf("%w: %w", ErrMalformed, err)
	}
	if rc, ok := memberText(a.body, "response_code"); !ok || rc == "" {
		if ec := decodeError(a.status, a.header, a.body, time.Time{}); ec.Code != "" {
			return ec // an error_code envelope with a 2xx status
		}
		return fmt.Errorf("%w: the answer has no response_code", ErrMalformed)
	}
	for _, ok := range okCodes {
		if *code == ok {
			return nil
		}
	}
	return &Error{HTTPStatus: a.status, Code: strconv.Itoa(*code), Message: *msg, Raw: capRaw(a.body)}
}

// EMICalculator asks for the EMI offers for an amount and its products (contract
// section 5). Amounts under ₹3,000 get no offer: an answer with no issuers.
func (c *Client) EMICalculator(ctx context.Context, amount int64, products []ProductAmount) (*EMIOffers, error) {
	const op = "EMI calculator"
	in := struct {
		MerchantData   merchantNoJSON  `json:"merchant_data"`
		PaymentData    paymentDataJSON `json:"payment_data"`
		ProductDetails []ProductAmount `json:"product_details"`
	}{merchantNoJSON{c.merchantNo}, paymentDataJSON{amount}, products}
	if in.ProductDetails == nil {
		in.ProductDetails = []ProductAmount{}
	}
	raw, err := json.Marshal(in)
	if err != nil {
		return nil, fmt.Errorf("gateway: %s: %w", op, err)
	}
	r := &request{op: op, method: http.MethodPost, path: PathEMICalculator, body: newBody(raw), class: retryIdempotent}
	var out *EMIOffers
	err = c.send(ctx, r, func(a *answer) error {
		o, err := decodeEMIOffers(a)
		out = o
		return err
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// emiOffersJSON is the calculator's answer as sent.
type emiOffersJSON struct {
	Issuers      []EMIIssuer `json:"issuer"`
	AcquirerData struct {
		AcquirerID int64 `json:"acquirerId"`
	} `json:"acquirer_data"`
	ResponseCode    int    `json:"response_code"`
	ResponseMessage string `json:"response_message"`
}

func decodeEMIOffers(a *answer) (*EMIOffers, error) {
	var in emiOffersJSON
	if err := decodeCoded(a, &in, &in.ResponseCode, &in.ResponseMessage, CodeSuccess); err != nil {
		return nil, err
	}
	return &EMIOffers{Issuers: in.Issuers, AcquirerID: in.AcquirerData.AcquirerID,
		ResponseCode: in.ResponseCode, ResponseMessage: in.ResponseMessage}, nil
}

type merchantNoJSON struct {
	MerchantID int64 `json:"merchant_id"`
}

type paymentDataJSON struct {
	AmountInPaisa int64 `json:"amount_in_paisa"`
}

// ValidateScheme checks that the chosen EMI tenure applies to the card (contract
// section 5). It returns nil when it does, and errors matching
// ErrOfferNotApplicable (14826), ErrOfferOutdated (14819) or ErrInvalidRequest.
func (c *Client) ValidateScheme(ctx context.Context, amount int64, card *Card, emi EMITenure, acquirerID int64) error {
	const op = "scheme validation"
	if err := cardDigits(card); err != nil {
		return fmt.Errorf("gateway: %s: %w", op, err)
	}
	emiJSON, err := json.Marshal(emi)
	if err != nil {
		return fmt.Errorf("gateway: %s: %w", op, err)
	}
	w := newJSONWriter(len(emiJSON) + len(card.number))
	w.raw(`{"merchant_data":{"merchant_id":`)
	w.raw(strconv.FormatInt(c.merchantNo, 10))
	w.raw(`},"payment_data":{"amount_in_paisa":`)
	w.raw(strconv.FormatInt(amount, 10))
	w.raw(`},"card_data":{"card_number":"`)
	w.bytes(card.number)
	w.raw(`"},"emi_data":`)
	w.raw(string(emiJSON))
	w.raw(`,"acquirer_data":{"acquirerId":`)
	w.raw(strconv.FormatInt(acquirerID, 10))
	w.raw(`}}`)
	b := newBody(w.b)
	defer b.wipe()
	r := &request{op: op, method: http.MethodPost, path: PathSchemeValidation, body: b, class: retryIdempotent}
	return c.send(ctx, r, func(a *answer) error {
		var out struct {
			ResponseCode    int    `json:"response_code"`
			ResponseMessage string `json:"response_message"`
		}
		return decodeCoded(a, &out, &out.ResponseCode, &out.ResponseMessage, CodeSuccess)
	})
}

// ValidateIMEI validates the IMEIs of brand-EMI products for the order of token
// (contract section 5). When an item fails, the result comes with an error matching
// ErrIMEIRejected; each item's Status says why (CodeInvalidIMEI, CodeIMEINotBrand,
// CodeIMEIBlocked).
func (c *Client) ValidateIMEI(ctx context.Context, token string, items []IMEIItem) (*IMEIResult, error) {
	const op = "IMEI validation"
	q, err := tokenQuery(token)
	if err != nil {
		return nil, fmt.Errorf("gateway: %s: %w", op, err)
	}
	if len(items) == 0 {
		return nil, fmt.Errorf("gateway: %s: %w: no item to validate", op, ErrInvalidInput)
	}
	in := struct {
		MerchantData merchantNoJSON `json:"merchant_data"`
		Items        []IMEIItem     `json:"product_imei_details"`
	}{merchantNoJSON{c.merchantNo}, items}
	raw, err := json.Marshal(in)
	if err != nil {
		return nil, fmt.Errorf("gateway: %s: %w", op, err)
	}
	r := &request{op: op, method: http.MethodPost, path: PathIMEIValidation + q, body: newBody(raw), class: retryIdempotent}
	var out *IMEIResult
	err = c.send(ctx, r, func(a *answer) error {
		res, err := decodeIMEIResult(a.body)
		if err != nil {
			return err
		}
		out = res
		return nil
	})
	if err != nil {
		return nil, err
	}
	if !out.OK() {
		return out, fmt.Errorf("gateway: %s: %w: %s", op, ErrIMEIRejected, cleanText(out.ResponseMessage, 100))
	}
	return out, nil
}

func decodeIMEIResult(data []byte) (*IMEIResult, error) {
	var probe struct {
		ResponseCode *string `json:"response_code"`
	}
	if err := decodeLenient(data, &probe); err != nil {
		return nil, fmt.Errorf("%w: %w", ErrMalformed, err)
	}
	if probe.ResponseCode == nil || *probe.ResponseCode == "" {
		return nil, fmt.Errorf("%w: the answer has no response_code", ErrMalformed)
	}
	var out IMEIResult
	if err := decodeLenient(data, &out); err != nil {
		return nil, fmt.Errorf("%w: %w", ErrMalformed, err)
	}
	return &out, nil
}

// InquireOrder reads the order with its latest payment (contract section 6). The
// answer's x-verify is checked over the raw bytes received: when it is missing or
// wrong, the decoded answer comes back with Verified false together with an error
// matching ErrSignature; such an answer is neither success nor failure. The answer
// must name this merchant and this service order (else ErrAnswerMismatch, retried
// like a malformed answer).
func (c *Client) InquireOrder(ctx context.Context, serviceOrderID string) (*Inquiry, error) {
	const op = "inquire order"
	id, err := pathID("service order id", serviceOrderID)
	if err != nil {
		return nil, fmt.Errorf("gateway: %s: %w", op, err)
	}
	return c.inquire(ctx, op, PathInquiry+id, binding{orderID: id})
}

// InquirePayment reads one payment of an order (contract section 6), verified like
// InquireOrder. The answer must also name this payment.
func (c *Client) InquirePayment(ctx context.Context, serviceOrderID, paymentID string) (*Inquiry, error) {
	const op = "inquire payment"
	id, err := pathID("service order id", serviceOrderID)
	if err != nil {
		return nil, fmt.Errorf("gateway: %s: %w", op, err)
	}
	pid, err := pathID("payment id", paymentID)
	if err != nil {
		return nil, fmt.Errorf("gateway: %s: %w", op, err)
	}
	return c.inquire(ctx, op, PathInquiry+id+"/payment/"+pid, binding{orderID: id, paymentID: pid})
}

func (c *Client) inquire(ctx context.Context, op, path string, want binding) (*Inquiry, error) {
	r := &request{op: op, method: http.MethodGet, path: path, basicAuth: true, class: retryIdempotent}
	var out *Inquiry
	var sigErr error
	err := c.send(ctx, r, func(a *answer) error {
		q, serr, err := c.decodeInquiry(a, want)
		if err != nil {
			// An answer about something else is retried like a malformed one.
			return fmt.Errorf("%w: %w", ErrMalformed, err)
		}
		out, sigErr = q, serr
		return nil
	})
	if err != nil {
		return nil, err
	}
	if sigErr != nil {
		return out, fmt.Errorf("gateway: %s: %w", op, sigErr)
	}
	return out, nil
}

// binding is what an inquiry or refund answer must say to be about its request
// (DESIGN.md section 5). Empty fields and a zero amount are not checked.
type binding struct {
	orderID         string // service order id, always required
	paymentID       string // payment id
	merchantOrderID string // the merchant's order id (merchant_data.order_id)
	refund          bool   // a refund answer: it must carry a refund id
	refundAmount    int64  // a refund's amount: the payment's refunded total covers it
}

// check reports how q fails to be about the request, with an error matching
// ErrAnswerMismatch, or nil. An id the answer lacks (absent, empty or NA) fails as
// much as a different one: an answer that does not name the request cannot be
// tied to it.
func (want binding) check(q *Inquiry, merchantNo int64) error {
	mismatch := func(what, got, wanted string) error {
		if got == "" {
			return fmt.Errorf("%w: the answer names no %s (want %s)", ErrAnswerMismatch, what, cleanText(wanted, 40))
		}
		return fmt.Errorf("%w: the answer names %s %s, not %s", ErrAnswerMismatch, what, cleanText(got, 40), cleanText(wanted, 40))
	}
	var merchant string
	if q.MerchantData.MerchantID != 0 {
		merchant = strconv.FormatInt(q.MerchantData.MerchantID, 10)
	}
	if ours := strconv.FormatInt(merchantNo, 10); merchant != ours {
		return mismatch("merchant", merchant, ours)
	}
	if got := q.ServiceOrderID(); got == "" || got != want.orderID {
		return mismatch("service order", got, want.orderID)
	}
	if want.paymentID != "" && q.PaymentInfoData.PaymentID != want.paymentID {
		return mismatch("payment", q.PaymentInfoData.PaymentID, want.paymentID)
	}
	if want.merchantOrderID != "" && q.MerchantData.OrderID != want.merchantOrderID {
		return mismatch("merchant order", q.MerchantData.OrderID, want.merchantOrderID)
	}
	if !want.refund {
		return nil
	}
	if q.PaymentInfoData.RefundID == "" {
		return fmt.Errorf("%w: the answer names no refund id", ErrAnswerMismatch)
	}
	// The answer is the payment after the refund: its refunded total includes this
	// refund and cannot exceed what was captured.
	refunded, captured := q.PaymentInfoData.RefundAmountInPaisa, q.PaymentInfoData.CapturedAmountInPaisa
	if refunded < want.refundAmount {
		return fmt.Errorf("%w: the answer shows %d paise refunded, less than the refund of %d", ErrAnswerMismatch, refunded, want.refundAmount)
	}
	if captured > 0 && refunded > captured {
		return fmt.Errorf("%w: the answer shows %d paise refunded of %d captured", ErrAnswerMismatch, refunded, captured)
	}
	return nil
}

// decodeInquiry reads an inquiry or refund answer and checks that it is bound to
// the request. A decoding error matches ErrMalformed and an unbound answer
// ErrAnswerMismatch; a signature error is returned apart, with the answer, whose
// Raw then keeps at most MaxRaw bytes.
func (c *Client) decodeInquiry(a *answer, want binding) (q *Inquiry, sigErr, err error) {
	q, err = decodeInquiry(a.body)
	if err != nil {
		return nil, nil, err
	}
	if err := want.check(q, c.merchantNo); err != nil {
		return nil, nil, err
	}
	sigErr = c.verify(a)
	q.Verified = sigErr == nil
	if !q.Verified {
		q.Raw = capRaw(q.Raw)
	}
	return q, sigErr, nil
}

// decodeInquiry reads an inquiry document leniently; Raw keeps the bytes.
func decodeInquiry(data []byte) (*Inquiry, error) {
	var q Inquiry
	if err := decodeLenient(data, &q); err != nil {
		return nil, fmt.Errorf("%w: %w", ErrMalformed, err)
	}
	if !hasMember(data, "order_data") {
		return nil, fmt.Errorf("%w: the answer has no order_data", ErrMalformed)
	}
	q.Raw = append([]byte(nil), data...)
	return &q, nil
}

// Refund refunds all or part of a captured payment (contract section 7). It is
// signed like create order, sent with Basic auth, and retried on transport errors,
// 5xx and 429 with the same bytes and UniqueTxnID.
//
// The answer counts only when it is verified and bound to the request: it names
// this merchant, service order and payment (and the merchant order, when
// RefundRequest.MerchantOrderID is set), carries a refund id, and shows a refunded
// total of at least the refund's amount and at most the captured amount. Otherwise
// the outcome is unknown: an unbound answer gives an error matching
// ErrOutcomeUnknown and ErrAnswerMismatch, an unverified one an error matching
// ErrOutcomeUnknown and ErrSignature with the unverified answer returned. An error
// answer counts as a refusal only when its x-verify is valid; an unverified one
// matches ErrOutcomeUnknown and ErrSignature besides its code's sentinel. An error
// matching ErrDuplicateRefund alone means that refund was applied already. After
// ErrOutcomeUnknown the caller inquires the order.
func (c *Client) Refund(ctx context.Context, rr RefundRequest) (*Inquiry, error) {
	const op = "refund"
	oid, err := pathID("service order id", rr.ServiceOrderID)
	if err != nil {
		return nil, fmt.Errorf("gateway: %s: %w", op, err)
	}
	pid, err := pathID("payment id", rr.PaymentID)
	if err != nil {
		return nil, fmt.Errorf("gateway: %s: %w", op, err)
	}
	if rr.UniqueTxnID == "" {
		return nil, fmt.Errorf("gateway: %s: %w: the refund needs a unique transaction id", op, ErrInvalidInput)
	}
	on, _ := strconv.ParseInt(oid, 10, 64)
	pn, _ := strconv.ParseInt(pid, 10, 64)
	inner, err := json.Marshal(struct {
		UniqueTxnID   string `json:"unique_txn_id"`
		AmountInPaise int64  `json:"amount_in_paise"`
		MerchantID    int64  `json:"merchant_id"`
		OrderID       int64  `json:"order_id"`
		PaymentID     int64  `json:"payment_id"`
	}{rr.UniqueTxnID, rr.AmountInPaise, c.merchantNo, on, pn})
	if err != nil {
		return nil, fmt.Errorf("gateway: %s: %w", op, err)
	}
	b, sig := c.signedBody(inner)
	r := &request{op: op, method: http.MethodPost, path: PathRefund, body: b, basicAuth: true,
		header: http.Header{"X-Verify": {sig}}, class: retrySameBytes, moneyMoving: true, signedAnswers: true}
	want := binding{orderID: oid, paymentID: pid, merchantOrderID: rr.MerchantOrderID, refund: true, refundAmount: rr.AmountInPaise}
	var out *Inquiry
	var sigErr error
	err = c.send(ctx, r, func(a *answer) error {
		q, serr, err := c.decodeInquiry(a, want)
		if errors.Is(err, ErrAnswerMismatch) {
			return fmt.Errorf("%w: %w", ErrOutcomeUnknown, err)
		}
		if err != nil {
			return err
		}
		out, sigErr = q, serr
		return nil
	})
	if err != nil {
		return nil, err
	}
	if sigErr != nil {
		return out, fmt.Errorf("gateway: %s: %w: %w", op, ErrOutcomeUnknown, sigErr)
	}
	return out, nil
}

// cardDigits checks that the card's number and CVV are digits, which the payment
// bodies write without escaping. Card.Check does the full validation.
func cardDigits(card *Card) error {
	if card == nil {
		return fmt.Errorf("%w: no card was given", ErrInvalidCard)
	}
	if !allDigits(card.number) {
		return fmt.Errorf("%w: the card number must hold digits only", ErrInvalidCard)
	}
	if len(card.cvv) > 0 && !allDigits(card.cvv) {
		return fmt.Errorf("%w: the CVV must hold digits only", ErrInvalidCard)
	}
	return nil
}

// jsonWriter builds a JSON body by hand so that card digits are copied only into
// a buffer the client owns and wipes, never into encoding/json's pooled buffers.
type jsonWriter struct{ b []byte }

// newJSONWriter makes a writer whose buffer is large enough for the fixed text, the
// card data, extra bytes and the given strings escaped, so that it never grows
// (growing would leave a copy of the card digits behind in the old buffer).
func newJSONWriter(extra int, strs ...string) *jsonWriter {
	n := 1024 + extra
	for _, s := range strs {
		n += 6*len(s) + 2
	}
	return &jsonWriter{b: make([]byte, 0, n)}
}

func (w *jsonWriter) raw(s string)   { w.b = append(w.b, s...) }
func (w *jsonWriter) bytes(p []byte) { w.b = append(w.b, p...) }
func (w *jsonWriter) str(s string) {
	q, err := json.Marshal(s) // a string always marshals
	if err != nil {
		q = []byte(`""`)
	}
	w.b = append(w.b, q...)
}
