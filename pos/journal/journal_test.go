package journal

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	bolt "go.etcd.io/bbolt"
	berrors "go.etcd.io/bbolt/errors"

	"galla/pos"
)

func TestOpenCreatesPrivateFile(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "galla", "data")
	path := filepath.Join(dir, "journal.db")
	j, err := Open(path, Options{})
	require.NoError(t, err)
	defer j.Close()

	fi, err := os.Stat(path)
	require.NoError(t, err)
	assert.Equal(t, os.FileMode(0o600), fi.Mode().Perm(), "journal file mode")
	di, err := os.Stat(dir)
	require.NoError(t, err)
	assert.Equal(t, os.FileMode(0o700), di.Mode().Perm(), "data directory mode")
	assert.False(t, j.core.db.NoSync, "NoSync")
	assert.False(t, j.core.db.NoGrowSync, "NoGrowSync")
	assert.False(t, j.core.db.NoFreelistSync, "NoFreelistSync")
	require.NoError(t, j.core.db.View(func(tx *bolt.Tx) error {
		assert.Equal(t, SchemaVersion(), schemaOf(tx), "schema version")
		return nil
	}))
}

func TestOpenTightensLooseMode(t *testing.T) {
	path := filepath.Join(t.TempDir(), "journal.db")
	j, err := Open(path, Options{})
	require.NoError(t, err)
	require.NoError(t, j.Close())
	require.NoError(t, os.Chmod(path, 0o644))

	j, err = Open(path, Options{})
	require.NoError(t, err)
	defer j.Close()
	fi, err := os.Stat(path)
	require.NoError(t, err)
	assert.Equal(t, os.FileMode(0o600), fi.Mode().Perm())
}

func TestOpenTwiceIsAlreadyRunning(t *testing.T) {
	path := filepath.Join(t.TempDir(), "journal.db")
	j, err := Open(path, Options{})
	require.NoError(t, err)
	defer j.Close()

	start := time.Now()
	second, err := Open(path, Options{LockTimeout: 200 * time.Millisecond})
	took := time.Since(start)
	require.Error(t, err)
	assert.Nil(t, second)
	assert.ErrorIs(t, err, ErrAlreadyRunning)
	assert.Equal(t, "Galla is already running on this data directory (journal "+path+"): close the other window first.", err.Error())
	assert.GreaterOrEqual(t, took, 150*time.Millisecond, "gave up before the lock timeout")
	assert.Less(t, took, 2*time.Second, "waited far past the lock timeout")

	// Once the first closes, the file opens again.
	require.NoError(t, j.Close())
	again, err := Open(path, Options{LockTimeout: 200 * time.Millisecond})
	require.NoError(t, err)
	require.NoError(t, again.Close())
}

func TestOpenRefusesNewerSchema(t *testing.T) {
	path := filepath.Join(t.TempDir(), "journal.db")
	j, err := Open(path, Options{})
	require.NoError(t, err)
	require.NoError(t, j.Close())
	rawUpdate(t, path, func(tx *bolt.Tx) error { return putU64(tx.Bucket(bucketMeta), metaSchema, SchemaVersion()+1) })

	_, err = Open(path, Options{})
	assert.ErrorIs(t, err, ErrNewerSchema)
}

func TestAppendChainsEvents(t *testing.T) {
	j := openTest(t)
	var s script
	stored := appendAll(t, j, s.representative(t))

	prev := strings.Repeat("0", 64)
	for i, ev := range stored {
		assert.Equal(t, uint64(i+1), ev.Seq, "Seq of event %d", i)
		assert.Equal(t, pos.EventVersion, ev.V, "V of event %d", i)
		assert.Equal(t, prev, ev.PrevHash, "PrevHash of event %d", i)
		assert.Len(t, ev.Hash, 64, "Hash of event %d", i)
		prev = ev.Hash
	}
	last, err := j.Log.LastSeq(t.Context())
	require.NoError(t, err)
	assert.Equal(t, uint64(len(stored)), last)

	// What Events returns is what Append returned, hash chain included.
	evs, err := j.Orders.Events(t.Context(), "G-0001")
	require.NoError(t, err)
	var want []pos.Event
	for _, ev := range stored {
		if ev.OrderID == "G-0001" {
			want = append(want, ev)
		}
	}
	require.Len(t, evs, len(want))
	for i := range want {
		assert.Equal(t, want[i].Seq, evs[i].Seq)
		assert.Equal(t, want[i].Hash, evs[i].Hash)
		assert.Equal(t, want[i].PrevHash, evs[i].PrevHash)
		assert.Equal(t, want[i].Kind, evs[i].Kind)
		assert.True(t, want[i].Time.Equal(evs[i].Time))
	}
	one, err := j.Log.Event(t.Context(), want[0].Seq)
	require.NoError(t, err)
	assert.Equal(t, want[0].Hash, one.Hash)
	_, err = j.Log.Event(t.Context(), last+1)
	assert.Error(t, err)
}

func TestDerivedState(t *testing.T) {
	j := openTest(t)
	var s script
	appendAll(t, j, s.representative(t))
	ctx := t.Context()

	tests := []struct {
		id        string
		state     pos.OrderState
		receiptNo uint64
	}{
		{"G-0001", pos.StatePaid, 1},
		{"G-0002", pos.StatePaid, 2},
		{"G-0003", pos.StateUnknown, 0},
		{"G-0004", pos.StateRefunded, 3},
		{"G-0005", pos.StatePaid, 5},
	}
	for _, tt := range tests {
		t.Run(tt.id, func(t *testing.T) {
			o, err := j.Orders.Order(ctx, tt.id)
			require.NoError(t, err)
			assert.Equal(t, tt.id, o.ID)
			assert.Equal(t, tt.state, o.State, "Order(%s).State", tt.id)
			assert.Equal(t, tt.receiptNo, o.ReceiptNo, "Order(%s).ReceiptNo", tt.id)
		})
	}

	_, err := j.Orders.Order(ctx, "G-9999")
	assert.ErrorIs(t, err, pos.ErrOrderNotFound)

	n, err := j.Orders.LastReceiptNo(ctx)
	require.NoError(t, err)
	assert.Equal(t, uint64(5), n, "LastReceiptNo (4 sales and a refund)")
	z, err := j.Days.LastZ(ctx)
	require.NoError(t, err)
	assert.Equal(t, uint64(1), z)
	dc, err := j.Days.DayClose(ctx, "2026-11-21")
	require.NoError(t, err)
	require.NotNil(t, dc)
	assert.Equal(t, uint64(1), dc.ZNo)
	assert.JSONEq(t, `{"sales":4,"total":4429700}`, string(dc.Report))
	open, err := j.Days.DayClose(ctx, "2026-11-22")
	require.NoError(t, err)
	assert.Nil(t, open, "DayClose of an open day")

	un, err := j.Orders.Unresolved(ctx)
	require.NoError(t, err)
	require.Len(t, un, 1)
	assert.Equal(t, "G-0003", un[0].ID)
}

func TestOrdersByDay(t *testing.T) {
	j := openTest(t)
	var s script
	appendAll(t, j, s.representative(t))
	appendAll(t, j, s.cashSale("G-0100", "2026-11-23", 1000))

	ids := func(os []*pos.Order) []string {
		var out []string
		for _, o := range os {
			out = append(out, o.ID)
		}
		return out
	}
	tests := []struct {
		day  string
		want []string
	}{
		{"2026-11-20", nil},
		{"2026-11-21", []string{"G-0001", "G-0002", "G-0003", "G-0004"}},
		// G-0004 was sold on the 21st and refunded on the 22nd: listed on both,
		// in the order of the orders' first events.
		{"2026-11-22", []string{"G-0004", "G-0005"}},
		{"2026-11-23", []string{"G-0100"}},
		{"2026-11-24", nil},
	}
	for _, tt := range tests {
		t.Run(tt.day, func(t *testing.T) {
			got, err := j.Orders.OrdersByDay(t.Context(), tt.day)
			require.NoError(t, err)
			assert.Equal(t, tt.want, ids(got), "OrdersByDay(%s)", tt.day)
		})
	}
	_, err := j.Orders.OrdersByDay(t.Context(), "2026-11")
	assert.Error(t, err, "a malformed day")
}

func TestStaleEventIsStoredAndIgnored(t *testing.T) {
	j := openTest(t)
	var s script
	ctx := t.Context()
	appendAll(t, j, s.cardSale("G-1", "2026-11-21", 5000))
	before, err := j.Orders.Order(ctx, "G-1")
	require.NoError(t, err)
	require.Equal(t, pos.StatePaid, before.State)
	beforeReceipt, err := j.Orders.LastReceiptNo(ctx)
	require.NoError(t, err)

	late := pos.Event{Kind: pos.EvPaymentOutcome, OrderID: "G-1", Day: "2026-11-21", Time: s.next(),
		ReceiptNo: beforeReceipt + 7, // would be out of sequence, but a stale event allocates nothing
		Outcome:   &pos.Outcome{MerchantOrderID: "G-1", ServiceOrderID: "SG-1", PaymentID: "PG-1", OrderStatus: "FAILED", Amount: 5000}}
	stored, err := j.Log.Append(ctx, late)
	require.NoError(t, err, "a stale event is not an error")

	after, err := j.Orders.Order(ctx, "G-1")
	require.NoError(t, err)
	assert.Equal(t, before, after, "the order is left as it was")
	evs, err := j.Orders.Events(ctx, "G-1")
	require.NoError(t, err)
	require.NotEmpty(t, evs)
	assert.Equal(t, stored.Seq, evs[len(evs)-1].Seq, "the stale event is in the log")
	r, err := j.Orders.LastReceiptNo(ctx)
	require.NoError(t, err)
	assert.Equal(t, beforeReceipt, r)
}

func TestAppendRefusesAndStoresNothing(t *testing.T) {
	tests := []struct {
		name string
		ev   func(s *script) pos.Event
		want error
	}{
		{"event of an unknown order", func(s *script) pos.Event {
			return pos.Event{Kind: pos.EvOrderCreated, OrderID: "G-404", Day: "2026-11-22", Time: s.next(), Created: &pos.Created{ServiceOrderID: "x"}}
		}, pos.ErrOrderNotFound},
		{"event the state machine does not allow", func(s *script) pos.Event {
			return pos.Event{Kind: pos.EvCashReceived, OrderID: "G-1", Day: "2026-11-22", Time: s.next(), Cash: &pos.CashEvent{Tendered: 1, Change: 0}}
		}, pos.ErrBadEvent},
		{"second intent of an order", func(s *script) pos.Event {
			return s.intent("G-1", "2026-11-22", pos.TenderCard, 100)
		}, pos.ErrBadEvent},
		{"receipt number out of sequence", func(s *script) pos.Event {
			e := s.cashSale("G-2", "2026-11-22", 100)[0]
			e.ReceiptNo = 9
			return e
		}, pos.ErrSequence},
		{"event dated before a closed day", func(s *script) pos.Event {
			return s.cashSale("G-3", "2026-11-20", 100)[0]
		}, pos.ErrDayClosed},
		{"second close of a day", func(s *script) pos.Event {
			return pos.Event{Kind: pos.EvDayClosed, Day: "2026-11-22", Time: s.next(), DayClose: &pos.DayClose{Day: "2026-11-21", ZNo: 2, Report: json.RawMessage(`{}`)}}
		}, pos.ErrDayClosed},
		{"second close of a day with no period", func(s *script) pos.Event {
			return pos.Event{Kind: pos.EvDayClosed, Day: "2026-11-21", Time: s.next(), DayClose: &pos.DayClose{Day: "2026-11-21", ZNo: 2, Period: 3, Report: json.RawMessage(`{}`)}}
		}, pos.ErrDayClosed},
		{"Z number out of sequence", func(s *script) pos.Event {
			return pos.Event{Kind: pos.EvDayClosed, Day: "2026-11-22", Time: s.next(), DayClose: &pos.DayClose{Day: "2026-11-22", ZNo: 3, Report: json.RawMessage(`{}`)}}
		}, pos.ErrSequence},
		{"order id with a NUL byte", func(s *script) pos.Event {
			return s.intent("G\x00-1", "2026-11-22", pos.TenderCash, 100)
		}, errBadID},
		{"no kind", func(s *script) pos.Event { return pos.Event{Time: s.next()} }, errNoKind},
		{"malformed day", func(s *script) pos.Event { return s.intent("G-5", "22/11/2026", pos.TenderCash, 100) }, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			j := openTest(t)
			ctx := t.Context()
			var s script
			appendAll(t, j, s.cardSale("G-1", "2026-11-21", 5000))
			appendAll(t, j, []pos.Event{{Kind: pos.EvDayClosed, Day: "2026-11-21", Time: s.next(),
				DayClose: &pos.DayClose{Day: "2026-11-21", ZNo: 1, Report: json.RawMessage(`{}`)}}})
			before := snapshot(t, j)
			seq, err := j.Log.LastSeq(ctx)
			require.NoError(t, err)
			commits := j.Commits()

			ev := tt.ev(&s)
			_, err = j.Log.Append(ctx, ev)
			require.Error(t, err)
			if tt.want != nil {
				assert.ErrorIs(t, err, tt.want)
			}
			assert.True(t, strings.HasPrefix(err.Error(), "journal: append "+string(ev.Kind)+": "), "error %q", err)

			after, err := j.Log.LastSeq(ctx)
			require.NoError(t, err)
			assert.Equal(t, seq, after, "no event stored")
			assert.Equal(t, before, snapshot(t, j), "derived state unchanged")
			assert.Equal(t, commits, j.Commits(), "nothing committed")
		})
	}
}

func TestOneCommitPerAppend(t *testing.T) {
	j := openTest(t)
	var s script
	for _, ev := range s.representative(t) {
		before := j.Commits()
		_, err := j.Log.Append(t.Context(), ev)
		require.NoError(t, err)
		assert.Equal(t, before+1, j.Commits(), "commits for %s", ev.Kind)
	}
}

// TestAppendBatch: a batch is one commit that leaves the journal as the same
// events appended one by one do (the log, its chain, every derived record),
// and one event refused refuses the batch: nothing stored, nothing committed.
func TestAppendBatch(t *testing.T) {
	ctx := t.Context()
	var s script
	sales := [][]pos.Event{s.cardSale("G-1", "2026-11-21", 5000), s.cashSale("G-2", "2026-11-21", 700), s.cardSale("G-3", "2026-11-21", 900)}

	one := openTest(t)
	for _, evs := range sales {
		appendAll(t, one, evs)
	}
	batched := openTest(t)
	for _, evs := range sales {
		before := batched.Commits()
		stored, err := batched.Log.AppendBatch(ctx, evs)
		require.NoError(t, err)
		assert.Equal(t, before+1, batched.Commits(), "one commit for %d events", len(evs))
		require.Len(t, stored, len(evs))
		for i := 1; i < len(stored); i++ {
			assert.Equal(t, stored[i-1].Seq+1, stored[i].Seq)
			assert.Equal(t, stored[i-1].Hash, stored[i].PrevHash, "the chain runs through the batch")
		}
	}
	assert.Equal(t, snapshot(t, one), snapshot(t, batched), "the same derived state as one Append each")
	for seq := uint64(1); seq <= uint64(len(sales[0])+len(sales[1])+len(sales[2])); seq++ {
		a, err := one.Log.Event(ctx, seq)
		require.NoError(t, err)
		b, err := batched.Log.Event(ctx, seq)
		require.NoError(t, err)
		assert.Equal(t, a, b, "event %d", seq)
	}
	require.NoError(t, batched.Log.VerifyAll(ctx))

	// The second event is refused (an order the journal does not hold): the
	// first, valid, is not stored either.
	before, commits := snapshot(t, batched), batched.Commits()
	seq, err := batched.Log.LastSeq(ctx)
	require.NoError(t, err)
	next := s.cashSale("G-4", "2026-11-21", 300)
	next[1].OrderID = "G-5"
	_, err = batched.Log.AppendBatch(ctx, next)
	require.ErrorIs(t, err, pos.ErrOrderNotFound)
	assert.True(t, strings.HasPrefix(err.Error(), "journal: append "+string(pos.EvCashReceived)+": "), "error %q", err)
	after, err := batched.Log.LastSeq(ctx)
	require.NoError(t, err)
	assert.Equal(t, seq, after, "no event stored")
	assert.Equal(t, before, snapshot(t, batched), "derived state unchanged")
	assert.Equal(t, commits, batched.Commits(), "nothing committed")
	_, err = batched.Log.AppendBatch(ctx, nil)
	require.Error(t, err, "an empty batch")
}

func TestRebuildEqualsIncremental(t *testing.T) {
	j := openTest(t)
	var s script
	appendAll(t, j, s.representative(t))
	want := snapshot(t, j)
	require.NotEmpty(t, want["orders"])
	require.NotEmpty(t, want["days"])
	require.NotEmpty(t, want["staff"])

	require.NoError(t, j.Log.Rebuild(t.Context()))
	assert.Equal(t, want, snapshot(t, j), "after Rebuild")

	// Derived buckets deleted by hand are rebuilt when the file is opened.
	path := j.Path()
	require.NoError(t, j.Close())
	rawUpdate(t, path, func(tx *bolt.Tx) error {
		for _, name := range derivedBuckets {
			if err := tx.DeleteBucket(name); err != nil {
				return err
			}
		}
		meta := tx.Bucket(bucketMeta)
		require.NoError(t, meta.Delete(metaReceipt))
		return meta.Delete(metaZ)
	})
	j2, err := Open(path, Options{})
	require.NoError(t, err)
	defer j2.Close()
	assert.Equal(t, want, snapshot(t, j2), "after reopening without derived buckets")
	o, err := j2.Orders.Order(t.Context(), "G-0004")
	require.NoError(t, err)
	assert.Equal(t, pos.StateRefunded, o.State)
}

func TestStaffStore(t *testing.T) {
	j := openTest(t)
	ctx := t.Context()
	r := pos.NewRoster(j.Staff).WithIterations(pos.MinPINIterations)

	asha, err := r.AddStaff(ctx, "Asha", pos.RoleManager, "246800")
	require.NoError(t, err)
	ravi, err := r.AddStaff(ctx, "Ravi", pos.RoleCashier, "1357")
	require.NoError(t, err)

	list, err := j.Staff.List(ctx)
	require.NoError(t, err)
	require.Len(t, list, 2)
	assert.Equal(t, []string{asha.ID, ravi.ID}, []string{list[0].ID, list[1].ID})
	got, err := j.Staff.Get(ctx, ravi.ID)
	require.NoError(t, err)
	assert.Equal(t, ravi, got, "Get returns what was put")

	_, err = r.SignIn(ctx, ravi.ID, "0000", t0)
	require.ErrorIs(t, err, pos.ErrWrongPIN)
	got, err = j.Staff.Get(ctx, ravi.ID)
	require.NoError(t, err)
	assert.Equal(t, 1, got.FailedAttempts, "a wrong PIN is counted in the journal")
	signed, err := r.SignIn(ctx, ravi.ID, "1357", t0)
	require.NoError(t, err)
	assert.Equal(t, "Ravi", signed.Name)

	_, err = j.Staff.Get(ctx, "999")
	assert.ErrorIs(t, err, pos.ErrUnknownStaff)
	assert.ErrorIs(t, j.Staff.Put(ctx, pos.Staff{Name: "no id"}), pos.ErrUnknownStaff)

	// Added, then changed: the log says which.
	var kinds []pos.EventKind
	require.NoError(t, j.core.db.View(func(tx *bolt.Tx) error {
		return tx.Bucket(bucketEvents).ForEach(func(_, v []byte) error {
			ev, err := DecodeEvent(v)
			kinds = append(kinds, ev.Kind)
			return err
		})
	}))
	assert.Equal(t, []pos.EventKind{pos.EvStaffAdded, pos.EvStaffAdded, pos.EvStaffAttempt, pos.EvStaffAttempt}, kinds, "a PIN tried journals the attempt alone")

	// Staff work on a closed day: their events carry no business day.
	_, err = j.Log.Append(ctx, pos.Event{Kind: pos.EvDayClosed, Day: "2026-11-21", Time: t0,
		DayClose: &pos.DayClose{Day: "2026-11-21", ZNo: 1, Report: json.RawMessage(`{}`)}})
	require.NoError(t, err)
	_, err = r.SignIn(ctx, asha.ID, "246800", t0)
	assert.NoError(t, err)
}

func TestSettingsAndCatalog(t *testing.T) {
	j := openTest(t)
	ctx := t.Context()

	v, err := j.Shop.Setting(ctx, "printer")
	require.NoError(t, err)
	assert.Nil(t, v, "a setting never set")
	for _, val := range []string{`{"kind":"tcp","addr":"10.0.0.5:9100"}`, `{"kind":"file"}`} {
		_, err := j.Log.Append(ctx, pos.Event{Kind: pos.EvSettingsChanged, Time: t0, Setting: &pos.Setting{Key: "printer", Value: json.RawMessage(val)}})
		require.NoError(t, err)
		v, err = j.Shop.Setting(ctx, "printer")
		require.NoError(t, err)
		assert.JSONEq(t, val, string(v))
	}
	_, err = j.Log.Append(ctx, pos.Event{Kind: pos.EvSettingsChanged, Time: t0})
	assert.ErrorIs(t, err, pos.ErrBadEvent, "settings.changed without a setting")

	c, err := j.Shop.Catalog(ctx)
	require.NoError(t, err)
	assert.Nil(t, c, "no catalog imported")
	cat, err := pos.NewCatalog([]pos.Product{
		{SKU: "LG-WM9KG", Name: "LG washer", Brand: "LG", ProductCode: "LG-WM9KG", Price: 3299000, GSTRate: pos.Percent(18), HSN: "8450"},
		{SKU: "PEN", Name: "Pen", Price: 1000, GSTRate: pos.Percent(18), HSN: "9608"},
	})
	require.NoError(t, err)
	require.NoError(t, j.Shop.PutCatalog(ctx, cat, "001"))
	c, err = j.Shop.Catalog(ctx)
	require.NoError(t, err)
	require.NotNil(t, c)
	assert.Equal(t, cat.Products(), c.Products())
}

func TestClosedJournal(t *testing.T) {
	j := openTest(t)
	var s script
	appendAll(t, j, s.cashSale("G-1", "2026-11-21", 100))
	require.NoError(t, j.Close())

	_, err := j.Log.Append(t.Context(), s.cashSale("G-2", "2026-11-21", 100)[0])
	require.Error(t, err)
	assert.ErrorIs(t, err, ErrClosed)
	assert.Equal(t, "journal: append order.intent: journal is closed", err.Error())
	_, err = j.Orders.Order(t.Context(), "G-1")
	assert.ErrorIs(t, err, ErrClosed)
}

func TestFullDiskLosesNothing(t *testing.T) {
	path := filepath.Join(t.TempDir(), "journal.db")
	j, err := Open(path, Options{maxSize: 256 << 10})
	require.NoError(t, err)
	var s script
	big := strings.Repeat("x", 8<<10) // fills the small file quickly
	var (
		last    pos.Event
		failure error
	)
	for i := range 1000 {
		ev := s.intent(fmt.Sprintf("G-%04d", i), "2026-11-22", pos.TenderCash, 100)
		ev.Extra = map[string]string{"note": big}
		got, err := j.Log.Append(t.Context(), ev)
		if err != nil {
			failure = err
			break
		}
		last = got
	}
	require.Error(t, failure, "the file never filled up")
	require.NotZero(t, last.Seq, "not one event fitted")
	assert.ErrorIs(t, failure, berrors.ErrMaxSizeReached)
	assert.True(t, strings.HasPrefix(failure.Error(), "journal: append order.intent: "), "error %q", failure)
	assert.Contains(t, pos.Sentence(failure), "The journal could not be written (the disk may be full", "the cashier is told, not given the generic sentence")

	// The journal stays usable for reads, and the failed event left no trace.
	seq, err := j.Log.LastSeq(t.Context())
	require.NoError(t, err)
	assert.Equal(t, last.Seq, seq)
	require.NoError(t, j.Close())

	// Reopened with room, everything appended before is there and the chain holds.
	j, err = Open(path, Options{})
	require.NoError(t, err, "reopen after a full disk")
	defer j.Close()
	got, err := j.Log.Event(t.Context(), last.Seq)
	require.NoError(t, err)
	assert.Equal(t, last.Hash, got.Hash)
	_, err = j.Orders.Order(t.Context(), last.OrderID)
	assert.NoError(t, err)
	_, err = j.Log.Append(t.Context(), s.intent("G-after", "2026-11-22", pos.TenderCash, 100))
	assert.NoError(t, err, "appending works again once there is room")
}

func TestBackup(t *testing.T) {
	j := openTest(t)
	ctx := t.Context()
	var s script
	appendAll(t, j, s.representative(t))

	none, err := j.Archive.LatestBackup()
	require.NoError(t, err)
	assert.Empty(t, none)

	p1, err := j.Archive.BackupDay("2026-11-21")
	require.NoError(t, err)
	assert.Equal(t, "journal-2026-11-21.db", filepath.Base(p1))
	fi, err := os.Stat(p1)
	require.NoError(t, err)
	assert.Equal(t, os.FileMode(0o600), fi.Mode().Perm())
	// Make the second backup visibly newer on file systems with coarse times.
	require.NoError(t, os.Chtimes(p1, t0, t0))
	p2, err := j.Archive.BackupDay("2026-11-22")
	require.NoError(t, err)
	latest, err := LatestBackup(filepath.Dir(p1))
	require.NoError(t, err)
	assert.Equal(t, p2, latest)

	_, err = j.Archive.BackupDay("../../etc")
	assert.Error(t, err, "a day that is not a date")

	// The backup is a complete journal: the second is an increment of the
	// first, the copy it stands for made with its base.
	require.True(t, isIncrement(p2), p2)
	img := filepath.Join(t.TempDir(), "journal.db")
	require.NoError(t, materialize(ctx, p2, img))
	b, err := Open(img, Options{})
	require.NoError(t, err)
	defer b.Close()
	want, err := j.Orders.OrdersByDay(ctx, "2026-11-21")
	require.NoError(t, err)
	got, err := b.Orders.OrdersByDay(ctx, "2026-11-21")
	require.NoError(t, err)
	assert.Equal(t, want, got)

	var w failingWriter
	err = j.Archive.Backup(&w)
	assert.ErrorIs(t, err, errWriterFull)
}

// failingWriter takes a little and then fails, as a full disk does.
type failingWriter struct{ n int }

var errWriterFull = errors.New("no space left on device")

func (w *failingWriter) Write(p []byte) (int, error) {
	if w.n+len(p) > 8192 {
		return 0, errWriterFull
	}
	w.n += len(p)
	return len(p), nil
}
