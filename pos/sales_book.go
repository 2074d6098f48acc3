package pos

import (
	"context"
	"errors"
	"slices"
	"sync"
	"time"
)

// snapSales is the name of the snapshot of the split sales that may be open.
const snapSales = "pos.sales"

// salesBook is the split sales that may still be open, derived from the
// journal's events as the book of shifts is (shift.go): its snapshot and the
// events since. A split sale's intent adds it; a sale found paid or voided
// when the list is read leaves it (a sale OPEN moves only to PAID or VOIDED,
// CanMove). Where no snapshot was sealed yet it starts from the sales the
// days' orders show open (Sales.openSalesByDays) at the journal's last event,
// and seals itself there: the first read of an old journal pays the walk
// back once, each read after reads the sales open and the events since.
type salesBook struct {
	mu   sync.Mutex
	seq  uint64
	ids  []string // the split sales that may be open, oldest first
	mark snapMark
}

// salesState is the sales book as its snapshot holds it.
type salesState struct {
	At  time.Time `json:"at"` // the time of the snapshot's event
	IDs []string  `json:"ids,omitempty"`
}

// openSales returns the split sales open now, caught up with j; seed finds
// them by the days' orders where j keeps no snapshot of the book yet. It is
// ErrNoEventLog for a journal that cannot be read event by event.
func (b *salesBook) openSales(ctx context.Context, j Journal, seed func() ([]*Order, error)) ([]*Order, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if !b.mark.loaded {
		if err := b.load(ctx, j, seed); err != nil {
			return nil, err
		}
	}
	err := eventsFrom(ctx, j, b.seq+1, func(ev Event) error {
		if ev.Kind == EvOrderIntent && ev.Intent != nil && ev.Intent.Tender == TenderSplit && !slices.Contains(b.ids, ev.OrderID) {
			b.ids = append(b.ids, ev.OrderID)
		}
		b.seq, b.mark.last = ev.Seq, ev.Time
		return nil
	})
	if err != nil {
		return nil, err
	}
	var (
		out  []*Order
		kept []string
	)
	for _, id := range b.ids {
		o, err := j.Order(ctx, id)
		if errors.Is(err, ErrOrderNotFound) {
			continue
		}
		if err != nil {
			return nil, err
		}
		if o.State == StateOpen {
			kept, out = append(kept, id), append(out, o)
		}
	}
	b.ids = kept
	sealSnapshot(ctx, j, snapSales, &b.mark, b.seq, func() any { return salesState{At: b.mark.last, IDs: b.ids} })
	return out, nil
}

// load reads the book's snapshot, or starts the book from seed at the
// journal's last event. b.mu is held.
func (b *salesBook) load(ctx context.Context, j Journal, seed func() ([]*Order, error)) error {
	log, ok := j.(EventLog)
	if !ok {
		return ErrNoEventLog
	}
	var st salesState
	seq, err := loadSnapshot(ctx, j, snapSales, &st)
	if err != nil {
		return err
	}
	if seq > 0 {
		b.ids, b.seq = st.IDs, seq
		b.mark.seq, b.mark.at, b.mark.last = seq, st.At, st.At
		b.mark.loaded = true
		return nil
	}
	// The last event first: a sale opened while seed reads is among the
	// events after it.
	last, err := log.LastSeq(ctx)
	if err != nil {
		return err
	}
	if last > 0 {
		ev, err := log.Event(ctx, last)
		if err != nil {
			return err
		}
		b.mark.last = ev.Time // a snapshot is due at once (snapMark.due)
	}
	open, err := seed()
	if err != nil {
		return err
	}
	b.ids, b.seq = nil, last
	for _, o := range open {
		b.ids = append(b.ids, o.ID)
	}
	b.mark.loaded = true
	return nil
}
