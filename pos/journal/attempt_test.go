package journal

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	bolt "go.etcd.io/bbolt"

	"galla/pos"
)

// TestWrongPINsJournalTheAttemptOnly: a wrong PIN appends a staff.attempt with
// the counters alone, never the record's PIN hash; the counters and the lock
// hold across a reopen, whose start-up check accepts attempts after the
// checkpoint over records written before it or after it, and refuses their
// counters edited by hand. Rebuild and VerifyFile replay the attempts.
func TestWrongPINsJournalTheAttemptOnly(t *testing.T) {
	ctx := t.Context()
	path := filepath.Join(t.TempDir(), "data", "journal.db")
	now := t0
	opts := Options{Now: func() time.Time { return now }}
	j, err := Open(path, opts)
	require.NoError(t, err)
	r := pos.NewRoster(j.Staff).WithIterations(pos.MinPINIterations)
	asha, err := r.AddStaff(ctx, "Asha", pos.RoleManager, "246813")
	require.NoError(t, err)
	ravi, err := r.AddStaff(ctx, "Ravi", pos.RoleCashier, "1357")
	require.NoError(t, err)
	_, err = j.Log.Append(ctx, pos.Event{Kind: pos.EvDayClosed, Day: "2026-11-21", Time: t0,
		DayClose: &pos.DayClose{Day: "2026-11-21", ZNo: 1, Report: json.RawMessage(`{}`)}})
	require.NoError(t, err)
	_, ok, err := j.Days.LastCheckpoint(ctx)
	require.NoError(t, err)
	require.True(t, ok, "the records are written before the checkpoint")

	// Ravi: wrong PINs after the checkpoint, his record written before it.
	for i := 1; i < pos.MaxPINAttempts; i++ {
		_, err = r.SignIn(ctx, ravi.ID, "0000", now)
		var we *pos.WrongPINError
		require.ErrorAs(t, err, &we)
		assert.Equal(t, pos.MaxPINAttempts-i, we.AttemptsLeft)
	}
	// Asha: her record written after the checkpoint, then a wrong PIN.
	require.NoError(t, r.ChangePIN(ctx, asha.ID, "135799"))
	_, err = r.SignIn(ctx, asha.ID, "000000", now)
	require.ErrorIs(t, err, pos.ErrWrongPIN)
	require.NoError(t, j.Close())

	j, err = Open(path, opts)
	require.NoError(t, err, "the start-up check accepts the attempts")
	r = pos.NewRoster(j.Staff).WithIterations(pos.MinPINIterations)
	got, err := j.Staff.Get(ctx, ravi.ID)
	require.NoError(t, err)
	assert.Equal(t, pos.MaxPINAttempts-1, got.FailedAttempts, "the count survives the reopen")
	assert.Equal(t, ravi.PINHash, got.PINHash, "the attempts keep the record")
	assert.Equal(t, ravi.Role, got.Role)
	_, err = r.SignIn(ctx, ravi.ID, "0000", now)
	var le *pos.LockedError
	require.ErrorAs(t, err, &le, "the last wrong PIN locks")
	assert.Equal(t, now.Add(pos.LockDuration), le.Until)
	got, err = j.Staff.Get(ctx, asha.ID)
	require.NoError(t, err)
	assert.Equal(t, 1, got.FailedAttempts)
	require.NoError(t, j.Close())

	j, err = Open(path, opts)
	require.NoError(t, err)
	r = pos.NewRoster(j.Staff).WithIterations(pos.MinPINIterations)
	_, err = r.SignIn(ctx, ravi.ID, "1357", now)
	require.ErrorAs(t, err, &le, "the lock survives the reopen: the right PIN is not checked")
	assert.True(t, le.Until.Equal(now.Add(pos.LockDuration)), "locked until %v; want %v", le.Until, now.Add(pos.LockDuration))
	signed, err := r.SignIn(ctx, asha.ID, "135799", now)
	require.NoError(t, err)
	assert.Zero(t, signed.FailedAttempts, "the right PIN resets the count")

	// No event after a member's last staff.added or staff.changed carries a
	// PIN hash; the attempts name the member.
	type member struct{ last, attempts int }
	members := map[string]*member{asha.ID: {}, ravi.ID: {}}
	var evs []pos.Event
	require.NoError(t, j.core.db.View(func(tx *bolt.Tx) error {
		return tx.Bucket(bucketEvents).ForEach(func(_, v []byte) error {
			ev, err := DecodeEvent(v)
			evs = append(evs, ev)
			return err
		})
	}))
	for i, ev := range evs {
		switch ev.Kind {
		case pos.EvStaffAdded, pos.EvStaffChanged:
			id, ok := staffID(ev.Data)
			require.True(t, ok)
			members[id].last = i
		case pos.EvStaffAttempt:
			var a map[string]any
			require.NoError(t, json.Unmarshal(ev.Data, &a))
			assert.Subset(t, []string{"id", "failed_attempts", "locked_until"}, keys(a), "staff.attempt carries the counters only")
			members[a["id"].(string)].attempts++
		}
	}
	assert.Equal(t, pos.MaxPINAttempts, members[ravi.ID].attempts)
	assert.Equal(t, 2, members[asha.ID].attempts, "one wrong PIN and the reset")
	for _, m := range []pos.Staff{asha, ravi} {
		rec, err := j.Staff.Get(ctx, m.ID)
		require.NoError(t, err)
		hash := base64.StdEncoding.EncodeToString(rec.PINHash)
		for _, ev := range evs[members[m.ID].last+1:] {
			raw, err := json.Marshal(ev)
			require.NoError(t, err)
			if id, _ := staffID(ev.Data); id == m.ID {
				assert.NotContains(t, string(raw), "pin_hash", "event %d (%s)", ev.Seq, ev.Kind)
			}
			assert.NotContains(t, string(raw), hash, "event %d (%s)", ev.Seq, ev.Kind)
		}
	}

	before := snapshot(t, j)
	require.NoError(t, j.Log.Rebuild(ctx))
	assert.Equal(t, before, snapshot(t, j), "Rebuild replays the attempts to the same records")
	require.NoError(t, j.Close())
	rep, err := VerifyFile(ctx, path)
	require.NoError(t, err)
	assert.True(t, rep.Verified)

	// Counters edited by hand are refused at start-up, for a record written
	// before the checkpoint (Ravi) and after it (Asha, whose role is checked too).
	for _, tt := range []struct {
		name string
		id   string
		edit func(m map[string]any)
	}{
		{"a lock lifted", ravi.ID, func(m map[string]any) { delete(m, "locked_until") }},
		{"a count raised", asha.ID, func(m map[string]any) { m["failed_attempts"] = 3 }},
		{"a role raised", asha.ID, func(m map[string]any) { m["role"] = "cashier" }},
	} {
		t.Run(tt.name, func(t *testing.T) {
			cp := filepath.Join(t.TempDir(), "data", "journal.db")
			require.NoError(t, os.MkdirAll(filepath.Dir(cp), 0o700))
			data, err := os.ReadFile(path)
			require.NoError(t, err)
			require.NoError(t, os.WriteFile(cp, data, 0o600))
			rawUpdate(t, cp, func(tx *bolt.Tx) error {
				b := tx.Bucket(bucketStaff)
				var m map[string]any
				require.NoError(t, json.Unmarshal(b.Get([]byte(tt.id)), &m))
				tt.edit(m)
				data, err := json.Marshal(m)
				require.NoError(t, err)
				require.False(t, bytes.Equal(data, b.Get([]byte(tt.id))), "the edit changes the record")
				return b.Put([]byte(tt.id), data)
			})
			_, err = Open(cp, opts)
			require.ErrorIs(t, err, ErrDerivedMismatch)
			var me *MismatchError
			require.ErrorAs(t, err, &me)
			assert.Equal(t, "staff", me.Bucket)
			assert.Equal(t, tt.id, me.Key)
		})
	}
}

// TestAttemptOfNoMember: a staff.attempt of an id with no record is refused.
func TestAttemptOfNoMember(t *testing.T) {
	j := openTest(t)
	assert.ErrorIs(t, j.Staff.RecordAttempt(t.Context(), "404", 1, time.Time{}), pos.ErrUnknownStaff)
	assert.ErrorIs(t, j.Staff.RecordAttempt(t.Context(), "", 1, time.Time{}), pos.ErrUnknownStaff)
}

func keys(m map[string]any) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	return out
}
