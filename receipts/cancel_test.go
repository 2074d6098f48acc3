package receipts

import (
	"bytes"
	"image/png"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func cancelledInvoice() Receipt {
	r := taxInvoice()
	r.Cancelled = &Cancelled{Reason: "customer left before delivery", When: "24 Nov 2026 18:40", By: "Meera"}
	return r
}

// TestCancelledMark: a cancelled invoice says CANCELLED in large type, with the
// reason, at its top and its end, on the thermal slip and on A4; an invoice
// not cancelled says nothing of it.
func TestCancelledMark(t *testing.T) {
	for name, rows := range map[string][]row{"thermal": layout(cancelledInvoice(), 48, "₹"), "a4": a4Layout(cancelledInvoice())} {
		t.Run(name, func(t *testing.T) {
			var big, reasons int
			for _, rw := range rows {
				if rw.big && strings.TrimSpace(rw.left+rw.right) == CancelledMark {
					big++
				}
				if strings.Contains(rw.left, "Reason: customer left before delivery") {
					reasons++
				}
			}
			assert.Equal(t, 2, big, "CANCELLED in large type at the top and the end")
			assert.Equal(t, 2, reasons, "the reason with each mark")
		})
	}
	assert.NotContains(t, a4Text(taxInvoice()), CancelledMark)
	assert.Contains(t, a4Text(cancelledInvoice()), "Cancelled 24 Nov 2026 18:40 by Meera")

	rd, err := NewRenderer()
	require.NoError(t, err)
	var b bytes.Buffer
	require.NoError(t, rd.PNG(&b, cancelledInvoice(), 80))
	img, err := png.Decode(bytes.NewReader(b.Bytes()))
	require.NoError(t, err)
	var plain bytes.Buffer
	require.NoError(t, rd.PNG(&plain, taxInvoice(), 80))
	plainImg, err := png.Decode(&plain)
	require.NoError(t, err)
	assert.Greater(t, img.Bounds().Dy(), plainImg.Bounds().Dy(), "the marks take room on the slip")
	var pdf bytes.Buffer
	require.NoError(t, rd.PDF(&pdf, cancelledInvoice()))
	assert.True(t, bytes.HasPrefix(pdf.Bytes(), []byte("%PDF")))
	if dir := os.Getenv("GALLA_CANCEL_SAMPLES"); dir != "" { // to look at by eye
		require.NoError(t, os.WriteFile(filepath.Join(dir, "cancelled.png"), b.Bytes(), 0o600))
		require.NoError(t, os.WriteFile(filepath.Join(dir, "cancelled.pdf"), pdf.Bytes(), 0o600))
	}
}
