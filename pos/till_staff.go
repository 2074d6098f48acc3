package pos

import (
	"context"
	"errors"
	"strings"
	"time"
)

// StaffInfo is one member of staff as the staff list shows them.
type StaffInfo struct {
	ID          string
	Name        string
	Role        Role
	Disabled    bool
	LockedUntil time.Time    // zero when not locked
	Limits      *StaffLimits // nil: the shop's discount limit, no refund alone
	Store       bool         // the store's member (ADR 0007), changed at the store
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
		in := StaffInfo{ID: s.ID, Name: s.Name, Role: s.Role, Disabled: s.Disabled, Limits: s.Limits, Store: s.Store}
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
	for _, s := range enabledFirst(all) {
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

// SetStaffLimits sets the discount and refund limits of the cashier named name on
// a manager's PIN; nil goes back to the shop's discount limit and no refund
// without a manager. Managers need none.
func (t *Till) SetStaffLimits(ctx context.Context, name string, l *StaffLimits, managerPIN string) (StaffInfo, error) {
	s, err := t.member(ctx, name)
	if err != nil {
		return StaffInfo{}, err
	}
	if s.Role == RoleManager && l != nil {
		return StaffInfo{}, Errorf("%s is a manager: a manager's discounts and refunds have no limit to set.", s.Name)
	}
	if _, err := t.authorise(ctx, managerPIN); err != nil {
		return StaffInfo{}, err
	}
	if err := t.eng.Roster().SetLimits(ctx, s.ID, l); err != nil {
		return StaffInfo{}, err
	}
	return t.staffInfo(ctx, s.ID)
}

func (t *Till) staffInfo(ctx context.Context, id string) (StaffInfo, error) {
	list, err := t.StaffList(ctx)
	if err != nil {
		return StaffInfo{}, err
	}
	for _, in := range list {
		if in.ID == id {
			return in, nil
		}
	}
	return StaffInfo{}, ErrUnknownStaff
}

// setSigned remembers who signed in at this till (nil: nobody).
func (t *Till) setSigned(s *Staff) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if s == nil {
		t.signed = nil
		return
	}
	c := *s
	t.signed = &c
}

// signedCashier is the cashier signed in at this till with limits of their own,
// or nil. t.mu is held.
func (t *Till) signedCashier() *Staff {
	if s := t.signed; s != nil && s.Role == RoleCashier && s.Limits != nil {
		return s
	}
	return nil
}

// cashierRefund makes r the signed-in cashier's own refund when the PIN is
// theirs and the amount within their limit; a PIN that is not theirs is left to
// be checked as a manager's.
func (t *Till) cashierRefund(ctx context.Context, r *RefundRequest) error {
	t.mu.Lock()
	c := t.signedCashier()
	t.mu.Unlock()
	if c == nil || r.Cashier != "" {
		return nil
	}
	amount := r.Amount
	if amount == 0 {
		o, err := t.eng.Order(ctx, r.OrderID)
		if err != nil {
			return err
		}
		amount = o.Refundable()
	}
	_, err := t.eng.Roster().CashierWithin(ctx, c.ID, r.PIN, amount, t.eng.Now())
	switch {
	case err == nil:
		r.Cashier = c.ID
		return nil
	case errors.Is(err, ErrRefundNeedsManager):
		return err
	}
	return nil
}

// enabledFirst is list with the enabled members before the disabled, each in
// its order: a name that a disabled member and an enabled one share (a
// counter's own member replaced by the store's) names the enabled one.
func enabledFirst(list []Staff) []Staff {
	out := make([]Staff, 0, len(list))
	for _, disabled := range []bool{false, true} {
		for _, s := range list {
			if s.Disabled == disabled {
				out = append(out, s)
			}
		}
	}
	return out
}
