package store

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"galla/pos"
)

// A run of several hundred events is projected in parts (parts of 250 here,
// subChunk in a catch-up), each
// part's rows written with one statement a table while the next part is
// applied; an order whose events fall in different parts, and rows of one key
// written twice in a part, must leave the rows that projecting the events one
// by one leaves.
func TestALongBatchProjectsAsItsEventsOneByOne(t *testing.T) {
	whole, single := newDB(t), newDB(t)
	enrolled(t, whole, "T1")
	enrolled(t, single, "T1")
	c := newCounter(t, "T1")
	// The phone sold first is refunded in part at the end of the batch, more
	// than a part later.
	c.cardSale("T1-LONG", day1, "4242", "9876543210", true,
		line("SAMSUNG-A55", 1, 38999, 18, "490154203237518"), line("CASE-A55", 1, 499, 18))
	evs := daySales(c, 600)
	c.refund("T1-LONG", day1, pos.Rupees(499))
	evs = append(evs, c.sent()...)
	const part = 250
	require.Greater(t, len(evs), 2*part)

	_, err := whole.Events.Ingest(t.Context(), "T1", evs)
	require.NoError(t, err)
	// In one go, not event by event after a refusal (projectSafely).
	tx, err := whole.Pool().Begin(t.Context())
	require.NoError(t, err)
	defer func() { _ = tx.Rollback(t.Context()) }()
	rows, err := readEvents(t.Context(), tx, whole.core.vault(), "T1", 0, len(evs))
	require.NoError(t, err)
	require.NoError(t, projectRows(t.Context(), tx, whole.core.vault(), "T1", rows, part))
	require.NoError(t, tx.Commit(t.Context()), "the connection is free after the projection")
	for _, e := range evs {
		_, err := single.Events.Ingest(t.Context(), "T1", evs[e.Seq-1:e.Seq])
		require.NoError(t, err)
		require.NoError(t, single.Projections.ProjectTerminal(t.Context(), "T1"))
	}
	got := dump(t, whole)
	assert.Equal(t, dump(t, single), got)

	// The long order, by hand: 389.99 + 4.99 sold, 4.99 refunded.
	var state string
	var amount, refunded int64
	require.NoError(t, whole.Pool().QueryRow(t.Context(), "SELECT state, amount, refunded FROM orders WHERE order_id = 'T1-LONG'").Scan(&state, &amount, &refunded))
	assert.Equal(t, "PARTLY_REFUNDED", state)
	assert.Equal(t, int64(38999_00+499_00), amount)
	assert.Equal(t, int64(499_00), refunded)
	var pays, lines, units, notes int
	var paid int64
	require.NoError(t, whole.Pool().QueryRow(t.Context(), `SELECT
		(SELECT count(*) FROM payments WHERE order_id = 'T1-LONG'),
		(SELECT coalesce(sum(amount), 0) FROM payments WHERE order_id = 'T1-LONG' AND kind = 'payment.outcome'),
		(SELECT count(*) FROM order_lines WHERE order_id = 'T1-LONG'),
		(SELECT count(*) FROM imei_units WHERE order_id = 'T1-LONG' AND imei = '490154203237518' AND sku = 'SAMSUNG-A55'),
		(SELECT count(*) FROM credit_notes WHERE order_id = 'T1-LONG' AND value = 49900)`).Scan(&pays, &paid, &lines, &units, &notes))
	assert.Equal(t, 2, pays, "the sale's payment and the refund")
	assert.Equal(t, int64(38999_00+499_00), paid)
	assert.Equal(t, 2, lines)
	assert.Equal(t, 1, units)
	assert.Equal(t, 1, notes)

	_, err = whole.Projections.Rebuild(t.Context())
	require.NoError(t, err)
	assert.Equal(t, got, dump(t, whole))
}
