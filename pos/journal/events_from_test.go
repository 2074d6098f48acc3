package journal

import (
	"errors"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"galla/pos"
)

func TestEventsFrom(t *testing.T) {
	j := openTest(t)
	ctx := t.Context()
	at := time.Date(2026, 11, 24, 10, 0, 0, 0, time.UTC)
	for i, key := range []string{"a", "b", "c"} {
		_, err := j.Log.Append(ctx, pos.Event{Time: at.Add(time.Duration(i) * time.Minute), Kind: pos.EvSettingsChanged,
			Setting: &pos.Setting{Key: key, Value: []byte(`1`)}})
		require.NoError(t, err)
	}
	var seqs []uint64
	var keys []string
	require.NoError(t, j.Log.EventsFrom(ctx, 2, func(ev pos.Event) error {
		seqs = append(seqs, ev.Seq)
		keys = append(keys, ev.Setting.Key)
		return nil
	}))
	assert.Equal(t, []uint64{2, 3}, seqs)
	assert.Equal(t, []string{"b", "c"}, keys)

	stop := errors.New("stop")
	n := 0
	err := j.Log.EventsFrom(ctx, 0, func(pos.Event) error { n++; return stop })
	assert.ErrorIs(t, err, stop)
	assert.Equal(t, 1, n, "fn's error stops the walk")
	require.NoError(t, j.Log.EventsFrom(ctx, 4, func(pos.Event) error { t.Error("no event after the last"); return nil }))
}
