//go:build unix

package crashtest

import (
	"context"
	"fmt"
	"os"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"galla/pos"
)

// flowCancel cancels the invoice of a sale paid by one card tender (cancel.go):
// the card tender's refund intent (1) and done (2), then document.cancelled
// (3) on the sale.
const flowCancel = "cancel"

// cancelInvoice runs flowCancel in the helper.
func cancelInvoice(ctx context.Context, e *pos.Engine, orderID string) (string, error) {
	res, err := e.Refunds.CancelDocument(ctx, orderID, managerPIN, "customer left")
	if err != nil {
		return "", err
	}
	return string(res.Status) + " " + res.Pending, nil
}

// TestCrashCancelInvoice kills the terminal before and after each commit of the
// cancellation of a card sale's invoice. The restarted terminal reconciles and
// the manager cancels again: the invoice ends cancelled with its number, the
// card refunded exactly once in full at the service, and no credit note.
func TestCrashCancelInvoice(t *testing.T) {
	exe, err := os.Executable()
	require.NoError(t, err)
	for n := 1; n <= 3; n++ {
		for _, at := range []string{fmt.Sprintf("before:%d", n), fmt.Sprintf("after:%d", n)} {
			t.Run(at, func(t *testing.T) {
				t.Parallel()
				runCancelCase(t, exe, at)
			})
		}
	}
}

func runCancelCase(t *testing.T, exe, at string) {
	ctx := t.Context()
	w := newWorld(t)
	j, e := w.open(t)
	_, err := e.Roster().WithIterations(pos.MinPINIterations).AddStaff(ctx, "Meera", pos.RoleManager, managerPIN)
	require.NoError(t, err)
	res, _, err := checkout(ctx, e, w.client, flowCard, cardOTP)
	require.NoError(t, err)
	require.Equal(t, pos.ResultPaid, res.Status, res.Reason)
	sale := res.Order
	require.NotZero(t, sale.DocNo)
	require.Len(t, sale.Tenders, 1, "a sale of one card tender")
	tender := sale.Tenders[0].OrderID
	require.NoError(t, j.Close())

	out := runHelperProcess(t, exe, w, flowCancel, cardOTP, at, sale.ID)

	j, e = w.open(t)
	defer func() { require.NoError(t, j.Close()) }()
	_, err = e.Payments.Reconcile(ctx)
	require.NoError(t, err)
	checkLedger(t, j, w.sb)

	st, err := e.Sales.SaleStatus(ctx, sale.ID)
	require.NoError(t, err)
	if st.Sale.Cancelled == nil {
		cr, err := e.Refunds.CancelDocument(ctx, sale.ID, managerPIN, "customer left")
		require.NoError(t, err)
		require.Equal(t, pos.CancelDone, cr.Status, cr.Pending)
		st, err = e.Sales.SaleStatus(ctx, sale.ID)
		require.NoError(t, err)
	}
	require.NotNil(t, st.Sale.Cancelled, "the invoice is cancelled")
	assert.Equal(t, sale.DocNo, st.Sale.DocNo, "it keeps its number")
	require.Len(t, st.Tenders, 1)
	o := st.Tenders[0].Order
	require.NotNil(t, o)
	assert.Equal(t, tender, o.ID)
	assert.Equal(t, pos.StateRefunded, o.State)
	require.Len(t, o.Refunds, 1, "one refund, never a second")
	assert.Equal(t, pos.RefundDone, o.Refunds[0].Status)
	assert.True(t, o.Refunds[0].Cancel)
	assert.Zero(t, o.Refunds[0].DocNo, "no credit note")
	lo := ledgerOf(t, w.sb, tender)
	assert.Equal(t, int64(sale.Amount), lo.RefundedAmount, "refunded once, in full, at the service")
	assert.Equal(t, 1, lo.CapturedPayments, "charged once")

	_, err = e.Refunds.CancelDocument(ctx, sale.ID, managerPIN, "again")
	assert.ErrorIs(t, err, pos.ErrAlreadyCancelled)
	unresolved, err := j.Orders.Unresolved(ctx)
	require.NoError(t, err)
	assert.Empty(t, ids(unresolved), "every order is resolved in the end")
	checkLedger(t, j, w.sb)
	assert.Empty(t, cardLeaks(out, cardOTP), "card data in the helper's output")
}
