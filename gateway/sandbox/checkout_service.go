package sandbox

import (
	"bytes"
	_ "embed"
	"encoding/json"
	"html/template"
	"net/http"
	"strings"
)

// checkoutService is the browser checkout: the script that defines Checkout, the
// hosted payment page in its iframe with the calls its script makes (pay, OTP,
// status), and the sandbox's index page.
type checkoutService struct{ *core }

//go:embed static/checkout.js
var checkoutJS []byte

//go:embed static/pay.html
var payHTML string

var payTmpl = template.Must(template.New("pay").Parse(payHTML))

// checkoutModes are the payment modes of interface 2.10 the hosted page offers.
func checkoutModes() []string {
	return []string{paymentModeCard, paymentModeNetBanking, paymentModeUPI, paymentModeWallet, paymentModeEMI, paymentModeDebitEMI}
}

func (co *checkoutService) checkoutScript(*request) *reply {
	rep := newReply(200, "text/javascript; charset=utf-8", checkoutJS)
	rep.header.Set("Cache-Control", "no-cache")
	return rep
}

// hostedConfig is what the hosted page's script is given.
type hostedConfig struct {
	OrderToken      string            `json:"orderToken"`
	ServiceOrderID  string            `json:"serviceOrderId"`
	MerchantOrderID string            `json:"merchantOrderId"`
	Amount          string            `json:"amount"`
	Modes           []string          `json:"modes"`
	Theme           string            `json:"theme"`
	ChannelID       string            `json:"channelId"`
	CountryCode     string            `json:"countryCode"`
	Mobile          string            `json:"mobileNumber"`
	Email           string            `json:"emailId"`
	SavedCards      bool              `json:"showSavedCardsFeature"`
	Error           map[string]string `json:"error,omitempty"`
	Paid            bool              `json:"paid"`
	TestCards       []hostedCard      `json:"testCards"`
	OTP             string            `json:"otp"`
	Plans           []hostedPlan      `json:"plans"`
}

// hostedPlan is one EMI plan the hosted page offers.
type hostedPlan struct {
	Mode     string `json:"mode"` // EMI or DEBIT_EMI
	Issuer   string `json:"issuer"`
	Tenure   int    `json:"tenure"`
	Monthly  string `json:"monthly"`
	Interest string `json:"interest"`
	Cashback string `json:"cashback"`
}

// orderProducts are the products an order's EMI is computed on.
func orderProducts(o *order) []product {
	if len(o.products) > 0 {
		return o.products
	}
	return []product{{Code: "ORDER", Amount: o.amount}}
}

// needsIMEI reports whether a tenure has a brand offer that makes IMEI mandatory
// (the hosted page takes no IMEIs, so it leaves such plans out).
func needsIMEI(t tenureJSON) bool {
	for _, d := range t.OfferScheme.ProductDetails {
		if b, _, ok := brandOfProduct(d.ProductCode); ok && b.imei && d.SubventionType != SubventionStandard {
			return true
		}
	}
	return false
}

// hostedPlans lists the EMI plans of an order for the modes asked for.
func hostedPlans(o *order, modes []string) []hostedPlan {
	plans := []hostedPlan{}
	for _, is := range issuers() {
		mode := paymentModeEMI
		if is.debit {
			mode = paymentModeDebitEMI
		}
		if !contains(modes, mode) {
			continue
		}
		for _, n := range emiTenures() {
			t := tenureOffer(is, n, orderProducts(o))
			if t.LoanAmount < MinEMIAmount || needsIMEI(t) {
				continue
			}
			plans = append(plans, hostedPlan{Mode: mode, Issuer: is.name, Tenure: n, Monthly: rupees(t.MonthlyInstallment),
				Interest: rupees(t.InterestPayToBank), Cashback: rupees(t.TotalOfferredDiscountCashbackAmount)})
		}
	}
	return plans
}

type hostedCard struct {
	Number string `json:"number"`
	CVV    string `json:"cvv"`
	Text   string `json:"text"`
}

// hostedPage serves /checkout/v1/pay?orderToken=...: the page inside the checkout
// overlay (contract section 8).
func (co *checkoutService) hostedPage(r *request) *reply {
	q := r.URL.Query()
	cfg := hostedConfig{
		OrderToken: q.Get("orderToken"), Theme: "default", ChannelID: q.Get("channelId"),
		CountryCode: q.Get("countryCode"), Mobile: q.Get("mobileNumber"), Email: q.Get("emailId"),
		SavedCards: q.Get("showSavedCardsFeature") != "false", OTP: TestOTP,
	}
	if q.Get("theme") == "black" {
		cfg.Theme = "black"
	}
	if cfg.CountryCode == "" || cfg.CountryCode == "null" {
		cfg.CountryCode = "91"
	}
	for _, v := range []*string{&cfg.Mobile, &cfg.Email} {
		if *v == "null" || *v == "undefined" {
			*v = ""
		}
	}
	for _, m := range strings.Split(q.Get("paymentMode"), ",") {
		m = strings.TrimSpace(strings.ToUpper(m))
		if contains(checkoutModes(), m) && !contains(cfg.Modes, m) {
			cfg.Modes = append(cfg.Modes, m)
		}
	}
	if len(cfg.Modes) == 0 {
		cfg.Modes = checkoutModes()
	}
	for _, c := range testCards() {
		cvv := "123"
		if brandOf(c.number) == "AMEX" {
			cvv = "1234"
		}
		cfg.TestCards = append(cfg.TestCards, hostedCard{Number: c.number, CVV: cvv, Text: c.text})
	}
	co.mu.Lock()
	o, rep := co.orderByToken(cfg.OrderToken)
	if rep == nil {
		cfg.ServiceOrderID, cfg.MerchantOrderID, cfg.Amount = o.id, o.merchantOrderID, rupees(o.amount)
		cfg.Paid = o.capturedPayment() != nil
		cfg.Plans = hostedPlans(o, cfg.Modes)
		if cfg.Mobile == "" {
			cfg.Mobile = o.cust.Mobile
		}
		if cfg.Email == "" {
			cfg.Email = o.cust.Email
		}
	} else {
		cfg.Error = envelopeOf(rep)
	}
	co.mu.Unlock()
	var b bytes.Buffer
	nonce := newNonce()
	if err := payTmpl.Execute(&b, struct {
		Config hostedConfig
		Nonce  string
	}{cfg, nonce}); err != nil {
		return serverError()
	}
	return withCSP(newReply(200, "text/html; charset=utf-8", b.Bytes()), nonce)
}

// envelopeOf turns an error answer into {error_code, error_message}.
func envelopeOf(rep *reply) map[string]string {
	var v map[string]any
	_ = json.Unmarshal(rep.body, &v)
	code, msg := v["error_code"], v["error_message"]
	if code == nil {
		code, msg = v["response_code"], v["response_message"]
	}
	b, _ := json.Marshal(code)
	return map[string]string{"error_code": strings.Trim(string(b), `"`), "error_message": toString(msg)}
}

func toString(v any) string {
	if s, ok := v.(string); ok {
		return s
	}
	return ""
}

type hostedPayJSON struct {
	OrderToken string    `json:"orderToken"`
	Mode       string    `json:"mode"`
	Card       *cardJSON `json:"card"`
	Bank       string    `json:"bank"`
	Issuer     string    `json:"issuer"` // EMI plan
	Tenure     int       `json:"tenure"`
	Customer   struct {
		CountryCode string `json:"country_code"`
		Mobile      string `json:"mobile"`
		Email       string `json:"email"`
	} `json:"customer"`
}

// hostedResult is the hosted page's view of a payment.
type hostedResult struct {
	Status         string `json:"status"` // AUTH, PENDING, CAPTURED, FAILED
	PaymentID      string `json:"payment_id"`
	ServiceOrderID string `json:"service_order_id"`
	ErrorCode      string `json:"error_code,omitempty"`
	ErrorMessage   string `json:"error_message,omitempty"`
}

func resultOf(p *payment) hostedResult {
	res := hostedResult{PaymentID: p.id, ServiceOrderID: p.o.id}
	switch {
	case p.stage == stageAuth:
		res.Status = "AUTH"
	case p.stage == stageIssuer:
		res.Status = "PENDING"
	case p.captured:
		res.Status = statusCaptured
	default:
		res.Status, res.ErrorCode, res.ErrorMessage = statusFailed, stringOf(p.code), p.message
	}
	return res
}

func stringOf(n int) string { b, _ := json.Marshal(n); return string(b) }

// hostedPay takes a payment from the hosted page: a card (then the OTP step) or a
// simulated UPI, net banking or wallet payment that succeeds.
func (co *checkoutService) hostedPay(r *request) *reply {
	var in hostedPayJSON
	if err := json.Unmarshal(r.body, &in); err != nil {
		return errInvalidResp()
	}
	co.mu.Lock()
	defer co.mu.Unlock()
	o, rep := co.orderByToken(in.OrderToken)
	if rep != nil {
		return rep
	}
	if rep := canPay(o); rep != nil {
		return rep
	}
	if !contains(checkoutModes(), in.Mode) {
		return errInvalidResp()
	}
	cust, ok := mergeCustomer(o, customer{CountryCode: in.Customer.CountryCode, Mobile: in.Customer.Mobile, Email: in.Customer.Email})
	if !ok {
		return respCode(400, 14845, "Mobile number and e-mail are required")
	}
	var p *payment
	switch in.Mode {
	case paymentModeCard:
		if in.Card == nil || !in.Card.valid(co.now()) {
			return respCode(400, 14845, "Check the card details")
		}
		p, rep = co.newPayment(o, *in.Card, cust, o.amount, paymentModeCard, issuerOf(in.Card.CardNumber))
	case paymentModeEMI, paymentModeDebitEMI:
		if in.Card == nil || !in.Card.valid(co.now()) {
			return respCode(400, 14845, "Check the card details")
		}
		is, ok := issuerByName(in.Issuer)
		if !ok || is.rates[in.Tenure] == 0 || is.debit != (in.Mode == paymentModeDebitEMI) {
			return errOutdated()
		}
		t := tenureOffer(is, in.Tenure, orderProducts(o))
		if t.LoanAmount < MinEMIAmount {
			return errOutdated()
		}
		if issuerOf(in.Card.CardNumber) != is.name {
			return errNotOnCard()
		}
		if needsIMEI(t) {
			return errIMEIRequired()
		}
		p, rep = co.newPayment(o, *in.Card, cust, t.AuthAmount, in.Mode, is.name)
	default:
		now := co.now()
		id, err := co.uniquePaymentID()
		if err != nil {
			return co.archiveFault(err)
		}
		p = &payment{id: id, o: o, amount: o.amount, mode: in.Mode, status: statusPending,
			stage: stageAuth, mobile: cust.Mobile, created: now, issuer: strings.ToUpper(strings.TrimSpace(in.Bank))}
		if len(p.issuer) > 30 {
			p.issuer = p.issuer[:30]
		}
		o.payments = append(o.payments, p)
		co.payments[p.id] = p
		co.capture(p, now)
	}
	if rep != nil {
		return rep
	}
	p.hosted = true
	return jsonReply(200, resultOf(p))
}

type hostedOTPJSON struct {
	OrderToken string `json:"orderToken"`
	PaymentID  string `json:"payment_id"`
	OTP        string `json:"otp"`
	Action     string `json:"action"`
}

// hostedOTP ends the hosted page's OTP step (otp, or action "cancel").
func (co *checkoutService) hostedOTP(r *request) *reply {
	var in hostedOTPJSON
	if err := json.Unmarshal(r.body, &in); err != nil {
		return errInvalidResp()
	}
	co.mu.Lock()
	defer co.mu.Unlock()
	p, err := co.state.payment(in.PaymentID)
	if err != nil {
		return co.archiveFault(err)
	}
	if p == nil || !p.hosted || p.o.token != in.OrderToken {
		return errNoPayment()
	}
	co.settle(p.o)
	if p.stage == stageAuth {
		if in.Action == "cancel" {
			co.fail(p, codeCancelled, msgCancelled, co.now())
		} else {
			co.authenticate(p, in.OTP)
		}
	}
	return jsonReply(200, resultOf(p))
}

// hostedStatus reports a hosted payment's state (the page polls a pending one).
func (co *checkoutService) hostedStatus(r *request) *reply {
	var in hostedOTPJSON
	if err := json.Unmarshal(r.body, &in); err != nil {
		return errInvalidResp()
	}
	co.mu.Lock()
	defer co.mu.Unlock()
	p, err := co.state.payment(in.PaymentID)
	if err != nil {
		return co.archiveFault(err)
	}
	if p == nil || !p.hosted || p.o.token != in.OrderToken {
		return errNoPayment()
	}
	co.settle(p.o)
	return jsonReply(200, resultOf(p))
}

var indexTmpl = template.Must(template.New("index").Parse(`<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>Galla payment-service sandbox</title>
<style nonce="{{.Nonce}}">body{font-family:system-ui,sans-serif;max-width:760px;margin:32px auto;padding:0 16px}code{background:#f2f2f2;padding:1px 4px}td{padding:2px 10px 2px 0}</style></head>
<body><h1>Galla payment-service sandbox</h1>
<p>API under <code>/api/v1/</code>; checkout script <code>/checkout/v1/checkout.js</code>; hosted page <code>/checkout/v1/pay?orderToken=</code>.</p>
<p>Default merchant <code>{{.Merchant.ID}}</code>, access code <code>{{.Merchant.AccessCode}}</code>, secret <code>{{.Merchant.Secret}}</code>. OTP <code>{{.OTP}}</code>.</p>
<h2>Test cards</h2><table>{{range .Cards}}<tr><td><code>{{.Number}}</code></td><td>{{.Outcome}}</td></tr>{{end}}</table>
</body></html>`))

func (co *checkoutService) index(*request) *reply {
	var b bytes.Buffer
	nonce := newNonce()
	if err := indexTmpl.Execute(&b, struct {
		TestDataSet
		Nonce string
	}{TestData(), nonce}); err != nil {
		return serverError()
	}
	return withCSP(newReply(http.StatusOK, "text/html; charset=utf-8", b.Bytes()), nonce)
}
