package pos

import (
	"bytes"
	"encoding/csv"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestCSVNamesEveryDocument: the accountant's CSV (Books.ExportCSV) gives each
// sale's document number and the credit notes issued against it that day, as
// the counter printed them; its receipt_no column alone was empty on every sale
// numbered in a series.
func TestCSVNamesEveryDocument(t *testing.T) {
	r, tl := newReturnTill(t)
	registerShop(t, tl)
	ctx := t.Context()
	res, err := sellCash(ctx, r.e, Sale{Lines: returnLines()}, 299500)
	require.NoError(t, err)
	inv := res.Order.Number("T1")
	require.Equal(t, "T1/2627/000001", inv)
	for range 2 {
		_, err = tl.Returns.Return(ctx, ReturnRequest{Document: inv, Items: []ReturnQty{{SKU: "ACC-CBL", Qty: 1}}, To: RefundToNote, Reason: "faulty", PIN: managerPIN})
		require.NoError(t, err)
	}

	var b bytes.Buffer
	require.NoError(t, tl.Books.ExportCSV(ctx, r.clock.Now(), &b))
	rows, err := csv.NewReader(&b).ReadAll()
	require.NoError(t, err)
	head := rows[0]
	col := func(name string) int {
		for i, h := range head {
			if h == name {
				return i
			}
		}
		t.Fatalf("the CSV has no %s column: %v", name, head)
		return -1
	}
	var found bool
	for _, row := range rows[1:] {
		if row[col("order_id")] != res.Order.ID {
			continue
		}
		found = true
		assert.Equal(t, "T1/2627/000001", row[col("document_no")])
		assert.Equal(t, "T1/C2627/00001 T1/C2627/00002", row[col("credit_notes")])
	}
	assert.True(t, found, "the sale is a row of its day: %v", rows)
}
