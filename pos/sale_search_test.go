package pos

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestJournalListsSales: the split sale of cash and card is one row with its two
// tenders beneath it, not a row per order.
func TestJournalListsSales(t *testing.T) {
	r, tl, sale, cash, card := splitRig(t)
	rows, err := tl.Books.Orders(t.Context(), r.clock.Now())
	require.NoError(t, err)
	require.Len(t, rows, 3, "the sale and its two tenders")
	assert.Equal(t, sale.ID, rows[0].OrderID)
	assert.Empty(t, rows[0].Sale)
	assert.Equal(t, "T1/2627/000001", rows[0].ReceiptNo)
	assert.Contains(t, rows[0].Detail, "cash ₹500.00 + card ₹1,298.00")
	assert.Equal(t, cash.OrderID, rows[1].OrderID)
	assert.Equal(t, card.OrderID, rows[2].OrderID)
	for _, row := range rows[1:] {
		assert.Equal(t, sale.ID, row.Sale, "a tender names its sale")
	}
}

// TestFindSales finds the split sale by its invoice number written every way,
// by its card's last four, by the customer's mobile number, and by the number
// of a credit note against it; another counter's number is refused.
func TestFindSales(t *testing.T) {
	_, tl, sale, _, _ := splitRig(t)
	ctx := t.Context()
	// A second sale, of a named customer, paid in cash.
	lines, _, err := tl.Shelf.ParseItems(ctx, "ACC-CBL-CC1M", nil)
	require.NoError(t, err)
	mgr, err := tl.Crew.SignIn(ctx, "Meera", managerPIN)
	require.NoError(t, err)
	st, err := tl.Checkout.OpenSale(ctx, PayRequest{Lines: lines, Cashier: mgr.ID, Buyer: &Buyer{Name: "Asha Rao", Phone: "9876543210"}})
	require.NoError(t, err)
	_, err = tl.Checkout.Pay(ctx, PayRequest{Sale: st.Sale.ID, Tender: TenderCash, Amount: 49900, Tendered: 50000, Cashier: mgr.ID}, nil)
	require.NoError(t, err)
	res, err := tl.Returns.Return(ctx, ReturnRequest{Document: "T1/2627/000001", Items: []ReturnQty{{SKU: "ACC-CBL-CC1M", Qty: 1}}, To: RefundToNote, Reason: "faulty", PIN: managerPIN})
	require.NoError(t, err)
	require.Equal(t, "T1/C2627/00001", res.CreditNote)

	for _, tc := range []struct {
		text string
		want []string
	}{
		{"T1/2627/000001", []string{sale.ID}},
		{"t1/2627/000001", []string{sale.ID}},
		{"2627/000001", []string{sale.ID}},
		{"1", []string{sale.ID}},
		{"000002", []string{st.Sale.ID}},
		{"T1/C2627/00001", []string{sale.ID}},
		{"C2627/00001", []string{sale.ID}},
		{"1111", []string{sale.ID}},
		{"9876543210", []string{st.Sale.ID}},
		{"+91 98765 43210", []string{st.Sale.ID}},
		{"2627/000009", nil},
		{"5555", nil},
	} {
		t.Run(tc.text, func(t *testing.T) {
			got, err := tl.Books.FindSales(ctx, tc.text)
			require.NoError(t, err)
			var ids []string
			for _, o := range got {
				ids = append(ids, o.OrderID)
				assert.Empty(t, o.Sale, "a sale's row, not a tender's")
			}
			assert.Equal(t, tc.want, ids)
		})
	}
	_, err = tl.Books.FindSales(ctx, "T2/2627/000001")
	require.Error(t, err)
	assert.Equal(t, "Document T2/2627/000001 is of counter T2, not of this counter (T1): look it up there.", Sentence(err))
}
