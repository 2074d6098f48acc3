package pos

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"slices"
	"sync"
)

// memJournal is an in-memory Journal that keeps the rules of the Journal
// interface, for the engine's tests. Events are stored JSON-encoded, so every
// payload goes through its encoding as in the real journal. failNext, when set,
// is asked before each append and may refuse it (a crash before the commit).
type memJournal struct {
	*MemStaff

	mu          sync.Mutex
	events      [][]byte
	orders      map[string][]byte
	byDay       map[string][]string
	lastReceipt uint64
	lastDoc     map[string]uint64
	docs        map[string][2]string // series/no → order id, refund id
	lastZ       uint64
	closed      map[string]DayClose
	settings    map[string]json.RawMessage
	commits     int
	failNext    func(ev Event) error
}

var _ Journal = (*memJournal)(nil)

func newMemJournal() *memJournal {
	return &memJournal{MemStaff: NewMemStaff(), orders: map[string][]byte{}, byDay: map[string][]string{},
		closed: map[string]DayClose{}, settings: map[string]json.RawMessage{},
		lastDoc: map[string]uint64{}, docs: map[string][2]string{}}
}

func (m *memJournal) Append(ctx context.Context, ev Event) (Event, error) {
	out, err := m.AppendBatch(ctx, []Event{ev})
	if err != nil {
		return Event{}, err
	}
	return out[0], nil
}

// AppendBatch keeps evs as Append keeps each, in one commit: failNext is asked
// for each, and one refused refuses them all, leaving the journal as it was.
func (m *memJournal) AppendBatch(ctx context.Context, evs []Event) ([]Event, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if len(evs) == 0 {
		return nil, errors.New("memjournal: no events")
	}
	if m.failNext != nil {
		for _, ev := range evs {
			if err := m.failNext(ev); err != nil {
				return nil, err
			}
		}
	}
	var saved memState
	if len(evs) > 1 {
		saved = m.save() // one event is kept as Append always kept it
	}
	out := make([]Event, 0, len(evs))
	for _, ev := range evs {
		stored, err := m.appendOne(ev)
		if err != nil {
			if len(evs) > 1 {
				m.restore(saved)
			}
			return nil, err
		}
		out = append(out, stored)
	}
	m.commits++
	return out, nil
}

// memState is what a batch changes, kept to undo a refused one.
type memState struct {
	events      int
	orders      map[string][]byte
	byDay       map[string][]string
	lastReceipt uint64
	lastDoc     map[string]uint64
	docs        map[string][2]string
	lastZ       uint64
	closed      map[string]DayClose
	settings    map[string]json.RawMessage
}

func (m *memJournal) save() memState {
	byDay := make(map[string][]string, len(m.byDay))
	for d, ids := range m.byDay {
		byDay[d] = slices.Clone(ids)
	}
	return memState{events: len(m.events), orders: maps.Clone(m.orders), byDay: byDay, lastReceipt: m.lastReceipt,
		lastDoc: maps.Clone(m.lastDoc), docs: maps.Clone(m.docs), lastZ: m.lastZ, closed: maps.Clone(m.closed), settings: maps.Clone(m.settings)}
}

func (m *memJournal) restore(s memState) {
	m.events = m.events[:s.events]
	m.orders, m.byDay, m.lastReceipt, m.lastDoc, m.docs = s.orders, s.byDay, s.lastReceipt, s.lastDoc, s.docs
	m.lastZ, m.closed, m.settings = s.lastZ, s.closed, s.settings
}

// appendOne stores ev; the caller holds mu.
func (m *memJournal) appendOne(ev Event) (Event, error) {
	if ev.V == 0 {
		ev.V = EventVersion
	}
	for day := range m.closed {
		if ev.Day != "" && day > ev.Day { // a later date is closed (ADR 0010)
			return Event{}, fmt.Errorf("memjournal: %w", ErrDayClosed)
		}
	}
	ev.Seq = uint64(len(m.events)) + 1
	var order []byte
	switch {
	case ev.Kind.IsOrderEvent():
		o := &Order{}
		if raw, ok := m.orders[ev.OrderID]; ok {
			if err := json.Unmarshal(raw, o); err != nil {
				return Event{}, err
			}
		} else if ev.Kind != EvOrderIntent {
			return Event{}, fmt.Errorf("memjournal: %w", ErrOrderNotFound)
		}
		err := o.Apply(ev)
		switch {
		case err == nil:
			if ev.ReceiptNo != 0 {
				if ev.ReceiptNo != m.lastReceipt+1 {
					return Event{}, fmt.Errorf("memjournal: receipt %d: %w", ev.ReceiptNo, ErrSequence)
				}
				m.lastReceipt = ev.ReceiptNo
			}
			if ev.DocNo != 0 {
				if ev.Series == "" || ev.DocNo != m.lastDoc[ev.Series]+1 {
					return Event{}, fmt.Errorf("memjournal: document %s/%d: %w", ev.Series, ev.DocNo, ErrSequence)
				}
				m.lastDoc[ev.Series] = ev.DocNo
				var refund string
				if ev.Refund != nil {
					refund = ev.Refund.UniqueTxnID
				}
				m.docs[fmt.Sprintf("%s/%d", ev.Series, ev.DocNo)] = [2]string{ev.OrderID, refund}
			}
			if order, err = json.Marshal(o); err != nil {
				return Event{}, err
			}
		case errors.Is(err, ErrStaleEvent):
		default:
			return Event{}, err
		}
	case ev.Kind == EvDayClosed:
		if ev.DayClose == nil || ev.DayClose.ZNo != m.lastZ+1 {
			return Event{}, fmt.Errorf("memjournal: z: %w", ErrSequence)
		}
		m.lastZ = ev.DayClose.ZNo
		dc := *ev.DayClose
		dc.Seq = ev.Seq
		m.closed[ev.Day] = dc
	case ev.Kind == EvSettingsChanged && ev.Setting != nil:
		m.settings[ev.Setting.Key] = ev.Setting.Value
	}
	raw, err := json.Marshal(ev)
	if err != nil {
		return Event{}, err
	}
	m.events = append(m.events, raw)
	if order != nil {
		m.orders[ev.OrderID] = order
	}
	if ev.OrderID != "" && !slices.Contains(m.byDay[ev.Day], ev.OrderID) {
		m.byDay[ev.Day] = append(m.byDay[ev.Day], ev.OrderID)
	}
	var out Event
	if err := json.Unmarshal(raw, &out); err != nil {
		return Event{}, err
	}
	return out, nil
}

func (m *memJournal) order(id string) (*Order, error) {
	raw, ok := m.orders[id]
	if !ok {
		return nil, fmt.Errorf("memjournal: %q: %w", id, ErrOrderNotFound)
	}
	o := &Order{}
	return o, json.Unmarshal(raw, o)
}

func (m *memJournal) Order(ctx context.Context, id string) (*Order, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.order(id)
}

func (m *memJournal) OrdersByDay(ctx context.Context, day string) ([]*Order, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	var out []*Order
	for _, id := range m.byDay[day] {
		o, err := m.order(id)
		if err != nil {
			return nil, err
		}
		out = append(out, o)
	}
	return out, nil
}

func (m *memJournal) Unresolved(ctx context.Context) ([]*Order, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	var out []*Order
	for id := range m.orders {
		o, err := m.order(id)
		if err != nil {
			return nil, err
		}
		if o.Unresolved() {
			out = append(out, o)
		}
	}
	slices.SortFunc(out, func(a, b *Order) int { return a.Opened.Compare(b.Opened) })
	return out, nil
}

func (m *memJournal) Events(ctx context.Context, orderID string) ([]Event, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	var out []Event
	for _, raw := range m.events {
		var ev Event
		if err := json.Unmarshal(raw, &ev); err != nil {
			return nil, err
		}
		if ev.OrderID == orderID {
			out = append(out, ev)
		}
	}
	return out, nil
}

func (m *memJournal) LastReceiptNo(ctx context.Context) (uint64, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.lastReceipt, nil
}

func (m *memJournal) LastDocNo(ctx context.Context, series string) (uint64, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.lastDoc[series], nil
}

func (m *memJournal) FindDocument(ctx context.Context, series string, no uint64) (string, string, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	d, ok := m.docs[fmt.Sprintf("%s/%d", series, no)]
	if !ok {
		return "", "", fmt.Errorf("memjournal: document %s/%d: %w", series, no, ErrOrderNotFound)
	}
	return d[0], d[1], nil
}

func (m *memJournal) LastZ(ctx context.Context) (uint64, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.lastZ, nil
}

func (m *memJournal) DayClose(ctx context.Context, day string) (*DayClose, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	dc, ok := m.closed[day]
	if !ok {
		return nil, nil
	}
	return &dc, nil
}

func (m *memJournal) Setting(ctx context.Context, key string) (json.RawMessage, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.settings[key], nil
}

// allEvents returns every event in sequence.
func (m *memJournal) allEvents() []Event {
	m.mu.Lock()
	defer m.mu.Unlock()
	out := make([]Event, len(m.events))
	for i, raw := range m.events {
		_ = json.Unmarshal(raw, &out[i])
	}
	return out
}

func (m *memJournal) commitCount() int {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.commits
}
