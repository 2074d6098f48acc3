package api

import (
	"encoding/hex"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The wire format pinned by values computed outside Go (Python's hashlib and
// hmac): terminals and servers of different versions must agree on it.
func TestSignKnownValue(t *testing.T) {
	const cred = "0123456789abcdef0123456789abcdef"
	key := CredentialKey(cred)
	assert.Equal(t, "e019f20709ba93762e73cf7207c8b3733366721fc7d189ebe4f32dcfe2605733", hex.EncodeToString(key))
	body := []byte(`{"terminal_id":"T1","events":[]}`)
	h := Sign(key, "T1", "POST", PathEvents, time.Unix(1764000000, 0), "00112233445566778899aabbccddeeff", body)
	const digest = "d33f1ac424b014ac54c41ea73f0f08bc6d0d0ff076d83f994f5a5679f5571842" // SHA-256 of body
	assert.Equal(t, "Galla-HMAC terminal=T1, time=1764000000, nonce=00112233445566778899aabbccddeeff, body="+digest+", sig=615dc881c90c3c886ba2ddbb305396ef58deb5876fc9f91f05404b1a5252ded7", h)

	a, err := ParseAuth(h)
	require.NoError(t, err)
	assert.Equal(t, Auth{Terminal: "T1", Time: 1764000000, Nonce: "00112233445566778899aabbccddeeff", Body: digest, Sig: "615dc881c90c3c886ba2ddbb305396ef58deb5876fc9f91f05404b1a5252ded7"}, a)
	assert.True(t, a.Verify(key, "POST", PathEvents, body))
	assert.True(t, a.VerifyHeader(key, "POST", PathEvents), "checked before the body is read")
	b := a
	b.Body = strings.Repeat("0", 64)
	assert.False(t, b.VerifyHeader(key, "POST", PathEvents), "a header naming another body's hash")
	assert.False(t, b.Verify(key, "POST", PathEvents, body), "a body that is not the one the header names")

	// The header of an earlier version, without the body's hash, signs the
	// same: it is checked once the body is read, never before.
	old, err := ParseAuth("Galla-HMAC terminal=T1, time=1764000000, nonce=00112233445566778899aabbccddeeff, sig=615dc881c90c3c886ba2ddbb305396ef58deb5876fc9f91f05404b1a5252ded7")
	require.NoError(t, err)
	assert.True(t, old.Verify(key, "POST", PathEvents, body))
	assert.False(t, old.VerifyHeader(key, "POST", PathEvents))

	for name, check := range map[string]func() bool{
		"another body":     func() bool { return a.Verify(key, "POST", PathEvents, []byte(`{"terminal_id":"T1","events":[{}]}`)) },
		"another path":     func() bool { return a.Verify(key, "POST", PathStatus, body) },
		"another method":   func() bool { return a.Verify(key, "GET", PathEvents, body) },
		"another key":      func() bool { return a.Verify(CredentialKey("x"), "POST", PathEvents, body) },
		"another terminal": func() bool { b := a; b.Terminal = "T2"; return b.Verify(key, "POST", PathEvents, body) },
		"another time":     func() bool { b := a; b.Time++; return b.Verify(key, "POST", PathEvents, body) },
		"another nonce":    func() bool { b := a; b.Nonce = strings.Repeat("0", 32); return b.Verify(key, "POST", PathEvents, body) },
	} {
		assert.False(t, check(), name)
	}
}

func TestParseAuthRefuses(t *testing.T) {
	for _, h := range []string{
		"",
		"Bearer abc",
		"Galla-HMAC terminal=T1, time=1, nonce=00112233445566778899aabbccddeeff",
		"Galla-HMAC terminal=T1, time=x, nonce=00112233445566778899aabbccddeeff, sig=" + strings.Repeat("a", 64),
		"Galla-HMAC terminal=T1, time=1, nonce=zz112233445566778899aabbccddeeff, sig=" + strings.Repeat("a", 64),
		"Galla-HMAC terminal=T1, time=1, nonce=0011, sig=" + strings.Repeat("a", 64),
		"Galla-HMAC time=1, nonce=00112233445566778899aabbccddeeff, sig=" + strings.Repeat("a", 64),
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
	f.Add(Sign(CredentialKey("c"), "T1", "POST", PathEvents, time.Unix(1764000000, 0), "00112233445566778899aabbccddeeff", nil))
	f.Add("Galla-HMAC terminal=, time=0")
	f.Add("Galla-HMAC ,,,,")
	f.Fuzz(func(t *testing.T, h string) {
		a, err := ParseAuth(h)
		if err != nil {
			return
		}
		if a.Terminal == "" || a.Time == 0 || len(a.Nonce) != 32 || len(a.Sig) != 64 {
			t.Fatalf("ParseAuth(%q) = %+v: accepted a header without its parts", h, a)
		}
		_ = a.Verify(CredentialKey("c"), "POST", PathEvents, nil)
	})
}
