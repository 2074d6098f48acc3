package pos

import (
	"context"
	"strings"
	"time"
)

// StaffInfo is one member of staff as the staff list shows them.
type StaffInfo struct {
	ID          string
	Name        string
	Role        Role
	Disabled    bool
	LockedUntil time.Time // zero when not locked
}

// StaffList lists every member of staff, disabled ones too, with their lock.
func (t *Till) StaffList(ctx context.Context) ([]StaffInfo, error) {
	all, err := t.j.List(ctx)
	if err != nil {
		return nil, err
	}
	now := t.eng.Now()
	out := make([]StaffInfo, 0, len(all))
	for _, s := range all {
		in := StaffInfo{ID: s.ID, Name: s.Name, Role: s.Role, Disabled: s.Disabled}
		if s.Locked(now) {
			in.LockedUntil = s.LockedUntil
		}
		out = append(out, in)
	}
	return out, nil
}

// member finds the member of staff named name (any case).
func (t *Till) member(ctx context.Context, name string) (Staff, error) {
	all, err := t.j.List(ctx)
	if err != nil {
		return Staff{}, err
	}
	for _, s := range all {
		if strings.EqualFold(s.Name, strings.TrimSpace(name)) {
			return s, nil
		}
	}
	return Staff{}, wrapf(ErrUnknownStaff, "No member of staff is called %q; see the list with \"galla staff list\".", name)
}

// StaffChange is a manager's change to a member of staff.
type StaffChange int

// The changes.
const (
	StaffDisable StaffChange = iota + 1
	StaffEnable
	StaffUnlock
	StaffResetPIN
)

// ChangeStaff makes change to the member named name on a manager's PIN; pin is
// the new PIN of StaffResetPIN (which also lifts a lock). It returns the member.
func (t *Till) ChangeStaff(ctx context.Context, name string, change StaffChange, pin, managerPIN string) (StaffInfo, error) {
	s, err := t.member(ctx, name)
	if err != nil {
		return StaffInfo{}, err
	}
	r := t.eng.Roster()
	if _, err := t.authorise(ctx, managerPIN); err != nil {
		return StaffInfo{}, err
	}
	switch change {
	case StaffDisable, StaffEnable:
		err = r.SetDisabled(ctx, s.ID, change == StaffDisable)
	case StaffUnlock:
		err = r.Unlock(ctx, s.ID)
	case StaffResetPIN:
		err = r.ChangePIN(ctx, s.ID, pin)
	default:
		err = Errorf("That is not a change to a member of staff.")
	}
	if err != nil {
		return StaffInfo{}, err
	}
	list, err := t.StaffList(ctx)
	if err != nil {
		return StaffInfo{}, err
	}
	for _, in := range list {
		if in.ID == s.ID {
			return in, nil
		}
	}
	return StaffInfo{}, ErrUnknownStaff
}
