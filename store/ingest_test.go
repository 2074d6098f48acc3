package store

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"galla/store/api"
)

// The body's hash and prev_hash are compared with the envelope's without
// regard to case (the envelope's are hex, decoded); any other difference
// refuses the batch.
func TestIngestComparesTheBodysHashes(t *testing.T) {
	rebody := func(e api.Event, f func(m map[string]any)) api.Event {
		var m map[string]any
		require.NoError(t, json.Unmarshal(e.Body, &m))
		f(m)
		b, err := json.Marshal(m)
		require.NoError(t, err)
		e.Body = b
		return e
	}
	other := strings.Repeat("ab", 32)
	for _, tc := range []struct {
		name string
		edit func(m map[string]any)
		want string // "" when the batch is taken
	}{
		{"hashes in capitals", func(m map[string]any) {
			m["hash"] = strings.ToUpper(m["hash"].(string))
			m["prev_hash"] = strings.ToUpper(m["prev_hash"].(string))
		}, ""},
		{"no hashes in the body", func(m map[string]any) { delete(m, "hash"); delete(m, "prev_hash") }, ""},
		{"another hash", func(m map[string]any) { m["hash"] = other }, "event 2: the body's seq, hash"},
		{"another hash in capitals", func(m map[string]any) { m["hash"] = strings.ToUpper(other) }, "event 2: the body's seq, hash"},
		{"another prev_hash", func(m map[string]any) { m["prev_hash"] = other }, "event 2: the body's seq, hash"},
		{"a hash that is not a string", func(m map[string]any) { m["hash"] = 7 }, "event 2: the body's seq, hash"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			db := newDB(t)
			enrolled(t, db, "T1")
			evs := chain(zero, 1, 3, "a")
			evs[1] = rebody(evs[1], tc.edit)
			resp, err := db.Events.Ingest(t.Context(), "T1", evs)
			n, _ := count(t, db, "T1")
			if tc.want == "" {
				require.NoError(t, err)
				assert.Equal(t, 3, resp.Stored)
				assert.Equal(t, 3, n)
				return
			}
			ae := apiErr(t, err)
			assert.Equal(t, api.CodeMalformed, ae.Code)
			assert.Contains(t, ae.Message, tc.want)
			assert.Zero(t, n)
		})
	}
}
