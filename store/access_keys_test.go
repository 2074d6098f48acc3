package store

import (
	"crypto/ed25519"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"galla/store/api"
)

// hmacHeader is the Authorization header terminals sent before they had keys:
// HMAC-SHA256 under key over the same bytes a signature covers.
func hmacHeader(key []byte, terminal, method, path string, at time.Time, nonce string, body []byte) string {
	bh := sha256.Sum256(body)
	m := hmac.New(sha256.New, key)
	fmt.Fprintf(m, "%s\n%s\n%s\n%d\n%s\n%s", method, path, terminal, at.Unix(), nonce, hex.EncodeToString(bh[:]))
	return fmt.Sprintf("Galla-HMAC terminal=%s, time=%d, nonce=%s, sig=%s", terminal, at.Unix(), nonce, hex.EncodeToString(m.Sum(nil)))
}

// status asks for terminal's status with the Authorization header h.
func statusWith(t *testing.T, base, h string) int {
	t.Helper()
	req, err := http.NewRequestWithContext(t.Context(), "GET", base+api.PathStatus, nil)
	require.NoError(t, err)
	req.Header.Set("Authorization", h)
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	resp.Body.Close()
	return resp.StatusCode
}

// Whoever holds a copy of the store's terminals table cannot sign as a
// counter: the table holds public keys only, and no key made from anything
// in it is the counter's.
func TestACopyOfTheTerminalsTableCannotSign(t *testing.T) {
	db := newDB(t)
	srv := httptest.NewServer(NewServer(db, nil))
	defer srv.Close()
	key := enrolled(t, db, "T1")
	require.Equal(t, 200, post(t, srv.URL, "GET", api.PathStatus, "T1", key, time.Now(), newNonce(), nil, nil), "the counter itself signs")

	// Every byte string of the terminal's row, as a thief would copy it.
	rows, err := db.Pool().Query(t.Context(), "SELECT * FROM terminals WHERE id = 'T1'")
	require.NoError(t, err)
	var copied [][]byte
	for rows.Next() {
		vals, err := rows.Values()
		require.NoError(t, err)
		for _, v := range vals {
			switch v := v.(type) {
			case []byte:
				copied = append(copied, v)
			case string:
				copied = append(copied, []byte(v))
			}
		}
	}
	require.NoError(t, rows.Err())
	rows.Close()
	require.NotEmpty(t, copied)

	for i, b := range copied {
		h := sha256.Sum256(b)
		var forged []ed25519.PrivateKey
		for _, seed := range [][]byte{b, h[:]} {
			if len(seed) == ed25519.SeedSize {
				forged = append(forged, ed25519.NewKeyFromSeed(seed))
			}
		}
		for j, k := range forged {
			assert.Equal(t, 401, post(t, srv.URL, "GET", api.PathStatus, "T1", k, time.Now(), newNonce(), nil, nil), "column %d as an Ed25519 seed (%d)", i, j)
		}
		for _, hk := range [][]byte{b, h[:], api.CredentialKey(string(b)), api.CredentialKey(hex.EncodeToString(b))} {
			assert.Equal(t, 401, statusWith(t, srv.URL, hmacHeader(hk, "T1", "GET", api.PathStatus, time.Now(), newNonce(), nil)), "column %d as an HMAC key", i)
		}
		// Nor can the copy move the terminal to a key of the thief's.
		thiefPub, _, err := ed25519.GenerateKey(nil)
		require.NoError(t, err)
		for _, cred := range []string{string(b), hex.EncodeToString(b)} {
			body, _ := json.Marshal(api.RotateRequest{TerminalID: "T1", Credential: cred, PublicKey: api.PublicKeyHex(thiefPub)})
			assert.Equal(t, 401, post(t, srv.URL, "POST", api.PathRotateKey, "", nil, time.Time{}, "", body, nil), "column %d as a credential", i)
		}
	}
	require.Equal(t, 200, post(t, srv.URL, "GET", api.PathStatus, "T1", key, time.Now(), newNonce(), nil, nil), "the counter's own key still signs")
}

// Enrolling a counter again rotates its key: the old key is refused from then on.
func TestReEnrolmentRotatesTheKey(t *testing.T) {
	db := newDB(t)
	srv := httptest.NewServer(NewServer(db, nil))
	defer srv.Close()
	old := enrolled(t, db, "T1")
	batch, _ := json.Marshal(api.Batch{TerminalID: "T1", Events: chain(zero, 1, 2, "a")})
	require.Equal(t, 200, post(t, srv.URL, "POST", api.PathEvents, "T1", old, time.Now(), newNonce(), batch, nil))

	key := enrolled(t, db, "T1")
	var e api.Error
	assert.Equal(t, 401, post(t, srv.URL, "GET", api.PathStatus, "T1", old, time.Now(), newNonce(), nil, &e), "the old key")
	assert.Equal(t, api.CodeUnauthorized, e.Code)
	var st api.Status
	require.Equal(t, 200, post(t, srv.URL, "GET", api.PathStatus, "T1", key, time.Now(), newNonce(), nil, &st))
	assert.Equal(t, api.Status{TerminalID: "T1", Held: 2, HeldHash: chain(zero, 1, 2, "a")[1].Hash}, st, "its events continue from what is held")
}

// A terminal enrolled before keys (the store kept its credential's key) is
// refused every signed request until it moves to a key by showing the
// credential itself, once.
func TestCredentialOfAnEarlierVersionMovesToAKeyOnce(t *testing.T) {
	db := newDB(t)
	srv := httptest.NewServer(NewServer(db, nil))
	defer srv.Close()
	enrolled(t, db, "T1")
	const cred = "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"
	// What an earlier version's enrolment left.
	_, err := db.Pool().Exec(t.Context(), "UPDATE terminals SET public_key = NULL, credential_hash = $1 WHERE id = 'T1'", api.CredentialKey(cred))
	require.NoError(t, err)

	var e api.Error
	assert.Equal(t, 401, statusWith(t, srv.URL, hmacHeader(api.CredentialKey(cred), "T1", "GET", api.PathStatus, time.Now(), newNonce(), nil)), "the old signature is taken no more")
	pub, key, err := ed25519.GenerateKey(nil)
	require.NoError(t, err)
	assert.Equal(t, 401, post(t, srv.URL, "GET", api.PathStatus, "T1", key, time.Now(), newNonce(), nil, &e), "a key not registered")
	assert.Contains(t, e.Message, "credential of an earlier version")

	rotate := func(credential string, pub ed25519.PublicKey) int {
		body, _ := json.Marshal(api.RotateRequest{TerminalID: "T1", Credential: credential, PublicKey: api.PublicKeyHex(pub)})
		return post(t, srv.URL, "POST", api.PathRotateKey, "", nil, time.Time{}, "", body, nil)
	}
	held := hex.EncodeToString(api.CredentialKey(cred))
	assert.Equal(t, 401, rotate(held, pub), "the key the store held is not the credential")
	require.Equal(t, 200, rotate(cred, pub))
	require.Equal(t, 200, rotate(cred, pub), "the same rotation again (its answer lost) is done")
	thief, _, err := ed25519.GenerateKey(nil)
	require.NoError(t, err)
	assert.Equal(t, 401, rotate(cred, thief), "the credential moves the terminal once")

	require.Equal(t, 200, post(t, srv.URL, "GET", api.PathStatus, "T1", key, time.Now(), newNonce(), nil, nil))
	var stored []byte
	var credHash *[]byte
	require.NoError(t, db.Pool().QueryRow(t.Context(), "SELECT public_key, credential_hash FROM terminals WHERE id = 'T1'").Scan(&stored, &credHash))
	assert.Equal(t, []byte(pub), stored)
	assert.Nil(t, credHash, "the credential's key is forgotten")
}
