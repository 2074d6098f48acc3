package sandbox

import (
	"bytes"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"html/template"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"galla/gateway"
)

// Payment statuses (contract section 6).
const (
	statusPending         = "PENDING"
	statusCaptured        = "CAPTURED"
	statusFailed          = "FAILED"
	statusPartialRefunded = "PARTIALLY_REFUNDED"
	statusRefunded        = "REFUNDED"
	orderCreated          = "ORDER_CREATED"
	orderAttempted        = "ORDER_ATTEMPTED"
	orderPending          = "PENDING"
	orderCharged          = "CHARGED"
	orderFailed           = "FAILED"
	orderPartialRefunded  = "PARTIAL_REFUNDED"
	orderRefunded         = "REFUNDED"
	stageAuth             = 1 // waiting for the authentication step (OTP)
	stageIssuer           = 2 // authenticated, waiting for the issuer
	stageDone             = 3
	paymentModeCard       = "CREDIT_DEBIT"
	paymentModeEMI        = "EMI"
	paymentModeDebitEMI   = "DEBIT_EMI"
	paymentModeUPI        = "UPI"
	paymentModeNetBanking = "NETBANKING"
	paymentModeWallet     = "WALLET"
	isoMillis             = "2006-01-02T15:04:05.000Z"
	msgSuccess            = "SUCCESS"
	codeAuthFailed        = 1020
	msgAuthFailed         = "Authentication failed: wrong OTP"
	codeCancelled         = 1021
	msgCancelled          = "Cancelled by user"
	codeAlreadyPaid       = 1022
	msgAlreadyPaid        = "Order already paid by another payment"
	codeAuthTimeout       = 1023
	msgAuthTimeout        = "Authentication not completed before the order token expired"
	maxReturnURL          = 500
	maxMerchantOrderIDLen = 200
	minAmount             = 100
	maxAmount             = 100000000000
)

type customer struct {
	CountryCode string
	Mobile      string
	Email       string
}

type product struct {
	Code   string
	Amount int64
}

type order struct {
	m               *merchant
	id              string
	merchantOrderID string
	token           string // raw; sent URL-encoded
	created         time.Time
	amount          int64
	currency        string
	desc            string
	returnURL       string
	cust            customer
	products        []product
	payments        []*payment
	refunded        int64
	expired         bool
	imeiOK          map[string]map[string]bool // product code -> IMEIs validated for this order
	imeis           []string
	dirty           bool              // touched since the last save (see touch)
	savedSum        [sha256.Size]byte // SHA-256 of the order's line last written to the state file
}

type payment struct {
	id        string
	o         *order
	amount    int64
	mode      string
	status    string
	stage     int
	outcome   cardOutcome
	captured  bool
	last4     string
	holder    string
	issuer    string
	mobile    string
	created   time.Time
	completed time.Time
	captureAt time.Time
	code      int
	message   string
	authCode  string
	rrn       string
	refunded  int64
	hosted    bool // made through the hosted checkout page
}

// captured returns the order's captured payment, or nil.
func (o *order) capturedPayment() *payment {
	for _, p := range o.payments {
		if p.captured {
			return p
		}
	}
	return nil
}

// status derives the order status of contract section 6.
func (o *order) status() string {
	cp := o.capturedPayment()
	switch {
	case cp != nil && o.refunded > 0 && o.refunded >= cp.amount:
		return orderRefunded
	case cp != nil && o.refunded > 0:
		return orderPartialRefunded
	case cp != nil:
		return orderCharged
	}
	failed := 0
	for _, p := range o.payments {
		if p.stage == stageIssuer {
			return orderPending
		}
		if p.status == statusFailed {
			failed++
		}
	}
	switch {
	case o.expired:
		return orderFailed
	case failed >= MaxAttempts:
		return orderFailed
	case len(o.payments) > 0:
		return orderAttempted
	}
	return orderCreated
}

// settle applies what time has done to o: the pending card's capture after its
// hold, and token expiry. The caller holds s.mu.
func (s *Sandbox) settle(o *order) {
	s.touch(o)
	now := s.now()
	for _, p := range o.payments {
		if p.stage == stageIssuer && !now.Before(p.captureAt) {
			s.capture(p, p.captureAt)
		}
	}
	if o.capturedPayment() == nil && !now.Before(o.created.Add(TokenLifetime)) {
		for _, p := range o.payments {
			if p.stage == stageAuth {
				s.fail(p, codeAuthTimeout, msgAuthTimeout, o.created.Add(TokenLifetime))
			}
		}
		pendingIssuer := false
		for _, p := range o.payments {
			pendingIssuer = pendingIssuer || p.stage == stageIssuer
		}
		if !pendingIssuer {
			o.expired = true
		}
	}
}

// capture completes p successfully unless its order is paid already, in which
// case p fails: an order never has two captured payments.
func (s *Sandbox) capture(p *payment, at time.Time) {
	if p.o.capturedPayment() != nil {
		s.fail(p, codeAlreadyPaid, msgAlreadyPaid, at)
		return
	}
	p.captured, p.status, p.stage = true, statusCaptured, stageDone
	p.code, p.message, p.completed = 1, msgSuccess, at
	p.authCode, p.rrn = s.ids.NewID(IDAuthCode), s.ids.NewID(IDRRN)
}

func (s *Sandbox) fail(p *payment, code int, msg string, at time.Time) {
	p.status, p.stage, p.code, p.message, p.completed = statusFailed, stageDone, code, msg, at
}

// ---- create order ----

type signedBody struct {
	Request *string `json:"request"`
}

type address struct {
	FirstName string `json:"first_name"`
	LastName  string `json:"last_name"`
	Address1  string `json:"address1"`
	Address2  string `json:"address2"`
	Address3  string `json:"address3"`
	PinCode   string `json:"pin_code"`
	City      string `json:"city"`
	State     string `json:"state"`
	Country   string `json:"country"`
}

func (a *address) valid() bool {
	if a == nil {
		return true
	}
	return maxLen(a.FirstName, 50) && maxLen(a.LastName, 50) && maxLen(a.Address1, 200) &&
		maxLen(a.Address2, 200) && maxLen(a.Address3, 200) && maxLen(a.PinCode, 50) &&
		maxLen(a.City, 50) && maxLen(a.State, 50) && maxLen(a.Country, 50)
}

type orderJSON struct {
	MerchantData struct {
		MerchantID         *string `json:"merchant_id"`
		MerchantAccessCode string  `json:"merchant_access_code"`
		MerchantReturnURL  string  `json:"merchant_return_url"`
		MerchantOrderID    string  `json:"merchant_order_id"`
	} `json:"merchant_data"`
	PaymentInfoData struct {
		Amount       *int64 `json:"amount"`
		CurrencyCode string `json:"currency_code"`
		OrderDesc    string `json:"order_desc"`
	} `json:"payment_info_data"`
	CustomerData struct {
		CountryCode  string `json:"country_code"`
		MobileNumber string `json:"mobile_number"`
		EmailID      string `json:"email_id"`
	} `json:"customer_data"`
	BillingAddressData  *address `json:"billing_address_data"`
	ShippingAddressData *address `json:"shipping_address_data"`
	ProductInfoData     *struct {
		ProductDetails []struct {
			ProductCode   string `json:"product_code"`
			ProductAmount *int64 `json:"product_amount"`
		} `json:"product_details"`
	} `json:"product_info_data"`
	AdditionalInfoData struct {
		RFU1 string `json:"rfu1"`
	} `json:"additional_info_data"`
}

// decodeSigned reads {"request": base64} and the inner JSON into v. It returns the
// base64 text exactly as sent.
func decodeSigned(body []byte, v any) (string, bool) {
	var sb signedBody
	if err := json.Unmarshal(body, &sb); err != nil || sb.Request == nil || *sb.Request == "" {
		return "", false
	}
	inner, err := base64.StdEncoding.DecodeString(*sb.Request)
	if err != nil {
		return "", false
	}
	if err := json.Unmarshal(inner, v); err != nil {
		return "", false
	}
	return *sb.Request, true
}

func (s *Sandbox) createOrder(r *request) *reply {
	s.mu.Lock()
	defer s.mu.Unlock()
	var in orderJSON
	b64text, ok := decodeSigned(r.body, &in)
	if !ok || in.MerchantData.MerchantID == nil {
		return errInvalidCode()
	}
	m := s.merchants[*in.MerchantData.MerchantID]
	if m == nil {
		return errInvalidCode()
	}
	if rep := s.limited(m.ID); rep != nil {
		return rep
	}
	if gateway.Verify(m.key, b64text, r.Header.Get("x-verify")) != nil {
		return errSecureHash()
	}
	md, pd := in.MerchantData, in.PaymentInfoData
	cd := in.CustomerData
	valid := md.MerchantAccessCode == m.AccessCode &&
		validOrderID(md.MerchantOrderID) && validReturnURL(md.MerchantReturnURL) &&
		pd.Amount != nil && *pd.Amount >= minAmount && *pd.Amount <= maxAmount &&
		pd.CurrencyCode == "INR" && maxLen(pd.OrderDesc, 200) &&
		maxLen(cd.MobileNumber, 20) && maxLen(cd.EmailID, 100) && maxLen(cd.CountryCode, 10) &&
		in.BillingAddressData.valid() && in.ShippingAddressData.valid()
	var products []product
	if valid && in.ProductInfoData != nil {
		for _, pdl := range in.ProductInfoData.ProductDetails {
			if pdl.ProductCode == "" || !maxLen(pdl.ProductCode, 50) || pdl.ProductAmount == nil || *pdl.ProductAmount < 0 {
				valid = false
				break
			}
			products = append(products, product{Code: pdl.ProductCode, Amount: *pdl.ProductAmount})
		}
	}
	if !valid {
		return errInvalidCode()
	}
	if len(products) > 0 {
		var sum int64
		for _, p := range products {
			sum += p.Amount
		}
		if sum != *pd.Amount {
			return errAmount()
		}
	}
	key := m.ID + "\x00" + md.MerchantOrderID
	if s.orderIDs[key] {
		return errDuplicate()
	}
	o := &order{
		m: m, merchantOrderID: md.MerchantOrderID, created: s.now(), amount: *pd.Amount,
		currency: pd.CurrencyCode, desc: pd.OrderDesc, returnURL: md.MerchantReturnURL,
		cust:     customer{CountryCode: cd.CountryCode, Mobile: cd.MobileNumber, Email: cd.EmailID},
		products: products, imeiOK: map[string]map[string]bool{},
	}
	for {
		o.id = s.ids.NewID(IDOrder)
		if s.orders[o.id] == nil {
			break
		}
	}
	for {
		o.token = s.ids.NewID(IDToken)
		if s.byToken[o.token] == nil {
			break
		}
	}
	s.orderIDs[key] = true
	s.orders[o.id] = o
	s.byToken[o.token] = o
	s.seq = append(s.seq, o.id)
	s.touch(o)
	return jsonReply(200, map[string]string{"token": url.QueryEscape(o.token), "service_order_id": o.id})
}

func validOrderID(id string) bool {
	if id == "" || len(id) > maxMerchantOrderIDLen {
		return false
	}
	for _, c := range id {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '-') {
			return false
		}
	}
	return true
}

func validReturnURL(u string) bool {
	if u == "" || len(u) > maxReturnURL {
		return false
	}
	p, err := url.Parse(u)
	return err == nil && (p.Scheme == "http" || p.Scheme == "https") && p.Host != ""
}

func maxLen(s string, n int) bool { return utf8.RuneCountInString(s) <= n }

// ---- payments ----

// orderByToken finds the order of a payment call's token. The caller holds s.mu.
func (s *Sandbox) orderByToken(tok string) (*order, *reply) {
	o := s.byToken[tok]
	if o == nil {
		return nil, errTokenInvalid()
	}
	s.settle(o)
	if o.capturedPayment() == nil && !s.now().Before(o.created.Add(TokenLifetime)) {
		return nil, errTokenExpired()
	}
	return o, nil
}

// canPay checks that o accepts one more payment attempt.
func canPay(o *order) *reply {
	if o.capturedPayment() != nil {
		return errAlreadyPaid()
	}
	if len(o.payments) >= MaxAttempts || o.status() == orderFailed {
		return errTokenInvalid()
	}
	return nil
}

type cardJSON struct {
	CardNumber      string `json:"card_number"`
	CVV             string `json:"cvv"`
	CardHolderName  string `json:"card_holder_name"`
	CardExpiryYear  string `json:"card_expiry_year"`
	CardExpiryMonth string `json:"card_expiry_month"`
}

// valid applies the card checks of contract section 4. Only the sandbox's test
// cards are taken: any other number, even a Luhn-valid one, is refused like an
// invalid card (400 response_code 14845), so no real card number is ever handled.
func (c cardJSON) valid(now time.Time) bool {
	n := c.CardNumber
	if len(n) < 12 || len(n) > 19 || !allDigits(n) || !luhnValid(n) {
		return false
	}
	if _, ok := outcomeOf(n); !ok {
		return false
	}
	if len(c.CardExpiryMonth) != 2 || len(c.CardExpiryYear) != 4 || !allDigits(c.CardExpiryMonth) || !allDigits(c.CardExpiryYear) {
		return false
	}
	mm, _ := strconv.Atoi(c.CardExpiryMonth)
	yy, _ := strconv.Atoi(c.CardExpiryYear)
	if mm < 1 || mm > 12 {
		return false
	}
	y, mo, _ := now.Date()
	if yy < y || yy == y && mm < int(mo) {
		return false
	}
	cvvLen := 3
	if strings.HasPrefix(n, "34") || strings.HasPrefix(n, "37") {
		cvvLen = 4
	}
	if len(c.CVV) != cvvLen || !allDigits(c.CVV) {
		return false
	}
	h := strings.TrimSpace(c.CardHolderName)
	return h != "" && maxLen(c.CardHolderName, 50)
}

type cardPaymentJSON struct {
	CardData     *cardJSON `json:"card_data"`
	CustomerData struct {
		CountryCode string `json:"country_code"`
		MobileNo    string `json:"mobile_no"`
		EmailID     string `json:"email_id"`
	} `json:"customer_data"`
}

// mergeCustomer fills the payment's customer data from the order's; ok is false
// when mobile or e-mail is present in neither.
func mergeCustomer(o *order, c customer) (customer, bool) {
	if c.CountryCode == "" {
		c.CountryCode = o.cust.CountryCode
	}
	if c.Mobile == "" {
		c.Mobile = o.cust.Mobile
	}
	if c.Email == "" {
		c.Email = o.cust.Email
	}
	if c.CountryCode == "" {
		c.CountryCode = "91"
	}
	ok := c.Mobile != "" && c.Email != "" && maxLen(c.Mobile, 20) && maxLen(c.Email, 100) && maxLen(c.CountryCode, 10)
	return c, ok
}

type paymentReply struct {
	Content         string  `json:"content"`
	PaymentID       int64   `json:"payment_id"`
	OrderID         int64   `json:"order_id"`
	AmountInPaise   int64   `json:"amount_in_paise"`
	Token           *string `json:"token,omitempty"`
	APIURL          *string `json:"api_url,omitempty"`
	ResponseCode    int     `json:"response_code"`
	ResponseMessage string  `json:"response_message"`
}

// payableOrder finds the order a payment call's token names and checks that the
// merchant is within its rate and the order can take a payment. The caller holds
// s.mu.
func (s *Sandbox) payableOrder(r *request) (*order, *reply) {
	o, rep := s.orderByToken(r.URL.Query().Get("token"))
	if rep != nil {
		return nil, rep
	}
	if rep := s.limited(o.m.ID); rep != nil {
		return nil, rep
	}
	if rep := canPay(o); rep != nil {
		return nil, rep
	}
	return o, nil
}

func (s *Sandbox) cardPayment(r *request) *reply {
	if r.Header.Get("checkoutmode") != "SEAMLESS" {
		return errInvalidResp()
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	o, rep := s.payableOrder(r)
	if rep != nil {
		return rep
	}
	var in cardPaymentJSON
	if err := json.Unmarshal(r.body, &in); err != nil || in.CardData == nil || !in.CardData.valid(s.now()) {
		return errInvalidResp()
	}
	cust, ok := mergeCustomer(o, customer{CountryCode: in.CustomerData.CountryCode, Mobile: in.CustomerData.MobileNo, Email: in.CustomerData.EmailID})
	if !ok {
		return errInvalidResp()
	}
	p := s.newPayment(o, *in.CardData, cust, o.amount, paymentModeCard, issuerOf(in.CardData.CardNumber))
	return jsonReply(200, paymentReply{
		Content: authContent(baseURL(r.Request), p.id), PaymentID: atoi(p.id), OrderID: atoi(o.id),
		AmountInPaise: p.amount, ResponseCode: 1, ResponseMessage: msgSuccess,
	})
}

// newPayment records an accepted card attempt. A frictionless card is captured at
// once. The caller holds s.mu and has checked canPay.
func (s *Sandbox) newPayment(o *order, c cardJSON, cust customer, amount int64, mode, issuer string) *payment {
	now := s.now()
	outcome, _ := outcomeOf(c.CardNumber) // valid has checked that it is a test card
	p := &payment{
		id: s.uniquePaymentID(), o: o, amount: amount, mode: mode, status: statusPending, stage: stageAuth,
		outcome: outcome, last4: c.CardNumber[len(c.CardNumber)-4:],
		holder: c.CardHolderName, issuer: issuer, mobile: cust.Mobile, created: now,
	}
	o.payments = append(o.payments, p)
	s.payments[p.id] = p
	if p.outcome.kind == outcomeFrictionless {
		s.capture(p, now)
	}
	return p
}

func (s *Sandbox) uniquePaymentID() string {
	for {
		id := s.ids.NewID(IDPayment)
		if s.payments[id] == nil {
			return id
		}
	}
}

// uniqueRefundID hands out a refund id not handed out before (also in an earlier
// run when the state is kept in a file).
func (s *Sandbox) uniqueRefundID() string {
	for {
		id := s.ids.NewID(IDRefund)
		if !s.refundNos[id] {
			s.noteRefundID(id)
			return id
		}
	}
}

var authContentTmpl = template.Must(template.New("content").Parse(`<!DOCTYPE html>
<html><head><meta charset="utf-8"><title>Redirecting to your bank</title></head>
<body onload="document.forms[0].submit()">
<p>Taking you to your bank's authentication page&hellip;</p>
<form method="POST" action="{{.Action}}"><input type="hidden" name="payment_id" value="{{.PaymentID}}"><noscript><button type="submit">Continue</button></noscript></form>
</body></html>`))

// authContent is the payment answer's auto-submitting form to the ACS step.
func authContent(base, paymentID string) string {
	var b bytes.Buffer
	_ = authContentTmpl.Execute(&b, map[string]string{"Action": base + "/acs/" + paymentID, "PaymentID": paymentID})
	return b.String()
}

// ---- the authentication step (ACS) ----

var acsTmpl = template.Must(template.New("acs").Parse(`<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>Sandbox bank: authenticate your payment</title>
<style nonce="{{.Nonce}}">body{font-family:system-ui,sans-serif;background:#f2f4f7;margin:0}main{max-width:380px;margin:40px auto;background:#fff;padding:24px;border-radius:8px;box-shadow:0 2px 8px #0002}
h1{font-size:20px}dl{display:grid;grid-template-columns:auto 1fr;gap:4px 12px}dt{color:#555}input{font-size:20px;letter-spacing:4px;width:100%;box-sizing:border-box;padding:8px}
button{font-size:16px;padding:10px 16px;margin-top:12px;margin-right:8px}.hint{color:#666;font-size:13px}.err{color:#b00020}</style></head>
<body><main>
<h1>Sandbox bank &middot; one-time password</h1>
{{if .Done}}<p>This payment is already {{.Status}}.</p>
<form method="POST" action="/acs/{{.PaymentID}}"><button type="submit" name="action" value="return">Return to the merchant</button></form>
{{else}}<dl><dt>Merchant</dt><dd>{{.Merchant}}</dd><dt>Amount</dt><dd>&#8377;&nbsp;{{.Amount}}</dd><dt>Card</dt><dd>&bull;&bull;&bull;&bull; {{.Last4}}</dd></dl>
<form method="POST" action="/acs/{{.PaymentID}}">
<label for="otp">Enter the one-time password sent to your phone</label>
<input id="otp" name="otp" inputmode="numeric" autocomplete="one-time-code" maxlength="6" autofocus>
<p class="hint">Sandbox: the password is 123456; anything else fails the payment.</p>
<button id="submit" type="submit" name="action" value="submit">Submit</button>
<button id="cancel" type="submit" name="action" value="cancel" formnovalidate>Cancel</button>
</form>{{end}}
</main></body></html>`))

// rupees formats paise as rupees with two decimals.
func rupees(p int64) string {
	return strconv.FormatInt(p/100, 10) + "." + strconv.FormatInt(100+p%100, 10)[1:]
}

// acs serves GET/POST /acs/{payment_id}: the OTP page, and its answer.
func (s *Sandbox) acs(r *request, id string) *reply {
	s.mu.Lock()
	defer s.mu.Unlock()
	p := s.payments[id]
	if p == nil || p.hosted {
		return newReply(404, "text/plain; charset=utf-8", []byte("no such payment\n"))
	}
	s.settle(p.o)
	var form url.Values
	if r.Method == http.MethodPost {
		var err error
		if form, err = url.ParseQuery(string(r.body)); err != nil {
			return newReply(400, "text/plain; charset=utf-8", []byte("bad form\n"))
		}
	}
	action, otp := form.Get("action"), form.Get("otp")
	if p.stage == stageAuth && r.Method == http.MethodPost {
		switch {
		case action == "cancel":
			s.fail(p, codeCancelled, msgCancelled, s.now())
		case otp != "" || action == "submit":
			s.authenticate(p, otp)
		}
	}
	if p.stage != stageAuth && r.Method == http.MethodPost {
		return redirect(returnURL(p))
	}
	var b bytes.Buffer
	nonce := newNonce()
	_ = acsTmpl.Execute(&b, map[string]any{
		"PaymentID": p.id, "Merchant": p.o.m.ID, "Amount": rupees(p.amount), "Last4": p.last4,
		"Done": p.stage != stageAuth, "Status": strings.ToLower(p.status), "Nonce": nonce,
	})
	// The form's answer redirects to the merchant, which form-action also governs.
	var formTo []string
	if o := originOf(returnURL(p)); o != "" {
		formTo = append(formTo, o)
	}
	return withCSP(newReply(200, "text/html; charset=utf-8", b.Bytes()), nonce, formTo...)
}

// authenticate ends the OTP step of p with the card's outcome. The caller holds s.mu.
func (s *Sandbox) authenticate(p *payment, otp string) {
	now := s.now()
	if otp != TestOTP {
		s.fail(p, codeAuthFailed, msgAuthFailed, now)
		return
	}
	switch p.outcome.kind {
	case outcomeDecline:
		s.fail(p, p.outcome.code, p.outcome.message, now)
	case outcomePendingHold:
		p.stage, p.captureAt, p.message = stageIssuer, now.Add(PendingHold), "Awaiting the issuer"
	default:
		s.capture(p, now)
	}
}

func redirect(to string) *reply {
	rep := newReply(http.StatusSeeOther, "text/html; charset=utf-8",
		[]byte(`<!DOCTYPE html><a href="`+template.HTMLEscapeString(to)+`">Return to the merchant</a>`))
	rep.header.Set("Location", to)
	return withCSP(rep, newNonce())
}

// returnURL is the merchant's return address with payment_id and service_order_id.
func returnURL(p *payment) string {
	base := strings.TrimSpace(strings.Split(p.o.returnURL, ",")[0])
	q := url.Values{"payment_id": {p.id}, "service_order_id": {p.o.id}}.Encode()
	if strings.Contains(base, "?") {
		return base + "&" + q
	}
	return base + "?" + q
}

// ---- inquiry ----

type merchantDataDoc struct {
	MerchantID int64  `json:"merchant_id"`
	OrderID    string `json:"order_id"`
}

type orderDataDoc struct {
	OrderStatus    string `json:"order_status"`
	ServiceOrderID int64  `json:"service_order_id"`
	Amount         int64  `json:"amount"`
	OrderDesc      string `json:"order_desc"`
	RefundAmount   string `json:"refund_amount"`
}

type paymentInfoDoc struct {
	AcquirerName              string `json:"acquirer_name"`
	AuthCode                  string `json:"auth_code"`
	CapturedAmountInPaisa     string `json:"captured_amount_in_paisa"`
	CardHolderName            string `json:"card_holder_name"`
	MaskedCardNumber          string `json:"masked_card_number"`
	MerchantReturnURL         string `json:"merchant_return_url"`
	MobileNo                  string `json:"mobile_no"`
	PaymentCompletionDateTime string `json:"payment_completion_date_time"`
	PaymentID                 string `json:"payment_id"`
	PaymentStatus             string `json:"payment_status"`
	PaymentResponseCode       int    `json:"payment_response_code"`
	PaymentResponseMessage    string `json:"payment_response_message"`
	ProductCode               string `json:"product_code"`
	RRN                       string `json:"rrn"`
	RefundAmountInPaisa       string `json:"refund_amount_in_paisa"`
	SaltedCardHash            string `json:"salted_card_hash"`
	UDFField1                 string `json:"udf_field_1"`
	UDFField2                 string `json:"udf_field_2"`
	UDFField3                 string `json:"udf_field_3"`
	UDFField4                 string `json:"udf_field_4"`
	PaymentMode               string `json:"payment_mode"`
	IssuerName                string `json:"issuer_name"`
	GatewayPaymentID          string `json:"gateway_payment_id"`
	RefundID                  string `json:"refund_id,omitempty"`
}

type inquiryDoc struct {
	MerchantData    merchantDataDoc `json:"merchant_data"`
	OrderData       orderDataDoc    `json:"order_data"`
	PaymentInfoData paymentInfoDoc  `json:"payment_info_data"`
}

func na(s string) string {
	if s == "" {
		return "NA"
	}
	return s
}

// inquiryOf builds the interface 2.9 document of o with payment p (nil: none yet).
func inquiryOf(o *order, p *payment) inquiryDoc {
	d := inquiryDoc{
		MerchantData: merchantDataDoc{MerchantID: atoi(o.m.ID), OrderID: o.merchantOrderID},
		OrderData: orderDataDoc{OrderStatus: o.status(), ServiceOrderID: atoi(o.id), Amount: o.amount,
			OrderDesc: na(o.desc), RefundAmount: "NA"},
	}
	if o.refunded > 0 {
		d.OrderData.RefundAmount = strconv.FormatInt(o.refunded, 10)
	}
	pi := paymentInfoDoc{
		AcquirerName: "NA", AuthCode: "NA", CapturedAmountInPaisa: "NA", CardHolderName: "NA",
		MaskedCardNumber: "NA", MerchantReturnURL: na(o.returnURL), MobileNo: na(o.cust.Mobile),
		PaymentCompletionDateTime: "NA", PaymentID: "NA", PaymentStatus: "NA", PaymentResponseMessage: "NA",
		ProductCode: "NA", RRN: "NA", RefundAmountInPaisa: "NA", SaltedCardHash: "NA",
		UDFField1: "NA", UDFField2: "NA", UDFField3: "NA", UDFField4: "NA", PaymentMode: "NA",
		IssuerName: "NONE", GatewayPaymentID: "NA",
	}
	if len(o.products) > 0 {
		pi.ProductCode = o.products[0].Code
	}
	if p != nil {
		pi.AcquirerName = "SANDBOX_ACQUIRER"
		pi.AuthCode = na(p.authCode)
		if p.captured {
			pi.CapturedAmountInPaisa = strconv.FormatInt(p.amount, 10)
		}
		pi.CardHolderName = na(p.holder)
		if p.last4 != "" {
			pi.MaskedCardNumber = "XXXXXXXXXXXX" + p.last4
		}
		pi.MobileNo = na(p.mobile)
		if !p.completed.IsZero() {
			pi.PaymentCompletionDateTime = p.completed.UTC().Format(isoMillis)
		}
		pi.PaymentID = p.id
		pi.PaymentStatus = p.status
		pi.PaymentResponseCode = p.code
		pi.PaymentResponseMessage = na(p.message)
		pi.RRN = na(p.rrn)
		if p.refunded > 0 {
			pi.RefundAmountInPaisa = strconv.FormatInt(p.refunded, 10)
		}
		pi.PaymentMode = p.mode
		if p.issuer != "" {
			pi.IssuerName = p.issuer
		}
		pi.GatewayPaymentID = "GW" + p.id
	}
	d.PaymentInfoData = pi
	return d
}

// latestPayment is the captured payment if any, else the newest attempt.
func (o *order) latestPayment() *payment {
	if p := o.capturedPayment(); p != nil {
		return p
	}
	if len(o.payments) == 0 {
		return nil
	}
	return o.payments[len(o.payments)-1]
}

// basicAuth returns the merchant named by the Authorization header, or nil.
func (s *Sandbox) basicAuth(r *http.Request) *merchant {
	id, code, ok := r.BasicAuth()
	if !ok {
		return nil
	}
	m := s.merchants[id]
	if m == nil || !constantEqual(m.AccessCode, code) {
		return nil
	}
	return m
}

func (s *Sandbox) inquiry(r *request, orderID, paymentID string) *reply {
	s.mu.Lock()
	defer s.mu.Unlock()
	m := s.basicAuth(r.Request)
	if m == nil {
		return errUnauthorized()
	}
	if rep := s.limited(m.ID); rep != nil {
		return rep
	}
	o := s.orders[orderID]
	if o == nil || o.m != m {
		return errNoOrder()
	}
	s.settle(o)
	p := o.latestPayment()
	if paymentID != "" {
		p = s.payments[paymentID]
		if p == nil || p.o != o {
			return errNoPayment()
		}
	}
	return signedReply(200, inquiryOf(o, p), m.key)
}

// ---- refund ----

type refundJSON struct {
	UniqueTxnID   string `json:"unique_txn_id"`
	AmountInPaise *int64 `json:"amount_in_paise"`
	MerchantID    *int64 `json:"merchant_id"`
	OrderID       *int64 `json:"order_id"`
	PaymentID     *int64 `json:"payment_id"`
}

func (s *Sandbox) refund(r *request) *reply {
	rep, key := s.refundAnswer(r)
	if key != nil && rep.key == nil {
		// Every refund answer is signed (contract section 1), refusals too: an
		// unsigned refusal would be "outcome unknown" to the client.
		rep.sign(key)
	}
	return rep
}

// refundAnswer is the refund's answer and, once the caller's credentials are
// known, the merchant's key that signs it.
func (s *Sandbox) refundAnswer(r *request) (*reply, []byte) {
	s.mu.Lock()
	defer s.mu.Unlock()
	m := s.basicAuth(r.Request)
	if m == nil {
		return errUnauthorized(), nil
	}
	rep := s.refundOf(r, m)
	return rep, m.key
}

// refundOf applies a refund of merchant m.
func (s *Sandbox) refundOf(r *request, m *merchant) *reply {
	if rep := s.limited(m.ID); rep != nil {
		return rep
	}
	var in refundJSON
	b64text, ok := decodeSigned(r.body, &in)
	if !ok {
		var sb signedBody
		if json.Unmarshal(r.body, &sb) == nil && sb.Request != nil && r.Header.Get("x-verify") == "" {
			return errSecureHash()
		}
		return errInvalidCode()
	}
	if gateway.Verify(m.key, b64text, r.Header.Get("x-verify")) != nil {
		return errSecureHash()
	}
	if in.UniqueTxnID == "" || !maxLen(in.UniqueTxnID, 100) || in.AmountInPaise == nil || in.MerchantID == nil ||
		in.OrderID == nil || in.PaymentID == nil || strconv.FormatInt(*in.MerchantID, 10) != m.ID {
		return errInvalidCode()
	}
	dupKey := m.ID + "\x00" + in.UniqueTxnID
	if s.refundIDs[dupKey] {
		return errDupRefund()
	}
	o := s.orders[strconv.FormatInt(*in.OrderID, 10)]
	if o == nil || o.m != m {
		return errNoOrder()
	}
	s.settle(o)
	p := s.payments[strconv.FormatInt(*in.PaymentID, 10)]
	if p == nil || p.o != o {
		return errNoPayment()
	}
	amt := *in.AmountInPaise
	if !p.captured || amt < minAmount || amt > p.amount-p.refunded {
		return errInvalidCode()
	}
	s.noteRefundTxn(m.ID, in.UniqueTxnID)
	p.refunded += amt
	o.refunded += amt
	if p.refunded == p.amount {
		p.status = statusRefunded
		for _, imei := range o.imeis {
			delete(s.imeis, imei)
		}
		o.imeis = nil
		o.imeiOK = map[string]map[string]bool{}
	} else {
		p.status = statusPartialRefunded
	}
	doc := inquiryOf(o, p)
	doc.PaymentInfoData.RefundID = s.uniqueRefundID()
	return signedReply(200, doc, m.key)
}

// ---- helpers ----

func allDigits(s string) bool {
	if s == "" {
		return false
	}
	for _, c := range s {
		if c < '0' || c > '9' {
			return false
		}
	}
	return true
}

func atoi(s string) int64 {
	n, _ := strconv.ParseInt(s, 10, 64)
	return n
}

func parseInt(s string) (int64, bool) {
	n, err := strconv.ParseInt(s, 10, 64)
	return n, err == nil
}

func b64(b []byte) string { return base64.StdEncoding.EncodeToString(b) }

func constantEqual(a, b string) bool {
	ha, hb := sha256.Sum256([]byte(a)), sha256.Sum256([]byte(b))
	return ha == hb
}
