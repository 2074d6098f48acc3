package pos

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// setTurnover declares the shop's turnover in crore, its other details as the
// e-invoice rig set them.
func (er *einvoiceRig) setTurnover(t *testing.T, crore string) {
	t.Helper()
	_, _, err := er.tl.Setup.SetShop(t.Context(), ShopDetails{Name: "Galla Mobiles", Address: "Shop 4, FC Road, Pune 411004", State: "27",
		GSTIN: eShopGSTIN, Turnover: crore}, managerPIN)
	require.NoError(t, err)
}

// An invoice registered while the shop e-invoiced keeps its IRN after the shop
// declares a turnover under the limit (a new financial year): its reprint
// prints the IRN, and a B2B invoice issued after the change needs none.
func TestEInvoiceFollowsTheRegistrationOfItsDate(t *testing.T) {
	er := newEInvoiceRig(t, crore(12.5))
	ctx := t.Context()
	first, _ := er.sell(t, b2bBuyer)
	states, err := er.tl.EInvoices.Register(ctx, first)
	require.NoError(t, err)
	require.Len(t, states, 1)
	require.Equal(t, IRNRegistered, states[0].Status)
	irn := states[0].IRN

	er.clock.Advance(time.Hour)
	er.setTurnover(t, "4")
	second, _ := er.sell(t, b2bBuyer)
	states, err = er.tl.EInvoices.Register(ctx, second)
	require.NoError(t, err)
	assert.Empty(t, states, "issued under ₹5 crore: no IRN")
	pending, err := er.tl.EInvoices.Pending(ctx)
	require.NoError(t, err)
	assert.Empty(t, pending)
	assert.Equal(t, 1, er.irp.Registered())

	text, _ := er.receiptText(t, first, -1)
	assert.Contains(t, text, "IRN "+irn[:32]+"\n", "the reprint of the registered invoice keeps its IRN")
	text, _ = er.receiptText(t, second, -1)
	assert.NotContains(t, text, "IRN")
}

// A B2B invoice issued before the shop declared a turnover above the limit is
// not registered afterwards: only the invoices issued from the change on are.
func TestEInvoiceNotForInvoicesBeforeTheLimit(t *testing.T) {
	er := newEInvoiceRig(t, crore(4))
	ctx := t.Context()
	before, _ := er.sell(t, b2bBuyer)
	er.clock.Advance(time.Hour)
	er.setTurnover(t, "12.5")
	after, number := er.sell(t, b2bBuyer)

	pending, err := er.tl.EInvoices.Pending(ctx)
	require.NoError(t, err)
	require.Len(t, pending, 1)
	assert.Equal(t, after, pending[0].OrderID)
	assert.Equal(t, number, pending[0].DocNo)
	left, err := er.tl.EInvoices.RegisterPending(ctx)
	require.NoError(t, err)
	assert.Empty(t, left)
	assert.Equal(t, 1, er.irp.Registered())

	text, _ := er.receiptText(t, before, -1)
	assert.NotContains(t, text, "IRN")
	text, _ = er.receiptText(t, after, -1)
	assert.Contains(t, text, "IRN ")
	assert.NotContains(t, text, "IRN PENDING")
}
