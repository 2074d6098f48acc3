package store

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"galla/pos"
)

// cashSaleOntoANote enrols T1 and journals there, unsent, a ₹1,180 charger
// and two ₹105 teas sold for cash, and the charger returned onto a credit note.
func cashSaleOntoANote(t *testing.T, db *DB) *counter {
	t.Helper()
	enrolled(t, db, "T1")
	c := newCounter(t, "T1")
	c.cashSale("T1-A", day1, line("CHG", 1, 1180, 18), line("TEA", 2, 105, 5))
	c.noteReturn("T1-A", day1, 1)
	return c
}

// TestDayReportListsRefundsWhereTheMoneyWent: T1 sells a ₹1,180 charger and
// two ₹105 teas for cash and takes the charger back onto a credit note; sells
// a ₹2,360 pair of chargers for cash and refunds ₹100 of it as an old event
// names no destination (back in cash); and refunds ₹1,000 of a ₹59,000 card
// sale, naming none either (back to the card). The store's day lists the
// refunds under note, cash and card, expects ₹1,390 + ₹2,360 − ₹100 = ₹3,650
// in cash, and agrees with the counter's own report tender by tender.
func TestDayReportListsRefundsWhereTheMoneyWent(t *testing.T) {
	db := newDB(t)
	ctx := t.Context()
	c := cashSaleOntoANote(t, db)
	c.cashSale("T1-B", day1, line("CHG", 2, 1180, 18))
	c.refund("T1-B", day1, pos.Rupees(100))
	c.cardSale("T1-C", day1, "4242", "", true, line("PHN", 1, 59000, 18))
	c.refund("T1-C", day1, pos.Rupees(1000))
	_, err := db.Events.Ingest(ctx, "T1", c.sent())
	require.NoError(t, err)

	r, err := db.Reports.DayReport(ctx, day1)
	require.NoError(t, err)
	require.Len(t, r.Counters, 1)
	got := r.Counters[0]
	assert.Equal(t, []pos.TenderTotal{
		{Tender: pos.TenderKind(pos.RefundToCard), Count: 1, Amount: pos.Rupees(1000)},
		{Tender: pos.TenderKind(pos.RefundToCash), Count: 1, Amount: pos.Rupees(100)},
		{Tender: pos.TenderKind(pos.RefundToNote), Count: 1, Amount: pos.Rupees(1180)},
	}, got.Refunds)
	assert.Equal(t, pos.Rupees(1390+2360-100), got.CashExpected, "the credit note took no cash out")
	own := c.report(day1)
	assert.Equal(t, own.CashExpected, got.CashExpected)
	assert.Equal(t, own.Refunds, got.Refunds)
	assert.Equal(t, own.Refunded, got.Refunded)

	// Rebuilt from the events, the same.
	_, err = db.Projections.Rebuild(ctx)
	require.NoError(t, err)
	again, err := db.Reports.DayReport(ctx, day1)
	require.NoError(t, err)
	assert.Equal(t, r, again)
}

// TestMigrationProjectsRefundDestinations: a store whose refunds were projected
// before payments kept their destination (refund_to empty, schema version 5)
// is migrated, and its day report lists the credit note's refund under note
// and expects its cash as the counter does, from the events already stored.
func TestMigrationProjectsRefundDestinations(t *testing.T) {
	db := newDB(t)
	ctx := t.Context()
	c := cashSaleOntoANote(t, db)
	_, err := db.Events.Ingest(ctx, "T1", c.sent())
	require.NoError(t, err)
	require.NoError(t, db.Projections.Project(ctx))
	_, err = db.Pool().Exec(ctx, "UPDATE payments SET refund_to = ''")
	require.NoError(t, err)
	// Schema version 5: the migrations after it run again (each may), the
	// orders as they were before 0018 (0007 reads their snapshots as jsonb).
	_, err = db.Pool().Exec(ctx, schema17Orders+"DELETE FROM schema_version WHERE version >= 6")
	require.NoError(t, err)
	refundTo := func() string {
		var to string
		require.NoError(t, db.Pool().QueryRow(ctx, "SELECT refund_to FROM payments WHERE kind = 'refund.done'").Scan(&to))
		return to
	}
	require.Empty(t, refundTo(), "as projected before")

	applied, err := db.Migrate(ctx)
	require.NoError(t, err)
	assert.Equal(t, versionsFrom(6), applied)
	r, err := db.Reports.DayReport(ctx, day1)
	require.NoError(t, err)
	require.Len(t, r.Counters, 1)
	own := c.report(day1)
	assert.Equal(t, own.Refunds, r.Counters[0].Refunds)
	assert.Equal(t, pos.Rupees(1390), r.Counters[0].CashExpected)
	assert.Equal(t, own.CashExpected, r.Counters[0].CashExpected)
	assert.Equal(t, own.GrossSales, r.Counters[0].GrossSales)
	assert.Equal(t, string(pos.RefundToNote), refundTo(), "projected again")
}
