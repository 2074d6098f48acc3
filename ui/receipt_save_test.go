package ui

import (
	"bytes"
	"image/png"
	"os"
	"path/filepath"
	"testing"

	"fyne.io/fyne/v2"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestReceiptSavePNG(t *testing.T) {
	f := newFakeTill()
	h := newHarness(t, f)
	dir := filepath.Join(t.TempDir(), "receipts")
	h.u.opts.ReceiptDir = dir
	h.signIn("Ravi", "1234")
	h.enter("CABLE")
	h.press(fyne.KeyF7)
	h.enter("500")
	h.settle()
	r := h.u.receipt
	require.Equal(t, r, h.u.current)
	require.False(t, r.save.btn.Disabled(), "Save PNG is enabled once the preview is there")

	h.ctrl(fyne.KeyS)
	h.settle()
	path := filepath.Join(dir, "receipt-G-0001.png")
	assert.Equal(t, "Saved as "+path, r.message.Text)
	b, err := os.ReadFile(path)
	require.NoError(t, err)
	_, err = png.Decode(bytes.NewReader(b))
	assert.NoError(t, err, "the saved file is a PNG")
	assert.Empty(t, f.printed, "saving is not printing")
}

func TestReceiptSavePNGFails(t *testing.T) {
	h := newHarness(t, newFakeTill())
	blocker := filepath.Join(t.TempDir(), "not-a-folder")
	require.NoError(t, os.WriteFile(blocker, []byte("x"), 0o600))
	h.u.opts.ReceiptDir = blocker
	h.signIn("Ravi", "1234")
	h.enter("CABLE")
	h.press(fyne.KeyF7)
	h.enter("500")
	h.settle()
	h.ctrl(fyne.KeyS)
	h.settle()
	assert.Contains(t, h.u.receipt.message.Text, "could not be saved in "+blocker)
}

func TestReceiptSaveOffWithoutFolder(t *testing.T) {
	h := newHarness(t, newFakeTill())
	h.signIn("Ravi", "1234")
	h.enter("CABLE")
	h.press(fyne.KeyF7)
	h.enter("500")
	h.settle()
	assert.True(t, h.u.receipt.save.btn.Disabled())
}
