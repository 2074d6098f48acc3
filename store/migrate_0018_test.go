package store

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"galla/pos"
	"galla/store/api"
)

// schema17Orders puts orders back as schema 17 had them (before 0018): the
// snapshot as jsonb, no origin columns, the return orders found by an
// expression on the snapshot.
const schema17Orders = `ALTER TABLE orders ALTER COLUMN snapshot TYPE jsonb USING snapshot::jsonb;
	DROP INDEX orders_origin;
	ALTER TABLE orders DROP COLUMN origin_terminal, DROP COLUMN origin_order;
	CREATE INDEX orders_origin ON orders ((snapshot->'origin'->>'terminal'), (snapshot->'origin'->>'order_id')) WHERE snapshot ? 'origin';`

// A store of schema 17 with a return order at another counter, migrated by
// 0018: the snapshots read as before, the return order's origin is copied
// into its columns, and the invoice's returns are found through them: the
// store reserves no more of the invoice than is left.
func TestMigration0018KeepsSnapshotsAndFindsReturns(t *testing.T) {
	db := newDB(t)
	ctx := t.Context()
	enrolled(t, db, "T1")
	enrolled(t, db, "T2")
	phone := line("PHN", 1, 59000, 18)
	c1 := newCounter(t, "T1")
	c1.cardSale("T1-B", day1, "4242", "", true, phone)
	_, err := db.Events.Ingest(ctx, "T1", c1.sent())
	require.NoError(t, err)
	c2 := newCounter(t, "T2")
	c2.returnAt("T2-RET", "R2", 1, pos.Origin{Terminal: "T1", OrderID: "T1-B", Number: "T1/000001", Tender: pos.TenderCard},
		[]pos.Line{phone}, []pos.ReturnItem{returnItem(0, "PHN", 0, pos.Rupees(40000), 18)})
	_, err = db.Events.Ingest(ctx, "T2", c2.sent())
	require.NoError(t, err)
	require.NoError(t, db.Projections.Project(ctx))

	snapshots := func() map[string]string {
		rs, err := db.Pool().Query(ctx, "SELECT order_id, snapshot::jsonb::text FROM orders")
		require.NoError(t, err)
		out := map[string]string{}
		for rs.Next() {
			var id, snap string
			require.NoError(t, rs.Scan(&id, &snap))
			out[id] = snap
		}
		require.NoError(t, rs.Err())
		return out
	}
	_, err = db.Pool().Exec(ctx, schema17Orders+"DELETE FROM schema_version WHERE version >= 18")
	require.NoError(t, err)
	before := snapshots()
	require.Len(t, before, 2)

	applied, err := db.Migrate(ctx)
	require.NoError(t, err)
	assert.Equal(t, []int{18}, applied)
	assert.Equal(t, before, snapshots(), "the snapshots read as before")
	var typ string
	require.NoError(t, db.Pool().QueryRow(ctx, "SELECT data_type FROM information_schema.columns WHERE table_name = 'orders' AND column_name = 'snapshot'").Scan(&typ))
	assert.Equal(t, "json", typ)
	origin := func(id string) [2]string {
		var o [2]string
		require.NoError(t, db.Pool().QueryRow(ctx, "SELECT origin_terminal, origin_order FROM orders WHERE order_id = $1", id).Scan(&o[0], &o[1]))
		return o
	}
	assert.Equal(t, [2]string{"T1", "T1-B"}, origin("T2-RET"))
	assert.Equal(t, [2]string{"", ""}, origin("T1-B"))

	adjust := func(amount pos.Paise) []api.ReturnLine {
		return []api.ReturnLine{{Line: 0, SKU: "PHN", Amount: int64(amount)}}
	}
	_, err = db.Decisions.ReserveReturn(ctx, "T2", "T1/000001", "R3", pos.Rupees(19000)+1, adjust(pos.Rupees(19000)+1))
	require.Error(t, err, "the return at T2 is counted")
	assert.Contains(t, err.Error(), "at most ₹19,000.00 can be returned")
	_, err = db.Decisions.ReserveReturn(ctx, "T2", "T1/000001", "R3", pos.Rupees(19000), adjust(pos.Rupees(19000)))
	require.NoError(t, err)
}
