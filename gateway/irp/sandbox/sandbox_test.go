package sandbox_test

import (
	"crypto/x509"
	"encoding/pem"
	"os"
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

// TestPublishedKeyIsDocumented: the public half of the test key in
// docs/irp-contract.md is the sandbox's, so anyone can check its QR codes.
func TestPublishedKeyIsDocumented(t *testing.T) {
	doc, err := os.ReadFile("../../../docs/irp-contract.md")
	require.NoError(t, err)
	start := strings.Index(string(doc), "-----BEGIN PUBLIC KEY-----")
	require.GreaterOrEqual(t, start, 0, "docs/irp-contract.md has no public key")
	b, _ := pem.Decode(doc[start:])
	require.NotNil(t, b)
	pub, err := x509.ParsePKIXPublicKey(b.Bytes)
	require.NoError(t, err)
	assert.True(t, sandbox.TestKey().PublicKey.Equal(pub))
}
