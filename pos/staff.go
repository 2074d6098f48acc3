package pos

import (
	"context"
	"crypto/pbkdf2"
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"errors"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"
	"unicode"
	"unicode/utf8"
)

// Role is what a staff member may do. Managers authorise refunds, day close and
// settings.
type Role string

// The roles.
const (
	RoleCashier Role = "cashier"
	RoleManager Role = "manager"
)

// ParseRole reads "cashier" or "manager" (any case).
func ParseRole(s string) (Role, error) {
	switch r := Role(strings.ToLower(strings.TrimSpace(s))); r {
	case RoleCashier, RoleManager:
		return r, nil
	}
	return "", fmt.Errorf("pos: role %q: %w", printable(s), ErrBadRole)
}

// The staff errors, matched with errors.Is.
var (
	ErrUnknownStaff      = errors.New("no such staff member")
	ErrStaffExists       = errors.New("a staff member of this name exists")
	ErrBadRole           = errors.New("the role is cashier or manager")
	ErrBadStaffName      = errors.New("a staff name is 1 to 50 letters")
	ErrFirstStaffManager = errors.New("the first staff member must be a manager")
	ErrNoManager         = errors.New("no manager is set up")
	ErrStaffDisabled     = errors.New("this staff member is disabled")
	ErrLastManager       = errors.New("the last manager cannot be disabled")
)

// Staff is a member of staff. The PIN is kept only as a salted PBKDF2-HMAC-SHA256
// hash.
type Staff struct {
	ID         string `json:"id"`
	Name       string `json:"name"`
	Role       Role   `json:"role"`
	PINHash    []byte `json:"pin_hash"`
	Salt       []byte `json:"salt"`
	Iterations int    `json:"iterations"`
	// Algo is the PIN hash: AlgoArgon2id (Iterations its passes, Memory its KiB)
	// or "" for PBKDF2-SHA256 (Iterations its rounds).
	Algo   string `json:"algo,omitempty"`
	Memory uint32 `json:"memory,omitempty"`
	// PepperID names the pepper the hash was made with (a hash of it, never the
	// pepper): a PIN set on a terminal whose keyring held another pepper is
	// told apart from a wrong PIN.
	PepperID       string    `json:"pepper_id,omitempty"`
	FailedAttempts int       `json:"failed_attempts,omitempty"` // wrong PINs in a row
	LockedUntil    time.Time `json:"locked_until,omitzero"`
	// Disabled is a member who left: they cannot sign in or approve; the record
	// stays, so the journal's sales still name them.
	Disabled bool `json:"disabled,omitempty"`
	// Limits are what a manager allows this cashier alone; nil keeps the shop's
	// discount limit and no refund without a manager.
	Limits *StaffLimits `json:"limits,omitempty"`
	// Store marks a member the store server distributes (ADR 0007): their PIN
	// hash is peppered with the store's pepper, and their PIN, role, limits
	// and disabling are changed at the store only.
	Store bool `json:"store,omitempty"`
	// Recorded is set by a store that vouches it wrote the record itself: the
	// journal, whose keyed proof of the record was checked on read, and
	// MemStaff, which holds only what was Put. A PIN hash of an earlier
	// version (PBKDF2 without a pepper) is accepted only from such a record:
	// one put into the file by hand proves nothing. Never stored.
	Recorded bool `json:"-"`
}

// StaffLimits are a cashier's own limits: the largest line discount and the
// largest refund they give with their own PIN; more needs a manager's.
type StaffLimits struct {
	Discount Paise `json:"discount"`
	Refund   Paise `json:"refund"`
}

// String returns the name and role, never the hash.
func (s Staff) String() string { return fmt.Sprintf("%s (%s)", s.Name, s.Role) }

// Locked reports whether s is locked out at now.
func (s Staff) Locked(now time.Time) bool { return s.attempts().Locked(now) }

// attempts is s's count of wrong PINs and lock.
func (s Staff) attempts() PINAttempts {
	return PINAttempts{Failed: s.FailedAttempts, LockedUntil: s.LockedUntil, Slow: s.Role == RoleManager}
}

// SetPIN checks pin and stores its argon2id hash at cost with a fresh salt from
// rnd (crypto/rand when nil); pepper, the terminal's secret kept outside the
// journal, is mixed in so that the journal alone cannot test a guess.
func (s *Staff) SetPIN(pin string, cost PINCost, pepper []byte, rnd io.Reader) error {
	hash, salt, err := NewPINHash(pin, pepper, cost, rnd)
	if err != nil {
		return err
	}
	s.PINHash, s.Salt, s.Algo, s.Iterations, s.Memory, s.PepperID = hash, salt, AlgoArgon2id, int(cost.Time), cost.MemoryKiB, PepperID(pepper)
	return nil
}

// PINMatches reports whether pin is s's PIN under pepper, comparing hashes in
// constant time. A record hashed below the minimum cost (MinPINCost, or
// MinPINIterations for an earlier version's PBKDF2, which knew no pepper), or
// without salt or hash, never matches; nor does a PBKDF2 hash of a record its
// store does not vouch for (Recorded).
func (s Staff) PINMatches(pin string, pepper []byte) bool {
	if len(s.Salt) == 0 || len(s.PINHash) == 0 || CheckPIN(pin) != nil {
		return false
	}
	switch s.Algo {
	case AlgoArgon2id:
		if s.Iterations < 0 || s.Iterations > int(maxPINCost.Time) {
			return false
		}
		return PINHashMatches(s.PINHash, pin, pepper, s.Salt, PINCost{Time: uint32(s.Iterations), MemoryKiB: s.Memory})
	case "":
		if s.Iterations < MinPINIterations || !s.Recorded {
			return false
		}
		h, err := pbkdf2.Key(sha256.New, pin, s.Salt, s.Iterations, len(s.PINHash))
		return err == nil && subtle.ConstantTimeCompare(h, s.PINHash) == 1
	}
	return false
}

func (s Staff) clone() Staff {
	s.PINHash = slices.Clone(s.PINHash)
	s.Salt = slices.Clone(s.Salt)
	return s
}

// StaffStore keeps staff records; pos/journal implements it. Get's error matches
// ErrUnknownStaff when there is no record of id.
type StaffStore interface {
	List(ctx context.Context) ([]Staff, error)
	Get(ctx context.Context, id string) (Staff, error)
	Put(ctx context.Context, s Staff) error
}

// StaffAttempt is what a PIN tried changes in a member's record: the wrong PINs
// in a row and the end of any lock. It is the Data of a staff.attempt event,
// which never carries the PIN's hash.
type StaffAttempt struct {
	ID             string    `json:"id"`
	FailedAttempts int       `json:"failed_attempts"`
	LockedUntil    time.Time `json:"locked_until,omitzero"`
}

// AttemptRecorder is a StaffStore that can store a member's counters alone;
// pos/journal implements it with a staff.attempt event. A Roster over a store
// without it stores the whole record with Put. RecordAttempt's error matches
// ErrUnknownStaff when there is no record of id.
type AttemptRecorder interface {
	RecordAttempt(ctx context.Context, id string, failed int, lockedUntil time.Time) error
}

// Roster adds staff and checks their PINs against a StaffStore, counting wrong PINs
// and locking a member out for LockDuration after MaxPINAttempts in a row. Its
// methods are safe for concurrent use.
type Roster struct {
	store      StaffStore
	iterations int
	cost       PINCost
	pepper     []byte
	storePep   []byte // the store's pepper, for the store's members (ADR 0007)
	rnd        io.Reader
	mu         sync.Mutex // serialises read-modify-write of staff records
}

// NewRoster returns a roster over store that hashes new PINs with
// DefaultPINIterations rounds and salts from crypto/rand.
func NewRoster(store StaffStore) *Roster {
	return &Roster{store: store, iterations: DefaultPINIterations, cost: DefaultPINCost, rnd: rand.Reader}
}

// WithIterations sets the PBKDF2 rounds for PINs set from now on (at least
// MinPINIterations; fewer are refused when a PIN is set) and returns r.
//
// New PINs are argon2id: n at or below MinPINIterations asks for the cheapest
// accepted cost, MinPINCost (the tests' setting), and fewer than
// MinPINIterations is refused when a PIN is set.
func (r *Roster) WithIterations(n int) *Roster {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.iterations = n
	switch {
	case n < MinPINIterations:
		r.cost = PINCost{}
	case n <= MinPINIterations:
		r.cost = MinPINCost
	}
	return r
}

// WithPepper sets the terminal's PIN pepper, a secret kept outside the journal
// (the keyring), and returns r.
func (r *Roster) WithPepper(pepper []byte) *Roster {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.pepper = pepper
	return r
}

// AddStaff adds a staff member with a new ID ("001", "002", ...). The first member of
// an empty store must be a manager (ErrFirstStaffManager); names are unique without
// regard to case (ErrStaffExists).
func (r *Roster) AddStaff(ctx context.Context, name string, role Role, pin string) (Staff, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	name = strings.Join(strings.Fields(name), " ")
	if name == "" || utf8.RuneCountInString(name) > 50 || !utf8.ValidString(name) || strings.IndexFunc(name, unicode.IsControl) >= 0 {
		return Staff{}, fmt.Errorf("pos: add staff: %w", ErrBadStaffName)
	}
	if role != RoleCashier && role != RoleManager {
		return Staff{}, fmt.Errorf("pos: add staff: %w", ErrBadRole)
	}
	if err := CheckRolePIN(role, pin); err != nil {
		return Staff{}, fmt.Errorf("pos: add staff: %w", err)
	}
	all, err := r.store.List(ctx)
	if err != nil {
		return Staff{}, fmt.Errorf("pos: add staff: %w", err)
	}
	if len(all) == 0 && role != RoleManager {
		return Staff{}, fmt.Errorf("pos: add staff: %w", ErrFirstStaffManager)
	}
	next := 1
	for _, s := range all {
		if strings.EqualFold(s.Name, name) {
			return Staff{}, fmt.Errorf("pos: add staff %q: %w", name, ErrStaffExists)
		}
		if n, err := strconv.Atoi(s.ID); err == nil && n >= next {
			next = n + 1
		}
	}
	s := Staff{ID: fmt.Sprintf("%03d", next), Name: name, Role: role}
	if err := s.SetPIN(pin, r.cost, r.pepper, r.rnd); err != nil {
		return Staff{}, fmt.Errorf("pos: add staff: %w", err)
	}
	if err := r.store.Put(ctx, s); err != nil {
		return Staff{}, fmt.Errorf("pos: add staff: %w", err)
	}
	s.Recorded = true // as the store gives it back: it wrote it
	return s.clone(), nil
}

// ChangePIN sets a new PIN for staff member id and lifts any lock (a manager's
// reset, or the member's own change after signing in). A manager's new PIN has
// at least MinManagerPINLength digits.
func (r *Roster) ChangePIN(ctx context.Context, id, pin string) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	s, err := r.store.Get(ctx, id)
	if err != nil {
		return fmt.Errorf("pos: change PIN: %w", err)
	}
	if s.Store {
		return storeMemberError(s, "reset their PIN")
	}
	if err := CheckRolePIN(s.Role, pin); err != nil {
		return fmt.Errorf("pos: change PIN: %w", err)
	}
	if err := s.SetPIN(pin, r.cost, r.pepper, r.rnd); err != nil {
		return fmt.Errorf("pos: change PIN: %w", err)
	}
	s.FailedAttempts, s.LockedUntil = 0, time.Time{}
	if err := r.store.Put(ctx, s); err != nil {
		return fmt.Errorf("pos: change PIN: %w", err)
	}
	return nil
}

// SignIn checks the PIN of staff member id at now. A locked member gets a
// *LockedError (ErrLocked) without the PIN being checked; a wrong PIN gets a
// *WrongPINError (ErrWrongPIN) with the attempts left, or a *LockedError when it was
// the MaxPINAttempts-th in a row; a correct PIN resets the count. A manager is
// never locked: wrong PINs against their name make the next try wait
// (*SlowedError, ErrSlowed; PINAttempts.Slow).
func (r *Roster) SignIn(ctx context.Context, id, pin string, now time.Time) (*Staff, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	s, err := r.store.Get(ctx, id)
	if err != nil {
		return nil, fmt.Errorf("pos: sign in: %w", err)
	}
	if s.Disabled {
		return nil, fmt.Errorf("pos: sign in %s: %w", s.ID, ErrStaffDisabled)
	}
	if err := s.attempts().Refused(now); err != nil {
		return nil, err
	}
	if s.Algo == "" && (s.Iterations < MinPINIterations || !s.Recorded) {
		return nil, fmt.Errorf("pos: sign in %s: %w", s.ID, ErrWeakPINHash)
	}
	if err := r.pepperKnown(s); err != nil {
		return nil, fmt.Errorf("pos: sign in %s: %w", s.ID, err)
	}
	ok := s.PINMatches(pin, r.pepperFor(s))
	upgraded := ok && r.upgrade(&s, pin)
	if err := r.record(ctx, &s, ok, now); err != nil {
		return nil, err
	}
	if upgraded {
		if err := r.store.Put(ctx, s); err != nil {
			return nil, fmt.Errorf("pos: sign in: %w", err)
		}
	}
	if !ok {
		return nil, attemptError(s)
	}
	out := s.clone()
	return &out, nil
}

// upgrade rehashes the PIN of a record of an earlier version (PBKDF2, no pepper)
// with argon2id once its right PIN is known; the caller stores s. It reports
// whether s changed.
func (r *Roster) upgrade(s *Staff, pin string) bool {
	if s.Algo == AlgoArgon2id {
		return false
	}
	up := *s
	if up.SetPIN(pin, r.cost, r.pepper, r.rnd) != nil {
		return false
	}
	*s = up
	return true
}

// record counts a right or wrong PIN for s and stores s when it changed.
func (r *Roster) record(ctx context.Context, s *Staff, ok bool, now time.Time) error {
	before, after := s.attempts(), s.attempts().After(ok, now)
	if after.Failed == before.Failed && after.LockedUntil.Equal(before.LockedUntil) {
		return nil
	}
	s.FailedAttempts, s.LockedUntil = after.Failed, after.LockedUntil
	var err error
	if ar, ok := r.store.(AttemptRecorder); ok {
		// The attempt alone: a wrong PIN never journals the member's hash again.
		err = ar.RecordAttempt(ctx, s.ID, s.FailedAttempts, s.LockedUntil)
	} else {
		err = r.store.Put(ctx, *s)
	}
	if err != nil {
		return fmt.Errorf("pos: sign in: %w", err)
	}
	return nil
}

func attemptError(s Staff) error { return s.attempts().WrongPIN() }

// AuthoriseManager finds the manager whose PIN is pin at now, for a refund, day close
// or settings. Disabled managers are skipped, and those whose next try must
// wait (PINAttempts.Refused). A PIN that matches no manager is ErrWrongPIN and
// counts against no manager (no cashier can lock a manager out); the caller
// limits the prompts per session. With every manager waiting the error is the
// refusal (a *SlowedError) that ends first; with none set up it is
// ErrNoManager.
func (r *Roster) AuthoriseManager(ctx context.Context, pin string, now time.Time) (*Staff, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	all, err := r.store.List(ctx)
	if err != nil {
		return nil, fmt.Errorf("pos: authorise manager: %w", err)
	}
	var tried []Staff
	var wait error // the refusal of the manager whose wait ends first
	var until time.Time
	for _, s := range all {
		if s.Role != RoleManager || s.Disabled {
			continue
		}
		if err := s.attempts().Refused(now); err != nil {
			if wait == nil || s.LockedUntil.Before(until) {
				wait, until = err, s.LockedUntil
			}
			continue
		}
		if s.PINMatches(pin, r.pepperFor(s)) {
			upgraded := r.upgrade(&s, pin)
			if err := r.record(ctx, &s, true, now); err != nil {
				return nil, err
			}
			if upgraded {
				if err := r.store.Put(ctx, s); err != nil {
					return nil, fmt.Errorf("pos: authorise manager: %w", err)
				}
			}
			out := s.clone()
			return &out, nil
		}
		tried = append(tried, s)
	}
	if len(tried) == 0 {
		if wait != nil {
			return nil, wait
		}
		return nil, fmt.Errorf("pos: authorise manager: %w", ErrNoManager)
	}
	// A PIN that matches no manager is not counted against the managers: a
	// cashier at the counter must not be able to lock them out. The caller
	// limits the prompts of its session (Till: MaxOverrideAttempts).
	return nil, fmt.Errorf("pos: authorise manager: %w", ErrWrongPIN)
}

// SetDisabled disables member id (they left: no sign-in, no approval; the record
// stays) or enables them again. The last enabled manager cannot be disabled.
func (r *Roster) SetDisabled(ctx context.Context, id string, disabled bool) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	s, err := r.store.Get(ctx, id)
	if err != nil {
		return fmt.Errorf("pos: disable staff: %w", err)
	}
	if s.Store && s.Disabled != disabled {
		return storeMemberError(s, "disable or enable them")
	}
	if disabled && s.Role == RoleManager && !s.Disabled {
		all, err := r.store.List(ctx)
		if err != nil {
			return fmt.Errorf("pos: disable staff: %w", err)
		}
		others := 0
		for _, o := range all {
			if o.Role == RoleManager && !o.Disabled && o.ID != s.ID {
				others++
			}
		}
		if others == 0 {
			return fmt.Errorf("pos: disable staff %s: %w", s.ID, ErrLastManager)
		}
	}
	if s.Disabled == disabled {
		return nil
	}
	s.Disabled = disabled
	if err := r.store.Put(ctx, s); err != nil {
		return fmt.Errorf("pos: disable staff: %w", err)
	}
	return nil
}

// ErrRefundNeedsManager refuses a cashier's refund above their own limit.
var ErrRefundNeedsManager = errors.New("the refund needs a manager's PIN")

// CashierWithin returns the cashier id when pin is their PIN, they are neither
// disabled nor locked, and amount is within their own refund limit; the PIN is
// checked without counting an attempt (a manager's PIN typed at the cashier's
// counter must not lock the cashier out).
func (r *Roster) CashierWithin(ctx context.Context, id, pin string, amount Paise, now time.Time) (*Staff, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	s, err := r.store.Get(ctx, id)
	if err != nil {
		return nil, fmt.Errorf("pos: cashier refund: %w", err)
	}
	switch {
	case s.Disabled || s.Locked(now) || s.Role != RoleCashier:
		return nil, fmt.Errorf("pos: cashier refund %s: %w", s.ID, ErrWrongPIN)
	case r.pepperKnown(s) != nil, s.Algo == "" && s.Iterations < MinPINIterations:
		return nil, fmt.Errorf("pos: cashier refund %s: %w", s.ID, ErrWrongPIN)
	case !s.PINMatches(pin, r.pepperFor(s)):
		return nil, fmt.Errorf("pos: cashier refund %s: %w", s.ID, ErrWrongPIN)
	case s.Limits == nil || amount > s.Limits.Refund:
		limit := Paise(0)
		if s.Limits != nil {
			limit = s.Limits.Refund
		}
		return nil, wrapf(ErrRefundNeedsManager, "A refund above %s needs a manager's PIN.", limit)
	}
	return &s, nil
}

// SetLimits sets member id's own discount and refund limits (a manager's act);
// nil goes back to the shop's.
func (r *Roster) SetLimits(ctx context.Context, id string, l *StaffLimits) error {
	if l != nil && (l.Discount < 0 || l.Refund < 0 || l.Discount > MaxPrice || l.Refund > MaxPrice) {
		return Errorf("A limit is an amount from ₹0 up; type it again.")
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	s, err := r.store.Get(ctx, id)
	if err != nil {
		return fmt.Errorf("pos: staff limits: %w", err)
	}
	if s.Store {
		return storeMemberError(s, "change their limits")
	}
	s.Limits = l
	if err := r.store.Put(ctx, s); err != nil {
		return fmt.Errorf("pos: staff limits: %w", err)
	}
	return nil
}

// Unlock lifts member id's lock after too many wrong PINs (a manager's act).
func (r *Roster) Unlock(ctx context.Context, id string) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	s, err := r.store.Get(ctx, id)
	if err != nil {
		return fmt.Errorf("pos: unlock staff: %w", err)
	}
	if s.FailedAttempts == 0 && s.LockedUntil.IsZero() {
		return nil
	}
	s.FailedAttempts, s.LockedUntil = 0, time.Time{}
	if err := r.store.Put(ctx, s); err != nil {
		return fmt.Errorf("pos: unlock staff: %w", err)
	}
	return nil
}

// MemStaff is a StaffStore in memory, for tests and the headless tools. It is safe for
// concurrent use.
type MemStaff struct {
	mu sync.Mutex
	m  map[string]Staff
}

// NewMemStaff returns an empty MemStaff.
func NewMemStaff() *MemStaff { return &MemStaff{m: map[string]Staff{}} }

// List returns copies of every record, ordered by ID.
func (m *MemStaff) List(ctx context.Context) ([]Staff, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	out := make([]Staff, 0, len(m.m))
	for _, s := range m.m {
		s.Recorded = true
		out = append(out, s.clone())
	}
	slices.SortFunc(out, func(a, b Staff) int { return strings.Compare(a.ID, b.ID) })
	return out, nil
}

// Get returns a copy of the record of id, or an error matching ErrUnknownStaff.
func (m *MemStaff) Get(ctx context.Context, id string) (Staff, error) {
	if err := ctx.Err(); err != nil {
		return Staff{}, err
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	s, ok := m.m[id]
	if !ok {
		return Staff{}, fmt.Errorf("pos: staff %q: %w", printable(id), ErrUnknownStaff)
	}
	s.Recorded = true
	return s.clone(), nil
}

// Put stores a copy of s under s.ID, replacing any record of that ID.
func (m *MemStaff) Put(ctx context.Context, s Staff) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	if s.ID == "" {
		return fmt.Errorf("pos: put staff: %w", ErrUnknownStaff)
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	m.m[s.ID] = s.clone()
	return nil
}

// RecordAttempt stores the counters of member id alone (AttemptRecorder).
func (m *MemStaff) RecordAttempt(ctx context.Context, id string, failed int, lockedUntil time.Time) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	s, ok := m.m[id]
	if !ok {
		return fmt.Errorf("pos: staff %q: %w", printable(id), ErrUnknownStaff)
	}
	s.FailedAttempts, s.LockedUntil = failed, lockedUntil
	m.m[id] = s
	return nil
}
