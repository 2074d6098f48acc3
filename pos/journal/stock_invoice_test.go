package journal

import (
	"errors"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	bolt "go.etcd.io/bbolt"

	"galla/internal/testclock"
	"galla/pos"
)

// The journal's index of invoices answers by pos.InvoiceKey: the delivery of
// INV-77 is the one of "inv 77" and "INV/77" too, keyed in the index as it
// was written, before and after a restart, at the till and asked directly;
// INV-78 is another. A verify finds the index as the events make it.
func TestInvoiceReceivedIgnoresPunctuation(t *testing.T) {
	path := filepath.Join(t.TempDir(), "journal.db")
	ctx := t.Context()
	clk := testclock.New(time.Now().Add(time.Hour))
	j, tl := stockTill(t, path, clk, nil)
	day := pos.ToDay(clk.Now())
	_, err := tl.Stock.ReceiveItems(ctx, "Acme", "INV-77", day, "PH-A15:1@2000000", []string{imeiN(1)}, stockManager)
	require.NoError(t, err)
	first, err := j.Log.LastSeq(ctx)
	require.NoError(t, err)

	for _, restarted := range []bool{false, true} {
		if restarted {
			require.NoError(t, j.Close())
			j, tl = stockTill(t, path, clk, nil)
		}
		for i, inv := range []string{"inv 77", "INV/77", "Inv.77"} {
			seq, err := j.Stock.InvoiceReceived(ctx, "ACME", inv)
			require.NoError(t, err, inv)
			assert.Equal(t, first, seq, "InvoiceReceived(ACME, %q) after a restart %v", inv, restarted)
			_, err = tl.Stock.ReceiveItems(ctx, "Acme", inv, day, "PH-A15:1@2000000", []string{imeiN(10 + i)}, stockManager)
			require.ErrorIs(t, err, pos.ErrInvoiceReceived, inv)
			assert.Contains(t, pos.Sentence(err), "Invoice "+inv+" of Acme was received already, written as invoice INV-77 of Acme", inv)
		}
		seq, err := j.Stock.InvoiceReceived(ctx, "Acme", "INV-78")
		require.NoError(t, err)
		assert.Zero(t, seq, "INV-78 was not received")
	}
	_, err = tl.Stock.ReceiveItems(ctx, "Acme", "INV-78", day, "PH-A15:1@2000000", []string{imeiN(20)}, stockManager)
	require.NoError(t, err, "another invoice")
	last, err := j.Log.LastSeq(ctx)
	require.NoError(t, err)
	seq, err := j.Stock.InvoiceReceived(ctx, "acme", "inv/78")
	require.NoError(t, err)
	assert.Equal(t, last, seq)
	require.NoError(t, j.Close())
	_, err = VerifyFileWith(ctx, path, Options{ChainKey: testKey})
	require.NoError(t, err, "the index is the one the events make")
}

// An entry of the invoices moved in the file to the key of another spelling
// is refused with a *MismatchError when a lookup finds it among the keys.
func TestMovedInvoiceEntryIsRefused(t *testing.T) {
	path := filepath.Join(t.TempDir(), "journal.db")
	ctx := t.Context()
	clk := testclock.New(time.Now().Add(time.Hour))
	j, tl := stockTill(t, path, clk, nil)
	_, err := tl.Stock.ReceiveItems(ctx, "Acme", "INV-77", pos.ToDay(clk.Now()), "PH-A15:1@2000000", []string{imeiN(1)}, stockManager)
	require.NoError(t, err)
	require.NoError(t, j.Close())

	rawUpdate(t, path, func(tx *bolt.Tx) error {
		b := tx.Bucket(bucketStockInvoices)
		v := b.Get([]byte("acme\x00inv-77"))
		require.NotNil(t, v, "the index keeps the invoice as it was written")
		require.NoError(t, b.Delete([]byte("acme\x00inv-77")))
		return b.Put([]byte("acme\x00inv.77"), v)
	})
	j, _ = stockTill(t, path, clk, nil)
	defer j.Close()
	_, err = j.Stock.InvoiceReceived(ctx, "Acme", "INV 77")
	var me *MismatchError
	require.True(t, errors.As(err, &me), "%v", err)
	assert.Equal(t, "stock_invoices", me.Bucket)
}
