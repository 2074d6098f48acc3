package web

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"net"
	"net/http"
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
// HMAC-SHA256(pepper, PIN) with a salt). Wrong PINs stop where they come from
// after pos.MaxPINAttempts in a row for pos.LockDuration (pos.PINAttempts,
// guarded), never the manager. The pepper is kept in the store key, outside
// the database (store/key.go). A manager can be disabled; a new PIN or disabling ends
// their sessions.

// PINCost is the argon2id cost of every manager's hash: the managers table
// keeps no cost, so this one never changes (pos.DefaultPINCost may). It is
// pos.DefaultPINCost of today, OWASP's minimum (19 MiB, 2 passes). Tests may
// lower it to pos.MinPINCost.
var PINCost = pos.PINCost{Time: 2, MemoryKiB: 19 * 1024}

// SessionFor is how long a session lasts after sign-in.
const SessionFor = 12 * time.Hour

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

// pepper returns the managers' pepper, kept in the store key outside the
// database (store/key.go), so that a copy of the database tests no PIN.
func pepper(db *store.DB) ([]byte, error) {
	pep := db.ManagerPepper()
	if pep == nil {
		return nil, errors.New("web: the store key is not open")
	}
	return pep, nil
}

// AddManager adds a manager of the pages, or sets the PIN of one who exists:
// their sessions end. It returns whether the manager is new.
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
		pep, err := pepper(db)
		if err != nil {
			return err
		}
		hash, salt, err := pos.NewPINHash(pin, pep, PINCost, nil)
		if err != nil {
			return err
		}
		if err := tx.QueryRow(ctx, `INSERT INTO managers (name, pin_hash, salt) VALUES ($1, $2, $3)
			ON CONFLICT (name) DO UPDATE SET pin_hash = EXCLUDED.pin_hash, salt = EXCLUDED.salt
			RETURNING (xmax = 0)`, name, hash, salt).Scan(&created); err != nil {
			return err
		}
		// A session opened with the old PIN ends with it.
		_, err = tx.Exec(ctx, "DELETE FROM manager_sessions WHERE manager = $1", name)
		return err
	})
	if err != nil {
		return false, fmt.Errorf("store: add manager: %w", err)
	}
	return created, nil
}

// ErrNoSuchManager reports a manager's name the pages do not have.
var ErrNoSuchManager = errors.New("the store has no manager of the pages by that name")

// ErrLastManager refuses to disable the last manager who can sign in.
var ErrLastManager = errors.New("the last manager who can sign in cannot be disabled: add another first")

// SetManagerDisabled disables the manager name (no sign-in, every session
// ended at once) or enables them again. The last enabled manager cannot be
// disabled (ErrLastManager).
func SetManagerDisabled(ctx context.Context, db *store.DB, name string, disabled bool) error {
	name = strings.TrimSpace(name)
	err := pgx.BeginFunc(ctx, db.Pool(), func(tx pgx.Tx) error {
		// Managers change one at a time, so that two disabling each other
		// cannot leave none.
		if _, err := tx.Exec(ctx, "LOCK TABLE managers IN SHARE ROW EXCLUSIVE MODE"); err != nil {
			return err
		}
		tag, err := tx.Exec(ctx, "UPDATE managers SET disabled = $2 WHERE name = $1", name, disabled)
		if err != nil {
			return err
		}
		if tag.RowsAffected() == 0 {
			return ErrNoSuchManager
		}
		if !disabled {
			return nil
		}
		var left int
		if err := tx.QueryRow(ctx, "SELECT count(*) FROM managers WHERE NOT disabled").Scan(&left); err != nil {
			return err
		}
		if left == 0 {
			return ErrLastManager
		}
		_, err = tx.Exec(ctx, "DELETE FROM manager_sessions WHERE manager = $1", name)
		return err
	})
	if err != nil {
		return fmt.Errorf("store: disable manager: %w", err)
	}
	return nil
}

// session is a signed-in manager.
type session struct {
	Manager string
	CSRF    string
}

// Wrong PINs are counted against where they come from (a source: the
// client's address, SourceOf), never against a manager: after
// pos.MaxPINAttempts wrong ones in a row sign-in from that source stops for
// pos.LockDuration (pos.PINAttempts), and an alarm says so; the manager signs
// in from anywhere else. A name that does not exist, or a disabled manager's,
// is checked like any other against a decoy hash, so that the answer and the
// work are the same whether the name exists or not.

// SourceCommandLine is the source of the PINs typed to the store's commands.
const SourceCommandLine = "command line"

// SourceOf is the source a request's wrong PINs count against: the client's
// IP address, an IPv6 address's /64 (one household or office holds a whole
// /64).
func SourceOf(r *http.Request) string {
	host, _, err := net.SplitHostPort(r.RemoteAddr)
	if err != nil {
		host = r.RemoteAddr
	}
	ip := net.ParseIP(host)
	switch {
	case ip == nil:
		return "unknown"
	case ip.To4() != nil:
		return ip.String()
	}
	return (&net.IPNet{IP: ip.Mask(net.CIDRMask(64, 128)), Mask: net.CIDRMask(64, 128)}).String()
}

// SourceLockedError refuses a sign-in from a source that sent too many wrong
// PINs, without checking the PIN; it matches pos.ErrLocked.
type SourceLockedError struct {
	Source string
	Until  time.Time
}

func (e *SourceLockedError) Error() string {
	return fmt.Sprintf("too many wrong PINs from %s: sign-in from there stops until %s", e.Source, e.Until.Format(time.DateTime))
}

// Is makes a *SourceLockedError match pos.ErrLocked.
func (e *SourceLockedError) Is(target error) bool { return target == pos.ErrLocked }

// decoy is the hash and salt a PIN is checked against when the name is no
// enabled manager's: the same argon2id work, never a match.
func decoy() (hash, salt []byte) {
	h := sha256.Sum256([]byte("galla manager decoy hash"))
	s := sha256.Sum256([]byte("galla manager decoy salt"))
	return h[:], s[:16]
}

// guarded runs check (which reports whether a PIN matched, given db's
// managers' pepper) for a PIN from
// source at now in tx, within the source's count of wrong PINs: refused
// unchecked while the source is locked (*SourceLockedError), counted when
// wrong, cleared when right. It reports whether this wrong PIN locked the
// source.
func guarded(ctx context.Context, tx pgx.Tx, db *store.DB, source string, now time.Time, check func(pep []byte) (bool, error)) (ok, locked bool, err error) {
	if _, err := tx.Exec(ctx, "SELECT pg_advisory_xact_lock(hashtextextended($1, 0))", "galla manager sign-in "+source); err != nil {
		return false, false, err
	}
	var a pos.PINAttempts
	var until *time.Time
	err = tx.QueryRow(ctx, "SELECT failed, locked_until FROM signin_guard WHERE source = $1", source).Scan(&a.Failed, &until)
	if err != nil && !errors.Is(err, pgx.ErrNoRows) {
		return false, false, err
	}
	if until != nil {
		a.LockedUntil = *until
	}
	if a.Locked(now) {
		return false, false, &SourceLockedError{Source: source, Until: a.LockedUntil}
	}
	pep, err := pepper(db)
	if err != nil {
		return false, false, err
	}
	if ok, err = check(pep); err != nil {
		return false, false, err
	}
	after := a.After(ok, now)
	if ok {
		_, err = tx.Exec(ctx, "DELETE FROM signin_guard WHERE source = $1", source)
		return true, false, err
	}
	until = nil
	if !after.LockedUntil.IsZero() {
		until = &after.LockedUntil
	}
	if _, err := tx.Exec(ctx, `INSERT INTO signin_guard (source, failed, locked_until, last_at) VALUES ($1, $2, $3, $4)
		ON CONFLICT (source) DO UPDATE SET failed = EXCLUDED.failed, locked_until = EXCLUDED.locked_until, last_at = EXCLUDED.last_at`,
		source, after.Failed, until, now); err != nil {
		return false, false, err
	}
	// Forget the sources whose count and lock are old: the table holds the
	// sources of the last pos.LockDuration only.
	if _, err := tx.Exec(ctx, "DELETE FROM signin_guard WHERE last_at < $1 AND (locked_until IS NULL OR locked_until <= $2)",
		now.Add(-pos.LockDuration), now); err != nil {
		return false, false, err
	}
	return false, after.Failed == 0 && !after.LockedUntil.IsZero(), nil
}

// alarmLocked records that source was stopped after too many wrong PINs.
func alarmLocked(ctx context.Context, db *store.DB, source string, now time.Time) {
	db.Access.Alarm(ctx, store.AlarmSignIn, fmt.Sprintf("%d wrong manager PINs in a row from %s: sign-in from there stopped until %s",
		pos.MaxPINAttempts, source, now.Add(pos.LockDuration).UTC().Format(time.RFC3339)))
}

// signIn checks name and pin, typed at source, and opens a session: it
// returns the session's token (the cookie) and its CSRF token. A PIN no
// manager can have is refused with the counter's error (checkPIN) and counts
// for nobody. Any other is checked, against a decoy when name is no enabled
// manager's, within source's count of wrong PINs (guarded): a wrong name and a
// wrong PIN are the same ErrSignIn, after the same work.
func signIn(ctx context.Context, db *store.DB, source, name, pin string, now time.Time) (token string, s session, err error) {
	name = strings.TrimSpace(name)
	if err := checkPIN(pin); err != nil {
		return "", session{}, err
	}
	var ok, locked bool
	err = pgx.BeginFunc(ctx, db.Pool(), func(tx pgx.Tx) error {
		ok, locked, err = guarded(ctx, tx, db, source, now, func(pep []byte) (bool, error) {
			hash, salt := decoy()
			var h, sa []byte
			err := tx.QueryRow(ctx, "SELECT pin_hash, salt FROM managers WHERE name = $1 AND NOT disabled", name).Scan(&h, &sa)
			switch {
			case err == nil:
				hash, salt = h, sa
			case !errors.Is(err, pgx.ErrNoRows):
				return false, err
			}
			return pos.PINHashMatches(hash, pin, pep, salt, PINCost), nil
		})
		if err != nil || !ok {
			return err // a wrong PIN's count is committed
		}
		token, s.CSRF = random(), random()
		s.Manager = name
		_, err = tx.Exec(ctx, "INSERT INTO manager_sessions (token_hash, manager, csrf, created_at, expires_at) VALUES ($1, $2, $3, $4, $5)",
			tokenHash(token), name, s.CSRF, now, now.Add(SessionFor))
		return err
	})
	if locked {
		alarmLocked(ctx, db, source, now)
	}
	switch {
	case err != nil:
		return "", session{}, err
	case !ok:
		return "", session{}, ErrSignIn
	}
	return token, s, nil
}

// ErrNoManager reports a store without a manager of the pages: its commands
// need one's PIN.
var ErrNoManager = errors.New("the store has no manager yet: add one with galla store manager add NAME")

// ManagerByPIN returns the name of the enabled manager whose PIN pin is, for a
// store command done on a manager's authority: the PIN is typed, never a
// name. Wrong PINs count against source (SourceCommandLine) as at the sign-in
// page (guarded); a wrong one is ErrSignIn, none set up ErrNoManager.
func ManagerByPIN(ctx context.Context, db *store.DB, source, pin string, now time.Time) (string, error) {
	if err := checkPIN(pin); err != nil {
		return "", err
	}
	var name string
	var ok, locked bool
	err := pgx.BeginFunc(ctx, db.Pool(), func(tx pgx.Tx) error {
		rows, err := tx.Query(ctx, "SELECT name, pin_hash, salt FROM managers WHERE NOT disabled ORDER BY name")
		if err != nil {
			return err
		}
		type cred struct {
			name       string
			hash, salt []byte
		}
		all, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (cred, error) {
			var c cred
			return c, r.Scan(&c.name, &c.hash, &c.salt)
		})
		if err != nil {
			return err
		}
		if len(all) == 0 {
			return ErrNoManager
		}
		ok, locked, err = guarded(ctx, tx, db, source, now, func(pep []byte) (bool, error) {
			for _, c := range all {
				if pos.PINHashMatches(c.hash, pin, pep, c.salt, PINCost) {
					name = c.name
					return true, nil
				}
			}
			return false, nil
		})
		return err
	})
	if locked {
		alarmLocked(ctx, db, source, now)
	}
	switch {
	case err != nil:
		return "", err
	case !ok:
		return "", ErrSignIn
	}
	return name, nil
}

// lookup returns the session of token, or false when it is unknown or expired.
func lookup(ctx context.Context, db *store.DB, token string, now time.Time) (session, bool, error) {
	if token == "" {
		return session{}, false, nil
	}
	var s session
	// A disabled manager's session is no session (it was deleted too).
	err := db.Pool().QueryRow(ctx, `SELECT s.manager, s.csrf FROM manager_sessions s JOIN managers m ON m.name = s.manager
		WHERE s.token_hash = $1 AND s.expires_at > $2 AND NOT m.disabled`,
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
