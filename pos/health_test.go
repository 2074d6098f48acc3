package pos

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"galla/gateway"
	"galla/internal/testclock"
)

// checkAt is a JournalHealth whose check finishes, with err, once the clock
// reaches at; it counts how often it was asked.
type checkAt struct {
	clock *testclock.Clock
	at    time.Time
	err   error
	asked int
}

func (h *checkAt) Verified() (bool, error) {
	h.asked++
	if h.clock.Now().Before(h.at) {
		return false, nil
	}
	return true, h.err
}

// damagedError stands in for journal.CorruptError (pos cannot import its
// implementation): an error with its own sentence.
type damagedError struct{}

var errDamaged = errors.New("journal is corrupt")

func (damagedError) Error() string        { return "journal: corrupt at event 5" }
func (damagedError) Is(target error) bool { return target == errDamaged }
func (damagedError) Sentence() string {
	return "The journal is damaged at event 5, so Galla will not take payments from it. The last backup is backups/day.db."
}

// gated is an engine over the rig's journal, gateway and clock behind h.
func (r *rig) gated(t *testing.T, h JournalHealth, wait time.Duration) *Engine {
	t.Helper()
	e, err := New(Config{Journal: r.j, Gateway: r.gw, Clock: r.clock, Health: h, HealthWait: wait,
		Customer: Customer{Mobile: "9000000001", Email: "counter@example.com"}})
	require.NoError(t, err)
	return e
}

func TestPaymentsWaitForTheJournalCheck(t *testing.T) {
	tests := []struct {
		name string
		do   func(t *testing.T, r *rig, e *Engine)
	}{
		{"card", func(t *testing.T, r *rig, e *Engine) {
			res, err := sellCard(t.Context(), e, r.sale(t, "ACC-CASE"), card("4111111111111111"), r.otp())
			require.NoError(t, err)
			assert.Equal(t, ResultPaid, res.Status, res.Reason)
		}},
		{"cash", func(t *testing.T, r *rig, e *Engine) {
			res, err := sellCash(t.Context(), e, r.sale(t, "ACC-CBL"), Rupees(500))
			require.NoError(t, err)
			assert.Equal(t, ResultPaid, res.Status)
		}},
		{"on the phone", func(t *testing.T, r *rig, e *Engine) {
			o, err := sellOnPhone(t.Context(), e, r.sale(t, "ACC-CASE"), PayOptions{})
			require.NoError(t, err)
			assert.NotEmpty(t, o.Token)
		}},
		{"refund", func(t *testing.T, r *rig, e *Engine) {
			paid, err := sellCash(t.Context(), r.e, r.sale(t, "ACC-CBL"), Rupees(500))
			require.NoError(t, err)
			rr, err := e.Refunds.Refund(t.Context(), RefundRequest{OrderID: paid.Order.ID, PIN: managerPIN})
			require.NoError(t, err)
			assert.Equal(t, RefundDone, rr.Status, rr.Reason)
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := newRig(t)
			h := &checkAt{clock: r.clock, at: r.clock.Now().Add(3 * time.Second)}
			e := r.gated(t, h, 0)
			tt.do(t, r, e)
			assert.False(t, r.clock.Now().Before(h.at), "the payment went on only once the check was done")
			assert.Greater(t, h.asked, 1, "the gate asked again while it waited")
			assert.Contains(t, r.clock.Sleeps(), healthPoll)
		})
	}
}

func TestFailedJournalCheckRefusesPayments(t *testing.T) {
	r := newRig(t)
	ctx := t.Context()
	// Before the check fails: a paid card sale and an open card order.
	paid, err := sellCard(ctx, r.e, r.sale(t, "ACC-CASE"), card("4111111111111111"), r.otp())
	require.NoError(t, err)
	open, err := openOneTender(ctx, r.e, r.sale(t, "ACC-CBL"), TenderCard, nil, PayOptions{})
	require.NoError(t, err)
	e := r.gated(t, &checkAt{clock: r.clock, at: r.clock.Now(), err: damagedError{}}, 0)
	day := e.Today()

	tests := []struct {
		name string
		do   func() error
	}{
		{"card checkout", func() error {
			_, err := sellCard(ctx, e, r.sale(t, "ACC-CASE"), card("4111111111111111"), r.otp())
			return err
		}},
		{"card on an open order", func() error {
			_, err := e.Payments.PayCard(ctx, open.ID, card("4111111111111111"), r.otp())
			return err
		}},
		{"EMI", func() error {
			_, err := openOneTender(ctx, e, r.sale(t, "TV-LG-OLED55C4"), TenderEMI, &EMIPlan{}, PayOptions{})
			return err
		}},
		{"EMI on an open order", func() error {
			_, err := e.Payments.PayEMI(ctx, open.ID, card("4111111111111111"), r.otp())
			return err
		}},
		{"on the phone", func() error {
			_, err := sellOnPhone(ctx, e, r.sale(t, "ACC-CASE"), PayOptions{})
			return err
		}},
		{"await", func() error {
			_, err := e.Payments.Await(ctx, open.ID, PayOptions{})
			return err
		}},
		{"cash", func() error {
			_, err := sellCash(ctx, e, r.sale(t, "ACC-CBL"), Rupees(500))
			return err
		}},
		{"refund", func() error {
			_, err := e.Refunds.Refund(ctx, RefundRequest{OrderID: paid.Order.ID, PIN: managerPIN})
			return err
		}},
		{"reconcile", func() error {
			_, err := e.Payments.Reconcile(ctx)
			return err
		}},
		{"day close", func() error {
			_, err := e.Ledger.CloseDay(ctx, day, managerPIN)
			return err
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			commits, captures := r.j.commitCount(), r.captures()
			err := tt.do()
			require.Error(t, err)
			assert.ErrorIs(t, err, errDamaged)
			assert.Equal(t, damagedError{}.Sentence(), Sentence(err))
			assert.Equal(t, commits, r.j.commitCount(), "nothing journaled")
			assert.Equal(t, captures, r.captures(), "nothing charged")
		})
	}

	// Reads go on.
	o, err := e.Order(ctx, paid.Order.ID)
	require.NoError(t, err)
	assert.Equal(t, StatePaid, o.State)
	rep, err := e.Ledger.Report(ctx, day)
	require.NoError(t, err)
	assert.NotNil(t, rep)
	evs, err := e.Journal().Events(ctx, paid.Order.ID)
	require.NoError(t, err)
	assert.NotEmpty(t, evs)
}

func TestJournalCheckThatDoesNotFinish(t *testing.T) {
	tests := []struct {
		name     string
		ctx      func(t *testing.T) context.Context
		wantErr  error
		sentence string
	}{
		{"the wait runs out", func(t *testing.T) context.Context { return t.Context() },
			ErrJournalChecking, "The journal is still being checked; try again in a moment."},
		{"the caller gives up", func(t *testing.T) context.Context {
			ctx, cancel := context.WithCancel(t.Context())
			cancel()
			return ctx
		}, context.Canceled, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := newRig(t)
			start := r.clock.Now()
			e := r.gated(t, &checkAt{clock: r.clock, at: start.Add(time.Hour)}, 5*time.Second)
			commits := r.j.commitCount()
			_, err := sellCard(tt.ctx(t), e, r.sale(t, "ACC-CASE"), gateway.NewCard("4111111111111111", "12", "2030", "123", "Test Holder"), r.otp())
			require.ErrorIs(t, err, tt.wantErr)
			if tt.sentence != "" {
				assert.Equal(t, tt.sentence, Sentence(err))
				assert.Equal(t, start.Add(5*time.Second), r.clock.Now(), "waited HealthWait, no longer")
			}
			assert.Equal(t, commits, r.j.commitCount(), "nothing journaled")
		})
	}
}
