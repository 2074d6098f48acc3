package receipts

import (
	"bytes"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestQRRefusesAShortKey: a QR signed with an empty or short key would prove
// nothing, so none is made, and none is accepted.
func TestQRRefusesAShortKey(t *testing.T) {
	p := QRPayload{MerchantOrderID: "GAL-1", Amount: 100}
	for _, key := range [][]byte{nil, {}, []byte("short key")} {
		assert.Empty(t, SignQR(key, p), "%q", key)
		forged := SignQR(append(key, make([]byte, MinQRKeyLen)...), p)
		_, err := ParseQR(key, forged)
		assert.ErrorIs(t, err, ErrForgedQR, "%q", key)
	}
	key := []byte("0123456789abcdef0123456789abcdef")
	got, err := ParseQR(key, SignQR(key, p))
	assert.NoError(t, err)
	assert.Equal(t, p, got)
}

// TestSandboxMark: a document of the sandbox says so at its top and its end, in
// text and in ESC/POS; another document does not.
func TestSandboxMark(t *testing.T) {
	r := Receipt{Kind: KindSale, Number: "T1-000001", Total: 49900, Lines: []Line{{Name: "Cable", Qty: 1, UnitPrice: 49900, Amount: 49900}}, Sandbox: true}
	var text, esc bytes.Buffer
	require.NoError(t, Text(&text, r, 42))
	assert.Equal(t, 2, strings.Count(text.String(), SandboxMark), text.String())
	head := strings.SplitN(text.String(), "Receipt", 2)[0]
	assert.Contains(t, head, SandboxMark, "the mark comes before the document's number")
	require.NoError(t, ESCPOS(&esc, r, Profile{Width: 80}))
	assert.Contains(t, esc.String(), "SANDBOX", "the printer prints it")
	r.Sandbox = false
	text.Reset()
	require.NoError(t, Text(&text, r, 42))
	assert.NotContains(t, text.String(), "SANDBOX")
}
