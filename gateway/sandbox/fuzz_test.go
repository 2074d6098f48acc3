package sandbox

import (
	"bytes"
	"encoding/json"
	"net/http/httptest"
	"strings"
	"testing"
)

// FuzzAPI sends arbitrary bodies to every JSON endpoint: the sandbox must answer
// each with a JSON body and never with a server error.
func FuzzAPI(f *testing.F) {
	f.Add(uint8(0), []byte(`{"request":"e30="}`))
	f.Add(uint8(1), []byte(`{"card_data":{"card_number":"4111111111111111","cvv":"123","card_holder_name":"A","card_expiry_year":"2030","card_expiry_month":"12"}}`))
	f.Add(uint8(2), []byte(`{"merchant_data":{"merchant_id":770001},"emi_data":{"offer_scheme":{"product_details":[{"product_code":"SAMSUNG-S24","schemes":[{"scheme_id":"HDFC-105-3"}]}]},"tenure_in_month":"3"}}`))
	f.Add(uint8(3), []byte(`{"merchant_data":{"merchant_id":770001},"payment_data":{"amount_in_paisa":500000},"product_details":[{"product_code":"LG-WM9KG","product_amount":500000}]}`))
	f.Add(uint8(4), []byte(`{"merchant_data":{"merchant_id":770001},"payment_data":{"amount_in_paisa":500000},"card_data":{"card_number":"4386280000000004"},"emi_data":{}}`))
	f.Add(uint8(5), []byte(`{"merchant_data":{"merchant_id":770001},"product_imei_details":[{"product_code":"APPLE-IP15","imei_no":"353919110000019"}]}`))
	f.Add(uint8(6), []byte(`{"request":"eyJ1bmlxdWVfdHhuX2lkIjoiMSJ9"}`))
	f.Add(uint8(7), []byte(`{"orderToken":"x","mode":"UPI"}`))
	paths := []string{"/api/v1/order/create", "/api/v1/card/process/payment?token=", "/api/v1/emi/process/payment?token=",
		"/api/v1/emi/calculator", "/api/v1/emi/scheme/validation", "/api/v1/emi/imei/validation?token=",
		"/api/v1/refunds/payment/refund", "/checkout/v1/api/pay"}
	f.Fuzz(func(t *testing.T, which uint8, body []byte) {
		fx := setup(t)
		tok, _ := fx.create(500000, product{"LG-WM9KG", 500000})
		path := paths[int(which)%len(paths)]
		if strings.HasSuffix(path, "token=") {
			path += tok
		}
		req := httptest.NewRequest("POST", "http://sandbox.test"+path, bytes.NewReader(body))
		req.Header.Set("checkoutmode", "SEAMLESS")
		req.Header.Set("x-verify", "00")
		req.Header.Set("Authorization", defaultAuth)
		w := httptest.NewRecorder()
		fx.sb.ServeHTTP(w, req)
		if w.Code >= 500 {
			t.Fatalf("POST %s = %d %s", path, w.Code, w.Body.String())
		}
		if !json.Valid(w.Body.Bytes()) {
			t.Fatalf("POST %s answered no JSON: %q", path, w.Body.String())
		}
	})
}
