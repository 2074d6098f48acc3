package web

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"regexp"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"

	"galla/pos"
	"galla/store"
)

// The manager's pages have managers of their own (ADR 0006): a terminal's
// staff PIN hashes are peppered with a key only that terminal holds, so the
// server cannot check them. A manager of the pages has a name and a PIN, and
// the PIN follows the counter's rules, through pos's own functions: a
// manager's PIN (pos.CheckRolePIN), kept as pos.HashPIN (argon2id of
// HMAC-SHA256(pepper, PIN) with a salt), locked after pos.MaxPINAttempts wrong
// PINs in a row for pos.LockDuration (pos.PINAttempts). The pepper is a row of
// server_keys, made with the first manager.

// PINCost is the argon2id cost of every manager's hash: the managers table
// keeps no cost, so this one never changes (pos.DefaultPINCost may). It is
// pos.DefaultPINCost of today, OWASP's minimum (19 MiB, 2 passes). Tests may
// lower it to pos.MinPINCost.
var PINCost = pos.PINCost{Time: 2, MemoryKiB: 19 * 1024}

// SessionFor is how long a session lasts after sign-in.
const SessionFor = 12 * time.Hour

const pepperKey = "manager-pepper"

var nameRE = regexp.MustCompile(`^[A-Za-z][A-Za-z0-9 ._-]{0,39}$`)

// ErrBadName reports a manager's name that cannot be used.
var ErrBadName = errors.New("a manager's name starts with a letter and has at most 40 letters, digits, spaces, dots, dashes or underscores")

// ErrBadPIN matches every PIN a manager cannot have. The error that matches it
// is the counter's (pos.ErrBadPIN or pos.ErrShortManagerPIN) and says what
// the counter says.
var ErrBadPIN = errors.New("not a manager's PIN")

// checkPIN is pos.CheckRolePIN for a manager, its error matching ErrBadPIN too.
func checkPIN(pin string) error {
	if err := pos.CheckRolePIN(pos.RoleManager, pin); err != nil {
		return badPIN{err}
	}
	return nil
}

// badPIN is a PIN pos refuses for a manager: pos's error, matching ErrBadPIN.
type badPIN struct{ err error }

func (e badPIN) Error() string   { return e.err.Error() }
func (e badPIN) Unwrap() []error { return []error{e.err, ErrBadPIN} }

// ErrSignIn is a wrong name or PIN (one sentence for both: the page does not
// say which names exist).
var ErrSignIn = errors.New("the name or the PIN is wrong")

// pepper returns the managers' pepper, making it on first use.
func pepper(ctx context.Context, tx pgx.Tx) ([]byte, error) {
	var b [32]byte
	if _, err := rand.Read(b[:]); err != nil {
		return nil, err
	}
	if _, err := tx.Exec(ctx, "INSERT INTO server_keys (name, cert_pem, key_pem) VALUES ($1, '', $2) ON CONFLICT (name) DO NOTHING",
		pepperKey, hex.EncodeToString(b[:])); err != nil {
		return nil, err
	}
	var h string
	if err := tx.QueryRow(ctx, "SELECT key_pem FROM server_keys WHERE name = $1", pepperKey).Scan(&h); err != nil {
		return nil, err
	}
	return hex.DecodeString(h)
}

// AddManager adds a manager of the pages, or sets the PIN of one who exists
// (and unlocks them). It returns whether the manager is new.
func AddManager(ctx context.Context, db *store.DB, name, pin string) (bool, error) {
	name = strings.TrimSpace(name)
	if !nameRE.MatchString(name) {
		return false, ErrBadName
	}
	if err := checkPIN(pin); err != nil {
		return false, err
	}
	var created bool
	err := pgx.BeginFunc(ctx, db.Pool(), func(tx pgx.Tx) error {
		pep, err := pepper(ctx, tx)
		if err != nil {
			return err
		}
		hash, salt, err := pos.NewPINHash(pin, pep, PINCost, nil)
		if err != nil {
			return err
		}
		return tx.QueryRow(ctx, `INSERT INTO managers (name, pin_hash, salt) VALUES ($1, $2, $3)
			ON CONFLICT (name) DO UPDATE SET pin_hash = EXCLUDED.pin_hash, salt = EXCLUDED.salt, failed = 0, locked_until = NULL
			RETURNING (xmax = 0)`, name, hash, salt).Scan(&created)
	})
	if err != nil {
		return false, fmt.Errorf("store: add manager: %w", err)
	}
	return created, nil
}

// session is a signed-in manager.
type session struct {
	Manager string
	CSRF    string
}

// signIn checks name and pin and opens a session: it returns the session's
// token (the cookie) and its CSRF token. A PIN no manager can have is refused
// with the counter's error (checkPIN) and counts for nobody; a locked manager
// gets a *pos.LockedError; a wrong PIN counts towards the lockout
// (pos.PINAttempts), in the same transaction as the check.
func signIn(ctx context.Context, db *store.DB, name, pin string, now time.Time) (token string, s session, err error) {
	name = strings.TrimSpace(name)
	if err := checkPIN(pin); err != nil {
		return "", session{}, err
	}
	if !nameRE.MatchString(name) {
		return "", session{}, ErrSignIn
	}
	var wrong error
	err = pgx.BeginFunc(ctx, db.Pool(), func(tx pgx.Tx) error {
		var hash, salt []byte
		var a pos.PINAttempts
		var locked *time.Time
		err := tx.QueryRow(ctx, "SELECT pin_hash, salt, failed, locked_until FROM managers WHERE name = $1 FOR UPDATE", name).Scan(&hash, &salt, &a.Failed, &locked)
		if errors.Is(err, pgx.ErrNoRows) {
			return ErrSignIn
		}
		if err != nil {
			return err
		}
		if locked != nil {
			a.LockedUntil = *locked
		}
		if a.Locked(now) {
			return &pos.LockedError{Until: a.LockedUntil}
		}
		pep, err := pepper(ctx, tx)
		if err != nil {
			return err
		}
		ok := pos.PINHashMatches(hash, pin, pep, salt, PINCost)
		a = a.After(ok, now)
		var until *time.Time
		if !a.LockedUntil.IsZero() {
			until = &a.LockedUntil
		}
		if _, err := tx.Exec(ctx, "UPDATE managers SET failed = $2, locked_until = $3 WHERE name = $1", name, a.Failed, until); err != nil {
			return err
		}
		if !ok {
			wrong = ErrSignIn // committed: the count must stay
			return nil
		}
		token, s.CSRF = random(), random()
		s.Manager = name
		_, err = tx.Exec(ctx, "INSERT INTO manager_sessions (token_hash, manager, csrf, created_at, expires_at) VALUES ($1, $2, $3, $4, $5)",
			tokenHash(token), name, s.CSRF, now, now.Add(SessionFor))
		return err
	})
	if err == nil && wrong != nil {
		return "", session{}, wrong
	}
	return token, s, err
}

// lookup returns the session of token, or false when it is unknown or expired.
func lookup(ctx context.Context, db *store.DB, token string, now time.Time) (session, bool, error) {
	if token == "" {
		return session{}, false, nil
	}
	var s session
	err := db.Pool().QueryRow(ctx, "SELECT manager, csrf FROM manager_sessions WHERE token_hash = $1 AND expires_at > $2",
		tokenHash(token), now).Scan(&s.Manager, &s.CSRF)
	if errors.Is(err, pgx.ErrNoRows) {
		return session{}, false, nil
	}
	return s, err == nil, err
}

func signOut(ctx context.Context, db *store.DB, token string) error {
	_, err := db.Pool().Exec(ctx, "DELETE FROM manager_sessions WHERE token_hash = $1", tokenHash(token))
	return err
}

func random() string {
	var b [32]byte
	if _, err := rand.Read(b[:]); err != nil {
		panic(err)
	}
	return hex.EncodeToString(b[:])
}

func tokenHash(token string) []byte {
	h := sha256.Sum256([]byte(token))
	return h[:]
}
