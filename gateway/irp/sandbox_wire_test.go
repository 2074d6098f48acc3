package irp_test

import (
	"bytes"
	"encoding/json"
	"net/http"
	"net/url"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"galla/gateway/irp"
	"galla/gateway/irp/sandbox"
)

// wire is a raw client of a sandbox: requests as bytes, answers as the
// envelope, so that tests can send what the irp.Client never would.
type wire struct {
	t  *testing.T
	sb *sandbox.Sandbox
	hc *http.Client
}

type wireAnswer struct {
	HTTP         int
	Status       int             `json:"Status"`
	Data         json.RawMessage `json:"Data"`
	ErrorDetails []struct {
		ErrorCode    string `json:"ErrorCode"`
		ErrorMessage string `json:"ErrorMessage"`
	} `json:"ErrorDetails"`
}

func (a wireAnswer) code() string {
	if len(a.ErrorDetails) == 0 {
		return ""
	}
	return a.ErrorDetails[0].ErrorCode
}

func newWire(t *testing.T) *wire {
	sb := sandbox.New(func() time.Time { return saleDay })
	return &wire{t: t, sb: sb, hc: &http.Client{Transport: sb.Transport()}}
}

func (w *wire) send(method, path string, q url.Values, token, gstin string, body []byte) wireAnswer {
	w.t.Helper()
	u := "https://irp.sandbox.invalid" + path
	if q != nil {
		u += "?" + q.Encode()
	}
	req, err := http.NewRequestWithContext(w.t.Context(), method, u, bytes.NewReader(body))
	require.NoError(w.t, err)
	req.Header.Set("client_id", sandbox.ClientID)
	req.Header.Set("client_secret", sandbox.ClientSecret)
	req.Header.Set("Gstin", gstin)
	req.Header.Set("user_name", sandbox.UserName)
	if token != "" {
		req.Header.Set("AuthToken", token)
	}
	res, err := w.hc.Do(req)
	require.NoError(w.t, err)
	defer res.Body.Close()
	a := wireAnswer{HTTP: res.StatusCode}
	require.NoError(w.t, json.NewDecoder(res.Body).Decode(&a))
	return a
}

func sealedBody(data string) []byte {
	b, _ := json.Marshal(map[string]string{"Data": data})
	return b
}

// login authenticates with the openssl-encrypted vector (crypt_test.go), whose
// AppKey is testAppKey, and returns the token and the session key.
func (w *wire) login() (token string, sek []byte) {
	w.t.Helper()
	a := w.send(http.MethodPost, irp.PathAuth, nil, "", sellerGSTIN, sealedBody(authVector))
	require.Equal(w.t, 1, a.Status, "auth: %+v", a.ErrorDetails)
	var d struct{ AuthToken, Sek, TokenExpiry string }
	require.NoError(w.t, json.Unmarshal(a.Data, &d))
	sek, err := irp.Open(testAppKey, d.Sek)
	require.NoError(w.t, err, "the Sek decrypts with the AppKey sent")
	require.Len(w.t, sek, irp.KeySize)
	return d.AuthToken, sek
}

// TestSandboxSpeaksTheEncryptedAPI: a request built by hand from the
// openssl-encrypted authentication is answered as the NIC API answers it: the
// Sek under the AppKey, the generate's answer encrypted with the session key,
// the get-by-document answer too.
func TestSandboxSpeaksTheEncryptedAPI(t *testing.T) {
	w := newWire(t)
	tok, sek := w.login()
	inv := mustBuild(t, invoiceDoc())
	data, err := irp.Seal(sek, inv.JSON())
	require.NoError(t, err)
	a := w.send(http.MethodPost, irp.PathGenerate, nil, tok, sellerGSTIN, sealedBody(data))
	require.Equal(t, 1, a.Status, "generate: %+v", a.ErrorDetails)
	var enc string
	require.NoError(t, json.Unmarshal(a.Data, &enc), "the answer's Data is a string (ciphertext), not JSON: %s", a.Data)
	plain, err := irp.Open(sek, enc)
	require.NoError(t, err)
	var reg irp.Registration
	require.NoError(t, json.Unmarshal(plain, &reg))
	assert.Equal(t, irp.IRN(sellerGSTIN, "2026-27", "INV", inv.DocDtls.No), reg.Irn)

	q := url.Values{"doctype": {"INV"}, "docnum": {inv.DocDtls.No}, "docdate": {inv.DocDtls.Dt}}
	a = w.send(http.MethodGet, irp.PathByDoc, q, tok, sellerGSTIN, nil)
	require.Equal(t, 1, a.Status)
	require.NoError(t, json.Unmarshal(a.Data, &enc))
	plain, err = irp.Open(sek, enc)
	require.NoError(t, err)
	var got irp.Registration
	require.NoError(t, json.Unmarshal(plain, &got))
	assert.Equal(t, reg, got)
}

// TestSandboxRefusesWhatIsNotEncrypted: a request in the clear, one encrypted
// with another key, one that is not base64, a token used with another GSTIN and
// an authentication in the clear or under another public key are refused with
// a sentence; nothing is registered.
func TestSandboxRefusesWhatIsNotEncrypted(t *testing.T) {
	w := newWire(t)
	tok, sek := w.login()
	inv := mustBuild(t, invoiceDoc())
	underAppKey, err := irp.Seal(testAppKey, inv.JSON())
	require.NoError(t, err)
	underSek, err := irp.Seal(sek, inv.JSON())
	require.NoError(t, err)
	authClear, _ := json.Marshal(map[string]any{"UserName": sandbox.UserName, "Password": sandbox.Password, "AppKey": "Z2FsbGEtaXJwLXRlc3QtYXBwa2V5LTAxMjM0NTY3ODk=", "ForceRefreshAccessToken": true})
	for _, tc := range []struct {
		name      string
		path      string
		token     string
		gstin     string
		body      []byte
		code      string
		wantWords string
	}{
		{"the INV-01 in the clear", irp.PathGenerate, tok, sellerGSTIN, inv.JSON(), irp.CodeNotDecrypted, "not encrypted"},
		{"Data in the clear", irp.PathGenerate, tok, sellerGSTIN, sealedBody(string(inv.JSON())), irp.CodeNotDecrypted, "not base64"},
		{"Data under another key", irp.PathGenerate, tok, sellerGSTIN, sealedBody(underAppKey), irp.CodeNotDecrypted, "bad padding"},
		{"the token with another GSTIN", irp.PathGenerate, tok, localBuyer, sealedBody(underSek), irp.CodeInvalidToken, "Invalid Token"},
		{"no token", irp.PathGenerate, "", sellerGSTIN, sealedBody(underSek), irp.CodeInvalidToken, "Invalid Token"},
		{"authentication in the clear", irp.PathAuth, "", sellerGSTIN, authClear, "1007", "body must be"},
		{"authentication under the signing key", irp.PathAuth, "", sellerGSTIN, sealedBody(wrongKeyVector), irp.CodeAppKey, "not encrypted with the IRP's public encryption key"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			a := w.send(http.MethodPost, tc.path, nil, tc.token, tc.gstin, tc.body)
			assert.Equal(t, 0, a.Status)
			assert.Equal(t, tc.code, a.code())
			require.NotEmpty(t, a.ErrorDetails)
			assert.Contains(t, a.ErrorDetails[0].ErrorMessage, tc.wantWords)
		})
	}
	assert.Equal(t, 0, w.sb.Registered())
}

// wrongKeyVector is authJSON encrypted with the sandbox's signing key's public
// half (docs/irp-contract.md, "The signed QR code") instead of its encryption
// key, as a terminal holding the wrong key would send it:
//
//	printf '%s' "$authJSON" | base64 -w0 | openssl pkeyutl -encrypt -pubin -inkey signing-key.pem -pkeyopt rsa_padding_mode:pkcs1 | base64 -w0
const wrongKeyVector = "E+D4RACDHcNQu7lsIDLtMJs045HNkvHS/Imp2tPmTCeCGuJoILi50fSmkGiA0lc5hc8vIAoccQoxonXCrbtwW5kXFJa6QbfByrBjEOsYWeVvPDy1tu73C13ve8TvMXlwK3uMz61jK7jv32/bLTGZVp7Vt1gNqZtDJSco2DByA/FbOgxhetIL5TM0VGJzy863ZwAaoGflOhFpgnF5B30UPv51e5TnEQQ+8SV23shW0l8iXctJ/3MxSFm5kK03bIYHlKhFasNzFZCOcIsivCtso/WqxFts6PatIu4uYdUHoBPxHs92jF4n1LrpOU0Bppk1fKJOYKhSMlrwGPRC3AAm0Q=="
