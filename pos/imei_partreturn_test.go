package pos

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// TestAPhoneReturnedFromAKeptSaleSellsAgain: a phone returned while the rest
// of its sale is kept (the sale PARTLY_REFUNDED, its credit note naming the
// IMEI) may be sold again; before the return it may not.
func TestAPhoneReturnedFromAKeptSaleSellsAgain(t *testing.T) {
	r, tl := newReturnTill(t)
	ctx := t.Context()
	const imei = "356938035643809"
	sale := r.sale(t, "PH-SAM-S24", "ACC-CBL")
	sale.Lines[0].IMEIs = []string{imei}
	sold, err := sellCash(ctx, r.e, sale, ComputeTotals(sale.Lines).Total)
	require.NoError(t, err)

	again := r.sale(t, "PH-SAM-S24")
	again.Lines[0].IMEIs = []string{imei}
	require.ErrorIs(t, tl.IMEIs.CheckSerials(ctx, again.Lines, ""), ErrIMEISold, "sold and not returned")

	_, err = tl.Returns.Return(ctx, ReturnRequest{Document: sold.Order.Number("T1"), Items: []ReturnQty{{SKU: "PH-SAM-S24", Qty: 1, IMEIs: []string{imei}}},
		To: RefundToCash, PIN: managerPIN, Reason: "changed mind"})
	require.NoError(t, err)
	st, err := r.e.Sales.SaleStatus(ctx, sold.Order.ID)
	require.NoError(t, err)
	require.Equal(t, StatePartlyRefunded, st.Sale.State, "the cable is kept")

	require.NoError(t, tl.IMEIs.CheckSerials(ctx, again.Lines, ""), "the phone came back: it sells again")
}
