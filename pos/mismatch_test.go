package pos

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"galla/gateway/sandbox"
)

// ignoredAnswers returns the order's answer.ignored events.
func (r *rig) ignoredAnswers(t *testing.T, orderID string) []Event {
	t.Helper()
	evs, err := r.j.Events(t.Context(), orderID)
	require.NoError(t, err)
	var out []Event
	for _, ev := range evs {
		if ev.Kind == EvAnswerIgnored {
			out = append(out, ev)
		}
	}
	return out
}

// A verified answer with a wrong amount decides nothing: it is journaled (the
// mismatch and the body, bounded) and the order is inquired again on the
// schedule; the next good answer makes it PAID.
func TestWrongAmountIsRecordedAndInquiredAgain(t *testing.T) {
	for _, ep := range []sandbox.Endpoint{sandbox.EndpointInquirePayment, sandbox.EndpointInquireOrder} {
		t.Run(string(ep), func(t *testing.T) {
			r := newRig(t)
			ctx := t.Context()
			r.sb.Controls.Inject(ep, sandbox.Fault{Kind: sandbox.FaultWrongAmount}, 3)
			if ep == sandbox.EndpointInquireOrder {
				// The order is inquired as an order after a lost payment answer.
				r.sb.Controls.Inject(sandbox.EndpointCardPayment, sandbox.Fault{Kind: sandbox.FaultDrop}, 1)
			}
			res, err := sellCard(ctx, r.e, r.sale(t, "ACC-CASE"), card("5555555555554444"), PayOptions{})
			require.NoError(t, err)
			assert.Equal(t, ResultPaid, res.Status, res.Reason)
			assert.Equal(t, 1, r.captures())
			require.Len(t, res.Order.Tenders, 1, "a sale of one tender")
			ign := r.ignoredAnswers(t, res.Order.Tenders[0].OrderID)
			require.Len(t, ign, 3, "each mismatching answer is kept")
			for _, ev := range ign {
				assert.Contains(t, ev.Reason, "the sale is")
				require.NotNil(t, ev.Outcome)
				assert.Equal(t, res.Order.Amount+100, ev.Outcome.Amount)
				assert.NotEmpty(t, ev.Extra["body"])
				assert.LessOrEqual(t, len(ev.Extra["body"]), MaxRecordedBody+len("…[cut]"))
			}
			assert.Equal(t, []time.Duration{time.Second, time.Second, time.Second}, r.clock.Sleeps(), "inquired again on the schedule")
		})
	}
}

// Only the schedule's end leaves a mismatching order UNKNOWN; the reconciler
// then resolves it from a good answer.
func TestWrongAmountUntilTheScheduleEnds(t *testing.T) {
	r := newRig(t)
	ctx := t.Context()
	r.sb.Controls.Inject(sandbox.EndpointInquirePayment, sandbox.Fault{Kind: sandbox.FaultWrongAmount}, 1000)
	r.sb.Controls.Inject(sandbox.EndpointInquireOrder, sandbox.Fault{Kind: sandbox.FaultWrongAmount}, 1000)
	res, err := sellCard(ctx, r.e, r.sale(t, "ACC-CASE"), card("5555555555554444"), PayOptions{Wait: 3 * time.Minute})
	require.NoError(t, err)
	assert.Equal(t, ResultUnknown, res.Status)
	assert.Contains(t, res.Reason, "the sale is")
	assert.Greater(t, r.pollTime(), 2*time.Minute, "polled through the schedule")
	assert.Equal(t, len(r.clock.Sleeps())+1, len(r.ignoredAnswers(t, res.Order.ID)))

	r.sb.Controls.ClearFaults()
	rep, err := r.e.Payments.Reconcile(ctx)
	require.NoError(t, err)
	require.Len(t, rep.Resolved, 1)
	assert.Equal(t, StatePaid, rep.Resolved[0].State)
	assert.Equal(t, 1, r.captures())
}

func TestBoundedBody(t *testing.T) {
	assert.Equal(t, "{}", boundedBody([]byte("{}")))
	long := make([]byte, 5000)
	for i := range long {
		long[i] = 'a'
	}
	got := boundedBody(long)
	assert.Len(t, got, MaxRecordedBody+len("…[cut]"))
}
