package pos

import (
	"context"
	"encoding/json"
	"fmt"
	"time"
)

// Snapshot is state pos derived from the journal's events up to and including
// event Seq, encoded by pos (Data). The journal seals it to that event's hash
// with a keyed proof, and refuses it when either no longer matches.
type Snapshot struct {
	Seq  uint64
	Data []byte
}

// Snapshotter keeps the snapshots of what the till derives from the journal's
// events (the book of shifts, held bills and IMEIs; the e-invoice
// registrations), so that a process reads the last snapshot and replays only
// the events since, instead of every event from the first. pos/journal
// implements it; a journal without it is replayed from its first event.
type Snapshotter interface {
	// Snapshot returns the snapshot last saved under name, or false when there
	// is none; an edited one is an error (the journal's proof fails).
	Snapshot(ctx context.Context, name string) (Snapshot, bool, error)
	// SaveSnapshot seals s under name.
	SaveSnapshot(ctx context.Context, name string, s Snapshot) error
}

// A snapshot is sealed when the events since the last one reach SnapshotEvents,
// or span SnapshotAge of the till's time (an hour of selling), whichever is
// first: a process then never replays more than a few thousand events or an
// hour of them, whether or not a day was closed.
const (
	SnapshotEvents = 2000
	SnapshotAge    = time.Hour
)

// The names of the snapshots.
const (
	snapBook  = "pos.book"
	snapIMEIs = "pos.imeis"
	snapIRN   = "pos.einvoices"
)

// snapMark is where the last snapshot of one state was sealed, or loaded from.
type snapMark struct {
	loaded bool      // the snapshot was looked for
	seq    uint64    // its event
	at     time.Time // its event's time
	last   time.Time // the time of the last event applied
}

// due reports whether a snapshot of the state at seq is to be sealed.
func (m *snapMark) due(seq uint64) bool {
	return seq > m.seq && (seq >= m.seq+SnapshotEvents || m.last.Sub(m.at) >= SnapshotAge)
}

// loadSnapshot reads the snapshot name of j into v and returns its sequence, 0
// when j keeps none (or none was sealed yet).
func loadSnapshot(ctx context.Context, j Journal, name string, v any) (uint64, error) {
	sn, ok := j.(Snapshotter)
	if !ok {
		return 0, nil
	}
	s, found, err := sn.Snapshot(ctx, name)
	if err != nil || !found {
		return 0, err
	}
	if err := json.Unmarshal(s.Data, v); err != nil {
		return 0, fmt.Errorf("pos: snapshot %s at %d: %w: %w", name, s.Seq, ErrBadEvent, err)
	}
	return s.Seq, nil
}

// sealSnapshot seals v as the snapshot name at seq when one is due. A snapshot
// that cannot be saved (a journal open read-only) is not an error: the state
// is right, and the next process replays a little more.
func sealSnapshot(ctx context.Context, j Journal, name string, m *snapMark, seq uint64, v func() any) {
	sn, ok := j.(Snapshotter)
	if !ok || !m.due(seq) {
		return
	}
	m.seq, m.at = seq, m.last
	data, err := json.Marshal(v())
	if err != nil {
		return
	}
	_ = sn.SaveSnapshot(context.WithoutCancel(ctx), name, Snapshot{Seq: seq, Data: data})
}

// eventsFrom calls fn with every event of j from sequence from on, in order.
func eventsFrom(ctx context.Context, j Journal, from uint64, fn func(Event) error) error {
	if r, ok := j.(EventRanger); ok {
		return r.EventsFrom(ctx, from, fn)
	}
	log, ok := j.(EventLog)
	if !ok {
		return ErrNoEventLog
	}
	last, err := log.LastSeq(ctx)
	if err != nil {
		return err
	}
	for seq := from; seq <= last; seq++ {
		ev, err := log.Event(ctx, seq)
		if err != nil {
			return err
		}
		if err := fn(ev); err != nil {
			return err
		}
	}
	return nil
}

// keptOrders is how many of the newest shifts keep their orders and refunds
// in the book's snapshot; the report of an older shift replays the journal.
const keptOrders = 64

// bookState is the book as its snapshot holds it.
type bookState struct {
	At        time.Time           `json:"at"` // the time of the snapshot's event
	Shifts    []shiftState        `json:"shifts,omitempty"`
	Open      int                 `json:"open,omitempty"` // 1 + the index of the open shift; 0 when none is
	Holds     []*HeldBill         `json:"holds,omitempty"`
	IMEIs     map[string][]string `json:"imeis,omitempty"`
	Freed     map[string]string   `json:"freed,omitempty"`
	EverShift bool                `json:"ever_shift,omitempty"`
}

// shiftState is a shift in the book's snapshot, with what is not exported.
type shiftState struct {
	Shift
	Orders  []string    `json:"orders,omitempty"`
	Refunds [][2]string `json:"refunds,omitempty"`
	// Trimmed: an old shift kept without its orders and refunds.
	Trimmed bool `json:"trimmed,omitempty"`
}

// state is the book's snapshot. b.mu is held.
func (b *book) state() bookState {
	st := bookState{At: b.mark.last, Holds: b.holds, IMEIs: b.imeis, Freed: b.freed, EverShift: b.everShift}
	for i, s := range b.shifts {
		ss := shiftState{Shift: *s, Trimmed: s.trimmed}
		if i >= len(b.shifts)-keptOrders || s.Open() {
			ss.Orders = s.orders
			for _, r := range s.refunds {
				ss.Refunds = append(ss.Refunds, [2]string{r.order, r.txn})
			}
		} else {
			ss.Trimmed = true
		}
		if s == b.open {
			st.Open = i + 1
		}
		st.Shifts = append(st.Shifts, ss)
	}
	return st
}

// restore puts the book's snapshot back. b.mu is held.
func (b *book) restore(st bookState) {
	b.shifts, b.open = nil, nil
	for i := range st.Shifts {
		ss := st.Shifts[i]
		s := ss.Shift
		s.orders, s.trimmed = ss.Orders, ss.Trimmed
		for _, r := range ss.Refunds {
			s.refunds = append(s.refunds, refundRef{order: r[0], txn: r[1]})
		}
		b.shifts = append(b.shifts, &s)
		if st.Open == i+1 {
			b.open = &s
		}
	}
	b.holds, b.imeis, b.freed, b.everShift = st.Holds, st.IMEIs, st.Freed, st.EverShift
}
