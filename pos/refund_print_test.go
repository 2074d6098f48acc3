package pos

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestDoneRefund(t *testing.T) {
	o := receiptOrder(t, TenderCash)
	o.Refunds = []Refund{
		{UniqueTxnID: "RF-1", Amount: 100, Status: RefundDone},
		{UniqueTxnID: "RF-2", Amount: 200, Status: RefundFailed},
		{UniqueTxnID: "RF-3", Amount: 300, Status: RefundDone},
		{UniqueTxnID: "RF-4", Amount: 400, Status: RefundPending},
	}
	tests := []struct {
		n      int
		want   string
		wantOK bool
	}{
		{0, "RF-3", true}, // the latest done one
		{1, "RF-1", true},
		{2, "RF-3", true}, // failed and pending refunds are not counted
		{3, "", false},
		{-1, "", false},
	}
	for _, tt := range tests {
		got, ok := DoneRefund(o, tt.n)
		assert.Equal(t, tt.wantOK, ok, "DoneRefund(%d) ok", tt.n)
		assert.Equal(t, tt.want, got.UniqueTxnID, "DoneRefund(%d)", tt.n)
	}
	_, ok := DoneRefund(receiptOrder(t, TenderCash), 0)
	assert.False(t, ok, "a sale without refunds")
}

// TestRefundReceiptPrintCounts checks that prints of a refund's receipt count for
// that refund only, never as copies of the sale's receipt.
func TestRefundReceiptPrintCounts(t *testing.T) {
	o := receiptOrder(t, TenderCash)
	o.Refunds = []Refund{{UniqueTxnID: "RF-1", Amount: 100, Status: RefundDone}, {UniqueTxnID: "RF-2", Amount: 200, Status: RefundDone}}
	assert.Equal(t, 0, NextRefundReprint(o.Refunds[0]))

	steps := []struct {
		kind EventKind
		uid  string
	}{
		{EvReceiptPrinted, ""}, // the sale's own receipt
		{EvReceiptPrinted, "RF-1"},
		{EvReceiptReprinted, "RF-1"},
		{EvPrintFailed, "RF-1"},
	}
	for _, s := range steps {
		ev := Event{Kind: s.kind, OrderID: o.ID, Print: &PrintEvent{Refund: s.uid}}
		if s.kind == EvPrintFailed {
			ev.Reason, ev.Print.Error = "printer offline", "printer offline"
		}
		require.NoError(t, o.Apply(ev), "%s %q", s.kind, s.uid)
	}
	r1, r2 := o.RefundByID("RF-1"), o.RefundByID("RF-2")
	require.NotNil(t, r1)
	require.NotNil(t, r2)
	assert.True(t, r1.Printed)
	assert.Equal(t, 1, r1.Reprints)
	assert.Equal(t, 2, NextRefundReprint(*r1))
	assert.False(t, r2.Printed, "another refund's prints do not count")
	assert.True(t, o.Printed, "the sale's receipt print still counts for the sale")
	assert.Zero(t, o.Reprints, "refund receipt copies are not sale reprints")
	assert.Empty(t, o.PrintError, "a refund receipt's failed print is not the sale's")

	err := o.Apply(Event{Kind: EvReceiptPrinted, OrderID: o.ID, Print: &PrintEvent{Refund: "RF-9"}})
	assert.ErrorIs(t, err, ErrBadEvent, "a print of an unknown refund is refused")
	assert.Nil(t, o.RefundByID("RF-9"))
}
