package gateway

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"strings"
)

// ErrSignature is matched (errors.Is) by every error about an x-verify value that is
// missing or does not match. An answer with a bad signature is unverified: its
// outcome is unknown, never success and never failure.
var ErrSignature = errors.New("gateway: x-verify signature missing or wrong")

// ErrSecret reports a merchant secret that is not valid hexadecimal text of at least
// 32 digits. It is found when a client or sandbox is built, never per request.
var ErrSecret = errors.New("gateway: the merchant secret must be hexadecimal text of at least 32 digits")

// DecodeSecret turns the merchant secret (hex text) into the HMAC key.
func DecodeSecret(secret string) ([]byte, error) {
	s := strings.TrimSpace(secret)
	if len(s) < 32 || len(s)%2 != 0 {
		return nil, ErrSecret
	}
	key, err := hex.DecodeString(s)
	if err != nil {
		return nil, ErrSecret
	}
	return key, nil
}

// Sign returns the x-verify value of payload, the base64 text exactly as sent:
// UPPER_HEX(HMAC-SHA256(key, payload)) (contract section 1).
func Sign(key []byte, payload string) string {
	m := hmac.New(sha256.New, key)
	m.Write([]byte(payload))
	return strings.ToUpper(hex.EncodeToString(m.Sum(nil)))
}

// Verify checks an x-verify value against payload in constant time. Either hex case
// is accepted. The error matches ErrSignature when the value is missing or wrong.
func Verify(key []byte, payload, signature string) error {
	if signature == "" {
		return fmt.Errorf("%w: none received", ErrSignature)
	}
	got, err := hex.DecodeString(strings.TrimSpace(signature))
	if err != nil {
		return fmt.Errorf("%w: not hexadecimal", ErrSignature)
	}
	m := hmac.New(sha256.New, key)
	m.Write([]byte(payload))
	if !hmac.Equal(got, m.Sum(nil)) {
		return fmt.Errorf("%w: does not match", ErrSignature)
	}
	return nil
}
