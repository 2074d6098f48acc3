package pos

import (
	"context"
	"encoding/json"
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// readCounting is the in-memory journal read event by event, with snapshots,
// that notes the oldest event a process reads.
type readCounting struct {
	*snapJournal
	oldest uint64 // the lowest sequence read since reset; 0 for none
	read   int
}

func (j *readCounting) LastSeq(context.Context) (uint64, error) {
	j.memJournal.mu.Lock()
	defer j.memJournal.mu.Unlock()
	return uint64(len(j.memJournal.events)), nil
}

func (j *readCounting) Event(_ context.Context, seq uint64) (Event, error) {
	j.memJournal.mu.Lock()
	raw := j.memJournal.events[seq-1]
	j.memJournal.mu.Unlock()
	var ev Event
	if err := json.Unmarshal(raw, &ev); err != nil {
		return Event{}, err
	}
	if j.oldest == 0 || seq < j.oldest {
		j.oldest = seq
	}
	j.read++
	return ev, nil
}

// TestCommandReadsBoundedWithoutZ: a counter that sells for days without
// closing one runs each command as a new process (an engine and a till on
// the journal, a sale, nothing kept in memory); however many commands ran
// before, none reads back more than SnapshotEvents events (and the few the
// commands before it appended): every state the till derives from the events
// (shifts, IMEIs, stock, e-invoices, open sales) is sealed as it goes, not
// only by a Z report.
func TestCommandReadsBoundedWithoutZ(t *testing.T) {
	r := newRig(t)
	j := &readCounting{snapJournal: &snapJournal{memJournal: r.j}}
	ctx := t.Context()
	process := func() *Till {
		t.Helper()
		e, err := New(Config{Journal: j, Gateway: r.gw, Clock: r.clock, Customer: Customer{Mobile: "9000000001", Email: "counter@example.com"}})
		require.NoError(t, err)
		tl, err := NewTill(ctx, TillConfig{Engine: e, SampleCatalog: catalogJSON(t)})
		require.NoError(t, err)
		return tl
	}
	tl := process()
	meera, err := tl.Crew.SignIn(ctx, "Meera", managerPIN)
	require.NoError(t, err)
	_, err = tl.Drawer.OpenShift(ctx, meera.ID, 1000_00)
	require.NoError(t, err)
	phone, ok := tl.Shelf.Lookup("PH-SAM-S24")
	require.True(t, ok)
	cable, _, err := tl.Shelf.ParseItems(ctx, "ACC-CASE", nil)
	require.NoError(t, err)

	// Between two commands of this till, the counter's other work (bills
	// held and recalled, here) appends 60 events: some 4 000 in all, well
	// past SnapshotEvents.
	const (
		commands = 60
		between  = 30 // pairs of events
		slack    = 10 // what a command itself appends
	)
	worst, total := uint64(0), 0
	for i := range commands {
		for k := range between {
			r.clock.Advance(time.Second) // no hour of selling: only the count seals
			bill, err := json.Marshal(HeldBill{ID: fmt.Sprintf("H%d-%d", i, k), Total: 10_00, At: r.clock.Now()})
			require.NoError(t, err)
			for _, kind := range []EventKind{EvBillHeld, EvBillRecalled} {
				_, err = j.Append(ctx, Event{Kind: kind, Time: r.clock.Now(), Day: ToDay(r.clock.Now()), Data: bill})
				require.NoError(t, err)
			}
		}
		head, err := j.LastSeq(ctx)
		require.NoError(t, err)
		j.oldest, j.read = 0, 0
		tl := process()
		var req PayRequest
		if i%3 == 0 {
			imei := luhnIMEI(t, fmt.Sprintf("35693803%06d", i))
			require.NoError(t, tl.IMEIs.CheckIMEIFree(ctx, imei), "the scan")
			req = PayRequest{Lines: []CartLine{{Product: phone, Qty: 1}}, IMEIs: []UnitIMEI{{ProductCode: phone.ProductCode, IMEI: imei}}}
		} else {
			req = PayRequest{Lines: cable}
		}
		req.Tender, req.Cashier = TenderCash, meera.ID
		open, err := tl.Checkout.OpenSales(ctx)
		require.NoError(t, err)
		require.Empty(t, open)
		out, err := tl.Checkout.Pay(ctx, req, nil)
		require.NoError(t, err)
		require.Equal(t, StatePaid, out.State, out.Reason)
		if j.oldest > 0 && head+1-j.oldest > worst { // the events from the oldest read to the head before the command
			worst = head + 1 - j.oldest
		}
		total += j.read
	}
	last, err := j.LastSeq(ctx)
	require.NoError(t, err)
	require.Greater(t, last, uint64(SnapshotEvents+SnapshotEvents/2), "the run goes well past one snapshot's events")
	t.Logf("%d commands, %d events without a Z report: a command read back at most %d events, %d in all on average", commands, last, worst, total/commands)
	// A state is sealed when a command that reads it finds SnapshotEvents
	// since its last seal; the IMEIs are read by every third command (a phone
	// sale), so they are read back at most SnapshotEvents and three commands'
	// events.
	bound := uint64(SnapshotEvents + 3*(2*between+slack))
	assert.LessOrEqual(t, worst, bound, "events a command read back from the head")
}

// luhnIMEI is body (14 digits) with its check digit.
func luhnIMEI(t *testing.T, body string) string {
	t.Helper()
	d, ok := LuhnCheckDigit(body)
	require.True(t, ok)
	return body + string(d)
}
