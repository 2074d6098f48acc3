package journal

import (
	"encoding/json"
	"errors"
	"fmt"
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
// INV-77 is the one of "inv 77" and "INV/77" too, keyed in the index by
// pos.InvoiceKey (schema 9), before and after a restart, at the till and
// asked directly; INV-78 is another. A verify finds the index as the events
// make it.
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
	assert.Equal(t, map[string]string{"acme\x00inv77": string(u64(first))}, bucketBytes(t, j, bucketStockInvoices), "keyed by pos.InvoiceKey")

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

// An entry of the invoices moved in the file to the key of another invoice
// is refused with a *MismatchError when a lookup of that invoice finds it.
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
		v := b.Get([]byte("acme\x00inv77"))
		require.NotNil(t, v, "the index keeps the invoice under pos.InvoiceKey")
		require.NoError(t, b.Delete([]byte("acme\x00inv77")))
		return b.Put([]byte("acme\x00inv78"), v)
	})
	j, _ = stockTill(t, path, clk, nil)
	defer j.Close()
	_, err = j.Stock.InvoiceReceived(ctx, "Acme", "INV 78")
	var me *MismatchError
	require.True(t, errors.As(err, &me), "%v", err)
	assert.Equal(t, "stock_invoices", me.Bucket)
}

// Two deliveries of one invoice by pos.InvoiceKey, INV-77 and then INV/77 (as
// a build before that rule took them, two invoices), keyed apart in the index
// of schema 8, fall on one key at the migration: the entry names the first
// delivery, as a replay of the events gives it (deriveStockDay keeps the
// first entry), the refusal of "inv 77" names INV-77, and the journal
// verifies.
func TestInvoiceKeysUpgradeCollision(t *testing.T) {
	path := filepath.Join(t.TempDir(), "journal.db")
	ctx := t.Context()
	clk := testclock.New(time.Date(2026, 11, 27, 10, 0, 0, 0, time.Local))
	day := pos.ToDay(clk.Now())
	j, tl := stockTill(t, path, clk, nil)
	_, err := tl.Stock.ReceiveItems(ctx, "Acme", "INV-77", day, "PH-A15:1@2000000", []string{imeiN(1)}, stockManager)
	require.NoError(t, err)
	first, err := j.Log.LastSeq(ctx)
	require.NoError(t, err)
	ev, err := j.Log.Event(ctx, first)
	require.NoError(t, err)
	var d pos.Delivery
	require.NoError(t, json.Unmarshal(ev.Data, &d))
	d.Invoice, d.Lines[0].Units = "INV/77", []pos.Unit{{IMEI: imeiN(2)}}
	data, err := json.Marshal(d)
	require.NoError(t, err)
	second, err := j.Log.Append(ctx, pos.Event{V: ev.V, Time: clk.Now(), Kind: ev.Kind, Day: ev.Day, Staff: ev.Staff, Data: data})
	require.NoError(t, err)
	seq, err := j.Stock.InvoiceReceived(ctx, "Acme", "INV/77")
	require.NoError(t, err)
	assert.Equal(t, first, seq, "the second delivery of the invoice leaves the entry of the first")
	var evs []pos.Event
	require.NoError(t, j.Log.EventsFrom(ctx, 1, func(ev pos.Event) error { evs = append(evs, ev); return nil }))
	require.NoError(t, j.Close())

	asIndexKeyed(t, path, evs, 8)
	require.Equal(t, map[string]string{"acme\x00inv-77": string(u64(first)), "acme\x00inv/77": string(u64(second.Seq))},
		rawBucket(t, path, bucketStockInvoices), "two entries in the index of schema 8")
	_, err = VerifyFileWith(ctx, path, Options{ChainKey: testKey})
	require.NoError(t, err, "the file of schema 8 verifies as it was written")

	j, tl = stockTill(t, path, clk, nil)
	migrated := bucketBytes(t, j, bucketStockInvoices)
	assert.Equal(t, map[string]string{"acme\x00inv77": string(u64(first))}, migrated, "one entry, the first delivery")
	require.NoError(t, j.Log.Rebuild(ctx))
	assert.Equal(t, migrated, bucketBytes(t, j, bucketStockInvoices), "the migration gives what a replay gives")
	_, err = tl.Stock.ReceiveItems(ctx, "Acme", "inv 77", day, "PH-A15:1@2000000", []string{imeiN(3)}, stockManager)
	require.ErrorIs(t, err, pos.ErrInvoiceReceived)
	assert.Contains(t, pos.Sentence(err), fmt.Sprintf("written as invoice INV-77 of Acme on %s (journal event %d)", day, first))
	require.NoError(t, j.Close())
	rep, err := VerifyFileWith(ctx, path, Options{ChainKey: testKey})
	require.NoError(t, err)
	assert.True(t, rep.Verified, "galla journal verify of the migrated journal")
}
