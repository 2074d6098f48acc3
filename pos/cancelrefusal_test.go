package pos

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestCancelRefusalIsOneCheck: the journal screen's question (CanCancel) and
// the cancellation itself give the same refusal of an invoice with a credit
// note against it, and the cancellation gives it before the manager's PIN is
// asked: a wrong PIN is not what the cashier reads.
func TestCancelRefusalIsOneCheck(t *testing.T) {
	r := newRig(t)
	tl := r.till(t)
	ctx := t.Context()
	lines := []CartLine{{Product: Product{SKU: "CBL", Name: "Cable", HSN: "8544", Price: 499_00, GSTRate: Percent(18)}, Qty: 2}}
	out, err := tl.Checkout.Pay(ctx, PayRequest{Lines: lines, Tender: TenderCash, Cashier: "Meera"}, nil)
	require.NoError(t, err)
	sale, err := tl.Returns.FindSale(ctx, out.SaleID())
	require.NoError(t, err)
	assert.Empty(t, tl.Returns.CanCancel(ctx, sale), "today's invoice, nothing returned")

	_, err = tl.Returns.Return(ctx, ReturnRequest{Document: out.SaleID(), Items: []ReturnQty{{SKU: "CBL", Qty: 1}}, To: RefundToNote, Reason: "one back", PIN: managerPIN})
	require.NoError(t, err)
	sale, err = tl.Returns.FindSale(ctx, out.SaleID())
	require.NoError(t, err)
	why := tl.Returns.CanCancel(ctx, sale)
	assert.Equal(t, "Invoice "+sale.Number("T1")+" has a credit note against it, so it can no longer be cancelled; make a return (credit note) for the rest instead.", why)

	for _, pin := range []string{managerPIN, "999999"} {
		before := len(r.j.allEvents())
		_, err = tl.Returns.CancelDocument(ctx, sale.Number("T1"), pin, "mistake")
		require.ErrorIs(t, err, ErrNoCancel, "PIN %s", pin)
		assert.NotErrorIs(t, err, ErrWrongPIN)
		assert.Equal(t, why, Sentence(err))
		assert.Len(t, r.j.allEvents(), before, "nothing given back, nothing journaled")
	}
}

// TestCancelByATendersID cancels a sale's invoice named by its tender's id
// (what a card slip or the payment service shows): FindSale finds the sale,
// whose document is cancelled and its tender given back.
func TestCancelByATendersID(t *testing.T) {
	r := newRig(t)
	tl := r.till(t)
	ctx := t.Context()
	lines := []CartLine{{Product: Product{SKU: "CBL", Name: "Cable", HSN: "8544", Price: 499_00, GSTRate: Percent(18)}, Qty: 1}}
	out, err := tl.Checkout.Pay(ctx, PayRequest{Lines: lines, Tender: TenderCash, Cashier: "Meera"}, nil)
	require.NoError(t, err)
	require.NotEqual(t, out.SaleID(), out.OrderID, "the tender's id is not the sale's")
	tender, err := r.e.Order(ctx, out.OrderID)
	require.NoError(t, err)
	require.Equal(t, out.SaleID(), tender.Sale)

	res, err := tl.Returns.CancelDocument(ctx, out.OrderID, managerPIN, "customer left")
	require.NoError(t, err)
	assert.Equal(t, CancelDone, res.Status)
	assert.Equal(t, out.SaleID(), res.OrderID, "the sale's document is cancelled")
	require.Len(t, res.Tenders, 1)
	assert.Equal(t, out.OrderID, res.Tenders[0].OrderID)
	sale, err := r.e.Order(ctx, out.SaleID())
	require.NoError(t, err)
	require.NotNil(t, sale.Cancelled)
	assert.Equal(t, "customer left", sale.Cancelled.Reason)
}
