package api

import (
	"crypto/ed25519"
	"encoding/hex"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// testKey is the key of seed 00 01 … 1f.
func testKey() ed25519.PrivateKey {
	seed := make([]byte, ed25519.SeedSize)
	for i := range seed {
		seed[i] = byte(i)
	}
	return ed25519.NewKeyFromSeed(seed)
}

// The wire format pinned by values computed outside Go (Python's
// cryptography and hashlib): terminals and servers of different versions must
// agree on it.
func TestSignKnownValue(t *testing.T) {
	key := testKey()
	pub := key.Public().(ed25519.PublicKey)
	assert.Equal(t, "03a107bff3ce10be1d70dd18e74bc09967e4d6309ba50d5f1ddc8664125531b8", PublicKeyHex(pub))
	body := []byte(`{"terminal_id":"T1","events":[]}`)
	h := Sign(key, "T1", "POST", PathEvents, time.Unix(1764000000, 0), "00112233445566778899aabbccddeeff", body)
	const digest = "d33f1ac424b014ac54c41ea73f0f08bc6d0d0ff076d83f994f5a5679f5571842" // SHA-256 of body
	const sig = "cc8fd6dea3b9e5906768361ab4aae2b4cafb1924d9a072a02c462500c390beacd57bf397779be2122fe5d5f8e258aad4e6f9e9ded08298266a8590916b0e480e"
	assert.Equal(t, "Galla-Ed25519 terminal=T1, time=1764000000, nonce=00112233445566778899aabbccddeeff, body="+digest+", sig="+sig, h)

	a, err := ParseAuth(h)
	require.NoError(t, err)
	assert.Equal(t, Auth{Terminal: "T1", Time: 1764000000, Nonce: "00112233445566778899aabbccddeeff", Body: digest, Sig: sig}, a)
	assert.True(t, a.Verify(pub, "POST", PathEvents, body))
	assert.True(t, a.VerifyHeader(pub, "POST", PathEvents), "checked before the body is read")
	b := a
	b.Body = strings.Repeat("0", 64)
	assert.False(t, b.VerifyHeader(pub, "POST", PathEvents), "a header naming another body's hash")
	assert.False(t, b.Verify(pub, "POST", PathEvents, body), "a body that is not the one the header names")

	// A header without the body's hash signs the same: it is checked once the
	// body is read, never before.
	old, err := ParseAuth("Galla-Ed25519 terminal=T1, time=1764000000, nonce=00112233445566778899aabbccddeeff, sig=" + sig)
	require.NoError(t, err)
	assert.True(t, old.Verify(pub, "POST", PathEvents, body))
	assert.False(t, old.VerifyHeader(pub, "POST", PathEvents))

	other, _, err := ed25519.GenerateKey(nil)
	require.NoError(t, err)
	for name, check := range map[string]func() bool{
		"another body":     func() bool { return a.Verify(pub, "POST", PathEvents, []byte(`{"terminal_id":"T1","events":[{}]}`)) },
		"another path":     func() bool { return a.Verify(pub, "POST", PathStatus, body) },
		"another method":   func() bool { return a.Verify(pub, "GET", PathEvents, body) },
		"another key":      func() bool { return a.Verify(other, "POST", PathEvents, body) },
		"no key":           func() bool { return a.Verify(nil, "POST", PathEvents, body) },
		"another terminal": func() bool { b := a; b.Terminal = "T2"; return b.Verify(pub, "POST", PathEvents, body) },
		"another time":     func() bool { b := a; b.Time++; return b.Verify(pub, "POST", PathEvents, body) },
		"another nonce":    func() bool { b := a; b.Nonce = strings.Repeat("0", 32); return b.Verify(pub, "POST", PathEvents, body) },
	} {
		assert.False(t, check(), name)
	}

	got, err := ParsePublicKey(PublicKeyHex(pub))
	require.NoError(t, err)
	assert.Equal(t, pub, got)
	for _, bad := range []string{"", "zz", PublicKeyHex(pub)[:62], PublicKeyHex(pub) + "00"} {
		_, err := ParsePublicKey(bad)
		assert.ErrorIs(t, err, ErrPublicKey, bad)
	}
}

// The credential of a terminal enrolled before keys is checked by its key as
// the store kept it, pinned by Python's hashlib.
func TestCredentialKeyKnownValue(t *testing.T) {
	assert.Equal(t, "e019f20709ba93762e73cf7207c8b3733366721fc7d189ebe4f32dcfe2605733", hex.EncodeToString(CredentialKey("0123456789abcdef0123456789abcdef")))
}

func TestParseAuthRefuses(t *testing.T) {
	for _, h := range []string{
		"",
		"Bearer abc",
		"Galla-Ed25519 terminal=T1, time=1, nonce=00112233445566778899aabbccddeeff",
		"Galla-HMAC terminal=T1, time=1, nonce=00112233445566778899aabbccddeeff, sig=" + strings.Repeat("a", 128),
		"Galla-Ed25519 terminal=T1, time=1, nonce=00112233445566778899aabbccddeeff, sig=" + strings.Repeat("a", 64),
		"Galla-Ed25519 terminal=T1, time=x, nonce=00112233445566778899aabbccddeeff, sig=" + strings.Repeat("a", 128),
		"Galla-Ed25519 terminal=T1, time=1, nonce=zz112233445566778899aabbccddeeff, sig=" + strings.Repeat("a", 128),
		"Galla-Ed25519 terminal=T1, time=1, nonce=0011, sig=" + strings.Repeat("a", 128),
		"Galla-Ed25519 time=1, nonce=00112233445566778899aabbccddeeff, sig=" + strings.Repeat("a", 128),
	} {
		_, err := ParseAuth(h)
		assert.ErrorIs(t, err, ErrAuthFormat, h)
	}
}

func TestNormalizeFingerprint(t *testing.T) {
	want := "2540befb1b88fff4e01c0eeb12f1ff893437ebbfea44f772fd7c38a19c3a4aec"
	for _, in := range []string{
		want,
		strings.ToUpper(want),
		"SHA256:" + want,
		"25:40:BE:FB:1B:88:FF:F4:E0:1C:0E:EB:12:F1:FF:89:34:37:EB:BF:EA:44:F7:72:FD:7C:38:A1:9C:3A:4A:EC",
		" 2540befb 1b88fff4 e01c0eeb 12f1ff89 3437ebbf ea44f772 fd7c38a1 9c3a4aec ",
	} {
		got, err := NormalizeFingerprint(in)
		require.NoError(t, err, in)
		assert.Equal(t, want, got, in)
	}
	for _, in := range []string{"", "abc", want[:62], want + "00", strings.Replace(want, "2", "g", 1)} {
		_, err := NormalizeFingerprint(in)
		assert.Error(t, err, in)
	}
}

// FuzzParseAuth: no header makes ParseAuth panic, and what it accepts keeps
// the form Sign writes.
func FuzzParseAuth(f *testing.F) {
	key := testKey()
	f.Add(Sign(key, "T1", "POST", PathEvents, time.Unix(1764000000, 0), "00112233445566778899aabbccddeeff", nil))
	f.Add("Galla-Ed25519 terminal=, time=0")
	f.Add("Galla-Ed25519 ,,,,")
	f.Fuzz(func(t *testing.T, h string) {
		a, err := ParseAuth(h)
		if err != nil {
			return
		}
		if a.Terminal == "" || a.Time == 0 || len(a.Nonce) != 32 || len(a.Sig) != 128 {
			t.Fatalf("ParseAuth(%q) = %+v: accepted a header without its parts", h, a)
		}
		_ = a.Verify(key.Public().(ed25519.PublicKey), "POST", PathEvents, nil)
	})
}
