package main

import (
	_ "embed"
	"fmt"
	"html/template"
	"net"
	"net/http"
	"net/url"
	"strconv"
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

// defaultPhoneListen is where the phone page listens unless config.json says
// otherwise: this computer only, on a free port.
const defaultPhoneListen = "127.0.0.1:0"

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

// errNoScriptURL says that the live service's checkout script is not configured.
var errNoScriptURL = sentenceError("Pay on phone needs the live service's checkout script address: set checkout_script_url in the gateway section of config.json.")

// errNoLANAddress says that the page should be on the LAN but the computer has no
// address there.
var errNoLANAddress = sentenceError("The phone page is set to listen on the shop's network, but this computer has no network address there; connect it to the shop's Wi-Fi, or set the phone page address in Settings.")

// phonePageConfig is config.json's "phone_page": where the page for the customer's
// phone listens.
type phonePageConfig struct {
	// Listen is host:port: 127.0.0.1:0 (the default) keeps the page on this
	// computer; 0.0.0.0:7071, or one of the computer's addresses, puts it on the
	// shop's network so that a phone on the shop's Wi-Fi can open it.
	Listen string `json:"listen,omitempty"`
}

// checkPhoneListen checks a phone page address as the manager typed it; empty
// means the default.
func checkPhoneListen(addr string) error {
	if addr == "" {
		return nil
	}
	_, port, err := net.SplitHostPort(addr)
	if err == nil {
		_, err = strconv.ParseUint(port, 10, 16)
	}
	if err != nil {
		return sentenceError("The phone page address is host:port, like 127.0.0.1:0 (this computer only) or 0.0.0.0:7071 (the shop's Wi-Fi).")
	}
	return nil
}

// phoneOrder is an order open for payment on the phone.
type phoneOrder struct {
	Token  string    // the order token from create order, as the service sent it
	Amount pos.Paise // the amount the customer pays
	Shop   string    // the shop's name on the page
}

// phonePageOptions configures startPhonePage.
type phonePageOptions struct {
	Listen     string       // host:port; empty: defaultPhoneListen
	ScriptURL  string       // the live checkout script; unused with the sandbox
	Sandbox    http.Handler // the embedded sandbox, served for its checkout; nil when live
	Interfaces func() ([]netInterface, error)
}

// phonePage is the running page server.
type phonePage struct {
	srv    *http.Server
	base   string // the address the phone opens, scheme://host:port
	script string // the checkout script's address on the page

	mu     sync.Mutex
	orders map[string]phoneOrder // by merchant order id
}

// startPhonePage listens and serves the phone page until Close.
func startPhonePage(o phonePageOptions) (*phonePage, error) {
	p := &phonePage{orders: map[string]phoneOrder{}}
	if o.Sandbox != nil {
		p.script = sandboxScriptPath
	} else {
		u, err := url.Parse(o.ScriptURL)
		if o.ScriptURL == "" || err != nil || (u.Scheme != "https" && u.Scheme != "http") || u.Host == "" {
			return nil, errNoScriptURL
		}
		p.script = u.String()
	}
	listen := o.Listen
	if listen == "" {
		listen = defaultPhoneListen
	}
	if err := checkPhoneListen(listen); err != nil {
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
			return nil, errNoLANAddress
		}
		shown = lan.String()
	}
	ln, err := net.Listen("tcp", listen)
	if err != nil {
		return nil, fmt.Errorf("the phone page cannot listen on %s (%w); choose another address in Settings", listen, err)
	}
	_, port, _ := net.SplitHostPort(ln.Addr().String())
	p.base = "http://" + net.JoinHostPort(shown, port)

	mux := http.NewServeMux()
	mux.HandleFunc("GET /pay/{id}", p.servePay)
	if o.Sandbox != nil {
		for _, route := range sandboxCheckoutRoutes() {
			mux.Handle(route, http.MaxBytesHandler(o.Sandbox, maxPhoneBody))
		}
	}
	p.srv = &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second, ReadTimeout: 30 * time.Second,
		WriteTimeout: 30 * time.Second, IdleTimeout: 2 * time.Minute, MaxHeaderBytes: 16 << 10}
	go func() { _ = p.srv.Serve(ln) }()
	return p, nil
}

// Close stops the page server.
func (p *phonePage) Close() error { return p.srv.Close() }

// open offers an order on the page and returns the address the phone opens.
func (p *phonePage) open(orderID string, o phoneOrder) string {
	p.mu.Lock()
	p.orders[orderID] = o
	p.mu.Unlock()
	return p.base + "/pay/" + url.PathEscape(orderID)
}

// done withdraws an order: its page is no longer served.
func (p *phonePage) done(orderID string) {
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
func (p *phonePage) servePay(w http.ResponseWriter, r *http.Request) {
	id := r.PathValue("id")
	p.mu.Lock()
	o, ok := p.orders[id]
	p.mu.Unlock()
	d := phonePageData{Shop: o.Shop, OrderID: id, Open: ok}
	if d.Shop == "" {
		d.Shop = "Payment"
	}
	status := http.StatusNotFound
	if ok {
		status = http.StatusOK
		d.Amount, d.ScriptURL = o.Amount.Plain(), p.script
		d.Checkout = phoneCheckout{OrderToken: o.Token, ChannelID: "WEB", PaymentMode: phonePaymentModes, CountryCode: "91"}
	}
	h := w.Header()
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

// netInterface is what lanIPv4 needs to know of a network interface.
type netInterface struct {
	Flags net.Flags
	Addrs []net.Addr
}

// systemInterfaces lists this computer's network interfaces.
func systemInterfaces() ([]netInterface, error) {
	list, err := net.Interfaces()
	if err != nil {
		return nil, err
	}
	out := make([]netInterface, 0, len(list))
	for _, i := range list {
		addrs, err := i.Addrs()
		if err != nil {
			continue
		}
		out = append(out, netInterface{Flags: i.Flags, Addrs: addrs})
	}
	return out, nil
}

// lanIPv4 picks the address a phone on the shop's network reaches this computer
// at: the first IPv4 address of an interface that is up and not loopback,
// preferring one that is also running (has a link), and never a loopback or
// link-local (169.254.x.x) address.
func lanIPv4(ifs []netInterface) (net.IP, bool) {
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
