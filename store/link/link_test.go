package link_test

import (
	"context"
	"crypto/tls"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"log"
	"log/slog"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"galla/pos"
	"galla/pos/journal"
	"galla/store"
	"galla/store/api"
	"galla/store/link"
	"galla/store/pgtest"
)

var cluster *pgtest.Cluster

func TestMain(m *testing.M) { pgtest.Main(m, &cluster) }

// storeServer is a store server over a fresh database, serving HTTPS on a
// loopback port until killed.
type storeServer struct {
	db   *store.DB
	fp   string
	cert tls.Certificate // read once: a copy started while the database is down still serves
	addr string

	mu     sync.Mutex
	hs     *http.Server
	cancel context.CancelFunc
}

func newStoreServer(t testing.TB) *storeServer {
	t.Helper()
	db, err := store.Open(t.Context(), cluster.Database(t), store.KeyFile(filepath.Join(t.TempDir(), "store.key")))
	require.NoError(t, err)
	t.Cleanup(db.Close)
	_, err = db.Migrate(t.Context())
	require.NoError(t, err)
	fp, _, err := db.Keys.InitCertificate(t.Context(), nil)
	require.NoError(t, err)
	cert, _, err := db.Keys.TLSCertificate(t.Context())
	require.NoError(t, err)
	s := &storeServer{db: db, fp: fp, cert: cert}
	require.NoError(t, s.start("127.0.0.1:0"))
	t.Cleanup(s.kill)
	return s
}

// start serves on addr (the same port again after a kill).
func (s *storeServer) start(addr string) error {
	var ln net.Listener
	var err error
	for i := 0; ; i++ { // the port of a killed server may take a moment to free
		if ln, err = net.Listen("tcp", addr); err == nil || i == 50 {
			break
		}
		time.Sleep(20 * time.Millisecond)
	}
	if err != nil {
		return err
	}
	ctx, cancel := context.WithCancel(context.Background())
	hs := &http.Server{
		Handler:     store.NewServer(s.db, slog.New(slog.NewTextHandler(io.Discard, nil))),
		BaseContext: func(net.Listener) context.Context { return ctx },
		ErrorLog:    log.New(io.Discard, "", 0),
	}
	hs.TLSConfig = tlsConfig(s.cert)
	go func() { _ = hs.ServeTLS(ln, "", "") }()
	s.mu.Lock()
	s.hs, s.cancel, s.addr = hs, cancel, ln.Addr().String()
	s.mu.Unlock()
	return nil
}

// kill stops the server at once: connections closed, requests in flight
// cancelled (their transactions rolled back), as when the process dies.
func (s *storeServer) kill() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.hs != nil {
		s.cancel()
		_ = s.hs.Close()
		s.hs = nil
	}
}

// hostport is the address the server listens on.
func (s *storeServer) hostport() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.addr
}

func (s *storeServer) url() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return "https://" + s.addr
}

// enrol enrols terminal id and returns its link config.
func (s *storeServer) enrol(t testing.TB, id, dir string) link.Config {
	t.Helper()
	code, _, err := s.db.Access.EnrolCode(t.Context(), id)
	require.NoError(t, err)
	key, err := link.NewKey()
	require.NoError(t, err)
	resp, err := link.Enrol(t.Context(), s.url(), code, s.fp, key, nil)
	require.NoError(t, err)
	require.Equal(t, id, resp.TerminalID)
	return link.Config{URL: s.url(), Fingerprint: s.fp, TerminalID: id, Key: key, StatePath: filepath.Join(dir, link.StateFile)}
}

// openJournal opens a journal in dir.
func openJournal(t testing.TB, dir string) *journal.Journal {
	t.Helper()
	j, err := journal.Open(filepath.Join(dir, "journal.db"), journal.Options{})
	require.NoError(t, err)
	t.Cleanup(func() { _ = j.Close() })
	return j
}

// appendN appends n settings events to j.
func appendN(t testing.TB, j *journal.Journal, n int) {
	t.Helper()
	require.NoError(t, appendEvents(j, n))
}

// appendEvents appends n settings events to j; goroutines other than the
// test's call it.
func appendEvents(j *journal.Journal, n int) error {
	for i := 0; i < n; i++ {
		if _, err := j.Log.Append(context.Background(), pos.Event{Kind: pos.EvSettingsChanged, Time: time.Now(), Day: time.Now().Format(pos.DayLayout), Staff: "001",
			Setting: &pos.Setting{Key: "note", Value: json.RawMessage(fmt.Sprintf(`"note %d"`, i))}}); err != nil {
			return err
		}
	}
	return nil
}

// checkHeld asserts that the store holds exactly j's events for terminal: one
// row per sequence 1..last, each with the journal's hash.
func checkHeld(t testing.TB, pool *pgxpool.Pool, terminal string, j *journal.Journal) {
	t.Helper()
	last, err := j.Log.LastSeq(t.Context())
	require.NoError(t, err)
	var n, distinct int
	var maxSeq int64
	require.NoError(t, pool.QueryRow(t.Context(), "SELECT count(*), count(DISTINCT seq), coalesce(max(seq), 0) FROM events WHERE terminal_id = $1", terminal).Scan(&n, &distinct, &maxSeq))
	assert.Equal(t, int(last), n, "terminal %s: events held", terminal)
	assert.Equal(t, n, distinct)
	assert.Equal(t, int64(last), maxSeq)
	rows, err := pool.Query(t.Context(), "SELECT seq, hash FROM events WHERE terminal_id = $1 ORDER BY seq", terminal)
	require.NoError(t, err)
	defer rows.Close()
	want := uint64(1)
	for rows.Next() {
		var seq int64
		var hash []byte
		require.NoError(t, rows.Scan(&seq, &hash))
		require.Equal(t, int64(want), seq, "terminal %s: a gap", terminal)
		ev, err := j.Log.Event(t.Context(), want)
		require.NoError(t, err)
		require.Equal(t, ev.Hash, hex.EncodeToString(hash), "terminal %s event %d", terminal, seq)
		want++
	}
	require.NoError(t, rows.Err())
}

func TestEnrolSyncAndStatus(t *testing.T) {
	s := newStoreServer(t)
	dir := t.TempDir()
	cfg := s.enrol(t, "T1", dir)
	j := openJournal(t, dir)
	appendN(t, j, 1203)

	l, err := link.New(cfg, j.Log)
	require.NoError(t, err)
	st := l.Status()
	assert.True(t, st.Enrolled)
	assert.Equal(t, uint64(1203), st.Waiting)
	assert.True(t, st.LastSync.IsZero())
	assert.Equal(t, "store: 1203 events waiting, never synced", st.Text(time.Now()))

	res, err := l.Sync(t.Context())
	require.NoError(t, err)
	assert.Equal(t, link.Result{Sent: 1203, Held: 1203}, res)
	checkHeld(t, s.db.Pool(), "T1", j)
	st = l.Status()
	assert.Zero(t, st.Waiting)
	assert.WithinDuration(t, time.Now(), st.LastSync, time.Minute)

	appendN(t, j, 2)
	assert.Equal(t, uint64(2), l.Status().Waiting)
	res, err = l.Sync(t.Context())
	require.NoError(t, err)
	assert.Equal(t, link.Result{Sent: 2, Held: 1205}, res)

	// The state file lost: the link asks the server and sends nothing again.
	require.NoError(t, os.Remove(cfg.StatePath))
	l2, err := link.New(cfg, j.Log)
	require.NoError(t, err)
	res, err = l2.Sync(t.Context())
	require.NoError(t, err)
	assert.Equal(t, link.Result{Sent: 0, Held: 1205}, res)
	checkHeld(t, s.db.Pool(), "T1", j)

	// A state file that cannot be read is a resend too, harmless.
	require.NoError(t, os.WriteFile(cfg.StatePath, []byte("{not json"), 0o600))
	l3, err := link.New(cfg, j.Log)
	require.NoError(t, err)
	_, err = l3.Sync(t.Context())
	require.NoError(t, err)
	checkHeld(t, s.db.Pool(), "T1", j)
}

func TestEnrolRefusesAnotherFingerprintAndBadCode(t *testing.T) {
	s := newStoreServer(t)
	code, _, err := s.db.Access.EnrolCode(t.Context(), "T1")
	require.NoError(t, err)
	key, err := link.NewKey()
	require.NoError(t, err)
	wrong := hex.EncodeToString(make([]byte, 32))
	_, err = link.Enrol(t.Context(), s.url(), code, wrong, key, nil)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "not the one pinned")

	_, err = link.Enrol(t.Context(), s.url(), code, "12:34", key, nil)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "64 hex digits")

	_, err = link.Enrol(t.Context(), s.url(), "AAAA-BBBB-CCCC-DDDD", s.fp, key, nil)
	var ae *api.Error
	require.ErrorAs(t, err, &ae)
	assert.Equal(t, api.CodeBadCode, ae.Code)

	// The code was not used by the refused attempts.
	resp, err := link.Enrol(t.Context(), s.url(), code, "SHA256:"+s.fp, key, nil)
	require.NoError(t, err)
	assert.Equal(t, "T1", resp.TerminalID)
}

func TestSyncUnreachableAndDatabaseDown(t *testing.T) {
	s := newStoreServer(t)
	dir := t.TempDir()
	cfg := s.enrol(t, "T1", dir)
	j := openJournal(t, dir)
	appendN(t, j, 10)
	l, err := link.New(cfg, j.Log)
	require.NoError(t, err)
	_, err = l.Sync(t.Context())
	require.NoError(t, err)
	appendN(t, j, 5)

	s.kill()
	res, err := l.Sync(t.Context())
	require.ErrorIs(t, err, link.ErrUnreachable)
	assert.Equal(t, uint64(5), res.Waiting)
	st := l.Status()
	assert.Equal(t, "store server unreachable", st.Problem)
	assert.Contains(t, st.Text(time.Now()), "store: 5 events waiting, last sync ")

	// The server is back, its database is not.
	require.NoError(t, s.start(s.hostport()))
	require.NoError(t, cluster.Stop())
	_, err = l.Sync(t.Context())
	require.NoError(t, cluster.Restart())
	var ae *api.Error
	require.ErrorAs(t, err, &ae, "got %v", err)
	assert.Equal(t, api.CodeUnavailable, ae.Code)
	assert.Contains(t, ae.Message, "nothing was stored")
	assert.Equal(t, "the store's database is down", l.Status().Problem)

	require.Eventually(t, func() bool { _, err := l.Sync(t.Context()); return err == nil }, 20*time.Second, 200*time.Millisecond)
	assert.Empty(t, l.Status().Problem)
	checkHeld(t, s.db.Pool(), "T1", j)
}

func TestForkShowsBlocked(t *testing.T) {
	s := newStoreServer(t)
	dir := t.TempDir()
	cfg := s.enrol(t, "T1", dir)
	j := openJournal(t, dir)
	appendN(t, j, 4)
	l, err := link.New(cfg, j.Log)
	require.NoError(t, err)
	_, err = l.Sync(t.Context())
	require.NoError(t, err)

	// A new journal in the same terminal's place: its event 1 differs.
	dir2 := t.TempDir()
	j2 := openJournal(t, dir2)
	appendN(t, j2, 6)
	cfg.StatePath = filepath.Join(dir2, link.StateFile)
	l2, err := link.New(cfg, j2.Log)
	require.NoError(t, err)
	_, err = l2.Sync(t.Context())
	var ae *api.Error
	require.ErrorAs(t, err, &ae)
	assert.Equal(t, api.CodeFork, ae.Code)
	st := l2.Status()
	assert.Equal(t, "its journal forked at event 1", st.Blocked)
	assert.Equal(t, "store: events refused until a manager looks (its journal forked at event 1)", st.Text(time.Now()))

	_, err = l2.Sync(t.Context())
	require.ErrorAs(t, err, &ae)
	assert.Equal(t, api.CodeBlocked, ae.Code)
	checkHeld(t, s.db.Pool(), "T1", j)
	alarms, err := s.db.Access.Alarms(t.Context(), true)
	require.NoError(t, err)
	require.Len(t, alarms, 1)
	assert.Equal(t, store.AlarmFork, alarms[0].Kind)
}

func tlsConfig(cert tls.Certificate) *tls.Config {
	return &tls.Config{Certificates: []tls.Certificate{cert}, MinVersion: tls.VersionTLS12}
}
