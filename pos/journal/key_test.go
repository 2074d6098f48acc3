package journal

import (
	"encoding/hex"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	bolt "go.etcd.io/bbolt"

	"galla/pos"
)

// testKey is a terminal's chain key; otherKey another terminal's.
var (
	testKey  = []byte("0123456789abcdef0123456789abcdef")
	otherKey = []byte("fedcba9876543210fedcba9876543210")
)

// keyedJournal writes the representative script and a sale after its Z report
// through a journal keyed with testKey, and returns its path and the events.
func keyedJournal(t *testing.T) (string, []pos.Event) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "data", "journal.db")
	j, err := Open(path, Options{ChainKey: testKey})
	require.NoError(t, err)
	var s script
	stored := appendAll(t, j, s.representative(t))
	stored = append(stored, appendAll(t, j, s.cardSale("G-after", "2026-11-22", 5000))...)
	require.NoError(t, j.Close())
	return path, stored
}

// rechain edits event seq with edit and chains it and every event after it anew
// with sealer s, moving the head: what the old, unkeyed scheme let anyone who
// holds the file do.
func rechain(t *testing.T, path string, seq uint64, s *sealer, edit func(ev *pos.Event)) {
	t.Helper()
	keyed := sealer{key: testKey}
	rawUpdate(t, path, func(tx *bolt.Tx) error {
		events := tx.Bucket(bucketEvents)
		prev, err := keyed.decode(events.Get(u64(seq - 1)))
		require.NoError(t, err)
		h := prev.Hash
		last, _, _ := headIn(events)
		for n := seq; n <= last; n++ {
			r, err := keyed.decode(events.Get(u64(n)))
			require.NoError(t, err)
			ev, err := r.event()
			require.NoError(t, err)
			if n == seq {
				edit(&ev)
			}
			ev.PrevHash = hex.EncodeToString(h[:])
			data, sum, err := s.seal(&ev)
			require.NoError(t, err)
			require.NoError(t, events.Put(u64(n), data))
			h = sum
		}
		return events.SetSequence(headMark(last, h))
	})
}

// TestKeyedChainRefusesAnEditChainedAnew edits a keyed event after the last
// checkpoint (a cash sale's change) and chains the rest anew by hand: with
// SHA-256 as the old scheme allowed, or with a key guessed. Open with the
// terminal's key refuses it, deferred or not, and so does VerifyFileWith.
func TestKeyedChainRefusesAnEditChainedAnew(t *testing.T) {
	tests := []struct {
		name string
		s    *sealer
		want string
	}{
		{"chained anew with SHA-256", &sealer{}, "without the chain key"},
		{"chained anew with another key", &sealer{key: otherKey}, "does not match its hash"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path, stored := keyedJournal(t)
			seq := stored[len(stored)-3].Seq
			rechain(t, path, seq, tt.s, func(ev *pos.Event) { ev.Extra = map[string]string{"note": "edited"} })
			for _, deferred := range []bool{false, true} {
				j, err := Open(path, Options{ChainKey: testKey, DeferVerify: deferred})
				if err == nil {
					err = j.Log.Verify(t.Context())
					_ = j.Close()
				}
				require.ErrorIs(t, err, ErrDamaged, "deferred %v", deferred)
				if !deferred {
					assert.Contains(t, err.Error(), tt.want, "the chain's check")
				} else {
					assert.Contains(t, err.Error(), "head record", "deferred, the head record beside the file")
				}
			}
			_, err := VerifyFileWith(t.Context(), path, Options{ChainKey: testKey})
			require.ErrorIs(t, err, ErrDamaged, "VerifyFileWith")
		})
	}
}

// TestKeyedChainMadeAnewFromTheStart: the whole log chained anew without the key
// and the key check deleted from meta looks like a journal that was never keyed;
// the head record beside the file, sealed with the key, refuses it.
func TestKeyedChainMadeAnewFromTheStart(t *testing.T) {
	path, _ := keyedJournal(t)
	keyed := sealer{key: testKey}
	rawUpdate(t, path, func(tx *bolt.Tx) error {
		events, meta := tx.Bucket(bucketEvents), tx.Bucket(bucketMeta)
		var h [32]byte
		last, _, _ := headIn(events)
		for n := uint64(1); n <= last; n++ {
			r, err := keyed.decode(events.Get(u64(n)))
			require.NoError(t, err)
			ev, err := r.event()
			require.NoError(t, err)
			ev.PrevHash = hex.EncodeToString(h[:])
			data, sum, err := sealEvent(&ev)
			require.NoError(t, err)
			require.NoError(t, events.Put(u64(n), data))
			h = sum
		}
		require.NoError(t, tx.DeleteBucket(bucketCheckpoints)) // rebuilt unkeyed from the events
		require.NoError(t, meta.Delete(metaKey))
		return events.SetSequence(headMark(last, h))
	})
	_, err := Open(path, Options{ChainKey: testKey})
	require.ErrorIs(t, err, ErrCorrupt)
	// The proofs of its records, made with the key, or the head record
	// beside it, sealed with the key, refuse it.
	assert.Contains(t, err.Error(), "made anew")
}

// TestWrongChainKey opens a keyed journal with another terminal's key, and with
// none: refused with a sentence that says the key does not match.
func TestWrongChainKey(t *testing.T) {
	path, _ := keyedJournal(t)
	for _, deferred := range []bool{false, true} {
		_, err := Open(path, Options{ChainKey: otherKey, DeferVerify: deferred})
		require.ErrorIs(t, err, ErrKey)
		require.ErrorIs(t, err, ErrDamaged)
		assert.Contains(t, pos.Sentence(err), "does not match the journal")
		assert.Contains(t, pos.Sentence(err), "another terminal or another user")
		_, err = Open(path, Options{DeferVerify: deferred})
		require.ErrorIs(t, err, ErrKey, "no key for a keyed journal")
		assert.Contains(t, pos.Sentence(err), "no key was found")
	}
	_, err := VerifyFileWith(t.Context(), path, Options{ChainKey: otherKey})
	require.ErrorIs(t, err, ErrKey)
	_, err = VerifyFile(t.Context(), path)
	require.ErrorIs(t, err, ErrKey)

	// Read-only, it opens for its reports and says why it is not trusted.
	j, err := Open(path, Options{ReadOnly: true, ChainKey: otherKey})
	require.NoError(t, err)
	done, verr := j.Log.Verified()
	assert.True(t, done)
	assert.ErrorIs(t, verr, ErrKey)
	require.NoError(t, j.Close())

	rep, err := VerifyFileWith(t.Context(), path, Options{ChainKey: testKey})
	require.NoError(t, err)
	assert.True(t, rep.Verified)
}

// TestKeyedChainKeepsOldEvents opens a journal of schema 2, whose events are of
// format 1 and unkeyed, with a chain key: the old events stay byte for byte and
// verify, the new ones are keyed, and the whole file verifies, replays and
// salvages with the key; the Z digests of the old days do not change.
func TestKeyedChainKeepsOldEvents(t *testing.T) {
	path := filepath.Join(t.TempDir(), "data", "journal.db")
	j, err := Open(path, Options{})
	require.NoError(t, err)
	var s script
	appendAll(t, j, s.representative(t))
	require.NoError(t, j.Close())
	// Write the same events as schema 2 wrote them: format 1.
	old := map[uint64][]byte{}
	rawUpdate(t, path, func(tx *bolt.Tx) error {
		events := tx.Bucket(bucketEvents)
		var h [32]byte
		last, _, _ := headIn(events)
		for n := uint64(1); n <= last; n++ {
			r, err := decodeRecord(events.Get(u64(n)))
			require.NoError(t, err)
			ev, err := r.event()
			require.NoError(t, err)
			ev.PrevHash = hex.EncodeToString(h[:])
			data, sum := sealV1(t, ev)
			require.NoError(t, events.Put(u64(n), data))
			old[n], h = data, sum
		}
		require.NoError(t, tx.DeleteBucket(bucketCheckpoints))
		return asSchema(tx, 2)
	})
	require.NoError(t, os.Remove(HeadPath(path)))
	j, err = Open(path, Options{})
	require.NoError(t, err, "a journal of schema 2 opens")
	oldZ, err := j.Days.ZDigest(t.Context(), 1)
	require.NoError(t, err)
	require.NotEmpty(t, oldZ)
	require.NoError(t, j.Close())

	j, err = Open(path, Options{ChainKey: testKey})
	require.NoError(t, err, "a journal of schema 2 opens with a key")
	z, err := j.Days.ZDigest(t.Context(), 1)
	require.NoError(t, err)
	assert.Equal(t, oldZ, z, "the seal of a Z report of before the key")
	appendAll(t, j, s.cashSale("G-keyed", "2026-11-22", 100))
	require.NoError(t, j.Log.VerifyAll(t.Context()))
	require.NoError(t, j.core.db.View(func(tx *bolt.Tx) error {
		events := tx.Bucket(bucketEvents)
		for n, v := range old {
			assert.Equal(t, v, events.Get(u64(n)), "event %d byte for byte", n)
		}
		r, err := j.core.rec.decode(events.Get(u64(uint64(len(old)) + 1)))
		require.NoError(t, err)
		assert.True(t, r.Keyed, "a new event is keyed")
		assert.Equal(t, SchemaVersion(), schemaOf(tx))
		return nil
	}))
	require.NoError(t, j.Close())

	rep, err := VerifyFileWith(t.Context(), path, Options{ChainKey: testKey})
	require.NoError(t, err)
	assert.True(t, rep.Verified)
	sr, err := SalvageWith(t.Context(), path, "", filepath.Join(t.TempDir(), "new.db"), Options{ChainKey: testKey})
	require.NoError(t, err)
	// The old events, journal.records_proved (its records proved anew with the
	// key it was given) and the cash sale.
	assert.Equal(t, len(old)+3, sr.FromDamaged, "every event, old and keyed")
	assert.Empty(t, sr.Lost)
}

// TestStartUpFindsEditedRecords edits, with bbolt, records written after the
// last checkpoint, the chain left whole: a cashier made manager, an order's
// amount. Open (the start-up check) refuses both.
func TestStartUpFindsEditedRecords(t *testing.T) {
	tests := []struct {
		name   string
		bucket []byte
		key    string
		edit   func(m map[string]any)
	}{
		{"a cashier made manager", bucketStaff, "002", func(m map[string]any) { m["role"] = string(pos.RoleManager) }},
		{"an order's amount", bucketOrders, "G-after", func(m map[string]any) { m["captured"] = 1 }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "data", "journal.db")
			j, err := Open(path, Options{ChainKey: testKey})
			require.NoError(t, err)
			var s script
			appendAll(t, j, s.representative(t))
			staff, err := json.Marshal(pos.Staff{ID: "002", Name: "Ravi", Role: pos.RoleCashier, PINHash: []byte("0123456789abcdef0123456789abcdef"), Salt: []byte("salt-salt-salt-s"), Iterations: pos.MinPINIterations})
			require.NoError(t, err)
			appendAll(t, j, []pos.Event{{Kind: pos.EvStaffAdded, Time: s.next(), Data: staff}})
			appendAll(t, j, s.cardSale("G-after", "2026-11-22", 5000))
			require.NoError(t, j.Close())
			j, err = Open(path, Options{ChainKey: testKey})
			require.NoError(t, err, "untouched, it opens")
			require.NoError(t, j.Close())

			rawUpdate(t, path, func(tx *bolt.Tx) error {
				b := tx.Bucket(tt.bucket)
				var m map[string]any
				require.NoError(t, json.Unmarshal(b.Get([]byte(tt.key)), &m))
				tt.edit(m)
				data, err := json.Marshal(m)
				require.NoError(t, err)
				return b.Put([]byte(tt.key), data)
			})
			_, err = Open(path, Options{ChainKey: testKey})
			require.ErrorIs(t, err, ErrDerivedMismatch)
			var me *MismatchError
			require.ErrorAs(t, err, &me)
			assert.Equal(t, string(tt.bucket), me.Bucket)
			assert.Equal(t, tt.key, me.Key)
		})
	}
}

// TestTruncatedTailIsFound cuts the last events off the log with bbolt (the mark
// of the head moved back with them, the chain whole): the head record beside the
// file names an event that is no longer there.
func TestTruncatedTailIsFound(t *testing.T) {
	path, stored := keyedJournal(t)
	last := uint64(len(stored))
	rawUpdate(t, path, func(tx *bolt.Tx) error {
		events := tx.Bucket(bucketEvents)
		require.NoError(t, events.Delete(u64(last)))
		h, err := hex.DecodeString(stored[last-2].Hash)
		require.NoError(t, err)
		return events.SetSequence(headMark(last-1, [32]byte(h)))
	})
	_, err := Open(path, Options{ChainKey: testKey})
	require.ErrorIs(t, err, ErrDamaged, "start-up: the sale's order names the lost event")
	_, err = Open(path, Options{ChainKey: testKey, DeferVerify: true})
	require.ErrorIs(t, err, ErrCorrupt, "deferred: the head record")
	assert.Contains(t, err.Error(), "cut off")
}
