package pos

import (
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"time"

	"golang.org/x/crypto/argon2"
)

// The PIN rules, written once for everyone who signs in with a PIN: the
// counter's staff (Roster) and the store server's managers of its pages
// (store/web). A PIN is 4 to 8 digits, a manager's 6 to 8 (CheckRolePIN); it
// is kept as HashPIN, argon2id over HMAC-SHA256(pepper, PIN) with a salt;
// PINAttempts counts the wrong PINs in a row and locks after MaxPINAttempts.

// PIN rules (DESIGN.md section 5).
const (
	MinPINLength         = 4
	MinManagerPINLength  = 6 // a manager's PIN set from now on; a shorter one is changed at the next sign-in
	MaxPINLength         = 8
	MinPINIterations     = 100_000          // the fewest PBKDF2 iterations accepted, when hashing and when checking
	DefaultPINIterations = 150_000          // what a Roster uses when not told
	MaxPINAttempts       = 10               // wrong PINs in a row that lock a staff member
	LockDuration         = 30 * time.Minute // how long the lock lasts
	pinSaltLen           = 16
	pinHashLen           = 32
	// AlgoArgon2id names the memory-hard hash of new PINs (DESIGN.md section 5);
	// a record without an algorithm is PBKDF2 of an earlier version, checked as
	// such and rehashed at its next right PIN.
	AlgoArgon2id = "argon2id"
)

// PINCost is argon2id's cost: passes over the memory and the memory in KiB.
type PINCost struct {
	Time      uint32
	MemoryKiB uint32
}

// The costs of PIN hashes: new PINs take DefaultPINCost (OWASP's argon2id
// minimum: 2 passes over 19 MiB); a stored hash cheaper than MinPINCost never
// matches (a record made weak by editing the journal proves nothing).
var (
	DefaultPINCost = PINCost{Time: 2, MemoryKiB: 19 * 1024}
	MinPINCost     = PINCost{Time: 1, MemoryKiB: 8 * 1024}
)

// maxPINCost is the dearest cost a stored hash is checked at: a record made
// dearer by editing would make every check of it a denial of service.
var maxPINCost = PINCost{Time: 64, MemoryKiB: 4 << 20}

// The PIN errors, matched with errors.Is.
var (
	ErrBadPIN          = errors.New("a PIN is 4 to 8 digits")
	ErrShortManagerPIN = errors.New("a manager's PIN is 6 to 8 digits")
	ErrWrongPIN        = errors.New("wrong PIN")
	ErrLocked          = errors.New("locked after too many wrong PINs")
	ErrWeakPINHash     = errors.New("the stored PIN hash is damaged or too weak")
)

// WrongPINError is a wrong PIN; it matches ErrWrongPIN.
type WrongPINError struct {
	AttemptsLeft int // wrong PINs left before the lock
}

// Error states the attempts left.
func (e *WrongPINError) Error() string {
	return fmt.Sprintf("pos: sign in: wrong PIN, %d attempts left", e.AttemptsLeft)
}

// Is makes a *WrongPINError match ErrWrongPIN.
func (e *WrongPINError) Is(target error) bool { return target == ErrWrongPIN }

// LockedError is a staff member locked out; it matches ErrLocked.
type LockedError struct {
	Until time.Time
}

// Error states until when the lock lasts.
func (e *LockedError) Error() string {
	return "pos: sign in: locked until " + e.Until.Format(time.DateTime)
}

// Is makes a *LockedError match ErrLocked.
func (e *LockedError) Is(target error) bool { return target == ErrLocked }

// CheckPIN checks that pin is 4 to 8 ASCII digits.
func CheckPIN(pin string) error {
	if len(pin) < MinPINLength || len(pin) > MaxPINLength || !allDigits(pin) {
		return ErrBadPIN
	}
	return nil
}

// CheckRolePIN checks that pin may be set for a member of role: 4 to 8 digits,
// and at least MinManagerPINLength for a manager (ErrShortManagerPIN).
func CheckRolePIN(role Role, pin string) error {
	if err := CheckPIN(pin); err != nil {
		return err
	}
	if role == RoleManager && len(pin) < MinManagerPINLength {
		return ErrShortManagerPIN
	}
	return nil
}

// NewPINHash checks pin (CheckPIN) and returns HashPIN of it at cost with a
// fresh salt from rnd (crypto/rand when nil), and that salt. A cost below
// MinPINCost is refused (ErrWeakPINHash).
func NewPINHash(pin string, pepper []byte, cost PINCost, rnd io.Reader) (hash, salt []byte, err error) {
	if err := CheckPIN(pin); err != nil {
		return nil, nil, err
	}
	if cost.Time < MinPINCost.Time || cost.MemoryKiB < MinPINCost.MemoryKiB {
		return nil, nil, fmt.Errorf("pos: set PIN: cost %+v: %w", cost, ErrWeakPINHash)
	}
	if rnd == nil {
		rnd = rand.Reader
	}
	salt = make([]byte, pinSaltLen)
	if _, err := io.ReadFull(rnd, salt); err != nil {
		return nil, nil, fmt.Errorf("pos: set PIN: salt: %w", err)
	}
	return HashPIN(pin, pepper, salt, cost), salt, nil
}

// HashPIN is the hash a PIN is kept as: 32 bytes of argon2id at cost, one
// thread, of HMAC-SHA256 of the PIN under pepper (the PIN itself without a
// pepper), with salt. pepper is a secret kept outside the hashes' store (a
// terminal's keyring, the store's server_keys), so that the store alone
// cannot test a guess. It checks nothing: NewPINHash makes a new hash,
// PINHashMatches checks one.
func HashPIN(pin string, pepper, salt []byte, cost PINCost) []byte {
	return argonPIN(pin, pepper, salt, cost, pinHashLen)
}

func argonPIN(pin string, pepper, salt []byte, cost PINCost, n uint32) []byte {
	return argon2.IDKey(peppered(pin, pepper), salt, cost.Time, cost.MemoryKiB, 1, n)
}

// PINHashMatches reports whether hash is HashPIN of pin under pepper, salt
// and cost, comparing in constant time. A pin that is not a PIN (CheckPIN), a
// cost below MinPINCost or absurdly dear, or a missing salt or hash never
// matches.
func PINHashMatches(hash []byte, pin string, pepper, salt []byte, cost PINCost) bool {
	if len(salt) == 0 || len(hash) == 0 || CheckPIN(pin) != nil {
		return false
	}
	if cost.Time < MinPINCost.Time || cost.MemoryKiB < MinPINCost.MemoryKiB || cost.Time > maxPINCost.Time || cost.MemoryKiB > maxPINCost.MemoryKiB {
		return false
	}
	return subtle.ConstantTimeCompare(argonPIN(pin, pepper, salt, cost, uint32(len(hash))), hash) == 1
}

// PepperID is the name of a pepper on the records it made: the first 8 hex
// digits of SHA-256 of "galla pepper id" and the pepper; "" for none.
func PepperID(pepper []byte) string {
	if len(pepper) == 0 {
		return ""
	}
	h := sha256.Sum256(append([]byte("galla pepper id\x00"), pepper...))
	return hex.EncodeToString(h[:4])
}

// ErrOtherPepper reports a PIN hash made with another terminal's pepper: the
// keyring of this computer does not hold the one the PIN was set with.
var ErrOtherPepper = sentenceError{"the PIN was set with another pepper",
	"This PIN was set on a terminal whose keyring held another PIN key: restore that keyring (or the data folder's secrets.json) to sign in, or have a manager of this terminal reset the PIN."}

// peppered is what the PIN hash is taken of: HMAC-SHA256 of the PIN under the
// pepper, or the PIN itself without one.
func peppered(pin string, pepper []byte) []byte {
	if len(pepper) == 0 {
		return []byte(pin)
	}
	m := hmac.New(sha256.New, pepper)
	m.Write([]byte(pin))
	return m.Sum(nil)
}

// Wrong PINs typed against a manager's name slow the next try instead of
// locking the manager out (PINAttempts.Slow): nobody typing at a counter may
// keep a manager from signing in, and a guesser still gets few tries. The first
// FreeManagerPINs wrong PINs in a row cost nothing; each one after makes the
// next try wait ManagerPINWait, doubled each time up to MaxManagerPINWait. At
// that pace a guesser tries at most 1 440 PINs a day, 1 in 700 of a 6-digit
// PIN's range, and every try is journaled.
const (
	FreeManagerPINs   = 3
	ManagerPINWait    = 5 * time.Second
	MaxManagerPINWait = time.Minute
)

// ErrSlowed matches a PIN refused unchecked because wrong PINs against the
// same manager came just before (*SlowedError).
var ErrSlowed = errors.New("too many wrong PINs: wait before the next try")

// SlowedError refuses a manager's PIN, unchecked, until Until: wrong PINs were
// typed against that manager's name just before. It matches ErrSlowed.
type SlowedError struct {
	Until  time.Time
	Failed int // wrong PINs in a row so far
}

// Error states until when.
func (e *SlowedError) Error() string {
	return fmt.Sprintf("pos: sign in: %d wrong PINs in a row: the next try after %s", e.Failed, e.Until.Format(time.DateTime))
}

// Is makes a *SlowedError match ErrSlowed.
func (e *SlowedError) Is(target error) bool { return target == ErrSlowed }

// Sentence says what to do.
func (e *SlowedError) Sentence() string {
	return fmt.Sprintf("%d wrong PINs in a row for this manager: the next PIN is taken after %s. The manager's own PIN works then, and the wrong ones are in the journal.",
		e.Failed, e.Until.Format("15:04:05"))
}

// PINAttempts is the lockout of someone who signs in with a PIN: their wrong
// PINs in a row and the end of any lock, or with Slow (a manager) of the wait
// before the next try.
type PINAttempts struct {
	Failed      int
	LockedUntil time.Time
	// Slow makes wrong PINs delay the next try (FreeManagerPINs,
	// ManagerPINWait) instead of locking: a manager, whom a cashier typing
	// wrong PINs against their name must never lock out.
	Slow bool
}

// Locked reports whether a locks out every PIN at now, the right one too. A
// Slow record is never locked: it waits (Refused).
func (a PINAttempts) Locked(now time.Time) bool { return !a.Slow && now.Before(a.LockedUntil) }

// Refused is the error of a PIN tried at now before it is checked: a
// *LockedError while locked, a *SlowedError while a Slow record waits, nil
// when the PIN is to be checked.
func (a PINAttempts) Refused(now time.Time) error {
	switch {
	case !now.Before(a.LockedUntil):
		return nil
	case a.Slow:
		return &SlowedError{Until: a.LockedUntil, Failed: a.Failed}
	}
	return &LockedError{Until: a.LockedUntil}
}

// After is a after a PIN checked at now, right (ok) or wrong: a right PIN
// clears the count and the lock; a wrong one counts, and the MaxPINAttempts-th
// in a row locks for LockDuration from now and starts the count again. A Slow
// record is never locked: past FreeManagerPINs each wrong PIN sets the wait
// before the next (managerWait).
func (a PINAttempts) After(ok bool, now time.Time) PINAttempts {
	switch {
	case ok:
		return PINAttempts{Slow: a.Slow}
	case a.Slow:
		a.Failed++
		a.LockedUntil = time.Time{}
		if w := managerWait(a.Failed); w > 0 {
			a.LockedUntil = now.Add(w)
		}
		return a
	case a.Failed+1 >= MaxPINAttempts:
		return PINAttempts{LockedUntil: now.Add(LockDuration)}
	}
	return PINAttempts{Failed: a.Failed + 1, LockedUntil: a.LockedUntil}
}

// managerWait is the wait after a manager's failed-th wrong PIN in a row.
func managerWait(failed int) time.Duration {
	n := failed - FreeManagerPINs
	if n <= 0 {
		return 0
	}
	w := ManagerPINWait
	for range n - 1 {
		if w *= 2; w >= MaxManagerPINWait {
			return MaxManagerPINWait
		}
	}
	return w
}

// WrongPIN is the error of the wrong PIN that left a (After): a *LockedError
// when it locked, a *SlowedError when a Slow record must wait, else a
// *WrongPINError with the attempts left (none counted for a Slow record).
func (a PINAttempts) WrongPIN() error {
	switch {
	case a.Slow && !a.LockedUntil.IsZero():
		return &SlowedError{Until: a.LockedUntil, Failed: a.Failed}
	case a.Slow:
		return &WrongPINError{}
	case !a.LockedUntil.IsZero() && a.Failed == 0:
		return &LockedError{Until: a.LockedUntil}
	}
	return &WrongPINError{AttemptsLeft: MaxPINAttempts - a.Failed}
}
