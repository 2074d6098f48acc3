package pos

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// eventSnapJournal is the in-memory journal read event by event, with
// snapshots: what the sales book reads of pos/journal.
type eventSnapJournal struct{ *snapJournal }

func (j eventSnapJournal) LastSeq(context.Context) (uint64, error) {
	return uint64(len(j.allEvents())), nil
}

func (j eventSnapJournal) Event(_ context.Context, seq uint64) (Event, error) {
	return j.allEvents()[seq-1], nil
}

// TestOpenSalesFromSnapshot: the open sales are the split sales the events
// opened that are not paid or voided. The first read of a journal without the
// book's snapshot finds them by the days' orders and seals them; a restarted
// till reads the snapshot and the events since; a sale completed or voided
// leaves the list; and a sale opened more days ago than the days' orders are
// read back, with no Z report listing it, is still listed.
func TestOpenSalesFromSnapshot(t *testing.T) {
	r := newRig(t)
	j := eventSnapJournal{&snapJournal{memJournal: r.j}}
	ctx := t.Context()
	till := func() *Till {
		e, err := New(Config{Journal: j, Gateway: r.gw, Clock: r.clock, Customer: Customer{Mobile: "9000000001", Email: "counter@example.com"}})
		require.NoError(t, err)
		tl, err := NewTill(ctx, TillConfig{Engine: e, SampleCatalog: catalogJSON(t)})
		require.NoError(t, err)
		return tl
	}
	tl := till()
	meera, err := tl.Crew.SignIn(ctx, "Meera", managerPIN)
	require.NoError(t, err)
	lines, _, err := tl.Shelf.ParseItems(ctx, "ACC-CASE", nil)
	require.NoError(t, err)
	openSale := func(tl *Till) string {
		st, err := tl.Checkout.OpenSale(ctx, PayRequest{Lines: lines, Cashier: meera.ID})
		require.NoError(t, err)
		_, err = tl.Checkout.Pay(ctx, PayRequest{Sale: st.Sale.ID, Tender: TenderCash, Amount: 100_00, Cashier: meera.ID}, nil)
		require.NoError(t, err)
		return st.Sale.ID
	}
	openIDs := func(tl *Till) []string {
		t.Helper()
		open, err := tl.Checkout.OpenSales(ctx)
		require.NoError(t, err)
		var ids []string
		for _, st := range open {
			ids = append(ids, st.Sale.ID)
		}
		return ids
	}
	byDays := func(tl *Till) []string {
		t.Helper()
		open, err := tl.Engine().Sales.openSalesByDays(ctx)
		require.NoError(t, err)
		var ids []string
		for _, o := range open {
			ids = append(ids, o.ID)
		}
		return ids
	}

	a, b := openSale(tl), openSale(tl)
	require.NotContains(t, j.snaps, snapSales)
	assert.Equal(t, []string{a, b}, openIDs(tl))
	require.Contains(t, j.snaps, snapSales, "the first read seals what it found")

	out, err := tl.Checkout.Pay(ctx, PayRequest{Sale: b, Tender: TenderCash, Cashier: meera.ID}, nil)
	require.NoError(t, err)
	require.True(t, out.Sale.Complete())
	tl = till()
	c := openSale(tl)
	assert.Equal(t, []string{a, c}, openIDs(tl), "the snapshot and the events since")
	assert.Equal(t, byDays(tl), openIDs(tl), "as the days' orders show them")

	_, err = tl.Checkout.VoidSale(ctx, a, managerPIN, "customer left")
	require.NoError(t, err)
	assert.Equal(t, []string{c}, openIDs(tl))

	r.clock.Advance((maxOpenSalesDays + 10) * 24 * time.Hour)
	tl = till()
	assert.Empty(t, byDays(tl), "more days ago than the days' orders are read back")
	assert.Equal(t, []string{c}, openIDs(tl), "however long ago it was opened")
}
