package sandbox

import (
	"crypto/rand"
	"crypto/subtle"
	"net"
	"net/http"
	"net/url"
	"strings"
)

// The sandbox's defences against a web page in the cashier's browser (issue 12.6):
//
//   - Served over a socket (ServeHTTP), a request must name the sandbox by a
//     loopback name or address in its Host header, or by a host given with
//     WithAllowedHosts. A page that rebinds its own domain name to 127.0.0.1 sends
//     its own name and is refused. The hosted checkout's routes (/checkout/v1/...)
//     are left out: another server (the terminal's phone page) mounts them under its
//     own host, they are meant for browsers, and each call needs its order's token.
//   - The admin endpoint needs the admin token (Controls.AdminToken), sent as
//     "Authorization: Bearer <token>", and refuses a state-changing call whose
//     Origin is not an allowed host.
//   - HTML pages carry a strict Content-Security-Policy: scripts only with the
//     page's nonce, no plugins, no base element, forms only to the sandbox (and,
//     for the authentication step, to the merchant's return address).
//
// Requests through Transport never cross a socket and skip the Host check.

// WithAdminToken sets the token the admin endpoint requires instead of a random
// one made by New.
func WithAdminToken(token string) Option { return func(c *config) { c.adminToken = token } }

// WithAllowedHosts adds host names or addresses (without port) a request served
// over a socket may name in its Host header, besides loopback names and addresses:
// the host of the listen address when it is not a loopback one. An unspecified
// address ("0.0.0.0", "::" or "") allows every IP address, which a page rebinding
// a domain name cannot send.
func WithAllowedHosts(hosts ...string) Option {
	return func(c *config) { c.allowedHosts = append(c.allowedHosts, hosts...) }
}

// newAdminToken is a random token of 128 bits.
func newAdminToken() string { return rand.Text() }

// guard is the sandbox's defence of its socket and its admin endpoint: the admin
// token and the hosts a request may name besides loopback ones.
type guard struct {
	token string
	hosts map[string]bool // allowed Host names and addresses besides loopback ones
	anyIP bool            // every IP address is an allowed Host
}

// newGuard builds the guard of the admin token and the hosts WithAllowedHosts gave.
func newGuard(token string, hosts []string) *guard {
	g := &guard{token: token, hosts: map[string]bool{}}
	for _, h := range hosts {
		h = normalHost(h)
		if ip := net.ParseIP(h); h == "" || ip != nil && ip.IsUnspecified() {
			g.anyIP = true
			continue
		}
		g.hosts[h] = true
	}
	return g
}

// normalHost is the host of a Host header or address: port, IPv6 brackets and a
// trailing dot removed, lower case.
func normalHost(hostport string) string {
	h := hostport
	if host, _, err := net.SplitHostPort(hostport); err == nil {
		h = host
	}
	h = strings.TrimSuffix(strings.TrimPrefix(h, "["), "]")
	return strings.TrimSuffix(strings.ToLower(h), ".")
}

// hostAllowed reports whether a Host header names the sandbox.
func (g *guard) hostAllowed(hostport string) bool {
	h := normalHost(hostport)
	if h == "" {
		return false
	}
	if h == "localhost" || strings.HasSuffix(h, ".localhost") {
		return true
	}
	if ip := net.ParseIP(h); ip != nil {
		return ip.IsLoopback() || g.anyIP || g.hosts[ip.String()]
	}
	return g.hosts[h]
}

// checkoutRoute reports whether path is one of the hosted checkout's routes,
// which other servers mount under their own host.
func checkoutRoute(path string) bool { return strings.HasPrefix(path, "/checkout/v1/") }

// foreignHost is the answer to a request over a socket that names another host.
func foreignHost() *reply { return errCode(http.StatusForbidden, "403", "HOST_NOT_ALLOWED") }

// adminAllowed checks the admin token and, for a state-changing call, the
// Origin; it returns the refusal or nil.
func (g *guard) adminAllowed(r *request) *reply {
	tok, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
	if !ok || subtle.ConstantTimeCompare([]byte(strings.TrimSpace(tok)), []byte(g.token)) != 1 {
		rep := errCode(http.StatusUnauthorized, "401", "ADMIN_TOKEN_REQUIRED")
		rep.header.Set("WWW-Authenticate", `Bearer realm="galla sandbox admin"`)
		return rep
	}
	if r.Method == http.MethodGet || r.Method == http.MethodHead {
		return nil
	}
	if o := r.Header.Get("Origin"); o != "" {
		u, err := url.Parse(o)
		if err != nil || o == "null" || u.Host == "" || !g.hostAllowed(u.Host) {
			return errCode(http.StatusForbidden, "403", "ORIGIN_NOT_ALLOWED")
		}
	}
	return nil
}

// withCSP sets the Content-Security-Policy of an HTML page whose inline scripts
// and styles carry nonce; formTo lists the addresses (origins) its forms may post
// to besides the sandbox itself.
func withCSP(rep *reply, nonce string, formTo ...string) *reply {
	src := "'nonce-" + nonce + "'"
	form := "'self'"
	for _, f := range formTo {
		form += " " + f
	}
	rep.header.Set("Content-Security-Policy", "default-src 'none'; script-src "+src+"; style-src "+src+
		"; style-src-attr 'unsafe-inline'; img-src 'self' data:; connect-src 'self'; form-action "+form+
		"; base-uri 'none'; object-src 'none'")
	rep.header.Set("X-Content-Type-Options", "nosniff")
	return rep
}

// newNonce is a fresh nonce for one page.
func newNonce() string { return rand.Text() }

// originOf is the scheme://host of an absolute address, or "" when it has none.
func originOf(addr string) string {
	u, err := url.Parse(addr)
	if err != nil || u.Scheme == "" || u.Host == "" || strings.ContainsAny(u.Host, " ;'") {
		return ""
	}
	return u.Scheme + "://" + u.Host
}
