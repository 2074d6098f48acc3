package ui

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"galla/pos"
)

// Short lists the items not serialised the lines take beyond what the fake
// has on hand, once goods were received.
func (f *fakeStockroom) Short(_ context.Context, lines []pos.CartLine) ([]string, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if len(f.stock.received) == 0 {
		return nil, nil
	}
	want := map[string]int{}
	var order []string
	for _, l := range lines {
		if l.Product.Serialised {
			continue
		}
		if _, ok := want[l.Product.SKU]; !ok {
			order = append(order, l.Product.SKU)
		}
		want[l.Product.SKU] += l.Qty
	}
	var out []string
	for _, sku := range order {
		if len(f.stock.onHand[sku]) < want[sku] {
			out = append(out, sku)
		}
	}
	return out, nil
}

// TestCartWarnsBelowZero: with one cable on hand, a cart of one cable says
// nothing; a second takes it below zero and the cart says so (the sale can
// still be paid); taking the line away takes the warning away.
func TestCartWarnsBelowZero(t *testing.T) {
	till := newFakeTill()
	_, err := (&fakeStockroom{till}).ReceiveItems(t.Context(), "Sai", "SD/1", "2026-11-21", "CABLE:1", nil, "4321")
	require.NoError(t, err)
	h := newHarness(t, till)
	h.signIn("Ravi", "1234")
	s := h.u.sale
	h.enter("CABLE")
	h.settle()
	require.Len(t, s.lines, 1)
	assert.NotContains(t, s.message.Text, "below zero", "one cable is on hand")

	h.enter("CABLE")
	h.settle()
	require.Len(t, s.lines, 1)
	require.Equal(t, 2, s.lines[0].Qty)
	assert.Equal(t, pos.ShortWarning([]string{"CABLE"}), s.message.Text)
	assert.False(t, s.cashA.btn.Disabled(), "warned, not refused: the sale can be paid")

	s.removeLine()
	h.settle()
	assert.Empty(t, s.message.Text, "nothing short any more")
}
