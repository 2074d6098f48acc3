package gateway

import (
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"regexp"
	"strings"
	"testing"
	"time"
)

var longDigits = regexp.MustCompile(`[0-9]{12,}`)

func FuzzDecodeInquiry(f *testing.F) {
	f.Add([]byte(sampleInquiry))
	f.Add([]byte(`{"order_data":{"order_status":"NA","service_order_id":"NA","amount":"1.00"}}`))
	f.Add([]byte(`{"order_data":"NA","payment_info_data":[]}`))
	f.Add([]byte(`{"merchant_data":{"merchant_id":1e99},"order_data":{}}`))
	f.Add([]byte(`null`))
	f.Add([]byte(`{"order_data":{"amount":-9223372036854775808}}`))
	key, _ := DecodeSecret(testSecret)
	c := &Client{key: key}
	f.Fuzz(func(t *testing.T, data []byte) {
		q, err := decodeInquiry(data)
		if err != nil {
			if q != nil {
				t.Fatalf("decodeInquiry returned an answer with error %v", err)
			}
			return
		}
		if string(q.Raw) != string(data) {
			t.Fatalf("Raw = %q; want the bytes received", q.Raw)
		}
		a := &answer{status: 200, header: http.Header{}, body: data}
		a.header.Set("X-Verify", Sign(key, base64.StdEncoding.EncodeToString(data)))
		// Bound to the ids the answer names, when it names them.
		c.merchantNo = max(q.MerchantData.MerchantID, 1)
		want := binding{orderID: q.ServiceOrderID(), paymentID: q.PaymentInfoData.PaymentID}
		named := q.MerchantData.MerchantID > 0 && q.ServiceOrderID() != ""
		got, sigErr, err := c.decodeInquiry(a, want)
		if !named {
			if !errors.Is(err, ErrAnswerMismatch) || got != nil {
				t.Fatalf("an answer without the merchant or order id: err %v, answer %v", err, got != nil)
			}
			return
		}
		if err != nil || sigErr != nil || !got.Verified {
			t.Fatalf("a correctly signed answer: err %v, sigErr %v, verified %v", err, sigErr, got != nil && got.Verified)
		}
		other := want
		other.orderID += "0"
		if got, _, err := c.decodeInquiry(a, other); !errors.Is(err, ErrAnswerMismatch) || got != nil {
			t.Fatalf("an answer about another order: err %v, answer %v", err, got != nil)
		}
		a.header.Set("X-Verify", Sign(key, base64.StdEncoding.EncodeToString(append(data, ' '))))
		got, sigErr, err = c.decodeInquiry(a, want)
		if err != nil || sigErr == nil || got.Verified || got.Charged() || got.Failed() {
			t.Fatalf("a wrongly signed answer must be unverified, neither success nor failure")
		}
		if len(got.Raw) > MaxRaw || string(got.Raw) != string(data[:min(len(data), MaxRaw)]) {
			t.Fatalf("an unverified answer keeps the first %d bytes; kept %d", MaxRaw, len(got.Raw))
		}
	})
}

func FuzzDecodeError(f *testing.F) {
	f.Add(400, []byte(`{"error_code":"1160","error_message":"SECURE_HASH_RETURNED_FROM_MERCHANT_NOT_MATCH"}`))
	f.Add(400, []byte(`{"response_code":14826,"response_message":"Offer is not applicable on card"}`))
	f.Add(500, []byte(`<html>oops</html>`))
	f.Add(429, []byte(`{"error_code":429,"error_message":"card 4111111111111111"}`))
	f.Add(401, []byte(`{"error_code":"NA","response_code":"4011","response_message":"TOKEN_EXPIRED"}`))
	f.Fuzz(func(t *testing.T, status int, data []byte) {
		e := decodeError(status, http.Header{"Retry-After": {"5"}}, data, time.Time{})
		if e.HTTPStatus != status || string(e.Raw) != string(data[:min(len(data), MaxRaw)]) {
			t.Fatalf("decodeError lost the status or the start of the raw body")
		}
		msg := e.Error()
		if longDigits.MatchString(msg) {
			t.Fatalf("Error() = %q holds a long run of digits", msg)
		}
		for _, s := range allSentinels {
			_ = e.Is(s)
		}
	})
}

func FuzzDecodeEMIOffers(f *testing.F) {
	f.Add([]byte(`{"issuer":[{"issuer_name":"HDFC","is_debit_emi_issuer":false,"list_emi_tenure":[` + sampleTenureJSON +
		`]}],"acquirer_data":{"acquirerId":8004},"response_code":1,"response_message":"SUCCESS"}`))
	f.Add([]byte(`{"issuer":[],"acquirer_data":{"acquirerId":"8004"},"response_code":"1","response_message":"SUCCESS"}`))
	f.Add([]byte(`{"issuer":"NA","response_code":1}`))
	f.Add([]byte(`{"response_code":14845,"response_message":"Request Data is not valid"}`))
	f.Add([]byte(`{"error_code":"14845","error_message":"Request Data is not valid"}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		o, err := decodeEMIOffers(&answer{status: 200, header: http.Header{}, body: data})
		if err != nil {
			return
		}
		if o.ResponseCode != CodeSuccess {
			t.Fatalf("an answer with code %d was taken as offers", o.ResponseCode)
		}
		for _, is := range o.Issuers {
			for _, tn := range is.Tenures {
				again, err := json.Marshal(tn)
				if err != nil {
					t.Fatalf("a decoded tenure does not re-encode: %v", err)
				}
				var back EMITenure
				if err := decodeLenient(again, &back); err != nil {
					t.Fatalf("a re-encoded tenure does not decode: %v", err)
				}
				twice, _ := json.Marshal(back)
				if string(twice) != string(again) {
					t.Fatalf("tenure round trip changed:\n%s\n%s", again, twice)
				}
			}
		}
	})
}

func FuzzDecodePaymentResponse(f *testing.F) {
	f.Add([]byte(`{"content":"<form></form>","payment_id":77,"order_id":"42","amount_in_paise":"10000","response_code":1,"response_message":"SUCCESS"}`))
	f.Add([]byte(`{"content":"x","payment_id":"9","order_id":42,"amount_in_paise":306000,"token":"tk","api_url":null,"response_code":14010,"response_message":"SUCCESS"}`))
	f.Add([]byte(`{"response_code":14845,"response_message":"Request Data is not valid"}`))
	f.Add([]byte(`{"content":`))
	f.Fuzz(func(t *testing.T, data []byte) {
		var out PaymentResponse
		err := decodeCoded(&answer{status: 200, header: http.Header{}, body: data}, &out, &out.ResponseCode, &out.ResponseMessage, CodeEMISuccess, CodeSuccess)
		if err == nil && out.ResponseCode != CodeSuccess && out.ResponseCode != CodeEMISuccess {
			t.Fatalf("code %d taken as success", out.ResponseCode)
		}
	})
}

func FuzzDecodeIMEIResult(f *testing.F) {
	f.Add([]byte(`{"product_imei_details":[{"product_code":"P","imei_no":"490154203237518","imei_processing_status":{"response_code":0,"response_message":"SUCCESS"}}],"response_code":0,"response_message":"SUCCESS"}`))
	f.Add([]byte(`{"product_imei_details":[{"product_code":"P","imei_no":"1","imei_processing_status":{"response_code":"1","response_message":"INVALID_IMEI"}}],"response_code":107,"response_message":"IMEI VALIDATION FAILED"}`))
	f.Add([]byte(`{"product_imei_details":[],"response_code":0}`))
	f.Add([]byte(`{}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		r, err := decodeIMEIResult(data)
		if err != nil {
			return
		}
		if r.OK() {
			if r.ResponseCode != 0 || len(r.Items) == 0 {
				t.Fatalf("OK with code %d and %d items", r.ResponseCode, len(r.Items))
			}
			for _, it := range r.Items {
				if it.Status.ResponseCode != 0 {
					t.Fatalf("OK with a failed item")
				}
			}
		}
	})
}

func FuzzVerify(f *testing.F) {
	f.Add([]byte{0x3F, 0x1A}, goldenPayload, goldenSignature)
	f.Add([]byte{}, "", "")
	f.Add([]byte("key"), "e30=", "zz")
	f.Fuzz(func(t *testing.T, key []byte, payload, sig string) {
		_ = Verify(key, payload, sig)
		if err := Verify(key, payload, Sign(key, payload)); err != nil {
			t.Fatalf("Verify(key, p, Sign(key, p)) = %v", err)
		}
		if Verify(key, payload, sig) == nil && !strings.EqualFold(strings.TrimSpace(sig), Sign(key, payload)) {
			t.Fatalf("Verify accepted %q, which is not the signature in either case", sig)
		}
	})
}

func FuzzCard(f *testing.F) {
	f.Add("4111 1111 1111 1111", "07", "2030", "123", "Asha")
	f.Add("378282246310005", "1", "30", "1234", "")
	f.Add("6522-0000-0000-0000", "13", "1999", "12a", "x")
	f.Add("", "", "", "", "")
	now := time.Date(2026, 11, 22, 0, 0, 0, 0, time.UTC)
	f.Fuzz(func(t *testing.T, number, month, year, cvv, holder string) {
		c := NewCard(number, month, year, cvv, holder)
		err := c.Check(now)
		digits := string(c.number)
		shown := []string{c.String(), fmt.Sprintf("%v %+v %#v %s %q %x", c, c, c, c, c, c)}
		if err != nil {
			shown = append(shown, err.Error())
		}
		if j, jerr := json.Marshal(c); jerr == nil {
			shown = append(shown, string(j))
		}
		if len(digits) >= 12 && allDigits(c.number) {
			for _, s := range shown {
				if strings.Contains(s, digits[:len(digits)-4]) {
					t.Fatalf("%q shows more than the last four digits", s)
				}
			}
		}
		if err == nil && (!Luhn(digits) || len(digits) < 12 || len(digits) > 19) {
			t.Fatalf("Check accepted a bad number")
		}
		c.Zero()
		if c.Last4() != "" {
			t.Fatalf("Zero left digits")
		}
	})
}
