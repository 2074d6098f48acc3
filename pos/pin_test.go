package pos

import (
	"bytes"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestPINAttemptsLockAfterTheLimit(t *testing.T) {
	now := time.Date(2026, 11, 24, 10, 0, 0, 0, time.UTC)
	var a PINAttempts
	for i := 1; i < MaxPINAttempts; i++ {
		a = a.After(false, now)
		require.Equal(t, i, a.Failed, "wrong PIN %d", i)
		var wrong *WrongPINError
		require.ErrorAs(t, a.WrongPIN(), &wrong)
		assert.Equal(t, MaxPINAttempts-i, wrong.AttemptsLeft)
		assert.False(t, a.Locked(now))
	}
	a = a.After(false, now)
	assert.Equal(t, PINAttempts{LockedUntil: now.Add(LockDuration)}, a, "the limit's wrong PIN locks and starts the count again")
	assert.ErrorIs(t, a.WrongPIN(), ErrLocked)
	assert.True(t, a.Locked(now.Add(LockDuration-time.Second)))
	assert.False(t, a.Locked(now.Add(LockDuration)))
	assert.Equal(t, PINAttempts{}, PINAttempts{Failed: 3}.After(true, now), "a right PIN clears the count")
}

func TestHashPINIsTheStaffRecordsHash(t *testing.T) {
	pepper := bytes.Repeat([]byte{7}, 32)
	var s Staff
	require.NoError(t, s.SetPIN("246810", MinPINCost, pepper, nil))
	assert.Equal(t, HashPIN("246810", pepper, s.Salt, MinPINCost), s.PINHash)
	assert.True(t, PINHashMatches(s.PINHash, "246810", pepper, s.Salt, MinPINCost))
	assert.False(t, PINHashMatches(s.PINHash, "246811", pepper, s.Salt, MinPINCost), "a wrong PIN")
	assert.False(t, PINHashMatches(s.PINHash, "246810", pepper[:31], s.Salt, MinPINCost), "another pepper")
	assert.False(t, PINHashMatches(HashPIN("246810", pepper, s.Salt, PINCost{1, 1024}), "246810", pepper, s.Salt, PINCost{1, 1024}),
		"a hash below the minimum cost never matches")
	_, _, err := NewPINHash("123", pepper, MinPINCost, nil)
	assert.ErrorIs(t, err, ErrBadPIN)
	_, _, err = NewPINHash("246810", pepper, PINCost{1, 1024}, nil)
	assert.ErrorIs(t, err, ErrWeakPINHash)
}
