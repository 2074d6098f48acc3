package irp_test

import (
	"bytes"
	"encoding/base64"
	"encoding/hex"
	"math/big"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"galla/gateway/irp"
	"galla/gateway/irp/sandbox"
)

// Keys of the known-answer tests: two 32-byte ASCII strings, so the openssl
// commands that computed the vectors can be typed again.
var (
	testAppKey     = []byte("galla-irp-test-appkey-0123456789") // -K 67616c6c612d6972702d746573742d6170706b65792d30313233343536373839
	testSessionKey = []byte("galla-irp-test-sessionkey-ABCDEF") // -K 67616c6c612d6972702d746573742d73657373696f6e6b65792d414243444546
)

func unhex(t *testing.T, s string) []byte {
	t.Helper()
	b, err := hex.DecodeString(s)
	require.NoError(t, err)
	return b
}

// TestECBKnownAnswers: AES-256-ECB with PKCS#7 padding against vectors computed
// with OpenSSL 3.0 (openssl enc pads with PKCS#7 unless -nopad), and the
// FIPS-197 Appendix C.3 example.
func TestECBKnownAnswers(t *testing.T) {
	const K, S = "67616c6c612d6972702d746573742d6170706b65792d30313233343536373839", "67616c6c612d6972702d746573742d73657373696f6e6b65792d414243444546"
	for _, tc := range []struct {
		name, cmd  string
		key, plain []byte
		want       string // base64
	}{
		{
			// FIPS-197 C.3: AES-256 of 00112233…eeff under 000102…1f is
			// 8ea2b7ca516745bfeafc49904b496089; a whole block gets a whole block of
			// padding (0x10 × 16), encrypted after it.
			name:  "FIPS-197 C.3, whole block",
			cmd:   "printf 00112233445566778899aabbccddeeff | xxd -r -p | openssl enc -aes-256-ecb -K 000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f | xxd -p",
			key:   unhex(t, "000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f"),
			plain: unhex(t, "00112233445566778899aabbccddeeff"),
			want:  base64.StdEncoding.EncodeToString(unhex(t, "8ea2b7ca516745bfeafc49904b4960899f3b7504926f8bd36e3118e903a4cd4a")),
		},
		{
			name: "empty: one block of padding",
			cmd:  "printf '' | openssl enc -aes-256-ecb -K " + S + " -base64 -A",
			key:  testSessionKey, plain: nil, want: "2UvV+SRDRTz/niM8E4v7Uw==",
		},
		{
			name: "a cancel request's JSON under the session key",
			cmd:  `printf '%s' '{"Irn":"4f1b5c3b8d2e","CnlRsn":"3","CnlRem":"sale voided"}' | openssl enc -aes-256-ecb -K ` + S + " -base64 -A",
			key:  testSessionKey, plain: []byte(`{"Irn":"4f1b5c3b8d2e","CnlRsn":"3","CnlRem":"sale voided"}`),
			want: "3eqVdRdVJeiLxMfU70ATxy8M/kdXfEP26y3/1Sjgmb6truumsHezjQo78u2LEID5kRIFjeE6FPBqSMrIl1OvYw==",
		},
		{
			name: "the session key under the AppKey (Sek)",
			cmd:  "printf galla-irp-test-sessionkey-ABCDEF | openssl enc -aes-256-ecb -K " + K + " -base64 -A",
			key:  testAppKey, plain: testSessionKey,
			want: "89sUVe+Xbk1O06sL7EPPD9yqQQPjtGmCclhls1tVv094VCRT8Ks60/HFRqh6dfEk",
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := irp.Seal(tc.key, tc.plain)
			require.NoError(t, err)
			assert.Equal(t, tc.want, got, "Seal; want the output of: %s", tc.cmd)
			back, err := irp.Open(tc.key, tc.want)
			require.NoError(t, err)
			assert.True(t, bytes.Equal(tc.plain, back), "Open(%s) = %q; want %q", tc.want, back, tc.plain)
		})
	}
}

// TestECBRefusals: a ciphertext whose padding is wrong, one of the wrong length,
// a key of the wrong size and data that is not base64 are refused, each with
// its sentinel. The two bad-padding blocks were encrypted without padding:
//
//	printf 0102030405060708090a0b0c0d0e0f00 | xxd -r -p | openssl enc -aes-256-ecb -K 6761…4546 -nopad -base64 -A
//	printf 0102030405060708090a0b0c0d020303 | xxd -r -p | openssl enc -aes-256-ecb -K 6761…4546 -nopad -base64 -A
//
// and the cancel request's vector decrypted with the AppKey instead of the
// session key fails in openssl too ("bad decrypt").
func TestECBRefusals(t *testing.T) {
	for _, tc := range []struct {
		name string
		key  []byte
		data string
		want error
	}{
		{"last byte 0x00", testSessionKey, "OyTvXKgtTrxPe6CNlfRWQg==", irp.ErrPadding},
		{"padding 02 03 03", testSessionKey, "XedhOZPNxA4XPWX2vF0q2g==", irp.ErrPadding},
		{"another key", testAppKey, "3eqVdRdVJeiLxMfU70ATxy8M/kdXfEP26y3/1Sjgmb6truumsHezjQo78u2LEID5kRIFjeE6FPBqSMrIl1OvYw==", irp.ErrPadding},
		{"not whole blocks", testSessionKey, base64.StdEncoding.EncodeToString(make([]byte, 15)), irp.ErrPadding},
		{"nothing", testSessionKey, "", irp.ErrPadding},
		{"a 16-byte key", testSessionKey[:16], "2UvV+SRDRTz/niM8E4v7Uw==", irp.ErrKeySize},
		{"not base64", testSessionKey, "{\"Irn\":\"x\"}", irp.ErrNotEncrypted},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := irp.Open(tc.key, tc.data)
			assert.ErrorIs(t, err, tc.want, "Open = %q", got)
		})
	}
	_, err := irp.Seal(testSessionKey[:31], []byte("x"))
	assert.ErrorIs(t, err, irp.ErrKeySize)
}

// authVector is an authentication's Data computed with openssl, from the
// sandbox's published encryption key (docs/irp-contract.md) as the IRP's:
//
//	printf '%s' '{"UserName":"sandbox","Password":"sandbox","AppKey":"Z2FsbGEtaXJwLXRlc3QtYXBwa2V5LTAxMjM0NTY3ODk=","ForceRefreshAccessToken":true}' \
//	  | base64 -w0 | openssl pkeyutl -encrypt -pubin -inkey encryption-key.pem -pkeyopt rsa_padding_mode:pkcs1 | base64 -w0
//
// (RSAES-PKCS1-v1_5 is randomised: openssl gives another ciphertext each run,
// each of which decrypts to the same JSON.)
const (
	authJSON   = `{"UserName":"sandbox","Password":"sandbox","AppKey":"Z2FsbGEtaXJwLXRlc3QtYXBwa2V5LTAxMjM0NTY3ODk=","ForceRefreshAccessToken":true}`
	authVector = "NoVvXDiXyoYV2Yn0wNzVStKlnB5CNJgtNHeWAKcAXno7XpYJLIP9EJBqjgOhUvCZVelqD96l0hqK/qWHhvtENVVSLrxPcERVPK9vlHlP2S/tNCjo0eTTDGMpKtTZhWXkDEW6DAMu1zf6uDIHJEDCMJllK/w4RzXDN5ZkLsXciF3PJ3HLTcH2NCDCiUFUMEEvVZB0cwitWurGdnpBroXScV4NkVO2eXIM5cAtwCSceLlXCaXXccHpTucyHk745IpC3jQRGl8iS7LFcGA3SS1Ik3WJpoMtq/Tqu3LEVejXxhpfHpqblOyPD/sSslUQ5ny39YalHsPdWQdB0txQzARC8A=="
)

// TestAuthDecryptsOpenSSLVector: the sandbox's decryption of an authentication
// (DecryptAuth) reads what openssl encrypted.
func TestAuthDecryptsOpenSSLVector(t *testing.T) {
	got, err := irp.DecryptAuth(sandbox.TestEncryptionKey(), authVector)
	require.NoError(t, err)
	assert.Equal(t, authJSON, string(got))
	_, err = irp.DecryptAuth(sandbox.TestKey(), authVector) // the signing key is not the encryption key
	assert.Error(t, err)
}

// TestEncryptAuthIsPKCS1v15: the client's encryption, undone with the private
// exponent by hand (m = c^d mod n, without crypto/rsa's decryption), is the
// RSAES-PKCS1-v1_5 block of RFC 8017 7.2.1: 0x00 0x02, at least eight non-zero
// random bytes, 0x00, then the base64 of the JSON.
func TestEncryptAuthIsPKCS1v15(t *testing.T) {
	key := sandbox.TestEncryptionKey()
	data, err := irp.EncryptAuth(&key.PublicKey, []byte(authJSON))
	require.NoError(t, err)
	ct, err := base64.StdEncoding.DecodeString(data)
	require.NoError(t, err)
	require.Len(t, ct, key.Size())
	em := new(big.Int).Exp(new(big.Int).SetBytes(ct), key.D, key.N).FillBytes(make([]byte, key.Size()))
	require.Equal(t, []byte{0x00, 0x02}, em[:2], "EM = %x", em[:8])
	sep := bytes.IndexByte(em[2:], 0x00)
	require.GreaterOrEqual(t, sep, 8, "the padding string is at least 8 non-zero bytes")
	assert.Equal(t, base64.StdEncoding.EncodeToString([]byte(authJSON)), string(em[2+sep+1:]))

	long := bytes.Repeat([]byte("x"), 200) // 268 bytes of base64: more than a 2048-bit key takes
	_, err = irp.EncryptAuth(&key.PublicKey, long)
	assert.ErrorContains(t, err, "too long")
}
