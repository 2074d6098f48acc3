package link_test

import (
	"crypto/ed25519"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"galla/store/api"
	"galla/store/link"
)

// A counter enrolled before terminals had keys holds a credential; its link
// moves it to its key at the first sync, once, and forgets the credential.
func TestACredentialOfAnEarlierVersionMovesToTheKeyAtTheFirstSync(t *testing.T) {
	s := newStoreServer(t)
	dir := t.TempDir()
	cfg := s.enrol(t, "T1", dir)
	const cred = "00112233445566778899aabbccddeeff00112233445566778899aabbccddeeff"
	_, err := s.db.Pool().Exec(t.Context(), "UPDATE terminals SET public_key = NULL, credential_hash = $1 WHERE id = 'T1'", api.CredentialKey(cred))
	require.NoError(t, err)
	j := openJournal(t, dir)
	appendN(t, j, 3)

	// Without the credential the new key is not the terminal's.
	l, err := link.New(cfg, j.Log)
	require.NoError(t, err)
	_, err = l.Sync(t.Context())
	var ae *api.Error
	require.ErrorAs(t, err, &ae)
	assert.Equal(t, api.CodeUnauthorized, ae.Code)

	rotated := 0
	cfg.Credential, cfg.Rotated = cred, func() error { rotated++; return nil }
	l, err = link.New(cfg, j.Log)
	require.NoError(t, err)
	res, err := l.Sync(t.Context())
	require.NoError(t, err)
	assert.Equal(t, link.Result{Sent: 3, Held: 3}, res)
	appendN(t, j, 1)
	_, err = l.Sync(t.Context())
	require.NoError(t, err)
	assert.Equal(t, 1, rotated, "moved once")
	var pub, held []byte
	require.NoError(t, s.db.Pool().QueryRow(t.Context(), "SELECT public_key, credential_hash FROM terminals WHERE id = 'T1'").Scan(&pub, &held))
	assert.Equal(t, []byte(cfg.Key.Public().(ed25519.PublicKey)), pub)
	assert.Nil(t, held)
}

// A store that answers for another terminal than the counter is refused
// before anything is sent to it.
func TestAStoreAnsweringForAnotherTerminalIsRefused(t *testing.T) {
	var mu sync.Mutex
	var paths []string
	rogue := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		paths = append(paths, r.URL.Path)
		mu.Unlock()
		_ = json.NewEncoder(w).Encode(api.Status{TerminalID: "T2"})
	}))
	defer rogue.Close()
	key, err := link.NewKey()
	require.NoError(t, err)
	dir := t.TempDir()
	j := openJournal(t, dir)
	appendN(t, j, 2)
	l, err := link.New(link.Config{URL: rogue.URL, TerminalID: "T1", Key: key, Transport: http.DefaultTransport, StatePath: dir + "/" + link.StateFile}, j.Log)
	require.NoError(t, err)
	_, err = l.Sync(t.Context())
	require.ErrorIs(t, err, link.ErrOtherTerminal)
	assert.Contains(t, err.Error(), `terminal "T2", but this counter is T1`)
	mu.Lock()
	assert.Equal(t, []string{api.PathStatus}, paths, "no event went to it")
	mu.Unlock()
}

// A link held (a store no manager accepted) sends nothing and says why.
func TestAHeldLinkSendsNothing(t *testing.T) {
	s := newStoreServer(t)
	dir := t.TempDir()
	cfg := s.enrol(t, "T1", dir)
	cfg.Hold = "not accepted by a manager"
	j := openJournal(t, dir)
	appendN(t, j, 2)
	l, err := link.New(cfg, j.Log)
	require.NoError(t, err)
	_, err = l.Sync(t.Context())
	require.ErrorIs(t, err, link.ErrHeld)
	_, err = l.StaffPepper(t.Context())
	require.ErrorIs(t, err, link.ErrHeld)
	assert.Equal(t, "store: 2 events waiting, never synced (not accepted by a manager)", l.Status().Text(time.Now()))
	assert.Zero(t, heldBy(t, s, "T1"))
}

// heldBy is the last sequence the store holds of terminal.
func heldBy(t *testing.T, s *storeServer, terminal string) uint64 {
	t.Helper()
	tm, err := s.db.Access.Terminal(t.Context(), terminal)
	require.NoError(t, err)
	return tm.Held
}
