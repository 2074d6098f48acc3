package pos

import (
	"bytes"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// declinedSale opens a sale of a phone case whose one card tender the issuer
// declines: the sale stays open with nothing paid and nothing in flight.
func declinedSale(t *testing.T, r *rig, tl *Till, cashier string) string {
	t.Helper()
	ctx := t.Context()
	lines, _, err := tl.Shelf.ParseItems(ctx, "ACC-CASE", nil)
	require.NoError(t, err)
	st, err := tl.Checkout.OpenSale(ctx, PayRequest{Lines: lines, Cashier: cashier})
	require.NoError(t, err)
	out, err := tl.Checkout.Pay(ctx, PayRequest{Sale: st.Sale.ID, Tender: TenderCard, Card: card("4000000000000002"), OTP: r.td.OTP,
		Unattended: true, Cashier: cashier}, nil)
	require.NoError(t, err)
	require.Equal(t, StateFailed, out.State)
	require.NotNil(t, out.Sale)
	require.True(t, out.Sale.HoldsNoMoney(), "a declined card holds no money")
	return st.Sale.ID
}

// TestCloseDayDropsSalesWithNothingPaid: a sale whose only tender was declined
// holds no money; the close of day drops it (journaled, named on the Z, nothing
// given back) and does not call it open, while a sale with cash paid on it
// stays open and is named as before.
func TestCloseDayDropsSalesWithNothingPaid(t *testing.T) {
	r, tl, _, _, ravi := auditRig(t)
	ctx := t.Context()
	empty := declinedSale(t, r, tl, ravi.ID)
	lines, _, err := tl.Shelf.ParseItems(ctx, "ACC-CBL", nil)
	require.NoError(t, err)
	st, err := tl.Checkout.OpenSale(ctx, PayRequest{Lines: lines, Cashier: ravi.ID})
	require.NoError(t, err)
	part := st.Sale.ID
	_, err = tl.Checkout.Pay(ctx, PayRequest{Sale: part, Tender: TenderCash, Amount: 10000, Cashier: ravi.ID}, nil)
	require.NoError(t, err)

	res, err := tl.Books.CloseDay(ctx, CloseDayRequest{PIN: managerPIN})
	require.NoError(t, err)
	assert.Equal(t, []string{empty}, res.Report.Dropped, "the Z names the sale dropped")
	assert.Equal(t, []string{part}, res.Report.OpenAtClose, "the sale with money on it stays open")
	require.Len(t, res.OpenSales, 1)
	assert.Equal(t, part, res.OpenSales[0].Sale.ID)
	assert.NotContains(t, res.Note, empty, "a dropped sale is no open sale to finish")
	assert.Contains(t, res.Note, part)
	var b bytes.Buffer
	require.NoError(t, res.Report.WriteText(&b))
	assert.Contains(t, b.String(), "Dropped at close (nothing paid, nothing to give back)\n  "+empty+"\n")

	o, err := r.e.Order(ctx, empty)
	require.NoError(t, err)
	assert.Equal(t, StateVoided, o.State)
	evs := eventsOf(t, r, EvSaleVoided, 0)
	require.Len(t, evs, 1)
	assert.Equal(t, empty, evs[0].OrderID)
	require.NotNil(t, evs[0].Sale)
	assert.True(t, evs[0].Sale.Dropped)
	assert.Empty(t, o.Refunds, "nothing was given back")

	open, err := tl.Checkout.OpenSales(ctx)
	require.NoError(t, err)
	require.Len(t, open, 1)
	assert.Equal(t, part, open[0].Sale.ID)
}

// TestDropSaleWithoutPIN: the cashier drops a sale with nothing paid without a
// manager; one with money on it is refused (a manager voids it), and a sale
// dropped is not open any more.
func TestDropSaleWithoutPIN(t *testing.T) {
	r, tl, _, _, ravi := auditRig(t)
	ctx := t.Context()
	empty := declinedSale(t, r, tl, ravi.ID)
	st, err := tl.Checkout.DropSale(ctx, empty, ravi.ID, "")
	require.NoError(t, err)
	assert.Equal(t, StateVoided, st.Sale.State)
	assert.Zero(t, st.Paid)
	_, err = tl.Checkout.DropSale(ctx, empty, ravi.ID, "")
	assert.ErrorIs(t, err, ErrSaleClosed)
	h, err := tl.Books.History(ctx, empty)
	require.NoError(t, err)
	assert.Contains(t, h[len(h)-1].Detail, "The sale was dropped: nothing was paid on it")

	lines, _, err := tl.Shelf.ParseItems(ctx, "ACC-CBL", nil)
	require.NoError(t, err)
	open, err := tl.Checkout.OpenSale(ctx, PayRequest{Lines: lines, Cashier: ravi.ID})
	require.NoError(t, err)
	_, err = tl.Checkout.Pay(ctx, PayRequest{Sale: open.Sale.ID, Tender: TenderCash, Amount: 10000, Cashier: ravi.ID}, nil)
	require.NoError(t, err)
	_, err = tl.Checkout.DropSale(ctx, open.Sale.ID, ravi.ID, "")
	require.ErrorIs(t, err, ErrHoldsMoney)
	assert.Contains(t, Sentence(err), "a manager voids it")
	o, err := r.e.Order(ctx, open.Sale.ID)
	require.NoError(t, err)
	assert.Equal(t, StateOpen, o.State, "nothing dropped")
}
