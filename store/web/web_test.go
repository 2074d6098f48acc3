package web

import (
	"crypto/ed25519"
	"crypto/sha256"
	"crypto/tls"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/cookiejar"
	"net/http/httptest"
	"net/url"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"galla/pos"
	"galla/store"
	"galla/store/api"
	"galla/store/pgtest"
)

var cluster *pgtest.Cluster

// storeKey is a keeper of a new store key in a file of the test's own.
func storeKey(t testing.TB) store.Keeper {
	t.Helper()
	return store.KeyFile(filepath.Join(t.TempDir(), "store.key"))
}

// newPublicKey is a fresh terminal's public key, for an enrolment.
func newPublicKey(t testing.TB) ed25519.PublicKey {
	t.Helper()
	pub, _, err := ed25519.GenerateKey(nil)
	require.NoError(t, err)
	return pub
}

func TestMain(m *testing.M) {
	PINCost = pos.MinPINCost // the tests' PINs: as cheap to hash as pos accepts
	pgtest.Main(m, &cluster)
}

// journal makes a terminal's events as pos writes them.
type journal struct {
	t       testing.TB
	id      string
	seq     uint64
	prev    string
	receipt uint64
	events  []api.Event
}

func (j *journal) add(ev pos.Event) {
	j.seq++
	ev.V, ev.Seq, ev.Time, ev.PrevHash = pos.EventVersion, j.seq, time.Date(2026, 11, 24, 10, 0, int(j.seq), 0, time.UTC), j.prev
	h := sha256.Sum256(fmt.Appendf(nil, "%s|%s|%d", j.id, j.prev, j.seq))
	ev.Hash = hex.EncodeToString(h[:])
	body, err := json.Marshal(ev)
	require.NoError(j.t, err)
	j.events = append(j.events, api.Event{Seq: ev.Seq, Hash: ev.Hash, PrevHash: ev.PrevHash, Kind: string(ev.Kind), Day: ev.Day, Body: body})
	j.prev = ev.Hash
}

func (j *journal) sale(id string, tender pos.TenderKind, last4, phone string, paid bool, lines ...pos.Line) {
	totals := pos.ComputeTotals(lines)
	in := &pos.Intent{Tender: tender, Lines: lines, Totals: totals, Amount: totals.Total}
	if phone != "" {
		in.Customer = &pos.Customer{Mobile: phone}
	}
	j.add(pos.Event{Kind: pos.EvOrderIntent, OrderID: id, Day: day, Staff: "asha", Intent: in})
	if tender == pos.TenderCash {
		j.receipt++
		j.add(pos.Event{Kind: pos.EvCashReceived, OrderID: id, Day: day, ReceiptNo: j.receipt, Cash: &pos.CashEvent{Tendered: totals.Total}})
		return
	}
	j.add(pos.Event{Kind: pos.EvOrderCreated, OrderID: id, Day: day, Created: &pos.Created{ServiceOrderID: "S-" + id}})
	j.add(pos.Event{Kind: pos.EvPaymentAttempt, OrderID: id, Day: day, Attempt: &pos.AttemptEvent{N: 1, CardBrand: "VISA", CardLast4: last4}})
	if !paid {
		j.add(pos.Event{Kind: pos.EvOrderUnknown, OrderID: id, Day: day, Reason: "the answer was lost"})
		return
	}
	j.receipt++
	j.add(pos.Event{Kind: pos.EvPaymentOutcome, OrderID: id, Day: day, ReceiptNo: j.receipt, Outcome: &pos.Outcome{MerchantOrderID: id,
		ServiceOrderID: "S-" + id, PaymentID: "P-" + id, OrderStatus: "CHARGED", PaymentStatus: "CAPTURED", Amount: totals.Total, Captured: totals.Total}})
}

const day = "2026-11-24"

// storeWithSales is a migrated store where T1 sold ₹1,180 in cash and a
// ₹59,000 phone (IMEI 356938035643809) by a VISA ending 4242 to 9876543210,
// and left a ₹500 card payment unknown; T2 sold ₹11,800 by card.
func storeWithSales(t *testing.T) *store.DB {
	db, err := store.Open(t.Context(), cluster.Database(t), storeKey(t))
	require.NoError(t, err)
	t.Cleanup(db.Close)
	_, err = db.Migrate(t.Context())
	require.NoError(t, err)
	_, _, err = db.Keys.InitCertificate(t.Context(), []string{"store.example", "127.0.0.1"})
	require.NoError(t, err)
	db.Now = func() time.Time { return time.Date(2026, 11, 24, 18, 0, 0, 0, time.UTC) }
	t1 := &journal{t: t, id: "T1", prev: strings.Repeat("0", 64)}
	t1.sale("T1-A", pos.TenderCash, "", "", true, pos.Line{SKU: "CHG", Name: "Charger", HSN: "8504", Qty: 1, UnitPrice: pos.Rupees(1180), GSTRate: pos.Percent(18)})
	t1.sale("T1-B", pos.TenderCard, "4242", "9876543210", true, pos.Line{SKU: "PHN", Name: "Phone X", HSN: "8517", Qty: 1, UnitPrice: pos.Rupees(59000), GSTRate: pos.Percent(18), Serialised: true, IMEIs: []string{"356938035643809"}})
	t1.sale("T1-C", pos.TenderCard, "1111", "", false, pos.Line{SKU: "CAS", Name: "Case", HSN: "3926", Qty: 1, UnitPrice: pos.Rupees(500), GSTRate: pos.Percent(18)})
	t2 := &journal{t: t, id: "T2", prev: strings.Repeat("0", 64)}
	t2.sale("T2-A", pos.TenderCard, "5555", "", true, pos.Line{SKU: "WAT", Name: "Watch", HSN: "9102", Qty: 1, UnitPrice: pos.Rupees(11800), GSTRate: pos.Percent(18)})
	// T2's manager let an IMEI through while the store could not be asked.
	t2.add(pos.Event{Kind: pos.EvOverride, Day: day, Staff: "ravi", Extra: pos.IMEIOverride("T2-B", []string{"490154203237518"}, pos.ErrStoreOffline)})
	for _, j := range []*journal{t1, t2} {
		code, _, err := db.Access.EnrolCode(t.Context(), j.id)
		require.NoError(t, err)
		_, err = db.Access.Enrol(t.Context(), code, newPublicKey(t))
		require.NoError(t, err)
		_, err = db.Events.Ingest(t.Context(), j.id, j.events)
		require.NoError(t, err)
	}
	require.NoError(t, db.Projections.Project(t.Context()))
	_, err = AddManager(t.Context(), db, "Meera", "246810")
	require.NoError(t, err)
	publishShop(t, db)
	return db
}

// publishShop publishes the store's shop, a regular registrant: the pages state
// the GST of its counters' sales (a store whose counters journaled no shop
// takes its published one; with none, a sale states no tax).
func publishShop(t *testing.T, db *store.DB) {
	t.Helper()
	_, err := db.Master.PublishShop(t.Context(), pos.Shop{Name: "Galla Mobiles", Address: []string{"Pune"}, GSTIN: "27AAPFU0939F1ZV", State: "27"}, "meera")
	require.NoError(t, err)
}

// client is a browser-like client of the pages over TLS: cookies kept,
// redirects not followed.
func client(t testing.TB) *http.Client {
	jar, err := cookiejar.New(nil)
	require.NoError(t, err)
	return &http.Client{Jar: jar, Transport: &http.Transport{TLSClientConfig: &tls.Config{InsecureSkipVerify: true}},
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
}

func body(t *testing.T, r *http.Response) string {
	defer r.Body.Close()
	b, err := io.ReadAll(r.Body)
	require.NoError(t, err)
	return string(b)
}

func signin(t *testing.T, c *http.Client, base, name, pin string) *http.Response {
	r, err := c.PostForm(base+"/manager/signin", url.Values{"name": {name}, "pin": {pin}})
	require.NoError(t, err)
	return r
}

func TestSignInSessionsCSRFAndHeaders(t *testing.T) {
	db := storeWithSales(t)
	p := New(db, nil)
	now := db.Now()
	p.Now = func() time.Time { return now }
	srv := httptest.NewTLSServer(p)
	defer srv.Close()
	c := client(t)

	r, err := c.Get(srv.URL + "/manager/")
	require.NoError(t, err)
	body(t, r)
	assert.Equal(t, http.StatusSeeOther, r.StatusCode)
	assert.Equal(t, "/manager/signin?next=%2Fmanager%2F", r.Header.Get("Location"))
	assert.Equal(t, CSP, r.Header.Get("Content-Security-Policy"))
	assert.Equal(t, "DENY", r.Header.Get("X-Frame-Options"))

	// Wrong PINs: a sentence, then the counter's lockout, even for the right PIN.
	r = signin(t, c, srv.URL, "Meera", "135790")
	assert.Equal(t, http.StatusUnauthorized, r.StatusCode)
	assert.Contains(t, body(t, r), "The name or the PIN is wrong: type them again.")
	r = signin(t, c, srv.URL, "Nobody", "246810")
	assert.Equal(t, http.StatusUnauthorized, r.StatusCode, "an unknown name is answered alike")
	body(t, r)
	for range pos.MaxPINAttempts - 1 {
		body(t, signin(t, c, srv.URL, "Meera", "000000"))
	}
	r = signin(t, c, srv.URL, "Meera", "246810")
	assert.Equal(t, http.StatusTooManyRequests, r.StatusCode)
	assert.Contains(t, body(t, r), "Too many wrong PINs from this computer: sign-in from it stops until")
	now = now.Add(pos.LockDuration + time.Second)

	r = signin(t, c, srv.URL, "Meera", "246810")
	body(t, r)
	require.Equal(t, http.StatusSeeOther, r.StatusCode)
	assert.Equal(t, "/manager/", r.Header.Get("Location"))
	cookie := r.Cookies()[0]
	assert.Equal(t, CookieName, cookie.Name)
	assert.True(t, cookie.HttpOnly)
	assert.True(t, cookie.Secure)
	assert.Equal(t, http.SameSiteStrictMode, cookie.SameSite)
	var stored int
	require.NoError(t, db.Pool().QueryRow(t.Context(), "SELECT count(*) FROM manager_sessions WHERE token_hash = $1", tokenHash(cookie.Value)).Scan(&stored))
	assert.Equal(t, 1, stored, "the database keeps the token's hash, not the token")

	r, err = c.Get(srv.URL + "/manager/")
	require.NoError(t, err)
	page := body(t, r)
	require.Equal(t, http.StatusOK, r.StatusCode)
	assert.NotContains(t, page, "<script")
	assert.Contains(t, page, "₹71,980.00", "the store's gross: ₹1,180 + ₹59,000 + ₹11,800")
	assert.Contains(t, page, "<td>18%</td>", "the GST table's rate, with one percent sign")

	// A POST without the session's CSRF token is refused and changes nothing.
	r, err = c.PostForm(srv.URL+"/manager/z", url.Values{"day": {day}})
	require.NoError(t, err)
	assert.Equal(t, http.StatusForbidden, r.StatusCode)
	assert.Contains(t, body(t, r), "does not carry this session&#39;s token")
	// From another site: refused before the token is looked at.
	req, _ := http.NewRequest("POST", srv.URL+"/manager/z", strings.NewReader("day="+day))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("Origin", "https://evil.example")
	r, err = c.Do(req)
	require.NoError(t, err)
	assert.Equal(t, http.StatusForbidden, r.StatusCode)
	assert.Contains(t, body(t, r), "The form came from another site")
	// Another Host (DNS rebinding): refused.
	req, _ = http.NewRequest("GET", srv.URL+"/manager/", nil)
	req.Host = "evil.example"
	r, err = c.Do(req)
	require.NoError(t, err)
	assert.Equal(t, http.StatusMisdirectedRequest, r.StatusCode)
	body(t, r)
	req, _ = http.NewRequest("GET", srv.URL+"/manager/", nil)
	req.Host = "store.example:8443"
	req.AddCookie(cookie) // the jar keeps cookies by the URL's host, not this Host
	r, err = c.Do(req)
	require.NoError(t, err)
	assert.Equal(t, http.StatusOK, r.StatusCode, "the certificate's name is the server's: %s", r.Header.Get("Location"))
	body(t, r)

	// Bad input gets a sentence.
	r, err = c.Get(srv.URL + "/manager/?day=24-11-2026")
	require.NoError(t, err)
	assert.Equal(t, http.StatusBadRequest, r.StatusCode)
	assert.Contains(t, body(t, r), "is not a day: write it YYYY-MM-DD")
	r, err = c.Get(srv.URL + "/manager/order/T9/nothing")
	require.NoError(t, err)
	assert.Equal(t, http.StatusNotFound, r.StatusCode)
	assert.Contains(t, body(t, r), "The store holds no order nothing of counter T9")

	// The CSV of the day: amounts in rupees, one row per order.
	r, err = c.Get(srv.URL + "/manager/export.csv?day=" + day)
	require.NoError(t, err)
	csv := body(t, r)
	assert.Equal(t, "text/csv; charset=utf-8", r.Header.Get("Content-Type"))
	assert.Equal(t, "counter,order,day,state,tender,document,amount,captured,refunded,gst,card,staff\n"+
		"T1,T1-A,2026-11-24,PAID,cash,T1/000001,1180.00,1180.00,0.00,180.00,,asha\n"+
		"T1,T1-B,2026-11-24,PAID,card,T1/000002,59000.00,59000.00,0.00,9000.00,VISA 4242,asha\n"+
		"T1,T1-C,2026-11-24,UNKNOWN,card,,500.00,0.00,0.00,76.28,VISA 1111,asha\n"+
		"T2,T2-A,2026-11-24,PAID,card,T2/000001,11800.00,11800.00,0.00,1800.00,VISA 5555,asha\n", csv)

	// Signing out ends the session in the database.
	r, err = c.Get(srv.URL + "/manager/search")
	require.NoError(t, err)
	csrf := between(body(t, r), `name="csrf" value="`, `"`)
	r, err = c.PostForm(srv.URL+"/manager/signout", url.Values{"csrf": {csrf}})
	require.NoError(t, err)
	body(t, r)
	assert.Equal(t, http.StatusSeeOther, r.StatusCode)
	require.NoError(t, db.Pool().QueryRow(t.Context(), "SELECT count(*) FROM manager_sessions").Scan(&stored))
	assert.Equal(t, 0, stored)
}

func between(s, from, to string) string {
	_, after, ok := strings.Cut(s, from)
	if !ok {
		return ""
	}
	v, _, _ := strings.Cut(after, to)
	return v
}

func TestSearchFindsByDocumentIMEICardAndPhone(t *testing.T) {
	db := storeWithSales(t)
	for q, want := range map[string][]string{
		"T1/000002":       {"T1-B"},
		"t2/000001":       {"T2-A"},
		"356938035643809": {"T1-B"},
		"4242":            {"T1-B"},
		"1111":            {"T1-C"},
		"+91 98765 43210": {"T1-B"},
		"9876543210":      {"T1-B"},
		"T1-A":            {"T1-A"},
		"T1/999999":       nil,
	} {
		_, got, err := search(t.Context(), db, q)
		require.NoError(t, err)
		var ids []string
		for _, o := range got {
			ids = append(ids, o.OrderID)
		}
		assert.Equal(t, want, ids, q)
	}
}

func TestAddManagerRefusesBadNamesAndPINs(t *testing.T) {
	db := storeWithSales(t)
	_, err := AddManager(t.Context(), db, "Meera", "12345")
	assert.ErrorIs(t, err, ErrBadPIN)
	assert.ErrorIs(t, err, pos.ErrShortManagerPIN)
	_, err = AddManager(t.Context(), db, "Meera", "12a456")
	assert.ErrorIs(t, err, ErrBadPIN)
	assert.ErrorIs(t, err, pos.ErrBadPIN)
	_, err = AddManager(t.Context(), db, "<script>", "123456")
	assert.ErrorIs(t, err, ErrBadName)
	created, err := AddManager(t.Context(), db, "Meera", "97531086")
	require.NoError(t, err)
	assert.False(t, created, "Meera existed: her PIN is set again")
	_, _, err = signIn(t.Context(), db, testSource, "Meera", "246810", time.Now())
	assert.ErrorIs(t, err, ErrSignIn, "the old PIN no longer works")
	_, s, err := signIn(t.Context(), db, testSource, "Meera", "97531086", time.Now())
	require.NoError(t, err)
	assert.Equal(t, "Meera", s.Manager)
}

func TestTheServerMountsThePages(t *testing.T) {
	db := storeWithSales(t)
	srv := httptest.NewTLSServer(store.NewServer(db, nil, store.WithManagerPages(New(db, nil))))
	defer srv.Close()
	r, err := client(t).Get(srv.URL + "/manager/signin")
	require.NoError(t, err)
	assert.Equal(t, http.StatusOK, r.StatusCode)
	assert.Equal(t, CSP, r.Header.Get("Content-Security-Policy"))
	assert.Contains(t, body(t, r), `<form method="post" action="/manager/signin"`)

	// A server not handed the pages serves the terminals only.
	bare := httptest.NewTLSServer(store.NewServer(db, nil))
	defer bare.Close()
	r, err = client(t).Get(bare.URL + "/manager/signin")
	require.NoError(t, err)
	body(t, r)
	assert.Equal(t, http.StatusNotFound, r.StatusCode)
}

func TestSignInRedirectsStayOnThePagesAndSessionsExpire(t *testing.T) {
	for next, want := range map[string]string{
		"/manager/search?q=4242": "/manager/search?q=4242",
		"//evil.example/x":       "/manager/",
		"https://evil.example/":  "/manager/",
		"/manager/\\evil":        "/manager/",
		"":                       "/manager/",
	} {
		assert.Equal(t, want, safeNext(next), next)
	}
	assert.Equal(t, "'=HYPERLINK(1)", csvSafe("=HYPERLINK(1)"), "a cell is never a formula")
	assert.Equal(t, "T1-A", csvSafe("T1-A"))
	assert.Equal(t, "-12.50", rupees(-1250))

	db := storeWithSales(t)
	p := New(db, nil)
	now := time.Now()
	p.Now = func() time.Time { return now }
	srv := httptest.NewTLSServer(p)
	defer srv.Close()
	c := client(t)
	r := signin(t, c, srv.URL, "Meera", "246810")
	body(t, r)
	require.Equal(t, http.StatusSeeOther, r.StatusCode)
	r, err := c.Get(srv.URL + "/manager/search")
	require.NoError(t, err)
	body(t, r)
	assert.Equal(t, http.StatusOK, r.StatusCode)
	now = now.Add(SessionFor + time.Minute)
	r, err = c.Get(srv.URL + "/manager/search")
	require.NoError(t, err)
	body(t, r)
	assert.Equal(t, http.StatusSeeOther, r.StatusCode, "an expired session signs in again")
	r, err = c.PostForm(srv.URL+"/manager/z", url.Values{"day": {day}, "csrf": {"x"}})
	require.NoError(t, err)
	assert.Equal(t, http.StatusUnauthorized, r.StatusCode)
	assert.Contains(t, body(t, r), "Your session has ended: sign in again, then send the form again.")

	body(t, signin(t, c, srv.URL, "Meera", "246810"))
	r, err = c.Get(srv.URL + "/manager/search?q=" + strings.Repeat("9", 80))
	require.NoError(t, err)
	assert.Equal(t, http.StatusBadRequest, r.StatusCode)
	assert.Contains(t, body(t, r), "type at most 64 characters")
	r, err = c.Get(srv.URL + "/manager/search?q=4111+1111+1111+1111")
	require.NoError(t, err)
	assert.Equal(t, http.StatusBadRequest, r.StatusCode)
	page := body(t, r)
	assert.Contains(t, page, "That looks like a card number")
	assert.NotContains(t, page, "4111 1111 1111 1111", "a card number is never shown back")
	r, err = c.Get(srv.URL + "/manager/search?q=T1%2F999999")
	require.NoError(t, err)
	assert.Contains(t, body(t, r), "No sale found for document")
}

func TestClosingTheStoreDayOnThePage(t *testing.T) {
	db, err := store.Open(t.Context(), cluster.Database(t), storeKey(t))
	require.NoError(t, err)
	t.Cleanup(db.Close)
	_, err = db.Migrate(t.Context())
	require.NoError(t, err)
	j := &journal{t: t, id: "T1", prev: strings.Repeat("0", 64)}
	j.sale("T1-A", pos.TenderCash, "", "", true, pos.Line{SKU: "CHG", Name: "Charger", HSN: "8504", Qty: 1, UnitPrice: pos.Rupees(1180), GSTRate: pos.Percent(18)})
	rep, err := json.Marshal(pos.Report{Kind: "Z", ZNo: 1, Day: day, GrossSales: pos.Rupees(1180), NetSales: pos.Rupees(1180), CashExpected: pos.Rupees(1180),
		GST: []pos.RateTotal{{Rate: pos.Percent(18), Amount: pos.Rupees(1180), Taxable: pos.Rupees(1000), Tax: pos.Rupees(180), CGST: pos.Rupees(90), SGST: pos.Rupees(90)}}})
	require.NoError(t, err)
	j.add(pos.Event{Kind: pos.EvDayClosed, Day: day, Staff: "meera", DayClose: &pos.DayClose{Day: day, ZNo: 1, Report: rep}})
	code, _, err := db.Access.EnrolCode(t.Context(), "T1")
	require.NoError(t, err)
	_, err = db.Access.Enrol(t.Context(), code, newPublicKey(t))
	require.NoError(t, err)
	_, err = db.Events.Ingest(t.Context(), "T1", j.events)
	require.NoError(t, err)
	_, err = AddManager(t.Context(), db, "Meera", "246810")
	require.NoError(t, err)

	srv := httptest.NewTLSServer(New(db, nil))
	defer srv.Close()
	c := client(t)
	body(t, signin(t, c, srv.URL, "Meera", "246810"))
	r, err := c.Get(srv.URL + "/manager/z?day=" + day)
	require.NoError(t, err)
	page := body(t, r)
	assert.Contains(t, page, "₹1,180.00", "T1's Z report received is listed")
	csrf := between(page, `name="csrf" value="`, `"`)
	require.NotEmpty(t, csrf)
	r, err = c.PostForm(srv.URL+"/manager/z", url.Values{"day": {day}, "csrf": {csrf}})
	require.NoError(t, err)
	page = body(t, r)
	require.Equal(t, http.StatusOK, r.StatusCode, page)
	assert.Contains(t, page, "The store&#39;s day 2026-11-24 is closed.")
	assert.Contains(t, page, "Closed by Meera")
	z, err := db.Reports.StoreZReport(t.Context(), day)
	require.NoError(t, err)
	assert.Equal(t, pos.Rupees(1180), z.GrossSales)
	assert.Equal(t, pos.Rupees(180), z.Tax)
	assert.Equal(t, "Meera", z.ClosedBy)
}
