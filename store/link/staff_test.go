package link_test

import (
	"encoding/hex"
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"galla/pos"
	"galla/store/api"
	"galla/store/link"
)

// TestTheStoresStaffReachEveryCounter: the store's staff pepper comes with the
// enrolment and on a signed request, the same for every counter; each member
// is an item of its own (a change of one leaves the other's item out), and
// what the counters receive is the hash, which checks the PIN with the
// store's pepper only.
func TestTheStoresStaffReachEveryCounter(t *testing.T) {
	s := newStoreServer(t)
	ctx := t.Context()
	code, _, err := s.db.Access.EnrolCode(ctx, "T1")
	require.NoError(t, err)
	key, err := link.NewKey()
	require.NoError(t, err)
	resp, err := link.Enrol(ctx, s.url(), code, s.fp, key, nil)
	require.NoError(t, err)
	pepper, err := s.db.Staff.StaffPepper(ctx)
	require.NoError(t, err)
	require.Len(t, pepper, 32)
	assert.Equal(t, hex.EncodeToString(pepper), resp.StaffPepper, "the pepper comes with the enrolment")

	l, err := link.New(s.enrol(t, "T2", t.TempDir()), openJournal(t, t.TempDir()).Log)
	require.NoError(t, err)
	got, err := l.StaffPepper(ctx)
	require.NoError(t, err)
	assert.Equal(t, pepper, got, "one pepper for the store")

	asha, err := s.db.Staff.AddStaff(ctx, "Asha", pos.RoleCashier, "73914562", nil, "meera")
	require.NoError(t, err)
	assert.Equal(t, "S001", asha.ID)
	_, err = s.db.Staff.AddStaff(ctx, "Ravin", pos.RoleManager, "58203", nil, "meera")
	require.ErrorIs(t, err, pos.ErrShortManagerPIN)
	ravin, err := s.db.Staff.AddStaff(ctx, "Ravin", pos.RoleManager, "582039", nil, "meera")
	require.NoError(t, err)
	_, err = s.db.Staff.ResetStaffPIN(ctx, "ASHA", "123", "meera")
	require.ErrorIs(t, err, pos.ErrBadPIN)
	_, err = s.db.Staff.SetStaffDisabled(ctx, "Nobody", true, "meera")
	require.ErrorIs(t, err, pos.ErrUnknownStaff)

	pull := func(since uint64) ([]pos.Staff, uint64) {
		t.Helper()
		var out []pos.Staff
		v, err := l.PullMaster(ctx, since, func(it api.MasterItem) error {
			require.Equal(t, "staff", it.Kind)
			var m pos.Staff
			require.NoError(t, json.Unmarshal(it.Body, &m))
			out = append(out, m)
			return nil
		})
		require.NoError(t, err)
		return out, v
	}
	members, v := pull(0)
	require.Len(t, members, 2, "one item per member")
	assert.Equal(t, uint64(2), v)
	assert.Equal(t, []string{"S001", "S002"}, []string{members[0].ID, members[1].ID})
	assert.True(t, members[0].PINMatches("73914562", pepper))
	assert.False(t, members[0].PINMatches("73914562", nil), "the hash needs the store's pepper")
	assert.NoError(t, pos.CheckStoreMember(members[1]))
	assert.Equal(t, pos.RoleManager, members[1].Role)

	_, err = s.db.Staff.ResetStaffPIN(ctx, "asha", "2468", "meera")
	require.NoError(t, err)
	_, err = s.db.Staff.SetStaffDisabled(ctx, "Asha", true, "meera")
	require.NoError(t, err)
	members, v = pull(v)
	require.Len(t, members, 1, "the newest of Asha's changes; Ravin's item is not sent again")
	assert.Equal(t, uint64(4), v)
	assert.True(t, members[0].Disabled)
	assert.True(t, members[0].PINMatches("2468", pepper))

	list, err := s.db.Staff.ListStaff(ctx)
	require.NoError(t, err)
	require.Len(t, list, 2)
	assert.Equal(t, "Asha", list[0].Name)
	assert.True(t, list[0].Disabled)
	assert.Equal(t, uint64(4), list[0].Version)
	assert.Equal(t, ravin.ID, list[1].ID)
	assert.False(t, list[1].Disabled)
}
