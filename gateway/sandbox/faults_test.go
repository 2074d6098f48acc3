package sandbox

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"galla/gateway"
)

// client sends create-order and inquiry calls to base with hc.
type client struct {
	t    *testing.T
	hc   *http.Client
	base string
	key  []byte
	n    int
}

func (c *client) createOrder(ctx context.Context) (*http.Response, []byte, error) {
	c.t.Helper()
	c.n++
	f := &fix{t: c.t, key: c.key, n: c.n}
	body, sig := signed(c.t, c.key, f.orderDoc(1000))
	req, err := http.NewRequestWithContext(ctx, "POST", c.base+"/api/v1/order/create", bytes.NewReader(body))
	require.NoError(c.t, err)
	req.Header.Set("x-verify", sig)
	req.Header.Set("Content-Type", "application/json")
	return c.send(req)
}

func (c *client) inquire(ctx context.Context, orderID string) (*http.Response, []byte, error) {
	c.t.Helper()
	req, err := http.NewRequestWithContext(ctx, "GET", c.base+"/api/v1/inquiry/order/"+orderID, nil)
	require.NoError(c.t, err)
	req.Header.Set("Authorization", defaultAuth)
	return c.send(req)
}

func (c *client) send(req *http.Request) (*http.Response, []byte, error) {
	resp, err := c.hc.Do(req)
	if err != nil {
		return nil, nil, err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	return resp, b, err
}

// transports gives the two ways to reach a sandbox: a real socket and Transport().
func transports(t *testing.T, sb *Sandbox) map[string]*client {
	t.Helper()
	srv := httptest.NewServer(sb)
	t.Cleanup(srv.Close)
	key, err := gateway.DecodeSecret(DefaultSecret)
	require.NoError(t, err)
	return map[string]*client{
		"socket":    {t: t, hc: &http.Client{Transport: &http.Transport{DisableKeepAlives: false}}, base: srv.URL, key: key},
		"transport": {t: t, hc: &http.Client{Transport: sb.Transport()}, base: "http://sandbox.test", key: key},
	}
}

func TestFaultsOnCreateOrder(t *testing.T) {
	for _, via := range []string{"socket", "transport"} {
		t.Run(via, func(t *testing.T) {
			tests := []struct {
				fault   Fault
				applied bool // an order exists afterwards
				check   func(t *testing.T, resp *http.Response, body []byte, err error)
			}{
				{Fault{Kind: FaultServerError}, false, func(t *testing.T, resp *http.Response, body []byte, err error) {
					require.NoError(t, err)
					assert.Equal(t, 500, resp.StatusCode)
					assert.JSONEq(t, `{"error_code":"14020","error_message":"Oops, something went wrong!"}`, string(body))
				}},
				{Fault{Kind: FaultReset}, false, func(t *testing.T, resp *http.Response, body []byte, err error) {
					require.Error(t, err)
				}},
				{Fault{Kind: FaultDrop}, true, func(t *testing.T, resp *http.Response, body []byte, err error) {
					require.Error(t, err, "the call was applied but no answer came back")
				}},
				{Fault{Kind: FaultMalformedJSON}, true, func(t *testing.T, resp *http.Response, body []byte, err error) {
					require.NoError(t, err)
					assert.Equal(t, 200, resp.StatusCode)
					assert.False(t, json.Valid(body), string(body))
				}},
				{Fault{Kind: FaultDelay, Delay: 30 * time.Millisecond}, true, func(t *testing.T, resp *http.Response, body []byte, err error) {
					require.NoError(t, err)
					assert.Equal(t, 200, resp.StatusCode)
				}},
			}
			for _, tt := range tests {
				t.Run(string(tt.fault.Kind), func(t *testing.T) {
					f := setup(t)
					c := transports(t, f.sb)[via]
					f.sb.Controls.Inject(EndpointCreateOrder, tt.fault, 1)
					began := time.Now()
					resp, body, err := c.createOrder(t.Context())
					tt.check(t, resp, body, err)
					if tt.fault.Kind == FaultDelay {
						assert.GreaterOrEqual(t, time.Since(began), tt.fault.Delay)
					}
					if tt.applied {
						assert.Len(t, f.sb.Controls.Ledger(), 1)
					} else {
						assert.Empty(t, f.sb.Controls.Ledger())
					}
					// The fault is spent: the next call is normal.
					resp, _, err = c.createOrder(t.Context())
					require.NoError(t, err)
					assert.Equal(t, 200, resp.StatusCode)
				})
			}
		})
	}
}

func TestFaultResetIsTCPReset(t *testing.T) {
	f := setup(t)
	c := transports(t, f.sb)["socket"]
	f.sb.Controls.Inject(EndpointCreateOrder, Fault{Kind: FaultReset}, 1)
	_, _, err := c.createOrder(t.Context())
	require.Error(t, err)
	assert.True(t, strings.Contains(err.Error(), "reset") || strings.Contains(err.Error(), "EOF"), err.Error())

	_, _, err = transports(t, f.sb)["transport"].createOrder(t.Context())
	require.NoError(t, err)
	f.sb.Controls.Inject(EndpointCreateOrder, Fault{Kind: FaultReset}, 1)
	_, _, err = transports(t, f.sb)["transport"].createOrder(t.Context())
	assert.ErrorIs(t, err, ErrConnectionReset)
	f.sb.Controls.Inject(EndpointCreateOrder, Fault{Kind: FaultDrop}, 1)
	_, _, err = transports(t, f.sb)["transport"].createOrder(t.Context())
	assert.ErrorIs(t, err, ErrConnectionDropped)
	assert.True(t, IsAbort(err))
}

func TestFaultHang(t *testing.T) {
	for _, via := range []string{"socket", "transport"} {
		t.Run(via, func(t *testing.T) {
			f := setup(t)
			c := transports(t, f.sb)[via]
			f.sb.Controls.Inject(EndpointCreateOrder, Fault{Kind: FaultHang}, 1)
			// The clock starts before the deadline is set: the other way round, a
			// goroutine descheduled between the two lines (a loaded machine) saw
			// the deadline pass sooner than 100 ms after began.
			began := time.Now()
			ctx, cancel := context.WithTimeout(t.Context(), 100*time.Millisecond)
			defer cancel()
			_, _, err := c.createOrder(ctx)
			require.Error(t, err)
			assert.ErrorIs(t, err, context.DeadlineExceeded)
			assert.GreaterOrEqual(t, time.Since(began), 100*time.Millisecond)
			assert.Empty(t, f.sb.Controls.Ledger(), "a hung call is not applied")
		})
	}
}

func TestFaultsOnInquiry(t *testing.T) {
	for via := range map[string]bool{"socket": true, "transport": true} {
		t.Run(via, func(t *testing.T) {
			f := setup(t)
			c := transports(t, f.sb)[via]
			tok, id := f.create(1000)
			f.pay(tok, "5555555555554444")

			f.sb.Controls.Inject(EndpointInquireOrder, Fault{Kind: FaultBadSignature}, 1)
			resp, body, err := c.inquire(t.Context(), id)
			require.NoError(t, err)
			require.Equal(t, 200, resp.StatusCode)
			assert.ErrorIs(t, gateway.Verify(c.key, base64.StdEncoding.EncodeToString(body), resp.Header.Get("x-verify")), gateway.ErrSignature)

			f.sb.Controls.Inject(EndpointInquireOrder, Fault{Kind: FaultWrongAmount}, 1)
			resp, body, err = c.inquire(t.Context(), id)
			require.NoError(t, err)
			require.NoError(t, gateway.Verify(c.key, base64.StdEncoding.EncodeToString(body), resp.Header.Get("x-verify")),
				"re-signed: only the amount check catches it")
			var d inquiryDoc
			require.NoError(t, json.Unmarshal(body, &d))
			assert.Equal(t, int64(1100), d.OrderData.Amount)
			assert.Equal(t, "1100", d.PaymentInfoData.CapturedAmountInPaisa)

			resp, body, err = c.inquire(t.Context(), id)
			require.NoError(t, err)
			require.NoError(t, gateway.Verify(c.key, base64.StdEncoding.EncodeToString(body), resp.Header.Get("x-verify")))
			require.NoError(t, json.Unmarshal(body, &d))
			assert.Equal(t, int64(1000), d.OrderData.Amount)
		})
	}
}

func TestFaultDropOnPayment(t *testing.T) {
	// The lost answer of a payment call: the money moved, the caller never heard.
	f := setup(t)
	tok, id := f.create(1000)
	f.sb.Controls.Inject(EndpointCardPayment, Fault{Kind: FaultDrop}, 1)
	body, _ := json.Marshal(map[string]any{"card_data": card("5555555555554444")})
	req, _ := http.NewRequestWithContext(t.Context(), "POST", "http://sandbox.test/api/v1/card/process/payment?token="+tok, bytes.NewReader(body))
	req.Header.Set("checkoutmode", "SEAMLESS")
	_, err := (&http.Client{Transport: f.sb.Transport()}).Do(req)
	require.ErrorIs(t, err, ErrConnectionDropped)
	assert.Equal(t, orderCharged, f.ledger(id).Status)
	assert.Equal(t, 1, f.ledger(id).CapturedPayments)
}

func TestFaultQueueAndEndpoints(t *testing.T) {
	f := setup(t)
	f.sb.Controls.Inject(EndpointEMICalculator, Fault{Kind: FaultServerError}, 2)
	f.sb.Controls.Inject(EndpointEMICalculator, Fault{Kind: FaultMalformedJSON}, 1)
	f.sb.Controls.Inject(EndpointEMICalculator, Fault{Kind: FaultServerError}, 0) // ignored
	var got []int
	for range 4 {
		w := f.do("POST", "/api/v1/emi/calculator", []byte(`{"merchant_data":{"merchant_id":770001},"payment_data":{"amount_in_paisa":500000},"product_details":[{"product_code":"A","product_amount":500000}]}`), nil)
		valid := 1
		if !json.Valid(w.Body.Bytes()) {
			valid = 0
		}
		got = append(got, w.Code*10+valid)
	}
	assert.Equal(t, []int{5001, 5001, 2000, 2001}, got)
	for _, ep := range Endpoints() {
		assert.True(t, validEndpoint(ep))
	}
}

func TestAdminEndpoint(t *testing.T) {
	off := setup(t)
	w := off.do("POST", "/admin/faults", []byte(`{"endpoint":"create_order","fault":"server_error","n":1}`), nil)
	assert.Equal(t, 404, w.Code, "off by default")
	assert.Equal(t, 404, off.do("GET", "/admin/faults", nil, nil).Code)

	f := setup(t, WithAdmin(true))
	auth := map[string]string{"Authorization": "Bearer " + f.sb.Controls.AdminToken()}
	for _, bad := range []string{`{`, `{"endpoint":"nope","fault":"server_error","n":1}`, `{"endpoint":"create_order","fault":"nope","n":1}`,
		`{"endpoint":"create_order","fault":"server_error","n":0}`, `{"endpoint":"create_order","fault":"delay","n":1}`,
		`{"endpoint":"create_order","fault":"delay","n":1,"delay":"soon"}`} {
		assert.Equal(t, 400, f.do("POST", "/admin/faults", []byte(bad), auth).Code, bad)
	}
	w = f.do("POST", "/admin/faults", []byte(`{"endpoint":"create_order","fault":"server_error","n":2}`), auth)
	require.Equal(t, 200, w.Code, w.Body.String())
	w = f.do("POST", "/admin/faults", []byte(`{"endpoint":"inquire_order","fault":"delay","n":1,"delay":"1ms"}`), auth)
	require.Equal(t, 200, w.Code)
	w = f.do("GET", "/admin/faults", nil, auth)
	assert.JSONEq(t, `[{"endpoint":"create_order","fault":"server_error","n":2},{"endpoint":"inquire_order","fault":"delay","n":1,"delay":"1ms"}]`, w.Body.String())
	assert.Equal(t, 500, f.createRaw(f.orderDoc(1000)).Code)
	w = f.do("GET", "/admin/faults", nil, auth)
	assert.Contains(t, w.Body.String(), `"n":1`)
	require.Equal(t, 200, f.do("DELETE", "/admin/faults", nil, auth).Code)
	assert.JSONEq(t, `[]`, f.do("GET", "/admin/faults", nil, auth).Body.String())
	assert.Equal(t, 200, f.createRaw(f.orderDoc(1000)).Code)
	w = f.do("GET", "/admin/ledger", nil, auth)
	assert.Contains(t, w.Body.String(), `"merchant_order_id":"ORDER-2"`)
}

func TestLimits(t *testing.T) {
	f := setup(t)
	big := bytes.Repeat([]byte("a"), MaxBodyBytes+1)
	w := f.do("POST", "/api/v1/order/create", big, nil)
	assert.Equal(t, 413, w.Code)
	assert.Equal(t, map[string]any{"error_code": "413", "error_message": "PAYLOAD_TOO_LARGE"}, decode(t, w.Body.Bytes()))
	// Without a Content-Length the body is still cut off at the limit.
	req := httptest.NewRequest("POST", "http://sandbox.test/api/v1/emi/calculator", io.MultiReader(bytes.NewReader(big)))
	req.ContentLength = -1
	rec := httptest.NewRecorder()
	f.sb.ServeHTTP(rec, req)
	assert.Equal(t, 413, rec.Code)

	assert.Equal(t, 404, f.do("GET", "/api/v1/nothing", nil, nil).Code)
	assert.Equal(t, 405, f.do("PUT", "/api/v1/order/create", nil, nil).Code)

	rl := setup(t, WithRateLimit(2, 10*time.Second))
	_, id := rl.create(1000) // 1
	rl.inquire(id, "")       // 2
	w = rl.do("GET", "/api/v1/inquiry/order/"+id, nil, map[string]string{"Authorization": defaultAuth})
	assert.Equal(t, 429, w.Code)
	assert.Equal(t, "10", w.Header().Get("Retry-After"))
	assert.Equal(t, map[string]any{"error_code": "429", "error_message": "RATE_LIMITED"}, decode(t, w.Body.Bytes()))
	rl.clock.Advance(7 * time.Second)
	w = rl.do("GET", "/api/v1/inquiry/order/"+id, nil, map[string]string{"Authorization": defaultAuth})
	assert.Equal(t, "3", w.Header().Get("Retry-After"))
	rl.clock.Advance(3 * time.Second)
	rl.inquire(id, "")

	_, err := New(WithRateLimit(1, 0))
	assert.Error(t, err)
}

// panicky is an IDSource that fails, to reach the 500 envelope.
type panicky struct{}

func (panicky) NewID(IDKind) string { panic("no ids today") }

func TestServerErrorEnvelope(t *testing.T) {
	f := setup(t, WithIDs(panicky{}))
	w := f.createRaw(f.orderDoc(1000))
	assert.Equal(t, 500, w.Code)
	assert.Equal(t, map[string]any{"error_code": "14020", "error_message": "Oops, something went wrong!"}, decode(t, w.Body.Bytes()))
	// The lock was released: the sandbox still answers.
	assert.Equal(t, 404, f.do("GET", "/api/v1/inquiry/order/1", nil, map[string]string{"Authorization": defaultAuth}).Code)
}

func TestConcurrentPaymentsNeverCaptureTwice(t *testing.T) {
	f := setup(t)
	srv := httptest.NewServer(f.sb)
	defer srv.Close()
	tok, id := f.create(1000)

	// Three attempts at the OTP step, approved at the same time, plus frictionless
	// attempts racing them: exactly one payment is captured.
	var pids []string
	for range 2 {
		pids = append(pids, f.pay(tok, "4111111111111111"))
	}
	var wg sync.WaitGroup
	var ok200 atomic.Int32
	post := func(path, contentType string, body []byte, hdr map[string]string) {
		defer wg.Done()
		req, _ := http.NewRequest("POST", srv.URL+path, bytes.NewReader(body))
		req.Header.Set("Content-Type", contentType)
		for k, v := range hdr {
			req.Header.Set(k, v)
		}
		c := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
		resp, err := c.Do(req)
		if err != nil {
			t.Error(err)
			return
		}
		if resp.StatusCode == 200 {
			ok200.Add(1)
		}
		resp.Body.Close()
	}
	cardBody, _ := json.Marshal(map[string]any{"card_data": card("5555555555554444")})
	for _, pid := range pids {
		for range 3 {
			wg.Add(1)
			go post("/acs/"+pid, "application/x-www-form-urlencoded", []byte("otp="+TestOTP), nil)
		}
	}
	for range 4 {
		wg.Add(1)
		go post("/api/v1/card/process/payment?token="+tok, "application/json", cardBody, map[string]string{"checkoutmode": "SEAMLESS"})
	}
	wg.Wait()

	lo := f.ledger(id)
	assert.Equal(t, 1, lo.CapturedPayments, "%+v", lo)
	assert.Equal(t, int64(1000), lo.CapturedAmount)
	assert.Equal(t, orderCharged, lo.Status)
	assert.LessOrEqual(t, len(lo.Payments), MaxAttempts)
	assert.LessOrEqual(t, int(ok200.Load()), 1, "at most one payment call was accepted")
	for _, p := range lo.Payments {
		if !p.Captured {
			assert.Equal(t, statusFailed, p.Status, fmt.Sprint(p))
		}
	}
}

func TestTestData(t *testing.T) {
	td := TestData()
	b, err := json.Marshal(td)
	require.NoError(t, err)
	assert.Contains(t, string(b), `"merchant_id":"770001"`)
	assert.Equal(t, DefaultSecret, td.Merchant.Secret)
	require.Len(t, td.Cards, 10)
	for _, c := range td.Cards {
		assert.True(t, luhnValid(c.Number), c.Number)
	}
	imeiBrands := 0
	for _, b := range td.Brands {
		if !b.IMEIRequired {
			continue
		}
		imeiBrands++
		assert.GreaterOrEqual(t, len(b.TACs), 2, b.Brand)
		assert.LessOrEqual(t, len(b.TACs), 3, b.Brand)
		require.Len(t, b.TestIMEI, 15, b.Brand)
		assert.True(t, luhnValid(b.TestIMEI), b.TestIMEI)
		assert.Contains(t, b.TACs, b.TestIMEI[:8])
	}
	assert.Equal(t, 4, imeiBrands)
	codes := map[string]bool{}
	for _, p := range td.ProductOffers {
		codes[p.ProductCode] = true
	}
	for _, want := range []string{"SAMSUNG-S24", "SAMSUNG-A55", "SAMSUNG-M35", "SAMSUNG-ZFLIP6", "ONEPLUS-12", "ONEPLUS-12R",
		"ONEPLUS-NORD4", "XIAOMI-14", "XIAOMI-REDMI13", "APPLE-IP15", "APPLE-IP15PRO", "LG-OLED55C4", "LG-FRIDGE655",
		"LG-WM9KG", "SONY-X80L55", "SONY-WH1000XM5", "VOLTAS-AC15", "VOLTAS-AC2T"} {
		assert.True(t, codes[want], want)
	}
	assert.Len(t, codes, 18)
	// Known Luhn values: 79927398713 is the textbook example.
	assert.True(t, luhnValid("79927398713"))
	assert.False(t, luhnValid("79927398710"))
	assert.Equal(t, "49015420323751"+luhnDigit("49015420323751"), TestIMEI("49015420", 323751))
}

func TestSequentialAndRandomIDs(t *testing.T) {
	s := Sequential()
	assert.Equal(t, "100000001", s.NewID(IDOrder))
	assert.Equal(t, "100000002", s.NewID(IDOrder))
	assert.Equal(t, "200000001", s.NewID(IDPayment))
	var r randomIDs
	assert.Regexp(t, `^[1-9]\d{8}$`, r.NewID(IDOrder))
	assert.Regexp(t, `^\d{6}$`, r.NewID(IDAuthCode))
	tok := r.NewID(IDToken)
	_, err := base64.StdEncoding.DecodeString(tok)
	assert.NoError(t, err)
	assert.NotEqual(t, tok, r.NewID(IDToken))
}

func TestTransportReturnsErrorsNotPanics(t *testing.T) {
	f := setup(t)
	hc := &http.Client{Transport: f.sb.Transport()}
	resp, err := hc.Get("http://sandbox.test/checkout/v1/checkout.js")
	require.NoError(t, err)
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	assert.Contains(t, string(b), "window.Checkout = Checkout")
	assert.False(t, errors.Is(err, ErrConnectionReset))
}
