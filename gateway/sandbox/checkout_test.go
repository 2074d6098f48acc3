package sandbox

import (
	"encoding/json"
	"net/url"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// hosted posts to one of the hosted page's calls.
func (f *fix) hosted(path string, v any) (int, map[string]any) {
	f.t.Helper()
	b, err := json.Marshal(v)
	require.NoError(f.t, err)
	w := f.do("POST", "/checkout/v1/api/"+path, b, nil)
	return w.Code, decode(f.t, w.Body.Bytes())
}

func TestHostedPageOptions(t *testing.T) {
	f := setup(t)
	tok, _ := f.create(899990, product{"LG-WM9KG", 899990})
	w := f.do("GET", "/checkout/v1/pay?orderToken="+tok+"&theme=black&paymentMode=UPI,EMI,bogus&showSavedCardsFeature=false&mobileNumber=98765&emailId=x%40y.in", nil, nil)
	require.Equal(t, 200, w.Code)
	page := w.Body.String()
	for _, want := range []string{`"theme":"black"`, `"modes":["UPI","EMI"]`, `"showSavedCardsFeature":false`,
		`"mobileNumber":"98765"`, `"emailId":"x@y.in"`, `"amount":"8999.90"`, `"issuer":"HDFC"`, `"mode":"EMI"`} {
		has(t, page, want)
	}
	assert.False(t, strings.Contains(page, `"mode":"DEBIT_EMI"`), "only the modes asked for")

	w = f.do("GET", "/checkout/v1/pay?orderToken="+tok, nil, nil)
	page = w.Body.String()
	has(t, page, `"modes":["CREDIT_DEBIT","NETBANKING","UPI","WALLET","EMI","DEBIT_EMI"]`) // all modes by default
	has(t, page, `"theme":"default"`)
	has(t, page, `"showSavedCardsFeature":true`)
	has(t, page, `"mobileNumber":"9876543210"`) // the order's mobile is the default

	w = f.do("GET", "/checkout/v1/pay?orderToken=nope", nil, nil)
	has(t, w.Body.String(), `"error_code":"4011"`)

	w = f.do("GET", "/checkout/v1/checkout.js", nil, nil)
	assert.Equal(t, "text/javascript; charset=utf-8", w.Header().Get("Content-Type"))
	for _, want := range []string{"window.Checkout = Checkout", "Checkout.prototype.open", "Checkout.prototype.close",
		"successHandler", "failedHandler", `addEventListener("message"`, "/checkout/v1/pay?"} {
		assert.Contains(t, w.Body.String(), want)
	}
}

func TestHostedPayments(t *testing.T) {
	cardOf := func(n string) map[string]any { return card(n) }
	f := setup(t)

	// Simulated modes succeed at once.
	for _, mode := range []string{"UPI", "NETBANKING", "WALLET"} {
		tok, id := f.create(1000)
		code, m := f.hosted("pay", map[string]any{"orderToken": unescape(t, tok), "mode": mode, "bank": "HDFC"})
		require.Equal(t, 200, code, m)
		assert.Equal(t, "CAPTURED", m["status"])
		assert.Equal(t, id, m["service_order_id"])
		d := f.inquire(id, "")
		assert.Equal(t, orderCharged, d.OrderData.OrderStatus)
		assert.Equal(t, mode, d.PaymentInfoData.PaymentMode)
	}

	// A card: the OTP step, then captured; a second payment is refused.
	tok, id := f.create(1000)
	raw := unescape(t, tok)
	code, m := f.hosted("pay", map[string]any{"orderToken": raw, "mode": "CREDIT_DEBIT", "card": cardOf("4000000000000119")})
	require.Equal(t, 200, code, m)
	assert.Equal(t, "AUTH", m["status"])
	pid := m["payment_id"].(string)
	assert.Equal(t, 404, f.do("GET", "/acs/"+pid, nil, nil).Code, "hosted payments authenticate in the hosted page")
	_, m = f.hosted("otp", map[string]any{"orderToken": raw, "payment_id": pid, "otp": TestOTP})
	assert.Equal(t, "PENDING", m["status"])
	f.clock.Advance(PendingHold)
	_, m = f.hosted("status", map[string]any{"orderToken": raw, "payment_id": pid})
	assert.Equal(t, "CAPTURED", m["status"])
	code, m = f.hosted("pay", map[string]any{"orderToken": raw, "mode": "UPI"})
	assert.Equal(t, 400, code)
	assert.Equal(t, "1140", m["error_code"])
	assert.Equal(t, orderCharged, f.ledger(id).Status)

	// Cancel fails the attempt with the interface's sample error.
	tok, _ = f.create(1000)
	raw = unescape(t, tok)
	_, m = f.hosted("pay", map[string]any{"orderToken": raw, "mode": "CREDIT_DEBIT", "card": cardOf("4111111111111111")})
	_, m = f.hosted("otp", map[string]any{"orderToken": raw, "payment_id": m["payment_id"], "action": "cancel"})
	assert.Equal(t, map[string]any{"status": "FAILED", "payment_id": "200000005", "service_order_id": "100000005",
		"error_code": "1021", "error_message": "Cancelled by user"}, m)
	code, _ = f.hosted("otp", map[string]any{"orderToken": "other", "payment_id": "200000005", "otp": TestOTP})
	assert.Equal(t, 404, code, "the token must match the payment")

	// Bad card and missing contact data.
	code, m = f.hosted("pay", map[string]any{"orderToken": raw, "mode": "CREDIT_DEBIT", "card": cardOf("4111111111111112")})
	assert.Equal(t, 400, code)
	assert.Equal(t, float64(14845), m["response_code"])
	doc := f.orderDoc(1000)
	doc["customer_data"] = map[string]any{}
	w := f.createRaw(doc)
	noContact := unescape(t, decode(t, w.Body.Bytes())["token"].(string))
	code, _ = f.hosted("pay", map[string]any{"orderToken": noContact, "mode": "UPI"})
	assert.Equal(t, 400, code)
	code, _ = f.hosted("pay", map[string]any{"orderToken": noContact, "mode": "UPI", "customer": map[string]any{"mobile": "9", "email": "a@b"}})
	assert.Equal(t, 200, code)
}

func TestHostedEMI(t *testing.T) {
	f := setup(t)
	tok, id := f.create(8999900, product{"LG-OLED55C4", 8999900})
	raw := unescape(t, tok)
	pay := func(mode, issuer string, tenure int, number string) (int, map[string]any) {
		return f.hosted("pay", map[string]any{"orderToken": raw, "mode": mode, "issuer": issuer, "tenure": tenure, "card": card(number)})
	}
	code, m := pay("EMI", "HDFC", 6, "5522600000000005")
	assert.Equal(t, 400, code)
	assert.Equal(t, float64(14826), m["response_code"], "an ICICI card on an HDFC plan")
	code, m = pay("EMI", "HDFC", 5, "4386280000000004")
	assert.Equal(t, 400, code)
	assert.Equal(t, float64(14819), m["response_code"], "no such tenure")
	code, m = pay("EMI", "AXIS", 6, "5126520000000005")
	assert.Equal(t, 400, code)
	assert.Equal(t, float64(14819), m["response_code"], "AXIS is debit EMI")
	code, m = pay("DEBIT_EMI", "AXIS", 6, "5126520000000005")
	require.Equal(t, 200, code, m)
	_, m = f.hosted("otp", map[string]any{"orderToken": raw, "payment_id": m["payment_id"], "otp": TestOTP})
	assert.Equal(t, "CAPTURED", m["status"])
	d := f.inquire(id, "")
	assert.Equal(t, "DEBIT_EMI", d.PaymentInfoData.PaymentMode)
	assert.Equal(t, "AXIS", d.PaymentInfoData.IssuerName)
	assert.Equal(t, "8999900", d.PaymentInfoData.CapturedAmountInPaisa)

	// Brand plans that need an IMEI are not offered by the hosted page.
	tok, _ = f.create(7999900, product{"SAMSUNG-S24", 7999900})
	page := f.do("GET", "/checkout/v1/pay?orderToken="+tok, nil, nil).Body.String()
	assert.False(t, strings.Contains(page, `"tenure":3,`), "no 3-month plan: SAMSUNG's needs an IMEI")
	has(t, page, `"tenure":9,`)
	raw = unescape(t, tok)
	code, m = f.hosted("pay", map[string]any{"orderToken": raw, "mode": "EMI", "issuer": "HDFC", "tenure": 3, "card": card("4386280000000004")})
	assert.Equal(t, 400, code)
	assert.Equal(t, float64(14831), m["response_code"])
	assert.True(t, strings.Contains(page, `"plans":[`))
}

func unescape(t *testing.T, s string) string {
	t.Helper()
	u, err := url.QueryUnescape(s)
	require.NoError(t, err)
	return u
}

// has checks that page contains want without printing the whole page.
func has(t *testing.T, page, want string) {
	t.Helper()
	if !strings.Contains(page, want) {
		t.Errorf("the page does not contain %s", want)
	}
}
