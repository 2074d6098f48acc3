package web

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"galla/pos"
	"galla/store"
	"galla/store/api"
)

// pagesLastDay is the newest day of the benchmark's stores: the day a manager
// looks at.
var pagesLastDay = time.Date(2026, 11, 24, 0, 0, 0, 0, pos.IST)

// counterYear makes one counter's events over days days ending on
// pagesLastDay, perDay sales a day, as the counter's journal sends them: every
// third sale a phone with its own IMEI sold by card to its own customer's
// mobile, the others accessories in cash or by card.
type counterYear struct {
	k       int // the counter's number
	id      string
	seq     uint64
	prev    string
	receipt uint64
	sales   int
	last4   string // the card of the last card sale
	events  []api.Event
}

func (c *counterYear) add(tb testing.TB, at time.Time, ev pos.Event) {
	c.seq++
	ev.V, ev.Seq, ev.Time, ev.PrevHash, ev.Day = pos.EventVersion, c.seq, at, c.prev, at.In(pos.IST).Format(pos.DayLayout)
	h := sha256.Sum256(fmt.Appendf(nil, "%s|%s|%d", c.id, c.prev, c.seq))
	ev.Hash = hex.EncodeToString(h[:])
	body, err := json.Marshal(ev)
	require.NoError(tb, err)
	c.events = append(c.events, api.Event{Seq: ev.Seq, Hash: ev.Hash, PrevHash: ev.PrevHash, Kind: string(ev.Kind), Day: ev.Day, Body: body})
	c.prev = ev.Hash
}

// sale journals the counter's next sale at at and returns its order id, the
// IMEI it sold ("" for accessories) and the customer's mobile.
func (c *counterYear) sale(tb testing.TB, at time.Time) (id, imei, mobile string) {
	c.sales++
	n := c.sales
	id = fmt.Sprintf("%s-%s-%04d", c.id, at.In(pos.IST).Format("20060102"), n)
	lines := []pos.Line{{SKU: "CASE-A55", Name: "Case", HSN: "3926", Qty: 1, UnitPrice: pos.Rupees(499), GSTRate: pos.Percent(18)}}
	tender := pos.TenderCash
	if n%3 == 0 {
		body := fmt.Sprintf("35693%02d%07d", c.k, n)
		d, ok := pos.LuhnCheckDigit(body)
		require.True(tb, ok)
		imei = body + string(d)
		mobile = fmt.Sprintf("9%02d%07d", c.k, n)
		lines = append(lines, pos.Line{SKU: "PH-A55", Name: "Samsung A55", HSN: "8517", Qty: 1, UnitPrice: pos.Rupees(38999), GSTRate: pos.Percent(18), Serialised: true, IMEIs: []string{imei}})
		tender = pos.TenderCard
	} else if n%3 == 1 {
		tender = pos.TenderCard
	}
	totals := pos.ComputeTotals(lines)
	in := &pos.Intent{Tender: tender, Lines: lines, Totals: totals, Amount: totals.Total}
	if mobile != "" {
		in.Customer = &pos.Customer{Mobile: mobile}
	}
	c.add(tb, at, pos.Event{Kind: pos.EvOrderIntent, OrderID: id, Staff: "asha", Intent: in})
	c.receipt++
	if tender == pos.TenderCash {
		c.add(tb, at, pos.Event{Kind: pos.EvCashReceived, OrderID: id, ReceiptNo: c.receipt, Cash: &pos.CashEvent{Tendered: totals.Total}})
		return id, imei, mobile
	}
	c.add(tb, at, pos.Event{Kind: pos.EvOrderCreated, OrderID: id, Created: &pos.Created{ServiceOrderID: "S-" + id}})
	c.last4 = fmt.Sprintf("%04d", (n*7919)%10000)
	c.add(tb, at, pos.Event{Kind: pos.EvPaymentAttempt, OrderID: id, Attempt: &pos.AttemptEvent{N: 1, CardBrand: "VISA", CardLast4: c.last4}})
	c.add(tb, at, pos.Event{Kind: pos.EvPaymentOutcome, OrderID: id, ReceiptNo: c.receipt, Outcome: &pos.Outcome{MerchantOrderID: id,
		ServiceOrderID: "S-" + id, PaymentID: "P-" + id, OrderStatus: "CHARGED", PaymentStatus: "CAPTURED", Amount: totals.Total, Captured: totals.Total}})
	return id, imei, mobile
}

// yearStore is a migrated store of counters counters that sold perDay sales a
// day for days days up to pagesLastDay, ingested and projected as the store
// does it, with what a manager would search for on the last day: counter T1's
// last sale (its order id, IMEI, customer's mobile and invoice number).
type yearStore struct {
	db                                  *store.DB
	key                                 store.Keeper // kept outside the database
	order, imei, mobile, doc, cardLast4 string
}

func newYearStore(b testing.TB, days, counters, perDay int) *yearStore {
	return newYearStoreAt(b, cluster.Database(b), days, counters, perDay)
}

// newYearStoreAt is newYearStore in the empty database at dsn.
func newYearStoreAt(b testing.TB, dsn string, days, counters, perDay int) *yearStore {
	ctx := b.Context()
	key := storeKey(b)
	db, err := store.Open(ctx, dsn, key)
	require.NoError(b, err)
	b.Cleanup(db.Close)
	_, err = db.Migrate(ctx)
	require.NoError(b, err)
	_, _, err = db.Keys.InitCertificate(ctx, []string{"store.example", "127.0.0.1"})
	require.NoError(b, err)
	db.Now = func() time.Time { return pagesLastDay.Add(18 * time.Hour) }
	ys := &yearStore{db: db, key: key}
	cs := make([]*counterYear, counters)
	for k := range cs {
		cs[k] = &counterYear{k: k + 1, id: fmt.Sprintf("T%d", k+1), prev: strings.Repeat("0", 64)}
		code, _, err := db.Access.EnrolCode(ctx, cs[k].id)
		require.NoError(b, err)
		_, err = db.Access.Enrol(ctx, code, newPublicKey(b))
		require.NoError(b, err)
	}
	// Day by day, every counter syncs and the store projects, as a store in
	// use lays its rows down: a day's rows lie together, not each counter's
	// year.
	for d := days - 1; d >= 0; d-- {
		open := pagesLastDay.AddDate(0, 0, -d).Add(10 * time.Hour)
		for _, c := range cs {
			for s := 0; s < perDay; s++ {
				id, imei, mobile := c.sale(b, open.Add(time.Duration(s)*time.Minute))
				if c.k == 1 && d == 0 && imei != "" {
					ys.order, ys.imei, ys.mobile, ys.doc, ys.cardLast4 = id, imei, mobile, fmt.Sprintf("T1/%06d", c.receipt), c.last4
				}
			}
			_, err = db.Events.Ingest(ctx, c.id, c.events)
			require.NoError(b, err)
			c.events = c.events[:0]
		}
		require.NoError(b, db.Projections.Project(ctx))
	}
	require.NotEmpty(b, ys.imei, "the last day sold no phone at T1")
	_, err = db.Pool().Exec(ctx, "VACUUM ANALYZE") // history is vacuumed by autovacuum long since
	require.NoError(b, err)
	_, err = AddManager(ctx, db, "Meera", "246810")
	require.NoError(b, err)
	_, err = db.Master.PublishShop(ctx, pos.Shop{Name: "Galla Mobiles", Address: []string{"Pune"}, GSTIN: "27AAPFU0939F1ZV", State: "27"}, "meera")
	require.NoError(b, err)
	return ys
}

// BenchmarkManagerPages serves each manager page of the last day from a store
// of one day and from one of 365 days, both of 50 counters, in the same run:
// the day's page, its Z, the searches by invoice number, IMEI, card and phone,
// and an order's page read what they show by index, so a year of history
// costs what a day costs (each page's median within 1.2× from 100 rounds on;
// run it with -benchtime 100x). The month's exports are not among them: a
// month of a year-old store holds thirty days.
func BenchmarkManagerPages(b *testing.B) {
	const counters, perDay = 50, 6
	day := pagesLastDay.Format(pos.DayLayout)
	stores := []*yearStore{newYearStore(b, 1, counters, perDay), newYearStore(b, 365, counters, perDay)}
	type site struct {
		c    *http.Client
		base string
		ys   *yearStore
	}
	var sites []site
	for _, ys := range stores {
		p := New(ys.db, nil)
		p.Now = ys.db.Now
		srv := httptest.NewTLSServer(p)
		b.Cleanup(srv.Close)
		c := client(b)
		r, err := c.PostForm(srv.URL+"/manager/signin", map[string][]string{"name": {"Meera"}, "pin": {"246810"}})
		require.NoError(b, err)
		r.Body.Close()
		require.Equal(b, http.StatusSeeOther, r.StatusCode)
		sites = append(sites, site{c, srv.URL, ys})
	}
	pages := []struct {
		name string
		path func(*yearStore) string
		want func(*yearStore) string // in the page, proving it found what it was asked
	}{
		{"today", func(*yearStore) string { return "/manager/?day=" + day }, func(*yearStore) string { return "The store on " + day }},
		{"z", func(*yearStore) string { return "/manager/z?day=" + day }, func(*yearStore) string { return day }},
		{"search-document", func(ys *yearStore) string { return "/manager/search?q=" + ys.doc }, func(ys *yearStore) string { return ys.order }},
		{"search-imei", func(ys *yearStore) string { return "/manager/search?q=" + ys.imei }, func(ys *yearStore) string { return ys.order }},
		{"search-phone", func(ys *yearStore) string { return "/manager/search?q=" + ys.mobile }, func(ys *yearStore) string { return ys.order }},
		{"search-order", func(ys *yearStore) string { return "/manager/search?q=" + ys.order }, func(ys *yearStore) string { return ys.order }},
		{"order", func(ys *yearStore) string { return "/manager/order/T1/" + ys.order }, func(ys *yearStore) string { return ys.imei }},
	}
	get := func(s site, path, want string) time.Duration {
		start := time.Now()
		r, err := s.c.Get(s.base + path)
		if err != nil {
			b.Fatal(err)
		}
		body, err := io.ReadAll(r.Body)
		r.Body.Close()
		took := time.Since(start)
		if err != nil || r.StatusCode != http.StatusOK || !strings.Contains(string(body), want) {
			b.Fatalf("%s: status %d, %q not in the page (%v)", path, r.StatusCode, want, err)
		}
		return took
	}
	for _, pg := range pages { // warm both, and check every page finds its sale
		for _, s := range sites {
			get(s, pg.path(s.ys), pg.want(s.ys))
		}
	}
	times := make([][2][]time.Duration, len(pages))
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		for k, pg := range pages {
			// Alternate which store goes first: a shared machine slows
			// single calls of either, not the median.
			for j := range 2 {
				s := sites[(i+j)%2]
				times[k][(i+j)%2] = append(times[k][(i+j)%2], get(s, pg.path(s.ys), pg.want(s.ys)))
			}
		}
	}
	b.StopTimer()
	for k, pg := range pages {
		small, big := times[k][0], times[k][1]
		slices.Sort(small)
		slices.Sort(big)
		mSmall, mBig := small[len(small)/2], big[len(big)/2]
		ratio := float64(mBig) / float64(mSmall)
		b.ReportMetric(ratio, "ratio-"+pg.name)
		if b.N >= 100 && ratio > 1.2 {
			b.Errorf("the %s page over 365 days × %d counters takes %.2f× its time over 1 day (medians %v and %v): it must stay flat (at most 1.2×)",
				pg.name, counters, ratio, mBig, mSmall)
		}
	}
}
