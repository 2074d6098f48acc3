package pos

import (
	"context"
	"encoding/json"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// snapJournal is the in-memory journal with snapshots kept as pos/journal
// keeps them (without the proof, which pos/journal's tests check).
type snapJournal struct {
	*memJournal
	mu    sync.Mutex
	snaps map[string]Snapshot
	saved int
	read  int // events read by Event
}

// Event counts the events read.
func (s *snapJournal) Event(ctx context.Context, seq uint64) (Event, error) {
	s.mu.Lock()
	s.read++
	s.mu.Unlock()
	return s.memJournal.Event(ctx, seq)
}

func (s *snapJournal) Snapshot(_ context.Context, name string) (Snapshot, bool, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	sn, ok := s.snaps[name]
	return sn, ok, nil
}

func (s *snapJournal) SaveSnapshot(_ context.Context, name string, sn Snapshot) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.snaps == nil {
		s.snaps = map[string]Snapshot{}
	}
	s.snaps[name], s.saved = sn, s.saved+1
	return nil
}

// logJournal is a log of events with snapshots and nothing else: what the
// book and the registrations read (the script's orders are not whole sales).
type logJournal struct {
	Journal // nil: only the methods below are called
	snapJournal
	evs []Event
}

func (l *logJournal) Append(_ context.Context, ev Event) (Event, error) {
	ev.Seq = uint64(len(l.evs)) + 1
	l.evs = append(l.evs, ev)
	return ev, nil
}

func (l *logJournal) LastSeq(context.Context) (uint64, error) { return uint64(len(l.evs)), nil }

func (l *logJournal) Event(_ context.Context, seq uint64) (Event, error) { return l.evs[seq-1], nil }

// bookScript appends n rounds of a counter's book events to j from round
// from: shifts opened, cash moved and closed (a shift every five rounds),
// sales with IMEIs (one IMEI in three sold again after a return), refunds,
// held bills recalled or discarded, e-invoice registrations; ten minutes of
// the till's time a round.
func bookScript(t *testing.T, j Journal, from, n int) {
	t.Helper()
	ctx := t.Context()
	at := time.Date(2026, 11, 1, 9, 0, 0, 0, time.UTC)
	add := func(ev Event) {
		t.Helper()
		ev.V, ev.Day = EventVersion, ToDay(ev.Time)
		_, err := j.Append(ctx, ev)
		require.NoError(t, err)
	}
	data := func(v any) json.RawMessage {
		raw, err := json.Marshal(v)
		require.NoError(t, err)
		return raw
	}
	for i := from; i < from+n; i++ {
		now := at.Add(time.Duration(i) * 10 * time.Minute)
		shift := fmt.Sprintf("S%04d", i/5)
		if i%5 == 0 {
			add(Event{Kind: EvShiftOpened, Time: now, Staff: "001", Data: data(ShiftRecord{ID: shift, Float: 2000_00})})
		}
		id := fmt.Sprintf("G%05d", i)
		imei := fmt.Sprintf("35693803564%04d", i%40)
		add(Event{Kind: EvOrderIntent, OrderID: id, Time: now, Staff: "001", Intent: &Intent{Tender: TenderCash, Amount: 499_00, IMEIs: []string{imei}}})
		if i%3 == 0 {
			add(Event{Kind: EvReturnIMEIs, OrderID: id, Time: now, Staff: "001", IMEIs: []string{imei}})
		}
		if i%4 == 1 {
			add(Event{Kind: EvRefundDone, OrderID: id, Time: now, Refund: &RefundEvent{UniqueTxnID: "R" + id, Amount: 100_00}})
		}
		if i%6 == 2 {
			add(Event{Kind: EvBillHeld, Time: now, Data: data(HeldBill{ID: "H" + id, Total: 10_00, At: now})})
		}
		if i%6 == 4 {
			kind := EvBillRecalled
			if i%12 == 4 {
				kind = EvBillDiscarded
			}
			add(Event{Kind: kind, Time: now, Data: data(HeldBill{ID: fmt.Sprintf("HG%05d", i-2)})})
		}
		if i%7 == 0 {
			add(Event{Kind: EvIRNIntent, Time: now, Data: data(IRNEvent{Type: "INV", DocNo: id, DocDate: ToDay(now), OrderID: id})})
			add(Event{Kind: EvIRNRegistered, Time: now, Data: data(IRNEvent{Type: "INV", DocNo: id, DocDate: ToDay(now), OrderID: id,
				IRN: "irn-" + id, AckNo: "ack-" + id, AckDate: now.Format("2006-01-02 15:04:05"), QR: "qr-" + id})})
		}
		if i%5 == 2 {
			add(Event{Kind: EvShiftCash, Time: now, Staff: "001", Data: data(ShiftRecord{ID: shift, Move: &CashMove{Kind: CashOut, Amount: 50_00, Reason: "tea", At: now}})})
		}
		if i%5 == 4 {
			add(Event{Kind: EvShiftClosed, Time: now, Staff: "001", Data: data(ShiftRecord{ID: shift, Counted: 2500_00, Expected: 2450_00, Variance: 50_00})})
		}
	}
}

// replayed is the book and the registrations read from the first event, with
// no snapshot, as view and their snapshots encode them.
func replayed(t *testing.T, j Journal) (bookState, irnState) {
	t.Helper()
	b := &book{replay: true}
	require.NoError(t, b.catchUp(t.Context(), j))
	ib := &book{replay: true, imeiPart: true}
	require.NoError(t, ib.catchUp(t.Context(), j))
	e := &EInvoices{c: &core{j: &memOnly{j}}}
	require.NoError(t, e.catchUp(t.Context()))
	return view(t, j, b, ib), e.snapshot()
}

// view is the state of a book with every shift of the terminal (the files
// of closed shifts and the book's), and of its IMEI book, as replayed gives
// it.
func view(t *testing.T, j Journal, b, ib *book) bookState {
	t.Helper()
	all, err := b.allShifts(t.Context(), j)
	require.NoError(t, err)
	st := b.state()
	st.Shifts, st.Open, st.Filed = nil, 0, 0
	for i, s := range all {
		if s == b.open {
			st.Open = i + 1
		}
		st.Shifts = append(st.Shifts, stateOf(s))
	}
	st.IMEIs, st.Freed = ib.imeis, ib.freed
	return st
}

// memOnly hides a journal's snapshots.
type memOnly struct{ Journal }

func (m *memOnly) LastSeq(ctx context.Context) (uint64, error) {
	return m.Journal.(EventLog).LastSeq(ctx)
}

func (m *memOnly) Event(ctx context.Context, seq uint64) (Event, error) {
	return m.Journal.(EventLog).Event(ctx, seq)
}

func stateJSON(t *testing.T, v any) string {
	t.Helper()
	raw, err := json.Marshal(v)
	require.NoError(t, err)
	return string(raw)
}

// The book and the registrations a process reads from the last snapshot and
// the events since equal a replay from the first event: after the snapshot
// sealed by a first process, after events appended with none sealed since (a
// crash between an append and the next snapshot), and after many snapshots
// (the old shifts kept without their orders, which a replay gives their
// report).
func TestSnapshotEqualsReplay(t *testing.T) {
	j := &logJournal{}
	bookScript(t, j, 0, 40)

	first, firstIB := &book{}, &book{imeiPart: true}
	require.NoError(t, first.catchUp(t.Context(), j))
	require.NoError(t, firstIB.catchUp(t.Context(), j))
	require.Contains(t, j.snaps, snapBook, "an old journal (no snapshot) is sealed at its first catch-up")
	require.Contains(t, j.snaps, snapIMEIs)
	require.NotContains(t, string(j.snaps[snapBook].Data), `"imeis"`, "a shift does not read the IMEIs sold")
	require.NotEmpty(t, firstIB.imeis)
	sealedAt := j.snaps[snapBook].Seq
	firstIRN := &EInvoices{c: &core{j: j}}
	require.NoError(t, firstIRN.catchUp(t.Context()))
	require.Contains(t, j.snaps, snapIRN)

	// A crash: events appended, no snapshot sealed since.
	bookScript(t, j, 40, 3)
	second, secondIB := &book{}, &book{imeiPart: true}
	require.NoError(t, second.catchUp(t.Context(), j))
	require.NoError(t, secondIB.catchUp(t.Context(), j))
	assert.Equal(t, sealedAt, second.mark.seq, "less than an hour and %d events since: nothing sealed", SnapshotEvents)
	wantBook, wantIRN := replayed(t, j)
	assert.Equal(t, stateJSON(t, wantBook), stateJSON(t, view(t, j, second, secondIB)), "snapshot + the events since = a replay")
	secondIRN := &EInvoices{c: &core{j: j}}
	require.NoError(t, secondIRN.catchUp(t.Context()))
	assert.Equal(t, stateJSON(t, wantIRN), stateJSON(t, secondIRN.snapshot()))

	// Hundreds of shifts, sealed every hour of the till's time as they go.
	for from := 43; from < 43+400*5; from += 50 {
		bookScript(t, j, from, 50)
		require.NoError(t, second.catchUp(t.Context(), j))
		require.NoError(t, secondIB.catchUp(t.Context(), j))
	}
	assert.Greater(t, second.mark.seq, sealedAt, "an hour of selling seals a snapshot")
	third, thirdIB := &book{}, &book{imeiPart: true}
	require.NoError(t, third.catchUp(t.Context(), j))
	require.NoError(t, thirdIB.catchUp(t.Context(), j))
	assert.NotZero(t, thirdIB.mark.seq, "read from its snapshot")
	wantBook, _ = replayed(t, j)
	assert.Equal(t, stateJSON(t, wantBook), stateJSON(t, view(t, j, third, thirdIB)))
	assert.Equal(t, stateJSON(t, wantBook), stateJSON(t, view(t, j, second, secondIB)), "the books that sealed them")
	// The book's snapshot holds the open shift and no closed one: those
	// before it are in the files of closed shifts, every one of them.
	var sealed bookState
	require.NoError(t, json.Unmarshal(j.snaps[snapBook].Data, &sealed))
	for _, ss := range sealed.Shifts {
		assert.True(t, ss.Closed.IsZero(), "closed shift %s kept in the book's snapshot", ss.ID)
	}
	assert.Greater(t, sealed.Filed, 2*shiftFile, "the closed shifts are filed")
	assert.LessOrEqual(t, len(third.shifts), 2, "the book holds the shifts since its snapshot")
	all, err := third.allShifts(t.Context(), j)
	require.NoError(t, err)
	old := all[0]
	assert.True(t, old.trimmed, "an old shift is read from its file without its orders")
	full := &book{replay: true}
	require.NoError(t, full.catchUp(t.Context(), j))
	require.Len(t, all, len(full.shifts))
	got, err := shiftFromEvents(t.Context(), j, old)
	require.NoError(t, err)
	assert.NotEmpty(t, got.orders)
	assert.Equal(t, full.find(old.ID).orders, got.orders, "its orders read from the events of its own time")
	assert.Equal(t, full.find(old.ID).refunds, got.refunds)
}

// An old shift's report read from a snapshot that left its orders out is the
// report a replay gives.
func TestTrimmedShiftReport(t *testing.T) {
	r := newRig(t)
	j := &snapJournal{memJournal: r.j}
	e, err := New(Config{Journal: j, Gateway: r.gw, Clock: r.clock, Customer: Customer{Mobile: "9000000001", Email: "counter@example.com"}})
	require.NoError(t, err)
	tl, err := NewTill(t.Context(), TillConfig{Engine: e, SampleCatalog: catalogJSON(t)})
	require.NoError(t, err)
	ctx := t.Context()
	_, err = tl.Drawer.OpenShift(ctx, "001", 1000_00)
	require.NoError(t, err)
	out, err := tl.Checkout.Pay(ctx, PayRequest{Lines: []CartLine{{Product: Product{SKU: "CBL", Name: "Cable", HSN: "8544", Price: 499_00, GSTRate: Percent(18)}, Qty: 1}},
		Tender: TenderCash, Cashier: "001"}, nil)
	require.NoError(t, err)
	require.Equal(t, StatePaid, out.State)
	first, err := tl.Drawer.CloseShift(ctx, "001", CashCount{Paise: 1499_00})
	require.NoError(t, err)
	for range shiftFile + 1 {
		_, err = tl.Drawer.OpenShift(ctx, "001", 1000_00)
		require.NoError(t, err)
		_, err = tl.Drawer.CloseShift(ctx, "001", CashCount{Paise: 1000_00})
		require.NoError(t, err)
	}
	r.clock.Advance(2 * time.Hour)
	_, err = tl.Drawer.OpenShift(ctx, "001", 1000_00) // an hour later: sealed
	require.NoError(t, err)
	require.Contains(t, j.snaps, snapBook)

	again, err := NewTill(t.Context(), TillConfig{Engine: e, SampleCatalog: catalogJSON(t)})
	require.NoError(t, err)
	list, err := again.Drawer.Shifts(ctx, "")
	require.NoError(t, err)
	require.Len(t, list, shiftFile+3, "every shift, the filed ones first")
	assert.Equal(t, first.Shift.ID, list[0].ID)
	assert.True(t, list[len(list)-1].Open())
	today, err := again.Drawer.Shifts(ctx, list[len(list)-1].Day)
	require.NoError(t, err)
	assert.Equal(t, list[len(list)-1].ID, today[len(today)-1].ID)
	j.mu.Lock()
	j.read = 0
	j.mu.Unlock()
	rep, err := again.Drawer.ShiftReport(ctx, first.Shift.ID)
	require.NoError(t, err)
	last, err := r.j.LastSeq(ctx)
	require.NoError(t, err)
	assert.Less(t, j.read, 20, "the old shift's report reads the events of its time, not the %d of the journal", last)
	assert.Equal(t, Paise(499_00), rep.CashSales, "the old shift's sale, read through the journal")
	assert.Equal(t, first.Expected, rep.Expected)
	assert.Equal(t, stateJSON(t, first.ByCashier), stateJSON(t, rep.ByCashier))
}
