package journal

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	bolt "go.etcd.io/bbolt"

	"galla/internal/testclock"
	"galla/pos"
)

// stockCatalog is the catalog of the stock tests: the phone sellPhone sells
// and a cable.
const stockCatalog = `[
 {"sku":"PH-A15","name":"Galaxy A15","brand":"Samsung","product_code":"PH-A15","price":"15999.00","gst_rate":18,"hsn":"8517","serialised":true},
 {"sku":"CBL","name":"Cable","price":"499.00","gst_rate":18,"hsn":"8544"}
]`

// stockManager is the PIN of the manager stockTill adds.
const stockManager = "246813"

// stockTill opens the journal at path (adding its manager when it has
// none) and a till on it, selling from stockCatalog at clk's time, reads
// counted into read when it is not nil.
func stockTill(t *testing.T, path string, clk pos.Clock, read *reads) (*Journal, *pos.Till) {
	t.Helper()
	j, err := Open(path, Options{ChainKey: testKey})
	require.NoError(t, err)
	staff, err := j.Staff.List(t.Context())
	require.NoError(t, err)
	if len(staff) == 0 {
		_, err = pos.NewRoster(j.Staff).WithIterations(pos.MinPINIterations).AddStaff(t.Context(), "Asha", pos.RoleManager, stockManager)
		require.NoError(t, err)
	}
	var port pos.Journal = j.Port()
	if read != nil {
		port = countingPort{j.Port(), read}
	}
	e, err := pos.New(pos.Config{Journal: port, Clock: clk})
	require.NoError(t, err)
	tl, err := pos.NewTill(t.Context(), pos.TillConfig{Engine: e, SampleCatalog: []byte(stockCatalog)})
	require.NoError(t, err)
	return j, tl
}

// sealedStock makes the stock book of tl seal its snapshot (an event two
// hours on: a cable sold) and returns the snapshot's bytes.
func sealedStock(t *testing.T, j *Journal, tl *pos.Till, clk *testclock.Clock) []byte {
	t.Helper()
	ctx := t.Context()
	clk.Advance(2 * time.Hour)
	_, err := tl.Checkout.Pay(ctx, pos.PayRequest{Lines: []pos.CartLine{cableLine()}, Tender: pos.TenderCash, Cashier: "001"}, nil)
	require.NoError(t, err)
	_, err = tl.Stock.List(ctx, "", 0, false)
	require.NoError(t, err)
	last, err := j.Log.LastSeq(ctx)
	require.NoError(t, err)
	sn, ok, err := j.Log.Snapshot(ctx, "pos.stock.4")
	require.NoError(t, err)
	require.True(t, ok)
	require.Equal(t, last, sn.Seq, "sealed at the last event")
	return sn.Data
}

// The stock book's snapshot holds what is on hand, not what the counter ever
// received: a thousand phones received in fifty deliveries and sold leave a
// snapshot the size it was after the first hundred, naming none of them and
// no invoice. A phone sold and returned comes back on the shelf with the cost,
// supplier, invoice and day of its receipt, read back through the record of
// its IMEI; a delivery received twice is still refused, after a restart too;
// a unit's history reads its own events only.
func TestStockSnapshotBoundedByReceipts(t *testing.T) {
	path := filepath.Join(t.TempDir(), "journal.db")
	ctx := t.Context()
	// After the manager's record, which the journal times by the system's
	// clock: the snapshot is sealed by the till's time since the last seal.
	clk := testclock.New(time.Now().Add(time.Hour))
	j, tl := stockTill(t, path, clk, nil)

	var (
		sizes    []int
		snap     []byte
		sales    = map[string]string{} // IMEI → its sale
		received = map[string]time.Time{}
	)
	const perDelivery = 20
	for k := range 1000 / perDelivery {
		var imeis []string
		for i := range perDelivery {
			imeis = append(imeis, imeiN(k*perDelivery+i+1))
		}
		clk.Advance(time.Minute)
		_, err := tl.Stock.ReceiveItems(ctx, "Sai Distributors", fmt.Sprintf("SD/%d", k+1), pos.ToDay(clk.Now()),
			fmt.Sprintf("PH-A15:%d@%d", perDelivery, 1_200_000+k), imeis, stockManager)
		require.NoError(t, err)
		received[imeis[0]] = clk.Now()
		for _, m := range imeis {
			id, err := sellPhone(ctx, tl, m)
			require.NoError(t, err)
			sales[m] = id
		}
		if n := (k + 1) * perDelivery; n == 100 || n == 1000 {
			snap = sealedStock(t, j, tl, clk)
			sizes = append(sizes, len(snap))
		}
	}
	t.Logf("stock snapshot: %d bytes after 100 phones received and sold, %d after 1000", sizes[0], sizes[1])
	assert.LessOrEqual(t, sizes[1], sizes[0]+8, "the snapshot does not grow with the units received and sold")
	for _, m := range []string{imeiN(1), imeiN(500), imeiN(1000)} {
		assert.NotContains(t, string(snap), m, "a unit sold leaves the snapshot")
	}
	assert.NotContains(t, string(snap), "SD/", "no invoice in the snapshot")

	// A phone of the first delivery, sold, is returned: on the shelf again
	// with its receipt's cost, supplier, invoice and day.
	back := imeiN(1)
	_, err := tl.Returns.Return(ctx, pos.ReturnRequest{Document: sales[back], Items: []pos.ReturnQty{{SKU: "PH-A15", Qty: 1, IMEIs: []string{back}}},
		To: pos.RefundToCash, Reason: "changed mind", PIN: stockManager})
	require.NoError(t, err)
	want := func(tl *pos.Till, what string) {
		t.Helper()
		u, ok, err := tl.Stock.Unit(ctx, back)
		require.NoError(t, err)
		require.True(t, ok, what)
		assert.Equal(t, pos.UnitInStock, u.State, what)
		assert.Equal(t, pos.Paise(1_200_000), u.Cost, what)
		assert.Equal(t, "Sai Distributors", u.Supplier, what)
		assert.Equal(t, "SD/1", u.Invoice, what)
		assert.True(t, received[back].Equal(u.Received), "%s: received %v, want %v", what, u.Received, received[back])
		rows, err := tl.Stock.List(ctx, "PH-A15", 0, true)
		require.NoError(t, err)
		require.Len(t, rows, 1, what)
		assert.Equal(t, int64(1), rows[0].OnHand, what)
		assert.Equal(t, []string{back}, rows[0].IMEIs, what)
		assert.Equal(t, pos.Paise(1_200_000), rows[0].Cost, what)
	}
	want(tl, "at the till that took it back")

	// A unit sold is told as sold, from its own events.
	u, ok, err := tl.Stock.Unit(ctx, imeiN(500))
	require.NoError(t, err)
	require.True(t, ok)
	assert.Equal(t, pos.UnitSold, u.State)
	assert.Equal(t, sales[imeiN(500)], u.Order)
	assert.Equal(t, "SD/25", u.Invoice)

	// The same delivery again, named otherwise in case and spacing: refused.
	_, err = tl.Stock.ReceiveItems(ctx, "sai  distributors", "sd/1", pos.ToDay(clk.Now()), "PH-A15:1", []string{imeiN(5000)}, stockManager)
	require.ErrorIs(t, err, pos.ErrInvoiceReceived)
	assert.Contains(t, pos.Sentence(err), "journal event")
	require.NoError(t, j.Close())

	// After a restart, from the snapshot and the events since.
	read := &reads{}
	j, tl = stockTill(t, path, clk, read)
	defer j.Close()
	want(tl, "after a restart")
	_, err = tl.Stock.ReceiveItems(ctx, "Sai Distributors", "SD/50", pos.ToDay(clk.Now()), "PH-A15:1", []string{imeiN(5000)}, stockManager)
	require.ErrorIs(t, err, pos.ErrInvoiceReceived, "after a restart")

	// The unit's history reads the events its records name, not the journal.
	*read = reads{}
	h, ok, err := tl.Stock.History(ctx, back)
	require.NoError(t, err)
	require.True(t, ok)
	var what []string
	for _, e := range h.History {
		what = append(what, e.What)
	}
	require.Len(t, what, 3, "%v", what)
	assert.True(t, strings.HasPrefix(what[0], "received from Sai Distributors on invoice SD/1 "), what[0])
	assert.Equal(t, "sold in sale "+sales[back], what[1])
	assert.Equal(t, "back in stock from sale "+sales[back]+" (returned, or its invoice cancelled)", what[2])
	last, err := j.Log.LastSeq(ctx)
	require.NoError(t, err)
	t.Logf("history of a phone returned: %d events read from the log, of %d", read.events, last)
	assert.LessOrEqual(t, read.events, 2, "events read from the log by the history (of %d)", last)
}

// A journal of schema 6, whose records of IMEIs do not name their stock
// events and which has no stock_invoices, is given them at its first Open by
// this build: every derived bucket is rebuilt from the events, and the till
// then reads a unit sold back from its receipt and refuses a delivery
// received before. The whole check of the file of schema 6 (a backup)
// replays it as it was written.
func TestStockRecordsUpgrade(t *testing.T) {
	path := filepath.Join(t.TempDir(), "journal.db")
	ctx := t.Context()
	clk := testclock.New(time.Date(2026, 11, 20, 10, 0, 0, 0, time.Local))
	j, tl := stockTill(t, path, clk, nil)
	a, b := imeiN(1), imeiN(2)
	_, err := tl.Stock.ReceiveItems(ctx, "Sai Distributors", "SD/1", pos.ToDay(clk.Now()), "PH-A15:2@1300000", []string{a, b}, stockManager)
	require.NoError(t, err)
	sale, err := sellPhone(ctx, tl, a)
	require.NoError(t, err)
	records, proofs, invoices := bucketBytes(t, j, bucketIMEIs), bucketBytes(t, j, bucketProofs), bucketBytes(t, j, bucketStockInvoices)
	require.Len(t, invoices, 1)
	assert.NotEmpty(t, imeiRecord(t, j, b).Stock, "a unit received is named by its record")
	var evs []pos.Event
	require.NoError(t, j.Log.EventsFrom(ctx, 1, func(ev pos.Event) error { evs = append(evs, ev); return nil }))
	require.NoError(t, j.Close())

	// As schema 6 left it: the records of IMEIs sold and freed only, no
	// stock_invoices.
	rawUpdate(t, path, func(tx *bolt.Tx) error {
		require.NoError(t, tx.DeleteBucket(bucketStockInvoices))
		require.NoError(t, tx.DeleteBucket(bucketIMEIs))
		_, err := tx.CreateBucket(bucketIMEIs)
		require.NoError(t, err)
		pr := tx.Bucket(bucketProofs)
		prefix := append([]byte(string(bucketIMEIs)), sep)
		c := pr.Cursor()
		for k, _ := c.Seek(prefix); k != nil && strings.HasPrefix(string(k), string(prefix)); k, _ = c.Seek(prefix) {
			require.NoError(t, c.Delete())
		}
		for i := range evs {
			ev := evs[i]
			ev.Hash = ""
			require.NoError(t, deriveIMEIs(tx, &ev, newProver(testKey)))
		}
		return asSchema(tx, 6)
	})
	old := map[string]string{}
	db, err := bolt.Open(path, 0o600, &bolt.Options{ReadOnly: true, Timeout: time.Second})
	require.NoError(t, err)
	require.NoError(t, db.View(func(tx *bolt.Tx) error {
		return tx.Bucket(bucketIMEIs).ForEach(func(k, v []byte) error { old[string(k)] = string(v); return nil })
	}))
	require.NoError(t, db.Close())
	require.Len(t, old, 1, "schema 6 kept a record of the phone sold only")
	assert.NotContains(t, old[a], `"stock"`)

	rep, err := VerifyFileWith(ctx, path, Options{ChainKey: testKey})
	require.NoError(t, err)
	assert.True(t, rep.Verified, "a file of schema 6 verifies as it was written")

	j, tl = stockTill(t, path, clk, nil)
	defer j.Close()
	assert.Equal(t, records, bucketBytes(t, j, bucketIMEIs), "the records rebuilt at the upgrade, their stock events with them")
	assert.Equal(t, invoices, bucketBytes(t, j, bucketStockInvoices))
	assert.Equal(t, len(proofs), len(bucketBytes(t, j, bucketProofs)), "with their proofs")
	_, err = tl.Stock.ReceiveItems(ctx, "Sai Distributors", "SD/1", pos.ToDay(clk.Now()), "PH-A15:1", []string{imeiN(3)}, stockManager)
	require.ErrorIs(t, err, pos.ErrInvoiceReceived, "the delivery received before the upgrade")
	_, err = tl.Returns.Return(ctx, pos.ReturnRequest{Document: sale, Items: []pos.ReturnQty{{SKU: "PH-A15", Qty: 1, IMEIs: []string{a}}},
		To: pos.RefundToCash, Reason: "changed mind", PIN: stockManager})
	require.NoError(t, err)
	u, ok, err := tl.Stock.Unit(ctx, a)
	require.NoError(t, err)
	require.True(t, ok)
	assert.Equal(t, pos.UnitInStock, u.State)
	assert.Equal(t, pos.Paise(1_300_000), u.Cost, "its receipt read back through its record")
	assert.Equal(t, "SD/1", u.Invoice)
}

// asIndexKeyed gives the journal at path the stock_invoices bucket of the
// events evs as schemas 7 and 8 kept it (indexKey, the last delivery of a key
// in its entry), and sets schema.
func asIndexKeyed(t *testing.T, path string, evs []pos.Event, schema uint64) {
	t.Helper()
	rawUpdate(t, path, func(tx *bolt.Tx) error {
		require.NoError(t, tx.DeleteBucket(bucketStockInvoices))
		b, err := tx.CreateBucket(bucketStockInvoices)
		require.NoError(t, err)
		for i := range evs {
			require.NoError(t, deriveIndexKey(b, &evs[i]))
		}
		return asSchema(tx, schema)
	})
}

// rawBucket reads the bucket of the closed journal at path.
func rawBucket(t *testing.T, path string, bucket []byte) map[string]string {
	t.Helper()
	out := map[string]string{}
	db, err := bolt.Open(path, 0o600, &bolt.Options{ReadOnly: true, Timeout: time.Second})
	require.NoError(t, err)
	defer db.Close()
	require.NoError(t, db.View(func(tx *bolt.Tx) error {
		return tx.Bucket(bucket).ForEach(func(k, v []byte) error { out[string(k)] = string(v); return nil })
	}))
	return out
}

// A journal of schema 8, or of schema 7 through 8, whose index keeps the
// deliveries INV-77 and "inv 78" under their names without regard to case
// or spacing (indexKey), verifies as it was written (a backup: its index
// replayed under that key, an entry moved in it found), and is given the
// index keyed by pos.InvoiceKey at its first Open by this build: "INV/77" is
// then the delivery of INV-77, found by one lookup of its key and refused at
// the till naming it, INV-79 is received, and the journal verifies.
func TestInvoiceKeysUpgrade(t *testing.T) {
	for _, from := range []uint64{8, 7} {
		t.Run(fmt.Sprintf("schema %d", from), func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "journal.db")
			ctx := t.Context()
			clk := testclock.New(time.Date(2026, 11, 27, 10, 0, 0, 0, time.Local))
			day := pos.ToDay(clk.Now())
			j, tl := stockTill(t, path, clk, nil)
			_, err := tl.Stock.ReceiveItems(ctx, "Acme", "INV-77", day, "PH-A15:1@2000000", []string{imeiN(1)}, stockManager)
			require.NoError(t, err)
			s77, err := j.Log.LastSeq(ctx)
			require.NoError(t, err)
			_, err = tl.Stock.ReceiveItems(ctx, "Acme", "inv 78", day, "PH-A15:1@2000000", []string{imeiN(2)}, stockManager)
			require.NoError(t, err)
			s78, err := j.Log.LastSeq(ctx)
			require.NoError(t, err)
			var evs []pos.Event
			require.NoError(t, j.Log.EventsFrom(ctx, 1, func(ev pos.Event) error { evs = append(evs, ev); return nil }))
			require.NoError(t, j.Close())

			asIndexKeyed(t, path, evs, from)
			old := map[string]string{"acme\x00inv-77": string(u64(s77)), "acme\x00inv 78": string(u64(s78))}
			require.Equal(t, old, rawBucket(t, path, bucketStockInvoices), "the index as schema %d kept it", from)
			rep, err := VerifyFileWith(ctx, path, Options{ChainKey: testKey})
			require.NoError(t, err)
			assert.True(t, rep.Verified, "a file of schema %d verifies as it was written", from)
			// The old index is compared, not skipped: an entry moved to the key
			// of another spelling is found.
			rawUpdate(t, path, func(tx *bolt.Tx) error {
				b := tx.Bucket(bucketStockInvoices)
				require.NoError(t, b.Delete([]byte("acme\x00inv-77")))
				return b.Put([]byte("acme\x00inv77"), u64(s77))
			})
			_, err = VerifyFileWith(ctx, path, Options{ChainKey: testKey})
			var me *MismatchError
			require.ErrorAs(t, err, &me, "an entry moved in the index of schema %d", from)
			assert.Equal(t, "stock_invoices", me.Bucket)
			rawUpdate(t, path, func(tx *bolt.Tx) error {
				b := tx.Bucket(bucketStockInvoices)
				require.NoError(t, b.Delete([]byte("acme\x00inv77")))
				return b.Put([]byte("acme\x00inv-77"), u64(s77))
			})

			j, tl = stockTill(t, path, clk, nil)
			require.NoError(t, j.core.view(func(tx *bolt.Tx) error {
				assert.Equal(t, uint64(9), schemaOf(tx))
				return nil
			}))
			assert.Equal(t, map[string]string{"acme\x00inv77": string(u64(s77)), "acme\x00inv78": string(u64(s78))},
				bucketBytes(t, j, bucketStockInvoices), "keyed by pos.InvoiceKey")
			seq, err := j.Stock.InvoiceReceived(ctx, "ACME", "INV/77")
			require.NoError(t, err)
			assert.Equal(t, s77, seq, "InvoiceReceived(ACME, INV/77)")
			_, err = tl.Stock.ReceiveItems(ctx, "Acme", "INV/77", day, "PH-A15:1@2000000", []string{imeiN(3)}, stockManager)
			require.ErrorIs(t, err, pos.ErrInvoiceReceived)
			assert.Contains(t, pos.Sentence(err), fmt.Sprintf("Invoice INV/77 of Acme was received already, written as invoice INV-77 of Acme on %s (journal event %d)", day, s77))
			_, err = tl.Stock.ReceiveItems(ctx, "Acme", "INV-79", day, "PH-A15:1@2000000", []string{imeiN(3)}, stockManager)
			require.NoError(t, err, "another invoice")
			s79, err := j.Log.LastSeq(ctx)
			require.NoError(t, err)
			seq, err = j.Stock.InvoiceReceived(ctx, "acme", "inv79")
			require.NoError(t, err)
			assert.Equal(t, s79, seq)
			require.NoError(t, j.Close())
			rep, err = VerifyFileWith(ctx, path, Options{ChainKey: testKey})
			require.NoError(t, err)
			assert.True(t, rep.Verified, "the migrated index is the one the events make")
		})
	}
}
