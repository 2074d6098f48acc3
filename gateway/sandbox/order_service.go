package sandbox

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"galla/gateway"
	"html/template"
	"net/http"
	"net/url"
	"strconv"
	"strings"
)

// orderService is the contract's order and card endpoints: create order, card
// payment, the authentication (OTP) step, the status inquiry and the refund. The
// EMI endpoints are the emiService's, the hosted page's the checkoutService's.
type orderService struct{ *core }

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

func (od *orderService) createOrder(r *request) *reply {
	od.mu.Lock()
	defer od.mu.Unlock()
	var in orderJSON
	b64text, ok := decodeSigned(r.body, &in)
	if !ok || in.MerchantData.MerchantID == nil {
		return errInvalidCode()
	}
	m := od.merchants[*in.MerchantData.MerchantID]
	if m == nil {
		return errInvalidCode()
	}
	if rep := od.limited(m.ID); rep != nil {
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
	if used, err := od.state.merchantOrderUsed(key); err != nil {
		return od.archiveFault(err)
	} else if used {
		return errDuplicate()
	}
	o := &order{
		m: m, merchantOrderID: md.MerchantOrderID, created: od.now(), amount: *pd.Amount,
		currency: pd.CurrencyCode, desc: pd.OrderDesc, returnURL: md.MerchantReturnURL,
		cust:     customer{CountryCode: cd.CountryCode, Mobile: cd.MobileNumber, Email: cd.EmailID},
		products: products, imeiOK: map[string]map[string]bool{},
	}
	var err error
	if o.id, err = od.uniqueID(IDOrder, keyOrder); err != nil {
		return od.archiveFault(err)
	}
	if o.token, err = od.uniqueID(IDToken, keyToken); err != nil {
		return od.archiveFault(err)
	}
	od.orderIDs[key] = true
	od.orders[o.id] = o
	od.byToken[o.token] = o
	od.seq = append(od.seq, o.id)
	od.state.touch(o)
	return jsonReply(200, map[string]string{"token": url.QueryEscape(o.token), "service_order_id": o.id})
}

func validReturnURL(u string) bool {
	if u == "" || len(u) > maxReturnURL {
		return false
	}
	p, err := url.Parse(u)
	return err == nil && (p.Scheme == "http" || p.Scheme == "https") && p.Host != ""
}

// ---- card payment ----

type cardPaymentJSON struct {
	CardData     *cardJSON `json:"card_data"`
	CustomerData struct {
		CountryCode string `json:"country_code"`
		MobileNo    string `json:"mobile_no"`
		EmailID     string `json:"email_id"`
	} `json:"customer_data"`
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

func (od *orderService) cardPayment(r *request) *reply {
	if r.Header.Get("checkoutmode") != "SEAMLESS" {
		return errInvalidResp()
	}
	od.mu.Lock()
	defer od.mu.Unlock()
	o, rep := od.payableOrder(r)
	if rep != nil {
		return rep
	}
	var in cardPaymentJSON
	if err := json.Unmarshal(r.body, &in); err != nil || in.CardData == nil || !in.CardData.valid(od.now()) {
		return errInvalidResp()
	}
	cust, ok := mergeCustomer(o, customer{CountryCode: in.CustomerData.CountryCode, Mobile: in.CustomerData.MobileNo, Email: in.CustomerData.EmailID})
	if !ok {
		return errInvalidResp()
	}
	p, rep := od.newPayment(o, *in.CardData, cust, o.amount, paymentModeCard, issuerOf(in.CardData.CardNumber))
	if rep != nil {
		return rep
	}
	return jsonReply(200, paymentReply{
		Content: authContent(baseURL(r.Request), p.id), PaymentID: atoi(p.id), OrderID: atoi(o.id),
		AmountInPaise: p.amount, ResponseCode: 1, ResponseMessage: msgSuccess,
	})
}

// uniqueRefundID draws a refund id not handed out before (also in an earlier
// run when the state is kept in a file); noteRefundID hands it out.
func (od *orderService) uniqueRefundID() (string, error) { return od.uniqueID(IDRefund, keyRefundID) }

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

// acs serves GET/POST /acs/{payment_id}: the OTP page, and its answer.
func (od *orderService) acs(r *request, id string) *reply {
	od.mu.Lock()
	defer od.mu.Unlock()
	p, err := od.state.payment(id)
	if err != nil {
		return od.archiveFault(err)
	}
	if p == nil || p.hosted {
		return newReply(404, "text/plain; charset=utf-8", []byte("no such payment\n"))
	}
	od.settle(p.o)
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
			od.fail(p, codeCancelled, msgCancelled, od.now())
		case otp != "" || action == "submit":
			od.authenticate(p, otp)
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

// basicAuth returns the merchant named by the Authorization header, or nil.
func (od *orderService) basicAuth(r *http.Request) *merchant {
	id, code, ok := r.BasicAuth()
	if !ok {
		return nil
	}
	m := od.merchants[id]
	if m == nil || !constantEqual(m.AccessCode, code) {
		return nil
	}
	return m
}

func (od *orderService) inquiry(r *request, orderID, paymentID string) *reply {
	od.mu.Lock()
	defer od.mu.Unlock()
	m := od.basicAuth(r.Request)
	if m == nil {
		return errUnauthorized()
	}
	if rep := od.limited(m.ID); rep != nil {
		return rep
	}
	o, err := od.state.order(orderID)
	if err != nil {
		return od.archiveFault(err)
	}
	if o == nil || o.m != m {
		return errNoOrder()
	}
	od.settle(o)
	p := o.latestPayment()
	if paymentID != "" {
		if p, err = od.state.payment(paymentID); err != nil {
			return od.archiveFault(err)
		}
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

func (od *orderService) refund(r *request) *reply {
	rep, key := od.refundAnswer(r)
	if key != nil && rep.key == nil {
		// Every refund answer is signed (contract section 1), refusals too: an
		// unsigned refusal would be "outcome unknown" to the client.
		rep.sign(key)
	}
	return rep
}

// refundAnswer is the refund's answer and, once the caller's credentials are
// known, the merchant's key that signs it.
func (od *orderService) refundAnswer(r *request) (*reply, []byte) {
	od.mu.Lock()
	defer od.mu.Unlock()
	m := od.basicAuth(r.Request)
	if m == nil {
		return errUnauthorized(), nil
	}
	rep := od.refundOf(r, m)
	return rep, m.key
}

// refundOf applies a refund of merchant m.
func (od *orderService) refundOf(r *request, m *merchant) *reply {
	if rep := od.limited(m.ID); rep != nil {
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
	if used, err := od.state.refundTxnUsed(dupKey); err != nil {
		return od.archiveFault(err)
	} else if used {
		return errDupRefund()
	}
	o, err := od.state.order(strconv.FormatInt(*in.OrderID, 10))
	if err != nil {
		return od.archiveFault(err)
	}
	if o == nil || o.m != m {
		return errNoOrder()
	}
	od.settle(o)
	p, err := od.state.payment(strconv.FormatInt(*in.PaymentID, 10))
	if err != nil {
		return od.archiveFault(err)
	}
	if p == nil || p.o != o {
		return errNoPayment()
	}
	amt := *in.AmountInPaise
	if !p.captured || amt < minAmount || amt > p.amount-p.refunded {
		return errInvalidCode()
	}
	refundID, err := od.uniqueRefundID()
	if err != nil {
		return od.archiveFault(err)
	}
	od.state.noteRefundTxn(m.ID, in.UniqueTxnID)
	od.state.noteRefundID(refundID)
	p.refunded += amt
	o.refunded += amt
	if p.refunded == p.amount {
		p.status = statusRefunded
		for _, imei := range o.imeis {
			delete(od.imeis, imei)
		}
		o.imeis = nil
		o.imeiOK = map[string]map[string]bool{}
	} else {
		p.status = statusPartialRefunded
	}
	doc := inquiryOf(o, p)
	doc.PaymentInfoData.RefundID = refundID
	return signedReply(200, doc, m.key)
}
