package ui

import (
	"testing"

	"fyne.io/fyne/v2"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestNoCardFormForAServiceNotApproved: while the status says the live
// service is not approved on this counter, Card [F5] says why in a dialog and
// never opens the card form; the sale stays as it was. Without the line the
// same key opens the form.
func TestNoCardFormForAServiceNotApproved(t *testing.T) {
	const hold = "The payment service changed to pay.example.in (merchant 1): no card, EMI or pay-on-phone payment is taken until a manager approves it with \"galla gateway approve --staff NAME\"; cash, UPI and credit notes are taken."
	for _, held := range []bool{true, false} {
		f := newFakeTill()
		if held {
			f.status.Gateway = hold
		}
		h := newHarness(t, f)
		h.signIn("Asha", "4321")
		h.enter("CABLE")
		h.settle()
		h.press(fyne.KeyF5)
		h.settle()
		if !held {
			assert.Equal(t, h.u.card, h.u.current, "Card opens the card form")
			assert.Nil(t, h.u.dialogs.prompt)
			continue
		}
		assert.Equal(t, h.u.sale, h.u.current, "the card form is not opened")
		p := h.u.dialogs.prompt
		require.NotNil(t, p, "the refusal is said")
		assert.Equal(t, hold, p.message.Text)
		assert.Len(t, h.u.sale.lines, 1, "the sale is kept")
		assert.Empty(t, f.requests, "nothing was asked to pay")
	}
}
