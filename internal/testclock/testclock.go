// Package testclock is the one controllable clock of Galla's tests. Its Now and
// Sleep satisfy pos.Clock, its Now the gateway's and the sandbox's time functions.
// Sleep moves the clock on at once (a poll schedule of twenty minutes takes no
// time) and remembers the waits; a Script runs a step before a chosen wait.
//
// It imports no package of Galla's, so that every package's tests may use it.
package testclock

import (
	"context"
	"sync"
	"time"
)

// Clock is a settable clock, safe for concurrent use. The zero value is not
// usable: make one with New or Real.
type Clock struct {
	mu     sync.Mutex
	now    time.Time
	real   bool          // Now is the real time plus what Sleep skipped
	pace   time.Duration // Real: each Sleep also waits this long for real
	skip   time.Duration // Real: what Sleep and Advance skipped
	sleeps []time.Duration
}

// New returns a clock standing at start.
func New(start time.Time) *Clock { return &Clock{now: start} }

// Real returns a clock that follows the real time, moved on by every Sleep, whose
// Sleep waits pace for real (letting other goroutines and processes run) instead
// of the whole duration.
func Real(pace time.Duration) *Clock { return &Clock{real: true, pace: pace} }

// Now returns the clock's time.
func (c *Clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.real {
		return time.Now().Add(c.skip)
	}
	return c.now
}

// Advance moves the clock on by d.
func (c *Clock) Advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.real {
		c.skip += d
		return
	}
	c.now = c.now.Add(d)
}

// Sleep moves the clock on by d and returns at once, or returns ctx.Err() when
// ctx is done. A Real clock waits its pace for real first.
func (c *Clock) Sleep(ctx context.Context, d time.Duration) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	if c.real && c.pace > 0 {
		t := time.NewTimer(c.pace)
		defer t.Stop()
		select {
		case <-t.C:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.real {
		c.skip += d
	} else {
		c.now = c.now.Add(d)
	}
	c.sleeps = append(c.sleeps, d)
	return nil
}

// Sleeps returns the waits asked of Sleep so far, in order.
func (c *Clock) Sleeps() []time.Duration {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]time.Duration(nil), c.sleeps...)
}

// Script is a view of a Clock whose nth Sleep (from 1) first runs steps[n]: a
// test's script of what happens elsewhere while the code under test waits.
type Script struct {
	*Clock
	mu    sync.Mutex
	n     int
	steps map[int]func()
}

// Script returns a view of c that runs steps before its waits.
func (c *Clock) Script(steps map[int]func()) *Script { return &Script{Clock: c, steps: steps} }

// Sleep runs the step of this wait, if any, then sleeps on the clock.
func (s *Script) Sleep(ctx context.Context, d time.Duration) error {
	s.mu.Lock()
	s.n++
	step := s.steps[s.n]
	s.mu.Unlock()
	if step != nil {
		step()
	}
	return s.Clock.Sleep(ctx, d)
}
