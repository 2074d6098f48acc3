package ui

import (
	"bytes"
	"image/png"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/test"
	"fyne.io/fyne/v2/widget"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"galla/pos"
)

// journalWithSale signs a manager in and opens the journal on one paid card sale.
func journalWithSale(t *testing.T, f *fakeTill) *harness {
	t.Helper()
	f.orders = []OrderSummary{{OrderID: "G-A", State: pos.StatePaid, Tender: pos.TenderCard, Amount: pos.Rupees(1000)}}
	h := newHarness(t, f)
	h.u.opts.ReceiptDir = filepath.Join(t.TempDir(), "receipts")
	h.signIn("Asha", "4321")
	h.press(fyne.KeyF9)
	h.settle()
	require.Equal(t, h.u.journal, h.u.current)
	h.enter("G-A")
	h.settle()
	return h
}

func TestRefundOpensRefundReceipt(t *testing.T) {
	f := newFakeTill()
	h := journalWithSale(t, f)
	h.press(fyne.KeyF5)
	require.NotNil(t, h.u.dialogs.prompt)
	h.focused().(*keyEntry).SetText("")
	h.enter("250")
	h.enter("4321")
	h.settle()

	r := h.u.receipt
	require.Equal(t, r, h.u.current, "the refund's receipt is offered")
	assert.True(t, r.refund)
	assert.Equal(t, "Refund receipt", r.title.Text)
	assert.Equal(t, "₹250.00", r.change.Text, "the amount refunded, big")
	assert.Equal(t, "Refund of order G-A", r.message.Text, "the preview was drawn")
	require.NotNil(t, r.png)
	assert.False(t, r.print.btn.Disabled(), "a fresh refund receipt can be printed")

	h.press(fyne.KeyF5)
	h.settle()
	assert.Equal(t, []string{"refund:G-A"}, f.printed, "F5 prints the refund receipt, not the sale's")
	assert.Contains(t, r.message.Text, "back to the journal")

	h.ctrl(fyne.KeyS)
	h.settle()
	path := filepath.Join(h.u.opts.ReceiptDir, "refund-G-A.png")
	assert.Equal(t, "Saved as "+path, r.message.Text)
	b, err := os.ReadFile(path)
	require.NoError(t, err)
	_, err = png.Decode(bytes.NewReader(b))
	assert.NoError(t, err)

	h.press(fyne.KeyEscape)
	assert.Equal(t, h.u.journal, h.u.current, "Escape goes back to the journal")
	assert.Contains(t, h.u.journal.message.Text, "Refunded ₹250.00")
}

func TestRefundReceiptPrintFails(t *testing.T) {
	f := newFakeTill()
	h := journalWithSale(t, f)
	f.mu.Lock()
	f.printErr = errFakePrinter
	f.mu.Unlock()
	h.press(fyne.KeyF5)
	h.focused().(*keyEntry).SetText("")
	h.enter("1000")
	h.enter("4321")
	h.settle()
	r := h.u.receipt
	require.Equal(t, r, h.u.current)
	h.press(fyne.KeyF5)
	h.settle()
	assert.Contains(t, r.message.Text, "did not print")
	assert.False(t, r.print.btn.Disabled(), "a failed print can be tried again")
	assert.Empty(t, f.printed)
}

func TestReportDialogPrintAndSave(t *testing.T) {
	tests := []struct {
		name string
		open func(h *harness)
		file string
	}{
		{"X report", func(h *harness) { h.press(fyne.KeyF7) }, "x-report-2026-11-22.png"},
		{"Z report", func(h *harness) {
			h.press(fyne.KeyF8)
			h.enter("4321")
		}, "z-report-2026-11-22.png"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFakeTill()
			h := journalWithSale(t, f)
			tt.open(h)
			h.settle()
			p := h.u.dialogs.prompt
			require.NotNil(t, p)
			require.Len(t, p.actions, 2)

			h.press(fyne.KeyF5)
			h.settle()
			assert.Equal(t, []string{"print:2026-11-22"}, f.reports, "F5 in the dialog prints the report")
			assert.Empty(t, f.refunds, "F5 does not reach the journal's Refund")
			assert.Same(t, p, h.u.dialogs.prompt, "the report dialog stays open; no refund prompt")
			assert.Equal(t, "Printed.", p.message.Text)

			h.ctrl(fyne.KeyS)
			h.settle()
			path := filepath.Join(h.u.opts.ReceiptDir, tt.file)
			assert.Equal(t, "Saved as "+path, p.message.Text)
			assert.FileExists(t, path)

			h.press(fyne.KeyEscape)
			assert.Nil(t, h.u.dialogs.prompt)
			assert.Equal(t, h.u.journal, h.u.current)
		})
	}
}

func TestReportDialogPrintFails(t *testing.T) {
	f := newFakeTill()
	f.printErr = errFakePrinter
	h := journalWithSale(t, f)
	h.press(fyne.KeyF7)
	h.settle()
	p := h.u.dialogs.prompt
	require.NotNil(t, p)
	h.press(fyne.KeyF5)
	h.settle()
	assert.Contains(t, p.message.Text, "The report did not print")
	assert.Empty(t, f.reports)
	require.NotNil(t, h.u.dialogs.prompt, "the dialog stays open")
}

// TestReportDialogWrapsItsNote: a report's note (the backups' line of a Z
// report runs to some 200 characters) is wrapped within the dialog, not
// cut at the window's edge.
func TestReportDialogWrapsItsNote(t *testing.T) {
	f := newFakeTill()
	f.note = "Day 2026-11-28 is closed with Z report no. 397; backup written to /var/lib/galla/backups/journal-2026-11-28.inc. " +
		"Backups kept: 32 files, 345.0 MB. The next base being built from the backups was discarded: a close-day stopped while it wrote it."
	h := journalWithSale(t, f)
	h.press(fyne.KeyF7)
	h.settle()
	p := h.u.dialogs.prompt
	require.NotNil(t, p)
	var lbl *widget.Label
	for _, o := range allObjects(p.pop.Content) {
		if l, ok := o.(*widget.Label); ok && strings.Contains(l.Text, "Backups kept") {
			lbl = l
		}
	}
	require.NotNil(t, lbl, "the report's text in the dialog")
	win := h.u.win.Canvas().Size().Width
	assert.Less(t, p.pop.Content.MinSize().Width, win, "the dialog fits the window")
	assert.Equal(t, fyne.TextWrapWord, lbl.Wrapping)
}

// allObjects returns o and every object drawn under it.
func allObjects(o fyne.CanvasObject) []fyne.CanvasObject {
	out := []fyne.CanvasObject{o}
	switch v := o.(type) {
	case *fyne.Container:
		for _, c := range v.Objects {
			out = append(out, allObjects(c)...)
		}
	case *container.Scroll:
		out = append(out, allObjects(v.Content)...)
	case fyne.Widget:
		for _, c := range test.WidgetRenderer(v).Objects() {
			out = append(out, allObjects(c)...)
		}
	}
	return out
}
