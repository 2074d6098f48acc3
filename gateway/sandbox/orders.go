package sandbox

import (
	"bytes"
	"crypto/sha256"
	"encoding/base64"
	"html/template"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"
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
	archived        bool              // its newest version is in the archive, not in the log (archive.go)
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

// ---- what the endpoints share ----

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

func maxLen(s string, n int) bool { return utf8.RuneCountInString(s) <= n }

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

// rupees formats paise as rupees with two decimals.
func rupees(p int64) string {
	return strconv.FormatInt(p/100, 10) + "." + strconv.FormatInt(100+p%100, 10)[1:]
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
