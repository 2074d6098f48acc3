package phonepage

import (
	"io"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"galla/gateway/sandbox"
	"galla/pos"
)

// phoneGet fetches a URL and returns its status and body.
func phoneGet(t *testing.T, u string) (int, string) {
	t.Helper()
	req, err := http.NewRequestWithContext(t.Context(), http.MethodGet, u, nil)
	require.NoError(t, err)
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	return resp.StatusCode, string(b)
}

// TestLANIPv4 checks which address the QR code shows when the page listens on
// every address.
func TestLANIPv4(t *testing.T) {
	up := net.FlagUp | net.FlagRunning
	ipnet := func(s string) net.Addr {
		ip, n, err := net.ParseCIDR(s)
		require.NoError(t, err)
		n.IP = ip
		return n
	}
	tests := []struct {
		name string
		ifs  []Interface
		want string
	}{
		{"none", nil, ""},
		{"loopback only", []Interface{{Flags: up | net.FlagLoopback, Addrs: []net.Addr{ipnet("127.0.0.1/8")}}}, ""},
		{"first up non-loopback", []Interface{
			{Flags: up | net.FlagLoopback, Addrs: []net.Addr{ipnet("127.0.0.1/8"), ipnet("::1/128")}},
			{Flags: up, Addrs: []net.Addr{ipnet("fe80::1/64"), ipnet("192.168.1.23/24")}},
			{Flags: up, Addrs: []net.Addr{ipnet("10.0.0.5/8")}},
		}, "192.168.1.23"},
		{"down interface skipped", []Interface{
			{Flags: 0, Addrs: []net.Addr{ipnet("192.168.1.23/24")}},
			{Flags: up, Addrs: []net.Addr{ipnet("10.0.0.5/8")}},
		}, "10.0.0.5"},
		{"running preferred", []Interface{
			{Flags: net.FlagUp, Addrs: []net.Addr{ipnet("172.17.0.1/16")}},
			{Flags: up, Addrs: []net.Addr{ipnet("192.168.0.7/24")}},
		}, "192.168.0.7"},
		{"up without running when nothing runs", []Interface{
			{Flags: net.FlagUp, Addrs: []net.Addr{ipnet("172.17.0.1/16")}},
		}, "172.17.0.1"},
		{"link-local and IPv6 only", []Interface{
			{Flags: up, Addrs: []net.Addr{ipnet("169.254.3.4/16"), ipnet("2001:db8::5/64")}},
		}, ""},
		{"IPAddr form", []Interface{{Flags: up, Addrs: []net.Addr{&net.IPAddr{IP: net.ParseIP("192.168.5.9")}}}}, "192.168.5.9"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ip, ok := lanIPv4(tt.ifs)
			if tt.want == "" {
				assert.False(t, ok, "%v", ip)
				return
			}
			require.True(t, ok)
			assert.Equal(t, tt.want, ip.String())
		})
	}
}

// TestPhonePageListen checks the address the QR code shows for each listen
// setting, and that a LAN setting without a LAN address says so.
func TestPhonePageListen(t *testing.T) {
	sb, err := sandbox.New()
	require.NoError(t, err)
	lan := func() ([]Interface, error) {
		return []Interface{{Flags: net.FlagUp | net.FlagRunning, Addrs: []net.Addr{&net.IPNet{IP: net.ParseIP("192.168.1.23"), Mask: net.CIDRMask(24, 32)}}}}, nil
	}
	noLAN := func() ([]Interface, error) { return nil, nil }
	tests := []struct {
		name     string
		listen   string
		ifs      func() ([]Interface, error)
		wantHost string
		wantErr  error
	}{
		{"default loopback", "", noLAN, "127.0.0.1", nil},
		{"all IPv4 addresses", "0.0.0.0:0", lan, "192.168.1.23", nil},
		{"all addresses, no host", ":0", lan, "192.168.1.23", nil},
		{"a specific address", "127.0.0.1:0", lan, "127.0.0.1", nil},
		{"no LAN address", "0.0.0.0:0", noLAN, "", ErrNoLANAddress},
		{"not host:port", "0.0.0.0", lan, "", pos.Errorf("")},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p, err := Start(Options{Listen: tt.listen, Sandbox: sb, Interfaces: tt.ifs})
			if tt.wantErr != nil {
				require.Error(t, err)
				assert.IsType(t, tt.wantErr, err)
				if tt.wantErr != pos.Errorf("") {
					assert.Equal(t, tt.wantErr, err)
				}
				return
			}
			require.NoError(t, err)
			defer p.Close()
			u, err := url.Parse(p.Offer("GALLA-1", pos.PhoneOrder{Token: "T%3D", Amount: 100}))
			require.NoError(t, err)
			assert.Equal(t, tt.wantHost, u.Hostname())
			port, err := strconv.Atoi(u.Port())
			require.NoError(t, err)
			assert.Positive(t, port)
			// Whatever the address shown, the page answers on loopback too
			// (it listens on every address, or on loopback itself).
			code, page := phoneGet(t, "http://"+net.JoinHostPort("127.0.0.1", u.Port())+"/pay/GALLA-1")
			assert.Equal(t, http.StatusOK, code)
			assert.Contains(t, page, `"orderToken":"T%3D"`)
		})
	}
}

// TestPageDefences checks the page's Content-Security-Policy (its own script and
// style by a fresh nonce, nothing inline without it, no framing) and that a
// request by a host name other than localhost (DNS rebinding) is refused.
func TestPageDefences(t *testing.T) {
	p, err := Start(Options{ScriptURL: "https://checkout.example.in/v1/checkout.js"})
	require.NoError(t, err)
	defer p.Close()
	u := p.Offer("GALLA-3", pos.PhoneOrder{Token: "TOK", Amount: 100})

	get := func(host string) *http.Response {
		req, err := http.NewRequestWithContext(t.Context(), http.MethodGet, u, nil)
		require.NoError(t, err)
		if host != "" {
			req.Host = host
		}
		resp, err := http.DefaultClient.Do(req)
		require.NoError(t, err)
		t.Cleanup(func() { resp.Body.Close() })
		return resp
	}
	resp := get("")
	require.Equal(t, http.StatusOK, resp.StatusCode)
	csp := resp.Header.Get("Content-Security-Policy")
	assert.Contains(t, csp, "default-src 'none'")
	assert.Contains(t, csp, "script-src 'nonce-")
	assert.Contains(t, csp, "https://checkout.example.in")
	assert.Contains(t, csp, "frame-ancestors 'none'")
	assert.NotContains(t, csp, "unsafe-inline")
	again := get("").Header.Get("Content-Security-Policy")
	assert.NotEqual(t, csp, again, "a fresh nonce for every page")

	_, port, err := net.SplitHostPort(strings.TrimPrefix(p.Base(), "http://"))
	require.NoError(t, err)
	for _, host := range []string{"attacker.example:" + port, "evil.test"} {
		assert.Equal(t, http.StatusMisdirectedRequest, get(host).StatusCode, host)
	}
	for _, host := range []string{"localhost:" + port, "127.0.0.1:" + port} {
		assert.Equal(t, http.StatusOK, get(host).StatusCode, host)
	}
}

// TestAuthPageFromMemory publishes a live authentication page: it is served on
// loopback from memory with a framing ban, to this computer only, and the pay
// page still asks for its checkout script.
func TestAuthPageFromMemory(t *testing.T) {
	l := NewLazy(func() Options { return Options{} }) // live, no checkout script configured
	t.Cleanup(func() { _ = l.Close() })
	content := `<form action="https://acs.bank.example/3ds" method="post"><input name="t" value="x"></form>`
	addr, err := l.Publish("GALLA-4", content)
	require.NoError(t, err)
	u, err := url.Parse(addr)
	require.NoError(t, err)
	assert.Equal(t, "127.0.0.1", u.Hostname())
	code, page := phoneGet(t, addr)
	assert.Equal(t, http.StatusOK, code)
	assert.Equal(t, content, page)
	code, _ = phoneGet(t, strings.Replace(addr, "GALLA-4", "GALLA-5", 1))
	assert.Equal(t, http.StatusNotFound, code)
	assert.ErrorIs(t, l.Start(), ErrNoScriptURL, "pay on phone still needs the checkout script")
}
