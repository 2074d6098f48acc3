package ui

import (
	"context"
	"testing"

	"fyne.io/fyne/v2"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"galla/pos"
)

// ReturnView is the fake's sale G-A: two cables (one returned already) and a
// phone, paid by card.
func (f *fakeReturns) ReturnView(_ context.Context, doc string) (*pos.SaleForReturn, error) {
	if doc != "G-A" && doc != "T1/2627/000007" {
		return nil, pos.Errorf("No sale %s is in the journal.", doc)
	}
	return &pos.SaleForReturn{OrderID: "G-A", Number: "T1/2627/000007", At: "22 Nov 2026", Tender: pos.TenderCard,
		Refundable: pos.Rupees(1000) - 49900,
		Lines: []pos.ReturnableLine{
			{SKU: "CABLE", Name: "USB-C cable", Sold: 2, Returned: 1, Left: 1, Amount: 99800},
			{SKU: "CASE", Name: "Case", Sold: 1, Left: 1, Amount: 200},
			{SKU: "S24", Name: "Galaxy S24", Sold: 2, Left: 2, Amount: pos.Rupees(149998), IMEIs: []string{"356938035643809", "356938035643817"}},
		},
		To: []pos.RefundTo{pos.RefundToCard, pos.RefundToNote}}, nil
}

// Return records the request and issues credit note C00001 when the PIN is the
// manager's.
func (f *fakeReturns) Return(_ context.Context, r pos.ReturnRequest) (*pos.ReturnResult, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.returnReqs = append(f.returnReqs, r)
	if r.PIN != "4321" {
		return nil, pos.ErrWrongPIN
	}
	return &pos.ReturnResult{Status: pos.RefundDone, Order: &pos.Order{ID: "G-A"}, CreditNote: "T1/C2627/00001",
		Refund: pos.Refund{Amount: 49900, Status: pos.RefundDone}}, nil
}

func TestReturnsScreen(t *testing.T) {
	f := newFakeTill()
	h := journalWithSale(t, f)
	h.ctrl(fyne.KeyU)
	h.settle()
	s, ok := h.u.current.(*returnsScreen)
	require.True(t, ok, "Ctrl+U opens the Returns screen")
	require.NotNil(t, s.sale, "on the order chosen in the journal")
	assert.Contains(t, s.detail.Text, "Invoice T1/2627/000007 of 22 Nov 2026")
	require.Len(t, s.qty, 3)
	assert.Equal(t, []string{"card", "note"}, s.to.Options)
	assert.Equal(t, "card", s.to.Selected, "the money goes back the way it came by default")

	// Two cables asked where one is left: refused on the screen, nothing sent.
	s.qty[0].SetText("2")
	s.pin.SetText("4321")
	h.press(fyne.KeyF5)
	h.settle()
	assert.Contains(t, s.message.Text, "from 0 to 1 for USB-C cable")
	assert.Empty(t, f.returnReqs)
	assert.Empty(t, s.pin.Text, "the PIN is never kept")

	s.qty[0].SetText("1")
	s.qty[2].SetText("356938035643817") // one phone of two, by its IMEI
	h.ctrl(fyne.KeyM)                   // to a credit note
	s.reason.SetText("exchange")
	s.pin.SetText("1111")
	h.press(fyne.KeyF5)
	h.settle()
	assert.Contains(t, s.message.Text, "Wrong PIN")

	s.pin.SetText("4321")
	h.press(fyne.KeyF5)
	h.settle()
	require.Len(t, f.returnReqs, 2)
	assert.Equal(t, pos.ReturnRequest{Document: "G-A", Items: []pos.ReturnQty{{SKU: "CABLE", Qty: 1},
		{SKU: "S24", Qty: 1, IMEIs: []string{"356938035643817"}}}, To: pos.RefundToNote,
		Reason: "exchange", PIN: "4321"}, f.returnReqs[1])
	r := h.u.receipt
	require.Equal(t, r, h.u.current, "the credit note opens to print")
	assert.Equal(t, "Credit note T1/C2627/00001", r.change.Text)
	h.press(fyne.KeyEscape)
	assert.Equal(t, h.u.journal, h.u.current, "Escape goes back to the journal")
}

func TestReturnsScreenFindsByNumber(t *testing.T) {
	f := newFakeTill()
	h := journalWithSale(t, f)
	h.u.journal.hit = -1 // no order chosen: the screen asks for the invoice
	h.ctrl(fyne.KeyU)
	h.settle()
	s := h.u.current.(*returnsScreen)
	assert.Nil(t, s.sale)
	h.enter("T1/2627/000099")
	h.settle()
	assert.Contains(t, s.message.Text, "No sale T1/2627/000099")
	assert.True(t, s.issue.btn.Disabled())
	h.enter("T1/2627/000007")
	h.settle()
	require.NotNil(t, s.sale)
	s.amount.SetText("100")
	s.pin.SetText("4321")
	h.press(fyne.KeyF5)
	h.settle()
	require.Len(t, f.returnReqs, 1)
	assert.Equal(t, pos.Rupees(100), f.returnReqs[0].Amount, "a price adjustment without goods")
	assert.Empty(t, f.returnReqs[0].Items)
}

// TestMarkupReturns snapshots the Returns screen on a sale with a line partly
// returned and a serialised line.
func TestMarkupReturns(t *testing.T) {
	f := newFakeTill()
	f.orders = []OrderSummary{{OrderID: "G-A", State: pos.StatePaid, Tender: pos.TenderCard, Amount: pos.Rupees(1000)}}
	h := newMarkupHarness(t, f)
	h.signIn("Asha", "4321")
	h.press(fyne.KeyF9)
	h.settle()
	h.enter("G-A")
	h.settle()
	h.ctrl(fyne.KeyU)
	h.settle()
	s, ok := h.u.current.(*returnsScreen)
	require.True(t, ok)
	require.NotNil(t, s.sale)
	h.assertMarkup("returns")
}
