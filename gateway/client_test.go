package gateway

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

const (
	testMerchantID = "770001"
	testAccessCode = "9c1d0d6e-4f5b-4c57-a0f4-2f1e8b7d3a10"
	testReturnURL  = "https://shop.example/return"
	// apiPrefix mounts the fake service under a path, so that a request built from
	// an absolute path instead of the base URL fails loudly (as in go-github).
	apiPrefix = "/svc-prefix"
)

// fixture is a client wired to an httptest server whose mux the test fills.
type fixture struct {
	client *Client
	mux    *http.ServeMux
	server *httptest.Server
	key    []byte

	mu     sync.Mutex
	sleeps []time.Duration
}

// waits returns the waits the client asked for between retries.
func (f *fixture) waits() []time.Duration {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]time.Duration(nil), f.sleeps...)
}

// setup starts a fake service and a client for it. Retries wait no real time: the
// client's sleep records the wait and returns at once (or with ctx's error).
func setup(t *testing.T, mutate ...func(*Config)) *fixture {
	t.Helper()
	f := &fixture{mux: http.NewServeMux()}
	root := http.NewServeMux()
	root.Handle(apiPrefix+"/", http.StripPrefix(apiPrefix, f.mux))
	root.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		t.Errorf("request outside the base URL: %s %s", r.Method, r.URL.Path)
		http.Error(w, "outside the base URL", http.StatusBadGateway)
	})
	f.server = httptest.NewServer(root)
	t.Cleanup(f.server.Close)
	cfg := Config{
		BaseURL:    f.server.URL + apiPrefix + "/",
		MerchantID: testMerchantID,
		AccessCode: testAccessCode,
		Secret:     testSecret,
		ReturnURL:  testReturnURL,
		Timeout:    2 * time.Second,
		Retry:      Retry{Max: 3, Base: 10 * time.Millisecond, Cap: 80 * time.Millisecond},
	}
	for _, m := range mutate {
		m(&cfg)
	}
	c, err := New(cfg)
	require.NoError(t, err)
	c.jitter = func(d time.Duration) time.Duration { return d }
	c.sleep = func(ctx context.Context, d time.Duration) error {
		f.mu.Lock()
		f.sleeps = append(f.sleeps, d)
		f.mu.Unlock()
		return ctx.Err()
	}
	f.client = c
	f.key, err = DecodeSecret(testSecret)
	require.NoError(t, err)
	return f
}

// writeSigned writes a 200 JSON answer with its x-verify (contract section 1).
func (f *fixture) writeSigned(w http.ResponseWriter, body string) {
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("x-verify", Sign(f.key, base64.StdEncoding.EncodeToString([]byte(body))))
	_, _ = io.WriteString(w, body)
}

// writeSignedStatus writes a JSON answer of any status with its x-verify.
func (f *fixture) writeSignedStatus(w http.ResponseWriter, status int, body string) {
	w.Header().Set("x-verify", Sign(f.key, base64.StdEncoding.EncodeToString([]byte(body))))
	writeJSON(w, status, body)
}

func writeJSON(w http.ResponseWriter, status int, body string) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_, _ = io.WriteString(w, body)
}

// readBody reads a request body in a handler.
func readBody(t *testing.T, r *http.Request) []byte {
	t.Helper()
	b, err := io.ReadAll(r.Body)
	if err != nil {
		t.Errorf("reading the request body: %v", err)
	}
	return b
}

// decodeSignedRequest checks a signed body {"request": base64} and its x-verify and
// returns the inner JSON.
func (f *fixture) decodeSignedRequest(t *testing.T, r *http.Request, body []byte) map[string]any {
	t.Helper()
	var outer map[string]string
	require.NoError(t, json.Unmarshal(body, &outer))
	require.Len(t, outer, 1, "the signed body holds only request")
	b64 := outer["request"]
	assert.NoError(t, Verify(f.key, b64, r.Header.Get("x-verify")), "x-verify over the base64 text")
	assert.Equal(t, Sign(f.key, b64), r.Header.Get("x-verify"), "x-verify is sent upper-case")
	inner, err := base64.StdEncoding.DecodeString(b64)
	require.NoError(t, err)
	var m map[string]any
	d := json.NewDecoder(strings.NewReader(string(inner)))
	d.UseNumber()
	require.NoError(t, d.Decode(&m))
	return m
}

func basicAuth() string {
	return "Basic " + base64.StdEncoding.EncodeToString([]byte(testMerchantID+":"+testAccessCode))
}

func TestNewConfig(t *testing.T) {
	ok := Config{BaseURL: "http://127.0.0.1:7070", MerchantID: testMerchantID, AccessCode: testAccessCode, Secret: testSecret}
	tests := []struct {
		name   string
		mutate func(*Config)
		want   error
	}{
		{"bad secret", func(c *Config) { c.Secret = "nothex" }, ErrSecret},
		{"short secret", func(c *Config) { c.Secret = "ABCD" }, ErrSecret},
		{"relative base URL", func(c *Config) { c.BaseURL = "/api" }, ErrConfig},
		{"ftp base URL", func(c *Config) { c.BaseURL = "ftp://x" }, ErrConfig},
		{"base URL with query", func(c *Config) { c.BaseURL = "http://x/?a=b" }, ErrConfig},
		{"merchant id not digits", func(c *Config) { c.MerchantID = "77A001" }, ErrConfig},
		{"no access code", func(c *Config) { c.AccessCode = "" }, ErrConfig},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg := ok
			tt.mutate(&cfg)
			c, err := New(cfg)
			assert.ErrorIs(t, err, tt.want)
			assert.Nil(t, c)
		})
	}
	c, err := New(ok)
	require.NoError(t, err)
	assert.Equal(t, DefaultTimeout, c.timeout)
	assert.Equal(t, 15*time.Second, c.timeout, "the default deadline per request")
	assert.Equal(t, Retry{Max: 3, Base: 200 * time.Millisecond, Cap: 5 * time.Second}, c.retry)
}

func TestConfigAndClientPrintNoSecret(t *testing.T) {
	cfg := Config{BaseURL: "http://127.0.0.1:7070", MerchantID: testMerchantID, AccessCode: testAccessCode, Secret: testSecret}
	c, err := New(cfg)
	require.NoError(t, err)
	for _, verb := range []string{"%v", "%+v", "%#v", "%s"} {
		for _, v := range []any{cfg, &cfg, c} {
			out := fmt.Sprintf(verb, v)
			assert.NotContains(t, out, testSecret, "Sprintf(%q) = %s", verb, out)
			assert.NotContains(t, out, testAccessCode, "Sprintf(%q) = %s", verb, out)
		}
	}
}

func TestCreateOrder(t *testing.T) {
	f := setup(t)
	f.mux.HandleFunc("POST "+PathCreateOrder, func(w http.ResponseWriter, r *http.Request) {
		assert.Equal(t, "application/json", r.Header.Get("Accept"))
		assert.Equal(t, "application/json", r.Header.Get("Content-Type"))
		assert.Equal(t, "no-cache", r.Header.Get("Cache-Control"))
		assert.Empty(t, r.Header.Get("Authorization"))
		assert.Empty(t, r.Header.Get("Idempotency-Key"))
		assert.Empty(t, r.URL.RawQuery)
		m := f.decodeSignedRequest(t, r, readBody(t, r))
		md := m["merchant_data"].(map[string]any)
		assert.Equal(t, testMerchantID, md["merchant_id"], "merchant_id is a JSON string in create order")
		assert.Equal(t, testAccessCode, md["merchant_access_code"])
		assert.Equal(t, testReturnURL, md["merchant_return_url"], "the configured return URL fills in")
		assert.Equal(t, "SALE-1", md["merchant_order_id"])
		pi := m["payment_info_data"].(map[string]any)
		assert.Equal(t, json.Number("450000"), pi["amount"], "amount is a JSON integer")
		assert.Equal(t, "INR", pi["currency_code"])
		assert.Equal(t, "two phones", pi["order_desc"])
		cd := m["customer_data"].(map[string]any)
		assert.Equal(t, map[string]any{"country_code": "91", "mobile_number": "9876543210", "email_id": "a@b.in"}, cd)
		prods := m["product_info_data"].(map[string]any)["product_details"].([]any)
		require.Len(t, prods, 2)
		assert.Equal(t, map[string]any{"product_code": "SAMSUNG-S24", "product_amount": json.Number("300000")}, prods[0])
		assert.Equal(t, "Asha", m["billing_address_data"].(map[string]any)["first_name"])
		assert.Equal(t, "x", m["additional_info_data"].(map[string]any)["rfu1"])
		// service_order_id as a number: decoded leniently to text.
		writeJSON(w, http.StatusOK, `{"token":"tok%2Babc%3D%3D","service_order_id":1000000123}`)
	})
	res, err := f.client.CreateOrder(t.Context(), &Order{
		MerchantOrderID: "SALE-1", Amount: 450000, Description: "two phones",
		Customer: Customer{CountryCode: "91", Mobile: "9876543210", Email: "a@b.in"},
		Billing:  &Address{FirstName: "Asha"},
		Products: []ProductAmount{{"SAMSUNG-S24", 300000}, {"LG-WM9KG", 150000}},
		RFU1:     "x",
	})
	require.NoError(t, err)
	assert.Equal(t, &CreateOrderResponse{Token: "tok%2Babc%3D%3D", ServiceOrderID: "1000000123"}, res)
}

func TestCreateOrderInvalidInput(t *testing.T) {
	f := setup(t)
	_, err := f.client.CreateOrder(t.Context(), &Order{Amount: 100})
	assert.ErrorIs(t, err, ErrInvalidInput)
	_, err = f.client.CreateOrder(t.Context(), nil)
	assert.ErrorIs(t, err, ErrInvalidInput)
}

func TestCreateOrderMalformedAnswerIsOutcomeUnknown(t *testing.T) {
	f := setup(t)
	var n atomic.Int32
	f.mux.HandleFunc("POST "+PathCreateOrder, func(w http.ResponseWriter, r *http.Request) {
		n.Add(1)
		writeJSON(w, http.StatusOK, `{"token":`)
	})
	_, err := f.client.CreateOrder(t.Context(), &Order{MerchantOrderID: "SALE-2", Amount: 10000})
	assert.ErrorIs(t, err, ErrOutcomeUnknown)
	assert.ErrorIs(t, err, ErrMalformed)
	assert.Equal(t, int32(1), n.Load(), "a malformed answer is not retried")
}

// TestCreateOrderRetryResendsIdenticalBytes makes the first attempt lose its
// answer (the connection is closed after the body was read) and the second get a
// 500; the third succeeds. All three must carry the identical body and x-verify.
func TestCreateOrderRetryResendsIdenticalBytes(t *testing.T) {
	f := setup(t)
	var mu sync.Mutex
	var bodies, sigs []string
	f.mux.HandleFunc("POST "+PathCreateOrder, func(w http.ResponseWriter, r *http.Request) {
		b := readBody(t, r)
		mu.Lock()
		bodies = append(bodies, string(b))
		sigs = append(sigs, r.Header.Get("x-verify"))
		n := len(bodies)
		mu.Unlock()
		switch n {
		case 1:
			hijackClose(t, w)
		case 2:
			writeJSON(w, http.StatusInternalServerError, `{"error_code":"14020","error_message":"Oops, something went wrong!"}`)
		default:
			writeJSON(w, http.StatusOK, `{"token":"t1","service_order_id":"42"}`)
		}
	})
	res, err := f.client.CreateOrder(t.Context(), &Order{MerchantOrderID: "SALE-3", Amount: 10000})
	require.NoError(t, err)
	assert.Equal(t, "42", res.ServiceOrderID)
	mu.Lock()
	defer mu.Unlock()
	require.Len(t, bodies, 3)
	for i := 1; i < 3; i++ {
		assert.Equal(t, bodies[0], bodies[i], "attempt %d body", i+1)
		assert.Equal(t, sigs[0], sigs[i], "attempt %d x-verify", i+1)
	}
	assert.Len(t, f.waits(), 2)
}

func TestCreateOrderRetriesExhaustedIsOutcomeUnknown(t *testing.T) {
	f := setup(t)
	var n atomic.Int32
	f.mux.HandleFunc("POST "+PathCreateOrder, func(w http.ResponseWriter, r *http.Request) {
		n.Add(1)
		readBody(t, r)
		hijackClose(t, w)
	})
	_, err := f.client.CreateOrder(t.Context(), &Order{MerchantOrderID: "SALE-4", Amount: 10000})
	assert.ErrorIs(t, err, ErrOutcomeUnknown)
	assert.Equal(t, int32(4), n.Load(), "1 attempt + 3 retries")
}

func TestCreateOrderDuplicateAfterLostAnswer(t *testing.T) {
	f := setup(t)
	var n atomic.Int32
	f.mux.HandleFunc("POST "+PathCreateOrder, func(w http.ResponseWriter, r *http.Request) {
		readBody(t, r)
		if n.Add(1) == 1 {
			hijackClose(t, w) // applied, answer lost
			return
		}
		writeJSON(w, http.StatusBadRequest, `{"error_code":"1130","error_message":"DUPLICATE_ORDER_RECEIVED_ON_MERCHANT"}`)
	})
	_, err := f.client.CreateOrder(t.Context(), &Order{MerchantOrderID: "SALE-5", Amount: 10000})
	assert.ErrorIs(t, err, ErrDuplicateOrder)
	assert.NotErrorIs(t, err, ErrOutcomeUnknown, "the duplicate settles what the lost answer left open")
	assert.Equal(t, int32(2), n.Load())
}

func TestRefundOtherRefusalAfterLostAnswerStaysUnknown(t *testing.T) {
	f := setup(t)
	var n atomic.Int32
	f.mux.HandleFunc("POST "+PathRefund, func(w http.ResponseWriter, r *http.Request) {
		readBody(t, r)
		if n.Add(1) == 1 {
			hijackClose(t, w)
			return
		}
		writeJSON(w, http.StatusBadRequest, `{"error_code":"14845","error_message":"Request Data is not valid"}`)
	})
	_, err := f.client.Refund(t.Context(), RefundRequest{UniqueTxnID: "RF-9", AmountInPaise: 100, ServiceOrderID: "42", PaymentID: "77"})
	assert.ErrorIs(t, err, ErrInvalidRequest)
	assert.ErrorIs(t, err, ErrOutcomeUnknown, "the first attempt may have been applied")
}

// hijackClose drops the connection without answering.
func hijackClose(t *testing.T, w http.ResponseWriter) {
	t.Helper()
	hj, ok := w.(http.Hijacker)
	require.True(t, ok)
	conn, _, err := hj.Hijack()
	require.NoError(t, err)
	_ = conn.Close()
}

func TestCardPayment(t *testing.T) {
	f := setup(t)
	const token = "ab%2Bcd%2F%3D%3D"
	f.mux.HandleFunc("POST "+PathCardPayment, func(w http.ResponseWriter, r *http.Request) {
		assert.Equal(t, "token="+token, r.URL.RawQuery, "the token is sent verbatim, not encoded twice")
		assert.Equal(t, "ab+cd/==", r.URL.Query().Get("token"))
		assert.Equal(t, "SEAMLESS", r.Header.Get("checkoutmode"))
		assert.Equal(t, "application/json", r.Header.Get("Accept"))
		assert.Equal(t, "application/json", r.Header.Get("Content-Type"))
		assert.Empty(t, r.Header.Get("Authorization"))
		assert.Empty(t, r.Header.Get("Idempotency-Key"))
		var body map[string]map[string]any
		require.NoError(t, json.Unmarshal(readBody(t, r), &body))
		assert.Equal(t, map[string]any{
			"card_number": "4111111111111111", "cvv": "123", "card_holder_name": "Asha \"A\" Rao",
			"card_expiry_year": "2030", "card_expiry_month": "07",
		}, body["card_data"])
		assert.Equal(t, map[string]any{"country_code": "91", "mobile_no": "9876543210", "email_id": "a@b.in"}, body["customer_data"])
		writeJSON(w, http.StatusOK, `{"content":"<form></form>","payment_id":77,"order_id":"42","amount_in_paise":"10000","response_code":1,"response_message":"SUCCESS"}`)
	})
	card := NewCard("4111 1111 1111 1111", "7", "30", "123", "Asha \"A\" Rao")
	res, err := f.client.CardPayment(t.Context(), token, card, Customer{CountryCode: "91", Mobile: "9876543210", Email: "a@b.in"})
	require.NoError(t, err)
	assert.Equal(t, &PaymentResponse{Content: "<form></form>", PaymentID: "77", OrderID: "42", AmountInPaise: 10000,
		ResponseCode: 1, ResponseMessage: "SUCCESS"}, res)
	assert.Equal(t, "1111", card.Last4(), "the payment call leaves the card to its owner")
}

func TestCardPaymentRejectsBadInput(t *testing.T) {
	f := setup(t)
	f.mux.HandleFunc("POST "+PathCardPayment, func(http.ResponseWriter, *http.Request) {
		t.Error("nothing may be sent")
	})
	good := NewCard("4111111111111111", "07", "2030", "123", "A")
	_, err := f.client.CardPayment(t.Context(), "", good, Customer{})
	assert.ErrorIs(t, err, ErrInvalidInput)
	_, err = f.client.CardPayment(t.Context(), "t", NewCard("4111x", "07", "2030", "123", "A"), Customer{})
	assert.ErrorIs(t, err, ErrInvalidCard)
	_, err = f.client.CardPayment(t.Context(), "t", nil, Customer{})
	assert.ErrorIs(t, err, ErrInvalidCard)
}

func TestTokenQuery(t *testing.T) {
	tests := []struct{ token, want string }{
		{"abc", "?token=abc"},
		{"a%2Bb%3D%3D", "?token=a%2Bb%3D%3D"},
		{"a%252B", "?token=a%252B"},
		{"a b#c&d", "?token=a%20b%23c%26d"},
	}
	for _, tt := range tests {
		got, err := tokenQuery(tt.token)
		require.NoError(t, err)
		assert.Equal(t, tt.want, got, "tokenQuery(%q)", tt.token)
	}
}

// TestPaymentNeverResent checks that card and EMI payments are sent exactly once,
// whatever goes wrong, and that a possibly-applied attempt is ErrOutcomeUnknown.
func TestPaymentNeverResent(t *testing.T) {
	tests := []struct {
		name    string
		handler func(t *testing.T, w http.ResponseWriter, r *http.Request)
		unknown bool
		is      error
	}{
		{"timeout", func(t *testing.T, w http.ResponseWriter, r *http.Request) {
			<-r.Context().Done()
		}, true, context.DeadlineExceeded},
		{"connection dropped", func(t *testing.T, w http.ResponseWriter, r *http.Request) {
			hijackClose(t, w)
		}, true, nil},
		{"server fault", func(t *testing.T, w http.ResponseWriter, r *http.Request) {
			writeJSON(w, http.StatusInternalServerError, `{"error_code":"14020","error_message":"Oops, something went wrong!"}`)
		}, true, ErrServer},
		{"malformed answer", func(t *testing.T, w http.ResponseWriter, r *http.Request) {
			writeJSON(w, http.StatusOK, `{"content": "<form`)
		}, true, ErrMalformed},
		{"rate limited", func(t *testing.T, w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Retry-After", "1")
			writeJSON(w, http.StatusTooManyRequests, `{"error_code":"429","error_message":"RATE_LIMITED"}`)
		}, false, ErrRateLimited},
		{"declined request", func(t *testing.T, w http.ResponseWriter, r *http.Request) {
			writeJSON(w, http.StatusBadRequest, `{"response_code":14845,"response_message":"Request Data is not valid"}`)
		}, false, ErrInvalidRequest},
	}
	for _, tt := range tests {
		for _, emi := range []bool{false, true} {
			t.Run(fmt.Sprintf("%s/emi=%v", tt.name, emi), func(t *testing.T) {
				f := setup(t, func(c *Config) { c.Timeout = 100 * time.Millisecond })
				var n atomic.Int32
				h := func(w http.ResponseWriter, r *http.Request) {
					n.Add(1)
					readBody(t, r)
					tt.handler(t, w, r)
				}
				f.mux.HandleFunc("POST "+PathCardPayment, h)
				f.mux.HandleFunc("POST "+PathEMIPayment, h)
				card := NewCard("4111111111111111", "07", "2030", "123", "A")
				var err error
				if emi {
					_, err = f.client.EMIPayment(t.Context(), EMIPaymentRequest{Token: "tok", Card: card, Customer: Customer{}, Tenure: EMITenure{TenureID: "3"}, AcquirerID: 8004})
				} else {
					_, err = f.client.CardPayment(t.Context(), "tok", card, Customer{})
				}
				require.Error(t, err)
				assert.Equal(t, int32(1), n.Load(), "the payment is sent exactly once")
				assert.Empty(t, f.waits(), "no retry wait")
				if tt.unknown {
					assert.ErrorIs(t, err, ErrOutcomeUnknown)
				} else {
					assert.NotErrorIs(t, err, ErrOutcomeUnknown)
				}
				if tt.is != nil {
					assert.ErrorIs(t, err, tt.is)
				}
				assert.NotContains(t, err.Error(), "4111111111111111")
				assert.NotContains(t, err.Error(), "tok", "the token stays out of errors")
			})
		}
	}
}

func TestPaymentNotSentIsNotUnknown(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	addr := ln.Addr().String()
	require.NoError(t, ln.Close()) // nobody listens there now
	c, err := New(Config{BaseURL: "http://" + addr, MerchantID: testMerchantID, AccessCode: testAccessCode, Secret: testSecret})
	require.NoError(t, err)
	_, err = c.CardPayment(t.Context(), "tok", NewCard("4111111111111111", "07", "2030", "123", "A"), Customer{})
	require.Error(t, err)
	assert.NotErrorIs(t, err, ErrOutcomeUnknown, "a refused connection never reached the service")
}

func TestEMIPayment(t *testing.T) {
	f := setup(t)
	tenure := sampleTenure(t)
	f.mux.HandleFunc("POST "+PathEMIPayment, func(w http.ResponseWriter, r *http.Request) {
		assert.Equal(t, "token=tk%2B1", r.URL.RawQuery)
		assert.Equal(t, "SEAMLESS", r.Header.Get("checkoutmode"))
		assert.Empty(t, r.Header.Get("Authorization"))
		var body map[string]json.RawMessage
		require.NoError(t, json.Unmarshal(readBody(t, r), &body))
		assert.JSONEq(t, `{"merchant_id":770001}`, string(body["merchant_data"]), "merchant_id is a JSON integer in EMI bodies")
		assert.JSONEq(t, `{"card_number":"4386280000000004","card_expiry_year":"2030","card_expiry_month":"12",
			"card_holder_name":"A","cvv":"123","is_card_to_be_saved":false}`, string(body["card_data"]))
		assert.JSONEq(t, `{"country_code":"91","mobile_number":"98","email_id":"e@x.in","customer_token":"ct"}`, string(body["customer_data"]))
		assert.JSONEq(t, sampleTenureJSON, string(body["emi_data"]), "emi_data is the calculator's tenure unchanged")
		assert.JSONEq(t, `{"acquirerId":8004}`, string(body["acquirer_data"]))
		writeJSON(w, http.StatusOK, `{"content":"<html/>","payment_id":"9","order_id":42,"amount_in_paise":306000,"token":"tk","api_url":null,"response_code":14010,"response_message":"SUCCESS"}`)
	})
	res, err := f.client.EMIPayment(t.Context(), EMIPaymentRequest{Token: "tk%2B1", Card: NewCard("4386280000000004", "12", "2030", "123", "A"), Customer: Customer{CountryCode: "91", Mobile: "98", Email: "e@x.in", Token: "ct"}, Tenure: tenure, AcquirerID: 8004})
	require.NoError(t, err)
	assert.Equal(t, "9", res.PaymentID)
	assert.Equal(t, "42", res.OrderID)
	assert.Equal(t, int64(306000), res.AmountInPaise)
	assert.Equal(t, CodeEMISuccess, res.ResponseCode)
}

func TestEMIPaymentErrors(t *testing.T) {
	tests := []struct {
		body string
		want error
	}{
		{`{"response_code":14831,"response_message":"IMEI_VALIDATION_REQUIRED"}`, ErrIMEIRequired},
		{`{"response_code":14819,"response_message":"Offer is outdated"}`, ErrOfferOutdated},
		{`{"response_code":14826,"response_message":"Offer is not applicable on card"}`, ErrOfferNotApplicable},
		{`{"error_code":"1140","error_message":"ORDER_ALREADY_PAID"}`, ErrAlreadyPaid},
	}
	for _, tt := range tests {
		t.Run(tt.want.Error(), func(t *testing.T) {
			f := setup(t)
			f.mux.HandleFunc("POST "+PathEMIPayment, func(w http.ResponseWriter, r *http.Request) {
				writeJSON(w, http.StatusBadRequest, tt.body)
			})
			_, err := f.client.EMIPayment(t.Context(), EMIPaymentRequest{Token: "t", Card: NewCard("4386280000000004", "12", "2030", "123", "A"), Customer: Customer{}, Tenure: sampleTenure(t), AcquirerID: 8004})
			assert.ErrorIs(t, err, tt.want)
			assert.NotErrorIs(t, err, ErrOutcomeUnknown)
		})
	}
}

const sampleTenureJSON = `{"offer_scheme":{"product_details":[{"schemes":[{"scheme_id":"HDFC-3","program_type":105,"is_scheme_valid":true}],
	"product_code":"SAMSUNG-S24","product_name":"Galaxy S24","product_amount":300000,"subvention_cashback_discount":0,"product_discount":0,
	"subvention_cashback_discount_percentage":0,"product_discount_percentage":0,"subvention_type":3,
	"bank_interest_rate_percentage":150000,"bank_interest_rate":7532}],"emi_scheme":null},
	"tenure_id":"3","tenure_in_month":"3","monthly_installment":102511,"bank_interest_rate":150000,"interest_pay_to_bank":7532,
	"total_offerred_discount_cashback_amount":0,"loan_amount":300000,"auth_amount":307532}`

func sampleTenure(t *testing.T) EMITenure {
	t.Helper()
	var tn EMITenure
	require.NoError(t, decodeLenient([]byte(sampleTenureJSON), &tn))
	return tn
}

func TestEMICalculator(t *testing.T) {
	f := setup(t)
	// Numbers partly as strings, as the real service sends them sometimes.
	answer := `{"issuer":[{"issuer_name":"HDFC","is_debit_emi_issuer":"false","list_emi_tenure":[` + sampleTenureJSON + `,
		{"offer_scheme":{"product_details":[],"emi_scheme":null},"tenure_id":"6","tenure_in_month":"6","monthly_installment":"52000",
		"bank_interest_rate":150000,"interest_pay_to_bank":0,"total_offerred_discount_cashback_amount":0,"loan_amount":300000,"auth_amount":312000}]},
		{"issuer_name":"AXIS","is_debit_emi_issuer":true,"list_emi_tenure":[]}],
		"acquirer_data":{"acquirerId":"8004"},"response_code":"1","response_message":"SUCCESS"}`
	f.mux.HandleFunc("POST "+PathEMICalculator, func(w http.ResponseWriter, r *http.Request) {
		assert.Empty(t, r.Header.Get("Authorization"))
		assert.Empty(t, r.URL.RawQuery)
		assert.Equal(t, "application/json", r.Header.Get("Content-Type"))
		assert.JSONEq(t, `{"merchant_data":{"merchant_id":770001},"payment_data":{"amount_in_paisa":300000},
			"product_details":[{"product_code":"SAMSUNG-S24","product_amount":300000}]}`, string(readBody(t, r)))
		writeJSON(w, http.StatusOK, answer)
	})
	offers, err := f.client.EMICalculator(t.Context(), 300000, []ProductAmount{{"SAMSUNG-S24", 300000}})
	require.NoError(t, err)
	assert.Equal(t, int64(8004), offers.AcquirerID)
	assert.Equal(t, 1, offers.ResponseCode)
	require.Len(t, offers.Issuers, 2)
	hdfc := offers.Issuers[0]
	assert.Equal(t, "HDFC", hdfc.IssuerName)
	assert.False(t, hdfc.IsDebitEMIIssuer)
	assert.True(t, offers.Issuers[1].IsDebitEMIIssuer)
	require.Len(t, hdfc.Tenures, 2)
	assert.Equal(t, int64(52000), hdfc.Tenures[1].MonthlyInstallment)
	assert.Equal(t, 6, hdfc.Tenures[1].Months())
	assert.Equal(t, ProgramBankEMI, hdfc.Tenures[0].ProgramType())
	again, err := json.Marshal(hdfc.Tenures[0])
	require.NoError(t, err)
	assert.JSONEq(t, sampleTenureJSON, string(again), "a tenure re-encodes to what the calculator sent")
}

func TestEMICalculatorNoOffers(t *testing.T) {
	f := setup(t)
	f.mux.HandleFunc("POST "+PathEMICalculator, func(w http.ResponseWriter, r *http.Request) {
		writeJSON(w, http.StatusOK, `{"issuer":[],"acquirer_data":{"acquirerId":8004},"response_code":1,"response_message":"SUCCESS"}`)
	})
	offers, err := f.client.EMICalculator(t.Context(), 200000, nil)
	require.NoError(t, err)
	assert.Empty(t, offers.Issuers)
}

func TestEMICalculatorInvalid(t *testing.T) {
	f := setup(t)
	f.mux.HandleFunc("POST "+PathEMICalculator, func(w http.ResponseWriter, r *http.Request) {
		writeJSON(w, http.StatusBadRequest, `{"error_code":"14845","error_message":"Request Data is not valid"}`)
	})
	_, err := f.client.EMICalculator(t.Context(), 0, nil)
	assert.ErrorIs(t, err, ErrInvalidRequest)
}

func TestValidateScheme(t *testing.T) {
	tests := []struct {
		name   string
		status int
		body   string
		want   error
	}{
		{"valid", 200, `{"response_code":1,"response_message":"SUCCESS"}`, nil},
		{"not applicable", 400, `{"response_code":14826,"response_message":"Offer is not applicable on card"}`, ErrOfferNotApplicable},
		{"outdated", 400, `{"response_code":14819,"response_message":"Offer is outdated"}`, ErrOfferOutdated},
		{"invalid", 400, `{"response_code":14845,"response_message":"Request Data is not valid"}`, ErrInvalidRequest},
		{"200 with a failure code", 200, `{"response_code":"14826","response_message":"Offer is not applicable on card"}`, ErrOfferNotApplicable},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := setup(t)
			f.mux.HandleFunc("POST "+PathSchemeValidation, func(w http.ResponseWriter, r *http.Request) {
				assert.Empty(t, r.Header.Get("Authorization"))
				var body map[string]json.RawMessage
				require.NoError(t, json.Unmarshal(readBody(t, r), &body))
				assert.JSONEq(t, `{"merchant_id":770001}`, string(body["merchant_data"]))
				assert.JSONEq(t, `{"amount_in_paisa":300000}`, string(body["payment_data"]))
				assert.JSONEq(t, `{"card_number":"4386280000000004"}`, string(body["card_data"]))
				assert.JSONEq(t, sampleTenureJSON, string(body["emi_data"]))
				assert.JSONEq(t, `{"acquirerId":8004}`, string(body["acquirer_data"]))
				writeJSON(w, tt.status, tt.body)
			})
			err := f.client.ValidateScheme(t.Context(), 300000, NewCard("4386280000000004", "", "", "", ""), sampleTenure(t), 8004)
			if tt.want == nil {
				assert.NoError(t, err)
				return
			}
			assert.ErrorIs(t, err, tt.want)
			var e *Error
			require.ErrorAs(t, err, &e)
			assert.Equal(t, tt.status, e.HTTPStatus)
		})
	}
}

func TestValidateIMEI(t *testing.T) {
	f := setup(t)
	var calls atomic.Int32
	f.mux.HandleFunc("POST "+PathIMEIValidation, func(w http.ResponseWriter, r *http.Request) {
		calls.Add(1)
		assert.Equal(t, "token=t%2B1", r.URL.RawQuery)
		body := readBody(t, r)
		if strings.Contains(string(body), "490154203237518") {
			assert.JSONEq(t, `{"merchant_data":{"merchant_id":770001},"product_imei_details":[{"product_code":"SAMSUNG-S24","imei_no":"490154203237518"}]}`, string(body))
			writeJSON(w, http.StatusOK, `{"product_imei_details":[{"product_code":"SAMSUNG-S24","imei_no":"490154203237518",
				"imei_processing_status":{"response_code":0,"response_message":"SUCCESS"}}],"response_code":0,"response_message":"SUCCESS"}`)
			return
		}
		writeJSON(w, http.StatusOK, `{"product_imei_details":[{"product_code":"SAMSUNG-S24","imei_no":"1",
			"imei_processing_status":{"response_code":"1","response_message":"INVALID_IMEI"}}],"response_code":107,"response_message":"IMEI VALIDATION FAILED"}`)
	})
	res, err := f.client.ValidateIMEI(t.Context(), "t%2B1", []IMEIItem{{"SAMSUNG-S24", "490154203237518"}})
	require.NoError(t, err)
	assert.True(t, res.OK())
	res, err = f.client.ValidateIMEI(t.Context(), "t%2B1", []IMEIItem{{"SAMSUNG-S24", "1"}})
	assert.ErrorIs(t, err, ErrIMEIRejected)
	require.NotNil(t, res, "the per-item results come with the error")
	assert.False(t, res.OK())
	assert.Equal(t, CodeInvalidIMEI, res.Items[0].Status.ResponseCode)
	assert.Equal(t, CodeIMEIFailed, res.ResponseCode)
	_, err = f.client.ValidateIMEI(t.Context(), "t", nil)
	assert.ErrorIs(t, err, ErrInvalidInput)
	assert.Equal(t, int32(2), calls.Load())
}

const sampleInquiry = `{"merchant_data":{"merchant_id":"770001","order_id":"SALE-1"},
	"order_data":{"order_status":"CHARGED","service_order_id":"42","amount":"10000","order_desc":"NA","refund_amount":"NA"},
	"payment_info_data":{"acquirer_name":"SANDBOX","auth_code":"A1B2","captured_amount_in_paisa":"10000","card_holder_name":"Asha",
	"masked_card_number":"411111XXXXXX1111","merchant_return_url":"https://a,https://b","mobile_no":9876543210,
	"payment_completion_date_time":"2026-11-22T04:50:00.123Z","payment_id":77,"payment_status":"CAPTURED",
	"payment_response_code":"1","payment_response_message":"SUCCESS","product_code":"NA","rrn":"123456789012",
	"refund_amount_in_paisa":"NA","salted_card_hash":"abc","udf_field_1":"NA","udf_field_2":"","udf_field_3":"NA","udf_field_4":"NA",
	"payment_mode":"CREDIT_DEBIT","issuer_name":"NONE","gateway_payment_id":"NA"}}`

func TestInquire(t *testing.T) {
	tests := []struct {
		name     string
		sig      func(f *fixture, body string) string
		verified bool
	}{
		{"verified", func(f *fixture, b string) string { return Sign(f.key, base64.StdEncoding.EncodeToString([]byte(b))) }, true},
		{"verified lower case", func(f *fixture, b string) string {
			return strings.ToLower(Sign(f.key, base64.StdEncoding.EncodeToString([]byte(b))))
		}, true},
		{"missing signature", func(*fixture, string) string { return "" }, false},
		{"wrong signature", func(f *fixture, b string) string {
			return Sign(f.key, base64.StdEncoding.EncodeToString([]byte(b+" ")))
		}, false},
		{"signature over re-marshalled JSON", func(f *fixture, b string) string {
			var v any
			_ = json.Unmarshal([]byte(b), &v)
			again, _ := json.Marshal(v)
			return Sign(f.key, base64.StdEncoding.EncodeToString(again))
		}, false},
	}
	for _, tt := range tests {
		for _, payment := range []bool{false, true} {
			t.Run(fmt.Sprintf("%s/payment=%v", tt.name, payment), func(t *testing.T) {
				f := setup(t)
				var calls atomic.Int32
				h := func(w http.ResponseWriter, r *http.Request) {
					calls.Add(1)
					assert.Equal(t, basicAuth(), r.Header.Get("Authorization"))
					assert.Equal(t, "application/json", r.Header.Get("Accept"))
					assert.Empty(t, r.Header.Get("Content-Type"))
					if s := tt.sig(f, sampleInquiry); s != "" {
						w.Header().Set("x-verify", s)
					}
					writeJSON(w, http.StatusOK, sampleInquiry)
				}
				f.mux.HandleFunc("GET /api/v1/inquiry/order/42", h)
				f.mux.HandleFunc("GET /api/v1/inquiry/order/42/payment/77", h)
				var q *Inquiry
				var err error
				if payment {
					q, err = f.client.InquirePayment(t.Context(), "42", "77")
				} else {
					q, err = f.client.InquireOrder(t.Context(), "42")
				}
				require.NotNil(t, q, "the decoded answer comes back either way")
				assert.Equal(t, tt.verified, q.Verified)
				assert.Equal(t, int32(1), calls.Load(), "a bad signature is not retried")
				if tt.verified {
					require.NoError(t, err)
					assert.True(t, q.Charged())
				} else {
					assert.ErrorIs(t, err, ErrSignature)
					assert.False(t, q.Charged(), "an unverified answer is never a success")
					assert.False(t, q.Failed(), "nor a failure")
				}
				assert.Equal(t, []byte(sampleInquiry), q.Raw)
				assert.Equal(t, int64(770001), q.MerchantData.MerchantID)
				assert.Equal(t, "SALE-1", q.MerchantData.OrderID)
				assert.Equal(t, "42", q.ServiceOrderID())
				assert.Equal(t, int64(10000), q.OrderData.Amount)
				assert.Empty(t, q.OrderData.OrderDesc, "NA is empty")
				assert.Zero(t, q.OrderData.RefundAmount, "NA is zero")
				assert.Equal(t, int64(10000), q.PaymentInfoData.CapturedAmountInPaisa)
				assert.Equal(t, "9876543210", q.PaymentInfoData.MobileNo, "a number read as text")
				assert.Equal(t, "77", q.PaymentInfoData.PaymentID)
				assert.Equal(t, int64(1), q.PaymentInfoData.PaymentResponseCode)
				assert.Equal(t, "NONE", q.PaymentInfoData.IssuerName)
				assert.Empty(t, q.PaymentInfoData.GatewayPaymentID)
				at, ok := q.CompletedAt()
				assert.True(t, ok)
				assert.Equal(t, time.Date(2026, 11, 22, 4, 50, 0, 123e6, time.UTC), at.UTC())
			})
		}
	}
}

func TestInquireRejectsAnswerAboutAnotherOrder(t *testing.T) {
	f := setup(t)
	f.mux.HandleFunc("GET /api/v1/inquiry/order/43", func(w http.ResponseWriter, r *http.Request) {
		f.writeSigned(w, sampleInquiry)
	})
	_, err := f.client.InquireOrder(t.Context(), "43")
	assert.ErrorIs(t, err, ErrMalformed)
	assert.ErrorIs(t, err, ErrAnswerMismatch)
}

// TestInquiryAnswerBinding checks that a signed inquiry answer counts only when it
// names the merchant, the order and (for a payment inquiry) the payment asked
// about; any other answer is retried and in the end gives no answer at all.
func TestInquiryAnswerBinding(t *testing.T) {
	tests := []struct {
		name    string
		payment bool // InquirePayment instead of InquireOrder
		edit    [2]string
		wantErr string // "" when the answer counts
	}{
		{"order: bound", false, [2]string{}, ""},
		{"order: no payment yet", false, [2]string{`"payment_id":77`, `"payment_id":"NA"`}, ""},
		{"order: no service order id", false, [2]string{`"service_order_id":"42"`, `"service_order_id":"NA"`}, "names no service order"},
		{"order: service order id left out", false, [2]string{`"service_order_id":"42",`, ``}, "names no service order"},
		{"order: another order", false, [2]string{`"service_order_id":"42"`, `"service_order_id":"420"`}, "names service order 420"},
		{"order: no merchant id", false, [2]string{`"merchant_id":"770001"`, `"merchant_id":"NA"`}, "names no merchant"},
		{"order: another merchant", false, [2]string{`"merchant_id":"770001"`, `"merchant_id":"770002"`}, "names merchant 770002"},
		{"payment: bound", true, [2]string{}, ""},
		{"payment: no payment id", true, [2]string{`"payment_id":77`, `"payment_id":"NA"`}, "names no payment"},
		{"payment: another payment", true, [2]string{`"payment_id":77`, `"payment_id":78`}, "names payment 78"},
		{"payment: another order", true, [2]string{`"service_order_id":"42"`, `"service_order_id":"41"`}, "names service order 41"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			body := sampleInquiry
			if tt.edit[0] != "" {
				require.Contains(t, body, tt.edit[0])
				body = strings.Replace(body, tt.edit[0], tt.edit[1], 1)
			}
			f := setup(t)
			var calls atomic.Int32
			h := func(w http.ResponseWriter, r *http.Request) {
				calls.Add(1)
				f.writeSigned(w, body)
			}
			f.mux.HandleFunc("GET /api/v1/inquiry/order/42", h)
			f.mux.HandleFunc("GET /api/v1/inquiry/order/42/payment/77", h)
			var q *Inquiry
			var err error
			if tt.payment {
				q, err = f.client.InquirePayment(t.Context(), "42", "77")
			} else {
				q, err = f.client.InquireOrder(t.Context(), "42")
			}
			if tt.wantErr == "" {
				require.NoError(t, err)
				assert.True(t, q.Verified)
				assert.Equal(t, int32(1), calls.Load())
				return
			}
			assert.ErrorIs(t, err, ErrAnswerMismatch)
			assert.ErrorIs(t, err, ErrMalformed, "retried like an unreadable answer")
			assert.ErrorContains(t, err, tt.wantErr)
			assert.Nil(t, q, "an answer about something else is not handed out")
			assert.Equal(t, int32(4), calls.Load(), "the first attempt and 3 retries")
		})
	}
}

func TestInquireBadIDs(t *testing.T) {
	f := setup(t)
	_, err := f.client.InquireOrder(t.Context(), "../42")
	assert.ErrorIs(t, err, ErrInvalidInput)
	_, err = f.client.InquirePayment(t.Context(), "42", "7?x")
	assert.ErrorIs(t, err, ErrInvalidInput)
}

// sampleRefund is a refund answer bound to the refund RF-1 of 4000 paise on
// order 42, payment 77 (contract section 7).
var sampleRefund = strings.NewReplacer(
	`"gateway_payment_id":"NA"`, `"gateway_payment_id":"NA","refund_id":"300000001"`,
	`"refund_amount":"NA"`, `"refund_amount":"4000"`,
	`"refund_amount_in_paisa":"NA"`, `"refund_amount_in_paisa":"4000"`,
	`"payment_status":"CAPTURED"`, `"payment_status":"PARTIALLY_REFUNDED"`,
	`"order_status":"CHARGED"`, `"order_status":"PARTIAL_REFUNDED"`,
).Replace(sampleInquiry)

// refundRF1 is the refund that sampleRefund answers.
var refundRF1 = RefundRequest{UniqueTxnID: "RF-1", AmountInPaise: 4000, ServiceOrderID: "42", PaymentID: "77"}

func TestRefund(t *testing.T) {
	f := setup(t)
	var calls atomic.Int32
	f.mux.HandleFunc("POST "+PathRefund, func(w http.ResponseWriter, r *http.Request) {
		calls.Add(1)
		assert.Equal(t, basicAuth(), r.Header.Get("Authorization"))
		assert.Equal(t, "no-cache", r.Header.Get("Cache-Control"))
		assert.Equal(t, "application/json", r.Header.Get("Content-Type"))
		m := f.decodeSignedRequest(t, r, readBody(t, r))
		assert.Equal(t, map[string]any{"unique_txn_id": "RF-1", "amount_in_paise": json.Number("4000"),
			"merchant_id": json.Number("770001"), "order_id": json.Number("42"), "payment_id": json.Number("77")}, m)
		f.writeSigned(w, sampleRefund)
	})
	q, err := f.client.Refund(t.Context(), refundRF1)
	require.NoError(t, err)
	assert.True(t, q.Verified)
	assert.Equal(t, "300000001", q.PaymentInfoData.RefundID)
	assert.Equal(t, int64(4000), q.OrderData.RefundAmount)
	assert.Equal(t, int64(4000), q.PaymentInfoData.RefundAmountInPaisa)
	assert.Equal(t, int32(1), calls.Load())
}

// TestRefundAnswerBinding checks that a signed refund answer counts only when it is
// about the refund sent: its merchant, order, payment, a refund id and an amount
// that covers the refund. Anything else is an unknown outcome, never success or
// failure, and is not re-sent.
func TestRefundAnswerBinding(t *testing.T) {
	tests := []struct {
		name    string
		edit    [2]string
		mutate  func(*RefundRequest)
		wantErr string // "" when the answer counts
	}{
		{name: "bound"},
		{name: "bound, earlier refunds included", edit: [2]string{`"refund_amount_in_paisa":"4000"`, `"refund_amount_in_paisa":"10000"`}},
		{name: "bound to the merchant order id", mutate: func(r *RefundRequest) { r.MerchantOrderID = "SALE-1" }},
		{name: "another merchant order id", mutate: func(r *RefundRequest) { r.MerchantOrderID = "SALE-2" }, wantErr: "names merchant order SALE-1, not SALE-2"},
		{name: "no merchant order id", edit: [2]string{`"order_id":"SALE-1"`, `"order_id":"NA"`},
			mutate: func(r *RefundRequest) { r.MerchantOrderID = "SALE-1" }, wantErr: "names no merchant order"},
		{name: "no service order id", edit: [2]string{`"service_order_id":"42"`, `"service_order_id":"NA"`}, wantErr: "names no service order"},
		{name: "another order", edit: [2]string{`"service_order_id":"42"`, `"service_order_id":"43"`}, wantErr: "names service order 43, not 42"},
		{name: "no payment id", edit: [2]string{`"payment_id":77`, `"payment_id":"NA"`}, wantErr: "names no payment"},
		{name: "another payment", edit: [2]string{`"payment_id":77`, `"payment_id":76`}, wantErr: "names payment 76, not 77"},
		{name: "no merchant id", edit: [2]string{`"merchant_id":"770001",`, ``}, wantErr: "names no merchant"},
		{name: "another merchant", edit: [2]string{`"merchant_id":"770001"`, `"merchant_id":"770009"`}, wantErr: "names merchant 770009"},
		{name: "no refund id", edit: [2]string{`,"refund_id":"300000001"`, ``}, wantErr: "no refund id"},
		{name: "refund id NA", edit: [2]string{`"refund_id":"300000001"`, `"refund_id":"NA"`}, wantErr: "no refund id"},
		{name: "no refunded amount", edit: [2]string{`"refund_amount_in_paisa":"4000"`, `"refund_amount_in_paisa":"NA"`}, wantErr: "0 paise refunded"},
		{name: "less refunded than asked", edit: [2]string{`"refund_amount_in_paisa":"4000"`, `"refund_amount_in_paisa":"3999"`}, wantErr: "3999 paise refunded"},
		{name: "more refunded than captured", edit: [2]string{`"refund_amount_in_paisa":"4000"`, `"refund_amount_in_paisa":"10001"`}, wantErr: "10001 paise refunded of 10000"},
		{name: "a larger refund than the answer shows", mutate: func(r *RefundRequest) { r.AmountInPaise = 5000 }, wantErr: "less than the refund of 5000"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			body := sampleRefund
			if tt.edit[0] != "" {
				require.Contains(t, body, tt.edit[0])
				body = strings.Replace(body, tt.edit[0], tt.edit[1], 1)
			}
			rr := refundRF1
			if tt.mutate != nil {
				tt.mutate(&rr)
			}
			f := setup(t)
			var calls atomic.Int32
			f.mux.HandleFunc("POST "+PathRefund, func(w http.ResponseWriter, r *http.Request) {
				calls.Add(1)
				readBody(t, r)
				f.writeSigned(w, body)
			})
			q, err := f.client.Refund(t.Context(), rr)
			assert.Equal(t, int32(1), calls.Load(), "a refund answered is not re-sent")
			if tt.wantErr == "" {
				require.NoError(t, err)
				assert.True(t, q.Verified)
				return
			}
			assert.ErrorIs(t, err, ErrOutcomeUnknown)
			assert.ErrorIs(t, err, ErrAnswerMismatch)
			assert.ErrorContains(t, err, tt.wantErr)
			var ge *Error
			assert.False(t, errors.As(err, &ge), "not a refusal either")
			assert.Nil(t, q, "an answer about something else is not handed out")
		})
	}
}

func TestRefundUnverifiedIsOutcomeUnknown(t *testing.T) {
	f := setup(t)
	f.mux.HandleFunc("POST "+PathRefund, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("x-verify", strings.Repeat("0", 64))
		writeJSON(w, http.StatusOK, sampleRefund)
	})
	q, err := f.client.Refund(t.Context(), refundRF1)
	assert.ErrorIs(t, err, ErrSignature)
	assert.ErrorIs(t, err, ErrOutcomeUnknown)
	require.NotNil(t, q)
	assert.False(t, q.Verified)
}

// TestRefundErrorAnswers checks that a refund's error answer is a refusal only
// when its x-verify is valid (contract section 1: every refund answer is signed);
// an unsigned or wrongly signed one is an unknown outcome whose code is only a
// claim.
func TestRefundErrorAnswers(t *testing.T) {
	type signing int
	const (
		signed signing = iota
		unsigned
		wronglySigned
	)
	tests := []struct {
		name     string
		status   int
		body     string
		sig      signing
		sentinel error
		unknown  bool
	}{
		{"signed 14845", 400, `{"error_code":"14845","error_message":"Request Data is not valid"}`, signed, ErrInvalidRequest, false},
		{"unsigned 14845", 400, `{"error_code":"14845","error_message":"Request Data is not valid"}`, unsigned, ErrInvalidRequest, true},
		{"wrongly signed 14845", 400, `{"error_code":"14845","error_message":"Request Data is not valid"}`, wronglySigned, ErrInvalidRequest, true},
		{"signed 1170", 400, `{"error_code":"1170","error_message":"DUPLICATE_UNIQUE_ID_FOUND"}`, signed, ErrDuplicateRefund, false},
		{"unsigned 1170", 400, `{"error_code":"1170","error_message":"DUPLICATE_UNIQUE_ID_FOUND"}`, unsigned, ErrDuplicateRefund, true},
		{"signed 401", 401, `{"error_code":"401","error_message":"UNAUTHORIZED"}`, signed, ErrUnauthorized, false},
		{"unsigned 401", 401, `{"error_code":"401","error_message":"UNAUTHORIZED"}`, unsigned, ErrUnauthorized, true},
		{"signed 404", 404, `{"error_code":"404","error_message":"ORDER_NOT_FOUND"}`, signed, ErrNotFound, false},
		{"unsigned 404", 404, `{"error_code":"404","error_message":"ORDER_NOT_FOUND"}`, unsigned, ErrNotFound, true},
		{"unsigned 413 without a body", 413, ``, unsigned, ErrPayloadTooLarge, true},
		{"signed 429 after the retries", 429, `{"error_code":"429","error_message":"RATE_LIMITED"}`, signed, ErrRateLimited, false},
		{"unsigned 429 after the retries", 429, `{"error_code":"429","error_message":"RATE_LIMITED"}`, unsigned, ErrRateLimited, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := setup(t)
			f.mux.HandleFunc("POST "+PathRefund, func(w http.ResponseWriter, r *http.Request) {
				readBody(t, r)
				switch tt.sig {
				case signed:
					f.writeSignedStatus(w, tt.status, tt.body)
				case wronglySigned:
					w.Header().Set("x-verify", Sign(f.key, base64.StdEncoding.EncodeToString([]byte(tt.body+" "))))
					writeJSON(w, tt.status, tt.body)
				default:
					writeJSON(w, tt.status, tt.body)
				}
			})
			q, err := f.client.Refund(t.Context(), refundRF1)
			assert.Nil(t, q)
			assert.ErrorIs(t, err, tt.sentinel, "the code stays readable")
			var ge *Error
			require.ErrorAs(t, err, &ge)
			assert.Equal(t, tt.status, ge.HTTPStatus)
			if tt.unknown {
				assert.ErrorIs(t, err, ErrOutcomeUnknown, "an unverified refusal is no refusal")
				assert.ErrorIs(t, err, ErrSignature)
			} else {
				assert.NotErrorIs(t, err, ErrOutcomeUnknown, "a verified refusal is definite")
				assert.NotErrorIs(t, err, ErrSignature)
			}
		})
	}
}

// TestErrorRawIsBounded checks that an error answer keeps at most MaxRaw bytes of
// its body, so a large unverified body is not held on to.
func TestErrorRawIsBounded(t *testing.T) {
	envelope := `{"error_code":"14845","error_message":"Request Data is not valid","pad":"`
	tests := []struct {
		name string
		size int
	}{
		{"small", 0},
		{"exactly MaxRaw", MaxRaw - len(envelope) - 2},
		{"one over MaxRaw", MaxRaw - len(envelope) - 1},
		{"a megabyte", 1 << 20},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			body := envelope + strings.Repeat("x", tt.size) + `"}`
			f := setup(t)
			f.mux.HandleFunc("POST "+PathRefund, func(w http.ResponseWriter, r *http.Request) {
				readBody(t, r)
				writeJSON(w, http.StatusBadRequest, body)
			})
			_, err := f.client.Refund(t.Context(), refundRF1)
			var ge *Error
			require.ErrorAs(t, err, &ge)
			assert.Equal(t, "14845", ge.Code, "the code is read from the whole body")
			want := body[:min(len(body), MaxRaw)]
			assert.Equal(t, want, string(ge.Raw), "Raw holds the first %d bytes", MaxRaw)
			assert.LessOrEqual(t, cap(ge.Raw), MaxRaw, "Raw does not hold on to the whole body")
		})
	}
}

// TestUnverifiedInquiryRawIsBounded checks that an unverified inquiry answer keeps
// at most MaxRaw bytes on Raw, and a verified one all of them.
func TestUnverifiedInquiryRawIsBounded(t *testing.T) {
	body := strings.Replace(sampleInquiry, `"udf_field_2":""`, `"udf_field_2":"`+strings.Repeat("x", 2*MaxRaw)+`"`, 1)
	require.Greater(t, len(body), MaxRaw)
	for _, verified := range []bool{true, false} {
		t.Run(fmt.Sprintf("verified=%v", verified), func(t *testing.T) {
			f := setup(t)
			f.mux.HandleFunc("GET /api/v1/inquiry/order/42", func(w http.ResponseWriter, r *http.Request) {
				if verified {
					f.writeSigned(w, body)
					return
				}
				writeJSON(w, http.StatusOK, body)
			})
			q, err := f.client.InquireOrder(t.Context(), "42")
			require.NotNil(t, q)
			assert.Equal(t, verified, q.Verified)
			if verified {
				require.NoError(t, err)
				assert.Equal(t, body, string(q.Raw))
				return
			}
			assert.ErrorIs(t, err, ErrSignature)
			assert.Equal(t, body[:MaxRaw], string(q.Raw))
		})
	}
}

func TestRefundRetryResendsIdenticalBytesThenDuplicate(t *testing.T) {
	f := setup(t)
	var mu sync.Mutex
	var bodies, sigs []string
	f.mux.HandleFunc("POST "+PathRefund, func(w http.ResponseWriter, r *http.Request) {
		b := readBody(t, r)
		mu.Lock()
		bodies = append(bodies, string(b))
		sigs = append(sigs, r.Header.Get("x-verify"))
		n := len(bodies)
		mu.Unlock()
		switch n {
		case 1:
			writeJSON(w, http.StatusBadGateway, `bad gateway`)
		case 2:
			hijackClose(t, w)
		default:
			f.writeSignedStatus(w, http.StatusBadRequest, `{"error_code":"1170","error_message":"DUPLICATE_UNIQUE_ID_FOUND"}`)
		}
	})
	_, err := f.client.Refund(t.Context(), RefundRequest{UniqueTxnID: "RF-3", AmountInPaise: 100, ServiceOrderID: "42", PaymentID: "77"})
	assert.ErrorIs(t, err, ErrDuplicateRefund)
	assert.NotErrorIs(t, err, ErrOutcomeUnknown, "a signed duplicate settles what the lost answers left open")
	mu.Lock()
	defer mu.Unlock()
	require.Len(t, bodies, 3)
	assert.Equal(t, bodies[0], bodies[1])
	assert.Equal(t, bodies[0], bodies[2])
	assert.Equal(t, sigs[0], sigs[2])
}

func TestRefundBadInput(t *testing.T) {
	f := setup(t)
	for _, rr := range []RefundRequest{
		{AmountInPaise: 100, ServiceOrderID: "42", PaymentID: "77"},
		{UniqueTxnID: "x", AmountInPaise: 100, ServiceOrderID: "4x", PaymentID: "77"},
		{UniqueTxnID: "x", AmountInPaise: 100, ServiceOrderID: "42"},
	} {
		_, err := f.client.Refund(t.Context(), rr)
		assert.ErrorIs(t, err, ErrInvalidInput, "Refund(%+v)", rr)
	}
}

func TestRetriesOfIdempotentCalls(t *testing.T) {
	t.Run("5xx then success", func(t *testing.T) {
		f := setup(t)
		var n atomic.Int32
		f.mux.HandleFunc("GET /api/v1/inquiry/order/42", func(w http.ResponseWriter, r *http.Request) {
			if n.Add(1) < 3 {
				writeJSON(w, http.StatusServiceUnavailable, `{"error_code":"14020","error_message":"Oops, something went wrong!"}`)
				return
			}
			f.writeSigned(w, sampleInquiry)
		})
		q, err := f.client.InquireOrder(t.Context(), "42")
		require.NoError(t, err)
		assert.True(t, q.Verified)
		assert.Equal(t, int32(3), n.Load())
		assert.Equal(t, []time.Duration{10 * time.Millisecond, 20 * time.Millisecond}, f.waits(), "exponential backoff")
	})
	t.Run("exhausted", func(t *testing.T) {
		f := setup(t)
		var n atomic.Int32
		f.mux.HandleFunc("POST "+PathEMICalculator, func(w http.ResponseWriter, r *http.Request) {
			n.Add(1)
			writeJSON(w, http.StatusInternalServerError, `{"error_code":"14020","error_message":"Oops, something went wrong!"}`)
		})
		_, err := f.client.EMICalculator(t.Context(), 300000, nil)
		assert.ErrorIs(t, err, ErrServer)
		assert.NotErrorIs(t, err, ErrOutcomeUnknown, "a read moves no money")
		assert.Equal(t, int32(4), n.Load())
		assert.Equal(t, []time.Duration{10 * time.Millisecond, 20 * time.Millisecond, 40 * time.Millisecond}, f.waits())
	})
	t.Run("backoff capped", func(t *testing.T) {
		f := setup(t, func(c *Config) { c.Retry = Retry{Max: 6, Base: 10 * time.Millisecond, Cap: 25 * time.Millisecond} })
		f.mux.HandleFunc("POST "+PathSchemeValidation, func(w http.ResponseWriter, r *http.Request) {
			writeJSON(w, http.StatusBadGateway, `x`)
		})
		err := f.client.ValidateScheme(t.Context(), 1, NewCard("4111111111111111", "", "", "", ""), EMITenure{}, 1)
		assert.ErrorIs(t, err, ErrServer)
		assert.Equal(t, []time.Duration{10, 20, 25, 25, 25, 25}, divide(f.waits(), time.Millisecond))
	})
	t.Run("Retry-After honoured", func(t *testing.T) {
		f := setup(t)
		var n atomic.Int32
		f.mux.HandleFunc("POST "+PathIMEIValidation, func(w http.ResponseWriter, r *http.Request) {
			if n.Add(1) == 1 {
				w.Header().Set("Retry-After", "2")
				writeJSON(w, http.StatusTooManyRequests, `{"error_code":"429","error_message":"RATE_LIMITED"}`)
				return
			}
			writeJSON(w, http.StatusOK, `{"product_imei_details":[{"product_code":"P","imei_no":"490154203237518","imei_processing_status":{"response_code":0,"response_message":"SUCCESS"}}],"response_code":0,"response_message":"SUCCESS"}`)
		})
		_, err := f.client.ValidateIMEI(t.Context(), "t", []IMEIItem{{"P", "490154203237518"}})
		require.NoError(t, err)
		assert.Equal(t, []time.Duration{2 * time.Second}, f.waits(), "the wait is the Retry-After")
	})
	t.Run("malformed answer retried", func(t *testing.T) {
		f := setup(t)
		var n atomic.Int32
		f.mux.HandleFunc("GET /api/v1/inquiry/order/42", func(w http.ResponseWriter, r *http.Request) {
			if n.Add(1) == 1 {
				f.writeSigned(w, `{"order_data":`)
				return
			}
			f.writeSigned(w, sampleInquiry)
		})
		_, err := f.client.InquireOrder(t.Context(), "42")
		require.NoError(t, err)
		assert.Equal(t, int32(2), n.Load())
	})
	t.Run("transport error retried", func(t *testing.T) {
		f := setup(t)
		var n atomic.Int32
		f.mux.HandleFunc("GET /api/v1/inquiry/order/42/payment/7", func(w http.ResponseWriter, r *http.Request) {
			if n.Add(1) == 1 {
				hijackClose(t, w)
				return
			}
			f.writeSigned(w, strings.Replace(sampleInquiry, `"payment_id":77`, `"payment_id":7`, 1))
		})
		_, err := f.client.InquirePayment(t.Context(), "42", "7")
		require.NoError(t, err)
		assert.Equal(t, int32(2), n.Load())
	})
	t.Run("4xx not retried", func(t *testing.T) {
		f := setup(t)
		var n atomic.Int32
		f.mux.HandleFunc("GET /api/v1/inquiry/order/42", func(w http.ResponseWriter, r *http.Request) {
			n.Add(1)
			writeJSON(w, http.StatusNotFound, `{"error_code":"404","error_message":"ORDER_NOT_FOUND"}`)
		})
		_, err := f.client.InquireOrder(t.Context(), "42")
		assert.ErrorIs(t, err, ErrNotFound)
		assert.Equal(t, int32(1), n.Load())
	})
}

func divide(ds []time.Duration, unit time.Duration) []time.Duration {
	out := make([]time.Duration, len(ds))
	for i, d := range ds {
		out[i] = d / unit
	}
	return out
}

// TestRetryStopsOnCancel uses the real sleep: the context is cancelled while the
// client waits before a retry, and no further request is made.
func TestRetryStopsOnCancel(t *testing.T) {
	f := setup(t, func(c *Config) { c.Retry = Retry{Max: 5, Base: time.Hour, Cap: time.Hour} })
	f.client.sleep = sleepCtx
	ctx, cancel := context.WithCancel(t.Context())
	var n atomic.Int32
	f.mux.HandleFunc("GET /api/v1/inquiry/order/42", func(w http.ResponseWriter, r *http.Request) {
		n.Add(1)
		writeJSON(w, http.StatusInternalServerError, `{"error_code":"14020","error_message":"x"}`)
		go func() {
			time.Sleep(20 * time.Millisecond)
			cancel()
		}()
	})
	start := time.Now()
	_, err := f.client.InquireOrder(ctx, "42")
	assert.ErrorIs(t, err, context.Canceled)
	assert.Equal(t, int32(1), n.Load())
	assert.Less(t, time.Since(start), 10*time.Second, "the wait ends with the context")
}

func TestRetryAfterTooLongIsNotWaited(t *testing.T) {
	f := setup(t)
	var n atomic.Int32
	f.mux.HandleFunc("GET /api/v1/inquiry/order/42", func(w http.ResponseWriter, r *http.Request) {
		n.Add(1)
		w.Header().Set("Retry-After", "3600")
		writeJSON(w, http.StatusTooManyRequests, `{"error_code":"429","error_message":"RATE_LIMITED"}`)
	})
	_, err := f.client.InquireOrder(t.Context(), "42")
	assert.ErrorIs(t, err, ErrRateLimited)
	var e *Error
	require.ErrorAs(t, err, &e)
	assert.Equal(t, time.Hour, e.RetryAfter)
	assert.Equal(t, int32(1), n.Load())
	assert.Empty(t, f.waits())
}

func TestTimeoutPerRequest(t *testing.T) {
	f := setup(t, func(c *Config) {
		c.Timeout = 50 * time.Millisecond
		c.Retry.Max = -1
	})
	f.mux.HandleFunc("GET /api/v1/inquiry/order/42", func(w http.ResponseWriter, r *http.Request) {
		<-r.Context().Done()
	})
	start := time.Now()
	_, err := f.client.InquireOrder(t.Context(), "42")
	assert.ErrorIs(t, err, context.DeadlineExceeded)
	assert.Less(t, time.Since(start), 5*time.Second)
}

// TestRequestBodyReplayable checks what Go's transport sees: a GetBody that gives
// the identical bytes, the right length, and no Idempotency-Key (with one, Go
// would replay a POST by itself).
func TestRequestBodyReplayable(t *testing.T) {
	var seen []*http.Request
	var bodies [][]byte
	rt := roundTripFunc(func(r *http.Request) (*http.Response, error) {
		b, err := io.ReadAll(r.Body)
		require.NoError(t, err)
		require.NotNil(t, r.GetBody)
		again, err := r.GetBody()
		require.NoError(t, err)
		b2, err := io.ReadAll(again)
		require.NoError(t, err)
		assert.Equal(t, b, b2)
		assert.Equal(t, int64(len(b)), r.ContentLength)
		assert.Empty(t, r.Header.Get("Idempotency-Key"))
		seen = append(seen, r)
		bodies = append(bodies, b)
		return &http.Response{StatusCode: 500, Body: io.NopCloser(strings.NewReader(`{}`)), Header: http.Header{}}, nil
	})
	c, err := New(Config{BaseURL: "http://svc.test", MerchantID: testMerchantID, AccessCode: testAccessCode,
		Secret: testSecret, HTTPClient: &http.Client{Transport: rt}, Retry: Retry{Max: 1, Base: time.Millisecond}})
	require.NoError(t, err)
	c.sleep = func(context.Context, time.Duration) error { return nil }
	_, err = c.CreateOrder(t.Context(), &Order{MerchantOrderID: "S", Amount: 100})
	assert.ErrorIs(t, err, ErrOutcomeUnknown)
	require.Len(t, seen, 2)
	assert.Equal(t, bodies[0], bodies[1])
	_, err = c.CardPayment(t.Context(), "t", NewCard("4111111111111111", "07", "2030", "123", "A"), Customer{})
	assert.ErrorIs(t, err, ErrOutcomeUnknown)
	require.Len(t, seen, 3)
	assert.Contains(t, string(bodies[2]), "4111111111111111", "the body sent held the card")
}

type roundTripFunc func(*http.Request) (*http.Response, error)

func (f roundTripFunc) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }

func TestPaymentBodyWipedAfterCall(t *testing.T) {
	var sent *http.Request
	rt := roundTripFunc(func(r *http.Request) (*http.Response, error) {
		_, _ = io.ReadAll(r.Body)
		sent = r
		return &http.Response{StatusCode: 200, Header: http.Header{},
			Body: io.NopCloser(strings.NewReader(`{"content":"x","payment_id":1,"order_id":2,"amount_in_paise":100,"response_code":1,"response_message":"SUCCESS"}`))}, nil
	})
	c, err := New(Config{BaseURL: "http://svc.test", MerchantID: testMerchantID, AccessCode: testAccessCode,
		Secret: testSecret, HTTPClient: &http.Client{Transport: rt}})
	require.NoError(t, err)
	_, err = c.CardPayment(t.Context(), "t", NewCard("4111111111111111", "07", "2030", "123", "A"), Customer{})
	require.NoError(t, err)
	require.NotNil(t, sent)
	again, err := sent.GetBody()
	require.NoError(t, err)
	b, err := io.ReadAll(again)
	assert.Error(t, err, "the wiped body can no longer be read")
	assert.NotContains(t, string(b), "4111")
}

func TestLoggerSeesNoSecrets(t *testing.T) {
	var buf strings.Builder
	var mu sync.Mutex
	f := setup(t, func(c *Config) {
		c.Logger = slog.New(slog.NewTextHandler(writerFunc(func(p []byte) (int, error) {
			mu.Lock()
			defer mu.Unlock()
			return buf.Write(p)
		}), &slog.HandlerOptions{Level: slog.LevelDebug}))
	})
	var n atomic.Int32
	f.mux.HandleFunc("POST "+PathCreateOrder, func(w http.ResponseWriter, r *http.Request) {
		if n.Add(1) == 1 {
			writeJSON(w, http.StatusServiceUnavailable, `{"error_code":"14020","error_message":"x"}`)
			return
		}
		writeJSON(w, http.StatusOK, `{"token":"secret%2Btoken","service_order_id":"1"}`)
	})
	_, err := f.client.CreateOrder(t.Context(), &Order{MerchantOrderID: "LOG-1", Amount: 100})
	require.NoError(t, err)
	mu.Lock()
	defer mu.Unlock()
	out := buf.String()
	assert.Contains(t, out, "retrying", "the retry is logged")
	for _, secret := range []string{testSecret, testAccessCode, "LOG-1", "secret", "request"} {
		assert.NotContains(t, out, secret)
	}
}

type writerFunc func([]byte) (int, error)

func (f writerFunc) Write(p []byte) (int, error) { return f(p) }
