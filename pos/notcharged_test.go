package pos

import (
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"galla/gateway/sandbox"
)

// pollTime is the clock time the checkout spent waiting between inquiries.
func (r *rig) pollTime() time.Duration {
	var total time.Duration
	for _, d := range r.clock.Sleeps() {
		total += d
	}
	return total
}

// A payment call that never reached the service (500, reset, hang) is FAILED on
// the first verified inquiry, not left UNKNOWN for the schedule, and the same
// order takes the next attempt (DESIGN.md section 3).
func TestUnappliedPaymentFailsAtOnceAndIsPaidAgain(t *testing.T) {
	for _, tender := range []TenderKind{TenderCard, TenderEMI} {
		for _, kind := range []sandbox.FaultKind{sandbox.FaultServerError, sandbox.FaultReset, sandbox.FaultHang} {
			t.Run(fmt.Sprintf("%s %s", tender, kind), func(t *testing.T) {
				r := newRig(t)
				ctx := t.Context()
				var (
					res *Result
					err error
				)
				if tender == TenderCard {
					r.sb.Controls.Inject(sandbox.EndpointCardPayment, sandbox.Fault{Kind: kind}, 1)
					res, err = sellCard(ctx, r.e, r.sale(t, "ACC-CASE"), card("4111111111111111"), r.otp())
				} else {
					sale := r.sale(t, "TV-LG-OLED55C4")
					offers, oerr := r.e.Payments.EMIOffers(ctx, sale.Lines)
					require.NoError(t, oerr)
					plan, ok := offers.Find("ICICI", 18, ProgramBank)
					require.True(t, ok)
					r.sb.Controls.Inject(sandbox.EndpointEMIPayment, sandbox.Fault{Kind: kind}, 1)
					res, err = sellEMI(ctx, r.e, sale, plan, card("5522600000000005"), r.otp())
				}
				require.NoError(t, err)
				require.Equal(t, ResultFailed, res.Status, res.Reason)
				assert.True(t, res.CanRetry, "the same order takes another attempt")
				assert.Equal(t, StateFailed, res.Order.State)
				assert.Contains(t, res.Reason, "never received")
				assert.Zero(t, r.pollTime(), "decided by the first inquiry, not after the schedule")
				assert.Zero(t, r.captures())
				stored, err := r.j.Order(ctx, res.Order.ID)
				require.NoError(t, err)
				assert.Equal(t, StateFailed, stored.State)
				assert.Empty(t, unresolvedIDs(t, r), "nothing is left for the reconciler")

				id := res.Order.ID
				if tender == TenderCard {
					res, err = r.e.Payments.PayCard(ctx, id, card("4111111111111111"), r.otp())
				} else {
					res, err = r.e.Payments.PayEMI(ctx, id, card("5522600000000005"), r.otp())
				}
				require.NoError(t, err)
				assert.Equal(t, ResultPaid, res.Status, res.Reason)
				assert.Equal(t, id, res.Order.ID, "paid again on the same order")
				assert.Len(t, r.sb.Controls.Ledger(), 1, "no second order was created")
				assert.Equal(t, 1, r.captures())
			})
		}
	}
}

// The reconciler applies the same rule: an UNKNOWN payment whose verified
// inquiry shows no payment applied becomes FAILED and payable again.
func TestReconcileFailsAnUnappliedPayment(t *testing.T) {
	r := newRig(t)
	ctx := t.Context()
	r.sb.Controls.Inject(sandbox.EndpointCardPayment, sandbox.Fault{Kind: sandbox.FaultServerError}, 1)
	r.sb.Controls.Inject(sandbox.EndpointInquireOrder, sandbox.Fault{Kind: sandbox.FaultReset}, 1000)
	opt := r.otp()
	opt.Wait = 30 * time.Second
	res, err := sellCard(ctx, r.e, r.sale(t, "ACC-CASE"), card("4111111111111111"), opt)
	require.NoError(t, err)
	require.Equal(t, ResultUnknown, res.Status, "no inquiry answered")

	r.sb.Controls.ClearFaults()
	rep, err := r.e.Payments.Reconcile(ctx)
	require.NoError(t, err)
	require.Len(t, rep.Resolved, 1)
	o := rep.Resolved[0]
	assert.Equal(t, StateFailed, o.State)
	assert.NoError(t, o.CanPay(), "may be paid again")

	res, err = r.e.Payments.PayCard(ctx, o.ID, card("5555555555554444"), PayOptions{})
	require.NoError(t, err)
	assert.Equal(t, ResultPaid, res.Status, res.Reason)
	assert.Equal(t, 1, r.captures())
}

// A second attempt lost after a declined first one: the service's latest payment
// is the declined one, so the lost attempt never reached it.
func TestLostSecondAttemptAfterADeclineFailsAtOnce(t *testing.T) {
	r := newRig(t)
	ctx := t.Context()
	res, err := sellCard(ctx, r.e, r.sale(t, "ACC-CASE"), card("4000000000000002"), r.otp())
	require.NoError(t, err)
	require.Equal(t, ResultFailed, res.Status)
	r.sb.Controls.Inject(sandbox.EndpointCardPayment, sandbox.Fault{Kind: sandbox.FaultReset}, 1)
	res, err = r.e.Payments.PayCard(ctx, res.Order.ID, card("4111111111111111"), r.otp())
	require.NoError(t, err)
	require.Equal(t, ResultFailed, res.Status, res.Reason)
	assert.True(t, res.CanRetry)
	assert.Zero(t, r.pollTime())

	res, err = r.e.Payments.PayCard(ctx, res.Order.ID, card("4111111111111111"), r.otp())
	require.NoError(t, err)
	assert.Equal(t, ResultPaid, res.Status, res.Reason)
	assert.Equal(t, 1, r.captures())
}

// A payment that was applied but whose answer was lost is never failed by this
// rule: the inquiry names its payment.
func TestAppliedPaymentIsNotFailedByTheNoPaymentRule(t *testing.T) {
	r := newRig(t)
	ctx := t.Context()
	r.sb.Controls.Inject(sandbox.EndpointCardPayment, sandbox.Fault{Kind: sandbox.FaultDrop}, 1)
	opt := PayOptions{Wait: 30 * time.Second} // nobody authenticates: it stays PENDING
	res, err := sellCard(ctx, r.e, r.sale(t, "ACC-CASE"), card("4111111111111111"), opt)
	require.NoError(t, err)
	assert.Equal(t, ResultUnknown, res.Status, res.Reason)
	assert.ErrorIs(t, res.Order.CanPay(), ErrPaymentInFlight, "never paid again while the payment may complete")
}

func unresolvedIDs(t *testing.T, r *rig) []string {
	t.Helper()
	os, err := r.j.Unresolved(t.Context())
	require.NoError(t, err)
	var ids []string
	for _, o := range os {
		ids = append(ids, o.ID)
	}
	return ids
}
