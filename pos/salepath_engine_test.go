package pos

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"galla/gateway"
	"galla/gateway/sandbox"
)

// soleTender reads sale saleID, paid by one tender, and that tender's order
// (after any move to a fresh order id): the order the payment service knows,
// which carries the card, the capture, the change and the refunds' money.
func soleTender(t *testing.T, e *Engine, saleID string) (*SaleStatus, *Order) {
	t.Helper()
	st, err := e.Sales.SaleStatus(t.Context(), saleID)
	require.NoError(t, err)
	require.Len(t, st.Tenders, 1, "a sale of one tender")
	require.NotNil(t, st.Tenders[0].Order, "the tender's order was journaled")
	return st, st.Tenders[0].Order
}

// A tender's create order whose answer is lost again and again is abandoned and
// opened afresh under a new id at most three times, as a sale of one tender's
// order was; then the tender is given up, nothing paid, and the sale stays open.
func TestLostCreateOrderAnswersOnATender(t *testing.T) {
	r := newRig(t)
	ctx := t.Context()
	r.sb.Controls.Inject(sandbox.EndpointCreateOrder, sandbox.Fault{Kind: sandbox.FaultDrop}, 100)
	_, err := sellCard(ctx, r.e, r.sale(t, "ACC-CASE"), card("4111111111111111"), r.otp())
	require.ErrorIs(t, err, gateway.ErrOutcomeUnknown)
	r.sb.Controls.ClearFaults()

	day, err := r.j.OrdersByDay(ctx, r.e.Today())
	require.NoError(t, err)
	var sale *Order
	for _, o := range day {
		if o.Tender == TenderSplit {
			sale = o
		}
	}
	require.NotNil(t, sale)
	require.Len(t, sale.Tenders, 1)
	id, tries := sale.Tenders[0].OrderID, 0
	for id != "" {
		o, err := r.j.Order(ctx, id)
		require.NoError(t, err)
		tries++
		assert.Equal(t, StateAbandoned, o.State, "try %d", tries)
		assert.Empty(t, o.Attempts, "nothing was paid on an abandoned order")
		assert.Equal(t, sale.ID, o.Sale)
		id = o.MovedTo
	}
	assert.Equal(t, 3, tries, "three orders, then no fresh id")
	assert.Len(t, day, 4, "the sale and its tender's three orders")
	st, err := r.e.Sales.SaleStatus(ctx, sale.ID)
	require.NoError(t, err)
	assert.Equal(t, StateOpen, st.Sale.State)
	assert.True(t, st.HoldsNoMoney(), "the sale may be paid another way")
	assert.Zero(t, r.captures())
}

// Too little cash for a new sale (Checkout.Pay naming no sale) is refused
// with nothing journaled of the tender: the sale it opened holds nothing and is
// dropped, and the cash counted again pays a new sale.
func TestPayShortCashLeavesNoSaleOpen(t *testing.T) {
	r, tl := newReturnTill(t)
	ctx := t.Context()
	lines := []CartLine{r.cartLine(t, "ACC-CBL", 1)}
	_, err := tl.Checkout.Pay(ctx, PayRequest{Lines: lines, Tender: TenderCash, Tendered: Rupees(100), Cashier: "001"}, nil)
	require.ErrorIs(t, err, ErrCashShort)
	open, err := tl.Checkout.OpenSales(ctx)
	require.NoError(t, err)
	assert.Empty(t, open, "the sale opened for the refused cash is dropped: it holds nothing")
	for _, ev := range r.j.allEvents() {
		assert.NotEqual(t, EvTenderAdded, ev.Kind, "no tender was journaled")
	}

	out, err := tl.Checkout.Pay(ctx, PayRequest{Lines: lines, Tender: TenderCash, Tendered: Rupees(500), Cashier: "001"}, nil)
	require.NoError(t, err)
	assert.Equal(t, StatePaid, out.State)
	require.NotNil(t, out.Sale)
	assert.True(t, out.Sale.Complete())
	assert.Equal(t, Paise(100), out.Order.Change)
}
