package store

import (
	"bytes"
	"crypto/ed25519"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"galla/store/api"
)

// countingBody is a request body of n bytes that counts what is read of it.
type countingBody struct {
	left, read int64
}

func (c *countingBody) Read(p []byte) (int, error) {
	if c.left == 0 {
		return 0, io.EOF
	}
	n := min(int64(len(p)), c.left)
	for i := range p[:n] {
		p[i] = 'x'
	}
	c.left -= n
	c.read += n
	return int(n), nil
}

func (c *countingBody) Close() error { return nil }

// xDigest is the SHA-256 of n bytes 'x', which countingBody sends.
func xDigest(n int64) []byte {
	h := sha256.New()
	_, _ = io.Copy(h, &countingBody{left: n})
	return h.Sum(nil)
}

// TestSignedEndpointsBoundedBeforeTrusted sends 20 MiB to the signed
// endpoints, as the review did (30 such requests held 1 GB): nothing of the
// body is read before the request is known to be an enrolled terminal's, and
// then no more than the endpoint takes.
func TestSignedEndpointsBoundedBeforeTrusted(t *testing.T) {
	db := newDB(t)
	srv := NewServer(db, nil)
	cred := enrolled(t, db, "T1")
	const huge = 20 << 20
	digest := xDigest(huge)
	sign := func(key ed25519.PrivateKey, terminal, path string) string {
		// Sign over the 20 MiB body without holding it: the header names its hash.
		h := api.Sign(key, terminal, "POST", path, time.Now(), newNonce(), nil)
		a, err := api.ParseAuth(h)
		require.NoError(t, err)
		a.Body = hex.EncodeToString(digest)
		return signedHeader(t, key, a, "POST", path)
	}
	for _, tc := range []struct {
		name     string
		path     string
		auth     string
		length   int64 // the Content-Length; -1: chunked, unknown until read
		status   int
		maxRead  int64
		wantCode string
	}{
		{"unsigned, chunked", api.PathEvents, "", -1, 401, 0, api.CodeUnauthorized},
		{"another key, chunked", api.PathEvents, sign(ed25519.NewKeyFromSeed(make([]byte, ed25519.SeedSize)), "T1", api.PathEvents), -1, 401, 0, api.CodeUnauthorized},
		{"an unknown terminal, chunked", api.PathEvents, sign(cred, "T404", api.PathEvents), -1, 401, 0, api.CodeUnauthorized},
		{"signed, said to be 20 MiB", api.PathEvents, sign(cred, "T1", api.PathEvents), huge, 413, 0, api.CodeMalformed},
		{"unsigned, said to be 20 MiB", api.PathEvents, "", huge, 413, 0, api.CodeMalformed},
		{"signed, chunked: read to the batch limit only", api.PathEvents, sign(cred, "T1", api.PathEvents), -1, 413, api.MaxBody + 1, api.CodeMalformed},
		{"a decision, signed, chunked: read to its small limit only", api.PathReserveIMEI, sign(cred, "T1", api.PathReserveIMEI), -1, 413, api.MaxRequest + 1, api.CodeMalformed},
		{"a header without the body's hash: read to its small limit only", api.PathEvents, legacyHeader(t, cred, "T1", api.PathEvents), -1, 413, api.MaxUndigested + 1, api.CodeMalformed},
	} {
		t.Run(tc.name, func(t *testing.T) {
			body := &countingBody{left: huge}
			req := httptest.NewRequestWithContext(t.Context(), "POST", tc.path, nil)
			req.Body, req.ContentLength = body, tc.length
			if tc.auth != "" {
				req.Header.Set("Authorization", tc.auth)
			}
			w := httptest.NewRecorder()
			srv.ServeHTTP(w, req)
			assert.Equal(t, tc.status, w.Code, w.Body.String())
			var e api.Error
			require.NoError(t, json.Unmarshal(w.Body.Bytes(), &e))
			assert.Equal(t, tc.wantCode, e.Code)
			assert.LessOrEqual(t, body.read, tc.maxRead, "bytes read of the 20 MiB body")
		})
	}
	n, _ := count(t, db, "T1")
	assert.Zero(t, n)

	// A signed request whose body is not the one its header names is refused.
	batch, _ := json.Marshal(api.Batch{TerminalID: "T1", Events: chain(zero, 1, 2, "a")})
	key := cred
	a, err := api.ParseAuth(api.Sign(key, "T1", "POST", api.PathEvents, time.Now(), newNonce(), batch))
	require.NoError(t, err)
	edited := bytes.Replace(batch, []byte(`"T1"`), []byte(`"T2"`), 1)
	req := httptest.NewRequestWithContext(t.Context(), "POST", api.PathEvents, bytes.NewReader(edited))
	req.Header.Set("Authorization", signedHeader(t, key, a, "POST", api.PathEvents))
	w := httptest.NewRecorder()
	srv.ServeHTTP(w, req)
	assert.Equal(t, 401, w.Code, w.Body.String())

	// The same batch as signed goes in, and so does a small batch signed
	// without the body's hash in the header.
	for _, h := range []string{api.Sign(key, "T1", "POST", api.PathEvents, time.Now(), newNonce(), batch), legacySign(t, cred, "T1", api.PathEvents, batch)} {
		req = httptest.NewRequestWithContext(t.Context(), "POST", api.PathEvents, bytes.NewReader(batch))
		req.Header.Set("Authorization", h)
		w = httptest.NewRecorder()
		srv.ServeHTTP(w, req)
		assert.Equal(t, 200, w.Code, w.Body.String())
	}
	n, _ = count(t, db, "T1")
	assert.Equal(t, 2, n)
}

// signedHeader writes a as a header, signed with key over the body hash a.Body.
func signedHeader(t *testing.T, key ed25519.PrivateKey, a api.Auth, method, path string) string {
	t.Helper()
	// Sign over a body whose digest is a.Body: api.Sign takes the body itself,
	// so the signature is made here the way api does, then checked by api.
	a.Sig = hex.EncodeToString(ed25519.Sign(key, fmt.Appendf(nil, "%s\n%s\n%s\n%d\n%s\n%s", method, path, a.Terminal, a.Time, a.Nonce, a.Body)))
	require.True(t, a.VerifyHeader(key.Public().(ed25519.PublicKey), method, path))
	return fmt.Sprintf("Galla-Ed25519 terminal=%s, time=%d, nonce=%s, body=%s, sig=%s", a.Terminal, a.Time, a.Nonce, a.Body, a.Sig)
}

// legacyHeader is a header without body= over the 20 MiB body of
// countingBody.
func legacyHeader(t *testing.T, key ed25519.PrivateKey, terminal, path string) string {
	t.Helper()
	a, err := api.ParseAuth(api.Sign(key, terminal, "POST", path, time.Now(), newNonce(), nil))
	require.NoError(t, err)
	a.Body = hex.EncodeToString(xDigest(20 << 20))
	return withoutBody(signedHeader(t, key, a, "POST", path))
}

// legacySign is a header without body= over body.
func legacySign(t *testing.T, key ed25519.PrivateKey, terminal, path string, body []byte) string {
	t.Helper()
	return withoutBody(api.Sign(key, terminal, "POST", path, time.Now(), newNonce(), body))
}

func withoutBody(h string) string {
	i := strings.Index(h, ", body=")
	j := strings.Index(h, ", sig=")
	return h[:i] + h[j:]
}

// TestUnknownTerminalAlarmsAreBounded names 1000 terminals that do not exist,
// and sends 1000 unsigned requests: the alarms they raise are a bounded number
// of rows, the rest counted in them; an hour later a few more rows, no more.
func TestUnknownTerminalAlarmsAreBounded(t *testing.T) {
	db := newDB(t)
	now := time.Now()
	db.Now = func() time.Time { return now }
	srv := NewServer(db, nil)
	_, anyKey, err := ed25519.GenerateKey(nil)
	require.NoError(t, err)
	send := func(i int, signed bool) {
		body := []byte("{}")
		req := httptest.NewRequestWithContext(t.Context(), "POST", api.PathEvents, bytes.NewReader(body))
		if signed {
			req.Header.Set("Authorization", api.Sign(anyKey, fmt.Sprintf("X%04d", i), "POST", api.PathEvents, now, newNonce(), body))
		}
		w := httptest.NewRecorder()
		srv.ServeHTTP(w, req)
		require.Equal(t, 401, w.Code)
	}
	for i := range 1000 {
		send(i, true)
		send(i, false)
	}
	rows := func() (n, repeats int) {
		alarms, err := db.Access.Alarms(t.Context(), true)
		require.NoError(t, err)
		for _, a := range alarms {
			assert.Empty(t, a.Terminal)
			n++
			repeats += a.Repeats
		}
		return n, repeats
	}
	n, repeats := rows()
	assert.LessOrEqual(t, n, AnonymousAlarms+2, "rows for 2000 refused requests")
	assert.Equal(t, 2000, repeats, "every refused request is counted")

	now = now.Add(AnonymousAlarmPeriod + time.Second)
	for i := 1000; i < 2000; i++ {
		send(i, true)
	}
	n2, repeats := rows()
	assert.LessOrEqual(t, n2-n, AnonymousAlarms, "an hour later, no more than AnonymousAlarms new rows")
	assert.Equal(t, 3000, repeats)
}
