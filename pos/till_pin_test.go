package pos

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestManagerPINLength: a manager's PIN set from now on has at least
// MinManagerPINLength digits; a cashier's keeps 4 to 8.
func TestManagerPINLength(t *testing.T) {
	tests := []struct {
		role Role
		pin  string
		want error
	}{
		{RoleManager, "12345", ErrShortManagerPIN},
		{RoleManager, "123456", nil},
		{RoleManager, "12345678", nil},
		{RoleManager, "123456789", ErrBadPIN},
		{RoleManager, "12a456", ErrBadPIN},
		{RoleCashier, "1234", nil},
		{RoleCashier, "123", ErrBadPIN},
	}
	for _, tt := range tests {
		t.Run(string(tt.role)+" "+tt.pin, func(t *testing.T) {
			err := CheckRolePIN(tt.role, tt.pin)
			if tt.want == nil {
				assert.NoError(t, err, "CheckRolePIN(%s, %q)", tt.role, tt.pin)
			} else {
				assert.ErrorIs(t, err, tt.want, "CheckRolePIN(%s, %q)", tt.role, tt.pin)
			}
		})
	}

	ctx := t.Context()
	r, _ := newRoster(t)
	_, err := r.AddStaff(ctx, "Kiran", RoleManager, "1234")
	require.ErrorIs(t, err, ErrShortManagerPIN)
	assert.Equal(t, "A manager's PIN has 6 to 8 digits; type a longer one.", Sentence(err))
	_, err = r.AddStaff(ctx, "Kiran", RoleCashier, "1234")
	require.NoError(t, err, "a cashier's PIN has 4 digits or more")
	assert.ErrorIs(t, r.ChangePIN(ctx, "001", "2222"), ErrShortManagerPIN, "a manager's new PIN")
	assert.NoError(t, r.ChangePIN(ctx, "002", "2222"), "a cashier's new PIN")
}

// TestShortManagerPINChangedAtSignIn: a manager whose PIN, set before the
// rule, is shorter than MinManagerPINLength signs in with MustChangePIN and
// changes it with ChangeOwnPIN, which checks the old PIN and the new one's
// length.
func TestShortManagerPINChangedAtSignIn(t *testing.T) {
	ctx := t.Context()
	r := newRig(t)
	tl, err := NewTill(ctx, TillConfig{Engine: r.e, SampleCatalog: catalogJSON(t)})
	require.NoError(t, err)
	for _, s := range []Staff{{ID: "008", Name: "Kiran", Role: RoleManager}, {ID: "009", Name: "Ravi", Role: RoleCashier}} {
		require.NoError(t, s.SetPIN("2580", MinPINCost, nil, nil), "a 4-digit PIN of an earlier version")
		require.NoError(t, r.j.Put(ctx, s))
	}

	m, err := tl.Crew.SignIn(ctx, "Kiran", "2580")
	require.NoError(t, err)
	assert.True(t, m.MustChangePIN, "a manager's 4-digit PIN")
	m, err = tl.Crew.SignIn(ctx, "Ravi", "2580")
	require.NoError(t, err)
	assert.False(t, m.MustChangePIN, "a cashier's 4-digit PIN")
	m, err = tl.Crew.SignIn(ctx, "Meera", managerPIN)
	require.NoError(t, err)
	assert.False(t, m.MustChangePIN, "a manager's 6-digit PIN")

	_, err = tl.Crew.ChangeOwnPIN(ctx, "Kiran", "2580", "1470")
	assert.ErrorIs(t, err, ErrShortManagerPIN)
	_, err = tl.Crew.ChangeOwnPIN(ctx, "Kiran", "0000", "147036")
	assert.ErrorIs(t, err, ErrWrongPIN)
	m, err = tl.Crew.ChangeOwnPIN(ctx, "Kiran", "2580", "147036")
	require.NoError(t, err)
	assert.Equal(t, StaffMember{ID: "008", Name: "Kiran", Role: RoleManager}, m)

	_, err = tl.Crew.SignIn(ctx, "Kiran", "2580")
	assert.ErrorIs(t, err, ErrWrongPIN, "the old PIN no longer signs in")
	m, err = tl.Crew.SignIn(ctx, "Kiran", "147036")
	require.NoError(t, err)
	assert.False(t, m.MustChangePIN)
}
