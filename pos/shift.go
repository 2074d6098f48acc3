package pos

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"
)

// EventLog reads the journal's events by sequence number; pos/journal implements
// it. The counter's own records (shifts, held bills, the IMEIs sold) are derived
// from it: read once from the start, then only the events appended since.
type EventLog interface {
	// LastSeq returns the sequence number of the last event, 0 when none.
	LastSeq(ctx context.Context) (uint64, error)
	// Event returns the event stored at seq.
	Event(ctx context.Context, seq uint64) (Event, error)
}

// EventRanger walks the journal's events from a sequence number on in one read;
// pos/journal implements it, and the book uses it before EventLog.
type EventRanger interface {
	EventsFrom(ctx context.Context, from uint64, fn func(Event) error) error
}

// The shift errors, matched with errors.Is.
var (
	ErrShiftOpen     = errors.New("a shift is open at this terminal")
	ErrNoShift       = errors.New("no shift is open at this terminal")
	ErrBadCashMove   = errors.New("a cash movement needs an amount above zero and a reason")
	ErrBadCount      = errors.New("the counted cash is not a valid amount")
	ErrShiftNotFound = errors.New("no such shift")
	ErrNoEventLog    = errors.New("this journal cannot be read event by event")
)

// CashMoveKind is a movement of cash in or out of the drawer that is not a sale.
type CashMoveKind string

// The cash movements.
const (
	CashIn   CashMoveKind = "in"   // paid in: change brought to the drawer
	CashOut  CashMoveKind = "out"  // paid out: a petty expense, with its reason
	CashDrop CashMoveKind = "drop" // a drop: cash taken from the drawer to the safe
)

// ParseCashMove reads "in", "out" or "drop" (also "cash-in", "cash-out").
func ParseCashMove(s string) (CashMoveKind, error) {
	switch k := CashMoveKind(strings.TrimPrefix(strings.ToLower(strings.TrimSpace(s)), "cash-")); k {
	case CashIn, CashOut, CashDrop:
		return k, nil
	}
	return "", Errorf("A cash movement is in, out or drop, not %q.", printable(s))
}

// CashMove is one journaled movement of cash.
type CashMove struct {
	Kind   CashMoveKind `json:"kind"`
	Amount Paise        `json:"amount"`
	Reason string       `json:"reason"`
	Staff  string       `json:"staff,omitempty"`
	At     time.Time    `json:"at"`
}

// Denominations are the Indian notes and coins counted at a shift close, in
// rupees, largest first.
var Denominations = []int{500, 200, 100, 50, 20, 10, 5, 2, 1}

// CashCount is the cash counted in the drawer: how many of each denomination (rupees
// → pieces), and coins below a rupee in paise.
type CashCount struct {
	Pieces map[int]int `json:"pieces,omitempty"`
	Paise  Paise       `json:"paise,omitempty"` // loose change below a rupee, or the total when no pieces are given
}

// Total is the counted cash.
func (c CashCount) Total() Paise {
	t := c.Paise
	for d, n := range c.Pieces {
		t += Rupees(int64(d) * int64(n))
	}
	return t
}

// ParseCount reads a count by denomination as typed: "500x4,100x3,10x7" (rupees
// × pieces), with "+0.50" style loose change as a last term if any.
func ParseCount(s string) (CashCount, error) {
	c := CashCount{Pieces: map[int]int{}}
	for part := range strings.SplitSeq(s, ",") {
		part = strings.TrimSpace(part)
		if part == "" {
			continue
		}
		d, n, ok := strings.Cut(strings.ToLower(part), "x")
		if !ok {
			p, err := ParsePaise(part)
			if err != nil || p < 0 {
				return CashCount{}, wrapf(ErrBadCount, "%q is not a count; write each note as VALUExPIECES, e.g. 500x4,100x3.", printable(part))
			}
			c.Paise += p
			continue
		}
		dv, err1 := strconv.Atoi(strings.TrimSpace(d))
		nv, err2 := strconv.Atoi(strings.TrimSpace(n))
		if err1 != nil || err2 != nil || nv < 0 || nv > 100000 || !slices.Contains(Denominations, dv) {
			return CashCount{}, wrapf(ErrBadCount, "%q is not a count; write each note as VALUExPIECES with a note of 500, 200, 100, 50, 20, 10, 5, 2 or 1 rupees.", printable(part))
		}
		c.Pieces[dv] += nv
	}
	return c, nil
}

// ShiftRecord is the payload (Data) of shift.opened, shift.cash and shift.closed.
type ShiftRecord struct {
	ID       string     `json:"id"`
	Float    Paise      `json:"float,omitempty"`    // shift.opened: the counted opening float
	Move     *CashMove  `json:"move,omitempty"`     // shift.cash
	Count    *CashCount `json:"count,omitempty"`    // shift.closed: the cash counted
	Counted  Paise      `json:"counted,omitempty"`  // shift.closed: Count.Total
	Expected Paise      `json:"expected,omitempty"` // shift.closed: what the drawer should hold
	Variance Paise      `json:"variance,omitempty"` // shift.closed: Counted − Expected (short is negative)
	Note     string     `json:"note,omitempty"`
}

// Shift is one cashier's shift at the terminal, derived from its events and the
// sales and refunds made while it was open.
type Shift struct {
	ID       string
	Staff    string // who opened it (staff id)
	Day      string // the business day it opened on
	Opened   time.Time
	Closed   time.Time // zero while open
	Float    Paise
	Moves    []CashMove
	Count    *CashCount // at close
	Counted  Paise
	Expected Paise // at close, as journaled
	Variance Paise
	ClosedBy string

	orders  []string    // orders whose sale began while the shift was open
	refunds []refundRef // refunds confirmed while the shift was open
	trimmed bool        // read from a snapshot without its orders and refunds (a closed shift)
	// from and to are the sequences of its shift.opened and shift.closed
	// events (to is 0 while it is open): its report reads the events between
	// them when its orders were left out of the snapshot.
	from, to uint64
}

type refundRef struct{ order, txn string }

// Open reports whether the shift is still open.
func (s *Shift) Open() bool { return s.Closed.IsZero() }

func (s *Shift) clone() *Shift {
	c := *s
	c.Moves = slices.Clone(s.Moves)
	c.orders = slices.Clone(s.orders)
	c.refunds = slices.Clone(s.refunds)
	return &c
}

// book is what the counter derives from the journal's events: shifts, held bills
// and the IMEIs of the sales. It reads the events after the last one it saw each
// time it is asked, so it stays right across a crash and a restart.
type book struct {
	mu     sync.Mutex
	seq    uint64
	shifts []*Shift
	open   *Shift
	holds  []*HeldBill
	imeis  map[string][]string // IMEI → the orders that carried it, oldest first
	freed  map[string]string   // IMEI → the order whose returned unit freed it last
	// everShift is true once any shift was opened: from then on cash needs one.
	everShift bool
	mark      snapMark // where its snapshot was sealed (snapshot.go)
	// filed is how many closed shifts, the oldest, went to the files of
	// closed shifts (snapshot.go) and are no longer in shifts: the book's
	// snapshot holds the open shift and what the drawer needs now, and does
	// not grow with the shifts ever held.
	filed int
	// replay: a book read from the first event, neither reading nor sealing a
	// snapshot (the orders of an old shift, which the snapshot leaves out).
	replay bool
	// imeiPart: this book keeps the IMEIs sold and freed, and nothing else;
	// the other keeps the rest. Each has its own snapshot, so that a shift or
	// a cash sale does not read every IMEI ever sold. It is read only for a
	// journal that keeps no record of each IMEI (IMEIIndex): pos/journal's
	// does, and a phone's check reads its one record instead.
	imeiPart bool
}

// snapName is the name of the book's snapshot.
func (b *book) snapName() string {
	if b.imeiPart {
		return snapIMEIs
	}
	return snapBook
}

// catchUp applies the events appended since the last call. b.mu is held. The
// first call reads the journal's snapshot of the book (snapshot.go) and
// replays only the events after it; a call that leaves a snapshot due seals
// one.
func (b *book) catchUp(ctx context.Context, j Journal) error {
	if !b.mark.loaded && !b.replay {
		var st bookState
		seq, err := loadSnapshot(ctx, j, b.snapName(), &st)
		if err != nil {
			return err
		}
		if seq > 0 {
			b.restore(st)
			b.seq, b.mark.seq, b.mark.at, b.mark.last = seq, seq, st.At, st.At
		}
		b.mark.loaded = true
	}
	err := eventsFrom(ctx, j, b.seq+1, func(ev Event) error {
		if ev.Seq != b.seq+1 {
			return fmt.Errorf("pos: event %d after %d: %w", ev.Seq, b.seq, ErrBadEvent)
		}
		if err := b.apply(ev); err != nil {
			return err
		}
		b.seq, b.mark.last = ev.Seq, ev.Time
		return nil
	})
	if err != nil {
		return err
	}
	switch {
	case b.replay:
	case b.imeiPart:
		sealSnapshot(ctx, j, b.snapName(), &b.mark, b.seq, func() any { return b.state() })
	default:
		b.seal(ctx, j)
	}
	return nil
}

// apply takes one event into the book. An event the book cannot read is an error:
// the journal's records are checked by the journal, so this is damage.
func (b *book) apply(ev Event) error {
	if b.imeiPart {
		b.applyIMEIs(ev)
		return nil
	}
	switch ev.Kind {
	case EvShiftOpened, EvShiftCash, EvShiftClosed:
		var r ShiftRecord
		if err := json.Unmarshal(ev.Data, &r); err != nil {
			return fmt.Errorf("pos: %s at %d: %w: %w", ev.Kind, ev.Seq, ErrBadEvent, err)
		}
		return b.applyShift(ev, r)
	case EvBillHeld, EvBillRecalled, EvBillDiscarded:
		return b.applyHold(ev)
	case EvOrderIntent:
		if ev.Intent != nil {
			if b.open != nil {
				b.open.orders = append(b.open.orders, ev.OrderID)
			}
		}
	case EvRefundDone:
		if b.open != nil && ev.Refund != nil {
			b.open.refunds = append(b.open.refunds, refundRef{order: ev.OrderID, txn: ev.Refund.UniqueTxnID})
		}
	}
	return nil
}

func (b *book) applyShift(ev Event, r ShiftRecord) error {
	switch ev.Kind {
	case EvShiftOpened:
		s := &Shift{ID: r.ID, Staff: ev.Staff, Day: ev.Day, Opened: ev.Time, Float: r.Float, from: ev.Seq}
		b.shifts = append(b.shifts, s)
		b.open, b.everShift = s, true
	case EvShiftCash:
		s := b.find(r.ID)
		if s == nil || r.Move == nil {
			return fmt.Errorf("pos: shift.cash at %d: %w: shift %q", ev.Seq, ErrBadEvent, r.ID)
		}
		s.Moves = append(s.Moves, *r.Move)
	case EvShiftClosed:
		s := b.find(r.ID)
		if s == nil {
			return fmt.Errorf("pos: shift.closed at %d: %w: shift %q", ev.Seq, ErrBadEvent, r.ID)
		}
		s.Closed, s.Count, s.Counted, s.Expected, s.Variance, s.ClosedBy = ev.Time, r.Count, r.Counted, r.Expected, r.Variance, ev.Staff
		s.to = ev.Seq
		if b.open == s {
			b.open = nil
		}
	}
	return nil
}

func (b *book) find(id string) *Shift {
	for i := len(b.shifts) - 1; i >= 0; i-- {
		if b.shifts[i].ID == id {
			return b.shifts[i]
		}
	}
	return nil
}
