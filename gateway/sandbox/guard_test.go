package sandbox

import (
	"bytes"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// serve sends one request to sb's handler as a server would, with the given Host.
func serve(sb *Sandbox, method, host, path string, body []byte, header map[string]string) *httptest.ResponseRecorder {
	req := httptest.NewRequest(method, "http://"+host+path, bytes.NewReader(body))
	for k, v := range header {
		req.Header.Set(k, v)
	}
	w := httptest.NewRecorder()
	sb.ServeHTTP(w, req)
	return w
}

func TestHostCheck(t *testing.T) {
	tests := []struct {
		name  string
		opts  []Option
		host  string
		allow bool
	}{
		{"loopback IPv4", nil, "127.0.0.1:7070", true},
		{"loopback IPv4 elsewhere in 127/8", nil, "127.0.0.2", true},
		{"loopback IPv6", nil, "[::1]:7070", true},
		{"localhost", nil, "localhost:7070", true},
		{"localhost with a dot", nil, "LOCALHOST.:7070", true},
		{"a .localhost name", nil, "galla.localhost:7070", true},
		{"rebinding domain", nil, "evil.example:7070", false},
		{"rebinding domain that starts like localhost", nil, "localhost.evil.example", false},
		{"LAN address not configured", nil, "192.168.1.5:7070", false},
		{"embedded name over a socket", nil, "sandbox.galla.local", false},
		{"no host", nil, "", false},
		{"configured listen host", []Option{WithAllowedHosts("192.168.1.5")}, "192.168.1.5:7070", true},
		{"configured name", []Option{WithAllowedHosts("Till-3.lan")}, "till-3.lan:7070", true},
		{"configured name, other host", []Option{WithAllowedHosts("till-3.lan")}, "evil.example", false},
		{"listening on every address: any IP", []Option{WithAllowedHosts("0.0.0.0")}, "10.1.2.3:7070", true},
		{"listening on every address: no foreign name", []Option{WithAllowedHosts("::")}, "evil.example:7070", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			sb, err := New(tt.opts...)
			require.NoError(t, err)
			req := httptest.NewRequest("GET", "/api/v1/inquiry/order/1", nil)
			req.Host = tt.host
			w := httptest.NewRecorder()
			sb.ServeHTTP(w, req)
			if tt.allow {
				assert.Equal(t, 401, w.Code, "the request reaches the API (and lacks its auth): %s", w.Body.String())
			} else {
				assert.Equal(t, 403, w.Code)
				assert.Equal(t, "HOST_NOT_ALLOWED", decode(t, w.Body.Bytes())["error_message"])
			}
		})
	}
}

func TestHostCheckOverASocket(t *testing.T) {
	sb, err := New(WithAdmin(true))
	require.NoError(t, err)
	srv := httptest.NewServer(sb)
	defer srv.Close()
	get := func(host string) int {
		req, err := http.NewRequestWithContext(t.Context(), "GET", srv.URL+"/", nil)
		require.NoError(t, err)
		req.Host = host
		res, err := srv.Client().Do(req)
		require.NoError(t, err)
		_, _ = io.Copy(io.Discard, res.Body)
		require.NoError(t, res.Body.Close())
		return res.StatusCode
	}
	u, err := url.Parse(srv.URL)
	require.NoError(t, err)
	assert.Equal(t, 200, get(u.Host))
	assert.Equal(t, 403, get("attacker.example"))
}

func TestCheckoutRoutesServeAnyHost(t *testing.T) {
	// The phone page mounts the hosted checkout under its own (LAN) host.
	f := setup(t)
	tok, _ := f.create(1000)
	raw, err := url.QueryUnescape(tok)
	require.NoError(t, err)
	w := serve(f.sb, "GET", "192.168.1.5:41234", "/checkout/v1/checkout.js", nil, nil)
	assert.Equal(t, 200, w.Code)
	w = serve(f.sb, "GET", "192.168.1.5:41234", "/checkout/v1/pay?orderToken="+url.QueryEscape(raw), nil, nil)
	assert.Equal(t, 200, w.Code)
	w = serve(f.sb, "POST", "192.168.1.5:41234", "/checkout/v1/api/pay", []byte(`{"orderToken":"`+raw+`","mode":"UPI"}`), nil)
	assert.Equal(t, 200, w.Code, w.Body.String())
	assert.Equal(t, 403, serve(f.sb, "POST", "192.168.1.5:41234", "/api/v1/order/create", nil, nil).Code, "but not the merchant API")
}

func TestAdminToken(t *testing.T) {
	a, err := New(WithAdmin(true))
	require.NoError(t, err)
	b, err := New(WithAdmin(true))
	require.NoError(t, err)
	require.NotEmpty(t, a.Controls.AdminToken())
	assert.GreaterOrEqual(t, len(a.Controls.AdminToken()), 20)
	assert.NotEqual(t, a.Controls.AdminToken(), b.Controls.AdminToken(), "random per sandbox")
	given, err := New(WithAdmin(true), WithAdminToken("s3cret-token"))
	require.NoError(t, err)
	assert.Equal(t, "s3cret-token", given.Controls.AdminToken())

	arm := []byte(`{"endpoint":"create_order","fault":"server_error","n":1}`)
	const host = "127.0.0.1:7070"
	tests := []struct {
		name   string
		method string
		header map[string]string
		want   int
	}{
		{"no token", "POST", nil, 401},
		{"no token, read", "GET", nil, 401},
		{"wrong token", "POST", map[string]string{"Authorization": "Bearer " + b.Controls.AdminToken()}, 401},
		{"token without Bearer", "POST", map[string]string{"Authorization": a.Controls.AdminToken()}, 401},
		{"token", "POST", map[string]string{"Authorization": "Bearer " + a.Controls.AdminToken()}, 200},
		{"token, read", "GET", map[string]string{"Authorization": "Bearer " + a.Controls.AdminToken()}, 200},
		{"token, same origin", "POST", map[string]string{"Authorization": "Bearer " + a.Controls.AdminToken(), "Origin": "http://127.0.0.1:7070"}, 200},
		{"token, foreign origin", "POST", map[string]string{"Authorization": "Bearer " + a.Controls.AdminToken(), "Origin": "https://evil.example"}, 403},
		{"token, null origin", "DELETE", map[string]string{"Authorization": "Bearer " + a.Controls.AdminToken(), "Origin": "null"}, 403},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a.Controls.ClearFaults()
			w := serve(a, tt.method, host, "/admin/faults", arm, tt.header)
			assert.Equal(t, tt.want, w.Code, w.Body.String())
			armed := tt.method == "POST" && tt.want == 200
			assert.Equal(t, armed, strings.Contains(serve(a, "GET", host, "/admin/faults", nil,
				map[string]string{"Authorization": "Bearer " + a.Controls.AdminToken()}).Body.String(), "create_order"))
		})
	}
	t.Run("in process through Transport too", func(t *testing.T) {
		c := &http.Client{Transport: a.Transport()}
		req, err := http.NewRequestWithContext(t.Context(), "GET", "http://sandbox.galla.local/admin/ledger", nil)
		require.NoError(t, err)
		res, err := c.Do(req)
		require.NoError(t, err)
		require.NoError(t, res.Body.Close())
		assert.Equal(t, 401, res.StatusCode)
		req.Header.Set("Authorization", "Bearer "+a.Controls.AdminToken())
		res, err = c.Do(req)
		require.NoError(t, err)
		require.NoError(t, res.Body.Close())
		assert.Equal(t, 200, res.StatusCode)
	})
}

func TestHTMLPagesHaveCSP(t *testing.T) {
	f := setup(t)
	tok, _ := f.create(1000)
	raw, err := url.QueryUnescape(tok)
	require.NoError(t, err)
	tok2, _ := f.create(1000)
	pid := f.pay(tok2, "4111111111111111")
	pages := []struct {
		name, path, form string
	}{
		{"hosted page", "/checkout/v1/pay?orderToken=" + url.QueryEscape(raw), "form-action 'self';"},
		{"ACS page", "/acs/" + pid, "form-action 'self' https://shop.example;"},
		{"index", "/", "form-action 'self';"},
	}
	for _, p := range pages {
		t.Run(p.name, func(t *testing.T) {
			w := f.do("GET", p.path, nil, nil)
			require.Equal(t, 200, w.Code)
			csp := w.Header().Get("Content-Security-Policy")
			require.NotEmpty(t, csp)
			assert.Contains(t, csp, "default-src 'none'")
			assert.Contains(t, csp, "object-src 'none'")
			assert.Contains(t, csp, "base-uri 'none'")
			assert.Contains(t, csp, p.form)
			assert.NotContains(t, csp, "script-src 'unsafe-inline'")
			_, rest, ok := strings.Cut(csp, "script-src 'nonce-")
			require.True(t, ok, csp)
			nonce, _, _ := strings.Cut(rest, "'")
			body := w.Body.String()
			// Every inline script and style element carries the nonce.
			assert.Equal(t, strings.Count(body, "<script"), strings.Count(body, `<script nonce="`+nonce+`"`), "scripts without the nonce")
			assert.Equal(t, strings.Count(body, "<style"), strings.Count(body, `<style nonce="`+nonce+`"`), "styles without the nonce")
			assert.NotRegexp(t, `<[a-z]+ [^>]*\son[a-z]+=`, body, "inline event handler attributes")
		})
	}
	w := f.do("GET", "/checkout/v1/pay?orderToken="+url.QueryEscape(raw), nil, nil)
	w2 := f.do("GET", "/checkout/v1/pay?orderToken="+url.QueryEscape(raw), nil, nil)
	assert.NotEqual(t, w.Header().Get("Content-Security-Policy"), w2.Header().Get("Content-Security-Policy"), "a fresh nonce per page")
}
