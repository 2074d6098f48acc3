package store

import (
	"math/rand/v2"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"galla/store/api"
)

// TestCopiesShareOneDatabase: two copies of the server (two pools on one
// database) take overlapping batches of the same terminals at once, as behind
// a load balancer when a terminal resends to another copy. Every event is
// stored once, without a gap, and no fork is seen.
func TestCopiesShareOneDatabase(t *testing.T) {
	url := cluster.Database(t)
	key := testKey(t) // every copy is given the store's key
	a, err := Open(t.Context(), url, key)
	require.NoError(t, err)
	defer a.Close()
	_, err = a.Migrate(t.Context())
	require.NoError(t, err)
	b, err := Open(t.Context(), url, key)
	require.NoError(t, err)
	defer b.Close()
	require.NoError(t, b.CheckSchema(t.Context()))
	copies := []*DB{a, b}

	const n = 600
	terms := map[string][]api.Event{"T1": chain(zero, 1, n, "t1"), "T2": chain(zero, 1, n, "t2")}
	for id := range terms {
		enrolled(t, a, id)
	}
	var wg sync.WaitGroup
	for w := range 8 {
		id := []string{"T1", "T2"}[w%2]
		evs := terms[id]
		wg.Add(1)
		go func() {
			defer wg.Done()
			held := uint64(0)
			for held < n {
				// From a little before what this sender last saw held (a
				// resend), a random length.
				from := uint64(0)
				if held > 0 {
					from = held - min(held, uint64(rand.IntN(30)))
				}
				to := min(uint64(n), from+uint64(1+rand.IntN(80)))
				resp, err := copies[rand.IntN(2)].Events.Ingest(t.Context(), id, evs[from:to])
				if err != nil {
					ae := apiErr(t, err)
					if !assert.Equal(t, api.CodeGap, ae.Code, ae.Message) {
						return
					}
					held = ae.Expected - 1
					continue
				}
				held = resp.Held
			}
		}()
	}
	wg.Wait()
	for id := range terms {
		cnt, maxSeq := count(t, a, id)
		assert.Equal(t, n, cnt, id)
		assert.Equal(t, int64(n), maxSeq, id)
		var distinct int
		require.NoError(t, a.Pool().QueryRow(t.Context(), "SELECT count(DISTINCT seq) FROM events WHERE terminal_id = $1", id).Scan(&distinct))
		assert.Equal(t, n, distinct)
	}
	alarms, err := a.Access.Alarms(t.Context(), true)
	require.NoError(t, err)
	assert.Empty(t, alarms)
}
