package receipts

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestWithIRN(t *testing.T) {
	irn := strings.Repeat("0123456789abcdef", 4)
	r := Receipt{Title: "TAX INVOICE", Number: "T1/2627/000001", QR: "own", Footer: []string{"Thank you"}}
	got := r.WithIRN(IRN{IRN: irn, AckNo: "112610000000001", AckDate: time.Date(2026, 11, 22, 10, 5, 0, 0, time.UTC), QR: "eyJhbGciOiJSUzI1NiJ9.e30.sig"})
	assert.Equal(t, []string{"IRN " + irn[:32], irn[32:], "Ack No. 112610000000001", "Ack Date 22-11-2026 10:05", "Thank you"}, got.Footer)
	assert.Equal(t, "eyJhbGciOiJSUzI1NiJ9.e30.sig", got.QR, "the IRP's signed QR code replaces the document's own")
	assert.Equal(t, []string{"Thank you"}, r.Footer, "r is not changed")

	var b bytes.Buffer
	require.NoError(t, Text(&b, got, 32), "a 58 mm roll")
	assert.Contains(t, b.String(), irn[32:])

	p := r.WithIRNPending()
	assert.Equal(t, append(append([]string{}, IRNPending...), "Thank you"), p.Footer)
	assert.Equal(t, "own", p.QR)
}
