// Package phonepage serves the page the customer's phone opens to pay (DESIGN.md
// section 2, "Pay on the customer's phone"): it implements pos.PhonePage.
//
// It imports pos (the port it implements) and no other package of Galla's.
package phonepage

import (
	"crypto/rand"
	_ "embed"
	"encoding/base64"
	"fmt"
	"html/template"
	"io"
	"net"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"

	"galla/pos"
)

// The page the customer's phone opens to pay (DESIGN.md section 2, "Pay on the
// customer's phone"): a small merchant page that loads the service's checkout
// script (interface "Browser checkout library") and opens the checkout with the
// order's token. The terminal serves it on loopback by default and on the shop's
// LAN when the manager configures an address; the QR code on the pay screen is
// its address.

//go:embed phonepage.html
var phonePageHTML string

var phonePageTmpl = template.Must(template.New("phone").Parse(phonePageHTML))

// DefaultListen is where the phone page listens unless config.json says
// otherwise: this computer only, on a free port.
const DefaultListen = "127.0.0.1:0"

// phonePaymentModes are the checkout's payment modes (interface 2.10) the page
// offers: everything but EMI, which the terminal sells at the counter.
const phonePaymentModes = "CREDIT_DEBIT,NETBANKING,UPI,WALLET"

// sandboxCheckoutRoutes are the embedded sandbox's paths the phone needs: the
// checkout script, the hosted page in its iframe and the calls that page makes.
// Nothing else of the sandbox (its merchant API, its admin) is served to the phone.
func sandboxCheckoutRoutes() []string {
	return []string{
		"GET /checkout/v1/checkout.js",
		"GET /checkout/v1/pay",
		"POST /checkout/v1/api/pay",
		"POST /checkout/v1/api/otp",
		"POST /checkout/v1/api/status",
	}
}

// sandboxScriptPath is the embedded sandbox's checkout script on the page's own
// listener.
const sandboxScriptPath = "/checkout/v1/checkout.js"

// maxPhoneBody bounds a request body the phone sends to the sandbox's hosted page.
const maxPhoneBody = 64 << 10

// ErrNoScriptURL says that the live service's checkout script is not configured.
var ErrNoScriptURL = pos.Errorf("%s", "Pay on phone needs the live service's checkout script address: set checkout_script_url in the gateway section of config.json.")

// ErrNoLANAddress says that the page should be on the LAN but the computer has no
// address there.
var ErrNoLANAddress = pos.Errorf("%s", "The phone page is set to listen on the shop's network, but this computer has no network address there; connect it to the shop's Wi-Fi, or set the phone page address in Settings.")

// Options configures Start.
type Options struct {
	Listen     string       // host:port; empty: DefaultListen
	ScriptURL  string       // the live checkout script; unused with the sandbox
	Sandbox    http.Handler // the embedded sandbox, served for its checkout; nil when live
	Interfaces func() ([]Interface, error)
}

// Server is the running page server.
type Server struct {
	srv    *http.Server
	base   string // the address the phone opens, scheme://host:port
	port   string
	script string // the checkout script's address on the page

	mu     sync.Mutex
	orders map[string]pos.PhoneOrder // by merchant order id
	auth   map[string]string         // the live authentication pages, by merchant order id
}

// scriptOf is the checkout script the page loads: the sandbox's on this listener,
// or the live service's configured one (ErrNoScriptURL when there is none).
func scriptOf(o Options) (string, error) {
	if o.Sandbox != nil {
		return sandboxScriptPath, nil
	}
	u, err := url.Parse(o.ScriptURL)
	if o.ScriptURL == "" || err != nil || (u.Scheme != "https" && u.Scheme != "http") || u.Host == "" {
		return "", ErrNoScriptURL
	}
	return u.String(), nil
}

// Start listens and serves the phone page until Close.
func Start(o Options) (*Server, error) {
	script, err := scriptOf(o)
	if err != nil {
		return nil, err
	}
	return start(o, script)
}

// start listens and serves; script is "" on a server started for the
// authentication pages alone (no checkout script configured).
func start(o Options, script string) (*Server, error) {
	p := &Server{orders: map[string]pos.PhoneOrder{}, auth: map[string]string{}, script: script}
	if o.Interfaces == nil {
		o.Interfaces = SystemInterfaces
	}
	listen := o.Listen
	if listen == "" {
		listen = DefaultListen
	}
	if err := pos.CheckPhoneListen(listen); err != nil {
		return nil, err
	}
	host, _, _ := net.SplitHostPort(listen)
	shown := host
	if ip := net.ParseIP(host); host == "" || (ip != nil && ip.IsUnspecified()) {
		ifs, err := o.Interfaces()
		if err != nil {
			return nil, fmt.Errorf("the network interfaces cannot be read: %w", err)
		}
		lan, ok := lanIPv4(ifs)
		if !ok {
			return nil, ErrNoLANAddress
		}
		shown = lan.String()
	}
	ln, err := net.Listen("tcp", listen)
	if err != nil {
		return nil, fmt.Errorf("the phone page cannot listen on %s (%w); choose another address in Settings", listen, err)
	}
	_, port, _ := net.SplitHostPort(ln.Addr().String())
	p.base, p.port = "http://"+net.JoinHostPort(shown, port), port

	mux := http.NewServeMux()
	mux.HandleFunc("GET /pay/{id}", p.servePay)
	mux.HandleFunc("GET /auth/{id}", p.serveAuth)
	if o.Sandbox != nil {
		for _, route := range sandboxCheckoutRoutes() {
			mux.Handle(route, http.MaxBytesHandler(o.Sandbox, maxPhoneBody))
		}
	}
	p.srv = &http.Server{Handler: checkHost(mux), ReadHeaderTimeout: 10 * time.Second, ReadTimeout: 30 * time.Second,
		WriteTimeout: 30 * time.Second, IdleTimeout: 2 * time.Minute, MaxHeaderBytes: 16 << 10}
	go func() { _ = p.srv.Serve(ln) }()
	return p, nil
}

// csp is the pay page's Content-Security-Policy: nothing but its own script and style
// (by nonce), the checkout script's origin and this listener (the sandbox's hosted
// checkout in its frame, and the calls it makes).
func csp(script, nonce string) string {
	origin := "'self'"
	if u, err := url.Parse(script); err == nil && u.Host != "" {
		origin += " " + u.Scheme + "://" + u.Host
	}
	return "default-src 'none'; script-src 'nonce-" + nonce + "' " + origin + "; style-src 'nonce-" + nonce + "' " + origin +
		"; connect-src " + origin + "; frame-src " + origin + "; img-src 'self' data:; form-action " + origin +
		"; base-uri 'none'; frame-ancestors 'none'"
}

// checkHost refuses a request whose Host is a name other than localhost: the page
// is always opened by the address in its QR code, so a name (a DNS rebinding
// attack from a web page the phone or this computer opens) is never this server.
func checkHost(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		host := r.Host
		if h, _, err := net.SplitHostPort(host); err == nil {
			host = h
		}
		host = strings.Trim(host, "[]")
		if net.ParseIP(host) == nil && !strings.EqualFold(host, "localhost") {
			http.Error(w, "This page is opened by the address in the QR code only.", http.StatusMisdirectedRequest)
			return
		}
		next.ServeHTTP(w, r)
	})
}

// serveAuth serves /auth/{merchant_order_id}: the live service's authentication
// (3-D Secure) page of an order, from memory, to this computer only (the system
// browser opens it); the page is the service's own form to the bank.
func (p *Server) serveAuth(w http.ResponseWriter, r *http.Request) {
	host, _, _ := net.SplitHostPort(r.RemoteAddr)
	if ip := net.ParseIP(host); ip == nil || !ip.IsLoopback() {
		http.Error(w, "The authentication page opens on the counter's computer only.", http.StatusForbidden)
		return
	}
	p.mu.Lock()
	content, ok := p.auth[r.PathValue("id")]
	p.mu.Unlock()
	if !ok {
		http.NotFound(w, r)
		return
	}
	h := w.Header()
	h.Set("Content-Security-Policy", "frame-ancestors 'none'; base-uri 'none'")
	h.Set("Content-Type", "text/html; charset=utf-8")
	h.Set("Cache-Control", "no-store")
	h.Set("Referrer-Policy", "no-referrer")
	h.Set("X-Content-Type-Options", "nosniff")
	_, _ = io.WriteString(w, content)
}

// Base is the address the phone opens, scheme://host:port.
func (p *Server) Base() string { return p.base }

// Close stops the page server.
func (p *Server) Close() error { return p.srv.Close() }

// Offer offers an order on the page and returns the address the phone opens.
func (p *Server) Offer(orderID string, o pos.PhoneOrder) string {
	p.mu.Lock()
	p.orders[orderID] = o
	p.mu.Unlock()
	return p.base + "/pay/" + url.PathEscape(orderID)
}

// Withdraw withdraws an order: its page is no longer served.
func (p *Server) Withdraw(orderID string) {
	p.mu.Lock()
	delete(p.orders, orderID)
	p.mu.Unlock()
}

// phonePageData is what the page template is given.
type phonePageData struct {
	Shop      string
	OrderID   string
	Amount    string // rupees, 1,499.00
	ScriptURL string
	Nonce     string // the Content-Security-Policy's nonce of this page's script and style
	Open      bool
	Checkout  phoneCheckout
}

// phoneCheckout is the options the page gives the checkout (interface 2.10).
type phoneCheckout struct {
	OrderToken  string `json:"orderToken"`
	ChannelID   string `json:"channelId"`
	PaymentMode string `json:"paymentMode"`
	CountryCode string `json:"countryCode"`
}

// servePay serves /pay/{merchant_order_id}: the merchant page of an order open on
// this terminal, or a page saying that it is not open (any other id).
func (p *Server) servePay(w http.ResponseWriter, r *http.Request) {
	id := r.PathValue("id")
	p.mu.Lock()
	o, ok := p.orders[id]
	script := p.script
	p.mu.Unlock()
	d := phonePageData{Shop: o.Shop, OrderID: id, Open: ok}
	if d.Shop == "" {
		d.Shop = "Payment"
	}
	status := http.StatusNotFound
	if ok {
		status = http.StatusOK
		d.Amount, d.ScriptURL = o.Amount.Plain(), script
		d.Checkout = phoneCheckout{OrderToken: o.Token, ChannelID: "WEB", PaymentMode: phonePaymentModes, CountryCode: "91"}
	}
	var nb [16]byte
	_, _ = rand.Read(nb[:])
	d.Nonce = base64.RawStdEncoding.EncodeToString(nb[:])
	h := w.Header()
	h.Set("Content-Security-Policy", csp(script, d.Nonce))
	h.Set("Content-Type", "text/html; charset=utf-8")
	h.Set("Cache-Control", "no-store")
	h.Set("Referrer-Policy", "no-referrer")
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("X-Frame-Options", "DENY")
	w.WriteHeader(status)
	if r.Method == http.MethodHead {
		return
	}
	_ = phonePageTmpl.Execute(w, d)
}

// Interface is what lanIPv4 needs to know of a network interface.
type Interface struct {
	Flags net.Flags
	Addrs []net.Addr
}

// SystemInterfaces lists this computer's network interfaces.
func SystemInterfaces() ([]Interface, error) {
	list, err := net.Interfaces()
	if err != nil {
		return nil, err
	}
	out := make([]Interface, 0, len(list))
	for _, i := range list {
		addrs, err := i.Addrs()
		if err != nil {
			continue
		}
		out = append(out, Interface{Flags: i.Flags, Addrs: addrs})
	}
	return out, nil
}

// lanIPv4 picks the address a phone on the shop's network reaches this computer
// at: the first IPv4 address of an interface that is up and not loopback,
// preferring one that is also running (has a link), and never a loopback or
// link-local (169.254.x.x) address.
func lanIPv4(ifs []Interface) (net.IP, bool) {
	for _, needRunning := range []bool{true, false} {
		for _, i := range ifs {
			if i.Flags&net.FlagUp == 0 || i.Flags&net.FlagLoopback != 0 || (needRunning && i.Flags&net.FlagRunning == 0) {
				continue
			}
			for _, a := range i.Addrs {
				var ip net.IP
				switch a := a.(type) {
				case *net.IPNet:
					ip = a.IP
				case *net.IPAddr:
					ip = a.IP
				}
				if ip4 := ip.To4(); ip4 != nil && !ip4.IsLoopback() && !ip4.IsLinkLocalUnicast() && !ip4.IsUnspecified() {
					return ip4, true
				}
			}
		}
	}
	return nil, false
}

// Lazy is the page server started on first use with the options of that moment
// (the phone page's address may change in Settings until then). It implements
// pos.PhonePage.
type Lazy struct {
	opts func() Options

	mu  sync.Mutex
	srv *Server
}

// NewLazy returns a page server that starts with opts() on first use.
func NewLazy(opts func() Options) *Lazy { return &Lazy{opts: opts} }

// Start starts the server unless it runs; it says why it cannot start (no
// checkout script for the live service, no LAN address, a busy port).
func (l *Lazy) Start() error {
	l.mu.Lock()
	defer l.mu.Unlock()
	o := l.opts()
	script, err := scriptOf(o)
	if err != nil {
		return err
	}
	if l.srv != nil {
		if l.srv.script == "" { // started for authentication pages alone
			l.srv.mu.Lock()
			l.srv.script = script
			l.srv.mu.Unlock()
		}
		return nil
	}
	srv, err := start(o, script)
	if err != nil {
		return err
	}
	l.srv = srv
	return nil
}

// Publish serves the live service's authentication page of an order from memory
// and returns the address the system browser opens (on loopback): nothing of it is
// written to disk. It implements pos.AuthPages.
func (l *Lazy) Publish(orderID, content string) (string, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.srv == nil {
		o := l.opts()
		script, _ := scriptOf(o) // "" when none: the page server serves no order yet
		srv, err := start(o, script)
		if err != nil {
			return "", err
		}
		l.srv = srv
	}
	l.srv.mu.Lock()
	l.srv.auth[orderID] = content
	l.srv.mu.Unlock()
	return "http://" + net.JoinHostPort("127.0.0.1", l.srv.port) + "/auth/" + url.PathEscape(orderID), nil
}

// Offer offers an order on the running page and returns the address the phone
// opens; Start must have succeeded.
func (l *Lazy) Offer(orderID string, o pos.PhoneOrder) string {
	l.mu.Lock()
	srv := l.srv
	l.mu.Unlock()
	return srv.Offer(orderID, o)
}

// Withdraw withdraws an order from the page.
func (l *Lazy) Withdraw(orderID string) {
	l.mu.Lock()
	srv := l.srv
	l.mu.Unlock()
	if srv != nil {
		srv.Withdraw(orderID)
	}
}

// Server returns the running server, nil before the first Start.
func (l *Lazy) Server() *Server {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.srv
}

// Close stops the server if it runs.
func (l *Lazy) Close() error {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.srv == nil {
		return nil
	}
	return l.srv.Close()
}
