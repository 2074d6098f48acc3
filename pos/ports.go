package pos

import (
	"context"
	"encoding/json"
	"errors"
	"time"
)

// Errors a Journal returns, matched with errors.Is.
var (
	// ErrOrderNotFound reports an order id the journal does not hold.
	ErrOrderNotFound = errors.New("no such order in the journal")
	// ErrDayClosed reports an event dated a day that can take no more (a later
	// date has its Z report), or a Z report of a period already closed: what a
	// Z report sealed cannot change (ADR 0010).
	ErrDayClosed = errors.New("the day is closed")
	// ErrSequence reports a Z number or receipt number that is not the next one.
	ErrSequence = errors.New("number out of sequence")
)

// Journal is the append-only event log that is the terminal's source of truth
// (DESIGN.md section 4), with the derived state pos reads. pos/journal implements
// it with bbolt; tests use an in-memory one.
//
// Rules every implementation keeps, each in one committed transaction per Append
// (and per AppendBatch, whose events are kept as if appended one after the
// other, all of them or none):
//
//   - Append assigns Seq (1, 2, 3, … without gaps), sets V to EventVersion when it
//     is zero and fills the hash chain (PrevHash, Hash). It keeps Time, Day and the
//     payload as given.
//   - An event whose Day is earlier than a date with a Z report is refused with
//     ErrDayClosed and nothing is stored. A date whose last Z is the newest takes
//     events after it: they belong to the date's next period (ADR 0010), which
//     a day.closed of the same date closes, with Period one past the date's last
//     Z's and After that Z's sequence (else ErrDayClosed). DayClose returns the
//     date's last Z report.
//   - For an order event (Kind.IsOrderEvent) the journal loads the order (a zero
//     Order for order.intent; ErrOrderNotFound for any other kind on an unknown
//     order) and calls Order.Apply. When Apply succeeds the updated order is stored
//     with the event. When Apply's error matches ErrStaleEvent the event is stored
//     and the order is left as it was; Append returns no error. Any other error of
//     Apply refuses the event: nothing is stored and the error is returned.
//   - An applied event with a non-zero ReceiptNo must carry the last receipt number
//     plus one (else ErrSequence); the journal then remembers it as the last. An
//     applied event with a non-zero DocNo must carry the last number of its Series
//     plus one (else ErrSequence); the journal remembers it as that series' last
//     and which order (and refund) it numbers (FindDocument).
//   - day.closed carries DayClose: its ZNo must be LastZ plus one (else
//     ErrSequence); the journal seals the day and keeps the report.
//   - The derived buckets (orders by id, order ids by day, unresolved order ids,
//     receipt and Z counters, closed days, settings, catalog, staff) change in the
//     same transaction as the event and can be rebuilt by replaying the events.
//     An order's id is listed under every Day on which one of its events was
//     recorded; it is unresolved while Order.Unresolved reports true.
type Journal interface {
	// Append commits ev in one transaction and returns it as stored (with Seq and
	// the hash chain).
	Append(ctx context.Context, ev Event) (Event, error)
	// AppendBatch commits evs, in their order, in one transaction: each is
	// kept as Append keeps it, on the state the ones before it left, and one
	// refused refuses them all (nothing is stored). It returns them as stored.
	// A state change and the bookkeeping that follows from it (a sale and its
	// first tender's intent; a tender's outcome and the sale it completes) are
	// one commit this way, not several.
	AppendBatch(ctx context.Context, evs []Event) ([]Event, error)
	// Order returns the derived state of the order with this merchant_order_id, or
	// an error matching ErrOrderNotFound.
	Order(ctx context.Context, id string) (*Order, error)
	// OrdersByDay returns every order that has an event recorded on day (DayLayout),
	// in the order of their first event. It reads only that day's index.
	OrdersByDay(ctx context.Context, day string) ([]*Order, error)
	// Unresolved returns every order for which Order.Unresolved reports true, oldest
	// first.
	Unresolved(ctx context.Context) ([]*Order, error)
	// Events returns the events of one order in sequence.
	Events(ctx context.Context, orderID string) ([]Event, error)
	// LastReceiptNo returns the last receipt number allocated, 0 when none.
	LastReceiptNo(ctx context.Context) (uint64, error)
	// LastDocNo returns the last number allocated in a document series
	// ("2627", "B2627", "C2627"; series.go), 0 when none.
	LastDocNo(ctx context.Context, series string) (uint64, error)
	// FindDocument returns the order, and for a credit note the refund's
	// unique_txn_id, that number no of series was given to; an error matching
	// ErrOrderNotFound when none was.
	FindDocument(ctx context.Context, series string, no uint64) (orderID, refund string, err error)
	// LastZ returns the number of the last Z report, 0 when none.
	LastZ(ctx context.Context) (uint64, error)
	// DayClose returns the sealed Z report of day, or nil when the day is open.
	DayClose(ctx context.Context, day string) (*DayClose, error)
	// Setting returns the value last stored for key by settings.changed, or nil when
	// the key was never set.
	Setting(ctx context.Context, key string) (json.RawMessage, error)
	// StaffStore keeps the staff records (staff.go). Put is journaled as a
	// staff.added or staff.changed event whose Data is the record (PIN hash only);
	// pos/journal is an AttemptRecorder too (staff.attempt: the counters alone).
	StaffStore
}

// Clock is the time as pos sees it, injected so tests control it.
type Clock interface {
	// Now returns the current time.
	Now() time.Time
	// Sleep waits for d or until ctx is done, whichever is first, and returns
	// ctx.Err() in the second case.
	Sleep(ctx context.Context, d time.Duration) error
}

// SystemClock is the real clock.
type SystemClock struct{}

// Now returns time.Now().
func (SystemClock) Now() time.Time { return time.Now() }

// Sleep waits for d or until ctx is done.
func (SystemClock) Sleep(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}
