package journal

import (
	"bytes"
	"context"
	"errors"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	bolt "go.etcd.io/bbolt"

	"galla/pos"
)

// sellPhone sells one phone with imei for cash at tl and returns the sale's id.
func sellPhone(ctx context.Context, tl *pos.Till, imei string) (string, error) {
	out, err := tl.Checkout.Pay(ctx, pos.PayRequest{Lines: []pos.CartLine{phoneLine()}, Tender: pos.TenderCash, Cashier: "001",
		IMEIs: []pos.UnitIMEI{{ProductCode: "PH-A15", IMEI: imei}}}, nil)
	if err := paid(out, err); err != nil {
		return "", err
	}
	return out.SaleID(), nil
}

// imeiRecord reads the record of imei from j.
func imeiRecord(t *testing.T, j *Journal, imei string) pos.IMEIRecord {
	t.Helper()
	r, err := j.IMEIs.IMEI(t.Context(), imei)
	require.NoError(t, err)
	return r
}

// bucketBytes copies every key and value of bucket.
func bucketBytes(t *testing.T, j *Journal, bucket []byte) map[string]string {
	t.Helper()
	out := map[string]string{}
	require.NoError(t, j.core.view(func(tx *bolt.Tx) error {
		return tx.Bucket(bucket).ForEach(func(k, v []byte) error {
			out[string(k)] = string(v)
			return nil
		})
	}))
	return out
}

// The record of an IMEI is what the till decides by: a phone sold is refused
// again, a return frees it and it sells again, a manager's override of stock
// does not lift the refusal, and all of it holds after a restart and after the
// derived records are rebuilt from the events; the whole check finds the
// records equal to a replay.
func TestIMEIRecords(t *testing.T) {
	path := filepath.Join(t.TempDir(), "journal.db")
	ctx := t.Context()
	a, b := imeiN(1), imeiN(2)

	j, err := Open(path, Options{ChainKey: testKey})
	require.NoError(t, err)
	_, err = pos.NewRoster(j.Staff).WithIterations(pos.MinPINIterations).AddStaff(ctx, "Asha", pos.RoleManager, "246813")
	require.NoError(t, err)
	require.NoError(t, j.Close())

	j, tl := openTill(t, path)
	first, err := sellPhone(ctx, tl, a)
	require.NoError(t, err)
	r := imeiRecord(t, j, a)
	require.NotEmpty(t, r.Orders)
	assert.Equal(t, first, r.Orders[0], "the sale, then its tender's order")
	assert.Empty(t, r.Freed)
	assert.Equal(t, pos.IMEIRecord{}, imeiRecord(t, j, b), "never sold: no record")

	// Sold twice: refused as it is scanned and at payment, naming the sale.
	_, err = sellPhone(ctx, tl, a)
	var sold *pos.IMEISoldError
	require.True(t, errors.As(err, &sold), "%v", err)
	assert.Equal(t, first, sold.OrderID)
	assert.ErrorIs(t, tl.IMEIs.CheckIMEIFree(ctx, a), pos.ErrIMEISold)

	// A manager allows the unit into a sale (stock's override): still sold.
	_, err = tl.Stock.AllowIMEIs(ctx, []string{a}, "246813", "001")
	require.NoError(t, err)
	assert.ErrorIs(t, tl.IMEIs.CheckIMEIFree(ctx, a), pos.ErrIMEISold, "after a manager's override of stock")
	_, err = sellPhone(ctx, tl, a)
	assert.ErrorIs(t, err, pos.ErrIMEISold, "sold after a manager's override of stock")

	// Returned: free, sold again; the search finds both sales.
	require.NoError(t, tl.IMEIs.ReturnIMEIs(ctx, first, "001", []string{a}))
	r = imeiRecord(t, j, a)
	assert.Equal(t, first, r.Freed, "freed by the return")
	require.NoError(t, tl.IMEIs.CheckIMEIFree(ctx, a))
	second, err := sellPhone(ctx, tl, a)
	require.NoError(t, err)
	r2 := imeiRecord(t, j, a)
	assert.Equal(t, r.Orders, r2.Orders[:len(r.Orders)], "the orders before kept, oldest first")
	assert.Contains(t, r2.Orders[len(r.Orders):], second)
	assert.Equal(t, first, r2.Freed)
	found, err := tl.IMEIs.FindIMEI(ctx, a)
	require.NoError(t, err)
	require.Len(t, found, 2)
	assert.Equal(t, []string{second, first}, []string{found[0].OrderID, found[1].OrderID}, "newest first")
	third, err := sellPhone(ctx, tl, b)
	require.NoError(t, err)
	require.NoError(t, j.Close())

	// After a restart: the same decisions, from the records.
	j, tl = openTill(t, path)
	_, err = sellPhone(ctx, tl, a)
	require.True(t, errors.As(err, &sold), "%v", err)
	assert.Equal(t, second, sold.OrderID, "after a restart")
	require.True(t, errors.As(tl.IMEIs.CheckIMEIFree(ctx, b), &sold))
	assert.Equal(t, third, sold.OrderID, "after a restart")

	// After a rebuild: the records are the same bytes, proofs included.
	records, proofs := bucketBytes(t, j, bucketIMEIs), bucketBytes(t, j, bucketProofs)
	require.Len(t, records, 2)
	require.NoError(t, j.Log.Rebuild(ctx))
	assert.Equal(t, records, bucketBytes(t, j, bucketIMEIs), "rebuilt from the events")
	assert.Equal(t, proofs, bucketBytes(t, j, bucketProofs))
	assert.ErrorIs(t, tl.IMEIs.CheckIMEIFree(ctx, a), pos.ErrIMEISold, "after a rebuild")
	require.NoError(t, tl.IMEIs.CheckIMEIFree(ctx, imeiN(3)))
	require.NoError(t, j.Close())

	rep, err := VerifyFileWith(ctx, path, Options{ChainKey: testKey})
	require.NoError(t, err)
	assert.True(t, rep.Verified, "the records equal a replay of the events")
}

// A record of an IMEI edited in the file, byte by byte, is never believed: the
// scan and the sale that would read it are refused with a *MismatchError
// naming it, the journal's verification then says so, nothing is appended on
// it, and the whole check finds it. So is a record deleted while its proof
// stays, and a record put in with no proof.
func TestEditedIMEIRecordIsRefused(t *testing.T) {
	ctx := t.Context()
	a, b := imeiN(11), imeiN(12)
	tests := []struct {
		name string
		edit func(t *testing.T, path, sale string)
		imei string
	}{
		{"freed by a return that never was", func(t *testing.T, path, sale string) {
			editBytes(t, path, bucketIMEIs, []byte(a), `"]}`, `"],"freed":"`+sale+`"}`)
		}, a},
		{"the sale taken out", func(t *testing.T, path, sale string) {
			editBytes(t, path, bucketIMEIs, []byte(a), sale, "G-0")
		}, a},
		{"deleted", func(t *testing.T, path, _ string) {
			rawUpdate(t, path, func(tx *bolt.Tx) error { return tx.Bucket(bucketIMEIs).Delete([]byte(a)) })
		}, a},
		{"put in without a proof", func(t *testing.T, path, _ string) {
			rawUpdate(t, path, func(tx *bolt.Tx) error {
				return tx.Bucket(bucketIMEIs).Put([]byte(b), []byte(`{"orders":["X"],"freed":"X"}`))
			})
		}, b},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "journal.db")
			j, tl := openTill(t, path)
			sale, err := sellPhone(ctx, tl, a)
			require.NoError(t, err)
			require.NoError(t, j.Close())
			tc.edit(t, path, sale)

			j, tl = openTill(t, path)
			defer j.Close()
			last, err := j.Log.LastSeq(ctx)
			require.NoError(t, err)
			err = tl.IMEIs.CheckIMEIFree(ctx, tc.imei)
			assert.ErrorIs(t, err, ErrDerivedMismatch, "the scan")
			var me *MismatchError
			require.True(t, errors.As(err, &me), "%v", err)
			assert.Equal(t, "imeis", me.Bucket)
			assert.Equal(t, tc.imei, me.Key)
			_, err = sellPhone(ctx, tl, tc.imei)
			assert.ErrorIs(t, err, ErrDerivedMismatch, "the sale")
			done, verr := j.Log.Verified()
			assert.True(t, done)
			assert.ErrorIs(t, verr, ErrDerivedMismatch, "the journal's verification says so")
			// Appending on the edited record is refused too.
			_, err = j.Log.Append(ctx, pos.Event{Kind: pos.EvReturnIMEIs, OrderID: sale, Day: pos.ToDay(j.core.now()), Time: j.core.now(), Staff: "001", IMEIs: []string{tc.imei}})
			if tc.name != "deleted" {
				assert.ErrorIs(t, err, ErrDerivedMismatch, "an append built on it")
				after, err := j.Log.LastSeq(ctx)
				require.NoError(t, err)
				assert.Equal(t, last, after, "nothing appended")
			}
			require.NoError(t, j.Close())

			_, err = VerifyFileWith(ctx, path, Options{ChainKey: testKey})
			assert.ErrorIs(t, err, ErrDerivedMismatch, "galla journal verify")
		})
	}
}

// A journal of schema 5, whose phones were sold before the records of IMEIs,
// is given them at its first Open by this build (and the stock days): the
// buckets are rebuilt from the events with their proofs, and the till refuses
// the phones sold before.
func TestIMEIRecordsUpgrade(t *testing.T) {
	path := filepath.Join(t.TempDir(), "journal.db")
	ctx := t.Context()
	a := imeiN(21)
	j, tl := openTill(t, path)
	sale, err := sellPhone(ctx, tl, a)
	require.NoError(t, err)
	records, proofs := bucketBytes(t, j, bucketIMEIs), bucketBytes(t, j, bucketProofs)
	require.NoError(t, j.Close())
	// As schema 5 left it: no records, no proofs of them, no stock days.
	rawUpdate(t, path, func(tx *bolt.Tx) error {
		require.NoError(t, tx.DeleteBucket(bucketIMEIs))
		require.NoError(t, tx.DeleteBucket(bucketStockDays))
		pr := tx.Bucket(bucketProofs)
		prefix := append(bytes.Clone(bucketIMEIs), sep)
		c := pr.Cursor()
		for k, _ := c.Seek(prefix); k != nil && bytes.HasPrefix(k, prefix); k, _ = c.Seek(prefix) {
			require.NoError(t, c.Delete())
		}
		return asSchema(tx, 5)
	})
	// The whole check of a file of schema 5 (a backup) replays it as written.
	rep, err := VerifyFileWith(ctx, path, Options{ChainKey: testKey})
	require.NoError(t, err)
	assert.True(t, rep.Verified, "a file of schema 5 verifies as it is")

	j, tl = openTill(t, path)
	defer j.Close()
	assert.Equal(t, records, bucketBytes(t, j, bucketIMEIs), "rebuilt at the upgrade")
	assert.Equal(t, len(proofs), len(bucketBytes(t, j, bucketProofs)), "with their proofs")
	var sold *pos.IMEISoldError
	require.True(t, errors.As(tl.IMEIs.CheckIMEIFree(ctx, a), &sold))
	assert.Equal(t, sale, sold.OrderID)
}
