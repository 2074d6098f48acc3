package web

import (
	"context"
	"net/http"
	"net/http/httptest"
	"net/url"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"galla/pos"
	"galla/store"
)

// tableReads reads how many rows each table of the database at dsn has
// given to scans (read whole, or fetched by an index), once no connection but
// this one is open: a backend gives its counts to the statistics when it
// ends.
func tableReads(t *testing.T, dsn string) map[string]int64 {
	t.Helper()
	ctx := t.Context()
	conn, err := pgx.Connect(ctx, dsn)
	require.NoError(t, err)
	defer conn.Close(context.Background())
	require.Eventually(t, func() bool {
		var others int
		err := conn.QueryRow(ctx, `SELECT count(*) FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()`).Scan(&others)
		require.NoError(t, err)
		return others == 0
	}, 30*time.Second, 20*time.Millisecond, "the store's connections did not end")
	_, err = conn.Exec(ctx, "SELECT pg_stat_clear_snapshot()")
	require.NoError(t, err)
	rs, err := conn.Query(ctx, "SELECT relname, coalesce(seq_tup_read, 0) + coalesce(idx_tup_fetch, 0) FROM pg_stat_user_tables")
	require.NoError(t, err)
	out := map[string]int64{}
	for rs.Next() {
		var name string
		var n int64
		require.NoError(t, rs.Scan(&name, &n))
		out[name] = n
	}
	require.NoError(t, rs.Err())
	return out
}

// TestManagerPagesReadHistoryByIndex: the manager's pages of a day (the day,
// its Z, an order, the searches by invoice number, IMEI, card, phone and order
// id) read as many rows of the tables that grow with the store's history over
// 30 days of 4 counters (720 sales) as over the same last day alone: they
// read by index, never the history. Sequential scans are priced out of every
// plan (enable_seqscan off), so that a query with no index to take still
// scans and is counted; an index read whole (a condition no index serves,
// filtered row by row) is counted as well. BenchmarkManagerPages measures the
// same pages' time over a year of 50 counters.
func TestManagerPagesReadHistoryByIndex(t *testing.T) {
	const counters, perDay = 4, 6
	day, month := pagesReads(t, 1, counters, perDay), pagesReads(t, 30, counters, perDay)
	for _, table := range []string{"orders", "order_lines", "order_rates", "payments", "documents", "imei_units", "imei_repeats",
		"events", "credit_notes", "shifts", "overrides", "over_refunds", "alarms"} {
		assert.LessOrEqual(t, month[table], day[table]+day[table]/10+2,
			"%s: the pages read %d rows of it over 30 days, %d over one", table, month[table], day[table])
	}
}

// pagesReads serves the manager's pages of the last day of a store of days
// days and returns how many rows of each table they read.
func pagesReads(t *testing.T, days, counters, perDay int) map[string]int64 {
	dsn := cluster.Database(t)
	ys := newYearStoreAt(t, dsn, days, counters, perDay)
	now := ys.db.Now()
	ys.db.Close()
	before := tableReads(t, dsn)

	u, err := url.Parse(dsn)
	require.NoError(t, err)
	q := u.Query()
	q.Set("enable_seqscan", "off")
	u.RawQuery = q.Encode()
	pages, err := store.Open(t.Context(), u.String(), ys.key)
	require.NoError(t, err)
	require.NoError(t, pages.CheckSchema(t.Context())) // opens the store key, as serve does
	pages.Now = func() time.Time { return now }
	p := New(pages, nil)
	p.Now = pages.Now
	srv := httptest.NewTLSServer(p)
	c := client(t)
	r := signin(t, c, srv.URL, "Meera", "246810")
	r.Body.Close()
	require.Equal(t, http.StatusSeeOther, r.StatusCode)
	day := pagesLastDay.Format(pos.DayLayout)
	for path, want := range map[string]string{
		"/manager/?day=" + day:              "The store on " + day,
		"/manager/z?day=" + day:             day,
		"/manager/order/T1/" + ys.order:     ys.imei,
		"/manager/search?q=" + ys.doc:       ys.order,
		"/manager/search?q=" + ys.imei:      ys.order,
		"/manager/search?q=" + ys.mobile:    ys.order,
		"/manager/search?q=" + ys.order:     ys.order,
		"/manager/search?q=" + ys.cardLast4: ys.order,
	} {
		r, err := c.Get(srv.URL + path)
		require.NoError(t, err)
		assert.Equal(t, http.StatusOK, r.StatusCode, path)
		assert.Contains(t, body(t, r), want, path)
	}
	srv.Close()
	pages.Close()
	after := tableReads(t, dsn)
	for table, n := range after {
		after[table] = n - before[table]
	}
	return after
}
