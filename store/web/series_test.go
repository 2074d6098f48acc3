package web

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"galla/pos"
	"galla/store"
)

func TestSearchFindsADocumentOfASeries(t *testing.T) {
	db, err := store.Open(t.Context(), cluster.Database(t), storeKey(t))
	require.NoError(t, err)
	t.Cleanup(db.Close)
	_, err = db.Migrate(t.Context())
	require.NoError(t, err)
	line := pos.Line{SKU: "CHG", Name: "Charger", HSN: "8504", Qty: 1, UnitPrice: pos.Rupees(1180), GSTRate: pos.Percent(18)}
	totals := pos.ComputeTotals([]pos.Line{line})
	for _, id := range []string{"T1", "T2"} {
		j := &journal{t: t, id: id, prev: strings.Repeat("0", 64)}
		j.add(pos.Event{Kind: pos.EvOrderIntent, OrderID: id + "-S", Day: day, Staff: "asha",
			Intent: &pos.Intent{Tender: pos.TenderCash, Lines: []pos.Line{line}, Totals: totals, Amount: totals.Total}})
		j.add(pos.Event{Kind: pos.EvCashReceived, OrderID: id + "-S", Day: day, Series: "2627", DocNo: 123, Cash: &pos.CashEvent{Tendered: totals.Total}})
		code, _, err := db.Access.EnrolCode(t.Context(), id)
		require.NoError(t, err)
		_, err = db.Access.Enrol(t.Context(), code, newPublicKey(t))
		require.NoError(t, err)
		_, err = db.Events.Ingest(t.Context(), id, j.events)
		require.NoError(t, err)
	}
	require.NoError(t, db.Projections.Project(t.Context()))
	for q, want := range map[string][]string{
		"T1/2627/000123": {"T1-S"},
		"t2/2627/000123": {"T2-S"},
		"2627/000123":    {"T1-S", "T2-S"}, // without the counter: both counters' invoice 123
		"2627/000124":    nil,
		"627/000123":     nil,
	} {
		_, got, err := search(t.Context(), db, q)
		require.NoError(t, err)
		var ids []string
		for _, o := range got {
			ids = append(ids, o.OrderID)
		}
		assert.ElementsMatch(t, want, ids, q)
	}
}
