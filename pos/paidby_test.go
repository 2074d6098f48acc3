package pos

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestSaleRecordsHowItWasPaid: a sale complete records its tenders' text
// (sale.completed), so its documents say how it was paid from the sale's
// order alone, with no tender read: a sale of one cash tender says cash, a
// sale of cash and a card says both, the card's brand and last four included.
func TestSaleRecordsHowItWasPaid(t *testing.T) {
	r := newRig(t)
	tl := r.till(t)
	ctx := t.Context()
	cable := func(qty int) []CartLine {
		return []CartLine{{Product: Product{SKU: "CBL", Name: "Cable", HSN: "8544", Price: 499_00, GSTRate: Percent(18)}, Qty: qty}}
	}
	paidBy := func(saleID string) (string, []string) {
		t.Helper()
		o, err := r.e.Order(ctx, saleID)
		require.NoError(t, err)
		var tenders []string
		for _, d := range GSTRDocuments(*o, Shop{State: "27"}, "T1", IST, nil) {
			tenders = append(tenders, d.Tender)
		}
		return o.PaidBy, tenders
	}

	out, err := tl.Checkout.Pay(ctx, PayRequest{Lines: cable(1), Tender: TenderCash, Cashier: "Meera"}, nil)
	require.NoError(t, err)
	require.Equal(t, StatePaid, out.State)
	rec, docs := paidBy(out.SaleID())
	assert.Equal(t, "cash", rec)
	assert.Equal(t, []string{"cash"}, docs)

	st, err := tl.Checkout.OpenSale(ctx, PayRequest{Lines: cable(2), Cashier: "Meera"})
	require.NoError(t, err)
	_, err = tl.Checkout.Pay(ctx, PayRequest{Sale: st.Sale.ID, Tender: TenderCash, Amount: 100_00, Cashier: "Meera"}, nil)
	require.NoError(t, err)
	card, err := tl.Checkout.Pay(ctx, PayRequest{Sale: st.Sale.ID, Tender: TenderCard, Card: card("4111111111111111"),
		OTP: r.td.OTP, Unattended: true, Cashier: "Meera"}, nil)
	require.NoError(t, err)
	require.True(t, card.Sale.Complete())
	rec, docs = paidBy(st.Sale.ID)
	assert.Equal(t, "cash + card VISA 1111", rec)
	assert.Equal(t, []string{"cash + card VISA 1111"}, docs)

	// The lines CSV says the same, read from the sales' orders.
	var csv strings.Builder
	require.NoError(t, tl.Documents.WriteLinesCSV(ctx, r.clock.Now(), r.clock.Now(), &csv))
	assert.Contains(t, csv.String(), ",cash,")
	assert.Contains(t, csv.String(), ",cash + card VISA 1111,")
	assert.NotContains(t, csv.String(), "split")
}
