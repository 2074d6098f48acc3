package sandbox

import (
	"encoding/base64"
	"encoding/json"
	"net/http/httptest"
	"net/url"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"galla/gateway"
)

func TestNewRejectsBadSecret(t *testing.T) {
	_, err := New(WithMerchant(Merchant{ID: "770002", AccessCode: "x", Secret: "nothex"}))
	require.ErrorIs(t, err, gateway.ErrSecret)
	_, err = New(WithMerchant(Merchant{ID: "77a", AccessCode: "x", Secret: DefaultSecret}))
	require.Error(t, err)
}

func TestCreateOrder(t *testing.T) {
	set := func(doc map[string]any, group, field string, v any) {
		doc[group].(map[string]any)[field] = v
	}
	tests := []struct {
		name     string
		edit     func(doc map[string]any)
		sig      func(good string) string
		status   int
		wantCode string
	}{
		{"valid", func(map[string]any) {}, nil, 200, ""},
		{"lower-case x-verify accepted", func(map[string]any) {}, strings.ToLower, 200, ""},
		{"wrong x-verify", func(map[string]any) {}, func(string) string { return strings.Repeat("AB", 32) }, 400, "1160"},
		{"missing x-verify", func(map[string]any) {}, func(string) string { return "" }, 400, "1160"},
		{"unknown merchant", func(d map[string]any) { set(d, "merchant_data", "merchant_id", "770999") }, nil, 400, "14845"},
		{"merchant id as number", func(d map[string]any) { set(d, "merchant_data", "merchant_id", 770001) }, nil, 400, "14845"},
		{"wrong access code", func(d map[string]any) { set(d, "merchant_data", "merchant_access_code", "nope") }, nil, 400, "14845"},
		{"order id with a space", func(d map[string]any) { set(d, "merchant_data", "merchant_order_id", "A B") }, nil, 400, "14845"},
		{"order id empty", func(d map[string]any) { set(d, "merchant_data", "merchant_order_id", "") }, nil, 400, "14845"},
		{"order id 201 chars", func(d map[string]any) { set(d, "merchant_data", "merchant_order_id", strings.Repeat("a", 201)) }, nil, 400, "14845"},
		{"order id 200 chars", func(d map[string]any) { set(d, "merchant_data", "merchant_order_id", strings.Repeat("a", 200)) }, nil, 200, ""},
		{"relative return url", func(d map[string]any) { set(d, "merchant_data", "merchant_return_url", "/return") }, nil, 400, "14845"},
		{"ftp return url", func(d map[string]any) { set(d, "merchant_data", "merchant_return_url", "ftp://x.example/") }, nil, 400, "14845"},
		{"return url 501 chars", func(d map[string]any) {
			set(d, "merchant_data", "merchant_return_url", "https://x.example/"+strings.Repeat("a", 483))
		}, nil, 400, "14845"},
		{"amount 99", func(d map[string]any) { set(d, "payment_info_data", "amount", 99) }, nil, 400, "14845"},
		{"amount 100", func(d map[string]any) { set(d, "payment_info_data", "amount", 100) }, nil, 200, ""},
		{"amount too large", func(d map[string]any) { set(d, "payment_info_data", "amount", int64(100000000001)) }, nil, 400, "14845"},
		{"amount as text", func(d map[string]any) { set(d, "payment_info_data", "amount", "1000") }, nil, 400, "14845"},
		{"amount fractional", func(d map[string]any) { set(d, "payment_info_data", "amount", 100.5) }, nil, 400, "14845"},
		{"currency USD", func(d map[string]any) { set(d, "payment_info_data", "currency_code", "USD") }, nil, 400, "14845"},
		{"order_desc 201", func(d map[string]any) { set(d, "payment_info_data", "order_desc", strings.Repeat("d", 201)) }, nil, 400, "14845"},
		{"mobile 21", func(d map[string]any) { set(d, "customer_data", "mobile_number", strings.Repeat("9", 21)) }, nil, 400, "14845"},
		{"email 101", func(d map[string]any) { set(d, "customer_data", "email_id", strings.Repeat("e", 95)+"@b.com") }, nil, 400, "14845"},
		{"first name 51", func(d map[string]any) {
			d["billing_address_data"] = map[string]any{"first_name": strings.Repeat("n", 51)}
		}, nil, 400, "14845"},
		{"address1 201", func(d map[string]any) {
			d["shipping_address_data"] = map[string]any{"address1": strings.Repeat("n", 201)}
		}, nil, 400, "14845"},
		{"city 51", func(d map[string]any) { d["shipping_address_data"] = map[string]any{"city": strings.Repeat("c", 51)} }, nil, 400, "14845"},
		{"unknown fields ignored", func(d map[string]any) { d["whatever"] = 1 }, nil, 200, ""},
		{"products add up", func(d map[string]any) {
			d["product_info_data"] = map[string]any{"product_details": []map[string]any{
				{"product_code": "A", "product_amount": 600}, {"product_code": "B", "product_amount": 400}}}
		}, nil, 200, ""},
		{"products do not add up", func(d map[string]any) {
			d["product_info_data"] = map[string]any{"product_details": []map[string]any{{"product_code": "A", "product_amount": 999}}}
		}, nil, 400, "1150"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := setup(t)
			doc := f.orderDoc(1000)
			tt.edit(doc)
			body, sig := signed(t, f.key, doc)
			if tt.sig != nil {
				sig = tt.sig(sig)
			}
			w := f.do("POST", "/api/v1/order/create", body, map[string]string{"x-verify": sig})
			require.Equal(t, tt.status, w.Code, w.Body.String())
			m := decode(t, w.Body.Bytes())
			if tt.wantCode != "" {
				assert.Equal(t, tt.wantCode, m["error_code"])
				assert.NotEmpty(t, m["error_message"])
				return
			}
			assert.NotEmpty(t, m["token"])
			assert.Regexp(t, `^\d+$`, m["service_order_id"])
		})
	}
}

func TestCreateOrderMalformedBodies(t *testing.T) {
	f := setup(t)
	for _, body := range []string{``, `{}`, `[]`, `{"request":""}`, `{"request":"***"}`,
		`{"request":"` + base64.StdEncoding.EncodeToString([]byte("not json")) + `"}`} {
		w := f.do("POST", "/api/v1/order/create", []byte(body), map[string]string{"x-verify": "00"})
		assert.Equal(t, 400, w.Code, body)
		assert.Equal(t, "14845", decode(t, w.Body.Bytes())["error_code"], body)
	}
}

func TestCreateOrderDuplicateAndToken(t *testing.T) {
	f := setup(t)
	doc := f.orderDoc(1000)
	w := f.createRaw(doc)
	require.Equal(t, 200, w.Code)
	m := decode(t, w.Body.Bytes())
	// Sequential tokens contain "+", "/" and "=": the answer carries them URL-encoded once.
	assert.Equal(t, url.QueryEscape("SBX+TOKEN/000001=="), m["token"])
	assert.Equal(t, "100000001", m["service_order_id"])

	w = f.createRaw(doc)
	assert.Equal(t, 400, w.Code)
	assert.Equal(t, map[string]any{"error_code": "1130", "error_message": "DUPLICATE_ORDER_RECEIVED_ON_MERCHANT"}, decode(t, w.Body.Bytes()))
	assert.Len(t, f.sb.Controls.Ledger(), 1)

	// Another merchant may reuse the merchant order id.
	other := Merchant{ID: "770002", AccessCode: "code-2", Secret: "00112233445566778899AABBCCDDEEFF"}
	f2 := setup(t, WithMerchant(other))
	doc2 := f.orderDoc(1000)
	require.Equal(t, 200, f2.createRaw(doc2).Code)
	f2.key, _ = gateway.DecodeSecret(other.Secret)
	doc2["merchant_data"].(map[string]any)["merchant_id"] = other.ID
	doc2["merchant_data"].(map[string]any)["merchant_access_code"] = other.AccessCode
	assert.Equal(t, 200, f2.createRaw(doc2).Code)
}

func TestCardPaymentRules(t *testing.T) {
	past := card("4111111111111111")
	past["card_expiry_year"], past["card_expiry_month"] = "2026", "10"
	thisMonth := card("4111111111111111")
	thisMonth["card_expiry_year"], thisMonth["card_expiry_month"] = "2026", "11"
	with := func(k string, v any) map[string]any {
		c := card("4111111111111111")
		c[k] = v
		return c
	}
	tests := []struct {
		name   string
		card   map[string]any
		status int
		code   float64
	}{
		{"valid", card("4111111111111111"), 200, 1},
		{"expiring this month", thisMonth, 200, 1},
		{"luhn fails", card("4111111111111112"), 400, 14845},
		{"11 digits", card("41111111116"), 400, 14845},
		{"20 digits", card("41111111111111111113"), 400, 14845},
		{"spaces", card("4111 1111 1111 1111"), 400, 14845},
		{"expired", past, 400, 14845},
		{"month 13", with("card_expiry_month", "13"), 400, 14845},
		{"month one digit", with("card_expiry_month", "1"), 400, 14845},
		{"year two digits", with("card_expiry_year", "30"), 400, 14845},
		{"cvv 4 digits on visa", with("cvv", "1234"), 400, 14845},
		{"cvv letters", with("cvv", "12a"), 400, 14845},
		{"amex needs 4", func() map[string]any { c := card("378282246310005"); c["cvv"] = "123"; return c }(), 400, 14845},
		{"amex with 4", card("378282246310005"), 200, 1},
		{"holder empty", with("card_holder_name", " "), 400, 14845},
		{"holder 51", with("card_holder_name", strings.Repeat("h", 51)), 400, 14845},
		{"holder 50", with("card_holder_name", strings.Repeat("h", 50)), 200, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := setup(t)
			tok, _ := f.create(1000)
			w := f.payRaw(tok, tt.card)
			require.Equal(t, tt.status, w.Code, w.Body.String())
			m := decode(t, w.Body.Bytes())
			assert.Equal(t, tt.code, m["response_code"])
			if tt.status == 200 {
				assert.Equal(t, "SUCCESS", m["response_message"])
				assert.Equal(t, float64(1000), m["amount_in_paise"])
				assert.Contains(t, m["content"], "/acs/")
				assert.Equal(t, orderAttempted, f.ledger("100000001").Status)
			}
		})
	}
}

func TestCardPaymentErrors(t *testing.T) {
	f := setup(t)
	tok, _ := f.create(1000)
	body, _ := json.Marshal(map[string]any{"card_data": card("4111111111111111")})

	w := f.do("POST", "/api/v1/card/process/payment?token="+tok, body, nil)
	assert.Equal(t, 400, w.Code)
	assert.Equal(t, float64(14845), decode(t, w.Body.Bytes())["response_code"], "no checkoutmode")

	w = f.do("POST", "/api/v1/card/process/payment?token="+tok, body, map[string]string{"checkoutmode": "IFRAME"})
	assert.Equal(t, float64(14845), decode(t, w.Body.Bytes())["response_code"], "wrong checkoutmode")

	w = f.do("POST", "/api/v1/card/process/payment?token=nope", body, map[string]string{"checkoutmode": "SEAMLESS"})
	assert.Equal(t, 401, w.Code)
	assert.Equal(t, map[string]any{"error_code": "4011", "error_message": "INVALID_TOKEN"}, decode(t, w.Body.Bytes()))

	// Encoding the token twice is wrong: the sandbox accepts it encoded once.
	w = f.do("POST", "/api/v1/card/process/payment?token="+url.QueryEscape(tok), body, map[string]string{"checkoutmode": "SEAMLESS"})
	assert.Equal(t, 401, w.Code)

	w = f.do("POST", "/api/v1/card/process/payment?token="+tok, []byte("{"), map[string]string{"checkoutmode": "SEAMLESS"})
	assert.Equal(t, float64(14845), decode(t, w.Body.Bytes())["response_code"], "bad JSON")

	// Customer data in neither the order nor the payment.
	doc := f.orderDoc(1000)
	doc["customer_data"] = map[string]any{}
	w = f.createRaw(doc)
	require.Equal(t, 200, w.Code)
	tok2 := decode(t, w.Body.Bytes())["token"].(string)
	w = f.payRaw(tok2, card("4111111111111111"))
	assert.Equal(t, float64(14845), decode(t, w.Body.Bytes())["response_code"], "no customer data")
	// ... present in the payment call (customer_data.mobile_no) is enough.
	body, _ = json.Marshal(map[string]any{"card_data": card("4111111111111111"),
		"customer_data": map[string]any{"country_code": "91", "mobile_no": "9876543210", "email_id": "a@b.in"}})
	w = f.do("POST", "/api/v1/card/process/payment?token="+tok2, body, map[string]string{"checkoutmode": "SEAMLESS"})
	assert.Equal(t, 200, w.Code, w.Body.String())
}

func TestTokenExpiry(t *testing.T) {
	f := setup(t)
	tok, id := f.create(1000)
	f.clock.Advance(TokenLifetime - time.Second)
	assert.Equal(t, orderCreated, f.inquire(id, "").OrderData.OrderStatus)
	f.clock.Advance(time.Second)
	w := f.payRaw(tok, card("4111111111111111"))
	assert.Equal(t, 401, w.Code)
	assert.Equal(t, map[string]any{"error_code": "4011", "error_message": "TOKEN_EXPIRED"}, decode(t, w.Body.Bytes()))
	assert.Equal(t, orderFailed, f.inquire(id, "").OrderData.OrderStatus, "an unpaid order reads FAILED after expiry")

	// A payment left at the OTP step fails when the token expires.
	tok, id = f.create(1000)
	pid := f.pay(tok, "4111111111111111")
	f.clock.Advance(TokenLifetime)
	d := f.inquire(id, pid)
	assert.Equal(t, orderFailed, d.OrderData.OrderStatus)
	assert.Equal(t, statusFailed, d.PaymentInfoData.PaymentStatus)
}

func TestCardOutcomes(t *testing.T) {
	tests := []struct {
		number, orderStatus, paymentStatus string
		code                               int
		message                            string
		issuer                             string
	}{
		{"4111111111111111", orderCharged, statusCaptured, 1, "SUCCESS", "NONE"},
		{"378282246310005", orderCharged, statusCaptured, 1, "SUCCESS", "NONE"},
		{"4000000000000002", orderAttempted, statusFailed, 5, "Transaction declined by issuer", "NONE"},
		{"4000000000009995", orderAttempted, statusFailed, 51, "Insufficient funds", "NONE"},
		{"4000000000000069", orderAttempted, statusFailed, 54, "Expired card", "NONE"},
		{"4386280000000004", orderCharged, statusCaptured, 1, "SUCCESS", "HDFC"},
		{"5522600000000005", orderCharged, statusCaptured, 1, "SUCCESS", "ICICI"},
		{"5126520000000005", orderCharged, statusCaptured, 1, "SUCCESS", "AXIS"},
	}
	for _, tt := range tests {
		t.Run(tt.number, func(t *testing.T) {
			f := setup(t)
			tok, id := f.create(250000)
			pid := f.pay(tok, tt.number)
			d := f.inquire(id, pid)
			assert.Equal(t, orderAttempted, d.OrderData.OrderStatus, "before the OTP")
			assert.Equal(t, statusPending, d.PaymentInfoData.PaymentStatus)
			assert.Equal(t, "NA", d.PaymentInfoData.PaymentCompletionDateTime)

			w := f.acs(pid, url.Values{"otp": {TestOTP}})
			require.Equal(t, 303, w.Code)
			assert.Equal(t, "https://shop.example/return?payment_id="+pid+"&service_order_id="+id, w.Header().Get("Location"))

			d = f.inquire(id, pid)
			assert.Equal(t, tt.orderStatus, d.OrderData.OrderStatus)
			pi := d.PaymentInfoData
			assert.Equal(t, tt.paymentStatus, pi.PaymentStatus)
			assert.Equal(t, tt.code, pi.PaymentResponseCode)
			assert.Equal(t, tt.message, pi.PaymentResponseMessage)
			assert.Equal(t, tt.issuer, pi.IssuerName)
			assert.Equal(t, "2026-11-22T10:00:00.000Z", pi.PaymentCompletionDateTime)
			assert.Equal(t, "XXXXXXXXXXXX"+tt.number[len(tt.number)-4:], pi.MaskedCardNumber)
			assert.Equal(t, "CREDIT_DEBIT", pi.PaymentMode)
			if tt.paymentStatus == statusCaptured {
				assert.Equal(t, "250000", pi.CapturedAmountInPaisa)
				assert.Regexp(t, `^\d{6}$`, pi.AuthCode)
				assert.Regexp(t, `^\d{12}$`, pi.RRN)
			} else {
				assert.Equal(t, "NA", pi.CapturedAmountInPaisa)
			}
			lo := f.ledger(id)
			assert.LessOrEqual(t, lo.CapturedPayments, 1)
		})
	}
}

func TestFrictionlessAndPendingCards(t *testing.T) {
	f := setup(t)
	tok, id := f.create(1000)
	pid := f.pay(tok, "5555555555554444")
	assert.Equal(t, statusCaptured, f.inquire(id, pid).PaymentInfoData.PaymentStatus, "captured at once")
	// The content form still posts on: the ACS step redirects straight back.
	w := f.acs(pid, url.Values{"payment_id": {pid}})
	assert.Equal(t, 303, w.Code)
	w = f.payRaw(tok, card("4111111111111111"))
	assert.Equal(t, map[string]any{"error_code": "1140", "error_message": "ORDER_ALREADY_PAID"}, decode(t, w.Body.Bytes()))

	tok, id = f.create(1000)
	pid = f.pay(tok, "4000000000000119")
	require.Equal(t, 303, f.acs(pid, url.Values{"otp": {TestOTP}}).Code)
	d := f.inquire(id, "")
	assert.Equal(t, orderPending, d.OrderData.OrderStatus)
	assert.Equal(t, statusPending, d.PaymentInfoData.PaymentStatus)
	f.clock.Advance(PendingHold - time.Millisecond)
	assert.Equal(t, statusPending, f.inquire(id, "").PaymentInfoData.PaymentStatus)
	f.clock.Advance(time.Millisecond)
	d = f.inquire(id, "")
	assert.Equal(t, orderCharged, d.OrderData.OrderStatus)
	assert.Equal(t, statusCaptured, d.PaymentInfoData.PaymentStatus)
	assert.Equal(t, "2026-11-22T10:00:20.000Z", d.PaymentInfoData.PaymentCompletionDateTime)
}

func TestACSPageAndAttempts(t *testing.T) {
	f := setup(t)
	tok, id := f.create(1000)
	pid := f.pay(tok, "4111111111111111")

	w := f.do("GET", "/acs/"+pid, nil, nil)
	require.Equal(t, 200, w.Code)
	page := w.Body.String()
	assert.Contains(t, page, `name="otp"`)
	assert.Contains(t, page, `>Submit</button>`)
	assert.Contains(t, page, `value="cancel"`)
	assert.Contains(t, page, "10.00")
	assert.NotContains(t, page, "4111111111111111")

	// The auto-submitting form of the payment answer lands on the OTP page too.
	assert.Equal(t, 200, f.acs(pid, url.Values{"payment_id": {pid}}).Code)

	require.Equal(t, 303, f.acs(pid, url.Values{"otp": {"000000"}}).Code)
	d := f.inquire(id, pid)
	assert.Equal(t, statusFailed, d.PaymentInfoData.PaymentStatus)
	assert.Equal(t, codeAuthFailed, d.PaymentInfoData.PaymentResponseCode)
	assert.Equal(t, orderAttempted, d.OrderData.OrderStatus, "attempts are left")

	pid2 := f.pay(tok, "4111111111111111")
	require.Equal(t, 303, f.acs(pid2, url.Values{"action": {"cancel"}}).Code)
	assert.Equal(t, "Cancelled by user", f.inquire(id, pid2).PaymentInfoData.PaymentResponseMessage)
	// A late OTP for a finished payment changes nothing.
	require.Equal(t, 303, f.acs(pid2, url.Values{"otp": {TestOTP}}).Code)
	assert.Equal(t, statusFailed, f.inquire(id, pid2).PaymentInfoData.PaymentStatus)

	pid3 := f.pay(tok, "4000000000000002")
	require.Equal(t, 303, f.acs(pid3, url.Values{"otp": {TestOTP}}).Code)
	assert.Equal(t, orderFailed, f.inquire(id, "").OrderData.OrderStatus, "three failed attempts")

	w = f.payRaw(tok, card("4111111111111111"))
	assert.Equal(t, 401, w.Code, "no fourth attempt")
	assert.Equal(t, "4011", decode(t, w.Body.Bytes())["error_code"])
	assert.Equal(t, 404, f.do("GET", "/acs/999", nil, nil).Code)
}

func TestInquiry(t *testing.T) {
	f := setup(t)
	_, id := f.create(1000, product{"SONY-WH1000XM5", 1000})

	tests := []struct {
		name, path, auth string
		status           int
		code             string
	}{
		{"no auth", "/api/v1/inquiry/order/" + id, "", 401, "401"},
		{"wrong access code", "/api/v1/inquiry/order/" + id, basic(DefaultMerchantID, "x"), 401, "401"},
		{"unknown merchant", "/api/v1/inquiry/order/" + id, basic("1", DefaultAccessCode), 401, "401"},
		{"unknown order", "/api/v1/inquiry/order/42", defaultAuth, 404, "404"},
		{"no such payment", "/api/v1/inquiry/order/" + id + "/payment/42", defaultAuth, 404, "4040"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			w := f.do("GET", tt.path, nil, map[string]string{"Authorization": tt.auth})
			assert.Equal(t, tt.status, w.Code)
			assert.Equal(t, tt.code, decode(t, w.Body.Bytes())["error_code"])
		})
	}

	// An order with no payment: NA everywhere a value does not exist yet.
	w := f.do("GET", "/api/v1/inquiry/order/"+id, nil, map[string]string{"Authorization": defaultAuth})
	require.Equal(t, 200, w.Code)
	raw := decode(t, w.Body.Bytes())
	pi := raw["payment_info_data"].(map[string]any)
	for _, k := range []string{"auth_code", "captured_amount_in_paisa", "masked_card_number", "payment_id", "payment_status", "rrn", "payment_completion_date_time", "udf_field_1"} {
		assert.Equal(t, "NA", pi[k], k)
	}
	assert.Equal(t, "NONE", pi["issuer_name"])
	assert.Equal(t, "SONY-WH1000XM5", pi["product_code"])
	assert.Equal(t, float64(770001), raw["merchant_data"].(map[string]any)["merchant_id"])
	assert.Equal(t, "ORDER-1", raw["merchant_data"].(map[string]any)["order_id"])
	assert.Equal(t, float64(100000001), raw["order_data"].(map[string]any)["service_order_id"])
	assert.Equal(t, "ORDER_CREATED", raw["order_data"].(map[string]any)["order_status"])
	// x-verify covers base64 of the raw bytes.
	require.NoError(t, gateway.Verify(f.key, base64.StdEncoding.EncodeToString(w.Body.Bytes()), w.Header().Get("x-verify")))

	// Another merchant cannot read this order.
	other := Merchant{ID: "770002", AccessCode: "code-2", Secret: "00112233445566778899AABBCCDDEEFF"}
	f2 := setup(t, WithMerchant(other))
	_, id2 := f2.create(1000)
	w = f2.do("GET", "/api/v1/inquiry/order/"+id2, nil, map[string]string{"Authorization": basic(other.ID, other.AccessCode)})
	assert.Equal(t, 404, w.Code)
}

func TestCompletionTimeFormat(t *testing.T) {
	f := setup(t)
	f.clock.Advance(1234 * time.Millisecond)
	tok, id := f.create(1000)
	pid := f.pay(tok, "5555555555554444")
	got := f.inquire(id, pid).PaymentInfoData.PaymentCompletionDateTime
	assert.Regexp(t, regexp.MustCompile(`^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$`), got)
	assert.Equal(t, "2026-11-22T10:00:01.234Z", got)
}

// refund posts a signed refund with Basic auth.
func (f *fix) refundRaw(inner map[string]any, auth string) *httptest.ResponseRecorder {
	f.t.Helper()
	body, sig := signed(f.t, f.key, inner)
	return f.do("POST", "/api/v1/refunds/payment/refund", body, map[string]string{"x-verify": sig, "Authorization": auth})
}

func TestRefund(t *testing.T) {
	f := setup(t)
	tok, id := f.create(100000)
	pid := f.pay(tok, "5555555555554444")
	req := func(txn string, amount int64) map[string]any {
		return map[string]any{"unique_txn_id": txn, "amount_in_paise": amount, "merchant_id": 770001,
			"order_id": atoi(id), "payment_id": atoi(pid)}
	}

	w := f.refundRaw(req("R1", 30000), "")
	assert.Equal(t, 401, w.Code, "Basic auth required")
	body, _ := signed(t, f.key, req("R1", 30000))
	w = f.do("POST", "/api/v1/refunds/payment/refund", body, map[string]string{"x-verify": strings.Repeat("0", 64), "Authorization": defaultAuth})
	assert.Equal(t, "1160", decode(t, w.Body.Bytes())["error_code"])
	assert.Equal(t, "14845", decode(t, f.refundRaw(req("R0", 99), defaultAuth).Body.Bytes())["error_code"], "under 100")
	assert.Equal(t, "14845", decode(t, f.refundRaw(req("R0", 100001), defaultAuth).Body.Bytes())["error_code"], "over captured")
	bad := req("R0", 1000)
	bad["payment_id"] = 5
	assert.Equal(t, "4040", decode(t, f.refundRaw(bad, defaultAuth).Body.Bytes())["error_code"])

	w = f.refundRaw(req("R1", 30000), defaultAuth)
	require.Equal(t, 200, w.Code, w.Body.String())
	require.NoError(t, gateway.Verify(f.key, base64.StdEncoding.EncodeToString(w.Body.Bytes()), w.Header().Get("x-verify")))
	var d inquiryDoc
	require.NoError(t, json.Unmarshal(w.Body.Bytes(), &d))
	assert.Equal(t, orderPartialRefunded, d.OrderData.OrderStatus)
	assert.Equal(t, statusPartialRefunded, d.PaymentInfoData.PaymentStatus)
	assert.Equal(t, "30000", d.PaymentInfoData.RefundAmountInPaisa)
	assert.Equal(t, "30000", d.OrderData.RefundAmount)
	assert.Equal(t, "300000001", d.PaymentInfoData.RefundID)

	w = f.refundRaw(req("R1", 30000), defaultAuth)
	assert.Equal(t, map[string]any{"error_code": "1170", "error_message": "DUPLICATE_UNIQUE_ID_FOUND"}, decode(t, w.Body.Bytes()))
	assert.Equal(t, "14845", decode(t, f.refundRaw(req("R2", 70001), defaultAuth).Body.Bytes())["error_code"], "more than what is left")

	w = f.refundRaw(req("R2", 70000), defaultAuth)
	require.Equal(t, 200, w.Code)
	require.NoError(t, json.Unmarshal(w.Body.Bytes(), &d))
	assert.Equal(t, orderRefunded, d.OrderData.OrderStatus)
	assert.Equal(t, statusRefunded, d.PaymentInfoData.PaymentStatus)
	lo := f.ledger(id)
	assert.Equal(t, int64(100000), lo.RefundedAmount)
	assert.Equal(t, int64(100000), lo.CapturedAmount)

	// Nothing captured: nothing to refund.
	tok2, id2 := f.create(1000)
	pid2 := f.pay(tok2, "4111111111111111")
	r2 := map[string]any{"unique_txn_id": "R9", "amount_in_paise": 500, "merchant_id": 770001, "order_id": atoi(id2), "payment_id": atoi(pid2)}
	assert.Equal(t, "14845", decode(t, f.refundRaw(r2, defaultAuth).Body.Bytes())["error_code"])
}
