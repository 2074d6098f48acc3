package ui

import (
	"testing"

	"fyne.io/fyne/v2"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestPrefilledFieldSelected: a field focused with a value shows it selected,
// and what is typed replaces it; a key that moves the cursor keeps it to edit.
func TestPrefilledFieldSelected(t *testing.T) {
	h := newHarness(t, newFakeTill())
	h.signIn("Ravi", "1234")
	h.enter("CABLE")
	h.press(fyne.KeyF3)
	require.NotNil(t, h.u.dialogs.prompt)
	qty := h.focused().(*keyEntry)
	assert.Equal(t, "1", qty.SelectedText(), "the quantity shown is selected")
	h.enter("2")
	assert.Equal(t, 2, h.u.sale.lines[0].Qty, "typing 2 over the 1 shown gives 2, not 21")

	h.press(fyne.KeyF3)
	assert.Equal(t, "2", h.focused().(*keyEntry).SelectedText())
	h.press(fyne.KeyEnd)
	h.enter("5")
	assert.Equal(t, 25, h.u.sale.lines[0].Qty, "End keeps the 2 and types after it")

	// A held bill's number, pre-filled when one bill is held.
	h.ctrl(fyne.KeyH)
	require.NotNil(t, h.u.dialogs.prompt)
	h.press(fyne.KeyReturn)
	h.settle()
	require.Empty(t, h.u.sale.lines, h.u.sale.message.Text)
	h.ctrl(fyne.KeyR)
	h.settle()
	require.NotNil(t, h.u.dialogs.prompt)
	num := h.focused().(*keyEntry)
	assert.Equal(t, "1", num.SelectedText())
	h.enter("1")
	h.settle()
	require.Nil(t, h.u.dialogs.prompt, "typing 1 over the 1 shown recalls bill 1, not 11")
	assert.Len(t, h.u.sale.lines, 1)

	// SetText on a focused field leaves nothing selected: typing goes after it.
	h.u.sale.finder.scan.SetText("CAB")
	h.u.win.Canvas().Focus(h.u.sale.finder.scan)
	h.u.sale.finder.scan.SetText("CAB")
	h.typeText("LE")
	assert.Equal(t, "CABLE", h.u.sale.finder.scan.Text)
}

// TestTypeAheadSplit: F11 then 500 typed at once, before the split sale is
// open: the amount lands in the split screen's amount field, in order.
func TestTypeAheadSplit(t *testing.T) {
	h := newSplitHarness(t, newSplitTill())
	h.signIn("Ravi", "1234")
	h.enter("TV55")
	h.press(fyne.KeyF11)
	require.Equal(t, h.u.sale, h.u.current, "the sale is being opened")
	h.typeText("500")
	h.press(fyne.KeyBackspace)
	h.typeText("0")
	h.settle()
	require.Equal(t, h.u.tender, h.u.current, h.u.sale.message.Text)
	assert.Equal(t, "500", h.u.tender.amount.Text)
	assert.Empty(t, h.u.sale.finder.scan.Text, "nothing went to the old screen's field")
}

// TestTypeAheadAfterIMEI: after the IMEI dialog's Enter, the tendered amount
// typed while the IMEI is checked arrives whole in the cash screen.
func TestTypeAheadAfterIMEI(t *testing.T) {
	h := newHarness(t, newFakeTill())
	h.signIn("Ravi", "1234")
	h.enter("S24")
	h.press(fyne.KeyF7)
	require.NotNil(t, h.u.dialogs.prompt, "the IMEI of the phone is asked")
	h.enter(validIMEI(t, "35693803564380"))
	h.typeText("80000")
	h.settle()
	require.Equal(t, h.u.cash, h.u.current)
	assert.Equal(t, "80000", h.u.cash.tendered.Text)
}

// TestTypeAheadDialogTakesKeys: a dialog that opens while the screen changes
// (the manager's PIN asked in the middle of a sale) takes the keys kept so far
// and those typed after; the screen change's end keeps nothing more.
func TestTypeAheadDialogTakesKeys(t *testing.T) {
	h := newHarness(t, newFakeTill())
	h.signIn("Ravi", "1234")
	release := h.u.typeAhead.hold()
	h.typeText("12")
	assert.Empty(t, h.u.sale.finder.scan.Text)
	pin := newKeyEntry(h.u)
	h.u.dialogs.ask("Manager override", "PIN", []*keyEntry{pin}, func(p *prompt) { p.close() })
	h.typeText("34")
	assert.Equal(t, "1234", pin.Text)
	release()
	h.typeText("5")
	assert.Equal(t, "12345", pin.Text)
}
