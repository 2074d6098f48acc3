package receipts

import (
	"bytes"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestTestPageIsNoInvoice: the printer's test page says what it is and what
// the printer prints, and nothing a document says: no TAX INVOICE, no total,
// no signature line.
func TestTestPageIsNoInvoice(t *testing.T) {
	r := Receipt{Kind: KindTestPage, Shop: Shop{Name: "Sharma Mobiles", GSTIN: "27AAPFU0939F1ZV"}, Terminal: "T1",
		Time: time.Date(2026, 11, 27, 10, 0, 0, 0, time.UTC), Footer: []string{"Test page: the printer works."}}
	for _, cols := range []int{32, 48} {
		var b bytes.Buffer
		require.NoError(t, Text(&b, r, cols))
		out := b.String()
		assert.Contains(t, out, "PRINTER TEST")
		assert.Contains(t, out, "Test page: the printer works.")
		assert.Contains(t, out, "0123456789")
		for _, not := range []string{"TAX INVOICE", "TOTAL", "Authorised signatory", "Invoice No.", "0.00\n"} {
			assert.NotContains(t, out, not, "%d columns", cols)
		}
	}
}
