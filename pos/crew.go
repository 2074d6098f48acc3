package pos

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
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

// StaffChange is a manager's change to a member of staff.
type StaffChange int

// The changes.
const (
	StaffDisable StaffChange = iota + 1
	StaffEnable
	StaffUnlock
	StaffResetPIN
)

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

// StaffMember is one person who may sign in, as the screens show them.
type StaffMember struct {
	ID   string
	Name string
	Role Role
	// MustChangePIN is a manager signed in with a PIN shorter than
	// MinManagerPINLength, set before that rule: they change it
	// (ChangeOwnPIN) before going on.
	MustChangePIN bool
	// Limits are a cashier's own discount and refund limits, nil when none.
	Limits *StaffLimits
	// WrongPINs is how many wrong PINs in a row were typed against this
	// member's name at this counter before this sign-in (each journaled as
	// staff.signin_failed): shown to them, a manager above all.
	WrongPINs int
}

// WrongPINsNotice is what a manager is told at sign-in of the wrong PINs typed
// against their name at this counter just before (WrongPINs): "" when none.
// Each is in the journal (staff.signin_failed), which they can read.
func (s StaffMember) WrongPINsNotice() string {
	if !s.Manager() || s.WrongPINs == 0 {
		return ""
	}
	pins := "wrong PINs were"
	if s.WrongPINs == 1 {
		pins = "wrong PIN was"
	}
	return fmt.Sprintf("%d %s typed against your name at this counter before you signed in (your own included). Each is in the journal; if they were not yours, someone is guessing your PIN: change it.", s.WrongPINs, pins)
}

// Manager reports whether s may approve refunds, discounts, day close and settings.
func (s StaffMember) Manager() bool { return s.Role == RoleManager }

func memberOf(s Staff) StaffMember {
	return StaffMember{ID: s.ID, Name: s.Name, Role: s.Role, Limits: s.Limits}
}

// Refunds reports whether s may give refunds in the journal screen: a manager,
// or a cashier a manager gave a refund limit.
func (s StaffMember) Refunds() bool {
	return s.Manager() || s.Limits != nil && s.Limits.Refund > 0
}

// OverrideDiscount is Override.What for a line discount above the limit.
const OverrideDiscount = "discount"

// Override is what a manager's PIN approves, as the journal records it.
type Override struct {
	What   string // OverrideDiscount
	SKU    string // the line's product
	Amount Paise  // the discount approved
	// By is the staff id of the member who asked (signed in at the counter).
	By string
}

// MaxOverrideAttempts is how many wrong manager PINs in a row one till (one
// window, one command) takes before it asks for none until a manager signs in
// there: a PIN that matches no manager locks no manager out (Roster), so the
// guessing is stopped here instead.
const MaxOverrideAttempts = 5

// ErrTooManyOverrides refuses a manager's PIN after MaxOverrideAttempts wrong
// ones at this till.
var ErrTooManyOverrides = sentenceError{"too many wrong manager PINs at this counter",
	"Too many wrong manager PINs at this counter: a manager must sign in here before another manager's PIN is taken."}

// MasterStaff is the master kind of one member of the store's staff
// (store.MasterStaff): the body is the member's record (Staff) with the PIN's
// hash made with the store's pepper, never the PIN.
const MasterStaff = "staff"

// Crew is the counter's staff desk: who may sign in and who is signed in here,
// staff admin on a manager's PIN (members added, disabled, unlocked, their PINs
// and limits), the store's members and PIN pepper, and the manager approvals
// (Authorize, ManagerByPIN) with this till's count of wrong manager PINs. The
// members themselves are the Roster's (Staff).
type Crew struct{ *core }

// Staff lists who may sign in; an empty list means a fresh journal.
func (cr *Crew) Staff(ctx context.Context) ([]StaffMember, error) {
	list, err := cr.j.List(ctx)
	if err != nil {
		return nil, err
	}
	out := make([]StaffMember, 0, len(list))
	for _, s := range list {
		out = append(out, memberOf(s))
	}
	return out, nil
}

// AddStaff adds a member with a PIN; the first member must be a manager.
func (cr *Crew) AddStaff(ctx context.Context, name string, role Role, pin string) error {
	_, err := cr.eng.Roster().AddStaff(ctx, name, role, pin)
	return err
}

// AddStaffBy adds a member with a PIN on a manager's authority: managerPIN is
// checked once staff exist (the first member needs none). It returns the new
// member.
func (cr *Crew) AddStaffBy(ctx context.Context, name string, role Role, pin, managerPIN string) (StaffMember, error) {
	all, err := cr.j.List(ctx)
	if err != nil {
		return StaffMember{}, err
	}
	if len(all) > 0 {
		if _, err := cr.authorise(ctx, managerPIN); err != nil {
			return StaffMember{}, err
		}
	}
	s, err := cr.eng.Roster().AddStaff(ctx, name, role, pin)
	if err != nil {
		return StaffMember{}, err
	}
	return memberOf(s), nil
}

// HasStaff reports whether any member of staff exists, so that a manager's PIN is
// needed to add one.
func (cr *Crew) HasStaff(ctx context.Context) (bool, error) {
	all, err := cr.j.List(ctx)
	return len(all) > 0, err
}

// SignIn checks name's PIN and journals the sign-in, or the refusal, with the
// member's id (never the PIN). A sign-in the journal cannot record is refused.
// Wrong PINs against a manager's name never lock the manager out: past
// FreeManagerPINs they make the next try at this counter wait (ErrSlowed), and
// the manager's right PIN works once the wait is over; the member signed in
// learns how many wrong PINs came before (StaffMember.WrongPINs).
func (cr *Crew) SignIn(ctx context.Context, name, pin string) (StaffMember, error) {
	list, err := cr.j.List(ctx)
	if err != nil {
		return StaffMember{}, err
	}
	for _, s := range enabledFirst(list) {
		if s.Name == name {
			got, err := cr.eng.Roster().SignIn(ctx, s.ID, pin, cr.eng.Now())
			if err != nil {
				reason := "wrong PIN"
				switch {
				case errors.Is(err, ErrLocked):
					reason = "locked"
				case errors.Is(err, ErrSlowed):
					reason = "slowed" // a manager's name: the PIN was not checked
				}
				if aerr := cr.audit(ctx, Event{Kind: EvStaffSignInFail, Staff: s.ID, Reason: reason}); aerr != nil {
					return StaffMember{}, errors.Join(err, aerr)
				}
				return StaffMember{}, err
			}
			if err := cr.audit(ctx, Event{Kind: EvStaffSignIn, Staff: got.ID, Extra: map[string]string{"role": string(got.Role)}}); err != nil {
				return StaffMember{}, err
			}
			if got.Role == RoleManager {
				_ = cr.counted(nil) // a manager at this till lifts the stop on wrong manager PINs
			}
			cr.setSigned(got)
			m := memberOf(*got)
			m.MustChangePIN = got.Role == RoleManager && len(pin) < MinManagerPINLength
			m.WrongPINs = s.FailedAttempts
			return m, nil
		}
	}
	return StaffMember{}, ErrUnknownStaff
}

// ChangeOwnPIN sets name's PIN to newPIN once oldPIN is checked as at a sign-in
// (a wrong one counts towards the lock); a manager's new PIN has at least
// MinManagerPINLength digits. It returns the member, signed in.
func (cr *Crew) ChangeOwnPIN(ctx context.Context, name, oldPIN, newPIN string) (StaffMember, error) {
	s, err := cr.member(ctx, name)
	if err != nil {
		return StaffMember{}, err
	}
	if err := CheckRolePIN(s.Role, newPIN); err != nil {
		return StaffMember{}, err
	}
	r := cr.eng.Roster()
	got, err := r.SignIn(ctx, s.ID, oldPIN, cr.eng.Now())
	if err != nil {
		return StaffMember{}, err
	}
	if err := r.ChangePIN(ctx, got.ID, newPIN); err != nil {
		return StaffMember{}, err
	}
	return memberOf(*got), nil
}

// SignOut journals that m signed out: the screen was locked by hand, or left
// idle when idle is true.
func (cr *Crew) SignOut(ctx context.Context, m StaffMember, idle bool) error {
	if m.ID == "" {
		return nil // nobody was signed in
	}
	reason := "locked"
	if idle {
		reason = "idle"
	}
	cr.setSigned(nil)
	return cr.audit(ctx, Event{Kind: EvStaffSignOut, Staff: m.ID, Reason: reason})
}

// Authorize returns the manager whose PIN pin is, for the override o, and
// journals the approval with the manager's id; a discount the manager approves
// by name counts from then on. An approval the journal cannot record counts for
// nothing.
func (cr *Crew) Authorize(ctx context.Context, pin string, o Override) (StaffMember, error) {
	m, err := cr.authorise(ctx, pin)
	if err != nil {
		return StaffMember{}, err
	}
	extra := map[string]string{"what": o.What}
	for k, v := range map[string]string{"sku": o.SKU, "by": o.By} {
		if v != "" {
			extra[k] = v
		}
	}
	if o.Amount != 0 {
		extra["amount"] = strconv.FormatInt(int64(o.Amount), 10) // paise, as every amount in the journal
	}
	if err := cr.audit(ctx, Event{Kind: EvOverride, Staff: m.ID, Extra: extra}); err != nil {
		return StaffMember{}, err
	}
	cr.mu.Lock()
	cr.approvers[m.Name] = Staff{ID: m.ID, Name: m.Name, Role: m.Role}
	cr.mu.Unlock()
	return memberOf(*m), nil
}

// ManagerByPIN returns the manager whose PIN pin is, within this till's limit of
// wrong manager PINs: the command line acts on a manager's authority.
func (cr *Crew) ManagerByPIN(ctx context.Context, pin string) (StaffMember, error) {
	m, err := cr.authorise(ctx, pin)
	if err != nil {
		return StaffMember{}, err
	}
	return memberOf(*m), nil
}

// managerOnceStaffExist returns the id of the manager whose PIN pin is, or ""
// when no member of staff exists yet.
func (cr *Crew) managerOnceStaffExist(ctx context.Context, pin string) (string, error) {
	has, err := cr.HasStaff(ctx)
	if err != nil || !has {
		return "", err
	}
	m, err := cr.authorise(ctx, pin)
	if err != nil {
		return "", err
	}
	return m.ID, nil
}

// gate refuses a manager's PIN while this till has had too many wrong ones.
func (cr *Crew) gate() error {
	cr.mu.Lock()
	defer cr.mu.Unlock()
	if cr.wrongPINs >= MaxOverrideAttempts {
		return ErrTooManyOverrides
	}
	return nil
}

// counted counts err of a manager's PIN: a wrong PIN adds one, a right one
// clears the count.
func (cr *Crew) counted(err error) error {
	cr.mu.Lock()
	defer cr.mu.Unlock()
	switch {
	case errors.Is(err, ErrWrongPIN):
		cr.wrongPINs++
	case err == nil:
		cr.wrongPINs = 0
	}
	return err
}

// authorise finds the manager whose PIN pin is, within this till's limit of wrong
// manager PINs.
func (cr *Crew) authorise(ctx context.Context, pin string) (*Staff, error) {
	if err := cr.gate(); err != nil {
		return nil, err
	}
	m, err := cr.eng.Roster().AuthoriseManager(ctx, pin, cr.eng.Now())
	return m, cr.counted(err)
}

// StaffList lists every member of staff, disabled ones too, with their lock.
func (cr *Crew) StaffList(ctx context.Context) ([]StaffInfo, error) {
	all, err := cr.j.List(ctx)
	if err != nil {
		return nil, err
	}
	now := cr.eng.Now()
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
func (cr *Crew) member(ctx context.Context, name string) (Staff, error) {
	all, err := cr.j.List(ctx)
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

// ChangeStaff makes change to the member named name on a manager's PIN; pin is
// the new PIN of StaffResetPIN (which also lifts a lock). It returns the member.
func (cr *Crew) ChangeStaff(ctx context.Context, name string, change StaffChange, pin, managerPIN string) (StaffInfo, error) {
	s, err := cr.member(ctx, name)
	if err != nil {
		return StaffInfo{}, err
	}
	r := cr.eng.Roster()
	if _, err := cr.authorise(ctx, managerPIN); err != nil {
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
	list, err := cr.StaffList(ctx)
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
func (cr *Crew) SetStaffLimits(ctx context.Context, name string, l *StaffLimits, managerPIN string) (StaffInfo, error) {
	s, err := cr.member(ctx, name)
	if err != nil {
		return StaffInfo{}, err
	}
	if s.Role == RoleManager && l != nil {
		return StaffInfo{}, Errorf("%s is a manager: a manager's discounts and refunds have no limit to set.", s.Name)
	}
	if _, err := cr.authorise(ctx, managerPIN); err != nil {
		return StaffInfo{}, err
	}
	if err := cr.eng.Roster().SetLimits(ctx, s.ID, l); err != nil {
		return StaffInfo{}, err
	}
	return cr.staffInfo(ctx, s.ID)
}

func (cr *Crew) staffInfo(ctx context.Context, id string) (StaffInfo, error) {
	list, err := cr.StaffList(ctx)
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
func (cr *Crew) setSigned(s *Staff) {
	cr.mu.Lock()
	defer cr.mu.Unlock()
	if s == nil {
		cr.signed = nil
		return
	}
	c := *s
	cr.signed = &c
}

// signedCashier is the cashier signed in at this till with limits of their own,
// or nil. cr.mu is held.
func (cr *Crew) signedCashier() *Staff {
	if s := cr.signed; s != nil && s.Role == RoleCashier && s.Limits != nil {
		return s
	}
	return nil
}

// cashierRefund makes r the signed-in cashier's own refund when the PIN is
// theirs and the amount within their limit; a PIN that is not theirs is left to
// be checked as a manager's.
func (cr *Crew) cashierRefund(ctx context.Context, r *RefundRequest) error {
	cr.mu.Lock()
	c := cr.signedCashier()
	cr.mu.Unlock()
	if c == nil || r.Cashier != "" {
		return nil
	}
	amount := r.Amount
	if amount == 0 {
		o, err := cr.eng.Order(ctx, r.OrderID)
		if err != nil {
			return err
		}
		amount = o.Refundable()
	}
	_, err := cr.eng.Roster().CashierWithin(ctx, c.ID, r.PIN, amount, cr.eng.Now())
	switch {
	case err == nil:
		r.Cashier = c.ID
		return nil
	case errors.Is(err, ErrRefundNeedsManager):
		return err
	}
	return nil
}

// applyStaff journals the store's record of one member (Roster.PutStoreMember):
// a member added at the store can sign in at this counter, one disabled there
// no longer can. The counter's own wrong PINs and lock of the member stay.
func (cr *Crew) applyStaff(ctx context.Context, body []byte) error {
	var s Staff
	if err := json.Unmarshal(body, &s); err != nil {
		return sentenceErr("A member of staff the store sent cannot be read; the counter keeps the staff it has. Change the member at the store again.")
	}
	_, err := cr.eng.Roster().PutStoreMember(ctx, s)
	return err
}

// SetStorePepper gives the till the store's PIN pepper (kept in the keyring,
// never in the journal) once the store has handed it over, so that the store's
// members sign in from now on.
func (cr *Crew) SetStorePepper(pepper []byte) {
	cr.eng.Roster().WithStorePepper(pepper)
}
