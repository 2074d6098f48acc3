package pos

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// errDiskFull is the write error a full disk gives.
var errDiskFull = errors.New("write journal.db: no space left on device")

// failingJournal wraps a Journal and fails every Append from the nth (from 1)
// on, until lifted; once is set, only the nth fails. With kind, the nth is
// the first append of that kind: a sale's commit points are named, not
// counted.
type failingJournal struct {
	Journal
	mu      sync.Mutex
	n, seen int
	// kind, when set, fails from the first append of that kind (n is then
	// that append's count).
	kind   EventKind
	once   bool
	lifted bool
}

func (f *failingJournal) Append(ctx context.Context, ev Event) (Event, error) {
	f.mu.Lock()
	f.seen++
	if f.kind != "" && f.n == 0 && ev.Kind == f.kind {
		f.n = f.seen
	}
	fail := !f.lifted && f.n > 0 && (f.seen == f.n || (!f.once && f.seen > f.n))
	f.mu.Unlock()
	if fail {
		return Event{}, errDiskFull
	}
	return f.Journal.Append(ctx, ev)
}

// AppendBatch is one append, as the batch is one commit: it fails as a
// whole, and counts as an append of each kind it holds.
func (f *failingJournal) AppendBatch(ctx context.Context, evs []Event) ([]Event, error) {
	f.mu.Lock()
	f.seen++
	for _, ev := range evs {
		if f.kind != "" && f.n == 0 && ev.Kind == f.kind {
			f.n = f.seen
		}
	}
	fail := !f.lifted && f.n > 0 && (f.seen == f.n || (!f.once && f.seen > f.n))
	f.mu.Unlock()
	if fail {
		return nil, errDiskFull
	}
	return f.Journal.AppendBatch(ctx, evs)
}

func (f *failingJournal) lift() {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.lifted = true
}

// A card checkout with the disk full at each of its commit points: before the
// intent nothing moves (ErrNotJournaled); after create order the terminal never
// says "try again", holds the payment, refuses new sales, and once the disk has
// space Reconcile records what the service did, with one capture at most.
func TestDiskFullAtEveryCommitPointOfACardCheckout(t *testing.T) {
	points := []EventKind{EvOrderIntent, EvOrderCreated, EvPaymentAccepted, EvPaymentOutcome}
	for _, kind := range points {
		t.Run(string(kind), func(t *testing.T) {
			r := newRig(t)
			ctx := t.Context()
			fj := &failingJournal{Journal: r.j, kind: kind}
			e, err := New(Config{Journal: fj, Gateway: r.gw, Clock: r.clock, Customer: Customer{Mobile: "9000000001", Email: "c@example.com"}})
			require.NoError(t, err)
			_, err = e.Payments.Reconcile(ctx) // nothing to reconcile; the Nth append counts the checkout's only
			require.NoError(t, err)

			res, err := sellCard(ctx, e, r.sale(t, "ACC-CASE"), card("5555555555554444"), PayOptions{})
			require.Error(t, err)
			assert.Nil(t, res)
			s := Sentence(err)
			assert.NotContains(t, strings.ToLower(s), "card number")
			assert.ErrorIs(t, err, errDiskFull)
			if kind == EvOrderIntent {
				assert.ErrorIs(t, err, ErrNotJournaled, "nothing moved")
				assert.NotErrorIs(t, err, ErrNotRecorded)
				assert.Contains(t, s, "nothing was charged")
				assert.Empty(t, r.sb.Controls.Ledger(), "create order was never sent")
				assert.Empty(t, e.Unrecorded())
				return
			}
			require.ErrorIs(t, err, ErrNotRecorded)
			var nr *NotRecordedError
			require.ErrorAs(t, err, &nr)
			id := nr.OrderID
			assert.Equal(t, "A payment may have been taken for order "+id+": do not charge again; free disk space, then run galla reconcile", s)
			assert.NotContains(t, strings.ToLower(s), "try again")
			assert.Equal(t, []string{id}, e.Unrecorded(), "held in memory as unknown")
			assert.Len(t, r.clock.Sleeps(), len(recordRetries), "the write was retried on the clock")

			_, err = openOneTender(ctx, e, r.sale(t, "ACC-CBL"), TenderCash, nil, PayOptions{})
			require.ErrorIs(t, err, ErrNotRecorded, "no new sale while a payment is not recorded")
			assert.Contains(t, Sentence(err), id)
			_, err = e.Payments.Reconcile(ctx) // the disk is still full
			require.NoError(t, err)
			assert.Equal(t, []string{id}, e.Unrecorded())

			fj.lift()
			rep, err := e.Payments.Reconcile(ctx)
			require.NoError(t, err)
			require.Len(t, rep.Resolved, 1)
			o := rep.Resolved[0]
			assert.Equal(t, id, o.ID)
			assert.Empty(t, e.Unrecorded(), "released once recorded")
			if kind == EvOrderCreated {
				// No payment call is sent before order.created is journaled.
				assert.Equal(t, StateAbandoned, o.State)
				assert.Zero(t, r.captures())
			} else {
				assert.Equal(t, StatePaid, o.State)
				assert.True(t, o.Verified)
				assert.Equal(t, 1, r.captures(), "charged exactly once")
			}
			assert.Len(t, r.sb.Controls.Ledger(), 1)
			res, err = sellCard(ctx, e, r.sale(t, "ACC-CBL"), card("5555555555554444"), PayOptions{})
			require.NoError(t, err, "new sales are taken again")
			assert.Equal(t, ResultPaid, res.Status)
		})
	}
}

// A write that fails once after the payment call is tried again and the
// checkout goes on.
func TestOneFailedWriteAfterThePaymentIsRetried(t *testing.T) {
	for _, kind := range []EventKind{EvOrderCreated, EvPaymentAccepted, EvPaymentOutcome} {
		r := newRig(t)
		fj := &failingJournal{Journal: r.j, kind: kind, once: true}
		e, err := New(Config{Journal: fj, Gateway: r.gw, Clock: r.clock, Customer: Customer{Mobile: "9000000001", Email: "c@example.com"}})
		require.NoError(t, err)
		_, err = e.Payments.Reconcile(t.Context())
		require.NoError(t, err)
		res, err := sellCard(t.Context(), e, r.sale(t, "ACC-CASE"), card("5555555555554444"), PayOptions{})
		require.NoError(t, err, "%s failed once", kind)
		assert.Equal(t, ResultPaid, res.Status)
		assert.Equal(t, 1, r.captures())
		assert.Empty(t, e.Unrecorded())
	}
}
