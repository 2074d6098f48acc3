package journal

import (
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"os"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"galla/pos"
)

// TestEventsFromAcrossChunks walks more events than one read transaction
// holds: every event once, in order; one appended during the walk may follow.
func TestEventsFromAcrossChunks(t *testing.T) {
	j := openTest(t)
	ctx := t.Context()
	at := time.Date(2026, 11, 27, 10, 0, 0, 0, time.UTC)
	n := 2*eventsChunk + 17
	for i := range n {
		_, err := j.Log.Append(ctx, pos.Event{Time: at.Add(time.Duration(i) * time.Second), Kind: pos.EvSettingsChanged,
			Setting: &pos.Setting{Key: "k", Value: []byte(`1`)}})
		require.NoError(t, err)
	}
	var seqs []uint64
	require.NoError(t, j.Log.EventsFrom(ctx, 1, func(ev pos.Event) error {
		seqs = append(seqs, ev.Seq)
		if ev.Seq == uint64(n) {
			_, err := j.Log.Append(ctx, pos.Event{Time: at.Add(time.Hour), Kind: pos.EvSettingsChanged,
				Setting: &pos.Setting{Key: "late", Value: []byte(`2`)}})
			return err
		}
		return nil
	}))
	require.GreaterOrEqual(t, len(seqs), n)
	require.LessOrEqual(t, len(seqs), n+1)
	for i, s := range seqs {
		assert.Equal(t, uint64(i+1), s)
	}
}

// TestEventsFromLetsFnWriteAndRead: fn writes enough to grow the file (bbolt
// maps it again, which waits for every read transaction to end) and reads the
// journal again. Inside one read transaction held over the whole walk, the
// write would wait for that transaction and the walk for the write.
func TestEventsFromLetsFnWriteAndRead(t *testing.T) {
	j := openTest(t)
	ctx := t.Context()
	at := time.Date(2026, 11, 27, 10, 0, 0, 0, time.UTC)
	for i := range 3 {
		_, err := j.Log.Append(ctx, pos.Event{Time: at.Add(time.Duration(i) * time.Second), Kind: pos.EvSettingsChanged,
			Setting: &pos.Setting{Key: "k", Value: []byte(`1`)}})
		require.NoError(t, err)
	}
	st, err := os.Stat(j.Path())
	require.NoError(t, err)
	before := st.Size()

	done := make(chan error, 1)
	go func() {
		done <- j.Log.EventsFrom(ctx, 1, func(ev pos.Event) error {
			if ev.Seq != 1 {
				return nil
			}
			for i := range 64 {
				noise := make([]byte, 32<<10)
				_, _ = rand.Read(noise)
				_, err := j.Log.Append(ctx, pos.Event{Time: at.Add(time.Minute + time.Duration(i)*time.Second), Kind: pos.EvSettingsChanged,
					Setting: &pos.Setting{Key: "noise", Value: []byte(`"` + hex.EncodeToString(noise) + `"`)}})
				if err != nil {
					return err
				}
				if _, err := j.Log.Event(ctx, 1); err != nil {
					return err
				}
			}
			return nil
		})
	}()
	select {
	case err := <-done:
		require.NoError(t, err)
	case <-time.After(time.Minute):
		// Not t.Fatal nor a panic: the test's clean-up would close the
		// journal, which waits for the walk forever.
		fmt.Fprintln(os.Stderr, "FAIL: TestEventsFromLetsFnWriteAndRead: the walk and a write that grows the file wait for each other")
		os.Exit(1)
	}
	st, err = os.Stat(j.Path())
	require.NoError(t, err)
	assert.Greater(t, st.Size(), 2*before, "the writes grew the file, so bbolt mapped it again")
}
