package gateway

import (
	"errors"
	"fmt"
	"net/http"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// allSentinels lists every sentinel an *Error can match.
var allSentinels = []error{
	ErrSecureHash, ErrDuplicateOrder, ErrAlreadyPaid, ErrAmountMismatch, ErrDuplicateRefund,
	ErrOfferOutdated, ErrOfferNotApplicable, ErrIMEIRequired, ErrInvalidRequest, ErrTokenExpired,
	ErrUnauthorized, ErrNotFound, ErrPayloadTooLarge, ErrRateLimited, ErrServer,
}

// TestErrorEnvelopes decodes every row of contract section 2 in its envelope and
// checks the one sentinel it must match (and that it matches no other).
func TestErrorEnvelopes(t *testing.T) {
	tests := []struct {
		status   int
		body     string
		code     string
		message  string
		sentinel error
	}{
		{400, `{"error_code":"1160","error_message":"SECURE_HASH_RETURNED_FROM_MERCHANT_NOT_MATCH"}`, "1160", "SECURE_HASH_RETURNED_FROM_MERCHANT_NOT_MATCH", ErrSecureHash},
		{400, `{"error_code":"1130","error_message":"DUPLICATE_ORDER_RECEIVED_ON_MERCHANT"}`, "1130", "DUPLICATE_ORDER_RECEIVED_ON_MERCHANT", ErrDuplicateOrder},
		{400, `{"error_code":"14845","error_message":"Request Data is not valid"}`, "14845", "Request Data is not valid", ErrInvalidRequest},
		{400, `{"response_code":14845,"response_message":"Request Data is not valid"}`, "14845", "Request Data is not valid", ErrInvalidRequest},
		{400, `{"response_code":14826,"response_message":"Offer is not applicable on card"}`, "14826", "Offer is not applicable on card", ErrOfferNotApplicable},
		{400, `{"response_code":14819,"response_message":"Offer is outdated"}`, "14819", "Offer is outdated", ErrOfferOutdated},
		{400, `{"response_code":14831,"response_message":"IMEI_VALIDATION_REQUIRED"}`, "14831", "IMEI_VALIDATION_REQUIRED", ErrIMEIRequired},
		{400, `{"error_code":"1140","error_message":"ORDER_ALREADY_PAID"}`, "1140", "ORDER_ALREADY_PAID", ErrAlreadyPaid},
		{400, `{"error_code":"1150","error_message":"AMOUNT_MISMATCH"}`, "1150", "AMOUNT_MISMATCH", ErrAmountMismatch},
		{400, `{"error_code":"1170","error_message":"DUPLICATE_UNIQUE_ID_FOUND"}`, "1170", "DUPLICATE_UNIQUE_ID_FOUND", ErrDuplicateRefund},
		{401, `{"error_code":"401","error_message":"UNAUTHORIZED"}`, "401", "UNAUTHORIZED", ErrUnauthorized},
		{401, `{"error_code":"4011","error_message":"TOKEN_EXPIRED"}`, "4011", "TOKEN_EXPIRED", ErrTokenExpired},
		{401, `{"error_code":4011,"error_message":"INVALID_TOKEN"}`, "4011", "INVALID_TOKEN", ErrTokenExpired},
		{404, `{"error_code":"404","error_message":"ORDER_NOT_FOUND"}`, "404", "ORDER_NOT_FOUND", ErrNotFound},
		{404, `{"error_code":"4040","error_message":"NO_PAYMENT_FOUND_ON_THIS_ORDER_ID"}`, "4040", "NO_PAYMENT_FOUND_ON_THIS_ORDER_ID", ErrNotFound},
		{413, `{"error_code":"413","error_message":"PAYLOAD_TOO_LARGE"}`, "413", "PAYLOAD_TOO_LARGE", ErrPayloadTooLarge},
		{429, `{"error_code":"429","error_message":"RATE_LIMITED"}`, "429", "RATE_LIMITED", ErrRateLimited},
		{500, `{"error_code":"14020","error_message":"Oops, something went wrong!"}`, "14020", "Oops, something went wrong!", ErrServer},
		{502, `<html>bad gateway</html>`, "", "Bad Gateway", ErrServer},
		{503, ``, "", "Service Unavailable", ErrServer},
	}
	for _, tt := range tests {
		t.Run(fmt.Sprintf("%d/%s", tt.status, tt.code), func(t *testing.T) {
			e := decodeError(tt.status, nil, []byte(tt.body), time.Time{})
			assert.Equal(t, tt.status, e.HTTPStatus)
			assert.Equal(t, tt.code, e.Code)
			assert.Equal(t, tt.message, e.Message)
			assert.Equal(t, []byte(tt.body), e.Raw)
			var err error = fmt.Errorf("gateway: op: %w", e)
			for _, s := range allSentinels {
				if s == tt.sentinel {
					assert.ErrorIs(t, err, s)
				} else {
					assert.NotErrorIs(t, err, s)
				}
			}
			var got *Error
			require.True(t, errors.As(err, &got))
			assert.Same(t, e, got)
		})
	}
}

func TestErrorMessageIsSafe(t *testing.T) {
	e := decodeError(400, nil, []byte(`{"error_code":"14845","error_message":"card 4111111111111111 bad\nsecret"}`), time.Time{})
	msg := e.Error()
	assert.NotContains(t, msg, "4111111111111111")
	assert.NotContains(t, msg, "\n")
	assert.Contains(t, msg, "HTTP 400")
	assert.Contains(t, msg, "14845")
	assert.Equal(t, "gateway: the service answered HTTP 400 code 14845: card [digits removed] bad secret", msg)
	assert.NotContains(t, e.Error(), string(e.Raw), "the raw body stays out of the message")
}

func TestRetryAfter(t *testing.T) {
	now := time.Date(2026, 11, 22, 5, 0, 0, 0, time.UTC)
	tests := []struct {
		v    string
		want time.Duration
	}{
		{"", 0},
		{"3", 3 * time.Second},
		{"0", 0},
		{"-5", 0},
		{"soon", 0},
		{now.Add(90 * time.Second).Format(http.TimeFormat), 90 * time.Second},
		{now.Add(-time.Minute).Format(http.TimeFormat), 0},
	}
	for _, tt := range tests {
		assert.Equal(t, tt.want, parseRetryAfter(tt.v, now), "parseRetryAfter(%q)", tt.v)
	}
	e := decodeError(429, http.Header{"Retry-After": {"7"}}, []byte(`{"error_code":"429","error_message":"RATE_LIMITED"}`), now)
	assert.Equal(t, 7*time.Second, e.RetryAfter)
}
