package pos

import (
	"bytes"
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// storePepper stands for the store's staff pepper in these tests.
var storePepper = bytes.Repeat([]byte{0x5a}, 32)

// storeMember is the store's record of a member with pin, as the store
// publishes it.
func storeMember(t *testing.T, id, name string, role Role, pin string, pepper []byte) Staff {
	t.Helper()
	s := Staff{ID: id, Name: name, Role: role, Store: true}
	require.NoError(t, s.SetPIN(pin, MinPINCost, pepper, nil))
	return s
}

func body(t *testing.T, s Staff) []byte {
	t.Helper()
	b, err := json.Marshal(s)
	require.NoError(t, err)
	return b
}

func TestTheStoresStaffSignInWithTheStoresPepper(t *testing.T) {
	ctx := t.Context()
	r := newRig(t)
	tl, err := NewTill(ctx, TillConfig{Engine: r.e, Catalogs: &catalogs{}, SampleCatalog: catalogJSON(t)})
	require.NoError(t, err)
	asha := storeMember(t, "S001", "Asha", RoleCashier, "73914562", storePepper)

	require.NoError(t, tl.Shelf.ApplyMaster(ctx, MasterStaff, body(t, asha), 1))
	v, err := tl.Shelf.MasterVersion(ctx)
	require.NoError(t, err)
	assert.Equal(t, uint64(1), v)
	_, err = tl.Crew.SignIn(ctx, "Asha", "73914562")
	require.ErrorIs(t, err, ErrStorePepper, "without the store's pepper the PIN cannot be checked")
	assert.Contains(t, Sentence(err), "galla sync --staff MANAGER")

	tl.Crew.SetStorePepper(bytes.Repeat([]byte{0x11}, 32))
	_, err = tl.Crew.SignIn(ctx, "Asha", "73914562")
	require.ErrorIs(t, err, ErrStorePepper, "another store's pepper is not this store's")

	tl.Crew.SetStorePepper(storePepper)
	m, err := tl.Crew.SignIn(ctx, "Asha", "73914562")
	require.NoError(t, err)
	assert.Equal(t, StaffMember{ID: "S001", Name: "Asha", Role: RoleCashier}, StaffMember{ID: m.ID, Name: m.Name, Role: m.Role})
	_, err = tl.Crew.SignIn(ctx, "Asha", "73914563")
	var wrong *WrongPINError
	require.ErrorAs(t, err, &wrong)
	assert.Equal(t, MaxPINAttempts-1, wrong.AttemptsLeft)
	_, err = tl.Crew.SignIn(ctx, "Meera", managerPIN)
	assert.NoError(t, err, "the counter's own manager signs in with the counter's pepper")

	// The same record again changes nothing; a newer one keeps this counter's
	// count of wrong PINs (lockouts are per terminal).
	changed, err := r.e.Roster().PutStoreMember(ctx, asha)
	require.NoError(t, err)
	assert.False(t, changed)
	asha.Limits = &StaffLimits{Discount: Rupees(100), Refund: Rupees(500)}
	require.NoError(t, tl.Shelf.ApplyMaster(ctx, MasterStaff, body(t, asha), 2))
	got, err := r.j.Get(ctx, "S001")
	require.NoError(t, err)
	assert.Equal(t, 1, got.FailedAttempts)
	assert.Equal(t, &StaffLimits{Discount: Rupees(100), Refund: Rupees(500)}, got.Limits)
	assert.True(t, got.Store)

	// What the store decides is changed at the store only; a lock is the counter's.
	_, err = tl.Crew.ChangeStaff(ctx, "Asha", StaffDisable, "", managerPIN)
	require.Error(t, err)
	assert.Equal(t, "Asha is the store's member of staff: disable or enable them at the store (galla store staff); every counter applies it at its next sync.", Sentence(err))
	_, err = tl.Crew.ChangeStaff(ctx, "Asha", StaffResetPIN, "1234", managerPIN)
	assert.ErrorContains(t, err, "reset their PIN at the store")
	_, err = tl.Crew.SetStaffLimits(ctx, "Asha", nil, managerPIN)
	assert.ErrorContains(t, err, "change their limits at the store")
	in, err := tl.Crew.ChangeStaff(ctx, "Asha", StaffUnlock, "", managerPIN)
	require.NoError(t, err)
	assert.True(t, in.Store)

	// A store manager authorises with their PIN at this counter.
	ravin := storeMember(t, "S002", "Ravin", RoleManager, "58203917", storePepper)
	require.NoError(t, tl.Shelf.ApplyMaster(ctx, MasterStaff, body(t, ravin), 3))
	who, err := r.e.Roster().AuthoriseManager(ctx, "58203917", r.clock.Now())
	require.NoError(t, err)
	assert.Equal(t, "S002", who.ID)

	// Disabled at the store: refused here once applied.
	asha.Disabled = true
	require.NoError(t, tl.Shelf.ApplyMaster(ctx, MasterStaff, body(t, asha), 4))
	_, err = tl.Crew.SignIn(ctx, "Asha", "73914562")
	assert.ErrorIs(t, err, ErrStaffDisabled)
	require.NoError(t, tl.Shelf.ApplyMaster(ctx, MasterStaff, body(t, storeMember(t, "S001", "Asha", RoleCashier, "73914562", storePepper)), 4))
	_, err = tl.Crew.SignIn(ctx, "Asha", "73914562")
	assert.ErrorIs(t, err, ErrStaffDisabled, "a version applied is not applied again")
}

func TestAStoreMemberNeverReplacesTheCountersOwn(t *testing.T) {
	ctx := t.Context()
	r := newRig(t)
	tl, err := NewTill(ctx, TillConfig{Engine: r.e, Catalogs: &catalogs{}, SampleCatalog: catalogJSON(t)})
	require.NoError(t, err)
	tl.Crew.SetStorePepper(storePepper)

	meera := storeMember(t, "S001", "meera", RoleManager, "11223344", storePepper)
	err = tl.Shelf.ApplyMaster(ctx, MasterStaff, body(t, meera), 1)
	require.Error(t, err, "two enabled members of one name")
	assert.Equal(t, `The store's member of staff meera has the name of this counter's own member Meera: disable the counter's own (galla staff disable "Meera"), then sync again.`, Sentence(err))
	v, err := tl.Shelf.MasterVersion(ctx)
	require.NoError(t, err)
	assert.Equal(t, uint64(0), v, "a refused item is fetched again")

	// With a second manager of its own the counter disables its Meera; the
	// store's takes the name.
	_, err = r.e.Roster().AddStaff(ctx, "Ila", RoleManager, "665544")
	require.NoError(t, err)
	_, err = tl.Crew.ChangeStaff(ctx, "Meera", StaffDisable, "", managerPIN)
	require.NoError(t, err)
	require.NoError(t, tl.Shelf.ApplyMaster(ctx, MasterStaff, body(t, meera), 1))
	m, err := tl.Crew.SignIn(ctx, "meera", "11223344")
	require.NoError(t, err)
	assert.Equal(t, "S001", m.ID, "the name signs in the enabled member")

	for name, s := range map[string]Staff{
		"a counter's id":        storeMember(t, "001", "Asha", RoleCashier, "73914562", storePepper),
		"no pepper":             storeMember(t, "S003", "Asha", RoleCashier, "73914562", nil),
		"a role unknown":        storeMember(t, "S003", "Asha", Role("owner"), "73914562", storePepper),
		"a name with a newline": storeMember(t, "S003", "As\nha", RoleCashier, "73914562", storePepper),
		"a hash made too cheaply": func() Staff {
			s := storeMember(t, "S003", "Asha", RoleCashier, "73914562", storePepper)
			s.Memory = 1024
			return s
		}(),
	} {
		t.Run(name, func(t *testing.T) {
			require.Error(t, tl.Shelf.ApplyMaster(ctx, MasterStaff, body(t, s), 2))
			_, err := r.j.Get(ctx, s.ID)
			if s.ID != "001" {
				assert.ErrorIs(t, err, ErrUnknownStaff, "nothing stored")
			}
		})
	}
	own, err := r.j.Get(ctx, "001")
	require.NoError(t, err)
	assert.False(t, own.Store, "the counter's own record is untouched")
}
