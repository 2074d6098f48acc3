package gateway

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

const (
	testSecret = "3F1A9C7E5B2D4F6A8C0E1B3D5F7A9C2E"
	// goldenPayload is base64 of {"merchant_data":{"merchant_id":"770001"}}.
	goldenPayload = "eyJtZXJjaGFudF9kYXRhIjp7Im1lcmNoYW50X2lkIjoiNzcwMDAxIn19"
	// goldenSignature was computed once, independently of Go, with
	//   printf '%s' "$goldenPayload" | openssl dgst -sha256 -mac HMAC -macopt hexkey:$testSecret
	// and upper-cased.
	goldenSignature = "EB72641106D7769821F147050CE50B6B920049F13D0CE38C0630828309C6CCA0"
)

func TestSignGoldenVector(t *testing.T) {
	key, err := DecodeSecret(testSecret)
	require.NoError(t, err)

	// The formula of contract section 1, written out here on its own.
	rawKey, err := hex.DecodeString(testSecret)
	require.NoError(t, err)
	m := hmac.New(sha256.New, rawKey)
	m.Write([]byte(goldenPayload))
	want := strings.ToUpper(hex.EncodeToString(m.Sum(nil)))

	got := Sign(key, goldenPayload)
	assert.Equal(t, want, got, "Sign(key, payload) against crypto/hmac")
	assert.Equal(t, goldenSignature, got, "Sign(key, payload) against openssl")
	assert.Len(t, got, 64)
	assert.Equal(t, strings.ToUpper(got), got, "x-verify is upper-case hex")
}

func TestVerify(t *testing.T) {
	key, err := DecodeSecret(testSecret)
	require.NoError(t, err)
	otherKey, err := DecodeSecret(strings.Repeat("AB", 16))
	require.NoError(t, err)
	tests := []struct {
		name    string
		key     []byte
		payload string
		sig     string
		ok      bool
	}{
		{"upper case", key, goldenPayload, goldenSignature, true},
		{"lower case", key, goldenPayload, strings.ToLower(goldenSignature), true},
		{"surrounding space", key, goldenPayload, " " + goldenSignature + "\n", true},
		{"missing", key, goldenPayload, "", false},
		{"not hex", key, goldenPayload, "XYZ", false},
		{"truncated", key, goldenPayload, goldenSignature[:62], false},
		{"other payload", key, goldenPayload + "=", goldenSignature, false},
		{"other key", otherKey, goldenPayload, goldenSignature, false},
		{"one digit changed", key, goldenPayload, "0" + goldenSignature[1:], false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := Verify(tt.key, tt.payload, tt.sig)
			if tt.ok {
				assert.NoError(t, err)
				return
			}
			assert.ErrorIs(t, err, ErrSignature)
		})
	}
}

func TestDecodeSecret(t *testing.T) {
	tests := []struct {
		name   string
		secret string
		ok     bool
	}{
		{"default merchant", testSecret, true},
		{"lower case", strings.ToLower(testSecret), true},
		{"64 digits", strings.Repeat("0f", 32), true},
		{"spaces around", "  " + testSecret + " ", true},
		{"empty", "", false},
		{"too short", "3F1A9C7E", false},
		{"odd length", testSecret + "A", false},
		{"not hex", strings.Repeat("ZZ", 16), false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			key, err := DecodeSecret(tt.secret)
			if !tt.ok {
				assert.ErrorIs(t, err, ErrSecret)
				assert.Nil(t, key)
				return
			}
			require.NoError(t, err)
			assert.Len(t, key, len(strings.TrimSpace(tt.secret))/2)
		})
	}
}

func ExampleSign() {
	key, err := DecodeSecret("3F1A9C7E5B2D4F6A8C0E1B3D5F7A9C2E")
	if err != nil {
		panic(err)
	}
	// The base64 of {"merchant_data":{"merchant_id":"770001"}}, as sent in "request".
	payload := "eyJtZXJjaGFudF9kYXRhIjp7Im1lcmNoYW50X2lkIjoiNzcwMDAxIn19"
	sig := Sign(key, payload)
	fmt.Println(sig)
	fmt.Println(Verify(key, payload, sig) == nil)
	// Output:
	// EB72641106D7769821F147050CE50B6B920049F13D0CE38C0630828309C6CCA0
	// true
}
