package pos

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"
)

// Store-wide staff (ADR 0007): the store server keeps the store's staff, each
// PIN hashed with argon2id of HMAC-SHA256(store pepper, PIN). A terminal holds
// the store's pepper in its keyring beside its own, journals each member the
// store sends as applied master data (the hash, never the PIN) and checks
// their PIN with the store's pepper. The counter's own members keep the
// counter's pepper. Wrong PINs and lockouts are counted per terminal.

// StoreStaffPrefix begins the id of every member the store distributes ("S001"),
// so that a store member never takes the id of a counter's own ("001").
const StoreStaffPrefix = "S"

// ErrStorePepper reports a store member whose PIN this counter cannot check:
// its keyring holds no store pepper, or another store's.
var ErrStorePepper = sentenceError{"the store's PIN key is missing or another",
	"This member of staff is the store's, and this counter does not hold the store's PIN key: a manager of this counter accepts the store (galla sync --staff MANAGER, with the store server reachable), or enrols the counter again."}

// WithStorePepper sets the store's pepper, with which the PINs of the store's
// members are checked, and returns r. It may be called while r is in use (the
// pepper arrives at the first sync of a terminal enrolled before it existed).
func (r *Roster) WithStorePepper(pepper []byte) *Roster {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.storePep = pepper
	return r
}

// pepperFor is the pepper s's PIN is hashed with. r.mu is held.
func (r *Roster) pepperFor(s Staff) []byte {
	if s.Store {
		return r.storePep
	}
	return r.pepper
}

// pepperKnown says why s's PIN cannot be checked here: a store member without
// the store's pepper (ErrStorePepper), a hash made with another pepper
// (ErrOtherPepper). r.mu is held.
func (r *Roster) pepperKnown(s Staff) error {
	if s.Store && (len(r.storePep) == 0 || s.PepperID != PepperID(r.storePep)) {
		return ErrStorePepper
	}
	if s.Algo == AlgoArgon2id && s.PepperID != PepperID(r.pepperFor(s)) {
		return ErrOtherPepper
	}
	return nil
}

// storeMemberError refuses a change of what the store decides for its member.
func storeMemberError(s Staff, what string) error {
	return Errorf("%s is the store's member of staff: %s at the store (galla store staff); every counter applies it at its next sync.", s.Name, what)
}

// CheckStaffName returns name with its spaces tidied when it may name a member
// of staff: 1 to 50 letters, no control characters (ErrBadStaffName).
func CheckStaffName(name string) (string, error) {
	name = strings.Join(strings.Fields(name), " ")
	if name == "" || utf8.RuneCountInString(name) > 50 || !utf8.ValidString(name) || strings.IndexFunc(name, unicode.IsControl) >= 0 {
		return "", ErrBadStaffName
	}
	return name, nil
}

// CheckStoreMember checks a record the store distributes: an id of the
// store's, a name, a role, an argon2id hash at least MinPINCost with a salt
// and the name of its pepper, limits from ₹0 up.
func CheckStoreMember(s Staff) error {
	name, err := CheckStaffName(s.Name)
	switch {
	case err != nil || name != s.Name:
		return fmt.Errorf("pos: store member %q: %w", printable(s.Name), ErrBadStaffName)
	case !strings.HasPrefix(s.ID, StoreStaffPrefix) || len(s.ID) < 2 || len(s.ID) > 20 || !allDigits(s.ID[1:]):
		return fmt.Errorf("pos: store member id %q is not the store's", printable(s.ID))
	case s.Role != RoleCashier && s.Role != RoleManager:
		return fmt.Errorf("pos: store member %s: %w", s.ID, ErrBadRole)
	case s.Algo != AlgoArgon2id || len(s.Salt) == 0 || len(s.PINHash) == 0 || s.PepperID == "" ||
		s.Iterations < int(MinPINCost.Time) || s.Memory < MinPINCost.MemoryKiB:
		return fmt.Errorf("pos: store member %s: %w", s.ID, ErrWeakPINHash)
	case s.Limits != nil && (s.Limits.Discount < 0 || s.Limits.Refund < 0 || s.Limits.Discount > MaxPrice || s.Limits.Refund > MaxPrice):
		return fmt.Errorf("pos: store member %s: a limit is out of range", s.ID)
	}
	return nil
}

// PutStoreMember stores the store's record of a member (CheckStoreMember)
// as the store sent it, keeping this counter's own count of wrong PINs and
// lock. It reports whether the record changed; one the counter holds already
// is not stored again. A member whose name an enabled member of the counter's
// own has is refused while both are enabled, with a sentence saying what to
// do: a name signs in one member.
func (r *Roster) PutStoreMember(ctx context.Context, s Staff) (bool, error) {
	if err := CheckStoreMember(s); err != nil {
		return false, err
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	all, err := r.store.List(ctx)
	if err != nil {
		return false, fmt.Errorf("pos: store member: %w", err)
	}
	s.Store, s.FailedAttempts, s.LockedUntil = true, 0, time.Time{}
	var have *Staff
	for i, o := range all {
		if o.ID == s.ID {
			have = &all[i]
			continue
		}
		if !o.Disabled && !s.Disabled && strings.EqualFold(o.Name, s.Name) {
			return false, Errorf("The store's member of staff %s has the name of this counter's own member %s: disable the counter's own (galla staff disable %q), then sync again.", s.Name, o.Name, o.Name)
		}
	}
	if have != nil {
		if !have.Store {
			return false, fmt.Errorf("pos: store member %s: the id is a member of this counter's own", s.ID)
		}
		s.FailedAttempts, s.LockedUntil = have.FailedAttempts, have.LockedUntil
		a, errA := json.Marshal(*have)
		b, errB := json.Marshal(s)
		if errA == nil && errB == nil && bytes.Equal(a, b) {
			return false, nil
		}
	}
	if err := r.store.Put(ctx, s); err != nil {
		return false, fmt.Errorf("pos: store member: %w", err)
	}
	return true, nil
}
