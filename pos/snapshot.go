package pos

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
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
// first: a process then never replays more than 128 events (some 25 sales) or
// an hour of them, whether or not a day was closed. A command of the command
// line, a process of its own, replays them at each run: at 2 000 a cash sale
// took 37 ms on average in a shift of 800, at 128 5.4 ms (docs/benchmarks.md
// "Commands in a long shift"); a seal is a commit of the book, whose open
// shift lists its orders' ids.
const (
	SnapshotEvents = 128
	SnapshotAge    = time.Hour
)

// The names of the snapshots.
const (
	// snapBook is the book's snapshot: the open shift, the held bills and
	// what the drawer needs now (pos.book before the closed shifts went to
	// files of their own, read from the events once); snapShifts+N are the
	// files of closed shifts (shiftFileName).
	snapBook   = "pos.book.2"
	snapShifts = "pos.book.2.shifts."
	snapIMEIs  = "pos.imeis"
	snapIRN    = "pos.einvoices"
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

// shiftFile is how many closed shifts one file of closed shifts holds.
const shiftFile = 32

// shiftFileName is the name of the snapshot that is file k of the closed
// shifts: shifts k*shiftFile to (k+1)*shiftFile-1 of the terminal, oldest
// first, in the order they opened.
func shiftFileName(k int) string { return snapShifts + strconv.Itoa(k) }

// bookState is the book as its snapshot holds it: the shifts not yet filed
// (the open one with its orders and refunds), the held bills and whether a
// shift was ever opened; every closed shift before them is in the files of
// closed shifts (Filed of them).
type bookState struct {
	At        time.Time           `json:"at"` // the time of the snapshot's event
	Shifts    []shiftState        `json:"shifts,omitempty"`
	Open      int                 `json:"open,omitempty"` // 1 + the index of the open shift; 0 when none is
	Holds     []*HeldBill         `json:"holds,omitempty"`
	IMEIs     map[string][]string `json:"imeis,omitempty"`
	Freed     map[string]string   `json:"freed,omitempty"`
	EverShift bool                `json:"ever_shift,omitempty"`
	Filed     int                 `json:"filed,omitempty"`
}

// shiftState is a shift in the book's snapshot or in a file of closed
// shifts, with what is not exported.
type shiftState struct {
	Shift
	Orders  []string    `json:"orders,omitempty"`
	Refunds [][2]string `json:"refunds,omitempty"`
	// Trimmed: a closed shift kept without its orders and refunds, which
	// its report reads from its events (From to To).
	Trimmed bool   `json:"trimmed,omitempty"`
	From    uint64 `json:"from,omitempty"`
	To      uint64 `json:"to,omitempty"`
}

// shiftFileState is a file of closed shifts.
type shiftFileState struct {
	Shifts []shiftState `json:"shifts"`
}

// stateOf is s as a snapshot keeps it: a closed shift without its orders
// and refunds, an open one with them.
func stateOf(s *Shift) shiftState {
	ss := shiftState{Shift: *s, Trimmed: s.trimmed, From: s.from, To: s.to}
	ss.Moves = slices.Clone(s.Moves)
	if !s.Open() {
		ss.Trimmed = true
		return ss
	}
	ss.Orders = s.orders
	for _, r := range s.refunds {
		ss.Refunds = append(ss.Refunds, [2]string{r.order, r.txn})
	}
	return ss
}

// shiftOf is the shift a snapshot kept as ss.
func shiftOf(ss shiftState) *Shift {
	s := ss.Shift
	s.orders, s.trimmed, s.from, s.to = ss.Orders, ss.Trimmed, ss.From, ss.To
	for _, r := range ss.Refunds {
		s.refunds = append(s.refunds, refundRef{order: r[0], txn: r[1]})
	}
	return &s
}

// state is the book's snapshot. b.mu is held.
func (b *book) state() bookState {
	st := bookState{At: b.mark.last, Holds: b.holds, IMEIs: b.imeis, Freed: b.freed, EverShift: b.everShift, Filed: b.filed}
	for i, s := range b.shifts {
		if s == b.open {
			st.Open = i + 1
		}
		st.Shifts = append(st.Shifts, stateOf(s))
	}
	return st
}

// restore puts the book's snapshot back. b.mu is held.
func (b *book) restore(st bookState) {
	b.shifts, b.open = nil, nil
	for i := range st.Shifts {
		s := shiftOf(st.Shifts[i])
		b.shifts = append(b.shifts, s)
		if st.Open == i+1 {
			b.open = s
		}
	}
	b.holds, b.imeis, b.freed, b.everShift, b.filed = st.Holds, st.IMEIs, st.Freed, st.EverShift, st.Filed
}

// seal seals the book's snapshot when one is due (as sealSnapshot): first the
// closed shifts at the front of the book go to the files of closed shifts,
// then the book without them, so that what every command reads stays the
// open shift and the held bills however many shifts the terminal held. A
// file that cannot be saved (a journal open read-only) leaves the shifts in
// the book and seals nothing. b.mu is held.
func (b *book) seal(ctx context.Context, j Journal) {
	sn, ok := j.(Snapshotter)
	if !ok || !b.mark.due(b.seq) {
		return
	}
	b.mark.seq, b.mark.at = b.seq, b.mark.last
	ctx = context.WithoutCancel(ctx)
	n := 0
	for n < len(b.shifts) && !b.shifts[n].Open() {
		n++
	}
	if n > 0 {
		if err := b.file(ctx, sn, b.shifts[:n]); err != nil {
			return
		}
		b.shifts = slices.Delete(b.shifts, 0, n)
		b.filed += n
	}
	data, err := json.Marshal(b.state())
	if err != nil {
		return
	}
	_ = sn.SaveSnapshot(ctx, snapBook, Snapshot{Seq: b.seq, Data: data})
}

// file adds the closed shifts to the files of closed shifts after the
// b.filed already there, at the book's event. The last file, when not full,
// is read and saved again with them; what it holds after b.filed (a process
// that filed them and stopped before its book was sealed) is the same
// shifts, and is written over. b.mu is held.
func (b *book) file(ctx context.Context, sn Snapshotter, shifts []*Shift) error {
	k, kept := b.filed/shiftFile, b.filed%shiftFile
	var cur []shiftState
	if kept > 0 {
		f, err := readShiftFile(ctx, sn, k)
		if err != nil {
			return err
		}
		if len(f.Shifts) < kept {
			return fmt.Errorf("pos: %s holds %d shifts, not %d: %w", shiftFileName(k), len(f.Shifts), kept, ErrBadEvent)
		}
		cur = f.Shifts[:kept]
	}
	save := func() error {
		data, err := json.Marshal(shiftFileState{Shifts: cur})
		if err != nil {
			return err
		}
		return sn.SaveSnapshot(ctx, shiftFileName(k), Snapshot{Seq: b.seq, Data: data})
	}
	for _, s := range shifts {
		cur = append(cur, stateOf(s))
		if len(cur) == shiftFile {
			if err := save(); err != nil {
				return err
			}
			k, cur = k+1, nil
		}
	}
	if len(cur) > 0 {
		return save()
	}
	return nil
}

// readShiftFile reads file k of the closed shifts.
func readShiftFile(ctx context.Context, sn Snapshotter, k int) (shiftFileState, error) {
	var f shiftFileState
	s, found, err := sn.Snapshot(ctx, shiftFileName(k))
	if err != nil {
		return f, err
	}
	if !found {
		return f, fmt.Errorf("pos: %s is missing: %w", shiftFileName(k), ErrBadEvent)
	}
	if err := json.Unmarshal(s.Data, &f); err != nil {
		return f, fmt.Errorf("pos: %s at %d: %w: %w", shiftFileName(k), s.Seq, ErrBadEvent, err)
	}
	return f, nil
}

// filedShifts calls fn with each closed shift of the files of closed shifts,
// newest first, until fn returns false: what a list of the shifts, or the
// report of an old one, reads, and no command of the counter. b.mu is held.
func (b *book) filedShifts(ctx context.Context, j Journal, fn func(*Shift) bool) error {
	sn, ok := j.(Snapshotter)
	if !ok || b.filed == 0 {
		return nil
	}
	for k := (b.filed - 1) / shiftFile; k >= 0; k-- {
		f, err := readShiftFile(ctx, sn, k)
		if err != nil {
			return err
		}
		n := min(b.filed-k*shiftFile, shiftFile)
		if len(f.Shifts) < n {
			return fmt.Errorf("pos: %s holds %d shifts, not %d: %w", shiftFileName(k), len(f.Shifts), n, ErrBadEvent)
		}
		for i := n - 1; i >= 0; i-- {
			if !fn(shiftOf(f.Shifts[i])) {
				return nil
			}
		}
	}
	return nil
}

// allShifts is every shift of the terminal, oldest first: the files of
// closed shifts, then the book's. b.mu is held.
func (b *book) allShifts(ctx context.Context, j Journal) ([]*Shift, error) {
	var out []*Shift
	err := b.filedShifts(ctx, j, func(s *Shift) bool { out = append(out, s); return true })
	if err != nil {
		return nil, err
	}
	slices.Reverse(out)
	return append(out, b.shifts...), nil
}
