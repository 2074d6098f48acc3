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

// openTill opens the journal at path with the test key and a till on it, on
// the system's clock or the one given.
func openTill(t *testing.T, path string, clock ...pos.Clock) (*Journal, *pos.Till) {
	t.Helper()
	j, err := Open(path, Options{ChainKey: testKey})
	require.NoError(t, err)
	cfg := pos.Config{Journal: j.Port()}
	if len(clock) > 0 {
		cfg.Clock = clock[0]
	}
	e, err := pos.New(cfg)
	require.NoError(t, err)
	tl, err := pos.NewTill(t.Context(), pos.TillConfig{Engine: e})
	require.NoError(t, err)
	return j, tl
}

// tillView is what a till shows of its book: the shifts, the open one, the
// held bills and where an IMEI was sold.
func tillView(t *testing.T, tl *pos.Till, imei string) map[string]any {
	t.Helper()
	ctx := t.Context()
	shifts, err := tl.Drawer.Shifts(ctx, "")
	require.NoError(t, err)
	open, err := tl.Drawer.CurrentShift(ctx)
	require.NoError(t, err)
	held, err := tl.Shelf.HeldBills(ctx)
	require.NoError(t, err)
	sold, err := tl.IMEIs.FindIMEI(ctx, imei)
	require.NoError(t, err)
	rep, err := tl.Drawer.ShiftReport(ctx, "")
	require.NoError(t, err)
	return map[string]any{"shifts": shifts, "open": open, "held": held, "sold": sold, "free": tl.IMEIs.CheckIMEIFree(ctx, imei) == nil,
		"expected": rep.Expected}
}

// noSnapshots is the journal's port without its snapshots: the till reads
// its book from the first event and seals none. Its Snapshot and
// SaveSnapshot hide the port's, so that it is no pos.Snapshotter.
type noSnapshots struct{ *Port }

func (noSnapshots) Snapshot()     {}
func (noSnapshots) SaveSnapshot() {}

var _ = []any{noSnapshots.Snapshot, noSnapshots.SaveSnapshot}

// A till reads the book from the journal's snapshot and the events since, and
// shows what a till reading every event shows: after the snapshot a first
// command sealed, and after a crash between an append and the next snapshot
// (events appended by a process that sealed none).
func TestTillSnapshotEqualsReplay(t *testing.T) {
	path := filepath.Join(t.TempDir(), "journal.db")
	ctx := t.Context()
	imei := imeiN(7)
	clock := testclock.New(time.Now())
	j, tl := openTill(t, path, clock)
	_, err := tl.Drawer.OpenShift(ctx, "001", 1000_00)
	require.NoError(t, err)
	opened, ok, err := j.Log.Snapshot(ctx, "pos.book.2")
	require.NoError(t, err)
	require.True(t, ok, "the first catch-up of a journal without a snapshot seals one")
	require.NoError(t, paid(tl.Checkout.Pay(ctx, pos.PayRequest{Lines: []pos.CartLine{phoneLine()}, Tender: pos.TenderCash, Cashier: "001",
		IMEIs: []pos.UnitIMEI{{ProductCode: "PH-A15", IMEI: imei}}}, nil)))
	clock.Advance(pos.SnapshotAge)
	_, err = tl.Shelf.HoldBill(ctx, []pos.CartLine{cableLine()}, nil, "001", "Asha")
	require.NoError(t, err)
	first, _, err := j.Log.Snapshot(ctx, "pos.book.2")
	require.NoError(t, err)
	last, err := j.Log.LastSeq(ctx)
	require.NoError(t, err)
	require.Greater(t, first.Seq, opened.Seq, "an hour of selling later, sealed again")
	require.Equal(t, last, first.Seq, "with the phone sold and the bill held")
	require.NoError(t, j.Close())

	// The crash: a process without snapshots appends and seals nothing.
	j, err = Open(path, Options{ChainKey: testKey})
	require.NoError(t, err)
	e, err := pos.New(pos.Config{Journal: noSnapshots{j.Port()}})
	require.NoError(t, err)
	bare, err := pos.NewTill(ctx, pos.TillConfig{Engine: e})
	require.NoError(t, err)
	require.NoError(t, paid(bare.Checkout.Pay(ctx, pos.PayRequest{Lines: []pos.CartLine{cableLine()}, Tender: pos.TenderCash, Cashier: "001"}, nil)))
	_, err = bare.Drawer.MoveCash(ctx, "001", pos.CashOut, 20_00, "tea")
	require.NoError(t, err)
	want := tillView(t, bare, imei)
	unsealed, _, err := j.Log.Snapshot(ctx, "pos.book.2")
	require.NoError(t, err)
	require.Equal(t, first.Seq, unsealed.Seq, "the process without snapshots sealed none")
	last, err = j.Log.LastSeq(ctx)
	require.NoError(t, err)
	require.Greater(t, last, first.Seq+2, "events after the snapshot")
	require.NoError(t, j.Close())

	j, tl = openTill(t, path)
	defer j.Close()
	got := tillView(t, tl, imei)
	assert.Equal(t, want, got, "the snapshot and the events since show what every event shows")
	assert.False(t, got["free"].(bool), "the phone sold before the snapshot is held")
	now, _, err := j.Log.Snapshot(ctx, "pos.book.2")
	require.NoError(t, err)
	assert.Equal(t, first.Seq, now.Seq, "a few events and minutes later: no snapshot due")
}

// A snapshot edited in the file is refused with the sentence of a record whose
// proof fails, by the journal and by the till that reads it; so is one put
// back at another event.
func TestEditedSnapshotIsRefused(t *testing.T) {
	for _, edit := range []string{"state", "event"} {
		t.Run(edit, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "journal.db")
			ctx := t.Context()
			j, tl := openTill(t, path)
			_, err := tl.Drawer.OpenShift(ctx, "001", 1000_00)
			require.NoError(t, err)
			require.NoError(t, j.Close())

			db, err := bolt.Open(path, 0o600, nil)
			require.NoError(t, err)
			require.NoError(t, db.Update(func(tx *bolt.Tx) error {
				b := tx.Bucket(bucketSnapshots)
				v := append([]byte(nil), b.Get([]byte("pos.book.2"))...)
				require.NotEmpty(t, v)
				if edit == "state" {
					v = append(v[:len(v)-1], ' ', v[len(v)-1]) // JSON that reads the same
				} else {
					// Bound to another hash of its event, proved anew (as only
					// the chain key's holder could): the event is not that one.
					body := v[32:]
					body[8] ^= 1
					v = append(newProver(testKey).sum(bucketSnapshots, []byte("pos.book.2"), body), body...)
				}
				return b.Put([]byte("pos.book.2"), v)
			}))
			require.NoError(t, db.Close())

			j, err = Open(path, Options{ChainKey: testKey})
			require.NoError(t, err)
			defer j.Close()
			_, _, err = j.Log.Snapshot(ctx, "pos.book.2")
			var me *MismatchError
			require.True(t, errors.As(err, &me), "%v", err)
			assert.ErrorIs(t, err, ErrDerivedMismatch)
			assert.Contains(t, me.Sentence(), "has been changed outside Galla: the record pos.book.2 in snapshots")
			if edit == "state" {
				assert.Contains(t, me.Reason, "its proof does not match")
			} else {
				assert.Contains(t, me.Reason, "which the journal holds with another hash")
			}
			e, err := pos.New(pos.Config{Journal: j.Port()})
			require.NoError(t, err)
			tl, err = pos.NewTill(ctx, pos.TillConfig{Engine: e})
			require.NoError(t, err)
			_, err = tl.Drawer.CurrentShift(ctx)
			assert.ErrorIs(t, err, ErrDerivedMismatch, "the till does not believe an edited snapshot")
			_, verr := j.Log.Verified()
			assert.Error(t, verr, "and the journal's check reports it, so payments stop")
		})
	}
}

// A journal with no Z report for thousands of events opens from the mark the
// Open before left (it verified the chain and the derived records up to it),
// not from its first event; an edited mark is refused; the whole check still
// walks every event.
func TestOpenFromVerifiedMark(t *testing.T) {
	path := filepath.Join(t.TempDir(), "journal.db")
	events := bulkJournalNoZ(t, path, markEvery+500)
	j, err := Open(path, Options{})
	require.NoError(t, err)
	m, ok, err := j.Log.Snapshot(t.Context(), markVerified)
	require.NoError(t, err)
	require.True(t, ok, "an Open that walked %d events leaves a mark", events)
	assert.Equal(t, events, m.Seq)
	require.NoError(t, j.Close())

	// An event before the mark changed in the file (a bit of its body): Open
	// starts after the mark and does not read it; the whole check does.
	db, err := bolt.Open(path, 0o600, nil)
	require.NoError(t, err)
	require.NoError(t, db.Update(func(tx *bolt.Tx) error {
		b := tx.Bucket(bucketEvents)
		v := append([]byte(nil), b.Get(u64(10))...)
		v[len(v)-1] ^= 1
		return b.Put(u64(10), v)
	}))
	require.NoError(t, db.Close())
	j, err = Open(path, Options{})
	require.NoError(t, err, "Open walks from the mark")
	assert.ErrorIs(t, j.Log.VerifyAll(t.Context()), ErrDamaged, "the whole check finds the edit")
	require.NoError(t, j.Close())
	_, err = VerifyFile(t.Context(), path)
	assert.ErrorIs(t, err, ErrDamaged)

	// The mark edited: refused.
	db, err = bolt.Open(path, 0o600, nil)
	require.NoError(t, err)
	require.NoError(t, db.Update(func(tx *bolt.Tx) error {
		b := tx.Bucket(bucketSnapshots)
		v := append([]byte(nil), b.Get([]byte(markVerified))...)
		v[32+7]++ // a later event
		return b.Put([]byte(markVerified), v)
	}))
	require.NoError(t, db.Close())
	_, err = Open(path, Options{})
	assert.ErrorIs(t, err, ErrDerivedMismatch, "a mark whose proof fails is refused")
}
