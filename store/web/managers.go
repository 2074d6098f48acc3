package web

import (
	"context"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/hex"
	"errors"
	"fmt"
	"regexp"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"golang.org/x/crypto/argon2"

	"galla/store"
)

// The manager's pages have managers of their own (ADR 0006): a terminal's
// staff PIN hashes are peppered with a key only that terminal holds, so the
// server cannot check them. A manager of the pages has a name and a PIN of 6
// to 8 digits, kept as argon2id of HMAC-SHA256(pepper, PIN) with a salt; the
// pepper is a row of server_keys, made with the first manager.

// PINCost is argon2id's cost for a manager's PIN: OWASP's minimum (19 MiB, 2
// passes). Tests may lower it.
var PINCost = struct {
	Time      uint32
	MemoryKiB uint32
}{2, 19 * 1024}

// The lockout: after MaxWrongPINs wrong PINs in a row the manager is locked
// for LockFor; a right PIN resets the count.
const (
	MaxWrongPINs = 5
	LockFor      = 15 * time.Minute
)

// SessionFor is how long a session lasts after sign-in.
const SessionFor = 12 * time.Hour

const pepperKey = "manager-pepper"

var (
	nameRE = regexp.MustCompile(`^[A-Za-z][A-Za-z0-9 ._-]{0,39}$`)
	pinRE  = regexp.MustCompile(`^[0-9]{6,8}$`)
)

// ErrBadName and ErrBadPIN report a manager's name or PIN that cannot be used.
var (
	ErrBadName = errors.New("a manager's name starts with a letter and has at most 40 letters, digits, spaces, dots, dashes or underscores")
	ErrBadPIN  = errors.New("a manager's PIN is 6 to 8 digits")
)

// ErrSignIn is a wrong name or PIN (one sentence for both: the page does not
// say which names exist).
var ErrSignIn = errors.New("the name or the PIN is wrong")

// LockedError is a sign-in refused while the manager is locked.
type LockedError struct{ Until time.Time }

func (e *LockedError) Error() string {
	return fmt.Sprintf("too many wrong PINs: this manager can sign in again at %s", e.Until.Local().Format("15:04"))
}

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

func pinHash(pin string, pep, salt []byte) []byte {
	m := hmac.New(sha256.New, pep)
	m.Write([]byte(pin))
	return argon2.IDKey(m.Sum(nil), salt, PINCost.Time, PINCost.MemoryKiB, 1, 32)
}

// AddManager adds a manager of the pages, or sets the PIN of one who exists
// (and unlocks them). It returns whether the manager is new.
func AddManager(ctx context.Context, db *store.DB, name, pin string) (bool, error) {
	name = strings.TrimSpace(name)
	if !nameRE.MatchString(name) {
		return false, ErrBadName
	}
	if !pinRE.MatchString(pin) {
		return false, ErrBadPIN
	}
	var created bool
	err := pgx.BeginFunc(ctx, db.Pool(), func(tx pgx.Tx) error {
		pep, err := pepper(ctx, tx)
		if err != nil {
			return err
		}
		salt := make([]byte, 16)
		if _, err := rand.Read(salt); err != nil {
			return err
		}
		return tx.QueryRow(ctx, `INSERT INTO managers (name, pin_hash, salt) VALUES ($1, $2, $3)
			ON CONFLICT (name) DO UPDATE SET pin_hash = EXCLUDED.pin_hash, salt = EXCLUDED.salt, failed = 0, locked_until = NULL
			RETURNING (xmax = 0)`, name, pinHash(pin, pep, salt), salt).Scan(&created)
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
// token (the cookie) and its CSRF token. A wrong PIN counts towards the
// lockout, in the same transaction as the check.
func signIn(ctx context.Context, db *store.DB, name, pin string, now time.Time) (token string, s session, err error) {
	name = strings.TrimSpace(name)
	if !nameRE.MatchString(name) || !pinRE.MatchString(pin) {
		return "", session{}, ErrSignIn
	}
	var wrong error
	err = pgx.BeginFunc(ctx, db.Pool(), func(tx pgx.Tx) error {
		var hash, salt []byte
		var failed int
		var locked *time.Time
		err := tx.QueryRow(ctx, "SELECT pin_hash, salt, failed, locked_until FROM managers WHERE name = $1 FOR UPDATE", name).Scan(&hash, &salt, &failed, &locked)
		if errors.Is(err, pgx.ErrNoRows) {
			return ErrSignIn
		}
		if err != nil {
			return err
		}
		if locked != nil && now.Before(*locked) {
			return &LockedError{Until: *locked}
		}
		pep, err := pepper(ctx, tx)
		if err != nil {
			return err
		}
		if subtle.ConstantTimeCompare(pinHash(pin, pep, salt), hash) != 1 {
			failed++
			var until any
			if failed >= MaxWrongPINs {
				until, failed = now.Add(LockFor), 0
			}
			if _, err := tx.Exec(ctx, "UPDATE managers SET failed = $2, locked_until = $3 WHERE name = $1", name, failed, until); err != nil {
				return err
			}
			wrong = ErrSignIn // committed: the count must stay
			return nil
		}
		if _, err := tx.Exec(ctx, "UPDATE managers SET failed = 0, locked_until = NULL WHERE name = $1", name); err != nil {
			return err
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
