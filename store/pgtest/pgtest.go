// Package pgtest starts a throwaway PostgreSQL cluster for tests: initdb and
// pg_ctl from Debian's postgresql package (/usr/lib/postgresql/*/bin, else the
// PATH) in a temporary directory, listening on a unix socket inside it only. Run
// as root, the directory belongs to the postgres user and the commands run as it
// (initdb refuses root).
//
// One cluster per test package, started in TestMain, with a fresh database per
// test:
//
//	var cluster *pgtest.Cluster
//
//	func TestMain(m *testing.M) { pgtest.Main(m, &cluster) }
//
//	func TestX(t *testing.T) { url := cluster.Database(t) ... }
//
// It imports no package of Galla's and is imported only by tests.
package pgtest

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"net/url"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
)

// Cluster is a running throwaway cluster. Its methods are safe for concurrent use.
type Cluster struct {
	dir    string // the temporary directory: data/ and the socket
	bin    string // the directory of initdb and pg_ctl
	asUser string // "postgres" when run as root, else ""

	mu      sync.Mutex
	running bool
}

// Main starts a cluster into *c, runs the package's tests and stops it. Where
// no PostgreSQL is installed it fails the run with a sentence naming the
// package to install.
func Main(m *testing.M, c **Cluster) {
	cl, err := Start()
	if err != nil {
		fmt.Fprintln(os.Stderr, "pgtest:", err)
		os.Exit(1)
	}
	*c = cl
	code := m.Run()
	if err := cl.Stop(); err != nil {
		fmt.Fprintln(os.Stderr, "pgtest:", err)
	}
	if err := os.RemoveAll(cl.dir); err != nil {
		fmt.Fprintln(os.Stderr, "pgtest:", err)
	}
	os.Exit(code)
}

// Start makes a cluster in a new temporary directory and starts it.
func Start() (*Cluster, error) {
	bin, err := findBin()
	if err != nil {
		return nil, err
	}
	dir, err := os.MkdirTemp("", "pgtest")
	if err != nil {
		return nil, fmt.Errorf("pgtest: %w", err)
	}
	c := &Cluster{dir: dir, bin: bin}
	if os.Geteuid() == 0 {
		c.asUser = "postgres"
		u, err := user.Lookup("postgres")
		if err != nil {
			return nil, fmt.Errorf("pgtest: running as root needs the postgres user of the postgresql package: %w", err)
		}
		uid, _ := strconv.Atoi(u.Uid)
		gid, _ := strconv.Atoi(u.Gid)
		if err := os.Chown(dir, uid, gid); err != nil {
			return nil, fmt.Errorf("pgtest: %w", err)
		}
	}
	if out, err := c.run("initdb", "-D", c.data(), "-U", "postgres", "--auth=trust", "-E", "UTF8", "--no-sync", "--locale=C.UTF-8"); err != nil {
		return nil, fmt.Errorf("pgtest: initdb: %w\n%s", err, out)
	}
	conf := "listen_addresses = ''\nunix_socket_directories = '" + dir + "'\nfsync = off\nfull_page_writes = off\nsynchronous_commit = off\nmax_connections = 200\nshared_buffers = 64MB\n"
	f, err := os.OpenFile(filepath.Join(c.data(), "postgresql.conf"), os.O_APPEND|os.O_WRONLY, 0)
	if err == nil {
		_, err = f.WriteString(conf)
		if cerr := f.Close(); err == nil {
			err = cerr
		}
	}
	if err != nil {
		return nil, fmt.Errorf("pgtest: postgresql.conf: %w", err)
	}
	if err := c.Restart(); err != nil {
		return nil, err
	}
	c.watch()
	return c, nil
}

// watch starts a watchdog, a shell of its own session, that stops the cluster
// and removes its directory once this process is gone: a test binary that
// dies without its cleanup (a crash, a timeout) leaves no server running.
func (c *Cluster) watch() {
	stop := fmt.Sprintf("%s -D '%s' -m immediate -w stop", filepath.Join(c.bin, "pg_ctl"), c.data())
	if c.asUser != "" {
		stop = "runuser -u " + c.asUser + " -- " + stop
	}
	script := fmt.Sprintf("while kill -0 %d 2>/dev/null; do sleep 1; done; %s >/dev/null 2>&1; rm -rf '%s'", os.Getpid(), stop, c.dir)
	cmd := exec.Command("sh", "-c", script)
	cmd.Dir = "/" // the postgres user may not enter the test's directory
	cmd.SysProcAttr = detached()
	if cmd.Start() == nil {
		go func() { _ = cmd.Wait() }()
	}
}

// findBin finds the directory of initdb: the newest /usr/lib/postgresql/N/bin,
// else the PATH.
func findBin() (string, error) {
	dirs, _ := filepath.Glob("/usr/lib/postgresql/*/bin")
	sort.Slice(dirs, func(i, j int) bool {
		a, _ := strconv.Atoi(filepath.Base(filepath.Dir(dirs[i])))
		b, _ := strconv.Atoi(filepath.Base(filepath.Dir(dirs[j])))
		return a > b
	})
	for _, d := range dirs {
		if _, err := os.Stat(filepath.Join(d, "initdb")); err == nil {
			return d, nil
		}
	}
	if p, err := exec.LookPath("initdb"); err == nil {
		return filepath.Dir(p), nil
	}
	return "", errors.New("no initdb found in /usr/lib/postgresql/*/bin or the PATH: install Debian's postgresql package (apt-get install postgresql)")
}

func (c *Cluster) data() string { return filepath.Join(c.dir, "data") }

// run runs one of the cluster's programs, as the postgres user when root.
func (c *Cluster) run(prog string, args ...string) ([]byte, error) {
	path := filepath.Join(c.bin, prog)
	var cmd *exec.Cmd
	if c.asUser != "" {
		cmd = exec.Command("runuser", append([]string{"-u", c.asUser, "--", path}, args...)...)
	} else {
		cmd = exec.Command(path, args...)
	}
	cmd.Dir = c.dir
	return cmd.CombinedOutput()
}

// Stop stops the cluster (fast shutdown: open connections are cut). The
// tests of a database that is down call it, then Restart.
func (c *Cluster) Stop() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if !c.running {
		return nil
	}
	if out, err := c.run("pg_ctl", "-D", c.data(), "-m", "fast", "-w", "stop"); err != nil {
		return fmt.Errorf("pgtest: pg_ctl stop: %w\n%s", err, out)
	}
	c.running = false
	return nil
}

// Kill stops the cluster as a crash would (immediate shutdown: no checkpoint,
// connections cut; the next start recovers from the write-ahead log).
func (c *Cluster) Kill() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if !c.running {
		return nil
	}
	if out, err := c.run("pg_ctl", "-D", c.data(), "-m", "immediate", "-w", "stop"); err != nil {
		return fmt.Errorf("pgtest: pg_ctl stop: %w\n%s", err, out)
	}
	c.running = false
	return nil
}

// Restart starts the cluster again after Stop (Start starts it the first time).
func (c *Cluster) Restart() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.running {
		return nil
	}
	if out, err := c.run("pg_ctl", "-D", c.data(), "-l", filepath.Join(c.dir, "log"), "-w", "-t", "60", "start"); err != nil {
		log, _ := os.ReadFile(filepath.Join(c.dir, "log"))
		return fmt.Errorf("pgtest: pg_ctl start: %w\n%s\n%s", err, out, log)
	}
	c.running = true
	return nil
}

// URL is the connection string of database name in the cluster.
func (c *Cluster) URL(name string) string {
	return "postgres://postgres@/" + name + "?host=" + url.QueryEscape(c.dir) + "&sslmode=disable"
}

// Database creates a fresh, empty database for tb and returns its connection
// string; it is dropped when tb ends.
func (c *Cluster) Database(tb testing.TB) string {
	tb.Helper()
	var b [6]byte
	_, _ = rand.Read(b[:])
	name := "t_" + hex.EncodeToString(b[:])
	if err := c.exec("CREATE DATABASE " + name + " TEMPLATE template0 ENCODING 'UTF8'"); err != nil {
		tb.Fatalf("pgtest: create database: %v", err)
	}
	tb.Cleanup(func() {
		if err := c.exec("DROP DATABASE IF EXISTS " + name + " WITH (FORCE)"); err != nil {
			tb.Logf("pgtest: drop database %s: %v", name, err)
		}
	})
	return c.URL(name)
}

// exec runs one statement in the postgres database.
func (c *Cluster) exec(sql string) error {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	conn, err := pgx.Connect(ctx, c.URL("postgres"))
	if err != nil {
		return err
	}
	defer conn.Close(ctx)
	_, err = conn.Exec(ctx, sql)
	return err
}

// Log returns the server's log so far, for a failing test to show.
func (c *Cluster) Log() string {
	b, _ := os.ReadFile(filepath.Join(c.dir, "log"))
	return strings.TrimSpace(string(b))
}

// Lazy is a cluster started on first use, for a test package where few tests
// need one (the main package): its TestMain calls Main, which stops the cluster
// if a test started it.
type Lazy struct {
	once sync.Once
	c    *Cluster
	err  error
}

// Get returns the cluster, starting it on the first call; tb fails when it
// cannot start.
func (l *Lazy) Get(tb testing.TB) *Cluster {
	tb.Helper()
	l.once.Do(func() { l.c, l.err = Start() })
	if l.err != nil {
		tb.Fatal(l.err)
	}
	return l.c
}

// Main runs the package's tests and stops the cluster if one was started.
func (l *Lazy) Main(m *testing.M) {
	code := m.Run()
	if l.c != nil {
		if err := l.c.Stop(); err != nil {
			fmt.Fprintln(os.Stderr, "pgtest:", err)
		}
		_ = os.RemoveAll(l.c.dir)
	}
	os.Exit(code)
}
