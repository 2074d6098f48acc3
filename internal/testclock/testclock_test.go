package testclock

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestClock(t *testing.T) {
	start := time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC)
	c := New(start)
	require.NoError(t, c.Sleep(t.Context(), 2*time.Second))
	c.Advance(time.Minute)
	assert.Equal(t, start.Add(time.Minute+2*time.Second), c.Now())
	assert.Equal(t, []time.Duration{2 * time.Second}, c.Sleeps())

	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	assert.ErrorIs(t, c.Sleep(ctx, time.Hour), context.Canceled)
	assert.Equal(t, start.Add(time.Minute+2*time.Second), c.Now(), "a cancelled sleep does not move the clock")

	ran := 0
	s := c.Script(map[int]func(){2: func() { ran++ }})
	require.NoError(t, s.Sleep(t.Context(), time.Second))
	assert.Zero(t, ran)
	require.NoError(t, s.Sleep(t.Context(), time.Second))
	assert.Equal(t, 1, ran, "the step of the second wait ran")
}

func TestRealClock(t *testing.T) {
	c := Real(time.Millisecond)
	before := time.Now()
	require.NoError(t, c.Sleep(t.Context(), time.Hour))
	assert.False(t, c.Now().Before(before.Add(time.Hour)), "the hour slept is skipped, not waited")
	assert.Less(t, time.Since(before), time.Hour)
}
