package pos

import (
	"bytes"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"galla/internal/testclock"
)

// TestNewIDNeverRepeatsInASecond: the ids of one second are told apart even
// when the random source repeats itself (as 32 random bits do, by the
// birthday odds, among the two ids a sale takes a thousand times over in a
// second that stands still); a new second starts afresh, and a source that
// gives nothing new is refused with an error, not looped on.
func TestNewIDNeverRepeatsInASecond(t *testing.T) {
	clock := testclock.New(time.Date(2026, 11, 22, 10, 0, 0, 0, time.Local))
	// Each 4-byte draw: 1, 1, 2, then 1 again in the next second.
	src := bytes.NewReader([]byte{0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 2, 0, 0, 0, 1})
	e, err := New(Config{Journal: newMemJournal(), Gateway: newRig(t).gw, Clock: clock, Rand: src})
	require.NoError(t, err)
	a, err := e.core.newID("G")
	require.NoError(t, err)
	b, err := e.core.newID("G")
	require.NoError(t, err)
	assert.Equal(t, "G20261122100000-00000001", a)
	assert.Equal(t, "G20261122100000-00000002", b, "the repeat drawn again")
	clock.Advance(time.Second)
	c, err := e.core.newID("G")
	require.NoError(t, err)
	assert.Equal(t, "G20261122100001-00000001", c, "a new second remembers nothing")

	same := bytes.NewReader(bytes.Repeat([]byte{0, 0, 0, 7}, 2*maxIDDraws))
	e, err = New(Config{Journal: newMemJournal(), Gateway: newRig(t).gw, Clock: clock, Rand: same})
	require.NoError(t, err)
	_, err = e.core.newID("G")
	require.NoError(t, err)
	_, err = e.core.newID("G")
	assert.ErrorContains(t, err, "gave 16 ids of this second again")
}
