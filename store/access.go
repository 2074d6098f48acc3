package store

import (
	"context"
	"crypto/ed25519"
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base32"
	"encoding/hex"
	"errors"
	"fmt"
	"regexp"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"

	"galla/store/api"
)

// Access is who may reach the store: the terminals, their enrolment with a
// one-time code and the public key it registers, the signed requests checked
// against that key, the release of a blocked terminal and the alarms a manager
// looks at.
type Access struct{ *dbCore }

// The states of a terminal.
const (
	StateNew     = "new"     // an enrolment code was given; not enrolled yet
	StateActive  = "active"  // enrolled: its events are taken
	StateBlocked = "blocked" // refused until a manager clears it (a fork)
)

// CodeTTL is how long an enrolment code stays valid.
const CodeTTL = 24 * time.Hour

// terminalID is the form of a terminal id: what the table's check allows.
var terminalID = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$`)

// ErrTerminalID reports a terminal id the store does not accept.
var ErrTerminalID = errors.New("store: a terminal id is 1 to 64 letters, digits, dots, dashes or underscores, starting with a letter or digit (T1, counter-2)")

// ErrBadCode reports an enrolment code that is unknown, used or expired.
var ErrBadCode = errors.New("store: the enrolment code is unknown, used already or expired: ask for a new one (galla store enrol-code TERMINAL_ID)")

// codeEncoding writes codes in capitals and digits without padding.
var codeEncoding = base32.StdEncoding.WithPadding(base32.NoPadding)

// EnrolCode makes a one-time enrolment code for terminalID, valid for CodeTTL,
// and registers the terminal if it is new. Only the code's hash is kept. A
// terminal enrolled before may be enrolled again (a replaced computer): its new
// key replaces the old one, and its events continue from what is held.
func (ac *Access) EnrolCode(ctx context.Context, terminal string) (code string, expires time.Time, err error) {
	if !terminalID.MatchString(terminal) {
		return "", time.Time{}, ErrTerminalID
	}
	var b [10]byte // 80 bits
	if _, err := rand.Read(b[:]); err != nil {
		return "", time.Time{}, fmt.Errorf("store: enrol code: %w", err)
	}
	raw := codeEncoding.EncodeToString(b[:]) // 16 characters
	code = raw[0:4] + "-" + raw[4:8] + "-" + raw[8:12] + "-" + raw[12:16]
	expires = ac.now().Add(CodeTTL).UTC().Truncate(time.Second)
	err = pgx.BeginFunc(ctx, ac.pool, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, "INSERT INTO terminals (id) VALUES ($1) ON CONFLICT (id) DO NOTHING", terminal); err != nil {
			return err
		}
		_, err := tx.Exec(ctx, "INSERT INTO enrol_codes (code_hash, terminal_id, expires_at) VALUES ($1, $2, $3)", codeHash(code), terminal, expires)
		return err
	})
	if err != nil {
		return "", time.Time{}, ac.wrap("enrol code", err)
	}
	return code, expires, nil
}

// codeHash is the hash of a code as typed: case, spaces and dashes do not count.
func codeHash(code string) []byte {
	c := strings.NewReplacer("-", "", " ", "").Replace(strings.ToUpper(strings.TrimSpace(code)))
	h := sha256.Sum256([]byte("galla enrol code 1\x00" + c))
	return h[:]
}

// ErrPublicKey reports an enrolment or a rotation without an Ed25519 public key.
var ErrPublicKey = errors.New("store: the terminal sent no Ed25519 public key of 32 bytes")

// Enrol redeems a one-time code for the terminal's public key: it marks the
// code used and keeps pub as the only key the terminal's requests are checked
// with. The terminal made the key pair and keeps the private key; nothing the
// store holds can sign for it. Enrolling again (a replaced computer, a key
// rotated) replaces the key, so that the old one is refused from then on, and
// forgets a credential of an earlier version. An unknown, used or expired code
// is ErrBadCode, and is recorded as an alarm.
func (ac *Access) Enrol(ctx context.Context, code string, pub ed25519.PublicKey) (api.EnrolResponse, error) {
	if len(pub) != ed25519.PublicKeySize {
		return api.EnrolResponse{}, ErrPublicKey
	}
	var terminal string
	var pep []byte
	bad := false
	err := pgx.BeginFunc(ctx, ac.pool, func(tx pgx.Tx) error {
		err := tx.QueryRow(ctx, `UPDATE enrol_codes SET used_at = now()
			WHERE code_hash = $1 AND used_at IS NULL AND expires_at > $2
			RETURNING terminal_id`, codeHash(code), ac.now()).Scan(&terminal)
		if errors.Is(err, pgx.ErrNoRows) {
			bad = true
			return nil
		}
		if err != nil {
			return err
		}
		if _, err = tx.Exec(ctx, `UPDATE terminals SET public_key = $2, credential_hash = NULL, key_changed_at = now(),
			enrolled_at = now(), state = CASE WHEN state = 'new' THEN 'active' ELSE state END WHERE id = $1`,
			terminal, []byte(pub)); err != nil {
			return err
		}
		// The store's staff pepper goes with the enrolment (ADR 0007).
		pep, err = ac.staffPepper()
		return err
	})
	if err != nil {
		return api.EnrolResponse{}, ac.wrap("enrol", err)
	}
	if bad {
		ac.alarm(ctx, "", AlarmBadCode, 0, "an enrolment code was refused: unknown, used or expired")
		return api.EnrolResponse{}, ErrBadCode
	}
	return api.EnrolResponse{TerminalID: terminal, StaffPepper: hex.EncodeToString(pep)}, nil
}

// RotateKey moves a terminal enrolled with a credential (before terminals had
// keys) to the key in req: the credential must be the one whose key the store
// kept, which the store itself cannot make from what it holds. The credential
// is forgotten in the same transaction, so that it moves the terminal once. A
// request for the key the terminal moved to already (its answer lost) is
// answered as done. Anything else is an *api.Error and an alarm.
func (ac *Access) RotateKey(ctx context.Context, req api.RotateRequest) error {
	pub, err := api.ParsePublicKey(req.PublicKey)
	if err != nil {
		return &api.Error{HTTPStatus: 400, Code: api.CodeMalformed, Message: "the key rotation carries no Ed25519 public key of 64 hex digits"}
	}
	var refused, alarmed string // why, and the terminal the alarm names ("" when unknown)
	err = pgx.BeginFunc(ctx, ac.pool, func(tx pgx.Tx) error {
		var held, key []byte
		err := tx.QueryRow(ctx, "SELECT credential_hash, public_key FROM terminals WHERE id = $1 FOR UPDATE", req.TerminalID).Scan(&held, &key)
		switch {
		case errors.Is(err, pgx.ErrNoRows):
			refused = fmt.Sprintf("a key rotation named terminal %q, which is not enrolled", req.TerminalID)
			return nil
		case err != nil:
			return err
		case held == nil && key != nil && subtle.ConstantTimeCompare(key, pub) == 1:
			return nil // moved already: the answer was lost
		case held == nil || subtle.ConstantTimeCompare(held, api.CredentialKey(req.Credential)) != 1:
			refused, alarmed = "a key rotation did not show the terminal's credential", req.TerminalID
			return nil
		}
		_, err = tx.Exec(ctx, "UPDATE terminals SET public_key = $2, credential_hash = NULL, key_changed_at = now() WHERE id = $1", req.TerminalID, []byte(pub))
		return err
	})
	if err != nil {
		return ac.wrap("rotate key", err)
	}
	if refused != "" {
		ac.alarm(ctx, alarmed, AlarmUnauthorized, 0, refused)
		return &api.Error{HTTPStatus: 401, Code: api.CodeUnauthorized, Message: fmt.Sprintf("terminal %s cannot move to a key with this credential: enrol it again with a code from \"galla store enrol-code %s\"", req.TerminalID, req.TerminalID)}
	}
	return nil
}

// Terminal is a terminal as the store knows it.
type Terminal struct {
	ID            string
	State         string
	BlockedReason string
	Held          uint64   // the last sequence held, without a gap from 1
	HeldHash      [32]byte // the hash of event Held
	EnrolledAt    time.Time
	LastSeenAt    time.Time
}

// Terminals lists every terminal by id.
func (ac *Access) Terminals(ctx context.Context) ([]Terminal, error) {
	rows, err := ac.pool.Query(ctx, `SELECT id, state, coalesce(blocked_reason, ''), last_seq, last_hash,
		coalesce(enrolled_at, 'epoch'), coalesce(last_seen_at, 'epoch') FROM terminals ORDER BY id`)
	if err != nil {
		return nil, ac.wrap("terminals", err)
	}
	out, err := pgx.CollectRows(rows, scanTerminal)
	if err != nil {
		return nil, ac.wrap("terminals", err)
	}
	return out, nil
}

// Terminal returns one terminal; pgx.ErrNoRows when it is unknown.
func (ac *Access) Terminal(ctx context.Context, id string) (Terminal, error) {
	rows, err := ac.pool.Query(ctx, `SELECT id, state, coalesce(blocked_reason, ''), last_seq, last_hash,
		coalesce(enrolled_at, 'epoch'), coalesce(last_seen_at, 'epoch') FROM terminals WHERE id = $1`, id)
	if err != nil {
		return Terminal{}, ac.wrap("terminal", err)
	}
	t, err := pgx.CollectExactlyOneRow(rows, scanTerminal)
	if err != nil {
		return Terminal{}, ac.wrap("terminal", err)
	}
	return t, nil
}

func scanTerminal(row pgx.CollectableRow) (Terminal, error) {
	var t Terminal
	var last int64
	var hash []byte
	err := row.Scan(&t.ID, &t.State, &t.BlockedReason, &last, &hash, &t.EnrolledAt, &t.LastSeenAt)
	t.Held = uint64(last)
	copy(t.HeldHash[:], hash)
	return t, err
}

// Unblock lets a blocked terminal send again, once a manager has looked at its
// alarms: they are cleared in manager's name. The events the terminal sent
// under a forked sequence are not taken: the terminal's journal must be
// salvaged or restored so that it continues the chain the store holds.
func (ac *Access) Unblock(ctx context.Context, terminal, manager string) error {
	err := pgx.BeginFunc(ctx, ac.pool, func(tx pgx.Tx) error {
		tag, err := tx.Exec(ctx, "UPDATE terminals SET state = 'active', blocked_reason = NULL WHERE id = $1 AND state = 'blocked'", terminal)
		if err != nil {
			return err
		}
		if tag.RowsAffected() == 0 {
			return fmt.Errorf("terminal %s is not blocked", terminal)
		}
		_, err = tx.Exec(ctx, "UPDATE alarms SET cleared_at = now(), cleared_by = $2 WHERE terminal_id = $1 AND cleared_at IS NULL", terminal, manager)
		return err
	})
	return ac.wrap("unblock", err)
}

// authenticate checks a signed request: the terminal is known and enrolled
// with a key, the signature is that key's (signed reports it of the terminal's
// public key), the time is within api.MaxSkew and the nonce is new. A terminal
// that still holds a credential of an earlier version is refused until it
// moves to a key (RotateKey). Each refusal is an *api.Error and an alarm; an
// alarm naming no enrolled terminal is bounded (dbCore.alarm).
func (ac *Access) authenticate(ctx context.Context, a api.Auth, signed func(pub ed25519.PublicKey) bool) error {
	var key []byte
	var legacy bool
	err := ac.pool.QueryRow(ctx, "SELECT public_key, credential_hash IS NOT NULL FROM terminals WHERE id = $1", a.Terminal).Scan(&key, &legacy)
	if errors.Is(err, pgx.ErrNoRows) || (err == nil && key == nil && !legacy) {
		name := a.Terminal
		if !terminalID.MatchString(name) {
			name = "(not a terminal id)" // whatever the header held, never stored
		}
		ac.alarm(ctx, "", AlarmUnauthorized, 0, fmt.Sprintf("a request named terminal %q, which is not enrolled", name))
		return &api.Error{HTTPStatus: 401, Code: api.CodeUnauthorized, Message: fmt.Sprintf("terminal %s is not enrolled at this store: enrol it with a code from \"galla store enrol-code %s\"", name, name)}
	}
	if err != nil {
		return ac.wrap("authenticate", err)
	}
	if key == nil {
		ac.alarm(ctx, a.Terminal, AlarmUnauthorized, 0, "a signed request of a terminal that holds a credential of an earlier version and has not moved to a key")
		return &api.Error{HTTPStatus: 401, Code: api.CodeUnauthorized, Message: fmt.Sprintf("terminal %s still holds a credential of an earlier version: its link moves it to a key at its next sync (update the counter's Galla), or enrol it again", a.Terminal)}
	}
	if len(key) != ed25519.PublicKeySize || !signed(ed25519.PublicKey(key)) {
		ac.alarm(ctx, a.Terminal, AlarmUnauthorized, 0, badSignature)
		return &api.Error{HTTPStatus: 401, Code: api.CodeUnauthorized, Message: fmt.Sprintf("the request is not signed with terminal %s's key: enrol the terminal again", a.Terminal)}
	}
	now := ac.now()
	if d := now.Sub(time.Unix(a.Time, 0)); d > api.MaxSkew || d < -api.MaxSkew {
		ac.alarm(ctx, a.Terminal, AlarmReplayed, 0, fmt.Sprintf("a request dated %s was refused (server time %s)", time.Unix(a.Time, 0).UTC().Format(time.RFC3339), now.UTC().Format(time.RFC3339)))
		return &api.Error{HTTPStatus: 401, Code: api.CodeReplayed, Message: fmt.Sprintf("the request is dated %s, more than %v from the store server's clock (%s): set the terminal's clock", time.Unix(a.Time, 0).UTC().Format(time.RFC3339), api.MaxSkew, now.UTC().Format(time.RFC3339))}
	}
	nonce, _ := hex.DecodeString(a.Nonce)
	tag, err := ac.pool.Exec(ctx, "INSERT INTO request_nonces (terminal_id, nonce, seen_at) VALUES ($1, $2, $3) ON CONFLICT DO NOTHING", a.Terminal, nonce, now)
	if err != nil {
		return ac.wrap("authenticate", err)
	}
	if tag.RowsAffected() == 0 {
		ac.alarm(ctx, a.Terminal, AlarmReplayed, 0, "a request was sent again as it was (a replay): refused")
		return &api.Error{HTTPStatus: 401, Code: api.CodeReplayed, Message: "this request was received before: a replayed request is refused"}
	}
	return nil
}

// Alarm records an alarm of kind that names no terminal (a manager's sign-in
// stopped after wrong PINs: AlarmSignIn), bounded as every such alarm is.
func (ac *Access) Alarm(ctx context.Context, kind, detail string) {
	ac.alarm(ctx, "", kind, 0, detail)
}

// badSignature is the alarm of a request not signed by its terminal's
// credential, or edited after it was signed.
const badSignature = "a request's signature is not the terminal's key (another key or an edited request)"

// PurgeNonces forgets the nonces older than twice api.MaxSkew: requests that
// old are refused by their time anyway.
func (ac *Access) PurgeNonces(ctx context.Context) error {
	_, err := ac.pool.Exec(ctx, "DELETE FROM request_nonces WHERE seen_at < $1", ac.now().Add(-2*api.MaxSkew))
	return ac.wrap("purge nonces", err)
}

// Alarms lists the alarms, newest first; open only when openOnly.
func (ac *Access) Alarms(ctx context.Context, openOnly bool) ([]Alarm, error) {
	rows, err := ac.pool.Query(ctx, `SELECT id, coalesce(terminal_id, ''), kind, coalesce(seq, 0), detail, raised_at,
		repeats, last_at, coalesce(cleared_at, 'epoch'), coalesce(cleared_by, '') FROM alarms
		WHERE NOT $1 OR cleared_at IS NULL ORDER BY id DESC`, openOnly)
	if err != nil {
		return nil, ac.wrap("alarms", err)
	}
	defer rows.Close()
	var out []Alarm
	for rows.Next() {
		var a Alarm
		var seq int64
		if err := rows.Scan(&a.ID, &a.Terminal, &a.Kind, &seq, &a.Detail, &a.RaisedAt, &a.Repeats, &a.LastAt, &a.ClearedAt, &a.ClearedBy); err != nil {
			return nil, ac.wrap("alarms", err)
		}
		a.Seq = uint64(seq)
		if a.ClearedAt.Equal(time.Unix(0, 0)) {
			a.ClearedAt = time.Time{}
		}
		out = append(out, a)
	}
	if err := rows.Err(); err != nil {
		return nil, ac.wrap("alarms", err)
	}
	return out, nil
}
