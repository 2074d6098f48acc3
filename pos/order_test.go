package pos

import (
	"encoding/json"
	"errors"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestCanMove(t *testing.T) {
	all := []OrderState{StateDraft, StateIntent, StateCreated, StatePaying, StateAuthenticating, StateUnknown,
		StateFailed, StatePaid, StatePartlyRefunded, StateRefunded, StateAbandoned}
	tests := []struct {
		from OrderState
		to   []OrderState // every state reachable in one move, besides staying
	}{
		{StateDraft, []OrderState{StateIntent}},
		{StateIntent, []OrderState{StateCreated, StatePaid, StateFailed, StateAbandoned}},
		{StateCreated, []OrderState{StatePaying, StateAuthenticating, StateUnknown, StatePaid, StateFailed, StateAbandoned}},
		{StatePaying, []OrderState{StateAuthenticating, StateUnknown, StateFailed, StatePaid}},
		{StateAuthenticating, []OrderState{StateUnknown, StateFailed, StatePaid}},
		{StateUnknown, []OrderState{StateFailed, StatePaid}},
		{StateFailed, []OrderState{StatePaying, StatePaid}},
		{StatePaid, []OrderState{StatePartlyRefunded, StateRefunded}},
		{StatePartlyRefunded, []OrderState{StateRefunded}},
		{StateRefunded, nil},
		{StateAbandoned, nil},
	}
	for _, tt := range tests {
		for _, to := range all {
			want := to == tt.from
			for _, s := range tt.to {
				want = want || s == to
			}
			assert.Equal(t, want, CanMove(tt.from, to), "CanMove(%s, %s)", tt.from, to)
		}
	}
}

// terminalAfter lists, for the states that must never move back, the states an
// order in them may still reach.
func terminalAfter(s OrderState) ([]OrderState, bool) {
	switch s {
	case StatePaid:
		return []OrderState{StatePaid, StatePartlyRefunded, StateRefunded}, true
	case StatePartlyRefunded:
		return []OrderState{StatePartlyRefunded, StateRefunded}, true
	case StateRefunded:
		return []OrderState{StateRefunded}, true
	case StateAbandoned:
		return []OrderState{StateAbandoned}, true
	}
	return nil, false
}

// randomEvents is a pool of the events one order can meet: answers, replays and
// late answers of every kind, some wrong on purpose.
func randomEvents(id string) []Event {
	t0 := time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC)
	ev := func(k EventKind) Event { return Event{Kind: k, OrderID: id, Day: "2026-11-22", Time: t0} }
	out := func(status, pstatus, pid string, amount, captured Paise) Event {
		e := ev(EvPaymentOutcome)
		e.Outcome = &Outcome{MerchantOrderID: id, ServiceOrderID: "900", PaymentID: pid, OrderStatus: status,
			PaymentStatus: pstatus, Amount: amount, Captured: captured, ResponseMessage: "declined"}
		return e
	}
	var evs []Event
	created := ev(EvOrderCreated)
	created.Created = &Created{ServiceOrderID: "900", Token: "tok"}
	evs = append(evs, created)
	for n := 1; n <= MaxAttempts+1; n++ {
		a := ev(EvPaymentAttempt)
		a.Attempt = &AttemptEvent{N: n, CardBrand: "VISA", CardLast4: "1111"}
		acc := ev(EvPaymentAccepted)
		acc.Attempt = &AttemptEvent{N: n, PaymentID: "p" + string(rune('0'+n))}
		ref := ev(EvPaymentRefused)
		ref.Attempt = &AttemptEvent{N: n, Code: "14845", Message: "bad"}
		unk := ev(EvOrderUnknown)
		unk.Reason = "lost"
		unk.Attempt = &AttemptEvent{N: n}
		pid := "p" + string(rune('0'+n))
		evs = append(evs, a, acc, ref, unk,
			out("CHARGED", "CAPTURED", pid, 10000, 10000),
			out("FAILED", "FAILED", pid, 10000, 0),
			out("ORDER_ATTEMPTED", "FAILED", pid, 10000, 0), // a failed attempt, the order still open
			out("PENDING", "PENDING", pid, 10000, 0),
			out("CHARGED", "CAPTURED", pid, 10000, 9000), // wrong amount
		)
	}
	unv := ev(EvAnswerUnverified)
	unv.Outcome = &Outcome{OrderStatus: "CHARGED", PaymentStatus: "CAPTURED", Amount: 10000, Captured: 10000}
	other := out("CHARGED", "CAPTURED", "p1", 10000, 10000)
	other.Outcome.ServiceOrderID = "901"
	abandon := ev(EvOrderAbandoned)
	abandon.Abandoned = &Abandoned{Reason: "lost"}
	evs = append(evs, unv, other, abandon, ev(EvAnswerIgnored), ev(EvOrderUnknown))
	for i, amount := range []Paise{2000, 8000, 10000, 500} {
		uid := "r" + string(rune('0'+i))
		ri := ev(EvRefundIntent)
		ri.Refund = &RefundEvent{UniqueTxnID: uid, Amount: amount}
		rd := ev(EvRefundDone)
		rd.Refund = &RefundEvent{UniqueTxnID: uid, Amount: amount}
		rf := ev(EvRefundFailed)
		rf.Refund = &RefundEvent{UniqueTxnID: uid, Amount: amount}
		evs = append(evs, ri, rd, rf)
	}
	return evs
}

// TestApplyNeverMovesBack feeds orders random sequences of events, with repeats
// and late answers, and checks the state machine's promises after every one.
func TestApplyNeverMovesBack(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	reached := map[OrderState]bool{}
	for run := range 800 {
		tender := []TenderKind{TenderCard, TenderPhone}[run%2]
		o := &Order{}
		intent := Event{Kind: EvOrderIntent, OrderID: "o1", Day: "2026-11-22", Time: time.Now(),
			Intent: &Intent{Tender: tender, Amount: 10000}}
		require.NoError(t, o.Apply(intent))
		pool := randomEvents("o1")
		for step := range 40 {
			ev := pool[rng.IntN(len(pool))]
			ev.Seq = uint64(step + 2)
			before, _ := json.Marshal(o)
			prev := o.State
			err := o.Apply(ev)
			after, _ := json.Marshal(o)
			if err != nil {
				require.Equal(t, string(before), string(after), "run %d: a refused event left the order unchanged (%v)", run, err)
				continue
			}
			reached[o.State] = true
			if tender == TenderPhone && ev.Kind == EvPaymentOutcome && o.State == StateFailed && prev != StateFailed {
				require.Equal(t, "FAILED", ev.Outcome.OrderStatus, "run %d: a phone order fails only on the service's FAILED order", run)
			}
			require.True(t, CanMove(prev, o.State), "run %d: %s moved %s to %s", run, ev.Kind, prev, o.State)
			if allowed, ok := terminalAfter(prev); ok {
				require.Contains(t, allowed, o.State, "run %d: %s moved terminal %s to %s", run, ev.Kind, prev, o.State)
			}
			if o.State.Paid() {
				require.True(t, o.Verified, "run %d: PAID only on a verified answer", run)
				require.Equal(t, Paise(10000), o.Captured, "run %d: PAID only with the journal's amount", run)
				require.LessOrEqual(t, o.Refunded, o.Captured)
			}
			require.LessOrEqual(t, len(o.Attempts), MaxAttempts, "run %d", run)
		}
	}
	for _, s := range []OrderState{StateCreated, StatePaying, StateAuthenticating, StateUnknown, StateFailed,
		StatePaid, StatePartlyRefunded, StateRefunded, StateAbandoned} {
		assert.True(t, reached[s], "the random runs reached %s", s)
	}
}

func TestApplyRules(t *testing.T) {
	base := func() *Order {
		o := &Order{}
		require.NoError(t, o.Apply(Event{Kind: EvOrderIntent, OrderID: "o1", Day: "2026-11-22",
			Intent: &Intent{Tender: TenderCard, Amount: 10000}}))
		require.NoError(t, o.Apply(Event{Kind: EvOrderCreated, OrderID: "o1", Created: &Created{ServiceOrderID: "9", Token: "t"}}))
		return o
	}
	charged := Event{Kind: EvPaymentOutcome, OrderID: "o1", Outcome: &Outcome{ServiceOrderID: "9", PaymentID: "p1",
		OrderStatus: "CHARGED", PaymentStatus: "CAPTURED", Amount: 10000, Captured: 10000}}
	attemptFailed := func(pid string) Event {
		return Event{Kind: EvPaymentOutcome, OrderID: "o1", Outcome: &Outcome{ServiceOrderID: "9", PaymentID: pid,
			OrderStatus: "ORDER_ATTEMPTED", PaymentStatus: "FAILED", Amount: 10000, ResponseMessage: "declined"}}
	}
	tests := []struct {
		name  string
		evs   []Event
		state OrderState
		err   error // of the last event
	}{
		{"intent twice", []Event{{Kind: EvOrderIntent, OrderID: "o1", Day: "d", Intent: &Intent{Tender: TenderCard, Amount: 1}}}, StateCreated, ErrBadEvent},
		{"event of another order", []Event{{Kind: EvOrderUnknown, OrderID: "o2"}}, StateCreated, ErrBadEvent},
		{"crash after the payment: the order's charge adopts the payment", []Event{charged}, StatePaid, nil},
		{"replayed charge is stale", []Event{charged, charged}, StatePaid, ErrStaleEvent},
		{"abandon after a payment is refused", []Event{
			{Kind: EvPaymentAccepted, OrderID: "o1", Attempt: &AttemptEvent{N: 1, PaymentID: "p1"}},
			{Kind: EvOrderAbandoned, OrderID: "o1"}}, StateAuthenticating, ErrBadEvent},
		{"a second attempt while one is in flight", []Event{
			{Kind: EvPaymentAccepted, OrderID: "o1", Attempt: &AttemptEvent{N: 1, PaymentID: "p1"}},
			{Kind: EvPaymentAttempt, OrderID: "o1", Attempt: &AttemptEvent{N: 2}}}, StateAuthenticating, ErrPaymentInFlight},
		{"unverified charge is unknown", []Event{
			{Kind: EvPaymentAccepted, OrderID: "o1", Attempt: &AttemptEvent{N: 1, PaymentID: "p1"}},
			{Kind: EvAnswerUnverified, OrderID: "o1", Outcome: charged.Outcome}}, StateUnknown, nil},
		{"late failure of an earlier attempt after a retry's charge", []Event{
			{Kind: EvPaymentAccepted, OrderID: "o1", Attempt: &AttemptEvent{N: 1, PaymentID: "p0"}},
			{Kind: EvPaymentOutcome, OrderID: "o1", Outcome: &Outcome{ServiceOrderID: "9", PaymentID: "p0", OrderStatus: "FAILED", PaymentStatus: "FAILED", Amount: 10000}},
			{Kind: EvPaymentAttempt, OrderID: "o1", Attempt: &AttemptEvent{N: 2}},
			{Kind: EvPaymentAccepted, OrderID: "o1", Attempt: &AttemptEvent{N: 2, PaymentID: "p1"}},
			charged,
			{Kind: EvPaymentOutcome, OrderID: "o1", Outcome: &Outcome{ServiceOrderID: "9", PaymentID: "p0", OrderStatus: "FAILED", PaymentStatus: "FAILED", Amount: 10000}},
		}, StatePaid, ErrStaleEvent},
		{"the order failed while a retry was never taken", []Event{
			{Kind: EvPaymentAccepted, OrderID: "o1", Attempt: &AttemptEvent{N: 1, PaymentID: "p0"}},
			{Kind: EvPaymentOutcome, OrderID: "o1", Outcome: &Outcome{ServiceOrderID: "9", PaymentID: "p0", OrderStatus: "ORDER_ATTEMPTED", PaymentStatus: "FAILED", Amount: 10000}},
			{Kind: EvPaymentAttempt, OrderID: "o1", Attempt: &AttemptEvent{N: 2}},
			{Kind: EvPaymentOutcome, OrderID: "o1", Outcome: &Outcome{ServiceOrderID: "9", PaymentID: "p0", OrderStatus: "FAILED", PaymentStatus: "FAILED", Amount: 10000}},
		}, StateFailed, nil},
		{"an earlier attempt's failure leaves a retry in flight", []Event{
			{Kind: EvPaymentAccepted, OrderID: "o1", Attempt: &AttemptEvent{N: 1, PaymentID: "p0"}},
			{Kind: EvPaymentOutcome, OrderID: "o1", Outcome: &Outcome{ServiceOrderID: "9", PaymentID: "p0", OrderStatus: "ORDER_ATTEMPTED", PaymentStatus: "FAILED", Amount: 10000}},
			{Kind: EvPaymentAttempt, OrderID: "o1", Attempt: &AttemptEvent{N: 2}},
			{Kind: EvPaymentOutcome, OrderID: "o1", Outcome: &Outcome{ServiceOrderID: "9", PaymentID: "p0", OrderStatus: "ORDER_ATTEMPTED", PaymentStatus: "FAILED", Amount: 10000}},
		}, StatePaying, ErrStaleEvent},
		{"card: a failed attempt fails the order", []Event{attemptFailed("p1")}, StateFailed, nil},
		{"phone: a failed attempt while the order is open leaves it waiting", []Event{attemptFailed("p1")}, StateCreated, nil},
		{"phone: the failed attempt replayed is stale", []Event{attemptFailed("p1"), attemptFailed("p1")}, StateCreated, ErrStaleEvent},
		{"phone: a new payment after a failed one is adopted", []Event{attemptFailed("p1"),
			{Kind: EvPaymentOutcome, OrderID: "o1", Outcome: &Outcome{ServiceOrderID: "9", PaymentID: "p2", OrderStatus: "ORDER_ATTEMPTED", PaymentStatus: "PENDING", Amount: 10000}},
		}, StateAuthenticating, nil},
		{"phone: paid on a second attempt", []Event{attemptFailed("p0"), charged}, StatePaid, nil},
		{"phone: the service's FAILED order fails it", []Event{attemptFailed("p0"), attemptFailed("p1"),
			{Kind: EvPaymentOutcome, OrderID: "o1", Outcome: &Outcome{ServiceOrderID: "9", PaymentID: "p2", OrderStatus: "FAILED", PaymentStatus: "FAILED", Amount: 10000}},
		}, StateFailed, nil},
		{"phone: token expired with no payment", []Event{
			{Kind: EvPaymentOutcome, OrderID: "o1", Outcome: &Outcome{ServiceOrderID: "9", OrderStatus: "FAILED", Amount: 10000}},
		}, StateFailed, nil},
		{"phone: no more payments than the service takes", []Event{attemptFailed("p0"), attemptFailed("p1"), attemptFailed("p2"),
			{Kind: EvPaymentOutcome, OrderID: "o1", Outcome: &Outcome{ServiceOrderID: "9", PaymentID: "p3", OrderStatus: "CHARGED", PaymentStatus: "CAPTURED", Amount: 10000, Captured: 10000}},
		}, StateUnknown, nil},
		{"refund more than captured", []Event{charged,
			{Kind: EvRefundIntent, OrderID: "o1", Refund: &RefundEvent{UniqueTxnID: "r1", Amount: 10001}}}, StatePaid, ErrNotRefundable},
		{"refunds add up", []Event{charged,
			{Kind: EvRefundIntent, OrderID: "o1", Refund: &RefundEvent{UniqueTxnID: "r1", Amount: 4000}},
			{Kind: EvRefundDone, OrderID: "o1", Refund: &RefundEvent{UniqueTxnID: "r1"}},
			{Kind: EvRefundIntent, OrderID: "o1", Refund: &RefundEvent{UniqueTxnID: "r2", Amount: 6000}},
			{Kind: EvRefundDone, OrderID: "o1", Refund: &RefundEvent{UniqueTxnID: "r2"}}}, StateRefunded, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			o := base()
			if strings.HasPrefix(tt.name, "phone:") {
				o.Tender = TenderPhone
			}
			var err error
			for _, ev := range tt.evs {
				err = o.Apply(ev)
			}
			if tt.err == nil {
				assert.NoError(t, err)
			} else {
				assert.True(t, errors.Is(err, tt.err), "Apply error %v; want %v", err, tt.err)
			}
			assert.Equal(t, tt.state, o.State)
		})
	}
}

// FuzzOrderEvent feeds Apply events decoded from arbitrary JSON: it must never
// panic, and a refused event must leave the order unchanged.
func FuzzOrderEvent(f *testing.F) {
	for _, ev := range randomEvents("o1") {
		raw, _ := json.Marshal(ev)
		f.Add(raw)
	}
	f.Add([]byte(`{"kind":"payment.outcome","order_id":"o1","outcome":null}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		var ev Event
		if json.Unmarshal(data, &ev) != nil {
			return
		}
		o := &Order{}
		if err := o.Apply(Event{Kind: EvOrderIntent, OrderID: "o1", Day: "2026-11-22", Intent: &Intent{Tender: TenderCard, Amount: 10000}}); err != nil {
			t.Fatal(err)
		}
		_ = o.Apply(Event{Kind: EvOrderCreated, OrderID: "o1", Created: &Created{ServiceOrderID: "900", Token: "t"}})
		before, _ := json.Marshal(o)
		prev := o.State
		if err := o.Apply(ev); err != nil {
			after, _ := json.Marshal(o)
			if string(before) != string(after) {
				t.Fatalf("a refused event changed the order: %v", err)
			}
			return
		}
		if !CanMove(prev, o.State) {
			t.Fatalf("%s moved %s to %s", ev.Kind, prev, o.State)
		}
	})
}
