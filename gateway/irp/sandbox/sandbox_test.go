package sandbox_test

import (
	"crypto/x509"
	"encoding/pem"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"galla/gateway/irp/sandbox"
)

func TestValidGSTIN(t *testing.T) {
	for _, tc := range []struct {
		gstin string
		want  bool
	}{
		{"27AAPFU0939F1ZV", true},
		{"29AAGCB7383J1Z4", true},
		{"27AAPFU0939F1ZW", false}, // check character off by one
		{"27AAPFU0939F1Z", false},  // 14 characters
		{"47AAPFU0939F1ZV", false}, // no state 47
		{"27aapfu0939f1zv", false}, // lowercase
	} {
		if got := sandbox.ValidGSTIN(tc.gstin); got != tc.want {
			t.Errorf("ValidGSTIN(%q) = %v; want %v", tc.gstin, got, tc.want)
		}
	}
}

// TestPublishedKeyIsDocumented: the public halves of the test keys in
// docs/irp-contract.md are the sandbox's, so anyone can check its QR codes and
// encrypt for it.
func TestPublishedKeyIsDocumented(t *testing.T) {
	doc, err := os.ReadFile("../../../docs/irp-contract.md")
	require.NoError(t, err)
	var keys []any
	for rest := doc; ; {
		start := strings.Index(string(rest), "-----BEGIN PUBLIC KEY-----")
		if start < 0 {
			break
		}
		b, next := pem.Decode(rest[start:])
		require.NotNil(t, b)
		pub, err := x509.ParsePKIXPublicKey(b.Bytes)
		require.NoError(t, err)
		keys = append(keys, pub)
		rest = next
	}
	require.Len(t, keys, 2, "docs/irp-contract.md publishes the signing and the encryption key")
	assert.True(t, slices.ContainsFunc(keys, func(k any) bool { return sandbox.TestKey().PublicKey.Equal(k) }), "the signing key")
	assert.True(t, slices.ContainsFunc(keys, func(k any) bool { return sandbox.TestEncryptionKey().PublicKey.Equal(k) }), "the encryption key")
	assert.False(t, sandbox.TestKey().PublicKey.Equal(&sandbox.TestEncryptionKey().PublicKey), "two key pairs, not one")
}
