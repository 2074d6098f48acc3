package store

import (
	"context"
	"errors"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"galla/store/api"
)

// sales journals n sales on c (cash and card, a phone now and then) and
// returns their events.
func sales(c *counter, prefix string, n int) []api.Event {
	for k := range n {
		id := prefix + "-" + string(rune('A'+k%26)) + strings.Repeat("x", k/26)
		if k%2 == 0 {
			c.cashSale(id, day1, line("CHG", 1, 1180, 18))
		} else {
			c.cardSale(id, day1, "4242", "9876543210", true, line("CASE", 1, 499, 18))
		}
	}
	return c.sent()
}

// projected is what the projections hold of terminal: its mark, its orders
// and its payments.
func projected(t *testing.T, db *DB, terminal string) (mark, orders, payments int64) {
	t.Helper()
	ctx := t.Context()
	err := db.Pool().QueryRow(ctx, "SELECT coalesce((SELECT seq FROM projection_marks WHERE terminal_id = $1), 0)", terminal).Scan(&mark)
	require.NoError(t, err)
	require.NoError(t, db.Pool().QueryRow(ctx, "SELECT count(*) FROM orders WHERE terminal_id = $1", terminal).Scan(&orders))
	require.NoError(t, db.Pool().QueryRow(ctx, "SELECT count(*) FROM payments WHERE terminal_id = $1", terminal).Scan(&payments))
	return mark, orders, payments
}

// The projection goes alongside the ingest: while the ingest waits for the
// terminal's row (held here by another transaction), the projection has
// already written the batch's orders, uncommitted; they are seen once the
// ingest commits, not before.
func TestIngestAndProjectGoesAlongside(t *testing.T) {
	db := newDB(t)
	enrolled(t, db, "T1")
	ctx := t.Context()
	evs := sales(newCounter(t, "T1"), "T1", 6)

	hold, err := db.Pool().Begin(ctx)
	require.NoError(t, err)
	defer func() { _ = hold.Rollback(context.Background()) }()
	_, err = hold.Exec(ctx, "SELECT 1 FROM terminals WHERE id = 'T1' FOR UPDATE")
	require.NoError(t, err)

	type result struct {
		resp       api.BatchResponse
		perr, err  error
		finishedAt time.Time
	}
	done := make(chan result, 1)
	go func() {
		resp, perr, err := db.Events.IngestAndProject(ctx, "T1", evs)
		done <- result{resp, perr, err, time.Now()}
	}()

	// The projection's transaction writes orders while the ingest waits.
	var wrote bool
	for deadline := time.Now().Add(30 * time.Second); !wrote && time.Now().Before(deadline); {
		err := db.Pool().QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM pg_locks l JOIN pg_class c ON c.oid = l.relation
			WHERE c.relname = 'orders' AND l.mode = 'RowExclusiveLock' AND l.granted AND l.pid <> pg_backend_pid())`).Scan(&wrote)
		require.NoError(t, err)
		if !wrote {
			time.Sleep(10 * time.Millisecond)
		}
	}
	require.True(t, wrote, "the projection did not write the batch's orders while the ingest waited")
	select {
	case r := <-done:
		t.Fatalf("IngestAndProject returned while the terminal's row was held: %+v", r)
	default:
	}
	mark, orders, _ := projected(t, db, "T1")
	require.Zero(t, orders, "orders seen before the ingest committed")
	require.Zero(t, mark)

	released := time.Now()
	require.NoError(t, hold.Rollback(ctx))
	r := <-done
	require.NoError(t, r.err)
	require.NoError(t, r.perr)
	require.Equal(t, len(evs), r.resp.Stored)
	require.False(t, r.finishedAt.Before(released))
	mark, orders, payments := projected(t, db, "T1")
	require.Equal(t, int64(evs[len(evs)-1].Seq), mark)
	require.Equal(t, int64(6), orders)
	require.Equal(t, int64(6), payments)
}

// A batch the ingest refuses after the projection has gone alongside it (a
// body that differs from its envelope, found after the COPY; a journal that
// no longer continues the store's chain) leaves the projections as they were.
func TestIngestAndProjectRefusedBatchProjectsNothing(t *testing.T) {
	for _, tc := range []struct {
		name  string
		code  string
		batch func(c *counter) []api.Event // the next batch, spoilt
	}{
		{"a body's day differs from its envelope's", api.CodeMalformed, func(c *counter) []api.Event {
			evs := sales(c, "T1-B", 4)
			evs[len(evs)-1].Day = "2026-11-25"
			return evs
		}},
		{"the journal forked", api.CodeFork, func(c *counter) []api.Event {
			c.prev = strings.Repeat("ab", 32) // the next events continue another chain
			return sales(c, "T1-B", 4)
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			db := newDB(t)
			enrolled(t, db, "T1")
			c := newCounter(t, "T1")
			first := sales(c, "T1-A", 3)
			_, perr, err := db.Events.IngestAndProject(t.Context(), "T1", first)
			require.NoError(t, err)
			require.NoError(t, perr)
			mark0, orders0, payments0 := projected(t, db, "T1")
			require.Equal(t, int64(first[len(first)-1].Seq), mark0)

			evs := tc.batch(c)
			_, perr, err = db.Events.IngestAndProject(t.Context(), "T1", evs)
			var ae *api.Error
			require.True(t, errors.As(err, &ae), "the batch was not refused: %v", err)
			require.Equal(t, tc.code, ae.Code)
			require.NoError(t, perr)
			mark, orders, payments := projected(t, db, "T1")
			require.Equal(t, []int64{mark0, orders0, payments0}, []int64{mark, orders, payments}, "the refused batch changed the projections")
		})
	}
}

// A batch whose projection cannot go alongside (the projections are behind
// its first event: a batch stored before was not projected) is projected
// after the ingest, the events before it read back from the store.
func TestIngestAndProjectBehindTheMark(t *testing.T) {
	db := newDB(t)
	enrolled(t, db, "T1")
	c := newCounter(t, "T1")
	resp, err := db.Events.Ingest(t.Context(), "T1", sales(c, "T1-A", 3))
	require.NoError(t, err)
	require.Positive(t, resp.Stored)
	mark, orders, _ := projected(t, db, "T1")
	require.Zero(t, mark)
	require.Zero(t, orders)

	evs := sales(c, "T1-B", 3)
	resp, perr, err := db.Events.IngestAndProject(t.Context(), "T1", evs)
	require.NoError(t, err)
	require.NoError(t, perr)
	require.Equal(t, len(evs), resp.Stored)
	mark, orders, payments := projected(t, db, "T1")
	require.Equal(t, int64(evs[len(evs)-1].Seq), mark)
	require.Equal(t, int64(6), orders)
	require.Equal(t, int64(6), payments)
}

// The same batches sent twice at once (a counter's resend while the first
// is still being answered) through a pool of two connections: every call
// returns, each event is stored and projected once.
func TestIngestAndProjectTwiceAtOnceOnTwoConnections(t *testing.T) {
	db := newDBOfConns(t, 2)
	enrolled(t, db, "T1")
	c := newCounter(t, "T1")
	ctx, cancel := context.WithTimeout(t.Context(), 2*time.Minute)
	defer cancel()
	var last uint64
	for round := range 8 {
		evs := sales(c, "T1-"+string(rune('A'+round)), 3)
		last = evs[len(evs)-1].Seq
		var wg sync.WaitGroup
		resps := make([]api.BatchResponse, 3)
		errs := make([]error, 6)
		for k := range 3 {
			wg.Go(func() { resps[k], errs[2*k], errs[2*k+1] = db.Events.IngestAndProject(ctx, "T1", evs) })
		}
		wg.Wait()
		require.NoError(t, errors.Join(errs...), "round %d", round)
		stored := 0
		for _, r := range resps {
			stored += r.Stored
			require.Equal(t, last, r.Held)
		}
		require.Equal(t, len(evs), stored, "round %d: stored once", round)
	}
	mark, orders, payments := projected(t, db, "T1")
	require.Equal(t, int64(last), mark)
	require.Equal(t, int64(24), orders)
	require.Equal(t, int64(24), payments)
}

// A batch refused on a pool of one connection: the ingest's connection is
// given back when its transaction ends, so the projection that went alongside
// rolls back and the refusal's alarm is recorded (it would wait for the
// connection held otherwise, until its own deadline, and be lost).
func TestIngestAndProjectRefusalOnOneConnection(t *testing.T) {
	db := newDBOfConns(t, 1)
	enrolled(t, db, "T1")
	evs := sales(newCounter(t, "T1"), "T1", 4)
	evs[len(evs)-1].Day = "2026-11-25" // the body says 2026-11-24: refused after the COPY
	_, perr, err := db.Events.IngestAndProject(t.Context(), "T1", evs)
	var ae *api.Error
	require.True(t, errors.As(err, &ae), "the batch was not refused: %v", err)
	require.Equal(t, api.CodeMalformed, ae.Code)
	require.NoError(t, perr)
	var alarms int
	require.NoError(t, db.Pool().QueryRow(t.Context(), "SELECT count(*) FROM alarms WHERE terminal_id = 'T1' AND kind = $1", AlarmMalformed).Scan(&alarms))
	require.Equal(t, 1, alarms, "the refusal's alarm")
	mark, orders, _ := projected(t, db, "T1")
	require.Zero(t, mark)
	require.Zero(t, orders)
}

// newDBOfConns is newDB with a pool of n connections at most.
func newDBOfConns(t *testing.T, n int) *DB {
	t.Helper()
	db, err := Open(t.Context(), cluster.Database(t)+"&pool_max_conns="+strconv.Itoa(n), testKey(t))
	require.NoError(t, err)
	t.Cleanup(db.Close)
	_, err = db.Migrate(t.Context())
	require.NoError(t, err)
	return db
}
