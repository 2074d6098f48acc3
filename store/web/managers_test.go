package web

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"golang.org/x/crypto/argon2"

	"galla/pos"
	"galla/store"
)

// shippedPINCost is PINCost as the program has it, before TestMain lowers it.
var shippedPINCost = PINCost

// managersOnly is a migrated store with one manager of the pages, Meera, PIN
// 246810.
func managersOnly(t *testing.T) *store.DB {
	t.Helper()
	db, err := store.Open(t.Context(), cluster.Database(t))
	require.NoError(t, err)
	t.Cleanup(db.Close)
	_, err = db.Migrate(t.Context())
	require.NoError(t, err)
	_, err = AddManager(t.Context(), db, "Meera", "246810")
	require.NoError(t, err)
	return db
}

func attempts(t *testing.T, db *store.DB, name string) pos.PINAttempts {
	t.Helper()
	var a pos.PINAttempts
	var locked *time.Time
	require.NoError(t, db.Pool().QueryRow(t.Context(), "SELECT failed, locked_until FROM managers WHERE name = $1", name).Scan(&a.Failed, &locked))
	if locked != nil {
		a.LockedUntil = *locked
	}
	return a
}

func TestManagersSignInByTheCountersPINRules(t *testing.T) {
	db := managersOnly(t)
	now := time.Date(2026, 11, 24, 10, 0, 0, 0, time.UTC)

	_, s, err := signIn(t.Context(), db, "Meera", "246810", now)
	require.NoError(t, err, "the right PIN")
	assert.Equal(t, "Meera", s.Manager)

	// A PIN no manager can have: the counter's sentence, counted for nobody.
	_, _, err = signIn(t.Context(), db, "Meera", "24681", now)
	require.ErrorIs(t, err, pos.ErrShortManagerPIN)
	assert.Equal(t, "A manager's PIN has 6 to 8 digits; type a longer one.", pos.Sentence(err))
	_, err = AddManager(t.Context(), db, "Ravi", "24681")
	assert.Equal(t, "A manager's PIN has 6 to 8 digits; type a longer one.", pos.Sentence(err), "setting a PIN says the same")
	assert.Equal(t, pos.PINAttempts{}, attempts(t, db, "Meera"))

	// Wrong PINs count; the counter's limit locks, the right PIN too.
	for i := 1; i < pos.MaxPINAttempts; i++ {
		_, _, err = signIn(t.Context(), db, "Meera", "135790", now)
		require.ErrorIs(t, err, ErrSignIn, "wrong PIN %d", i)
		require.Equal(t, i, attempts(t, db, "Meera").Failed)
	}
	_, _, err = signIn(t.Context(), db, "Meera", "135790", now)
	require.ErrorIs(t, err, ErrSignIn)
	assert.True(t, attempts(t, db, "Meera").LockedUntil.Equal(now.Add(pos.LockDuration)), "locked for pos.LockDuration")
	_, _, err = signIn(t.Context(), db, "Meera", "246810", now.Add(pos.LockDuration-time.Second))
	var locked *pos.LockedError
	require.ErrorAs(t, err, &locked)
	assert.True(t, locked.Until.Equal(now.Add(pos.LockDuration)))
	_, _, err = signIn(t.Context(), db, "Meera", "246810", now.Add(pos.LockDuration))
	require.NoError(t, err, "the lock has ended")
	assert.Equal(t, pos.PINAttempts{}, attempts(t, db, "Meera"), "a right PIN clears the count")
}

func TestTheSignInPageRefusesAShortPINWithTheCountersSentence(t *testing.T) {
	srv := httptest.NewTLSServer(New(managersOnly(t), nil))
	defer srv.Close()
	r := signin(t, client(t), srv.URL, "Meera", "2468")
	assert.Equal(t, http.StatusUnauthorized, r.StatusCode)
	assert.Contains(t, body(t, r), "A manager&#39;s PIN has 6 to 8 digits; type a longer one.")
}

// hashBeforePos is how the pages hashed a manager's PIN before they took
// pos's hash: what the managers table of a store holds.
func hashBeforePos(pin string, pepper, salt []byte, passes, kib uint32) []byte {
	m := hmac.New(sha256.New, pepper)
	m.Write([]byte(pin))
	return argon2.IDKey(m.Sum(nil), salt, passes, kib, 1, 32)
}

func TestManagersHashesStoredBeforeStillVerify(t *testing.T) {
	pepper, salt := make([]byte, 32), []byte("sixteen byte slt")
	assert.Equal(t, hashBeforePos("246810", pepper, salt, 2, 19*1024), pos.HashPIN("246810", pepper, salt, shippedPINCost),
		"the program's hash of a manager's PIN is the one stored before")

	db := managersOnly(t)
	var pemHex string
	require.NoError(t, db.Pool().QueryRow(t.Context(), "SELECT key_pem FROM server_keys WHERE name = $1", pepperKey).Scan(&pemHex))
	pepper, err := hex.DecodeString(pemHex)
	require.NoError(t, err)
	_, err = db.Pool().Exec(t.Context(), "INSERT INTO managers (name, pin_hash, salt) VALUES ('Ravi', $1, $2)",
		hashBeforePos("97531086", pepper, salt, PINCost.Time, PINCost.MemoryKiB), salt)
	require.NoError(t, err)
	_, s, err := signIn(t.Context(), db, "Ravi", "97531086", time.Now())
	require.NoError(t, err)
	assert.Equal(t, "Ravi", s.Manager)
}
