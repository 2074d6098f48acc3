package receipts

import (
	"testing"

	"github.com/stretchr/testify/assert"
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
