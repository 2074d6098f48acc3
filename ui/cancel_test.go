package ui

import (
	"context"
	"testing"

	"fyne.io/fyne/v2"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"galla/pos"
)

// CanCancelOrder lets the fake's sale G-A be cancelled.
func (f *fakeReturns) CanCancelOrder(_ context.Context, orderID string) string {
	if orderID != "G-A" {
		return "Only a sale's invoice can be cancelled."
	}
	return ""
}

// CancelDocument cancels G-A (₹1,000 by card) when the PIN is the manager's.
func (f *fakeReturns) CancelDocument(_ context.Context, doc, pin, reason string) (*pos.CancelResult, error) {
	if pin != "4321" {
		return nil, pos.ErrWrongPIN
	}
	return &pos.CancelResult{Status: pos.CancelDone, Number: "T1/2627/000007", OrderID: doc, Reason: reason,
		Tenders: []pos.CancelTender{{OrderID: doc, Tender: pos.TenderCard, Amount: pos.Rupees(1000), Status: pos.RefundDone}}}, nil
}

// TestCancelInvoiceFromJournal: Ctrl+D on the chosen sale asks why and for the
// manager's PIN; no reason and a wrong PIN are refused in the dialog, and the
// PIN is never kept; the right one cancels and says what was given back.
func TestCancelInvoiceFromJournal(t *testing.T) {
	f := newFakeTill()
	h := journalWithSale(t, f)
	h.ctrl(fyne.KeyD)
	h.settle()
	p := h.u.dialogs.prompt
	require.NotNil(t, p, "Ctrl+D asks")
	assert.Contains(t, p.title, "Cancel invoice")
	require.Len(t, p.fields, 2)
	reason, pin := p.fields[0], p.fields[1]

	pin.SetText("4321")
	p.confirm()
	h.settle()
	assert.Contains(t, p.message.Text, "Type why the invoice is cancelled")
	assert.Empty(t, pin.Text, "the PIN is never kept")

	reason.SetText("customer left")
	pin.SetText("1111")
	p.confirm()
	h.settle()
	assert.Contains(t, p.message.Text, "Wrong PIN")

	pin.SetText("4321")
	p.confirm()
	h.settle()
	assert.Nil(t, h.u.dialogs.prompt, "the dialog closes")
	assert.Equal(t, "Invoice T1/2627/000007 is cancelled: give back ₹1,000.00 refunded to the card.", h.u.journal.message.Text)
}

var _ Canceller = (*pos.Returns)(nil) // the terminal's Returns cancels invoices from the window
