package ui

import (
	"testing"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/widget"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"galla/pos"
)

// TestJournalSaleRowsAndSearch: a split sale is one row with its tenders
// beneath it (no time, no cashier, indented by kind); a filter on a tender's
// kind keeps the whole sale; the search finds a sale by its invoice number
// written with or without the counter and year, and by a card's last four.
func TestJournalSaleRowsAndSearch(t *testing.T) {
	f := newFakeTill()
	at := time.Date(2026, 11, 22, 10, 5, 0, 0, time.Local)
	f.orders = []OrderSummary{
		{OrderID: "G-0001", At: at, Day: "2026-11-22", State: pos.StatePaid, Tender: pos.TenderCard, Amount: pos.Rupees(499), Cashier: "Asha", ReceiptNo: "T1/2627/000001", CardLast4: "1111"},
		{OrderID: "S-0002", At: at.Add(time.Hour), Day: "2026-11-22", State: pos.StatePaid, Tender: pos.TenderSplit, Amount: pos.Rupees(1000), Cashier: "Ravi", ReceiptNo: "T1/2627/000002"},
		{OrderID: "S-0002-1", At: at.Add(time.Hour), Day: "2026-11-22", State: pos.StatePaid, Tender: pos.TenderCash, Amount: pos.Rupees(400), Sale: "S-0002"},
		{OrderID: "S-0002-2", At: at.Add(time.Hour), Day: "2026-11-22", State: pos.StatePaid, Tender: pos.TenderUPI, Amount: pos.Rupees(600), Sale: "S-0002"},
	}
	h := newHarness(t, f)
	h.signIn("Asha", "4321")
	h.press(fyne.KeyF9)
	h.settle()
	j := h.u.journal
	require.Len(t, j.visible, 4)
	assert.Equal(t, "Journal of Sun 22 Nov 2026: 2 sales", j.title.Text, "sales are counted, not their tenders")
	assert.False(t, j.tenderRow(1))
	assert.True(t, j.tenderRow(2))
	assert.True(t, j.tenderRow(3))
	cells := func(i int) []string {
		o := j.list.CreateItem()
		j.list.UpdateItem(i, o)
		var out []string
		for _, c := range o.(*fyne.Container).Objects {
			out = append(out, c.(*widget.Label).Text)
		}
		return out
	}
	assert.Equal(t, []string{"11:05", "T1/2627/000002", "PAID", "split", "₹1,000.00", "Ravi"}, cells(1))
	assert.Equal(t, []string{"", tenderIndent + "UPI", "PAID", "upi", "₹600.00", ""}, cells(3))

	j.tender.SetSelected(string(pos.TenderUPI))
	require.Len(t, j.visible, 3, "the sale paid partly by UPI, with its tenders")
	assert.Equal(t, "S-0002", j.visible[0].OrderID)
	j.tender.SetSelectedIndex(0)

	for _, text := range []string{"T1/2627/000002", "2627/000002", "2"} {
		h.enter(text)
		h.settle()
		require.GreaterOrEqual(t, j.hit, 0, "%s finds the sale: %s", text, j.message.Text)
		assert.Equal(t, "S-0002", j.visible[j.hit].OrderID, text)
		assert.Contains(t, j.message.Text, "Found T1/2627/000002")
	}
	h.enter("1111")
	h.settle()
	require.GreaterOrEqual(t, j.hit, 0, j.message.Text)
	assert.Equal(t, "G-0001", j.visible[j.hit].OrderID, "the card's last four")
}
