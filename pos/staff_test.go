package pos

import (
	"bytes"
	"context"
	"crypto/pbkdf2"
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"golang.org/x/crypto/argon2"
)

// newRoster returns a roster over a fresh MemStaff with a manager "001" (PIN 135700)
// and a cashier "002" (PIN 2468), hashed with the fewest iterations allowed.
func newRoster(t *testing.T) (*Roster, *MemStaff) {
	t.Helper()
	store := NewMemStaff()
	r := NewRoster(store).WithIterations(MinPINIterations)
	m, err := r.AddStaff(t.Context(), "Asha Rao", RoleManager, "135700")
	require.NoError(t, err)
	require.Equal(t, "001", m.ID)
	c, err := r.AddStaff(t.Context(), "  Ravi   Kumar ", RoleCashier, "2468")
	require.NoError(t, err)
	require.Equal(t, "002", c.ID)
	require.Equal(t, "Ravi Kumar", c.Name)
	return r, store
}

func TestAddStaff(t *testing.T) {
	ctx := t.Context()
	r := NewRoster(NewMemStaff()).WithIterations(MinPINIterations)
	_, err := r.AddStaff(ctx, "Ravi", RoleCashier, "2468")
	require.ErrorIs(t, err, ErrFirstStaffManager)

	r, store := newRoster(t)
	tests := []struct {
		name string
		role Role
		pin  string
		want error
	}{
		{"asha rao", RoleCashier, "1111", ErrStaffExists},
		{"", RoleCashier, "1111", ErrBadStaffName},
		{"Meena", "owner", "1111", ErrBadRole},
		{"Meena", RoleCashier, "123", ErrBadPIN},
		{"Meena", RoleCashier, "123456789", ErrBadPIN},
		{"Meena", RoleCashier, "12a4", ErrBadPIN},
		{"Meena", RoleCashier, "١٢٣٤", ErrBadPIN},
	}
	for _, tt := range tests {
		_, err := r.AddStaff(ctx, tt.name, tt.role, tt.pin)
		assert.ErrorIs(t, err, tt.want, "AddStaff(%q, %q, %q)", tt.name, tt.role, tt.pin)
	}
	all, err := store.List(ctx)
	require.NoError(t, err)
	require.Len(t, all, 2, "refused members are not stored")

	m, c := all[0], all[1]
	assert.Equal(t, AlgoArgon2id, m.Algo)
	assert.Equal(t, int(MinPINCost.Time), m.Iterations)
	assert.Equal(t, MinPINCost.MemoryKiB, m.Memory)
	assert.Len(t, m.Salt, 16)
	assert.Len(t, m.PINHash, 32)
	assert.NotEqual(t, m.Salt, c.Salt, "each PIN has its own salt")
	want := argon2.IDKey([]byte("135700"), m.Salt, MinPINCost.Time, MinPINCost.MemoryKiB, 1, 32)
	assert.Equal(t, want, m.PINHash, "the hash is argon2id of the PIN (no pepper set)")
	assert.False(t, bytes.Contains(m.PINHash, []byte("135700")))
	assert.Equal(t, "Asha Rao (manager)", fmt.Sprint(m), "printing staff shows no hash")

	// The record survives JSON (the journal stores it so).
	data, err := json.Marshal(m)
	require.NoError(t, err)
	var back Staff
	require.NoError(t, json.Unmarshal(data, &back))
	stored := m
	stored.Recorded = false // the store's word on the record, never stored
	assert.Equal(t, stored, back)
	assert.True(t, back.PINMatches("135700", nil))

	// Fewer iterations than the minimum are refused.
	_, err = NewRoster(NewMemStaff()).WithIterations(MinPINIterations-1).AddStaff(ctx, "X", RoleManager, "123456")
	assert.ErrorIs(t, err, ErrWeakPINHash)
	assert.GreaterOrEqual(t, DefaultPINIterations, MinPINIterations)
}

func TestSignIn(t *testing.T) {
	ctx := t.Context()
	r, store := newRoster(t)
	now := time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC)

	s, err := r.SignIn(ctx, "002", "2468", now)
	require.NoError(t, err)
	assert.Equal(t, "Ravi Kumar", s.Name)

	_, err = r.SignIn(ctx, "009", "2468", now)
	assert.ErrorIs(t, err, ErrUnknownStaff)

	_, err = r.SignIn(ctx, "002", "135700", now)
	var wrong *WrongPINError
	require.ErrorAs(t, err, &wrong)
	assert.ErrorIs(t, err, ErrWrongPIN)
	assert.Equal(t, MaxPINAttempts-1, wrong.AttemptsLeft)
	_, err = r.SignIn(ctx, "002", "12", now) // not a PIN at all: also a wrong attempt
	require.ErrorAs(t, err, &wrong)
	assert.Equal(t, MaxPINAttempts-2, wrong.AttemptsLeft)

	// A correct PIN resets the count.
	_, err = r.SignIn(ctx, "002", "2468", now)
	require.NoError(t, err)
	rec, err := store.Get(ctx, "002")
	require.NoError(t, err)
	assert.Equal(t, 0, rec.FailedAttempts)

	// A damaged or weak record never signs in.
	weak := rec
	weak.ID, weak.Algo, weak.Iterations = "003", "", 1000
	weak.PINHash, _ = pbkdf2.Key(sha256.New, "2468", weak.Salt, 1000, 32)
	require.NoError(t, store.Put(ctx, weak))
	assert.False(t, weak.PINMatches("2468", nil))
	_, err = r.SignIn(ctx, "003", "2468", now)
	assert.ErrorIs(t, err, ErrWeakPINHash)
}

func TestSignInLock(t *testing.T) {
	ctx := t.Context()
	r, store := newRoster(t)
	now := time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC)

	for i := 1; i < MaxPINAttempts; i++ {
		_, err := r.SignIn(ctx, "002", "0000", now.Add(time.Duration(i)*time.Second))
		var wrong *WrongPINError
		require.ErrorAs(t, err, &wrong, "attempt %d", i)
		require.Equal(t, MaxPINAttempts-i, wrong.AttemptsLeft, "attempt %d", i)
	}
	at := now.Add(time.Minute)
	_, err := r.SignIn(ctx, "002", "0000", at)
	var locked *LockedError
	require.ErrorAs(t, err, &locked, "the tenth wrong PIN locks")
	assert.ErrorIs(t, err, ErrLocked)
	assert.Equal(t, at.Add(LockDuration), locked.Until)

	// Locked: even the right PIN is refused until the lock ends.
	_, err = r.SignIn(ctx, "002", "2468", at.Add(LockDuration-time.Second))
	assert.ErrorIs(t, err, ErrLocked)
	// Others are not locked.
	_, err = r.SignIn(ctx, "001", "135700", at)
	assert.NoError(t, err)

	s, err := r.SignIn(ctx, "002", "2468", at.Add(LockDuration))
	require.NoError(t, err)
	assert.Equal(t, 0, s.FailedAttempts)
	assert.True(t, s.LockedUntil.IsZero())
	rec, err := store.Get(ctx, "002")
	require.NoError(t, err)
	assert.False(t, rec.Locked(at.Add(LockDuration)))

	// A manager's reset lifts a lock too.
	rec.FailedAttempts, rec.LockedUntil = 0, at.Add(time.Hour)
	require.NoError(t, store.Put(ctx, rec))
	require.NoError(t, r.ChangePIN(ctx, "002", "9753"))
	_, err = r.SignIn(ctx, "002", "9753", at)
	assert.NoError(t, err)
}

func TestAuthoriseManager(t *testing.T) {
	ctx := t.Context()
	r, store := newRoster(t)
	now := time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC)

	m, err := r.AuthoriseManager(ctx, "135700", now)
	require.NoError(t, err)
	assert.Equal(t, "001", m.ID)

	for range 2 * MaxPINAttempts {
		_, err = r.AuthoriseManager(ctx, "2468", now) // the cashier's PIN
		assert.ErrorIs(t, err, ErrWrongPIN)
	}
	mgr, err := store.Get(ctx, "001")
	require.NoError(t, err)
	assert.Equal(t, 0, mgr.FailedAttempts, "wrong manager PINs lock no manager out")
	assert.False(t, mgr.Locked(now))
	cashier, err := store.Get(ctx, "002")
	require.NoError(t, err)
	assert.Equal(t, 0, cashier.FailedAttempts, "the cashier is not counted")

	// A manager whose next try must wait is skipped; with every manager
	// waiting the error says until when.
	mgr.FailedAttempts, mgr.LockedUntil = FreeManagerPINs+1, now.Add(ManagerPINWait)
	require.NoError(t, store.Put(ctx, mgr))
	_, err = r.AuthoriseManager(ctx, "135700", now)
	var slowed *SlowedError
	require.ErrorAs(t, err, &slowed)
	assert.Equal(t, now.Add(ManagerPINWait), slowed.Until)
	_, err = r.AuthoriseManager(ctx, "135700", now.Add(ManagerPINWait))
	assert.NoError(t, err, "once the wait is over the manager's PIN works")

	// No manager at all.
	empty := NewMemStaff()
	require.NoError(t, empty.Put(ctx, cashier))
	_, err = NewRoster(empty).AuthoriseManager(ctx, "2468", now)
	assert.ErrorIs(t, err, ErrNoManager)
}

func TestMemStaff(t *testing.T) {
	ctx := t.Context()
	m := NewMemStaff()
	s := Staff{ID: "007", Name: "Bond", Role: RoleCashier, Salt: []byte{1}, PINHash: []byte{2}}
	require.NoError(t, m.Put(ctx, s))
	s.Salt[0] = 9
	got, err := m.Get(ctx, "007")
	require.NoError(t, err)
	assert.Equal(t, byte(1), got.Salt[0], "Put stores a copy")
	_, err = m.Get(ctx, "008")
	assert.ErrorIs(t, err, ErrUnknownStaff)
	assert.Error(t, m.Put(ctx, Staff{}), "an ID is needed")

	cancelled, cancel := context.WithCancel(ctx)
	cancel()
	_, err = m.List(cancelled)
	assert.ErrorIs(t, err, context.Canceled)
}

func TestParseRole(t *testing.T) {
	for in, want := range map[string]Role{"cashier": RoleCashier, " Manager ": RoleManager} {
		got, err := ParseRole(in)
		require.NoError(t, err)
		assert.Equal(t, want, got, "ParseRole(%q)", in)
	}
	_, err := ParseRole("owner")
	assert.ErrorIs(t, err, ErrBadRole)
}

// TestPINPepperAndUpgrade: with a pepper the journal's hash alone cannot test a
// guess (the same PIN hashed without the pepper does not match), a record of an
// earlier version (PBKDF2) still signs in and is rehashed with argon2id at its
// right PIN, and an argon2id record made cheap by editing never matches.
func TestPINPepperAndUpgrade(t *testing.T) {
	ctx := t.Context()
	store := NewMemStaff()
	pepper := []byte("a pepper kept in the keyring, 32b")
	r := NewRoster(store).WithIterations(MinPINIterations).WithPepper(pepper)
	s, err := r.AddStaff(ctx, "Asha", RoleManager, "135790")
	require.NoError(t, err)
	assert.True(t, s.PINMatches("135790", pepper))
	assert.False(t, s.PINMatches("135790", nil), "without the pepper the hash proves nothing")
	offline := argon2.IDKey([]byte("135790"), s.Salt, uint32(s.Iterations), s.Memory, 1, 32)
	assert.NotEqual(t, offline, s.PINHash, "a guess tested against the journal alone fails")

	old := Staff{ID: "002", Name: "Ravi", Role: RoleCashier, Iterations: MinPINIterations, Salt: []byte("sixteen byte slt")}
	old.PINHash, err = pbkdf2.Key(sha256.New, "2468", old.Salt, old.Iterations, 32)
	require.NoError(t, err)
	require.NoError(t, store.Put(ctx, old))
	now := time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC)
	_, err = r.SignIn(ctx, "002", "2468", now)
	require.NoError(t, err, "an earlier version's PIN still signs in")
	up, err := store.Get(ctx, "002")
	require.NoError(t, err)
	assert.Equal(t, AlgoArgon2id, up.Algo, "and is rehashed at once")
	assert.True(t, up.PINMatches("2468", pepper))

	cheap := up
	cheap.Memory = 64
	assert.False(t, cheap.PINMatches("2468", pepper), "a cost below the minimum never matches")
}

// putCounter counts the whole records stored; through its MemStaff it is an
// AttemptRecorder.
type putCounter struct {
	*MemStaff
	puts int
}

func (p *putCounter) Put(ctx context.Context, s Staff) error {
	p.puts++
	return p.MemStaff.Put(ctx, s)
}

// putOnly is a StaffStore that is no AttemptRecorder.
type putOnly struct{ StaffStore }

// TestAttemptsStoredAlone: over an AttemptRecorder a PIN tried stores the
// counters alone, never the whole record; over a plain StaffStore, the record.
// Both count and lock alike.
func TestAttemptsStoredAlone(t *testing.T) {
	ctx := t.Context()
	now := time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC)
	for _, tt := range []struct {
		name     string
		recorder bool
		wantPuts int
	}{
		{"attempt recorder", true, 0},
		{"put only", false, MaxPINAttempts + 1},
	} {
		t.Run(tt.name, func(t *testing.T) {
			counter := &putCounter{MemStaff: NewMemStaff()}
			var store StaffStore = counter
			if !tt.recorder {
				store = putOnly{counter}
			}
			_, isRecorder := store.(AttemptRecorder)
			require.Equal(t, tt.recorder, isRecorder)
			r := NewRoster(store).WithIterations(MinPINIterations)
			_, err := r.AddStaff(ctx, "Meera", RoleManager, "246802")
			require.NoError(t, err)
			m, err := r.AddStaff(ctx, "Asha", RoleCashier, "135791") // a cashier: a manager is never locked
			require.NoError(t, err)
			counter.puts = 0
			for range MaxPINAttempts - 1 {
				_, err = r.SignIn(ctx, m.ID, "000000", now)
				require.ErrorIs(t, err, ErrWrongPIN)
			}
			rec, err := store.Get(ctx, m.ID)
			require.NoError(t, err)
			assert.Equal(t, MaxPINAttempts-1, rec.FailedAttempts)
			_, err = r.SignIn(ctx, m.ID, "000000", now)
			require.ErrorIs(t, err, ErrLocked)
			rec, err = store.Get(ctx, m.ID)
			require.NoError(t, err)
			assert.Equal(t, now.Add(LockDuration), rec.LockedUntil)
			_, err = r.SignIn(ctx, m.ID, "135791", now.Add(LockDuration))
			require.NoError(t, err)
			rec, err = store.Get(ctx, m.ID)
			require.NoError(t, err)
			assert.Zero(t, rec.FailedAttempts)
			assert.True(t, rec.LockedUntil.IsZero())
			assert.Equal(t, tt.wantPuts, counter.puts, "whole records stored")
			assert.Equal(t, m.PINHash, rec.PINHash)
		})
	}
}

func TestMemStaffRecordAttempt(t *testing.T) {
	assert.ErrorIs(t, NewMemStaff().RecordAttempt(t.Context(), "404", 1, time.Time{}), ErrUnknownStaff)
}

// unvouched is a StaffStore that does not vouch for its records (a file that
// anyone could have edited): Recorded is never set.
type unvouched struct{ StaffStore }

func (u unvouched) Get(ctx context.Context, id string) (Staff, error) {
	s, err := u.StaffStore.Get(ctx, id)
	s.Recorded = false
	return s, err
}

func (u unvouched) List(ctx context.Context) ([]Staff, error) {
	all, err := u.StaffStore.List(ctx)
	for i := range all {
		all[i].Recorded = false
	}
	return all, err
}

// TestOldPINHashNeedsARecordedRecord: a PBKDF2 hash (an earlier version's,
// without a pepper) signs in and is rehashed only from a record its store
// vouches it wrote; from any other it is refused as too weak, for a cashier
// and for a manager's approval alike, and never upgraded.
func TestOldPINHashNeedsARecordedRecord(t *testing.T) {
	ctx := t.Context()
	now := time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC)
	mem := NewMemStaff()
	old := Staff{ID: "001", Name: "Asha", Role: RoleManager, Iterations: MinPINIterations, Salt: []byte("sixteen byte slt")}
	var err error
	old.PINHash, err = pbkdf2.Key(sha256.New, "135790", old.Salt, old.Iterations, 32)
	require.NoError(t, err)
	require.NoError(t, mem.Put(ctx, old))

	r := NewRoster(unvouched{mem}).WithPepper([]byte("a pepper kept in the keyring, 32b"))
	_, err = r.SignIn(ctx, "001", "135790", now)
	assert.ErrorIs(t, err, ErrWeakPINHash, "sign in")
	_, err = r.AuthoriseManager(ctx, "135790", now)
	assert.Error(t, err, "a manager's approval")
	kept, err := mem.Get(ctx, "001")
	require.NoError(t, err)
	assert.Empty(t, kept.Algo, "not upgraded")

	_, err = NewRoster(mem).WithPepper([]byte("a pepper kept in the keyring, 32b")).SignIn(ctx, "001", "135790", now)
	require.NoError(t, err, "from a store that wrote it, it signs in")
}
