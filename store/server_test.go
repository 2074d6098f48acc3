package store

import (
	"bytes"
	"context"
	"crypto/ed25519"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"encoding/hex"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"galla/store/api"
)

// post sends a request signed with key (unsigned when key is nil) and
// decodes the answer into out.
func post(t *testing.T, base, method, path, terminal string, key ed25519.PrivateKey, at time.Time, nonce string, body []byte, out any) int {
	t.Helper()
	req, err := http.NewRequestWithContext(t.Context(), method, base+path, bytes.NewReader(body))
	require.NoError(t, err)
	if key != nil {
		req.Header.Set("Authorization", api.Sign(key, terminal, method, path, at, nonce, body))
	}
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	if out != nil {
		require.NoError(t, json.Unmarshal(b, out), string(b))
	}
	return resp.StatusCode
}

func newNonce() string {
	var b [16]byte
	_, _ = rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

func TestServerSignedRequests(t *testing.T) {
	db := newDB(t)
	srv := httptest.NewServer(NewServer(db, nil))
	defer srv.Close()

	code, _, err := db.Access.EnrolCode(t.Context(), "T1")
	require.NoError(t, err)
	pub, cred, err := ed25519.GenerateKey(nil)
	require.NoError(t, err)
	var enrol api.EnrolResponse
	var e api.Error
	body, _ := json.Marshal(api.EnrolRequest{Code: code})
	require.Equal(t, 400, post(t, srv.URL, "POST", api.PathEnrol, "", nil, time.Time{}, "", body, &e), "an enrolment without a key")
	assert.Equal(t, api.CodeMalformed, e.Code)
	body, _ = json.Marshal(api.EnrolRequest{Code: code, PublicKey: api.PublicKeyHex(pub)})
	require.Equal(t, 200, post(t, srv.URL, "POST", api.PathEnrol, "", nil, time.Time{}, "", body, &enrol))
	assert.Equal(t, "T1", enrol.TerminalID)
	require.Equal(t, 403, post(t, srv.URL, "POST", api.PathEnrol, "", nil, time.Time{}, "", body, &e), "a code works once")
	assert.Equal(t, api.CodeBadCode, e.Code)
	_, wrong, err := ed25519.GenerateKey(nil)
	require.NoError(t, err)

	batch, _ := json.Marshal(api.Batch{TerminalID: "T1", Events: chain(zero, 1, 3, "a")})
	now, nonce := time.Now(), newNonce()
	var br api.BatchResponse
	require.Equal(t, 200, post(t, srv.URL, "POST", api.PathEvents, "T1", cred, now, nonce, batch, &br))
	assert.Equal(t, api.BatchResponse{Held: 3, HeldHash: chain(zero, 1, 3, "a")[2].Hash, Stored: 3}, br)

	for _, tc := range []struct {
		name     string
		terminal string
		key      ed25519.PrivateKey
		at       time.Time
		nonce    string
		body     []byte
		status   int
		code     string
	}{
		{"the same request replayed", "T1", cred, now, nonce, batch, 401, api.CodeReplayed},
		{"another key", "T1", wrong, time.Now(), newNonce(), batch, 401, api.CodeUnauthorized},
		{"an unknown terminal", "T7", cred, time.Now(), newNonce(), batch, 401, api.CodeUnauthorized},
		{"an old request", "T1", cred, time.Now().Add(-time.Hour), newNonce(), batch, 401, api.CodeReplayed},
		{"unsigned", "T1", nil, time.Now(), "", batch, 401, api.CodeUnauthorized},
		{"not JSON", "T1", cred, time.Now(), newNonce(), []byte("{oops"), 400, api.CodeMalformed},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var e api.Error
			assert.Equal(t, tc.status, post(t, srv.URL, "POST", api.PathEvents, tc.terminal, tc.key, tc.at, tc.nonce, tc.body, &e))
			assert.Equal(t, tc.code, e.Code)
			assert.NotEmpty(t, e.Message)
		})
	}
	// An edited request: signed over one body, sent with another.
	req, _ := http.NewRequestWithContext(t.Context(), "POST", srv.URL+api.PathEvents, bytes.NewReader(batch))
	other, _ := json.Marshal(api.Batch{TerminalID: "T1", Events: chain(zero, 1, 4, "a")})
	req.Header.Set("Authorization", api.Sign(cred, "T1", "POST", api.PathEvents, time.Now(), newNonce(), other))
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	resp.Body.Close()
	assert.Equal(t, 401, resp.StatusCode)

	n, _ := count(t, db, "T1")
	assert.Equal(t, 3, n, "no refused request stored anything")
	alarms, err := db.Access.Alarms(t.Context(), true)
	require.NoError(t, err)
	kinds := map[string]int{}
	for _, a := range alarms {
		kinds[a.Kind] += a.Repeats
	}
	assert.Equal(t, map[string]int{AlarmBadCode: 1, AlarmReplayed: 2, AlarmUnauthorized: 4, AlarmMalformed: 1}, kinds)
	assert.Len(t, alarms, 7, "another key and the edited request are the same alarm, counted twice")

	// A flood of unsigned requests is one alarm, counted.
	for range 20 {
		post(t, srv.URL, "POST", api.PathEvents, "T1", nil, time.Now(), "", batch, nil)
	}
	after, err := db.Access.Alarms(t.Context(), true)
	require.NoError(t, err)
	assert.Len(t, after, 7)
	for _, a := range after {
		if a.Kind == AlarmUnauthorized && a.Terminal == "" && strings.Contains(a.Detail, "without a terminal's signature") {
			assert.Equal(t, 21, a.Repeats)
		}
	}

	var st api.Status
	require.Equal(t, 200, post(t, srv.URL, "GET", api.PathStatus, "T1", cred, time.Now(), newNonce(), nil, &st))
	assert.Equal(t, uint64(3), st.Held)
	assert.False(t, st.Blocked)
}

func TestServeTLSWithPinnedCertificate(t *testing.T) {
	db := newDB(t)
	fp, _, err := db.Keys.InitCertificate(t.Context(), nil)
	require.NoError(t, err)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	ctx, cancel := context.WithCancel(t.Context())
	done := make(chan error, 1)
	go func() { done <- NewServer(db, nil).Serve(ctx, ln) }()

	pinned := &http.Client{Transport: &http.Transport{TLSClientConfig: &tls.Config{
		InsecureSkipVerify: true, // the pin below is the check
		VerifyPeerCertificate: func(raw [][]byte, _ [][]*x509.Certificate) error {
			return api.VerifyPinned(raw, fp, time.Now())
		},
	}}}
	resp, err := pinned.Get("https://" + ln.Addr().String() + "/healthz")
	require.NoError(t, err)
	resp.Body.Close()
	assert.Equal(t, 200, resp.StatusCode)

	// A client without the pin does not trust the store's own CA.
	_, err = http.Get("https://" + ln.Addr().String() + "/healthz")
	require.Error(t, err)

	cancel()
	select {
	case err := <-done:
		require.NoError(t, err)
	case <-time.After(15 * time.Second):
		t.Fatal("Serve did not return after its context ended")
	}
}
