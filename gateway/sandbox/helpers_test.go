package sandbox

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"galla/gateway"
	"galla/internal/testclock"
)

// fix is one sandbox under test with a fake clock and sequential ids.
type fix struct {
	t     *testing.T
	sb    *Sandbox
	clock *testclock.Clock
	key   []byte
	n     int // merchant order id counter
}

var start = time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC)

func setup(t *testing.T, opts ...Option) *fix {
	t.Helper()
	c := testclock.New(start)
	// The handler is called as a server on the host sandbox.test would call it.
	sb, err := New(append([]Option{WithClock(c.Now), WithIDs(Sequential()), WithAllowedHosts("sandbox.test")}, opts...)...)
	require.NoError(t, err)
	key, err := gateway.DecodeSecret(DefaultSecret)
	require.NoError(t, err)
	return &fix{t: t, sb: sb, clock: c, key: key}
}

// do serves one request through the handler.
func (f *fix) do(method, target string, body []byte, header map[string]string) *httptest.ResponseRecorder {
	f.t.Helper()
	req := httptest.NewRequest(method, "http://sandbox.test"+target, bytes.NewReader(body))
	for k, v := range header {
		req.Header.Set(k, v)
	}
	w := httptest.NewRecorder()
	f.sb.ServeHTTP(w, req)
	return w
}

func basic(id, code string) string {
	return "Basic " + base64.StdEncoding.EncodeToString([]byte(id+":"+code))
}

var defaultAuth = basic(DefaultMerchantID, DefaultAccessCode)

// signed returns {"request": base64(inner)} and its x-verify under key.
func signed(t *testing.T, key []byte, inner any) ([]byte, string) {
	t.Helper()
	raw, err := json.Marshal(inner)
	require.NoError(t, err)
	b := base64.StdEncoding.EncodeToString(raw)
	body, err := json.Marshal(map[string]string{"request": b})
	require.NoError(t, err)
	return body, gateway.Sign(key, b)
}

// orderDoc is a valid create-order inner document.
func (f *fix) orderDoc(amount int64, products ...product) map[string]any {
	f.n++
	doc := map[string]any{
		"merchant_data": map[string]any{
			"merchant_id": DefaultMerchantID, "merchant_access_code": DefaultAccessCode,
			"merchant_return_url": "https://shop.example/return", "merchant_order_id": fmt.Sprintf("ORDER-%d", f.n),
		},
		"payment_info_data": map[string]any{"amount": amount, "currency_code": "INR", "order_desc": "test order"},
		"customer_data":     map[string]any{"country_code": "91", "mobile_number": "9876543210", "email_id": "a@b.in"},
	}
	if len(products) > 0 {
		var pd []map[string]any
		for _, p := range products {
			pd = append(pd, map[string]any{"product_code": p.Code, "product_amount": p.Amount})
		}
		doc["product_info_data"] = map[string]any{"product_details": pd}
	}
	return doc
}

func (f *fix) createRaw(doc map[string]any) *httptest.ResponseRecorder {
	f.t.Helper()
	body, sig := signed(f.t, f.key, doc)
	return f.do("POST", "/api/v1/order/create", body, map[string]string{"x-verify": sig, "Content-Type": "application/json"})
}

// create makes an order and returns its (URL-encoded) token and service order id.
func (f *fix) create(amount int64, products ...product) (string, string) {
	f.t.Helper()
	w := f.createRaw(f.orderDoc(amount, products...))
	require.Equal(f.t, 200, w.Code, w.Body.String())
	var r struct{ Token, ServiceOrderID string }
	var m map[string]string
	require.NoError(f.t, json.Unmarshal(w.Body.Bytes(), &m))
	r.Token, r.ServiceOrderID = m["token"], m["service_order_id"]
	require.NotEmpty(f.t, r.Token)
	return r.Token, r.ServiceOrderID
}

func card(number string) map[string]any {
	cvv := "123"
	if strings.HasPrefix(number, "34") || strings.HasPrefix(number, "37") {
		cvv = "1234"
	}
	return map[string]any{"card_number": number, "cvv": cvv, "card_holder_name": "Asha Rao",
		"card_expiry_year": "2030", "card_expiry_month": "12"}
}

func (f *fix) payRaw(token string, cardData map[string]any) *httptest.ResponseRecorder {
	f.t.Helper()
	body, err := json.Marshal(map[string]any{"card_data": cardData, "customer_data": map[string]any{}})
	require.NoError(f.t, err)
	return f.do("POST", "/api/v1/card/process/payment?token="+token, body, map[string]string{"checkoutmode": "SEAMLESS"})
}

// pay makes a card payment and returns its payment id.
func (f *fix) pay(token, number string) string {
	f.t.Helper()
	w := f.payRaw(token, card(number))
	require.Equal(f.t, 200, w.Code, w.Body.String())
	var r paymentReply
	require.NoError(f.t, json.Unmarshal(w.Body.Bytes(), &r))
	require.Equal(f.t, 1, r.ResponseCode)
	return fmt.Sprint(r.PaymentID)
}

// acs posts the OTP form of a payment.
func (f *fix) acs(paymentID string, form url.Values) *httptest.ResponseRecorder {
	f.t.Helper()
	return f.do("POST", "/acs/"+paymentID, []byte(form.Encode()), map[string]string{"Content-Type": "application/x-www-form-urlencoded"})
}

// inquire reads an order (paymentID "" for the order inquiry), checks x-verify
// and decodes the document.
func (f *fix) inquire(orderID, paymentID string) inquiryDoc {
	f.t.Helper()
	path := "/api/v1/inquiry/order/" + orderID
	if paymentID != "" {
		path += "/payment/" + paymentID
	}
	w := f.do("GET", path, nil, map[string]string{"Authorization": defaultAuth})
	require.Equal(f.t, 200, w.Code, w.Body.String())
	require.NoError(f.t, gateway.Verify(f.key, base64.StdEncoding.EncodeToString(w.Body.Bytes()), w.Header().Get("x-verify")))
	var d inquiryDoc
	require.NoError(f.t, json.Unmarshal(w.Body.Bytes(), &d))
	return d
}

// decode reads a JSON answer into a map.
func decode(t *testing.T, b []byte) map[string]any {
	t.Helper()
	var m map[string]any
	require.NoError(t, json.Unmarshal(b, &m), string(b))
	return m
}

func (f *fix) ledger(orderID string) LedgerOrder {
	f.t.Helper()
	for _, o := range f.sb.Controls.Ledger() {
		if o.ServiceOrderID == orderID {
			return o
		}
	}
	f.t.Fatalf("order %s not in the ledger", orderID)
	return LedgerOrder{}
}
