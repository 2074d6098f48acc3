package store

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"galla/pos"
)

// TestAPhoneReturnedFromAKeptSaleIsReservedAgain: a phone T1 sold with a
// cable and took back while the cable was kept (the sale PARTLY_REFUNDED)
// may be sold at T2: the store reserves it. Before the return it refuses, and
// a phone sold on the same kind of sale and not returned stays refused.
func TestAPhoneReturnedFromAKeptSaleIsReservedAgain(t *testing.T) {
	db := newDB(t)
	ctx := t.Context()
	enrolled(t, db, "T1")
	enrolled(t, db, "T2")
	t1 := newCounter(t, "T1")
	const back, kept = "356938035643809", "490154203237518"
	t1.cashSale("T1-P", day1, line("PH", 1, 59000, 18, back), line("CBL", 1, 499, 18))
	t1.cashSale("T1-Q", day1, line("PH", 1, 59000, 18, kept), line("CBL", 1, 499, 18))
	_, err := db.Events.Ingest(ctx, "T1", t1.sent())
	require.NoError(t, err)
	require.NoError(t, db.Projections.Project(ctx))
	require.Error(t, db.Decisions.ReserveIMEIs(ctx, "T2", "T2-A", []string{back}), "sold and not returned")

	item := returnItem(0, "PH", 1, pos.Rupees(59000), 18)
	item.IMEIs = []string{back}
	t1.ownReturn("T1-P", "R-T1-P", item)
	cable := returnItem(1, "CBL", 1, pos.Rupees(499), 18)
	t1.ownReturn("T1-Q", "R-T1-Q", cable) // the cable back, the phone kept
	_, err = db.Events.Ingest(ctx, "T1", t1.sent())
	require.NoError(t, err)
	require.NoError(t, db.Projections.Project(ctx))
	var states []string
	require.NoError(t, db.Pool().QueryRow(ctx, "SELECT array_agg(state ORDER BY order_id) FROM orders WHERE terminal_id = 'T1'").Scan(&states))
	require.Equal(t, []string{"PARTLY_REFUNDED", "PARTLY_REFUNDED"}, states)

	assert.NoError(t, db.Decisions.ReserveIMEIs(ctx, "T2", "T2-A", []string{back}), "the phone came back: it sells again")
	err = db.Decisions.ReserveIMEIs(ctx, "T2", "T2-B", []string{kept})
	require.Error(t, err)
	assert.Contains(t, err.Error(), "IMEI "+kept+" is sold already at counter T1 (order T1-Q)")
}
