package store

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"galla/pos"
	"galla/store/api"
)

// A batch projected from memory leaves the rows that reading it back leaves,
// also when the mark is behind the batch (a batch stored and not projected
// before it): the events before the batch are read from events.
func TestProjectBatchGivesTheRowsOfARebuild(t *testing.T) {
	db := newDB(t)
	enrolled(t, db, "T1")
	ctx := t.Context()
	c := newCounter(t, "T1")
	first := daySales(c, 300)
	_, err := db.Events.Ingest(ctx, "T1", first)
	require.NoError(t, err)                            // stored, not projected
	c.refund(orderOf(first[0]), day1, pos.Rupees(499)) // an order of the first batch, stored
	second := daySales(c, 300)
	_, err = db.Events.Ingest(ctx, "T1", second)
	require.NoError(t, err)
	require.NoError(t, db.Projections.ProjectBatch(ctx, "T1", second))
	var mark int64
	require.NoError(t, db.Pool().QueryRow(ctx, "SELECT seq FROM projection_marks WHERE terminal_id = 'T1'").Scan(&mark))
	assert.Equal(t, int64(second[len(second)-1].Seq), mark)
	// A batch sent again projects nothing twice.
	require.NoError(t, db.Projections.ProjectBatch(ctx, "T1", first))

	got := dump(t, db)
	require.NotEmpty(t, got["orders"])
	require.NotEmpty(t, got["imei_units"])
	_, err = db.Projections.Rebuild(ctx)
	require.NoError(t, err)
	assert.Equal(t, got, dump(t, db))
}

// orderOf is the order id an event's body names.
func orderOf(e api.Event) string {
	var ev pos.Event
	if err := json.Unmarshal(e.Body, &ev); err != nil {
		panic(err)
	}
	return ev.OrderID
}

// A counter's catch-up into a new database, whose statistics say its tables
// are empty (autovacuum off here, as it is for a minute or more in a burst):
// the batch's orders are read through the whole key of orders_pkey, not by a
// scan of the terminal's orders, and once the catch-up has gone far enough
// the projected tables are analyzed.
func TestCatchUpOnStaleStatisticsReadsOrdersByTheirKey(t *testing.T) {
	db := newDB(t)
	enrolled(t, db, "T1")
	ctx := t.Context()
	for _, table := range append([]string{"events"}, projectedTables...) {
		_, err := db.Pool().Exec(ctx, "ALTER TABLE "+table+" SET (autovacuum_enabled = false)")
		require.NoError(t, err)
	}
	analyzed := func() bool {
		var n int
		require.NoError(t, db.Pool().QueryRow(ctx, `SELECT count(*) FROM pg_stat_user_tables
			WHERE relname = 'orders' AND last_analyze IS NOT NULL`).Scan(&n))
		return n > 0
	}
	c := newCounter(t, "T1")
	var ids []string
	for len(ids) == 0 || c.seq <= analyzeEvery {
		batch := daySales(c, 1000)
		_, err := db.Events.Ingest(ctx, "T1", batch)
		require.NoError(t, err)
		if c.seq > analyzeEvery/2 && ids == nil {
			// Half way, the statistics still stale: the plan of the next
			// batch's read of its orders.
			assert.False(t, analyzed(), "analyzed before the catch-up went far enough")
			for _, e := range batch[:50] {
				ids = append(ids, orderOf(e))
			}
			var plan []string
			rs, err := db.Pool().Query(ctx, "EXPLAIN "+preloadOrders, "T1", ids)
			require.NoError(t, err)
			for rs.Next() {
				var l string
				require.NoError(t, rs.Scan(&l))
				plan = append(plan, l)
			}
			require.NoError(t, rs.Err())
			text := strings.Join(plan, "\n")
			assert.Contains(t, text, "orders_pkey", text)
			assert.Regexp(t, `Index Cond: \(\(terminal_id = 'T1'::text\) AND \(order_id = k\.id\)\)`, text)
			assert.NotContains(t, text, "Seq Scan on orders", text)
		}
		require.NoError(t, db.Projections.ProjectBatch(ctx, "T1", batch))
	}
	assert.True(t, analyzed(), "the projected tables analyzed after %d events", c.seq)
}

// The lookups of the manager's pages that must not grow with the history:
// the IMEIs held by more than one order are kept in imei_repeats, and a
// document's number without its counter's name is found by index.
func TestHistoryLookupsByIndex(t *testing.T) {
	db := newDB(t)
	enrolled(t, db, "T1")
	ctx := t.Context()
	c := newCounter(t, "T1")
	c.cashSale("T1-A", day1, line("PHONE", 1, 9999, 18, "356938035643809"))
	c.cashSale("T1-B", day1, line("PHONE", 1, 9999, 18, "356938035643809"))
	c.cashSale("T1-C", day1, line("PHONE", 1, 9999, 18, "490154203237518"))
	batch := c.sent()
	_, err := db.Events.Ingest(ctx, "T1", batch)
	require.NoError(t, err)
	require.NoError(t, db.Projections.ProjectBatch(ctx, "T1", batch))
	repeats := func() []string {
		rs, err := db.Pool().Query(ctx, "SELECT imei FROM imei_repeats ORDER BY imei")
		require.NoError(t, err)
		var out []string
		for rs.Next() {
			var s string
			require.NoError(t, rs.Scan(&s))
			out = append(out, s)
		}
		require.NoError(t, rs.Err())
		return out
	}
	assert.Equal(t, []string{"356938035643809"}, repeats())
	_, err = db.Projections.Rebuild(ctx)
	require.NoError(t, err)
	assert.Equal(t, []string{"356938035643809"}, repeats(), "after a rebuild")

	tx, err := db.Pool().Begin(ctx)
	require.NoError(t, err)
	defer func() { _ = tx.Rollback(ctx) }()
	_, err = tx.Exec(ctx, "SET LOCAL enable_seqscan = off")
	require.NoError(t, err)
	var plan string
	require.NoError(t, tx.QueryRow(ctx, "EXPLAIN (FORMAT JSON) SELECT order_id FROM documents d WHERE substr(d.number, length(d.terminal_id) + 2) = $1", "2627/000123").Scan(&plan))
	assert.Contains(t, plan, "documents_number_in_series")
}
