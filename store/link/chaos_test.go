package link_test

import (
	"context"
	"io"
	"math/rand/v2"
	"net"
	"os"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"galla/pos/journal"
	"galla/store/link"
)

// cutProxy forwards TCP connections to a server and cuts some of them after a
// random number of bytes, in either direction: a batch cut on its way up, or
// its answer cut on the way back.
type cutProxy struct {
	ln     net.Listener
	target func() string
	cut    atomic.Bool
	cuts   atomic.Int64
}

func newCutProxy(t *testing.T, target func() string) *cutProxy {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	p := &cutProxy{ln: ln, target: target}
	p.cut.Store(true)
	t.Cleanup(func() { _ = ln.Close() })
	go p.serve()
	return p
}

func (p *cutProxy) serve() {
	for {
		c, err := p.ln.Accept()
		if err != nil {
			return
		}
		go p.pipe(c)
	}
}

func (p *cutProxy) pipe(c net.Conn) {
	defer c.Close()
	s, err := net.Dial("tcp", p.target())
	if err != nil {
		return
	}
	defer s.Close()
	limit := [2]int64{-1, -1}
	if p.cut.Load() && rand.IntN(3) == 0 {
		limit[rand.IntN(2)] = rand.Int64N(40000)
		p.cuts.Add(1)
	}
	done := make(chan struct{}, 2)
	cp := func(dst, src net.Conn, n int64) {
		if n >= 0 {
			_, _ = io.CopyN(dst, src, n)
		} else {
			_, _ = io.Copy(dst, src)
		}
		done <- struct{}{}
	}
	go cp(s, c, limit[0])
	go cp(c, s, limit[1])
	<-done // either direction ending (or cut) closes both
}

// TestChaosExactlyOnce runs three terminals selling and syncing through a
// proxy that cuts connections mid-batch, while the store server is killed and
// started again at random, its database is killed twice (crash recovery on
// restart), and the terminals are killed mid-sync (and come back
// with their record of what was acknowledged lost, or older than it was). At
// the end every event of every journal is held exactly once, without a gap.
func TestChaosExactlyOnce(t *testing.T) {
	s := newStoreServer(t)
	proxy := newCutProxy(t, s.hostport)
	proxyURL := "https://" + proxy.ln.Addr().String()

	type terminal struct {
		id  string
		dir string
		j   *journal.Journal
		cfg link.Config
	}
	terms := make([]*terminal, 3)
	for i := range terms {
		tm := &terminal{id: []string{"T1", "T2", "T3"}[i], dir: t.TempDir()}
		tm.cfg = s.enrol(t, tm.id, tm.dir)
		tm.cfg.URL = proxyURL
		tm.cfg.Batch = 100
		tm.j = openJournal(t, tm.dir)
		terms[i] = tm
	}

	// The chaos lasts until the database was killed twice and a little after:
	// a fixed length raced a slow restart on a loaded machine (one kill in 12 s).
	ctx, stop := context.WithCancel(t.Context())
	defer stop()
	var wg sync.WaitGroup
	var serverKills, terminalKills, staleStates atomic.Int64
	wg.Add(1)
	go func() { // kill the server now and then
		defer wg.Done()
		for ctx.Err() == nil {
			time.Sleep(time.Duration(150+rand.IntN(400)) * time.Millisecond)
			s.kill()
			serverKills.Add(1)
			time.Sleep(time.Duration(rand.IntN(150)) * time.Millisecond)
			if !assert.NoError(t, s.start(s.hostport())) {
				return
			}
		}
	}()
	var dbKills atomic.Int64
	wg.Add(1)
	go func() { // kill the database twice, then end the chaos
		defer wg.Done()
		defer stop()
		for range 2 {
			time.Sleep(4 * time.Second)
			if !assert.NoError(t, cluster.Kill()) {
				return
			}
			dbKills.Add(1)
			time.Sleep(300 * time.Millisecond)
			if !assert.NoError(t, cluster.Restart()) {
				return
			}
		}
		time.Sleep(4 * time.Second)
	}()
	for _, tm := range terms {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var old []byte // an older copy of the state file
			l, err := link.New(tm.cfg, tm.j.Log)
			if !assert.NoError(t, err) {
				return
			}
			for ctx.Err() == nil {
				if !assert.NoError(t, appendEvents(tm.j, rand.IntN(150))) {
					return
				}
				sctx, cancel := context.WithTimeout(ctx, time.Duration(5+rand.IntN(300))*time.Millisecond)
				_, _ = l.Sync(sctx) // failures are the point; what counts is the end
				cancel()
				if rand.IntN(3) == 0 {
					// The terminal dies; it comes back with its state file as
					// it is, lost, or an older copy (a replay of old batches).
					terminalKills.Add(1)
					switch rand.IntN(3) {
					case 0:
						_ = os.Remove(tm.cfg.StatePath)
					case 1:
						if old != nil {
							_ = os.WriteFile(tm.cfg.StatePath, old, 0o600)
							staleStates.Add(1)
						}
					}
					if l, err = link.New(tm.cfg, tm.j.Log); !assert.NoError(t, err) {
						return
					}
				}
				if b, err := os.ReadFile(tm.cfg.StatePath); err == nil && rand.IntN(4) == 0 {
					old = b
				}
			}
		}()
	}
	wg.Wait()

	// Calm: the server up, no more cuts; every terminal catches up.
	s.kill()
	require.NoError(t, s.start(s.hostport()))
	proxy.cut.Store(false)
	for _, tm := range terms {
		l, err := link.New(tm.cfg, tm.j.Log)
		require.NoError(t, err)
		res, err := l.Sync(t.Context())
		require.NoError(t, err, "terminal %s", tm.id)
		assert.Zero(t, res.Waiting)
		checkHeld(t, s.db.Pool(), tm.id, tm.j)
		last, _ := tm.j.Log.LastSeq(t.Context())
		t.Logf("terminal %s: %d events", tm.id, last)
	}
	alarms, err := s.db.Access.Alarms(t.Context(), true)
	require.NoError(t, err)
	for _, a := range alarms {
		assert.NotEqual(t, "fork", a.Kind, "no fork from honest terminals: %s", a.Detail)
	}
	t.Logf("server kills %d, database kills %d, cut connections %d, terminal kills %d, stale state files %d", serverKills.Load(), dbKills.Load(), proxy.cuts.Load(), terminalKills.Load(), staleStates.Load())
	assert.Equal(t, int64(2), dbKills.Load())
	assert.Positive(t, serverKills.Load())
	assert.Positive(t, proxy.cuts.Load())
	assert.Positive(t, terminalKills.Load())
}
