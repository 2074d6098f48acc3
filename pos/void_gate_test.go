package pos

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// openCashSale opens a split sale of a case and pays ₹500 of it in cash: an
// open sale with cash in the drawer.
func openCashSale(t *testing.T, r *rig, tl *Till) string {
	t.Helper()
	ctx := t.Context()
	st, err := tl.Checkout.OpenSale(ctx, PayRequest{Lines: []CartLine{r.cartLine(t, "ACC-CASE", 1)}, Cashier: "meera"})
	require.NoError(t, err)
	_, err = tl.Checkout.Pay(ctx, PayRequest{Sale: st.Sale.ID, Tender: TenderCash, Amount: Rupees(500), Cashier: "meera"}, nil)
	require.NoError(t, err)
	return st.Sale.ID
}

// TestVoidGivingCashBackNeedsAnOpenShift: voiding an open sale gives its cash
// back from the drawer, so, as a cash refund or a cancelled cash invoice, it
// needs an open shift where shifts are kept; nothing is given back before.
func TestVoidGivingCashBackNeedsAnOpenShift(t *testing.T) {
	r, tl := newShiftTill(t)
	ctx := t.Context()
	_, err := tl.Drawer.OpenShift(ctx, "meera", Rupees(1000))
	require.NoError(t, err)
	id := openCashSale(t, r, tl)
	count, err := ParseCount("500x3")
	require.NoError(t, err)
	_, err = tl.Drawer.CloseShift(ctx, "meera", count)
	require.NoError(t, err)

	_, err = tl.Checkout.VoidSale(ctx, id, managerPIN, "customer left")
	require.ErrorIs(t, err, ErrNoShift)
	st, err := tl.Checkout.SaleStatus(ctx, id)
	require.NoError(t, err)
	assert.Equal(t, StateOpen, st.Sale.State, "nothing given back from a closed drawer")
	assert.Equal(t, Rupees(500), st.Paid)

	_, err = tl.Drawer.OpenShift(ctx, "meera", Rupees(1000))
	require.NoError(t, err)
	st, err = tl.Checkout.VoidSale(ctx, id, managerPIN, "customer left")
	require.NoError(t, err)
	assert.Equal(t, StateVoided, st.Sale.State)
	rep, err := tl.Drawer.ShiftReport(ctx, "")
	require.NoError(t, err)
	assert.Equal(t, Rupees(500), rep.Expected, "the new float less the ₹500 given back out of the drawer")
}

// TestVoidCountsWrongPINs: a void passes the till's gate as every refund does:
// after MaxOverrideAttempts wrong manager PINs in a row the till takes none,
// not even the right one, until a manager signs in.
func TestVoidCountsWrongPINs(t *testing.T) {
	r, tl := newShiftTill(t)
	ctx := t.Context()
	id := openCashSale(t, r, tl)
	for i := range MaxOverrideAttempts {
		_, err := tl.Checkout.VoidSale(ctx, id, "999999", "customer left")
		require.ErrorIs(t, err, ErrWrongPIN, "attempt %d", i+1)
	}
	_, err := tl.Checkout.VoidSale(ctx, id, managerPIN, "customer left")
	assert.ErrorIs(t, err, ErrTooManyOverrides)
}

// TestCancelOfAUPISaleNeedsAnOpenShift: a UPI sale to the shop's VPA is given
// back from the drawer (RefundDestination), so cancelling its invoice needs an
// open shift as a cash sale's does.
func TestCancelOfAUPISaleNeedsAnOpenShift(t *testing.T) {
	r, tl := newShiftTill(t)
	ctx := t.Context()
	_, err := tl.Drawer.OpenShift(ctx, "meera", Rupees(1000))
	require.NoError(t, err)
	st, err := tl.Checkout.OpenSale(ctx, PayRequest{Lines: []CartLine{r.cartLine(t, "ACC-CASE", 1)}, Cashier: "meera"})
	require.NoError(t, err)
	out, err := tl.Checkout.Pay(ctx, PayRequest{Sale: st.Sale.ID, Tender: TenderUPI, Cashier: "meera"}, nil)
	require.NoError(t, err)
	require.NotEmpty(t, out.ReceiptNo)
	count, err := ParseCount("500x2")
	require.NoError(t, err)
	_, err = tl.Drawer.CloseShift(ctx, "meera", count)
	require.NoError(t, err)

	_, err = tl.Returns.CancelDocument(ctx, out.ReceiptNo, managerPIN, "customer left")
	require.ErrorIs(t, err, ErrNoShift)
}
