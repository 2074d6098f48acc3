package web

import (
	"context"
	"crypto/subtle"
	"embed"
	"encoding/csv"
	"errors"
	"fmt"
	"html/template"
	"io/fs"
	"log/slog"
	"net"
	"net/http"
	"net/url"
	"strings"
	"time"

	"galla/pos"
	"galla/store"
)

//go:embed templates/*.html static/*
var files embed.FS

// CSP is the pages' Content-Security-Policy: nothing but the pages' own style
// sheet and images, forms posting to the pages only, never framed.
const CSP = "default-src 'none'; style-src 'self'; img-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'"

// CookieName is the session cookie.
const CookieName = "galla_manager"

// Pages serves /manager/, and sends the store's address alone (/) there.
type Pages struct {
	db  *store.DB
	log *slog.Logger
	tpl *template.Template
	mux *http.ServeMux
	Now func() time.Time
	// Hosts are the host names the pages answer to besides IP addresses and
	// localhost (a request for another Host is refused: DNS rebinding). Empty:
	// the server certificate's names.
	Hosts []string
}

// New returns the pages over db.
func New(db *store.DB, log *slog.Logger) *Pages {
	if log == nil {
		log = slog.Default()
	}
	p := &Pages{db: db, log: log, mux: http.NewServeMux(), Now: time.Now}
	p.tpl = template.Must(template.New("").Funcs(template.FuncMap{
		"money": func(v pos.Paise) string { return v.String() },
		"when": func(t *time.Time) string {
			if t == nil {
				return ""
			}
			return t.Local().Format("2 Jan 15:04")
		},
		"q": url.QueryEscape,
		// delta is a change of an amount, signed: +₹1,180.00, -₹50.00.
		"delta": func(v pos.Paise) string {
			if v > 0 {
				return "+" + v.String()
			}
			return v.String()
		},
		"event": eventText,
	}).ParseFS(files, "templates/*.html"))
	// The store's address alone opens the pages.
	p.mux.Handle("GET /{$}", http.RedirectHandler("/manager/", http.StatusSeeOther))
	static, _ := fs.Sub(files, "static")
	p.mux.Handle("GET /manager/static/", http.StripPrefix("/manager/static/", http.FileServerFS(static)))
	p.mux.HandleFunc("GET /manager/signin", p.signinPage)
	p.mux.HandleFunc("POST /manager/signin", p.signin)
	p.mux.HandleFunc("POST /manager/signout", p.auth(p.signout))
	p.mux.HandleFunc("GET /manager/{$}", p.auth(p.today))
	p.mux.HandleFunc("GET /manager/search", p.auth(p.search))
	p.mux.HandleFunc("GET /manager/order/{terminal}/{order}", p.auth(p.order))
	p.mux.HandleFunc("GET /manager/staff", p.auth(p.staffPage))
	p.mux.HandleFunc("GET /manager/stock", p.auth(p.stockPage)) // stock.go
	p.mux.HandleFunc("GET /manager/z", p.auth(p.zPage))
	p.mux.HandleFunc("POST /manager/z", p.auth(p.zClose))
	p.mux.HandleFunc("GET /manager/export.csv", p.auth(p.export))
	p.mux.HandleFunc("GET /manager/gstr1.json", p.auth(p.gstr1))
	p.mux.HandleFunc("GET /manager/lines.csv", p.auth(p.monthCSV))
	return p
}

// ServeHTTP checks the Host, sets the security headers and serves.
func (p *Pages) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	h := w.Header()
	h.Set("Content-Security-Policy", CSP)
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("X-Frame-Options", "DENY")
	h.Set("Referrer-Policy", "no-referrer")
	h.Set("Cache-Control", "no-store")
	if !p.hostAllowed(r.Context(), r.Host) {
		http.Error(w, "This address is not the store server's: open the manager's pages by the server's IP address or name.", http.StatusMisdirectedRequest)
		return
	}
	if r.Method == http.MethodPost && !sameOrigin(r) {
		http.Error(w, "The form came from another site and was refused: open the manager's pages and send it again from there.", http.StatusForbidden)
		return
	}
	if !p.boundForm(w, r) {
		return
	}
	p.mux.ServeHTTP(w, r)
}

// MaxForm is the most bytes of a form the pages take: the sign-in's name, PIN
// and return address, a day to close, a CSRF token. Nothing larger is read.
const MaxForm = 8 << 10

// boundForm reads a request's form before anything is done with it, MaxForm
// bytes at most: a body said to be larger is refused unread (413), and one
// that turns out larger when read is refused at MaxForm. It reports whether
// the request goes on.
func (p *Pages) boundForm(w http.ResponseWriter, r *http.Request) bool {
	if r.ContentLength > MaxForm {
		http.Error(w, "The form is larger than the manager's pages take: nothing was done.", http.StatusRequestEntityTooLarge)
		return false
	}
	r.Body = http.MaxBytesReader(w, r.Body, MaxForm)
	if err := r.ParseForm(); err != nil {
		var big *http.MaxBytesError
		if errors.As(err, &big) {
			http.Error(w, "The form is larger than the manager's pages take: nothing was done.", http.StatusRequestEntityTooLarge)
			return false
		}
		http.Error(w, "The form cannot be read: open the page again and send it from there.", http.StatusBadRequest)
		return false
	}
	return true
}

func (p *Pages) hostAllowed(ctx context.Context, hostport string) bool {
	host := hostport
	if h, _, err := net.SplitHostPort(hostport); err == nil {
		host = h
	}
	host = strings.Trim(host, "[]")
	if net.ParseIP(host) != nil || host == "localhost" {
		return true
	}
	names := p.Hosts
	if len(names) == 0 {
		if cert, _, err := p.db.Keys.TLSCertificate(ctx); err == nil && cert.Leaf != nil {
			names = cert.Leaf.DNSNames
		}
	}
	for _, n := range names {
		if strings.EqualFold(n, host) {
			return true
		}
	}
	return false
}

// sameOrigin refuses a POST whose Origin (or, without one, Referer) names
// another host.
func sameOrigin(r *http.Request) bool {
	o := r.Header.Get("Origin")
	if o == "" || o == "null" {
		o = r.Header.Get("Referer")
	}
	if o == "" {
		return true // an old browser or a tool: the CSRF token decides
	}
	u, err := url.Parse(o)
	return err == nil && strings.EqualFold(u.Host, r.Host)
}

// view is what every page's template gets.
type view struct {
	Title   string
	Manager string
	CSRF    string
	Error   string
	Notice  string
	Data    any
	// Key says, on every page of a signed-in manager, where the store key is
	// kept and that it is backed up with the database.
	Key string
}

func (p *Pages) render(w http.ResponseWriter, status int, name string, v view) {
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.WriteHeader(status)
	if v.Manager != "" {
		v.Key = "The store key, which seals the buyers' details in the database and holds the staff's PIN peppers, is kept in " +
			p.db.KeyWhere() + ": back it up with the database's backups; a copy of the database is unreadable without it."
	}
	if err := p.tpl.ExecuteTemplate(w, name, v); err != nil {
		p.log.Error("manager pages: render", "page", name, "err", err)
	}
}

// fail answers a failure of the database with a sentence; the details go to
// the log only.
func (p *Pages) fail(w http.ResponseWriter, s session, err error) {
	p.log.Error("manager pages", "err", err)
	msg := "The store's database failed on this page; nothing was changed. Look at the server's log."
	if errors.Is(err, store.ErrUnavailable) {
		msg = "The store's database cannot be reached; nothing was changed. Try the page again in a minute."
	}
	p.render(w, http.StatusServiceUnavailable, "error", view{Title: "Error", Manager: s.Manager, CSRF: s.CSRF, Error: msg})
}

type authed func(w http.ResponseWriter, r *http.Request, s session)

// auth serves h to a signed-in manager, and checks a POST's CSRF token;
// others go to the sign-in page.
func (p *Pages) auth(h authed) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		c, _ := r.Cookie(CookieName)
		var token string
		if c != nil {
			token = c.Value
		}
		s, ok, err := lookup(r.Context(), p.db, token, p.Now())
		if err != nil {
			p.fail(w, session{}, err)
			return
		}
		if !ok {
			if r.Method == http.MethodGet {
				http.Redirect(w, r, "/manager/signin?next="+url.QueryEscape(r.URL.RequestURI()), http.StatusSeeOther)
				return
			}
			p.render(w, http.StatusUnauthorized, "signin", view{Title: "Sign in", Error: "Your session has ended: sign in again, then send the form again."})
			return
		}
		if r.Method == http.MethodPost {
			if subtle.ConstantTimeCompare([]byte(r.PostFormValue("csrf")), []byte(s.CSRF)) != 1 {
				p.render(w, http.StatusForbidden, "error", view{Title: "Refused", Manager: s.Manager, CSRF: s.CSRF,
					Error: "The form was refused: it does not carry this session's token (an old page, or a form from another site). Open the page again and send it from there."})
				return
			}
		}
		// The pages show what the events say: catch the projections up.
		if err := p.db.Projections.Project(r.Context()); err != nil {
			p.fail(w, s, err)
			return
		}
		h(w, r, s)
	}
}

func (p *Pages) setCookie(w http.ResponseWriter, value string, maxAge int) {
	http.SetCookie(w, &http.Cookie{Name: CookieName, Value: value, Path: "/manager/", MaxAge: maxAge,
		HttpOnly: true, Secure: true, SameSite: http.SameSiteStrictMode})
}

func (p *Pages) signinPage(w http.ResponseWriter, r *http.Request) {
	p.render(w, http.StatusOK, "signin", view{Title: "Sign in", Data: safeNext(r.URL.Query().Get("next"))})
}

// safeNext keeps a redirect after sign-in on the pages.
func safeNext(next string) string {
	if !strings.HasPrefix(next, "/manager/") || strings.HasPrefix(next, "//") || strings.Contains(next, "\\") {
		return "/manager/"
	}
	return next
}

func (p *Pages) signin(w http.ResponseWriter, r *http.Request) {
	name, pin, next := r.PostFormValue("name"), r.PostFormValue("pin"), safeNext(r.PostFormValue("next"))
	token, _, err := signIn(r.Context(), p.db, SourceOf(r), name, pin, p.Now())
	var locked *SourceLockedError
	switch {
	case errors.As(err, &locked):
		p.render(w, http.StatusTooManyRequests, "signin", view{Title: "Sign in", Error: "Too many wrong PINs from this computer: sign-in from it stops until " + locked.Until.Local().Format("15:04") + ". Other computers are not stopped, and the store's alarms list it.", Data: next})
	case errors.Is(err, ErrBadPIN):
		p.render(w, http.StatusUnauthorized, "signin", view{Title: "Sign in", Error: pos.Sentence(err), Data: next})
	case errors.Is(err, ErrSignIn):
		p.render(w, http.StatusUnauthorized, "signin", view{Title: "Sign in", Error: fmt.Sprintf("The name or the PIN is wrong: type them again. After %d wrong PINs in a row from this computer, sign-in from it stops for %d minutes.",
			pos.MaxPINAttempts, int(pos.LockDuration/time.Minute)), Data: next})
	case err != nil:
		p.fail(w, session{}, err)
	default:
		p.setCookie(w, token, int(SessionFor/time.Second))
		http.Redirect(w, r, next, http.StatusSeeOther)
	}
}

func (p *Pages) signout(w http.ResponseWriter, r *http.Request, s session) {
	c, _ := r.Cookie(CookieName)
	if c != nil {
		if err := signOut(r.Context(), p.db, c.Value); err != nil {
			p.fail(w, s, err)
			return
		}
	}
	p.setCookie(w, "", -1)
	http.Redirect(w, r, "/manager/signin", http.StatusSeeOther)
}

// day reads ?day=, today when absent. ok false: the sentence is written.
func (p *Pages) day(w http.ResponseWriter, r *http.Request, s session, page string) (string, time.Time, bool) {
	day := strings.TrimSpace(r.URL.Query().Get("day"))
	if day == "" {
		day = p.Now().Format(pos.DayLayout)
	}
	d, err := time.Parse(pos.DayLayout, day)
	if err != nil {
		p.render(w, http.StatusBadRequest, "error", view{Title: "Bad day", Manager: s.Manager, CSRF: s.CSRF,
			Error: fmt.Sprintf("%q is not a day: write it YYYY-MM-DD, for example %s.", day, p.Now().Format(pos.DayLayout))})
		return "", time.Time{}, false
	}
	return day, d, true
}

type todayData struct {
	Day       string
	Report    *store.DayReport
	Counters  []Counter
	Unknown   []OrderRow
	Open      []OpenSale
	Overrides []Override
	Doubles   []DoubleSale
	Z         *store.StoreZ
	Late      *Late
	Returns   []ReturnRow
	Shifts    []ShiftRow
	// Alarms are the open alarms, newest first, at most maxAlarmsShown.
	Alarms []store.Alarm
}

// maxAlarmsShown bounds the open alarms the day's page lists.
const maxAlarmsShown = 50

func (p *Pages) today(w http.ResponseWriter, r *http.Request, s session) {
	day, date, ok := p.day(w, r, s, "today")
	if !ok {
		return
	}
	ctx := r.Context()
	d := todayData{Day: day}
	var err error
	if d.Report, err = p.db.Reports.DayReport(ctx, day); err != nil {
		p.fail(w, s, err)
		return
	}
	if d.Counters, err = counters(ctx, p.db, p.Now()); err != nil {
		p.fail(w, s, err)
		return
	}
	if d.Unknown, err = unknownPayments(ctx, p.db); err != nil {
		p.fail(w, s, err)
		return
	}
	if d.Open, err = openSales(ctx, p.db); err != nil {
		p.fail(w, s, err)
		return
	}
	if d.Overrides, d.Doubles, err = overrides(ctx, p.db, date); err != nil {
		p.fail(w, s, err)
		return
	}
	if d.Z, err = p.db.Reports.StoreZReport(ctx, day); err != nil {
		p.fail(w, s, err)
		return
	}
	if d.Late, err = late(ctx, p.db, day, d.Z, d.Report); err != nil {
		p.fail(w, s, err)
		return
	}
	if d.Returns, err = returnsOfDay(ctx, p.db, date); err != nil {
		p.fail(w, s, err)
		return
	}
	if d.Shifts, err = shiftsOfDay(ctx, p.db, date); err != nil {
		p.fail(w, s, err)
		return
	}
	if d.Alarms, err = p.db.Access.Alarms(ctx, true); err != nil {
		p.fail(w, s, err)
		return
	}
	d.Alarms = d.Alarms[:min(len(d.Alarms), maxAlarmsShown)]
	p.render(w, http.StatusOK, "today", view{Title: "The store on " + day, Manager: s.Manager, CSRF: s.CSRF, Data: d})
}

type searchData struct {
	Q      string
	Kind   string
	Orders []OrderRow
}

func (p *Pages) search(w http.ResponseWriter, r *http.Request, s session) {
	q := strings.TrimSpace(r.URL.Query().Get("q"))
	d := searchData{Q: q}
	v := view{Title: "Search", Manager: s.Manager, CSRF: s.CSRF}
	switch {
	case q == "":
	case len(q) > 64:
		v.Error = "The search is longer than any document number, IMEI, card or phone: type at most 64 characters."
		d.Q = ""
	case cardLike(q):
		v.Error = "That looks like a card number: the store never holds card numbers. Search by the card's last 4 digits."
		d.Q = ""
	default:
		var err error
		if d.Kind, d.Orders, err = search(r.Context(), p.db, q); err != nil {
			p.fail(w, s, err)
			return
		}
		if len(d.Orders) == 0 {
			v.Notice = fmt.Sprintf("No sale found for %s %q. A document number is written like T1/000123; an IMEI has 15 digits, a card its last 4, a phone 10.", d.Kind, q)
		}
	}
	v.Data = d
	status := http.StatusOK
	if v.Error != "" {
		status = http.StatusBadRequest
	}
	p.render(w, status, "search", v)
}

func (p *Pages) order(w http.ResponseWriter, r *http.Request, s session) {
	d, err := detail(r.Context(), p.db, r.PathValue("terminal"), r.PathValue("order"))
	if err != nil {
		p.fail(w, s, err)
		return
	}
	if d == nil {
		p.render(w, http.StatusNotFound, "error", view{Title: "Not found", Manager: s.Manager, CSRF: s.CSRF,
			Error: fmt.Sprintf("The store holds no order %s of counter %s: search by document number, IMEI, card or phone instead.", r.PathValue("order"), r.PathValue("terminal"))})
		return
	}
	p.render(w, http.StatusOK, "order", view{Title: "Order " + d.Order.OrderID, Manager: s.Manager, CSRF: s.CSRF, Data: d})
}

type zData struct {
	Day      string
	Z        *store.StoreZ
	Late     *Late
	Report   *store.DayReport
	Counters []store.CounterZ // the counters' Z reports received
}

func (p *Pages) zPage(w http.ResponseWriter, r *http.Request, s session) {
	day, _, ok := p.day(w, r, s, "z")
	if !ok {
		return
	}
	p.showZ(w, r, s, day, http.StatusOK, "", "")
}

func (p *Pages) showZ(w http.ResponseWriter, r *http.Request, s session, day string, status int, errMsg, notice string) {
	z, err := p.db.Reports.StoreZReport(r.Context(), day)
	if err != nil {
		p.fail(w, s, err)
		return
	}
	rep, err := p.db.Reports.DayReport(r.Context(), day)
	if err != nil {
		p.fail(w, s, err)
		return
	}
	zs, err := p.db.Reports.CounterZs(r.Context(), day)
	if err != nil {
		p.fail(w, s, err)
		return
	}
	lt, err := late(r.Context(), p.db, day, z, rep)
	if err != nil {
		p.fail(w, s, err)
		return
	}
	p.render(w, status, "z", view{Title: "Store Z of " + day, Manager: s.Manager, CSRF: s.CSRF, Error: errMsg, Notice: notice,
		Data: zData{Day: day, Z: z, Late: lt, Report: rep, Counters: zs}})
}

func (p *Pages) zClose(w http.ResponseWriter, r *http.Request, s session) {
	day := strings.TrimSpace(r.PostFormValue("day"))
	if _, err := time.Parse(pos.DayLayout, day); err != nil {
		p.render(w, http.StatusBadRequest, "error", view{Title: "Bad day", Manager: s.Manager, CSRF: s.CSRF,
			Error: fmt.Sprintf("%q is not a day: write it YYYY-MM-DD.", day)})
		return
	}
	_, err := p.db.Reports.CloseStoreDay(r.Context(), day, s.Manager)
	if errors.Is(err, store.ErrStoreZRefused) {
		p.showZ(w, r, s, day, http.StatusConflict, "The store's day was not closed: "+err.Error()+".", "")
		return
	}
	if err != nil {
		p.fail(w, s, err)
		return
	}
	p.showZ(w, r, s, day, http.StatusOK, "", "The store's day "+day+" is closed.")
}

// export writes the day's orders as CSV (amounts in rupees, two decimals).
func (p *Pages) export(w http.ResponseWriter, r *http.Request, s session) {
	day, d, ok := p.day(w, r, s, "export")
	if !ok {
		return
	}
	rows, err := dayOrders(r.Context(), p.db, d)
	if err != nil {
		p.fail(w, s, err)
		return
	}
	w.Header().Set("Content-Type", "text/csv; charset=utf-8")
	w.Header().Set("Content-Disposition", `attachment; filename="store-`+day+`.csv"`)
	cw := csv.NewWriter(w)
	_ = cw.Write([]string{"counter", "order", "day", "state", "tender", "document", "amount", "captured", "refunded", "gst", "card", "staff"})
	for _, o := range rows {
		_ = cw.Write([]string{o.Terminal, csvSafe(o.OrderID), o.Day, o.State, o.Tender, o.Document, rupees(o.Amount), rupees(o.Captured),
			rupees(o.Refunded), rupees(o.Tax), o.Card, csvSafe(o.Staff)})
	}
	cw.Flush()
}

// cardLike reports a run of 12 to 19 digits (spaces and dashes aside) that is
// not an IMEI's 15: what a card number looks like.
func cardLike(q string) bool {
	n := 0
	for _, r := range q {
		switch {
		case r >= '0' && r <= '9':
			n++
		case r == ' ' || r == '-':
		default:
			return false
		}
	}
	return n >= 12 && n <= 19 && n != 15
}

// rupees is an amount for a spreadsheet: 1234.50.
func rupees(v pos.Paise) string {
	sign := ""
	if v < 0 {
		sign, v = "-", -v
	}
	return fmt.Sprintf("%s%d.%02d", sign, v/100, v%100)
}

// csvSafe keeps a cell from being read as a formula by a spreadsheet.
func csvSafe(s string) string {
	if s != "" && strings.ContainsRune("=+-@\t\r", rune(s[0])) {
		return "'" + s
	}
	return s
}
