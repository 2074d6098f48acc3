package link_test

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"galla/pos"
	"galla/store/api"
	"galla/store/link"
)

// TestLargeEventsGoInBatchesTheServerTakes: events whose bodies together pass
// what the server takes in one batch (api.MaxBody) are sent in batches under
// it, so the server's limit never refuses a journal the counter wrote.
func TestLargeEventsGoInBatchesTheServerTakes(t *testing.T) {
	s := newStoreServer(t)
	dir := t.TempDir()
	cfg := s.enrol(t, "T1", dir)
	j := openJournal(t, dir)
	big, err := json.Marshal(strings.Repeat("x", 5<<20))
	require.NoError(t, err)
	for range 5 { // 25 MiB in all
		_, err := j.Log.Append(t.Context(), pos.Event{Kind: pos.EvSettingsChanged, Time: time.Now(), Day: time.Now().Format(pos.DayLayout), Staff: "001",
			Setting: &pos.Setting{Key: "note", Value: big}})
		require.NoError(t, err)
	}
	require.Greater(t, 5*len(big), api.MaxBody, "the journal is larger than one batch may be")

	l, err := link.New(cfg, j.Log)
	require.NoError(t, err)
	res, err := l.Sync(t.Context())
	require.NoError(t, err)
	assert.Equal(t, link.Result{Sent: 5, Held: 5}, res)
	checkHeld(t, s.db.Pool(), "T1", j)
}
