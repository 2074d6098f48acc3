package web

import (
	"crypto/hmac"
	"crypto/sha256"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

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
	db, err := store.Open(t.Context(), cluster.Database(t), storeKey(t))
	require.NoError(t, err)
	t.Cleanup(db.Close)
	_, err = db.Migrate(t.Context())
	require.NoError(t, err)
	_, err = AddManager(t.Context(), db, "Meera", "246810")
	require.NoError(t, err)
	return db
}

// testSource is where the tests' PINs come from.
const testSource = "192.0.2.1"

// attempts is the count of wrong PINs from source.
func attempts(t *testing.T, db *store.DB, source string) pos.PINAttempts {
	t.Helper()
	var a pos.PINAttempts
	var locked *time.Time
	err := db.Pool().QueryRow(t.Context(), "SELECT failed, locked_until FROM signin_guard WHERE source = $1", source).Scan(&a.Failed, &locked)
	if errors.Is(err, pgx.ErrNoRows) {
		return a
	}
	require.NoError(t, err)
	if locked != nil {
		a.LockedUntil = *locked
	}
	return a
}

// TestManagersSignInByTheCountersPINRules: the counter's PIN rules, and wrong
// PINs that stop the source they come from after the counter's limit, never
// the manager: from another address the manager signs in at once.
func TestManagersSignInByTheCountersPINRules(t *testing.T) {
	db := managersOnly(t)
	now := time.Date(2026, 11, 24, 10, 0, 0, 0, time.UTC)
	const guesser, office = "203.0.113.7", "192.0.2.10"

	_, s, err := signIn(t.Context(), db, office, "Meera", "246810", now)
	require.NoError(t, err, "the right PIN")
	assert.Equal(t, "Meera", s.Manager)

	// A PIN no manager can have: the counter's sentence, counted for nobody.
	_, _, err = signIn(t.Context(), db, guesser, "Meera", "24681", now)
	require.ErrorIs(t, err, pos.ErrShortManagerPIN)
	assert.Equal(t, "A manager's PIN has 6 to 8 digits; type a longer one.", pos.Sentence(err))
	_, err = AddManager(t.Context(), db, "Ravi", "24681")
	assert.Equal(t, "A manager's PIN has 6 to 8 digits; type a longer one.", pos.Sentence(err), "setting a PIN says the same")
	assert.Equal(t, pos.PINAttempts{}, attempts(t, db, guesser))

	// Wrong PINs count against the guesser's address; the counter's limit
	// stops it, the right PIN too.
	for i := 1; i < pos.MaxPINAttempts; i++ {
		_, _, err = signIn(t.Context(), db, guesser, "Meera", "135790", now)
		require.ErrorIs(t, err, ErrSignIn, "wrong PIN %d", i)
		require.Equal(t, i, attempts(t, db, guesser).Failed)
	}
	_, _, err = signIn(t.Context(), db, guesser, "Meera", "135790", now)
	require.ErrorIs(t, err, ErrSignIn)
	assert.True(t, attempts(t, db, guesser).LockedUntil.Equal(now.Add(pos.LockDuration)), "stopped for pos.LockDuration")
	_, _, err = signIn(t.Context(), db, guesser, "Meera", "246810", now.Add(pos.LockDuration-time.Second))
	var locked *SourceLockedError
	require.ErrorAs(t, err, &locked)
	assert.ErrorIs(t, err, pos.ErrLocked)
	assert.True(t, locked.Until.Equal(now.Add(pos.LockDuration)))

	// The manager is not locked: from the office she signs in at once.
	_, s, err = signIn(t.Context(), db, office, "Meera", "246810", now.Add(time.Second))
	require.NoError(t, err, "a guesser elsewhere never locks the manager out")
	assert.Equal(t, "Meera", s.Manager)

	// The stop is an alarm a manager sees.
	alarms, err := db.Access.Alarms(t.Context(), true)
	require.NoError(t, err)
	require.Len(t, alarms, 1)
	assert.Equal(t, store.AlarmSignIn, alarms[0].Kind)
	assert.Contains(t, alarms[0].Detail, guesser)

	_, _, err = signIn(t.Context(), db, guesser, "Meera", "246810", now.Add(pos.LockDuration))
	require.NoError(t, err, "the stop has ended")
	assert.Equal(t, pos.PINAttempts{}, attempts(t, db, guesser), "a right PIN clears the count")
}

// TestSignInAnswersAlikeForUnknownAndDisabledNames: a name that does not
// exist, a disabled manager's and a wrong PIN of a manager who exists take the
// same path (the PIN checked against a hash, a decoy's for no manager) and get
// the same page, byte for byte, and the same count.
func TestSignInAnswersAlikeForUnknownAndDisabledNames(t *testing.T) {
	db := managersOnly(t)
	_, err := AddManager(t.Context(), db, "Ravi", "97531086")
	require.NoError(t, err)
	require.NoError(t, SetManagerDisabled(t.Context(), db, "Ravi", true))

	var checked []string
	for _, name := range []string{"Meera", "Nobody", "Ravi", strings.Repeat("x", 500)} {
		_, _, err := signIn(t.Context(), db, "198.51.100.1", name, "135790", time.Now())
		assert.ErrorIs(t, err, ErrSignIn, name)
		checked = append(checked, name)
	}
	assert.Equal(t, len(checked), attempts(t, db, "198.51.100.1").Failed, "each counts alike")
	hash, salt := decoy()
	assert.Len(t, hash, 32, "the decoy costs what a manager's hash costs")
	assert.Len(t, salt, 16)

	p := New(db, nil)
	pages := map[string]string{}
	for i, name := range []string{"Meera", "Nobody", "Ravi"} {
		form := url.Values{"name": {name}, "pin": {"135790"}}
		req := httptest.NewRequest("POST", "https://127.0.0.1/manager/signin", strings.NewReader(form.Encode()))
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		req.RemoteAddr = fmt.Sprintf("198.51.100.%d:5000", 10+i)
		w := httptest.NewRecorder()
		p.ServeHTTP(w, req)
		assert.Equal(t, http.StatusUnauthorized, w.Code, name)
		pages[name] = w.Body.String()
	}
	assert.Equal(t, pages["Meera"], pages["Nobody"], "an unknown name gets the page a wrong PIN gets")
	assert.Equal(t, pages["Meera"], pages["Ravi"], "a disabled manager's name too")

	// A disabled manager's right PIN is refused as a wrong one; enabled again,
	// it signs in.
	_, _, err = signIn(t.Context(), db, testSource, "Ravi", "97531086", time.Now())
	assert.ErrorIs(t, err, ErrSignIn)
	require.NoError(t, SetManagerDisabled(t.Context(), db, "Ravi", false))
	_, s, err := signIn(t.Context(), db, testSource, "Ravi", "97531086", time.Now())
	require.NoError(t, err)
	assert.Equal(t, "Ravi", s.Manager)

	require.NoError(t, SetManagerDisabled(t.Context(), db, "Ravi", true))
	assert.ErrorIs(t, SetManagerDisabled(t.Context(), db, "Meera", true), ErrLastManager, "someone must be able to sign in")
	assert.ErrorIs(t, SetManagerDisabled(t.Context(), db, "Nobody", true), ErrNoSuchManager)
}

// TestSessionsEndWithANewPINOrDisabling: a session opened before a PIN reset,
// or before the manager is disabled, is no session after.
func TestSessionsEndWithANewPINOrDisabling(t *testing.T) {
	db := managersOnly(t)
	_, err := AddManager(t.Context(), db, "Ravi", "97531086")
	require.NoError(t, err)
	now := time.Now()
	p := New(db, nil)
	p.Now = func() time.Time { return now }
	page := func(token string) int {
		req := httptest.NewRequest("GET", "https://127.0.0.1/manager/staff", nil)
		req.AddCookie(&http.Cookie{Name: CookieName, Value: token})
		w := httptest.NewRecorder()
		p.ServeHTTP(w, req)
		return w.Code
	}
	meera, _, err := signIn(t.Context(), db, testSource, "Meera", "246810", now)
	require.NoError(t, err)
	ravi, _, err := signIn(t.Context(), db, testSource, "Ravi", "97531086", now)
	require.NoError(t, err)
	require.Equal(t, http.StatusOK, page(meera))
	require.Equal(t, http.StatusOK, page(ravi))

	_, err = AddManager(t.Context(), db, "Meera", "11223344")
	require.NoError(t, err)
	assert.Equal(t, http.StatusSeeOther, page(meera), "the session opened with the old PIN ended")
	require.NoError(t, SetManagerDisabled(t.Context(), db, "Ravi", true))
	assert.Equal(t, http.StatusSeeOther, page(ravi), "a disabled manager's session ended")

	// Even a session row left behind is no session of a disabled manager.
	_, err = db.Pool().Exec(t.Context(), "INSERT INTO manager_sessions (token_hash, manager, csrf, expires_at) VALUES ($1, 'Ravi', 'x', $2)",
		tokenHash("left"), now.Add(time.Hour))
	require.NoError(t, err)
	assert.Equal(t, http.StatusSeeOther, page("left"))
}

// TestTheSignInFormIsBoundedBeforeItIsRead sends a 10 MB form to the sign-in
// (the review's attack): refused unread when it says its length, and cut at
// MaxForm when it does not; no PIN is checked, nothing counted.
func TestTheSignInFormIsBoundedBeforeItIsRead(t *testing.T) {
	db := managersOnly(t)
	p := New(db, nil)
	for _, length := range []int64{10 << 20, -1} {
		big := &countingBody{left: 10 << 20, prefix: "name=Meera&pin=246810&x="}
		req := httptest.NewRequest("POST", "https://127.0.0.1/manager/signin", nil)
		req.Body, req.ContentLength = big, length
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		w := httptest.NewRecorder()
		p.ServeHTTP(w, req)
		assert.Equal(t, http.StatusRequestEntityTooLarge, w.Code, "Content-Length %d", length)
		assert.LessOrEqual(t, big.read, int64(MaxForm+1), "bytes read of the 10 MB form (Content-Length %d)", length)
		assert.Empty(t, w.Result().Cookies())
	}
	assert.Equal(t, pos.PINAttempts{}, attempts(t, db, "192.0.2.1"))
}

// countingBody is a body of left bytes (prefix first, then 'x') that counts
// what is read of it.
type countingBody struct {
	prefix     string
	left, read int64
}

func (c *countingBody) Read(p []byte) (int, error) {
	if c.left == 0 {
		return 0, io.EOF
	}
	n := int(min(int64(len(p)), c.left))
	k := copy(p[:n], c.prefix)
	c.prefix = c.prefix[k:]
	for i := k; i < n; i++ {
		p[i] = 'x'
	}
	c.left -= int64(n)
	c.read += int64(n)
	return n, nil
}

func (c *countingBody) Close() error { return nil }

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
	pepper = db.ManagerPepper() // kept in the store key, outside the database
	require.Len(t, pepper, 32)
	_, err := db.Pool().Exec(t.Context(), "INSERT INTO managers (name, pin_hash, salt) VALUES ('Ravi', $1, $2)",
		hashBeforePos("97531086", pepper, salt, PINCost.Time, PINCost.MemoryKiB), salt)
	require.NoError(t, err)
	_, s, err := signIn(t.Context(), db, testSource, "Ravi", "97531086", time.Now())
	require.NoError(t, err)
	assert.Equal(t, "Ravi", s.Manager)
}
