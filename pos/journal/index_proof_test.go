package journal

import (
	"bytes"
	"context"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	bolt "go.etcd.io/bbolt"

	"galla/pos"
)

// The lookup indexes (documents, days, unresolved) carry no proof of their
// own; each entry is checked against the proven record of the order it
// names before that order is returned (orders.go). These tests edit the
// entries byte for byte, the journal closed, as someone holding the file
// would, to make a lookup return another order.

// indexedJournal writes, keyed with testKey, two cash sales numbered 2627/1
// (G-A, ₹499) and 2627/2 (G-B, ₹99,999) on 21 Nov, G-A refunded onto credit
// note C2627/1 on 22 Nov, a card sale whose answer was lost (G-U,
// unresolved) and a cash sale numbered 2627/3 (G-C) on 22 Nov, each day
// closed by a Z report. It returns
// the journal's path and the first sequence of each order.
func indexedJournal(t *testing.T) (string, map[string]uint64) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "data", "journal.db")
	j, err := Open(path, Options{ChainKey: testKey})
	require.NoError(t, err)
	var s script
	numbered := func(evs []pos.Event, series string, no uint64) []pos.Event {
		last := &evs[len(evs)-1]
		last.Series, last.DocNo = series, no
		return evs
	}
	first := map[string]uint64{}
	for _, sale := range []struct {
		id  string
		evs []pos.Event
	}{
		{"G-A", numbered(s.cashSale("G-A", "2026-11-21", 49900), "2627", 1)},
		{"G-B", numbered(s.cashSale("G-B", "2026-11-21", 9999900), "2627", 2)},
		{"", []pos.Event{zOf(&s, "2026-11-21", 1)}},
		{"", numbered(s.refund("G-A", "2026-11-22", 49900), "C2627", 1)},
		{"G-U", s.unknownSale("G-U", "2026-11-22", 129900)},
		{"G-C", numbered(s.cashSale("G-C", "2026-11-22", 79900), "2627", 3)},
		// The Z reports seal every entry: the start-up check replays
		// nothing, and only the lookups' own checks stand.
		{"", []pos.Event{zOf(&s, "2026-11-22", 2)}},
	} {
		got := appendAll(t, j, sale.evs)
		if sale.id != "" {
			first[sale.id] = got[0].Seq
		}
	}
	require.NoError(t, j.Close())
	return path, first
}

// zOf is the day close of day, Z report zno.
func zOf(s *script, day string, zno uint64) pos.Event {
	return pos.Event{Kind: pos.EvDayClosed, Day: day, Time: s.next(), Staff: "001",
		DayClose: &pos.DayClose{Day: day, ZNo: zno, Report: []byte(`{"sales":2}`)}}
}

// TestIndexedLookupsOfAnUneditedJournal: every lookup of the indexes finds
// what was journaled, and nothing is taken for an edit.
func TestIndexedLookupsOfAnUneditedJournal(t *testing.T) {
	path, _ := indexedJournal(t)
	j, err := Open(path, Options{ChainKey: testKey})
	require.NoError(t, err)
	defer j.Close()
	ctx := t.Context()
	for _, tc := range []struct {
		series     string
		no         uint64
		id, refund string
	}{{"2627", 1, "G-A", ""}, {"2627", 2, "G-B", ""}, {"2627", 3, "G-C", ""}, {"C2627", 1, "G-A", "UG-A"}} {
		id, refund, err := j.Orders.FindDocument(ctx, tc.series, tc.no)
		require.NoError(t, err)
		assert.Equal(t, tc.id, id, "FindDocument(%s, %d)", tc.series, tc.no)
		assert.Equal(t, tc.refund, refund)
	}
	ids := func(list []*pos.Order) (out []string) {
		for _, o := range list {
			out = append(out, o.ID)
		}
		return out
	}
	day21, err := j.Orders.OrdersByDay(ctx, "2026-11-21")
	require.NoError(t, err)
	assert.Equal(t, []string{"G-A", "G-B"}, ids(day21))
	day22, err := j.Orders.OrdersByDay(ctx, "2026-11-22")
	require.NoError(t, err)
	assert.Equal(t, []string{"G-A", "G-U", "G-C"}, ids(day22))
	open, err := j.Orders.Unresolved(ctx)
	require.NoError(t, err)
	assert.Equal(t, []string{"G-U"}, ids(open))
	for zno, day := range []string{"2026-11-21", "2026-11-22"} {
		dc, err := j.Days.DayClose(ctx, day)
		require.NoError(t, err)
		assert.Equal(t, uint64(zno+1), dc.ZNo, "DayClose(%s)", day)
	}
	assert.NoError(t, j.Changed())
}

// TestEditedIndexEntriesAreRefused: a document number pointed at another
// sale (the bigger one, to refund it against the small one's invoice), a
// credit note pointed at another refund or at no order, a day's entry
// pointed at another order, an order added under a day it had no event on,
// a date given another date's Z report, a paid sale listed as unresolved (for the reconciler to act on): each
// lookup refuses with a *MismatchError naming the index entry, the journal's
// Changed (the command line's exit 5) and Verified (the window's payments)
// say it, and nothing is written.
func TestEditedIndexEntriesAreRefused(t *testing.T) {
	path0, first := indexedJournal(t)
	dayKey := func(day, id string) []byte { return append(dayPrefix(day), u64(first[id])...) }
	tests := []struct {
		name   string
		edit   func(tx *bolt.Tx) error
		bucket string
		key    string
		read   func(ctx context.Context, j *Journal) error
	}{
		{"an invoice's number pointed at a bigger sale", func(tx *bolt.Tx) error {
			return editValue(t, tx, bucketDocuments, docKey("2627", 1), "G-A", "G-B")
		}, "documents", "2627/1", func(ctx context.Context, j *Journal) error {
			_, _, err := j.Orders.FindDocument(ctx, "2627", 1)
			return err
		}},
		{"a credit note pointed at another refund", func(tx *bolt.Tx) error {
			return editValue(t, tx, bucketDocuments, docKey("C2627", 1), "UG-A", "UG-B")
		}, "documents", "C2627/1", func(ctx context.Context, j *Journal) error {
			_, _, err := j.Orders.FindDocument(ctx, "C2627", 1)
			return err
		}},
		{"a credit note made an invoice of the refunded sale", func(tx *bolt.Tx) error {
			v := tx.Bucket(bucketDocuments).Get(docKey("C2627", 1))
			return tx.Bucket(bucketDocuments).Put(docKey("C2627", 1), v[:bytes.IndexByte(v, sep)])
		}, "documents", "C2627/1", func(ctx context.Context, j *Journal) error {
			_, _, err := j.Orders.FindDocument(ctx, "C2627", 1)
			return err
		}},
		{"an invoice's number pointed at no order", func(tx *bolt.Tx) error {
			return editValue(t, tx, bucketDocuments, docKey("2627", 3), "G-C", "G-Z")
		}, "documents", "2627/3", func(ctx context.Context, j *Journal) error {
			_, _, err := j.Orders.FindDocument(ctx, "2627", 3)
			return err
		}},
		{"a day's entry pointed at another order", func(tx *bolt.Tx) error {
			return editValue(t, tx, bucketDays, dayKey("2026-11-22", "G-C"), "G-C", "G-B")
		}, "days", printable(dayKey("2026-11-22", "G-C")), func(ctx context.Context, j *Journal) error {
			_, err := j.Orders.OrdersByDay(ctx, "2026-11-22")
			return err
		}},
		{"an order added under a day it had no event on", func(tx *bolt.Tx) error {
			return tx.Bucket(bucketDays).Put(dayKey("2026-11-22", "G-B"), []byte("G-B"))
		}, "days", printable(dayKey("2026-11-22", "G-B")), func(ctx context.Context, j *Journal) error {
			_, err := j.Orders.OrdersByDay(ctx, "2026-11-22")
			return err
		}},
		{"a date given another date's Z report", func(tx *bolt.Tx) error {
			return tx.Bucket(bucketClosedDays).Put([]byte("2026-11-22"), u64(1))
		}, "closed_days", "2026-11-22", func(ctx context.Context, j *Journal) error {
			_, err := j.Days.DayClose(ctx, "2026-11-22")
			return err
		}},
		{"a paid sale listed as unresolved", func(tx *bolt.Tx) error {
			return tx.Bucket(bucketUnresolved).Put(u64(first["G-B"]), []byte("G-B"))
		}, "unresolved", printable(u64(first["G-B"])), func(ctx context.Context, j *Journal) error {
			_, err := j.Orders.Unresolved(ctx)
			return err
		}},
		{"the unresolved entry pointed at a paid sale", func(tx *bolt.Tx) error {
			return editValue(t, tx, bucketUnresolved, u64(first["G-U"]), "G-U", "G-C")
		}, "unresolved", printable(u64(first["G-U"])), func(ctx context.Context, j *Journal) error {
			_, err := j.Orders.Unresolved(ctx)
			return err
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "journal.db")
			require.NoError(t, copyFile(path0, path))
			require.NoError(t, copyFile(HeadPath(path0), HeadPath(path)))
			require.NoError(t, copyFile(NumbersPath(path0), NumbersPath(path)))
			rawUpdate(t, path, tt.edit)
			before := fileSum(t, path)

			j, err := Open(path, Options{ChainKey: testKey})
			require.NoError(t, err, "the indexes are not read at Open")
			err = tt.read(t.Context(), j)
			require.ErrorIs(t, err, ErrDerivedMismatch)
			var me *MismatchError
			require.ErrorAs(t, err, &me)
			assert.Equal(t, tt.bucket, me.Bucket)
			assert.Equal(t, tt.key, me.Key)
			assert.Contains(t, me.Reason, "the index was changed outside Galla")
			assert.Contains(t, pos.Sentence(err), tt.key)
			assert.ErrorIs(t, j.Changed(), ErrDerivedMismatch, "the command line exits 5")
			done, verr := j.Log.Verified()
			assert.True(t, done)
			assert.ErrorIs(t, verr, ErrDerivedMismatch, "the window's payments wait on this")
			require.NoError(t, j.Close())
			assert.Equal(t, before, fileSum(t, path), "nothing written")
		})
	}
}

// editValue rewrites the value of key in bucket: old becomes new, byte for
// byte.
func editValue(t *testing.T, tx *bolt.Tx, bucket, key []byte, old, new string) error {
	t.Helper()
	b := tx.Bucket(bucket)
	v := b.Get(key)
	require.True(t, bytes.Contains(v, []byte(old)), "%s %q holds %s", bucket, key, old)
	return b.Put(key, bytes.Replace(bytes.Clone(v), []byte(old), []byte(new), 1))
}
