package pos

import (
	"errors"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestWrongPINsAgainstAManagersNameNeverLockTheManager types wrong PINs
// against the manager's name at the sign-in (the window's, or the command
// line's --staff NAME), far past the limit that locks a cashier: the manager
// is never locked; past FreeManagerPINs the next try waits, growing to
// MaxManagerPINWait and no more; while it waits even the right PIN is not
// checked; once the wait is over the manager's right PIN signs in, and is told
// how many wrong PINs came before. Every try is journaled.
func TestWrongPINsAgainstAManagersNameNeverLockTheManager(t *testing.T) {
	r := newRig(t)
	tl := r.till(t)
	ctx := t.Context()
	_, err := r.e.Roster().AddStaff(ctx, "Ravi", RoleCashier, "1234")
	require.NoError(t, err)

	var waits []time.Duration
	tries := 0
	for range 3 * MaxPINAttempts {
		_, err = tl.Crew.SignIn(ctx, "Meera", "999999")
		tries++
		var slowed *SlowedError
		if errors.As(err, &slowed) {
			w := slowed.Until.Sub(r.clock.Now())
			waits = append(waits, w)
			assert.LessOrEqual(t, w, MaxManagerPINWait, "a wait is never longer than MaxManagerPINWait")
			// Typed during the wait, even the manager's own PIN is not checked.
			_, err := tl.Crew.SignIn(ctx, "Meera", managerPIN)
			assert.ErrorIs(t, err, ErrSlowed)
			assert.NotErrorIs(t, err, ErrLocked)
			tries++
			r.clock.Advance(w)
			continue
		}
		assert.ErrorIs(t, err, ErrWrongPIN)
	}
	require.NotEmpty(t, waits, "wrong PINs past FreeManagerPINs slow the next try")
	assert.Equal(t, ManagerPINWait, waits[0])
	assert.Equal(t, MaxManagerPINWait, waits[len(waits)-1], "the wait grows to its cap")

	all, err := r.j.List(ctx)
	require.NoError(t, err)
	for _, s := range all {
		assert.False(t, s.Locked(r.clock.Now()), "%s is never locked out", s.Name)
	}

	m, err := tl.Crew.SignIn(ctx, "Meera", managerPIN)
	require.NoError(t, err, "the manager's right PIN works once the wait is over")
	assert.True(t, m.Manager())
	assert.Equal(t, 3*MaxPINAttempts, m.WrongPINs, "the manager is told of the wrong PINs typed against their name")
	assert.Contains(t, m.WrongPINsNotice(), "30 wrong PINs were typed against your name at this counter")

	failed := 0
	for _, ev := range r.j.allEvents() {
		if ev.Kind == EvStaffSignInFail {
			failed++
		}
	}
	assert.Equal(t, tries, failed, "every refused try is journaled")

	// A cashier is still locked after MaxPINAttempts.
	for range MaxPINAttempts {
		_, err = tl.Crew.SignIn(ctx, "Ravi", "0000")
	}
	assert.ErrorIs(t, err, ErrLocked)
}

func TestManagerWaitGrowsToItsCap(t *testing.T) {
	now := time.Date(2026, 11, 24, 10, 0, 0, 0, time.UTC)
	a := PINAttempts{Slow: true}
	for i := 1; i <= FreeManagerPINs; i++ {
		a = a.After(false, now)
		assert.NoError(t, a.Refused(now), "wrong PIN %d costs no wait", i)
		assert.ErrorIs(t, a.WrongPIN(), ErrWrongPIN)
	}
	want := ManagerPINWait
	for range 10 {
		a = a.After(false, now)
		assert.Equal(t, now.Add(want), a.LockedUntil)
		assert.False(t, a.Locked(now), "a manager is never locked")
		assert.ErrorIs(t, a.Refused(now), ErrSlowed)
		assert.NoError(t, a.Refused(now.Add(want)))
		want = min(2*want, MaxManagerPINWait)
	}
	assert.Equal(t, PINAttempts{Slow: true}, a.After(true, now), "a right PIN clears the count and the wait")
}
