package store

import (
	"context"
	"embed"
	"errors"
	"fmt"
	"io/fs"
	"path"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"
)

//go:embed sql/*.sql
var migrations embed.FS

// DB is the store's database: a pool of connections to PostgreSQL. As
// go-github's Client holds its services, it holds one part per capability over
// one shared core (the pool and the clock): Access (terminals, enrolment,
// credentials, alarms), Keys (the server's certificate), Events (the ingest of
// the terminals' events), Projections (the tables derived from them),
// Decisions (the store-wide reservations), Master (the master data sent down),
// Staff (the store's staff) and Reports (the day, the store's Z, GSTR-1). Each
// is a named field: callers name the part they use (db.Events.Ingest). The
// DB's own methods are the schema's and the pool's. Its methods and its
// parts' are safe for concurrent use, and several processes may use one
// database.
type DB struct {
	Access      *Access
	Keys        *Keys
	Events      *Events
	Projections *Projections
	Decisions   *Decisions
	Master      *Master
	Staff       *Staff
	Reports     *Reports

	// Now is the clock (time.Now unless a test sets it).
	Now func() time.Time

	core *dbCore // the pool and the clock the parts share
}

// ErrUnavailable matches every error caused by a database that cannot be
// reached: the caller answers "try later", nothing was stored.
var ErrUnavailable = errors.New("store: the database cannot be reached")

// ErrURL reports a database URL that cannot be read.
var ErrURL = errors.New("store: the database URL is not valid")

// ErrSchema reports a database whose schema is older or newer than this
// program's: run "galla store init" (older) or update the program (newer).
var ErrSchema = errors.New("store: the database schema does not match this program")

// Open connects to the database at url (a PostgreSQL connection string,
// postgres://user:password@host/db or key=value form), whose store key (the
// data key that seals the buyers' details, and the PIN peppers: key.go) keeper
// keeps outside it. It does not migrate: Migrate does, and CheckSchema says
// whether it is needed; either opens the store key.
func Open(ctx context.Context, url string, keeper Keeper) (*DB, error) {
	cfg, err := pgxpool.ParseConfig(url)
	if err != nil {
		return nil, fmt.Errorf("%w (postgres://USER:PASSWORD@HOST:PORT/DB): %w", ErrURL, err)
	}
	if cfg.ConnConfig.ConnectTimeout == 0 {
		cfg.ConnConfig.ConnectTimeout = 5 * time.Second
	}
	pool, err := pgxpool.NewWithConfig(ctx, cfg)
	if err != nil {
		return nil, fmt.Errorf("store: open: %w", err)
	}
	db := &DB{Now: time.Now}
	c := newCore(db, pool)
	c.keeper = keeper
	db.core = c
	db.Access, db.Keys, db.Events, db.Projections = c.access, c.keys, c.events, c.projections
	db.Decisions, db.Master, db.Staff, db.Reports = c.decisions, c.master, c.staff, c.reports
	if err := pool.Ping(ctx); err != nil {
		pool.Close()
		return nil, c.wrap("open", err)
	}
	return db, nil
}

// Close closes the pool.
func (db *DB) Close() { db.core.pool.Close() }

// Pool is the connection pool, for the parts of the server built on this
// package (projections, reservations, the manager's pages).
func (db *DB) Pool() *pgxpool.Pool { return db.core.pool }

// unavailable reports whether err means the database is down or unreachable,
// as opposed to a statement it refused.
func unavailable(err error) bool {
	if errors.Is(err, ErrUnavailable) {
		return true
	}
	var pe *pgconn.PgError
	if errors.As(err, &pe) {
		// Class 08: connection exception; 57P01-57P03: shutdown, cannot connect now.
		return strings.HasPrefix(pe.Code, "08") || pe.Code == "57P01" || pe.Code == "57P02" || pe.Code == "57P03"
	}
	var ce *pgconn.ConnectError
	if errors.As(err, &ce) {
		return true
	}
	return pgconn.SafeToRetry(err) || errors.Is(err, context.DeadlineExceeded) ||
		strings.Contains(err.Error(), "conn closed") || strings.Contains(err.Error(), "unexpected EOF") ||
		strings.Contains(err.Error(), "connection reset") || strings.Contains(err.Error(), "broken pipe")
}

// migration is one numbered file of sql/.
type migration struct {
	version int
	name    string
	sql     string
}

// loadMigrations reads sql/NNNN_name.sql in order; the numbers run from 1
// without a gap.
func loadMigrations() ([]migration, error) {
	names, err := fs.Glob(migrations, "sql/*.sql")
	if err != nil {
		return nil, err
	}
	var out []migration
	for _, n := range names {
		base := path.Base(n)
		num, _, ok := strings.Cut(base, "_")
		v, err := strconv.Atoi(num)
		if !ok || err != nil {
			return nil, fmt.Errorf("migration %s: the name must start with its number", base)
		}
		b, err := migrations.ReadFile(n)
		if err != nil {
			return nil, err
		}
		out = append(out, migration{version: v, name: strings.TrimSuffix(base, ".sql"), sql: string(b)})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].version < out[j].version })
	for i, m := range out {
		if m.version != i+1 {
			return nil, fmt.Errorf("migration %s: number %d, want %d", m.name, m.version, i+1)
		}
	}
	return out, nil
}

// SchemaVersion is the schema this program needs: its last migration.
func SchemaVersion() int {
	ms, err := loadMigrations()
	if err != nil || len(ms) == 0 {
		return 0
	}
	return ms[len(ms)-1].version
}

// lockMigrate is the advisory lock taken by Migrate, so that two copies
// started at once migrate one after the other.
const lockMigrate = 0x67616c6c61 // "galla"

// Migrate brings the schema up to SchemaVersion: each migration not yet
// recorded in schema_version runs in a transaction of its own with its row.
// Then it opens the store key (dbCore.openKey): made and kept at the first
// start, the buyers' details written in clear before it sealed in place. It
// is idempotent, and safe when several copies start at once. It returns the
// versions it applied.
func (db *DB) Migrate(ctx context.Context) ([]int, error) {
	ms, err := loadMigrations()
	if err != nil {
		return nil, fmt.Errorf("store: migrate: %w", err)
	}
	var applied []int
	err = pgx.BeginFunc(ctx, db.core.pool, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, "SELECT pg_advisory_xact_lock($1)", int64(lockMigrate)); err != nil {
			return err
		}
		if _, err := tx.Exec(ctx, `CREATE TABLE IF NOT EXISTS schema_version (
			version    int PRIMARY KEY,
			name       text NOT NULL,
			applied_at timestamptz NOT NULL DEFAULT now())`); err != nil {
			return err
		}
		have, err := currentVersion(ctx, tx)
		if err != nil {
			return err
		}
		if have > len(ms) {
			return fmt.Errorf("%w: the database is at version %d, this program knows %d: update the program", ErrSchema, have, len(ms))
		}
		for _, m := range ms[have:] {
			if _, err := tx.Exec(ctx, m.sql); err != nil {
				return fmt.Errorf("%s: %w", m.name, err)
			}
			if _, err := tx.Exec(ctx, "INSERT INTO schema_version (version, name) VALUES ($1, $2)", m.version, m.name); err != nil {
				return fmt.Errorf("%s: %w", m.name, err)
			}
			applied = append(applied, m.version)
		}
		return nil
	})
	if err != nil {
		return nil, db.core.wrap("migrate", err)
	}
	if err := db.core.openKey(ctx); err != nil {
		return applied, err
	}
	return applied, nil
}

// currentVersion is the highest version in schema_version.
func currentVersion(ctx context.Context, q interface {
	QueryRow(context.Context, string, ...any) pgx.Row
}) (int, error) {
	var v int
	err := q.QueryRow(ctx, "SELECT coalesce(max(version), 0) FROM schema_version").Scan(&v)
	return v, err
}

// CheckSchema returns nil when the database's schema is the one this program
// needs and its store key is there (then opened: dbCore.openKey), else an
// ErrSchema, ErrKeyMissing or ErrKeyWrong whose sentence says what to do.
func (db *DB) CheckSchema(ctx context.Context) error {
	var exists bool
	if err := db.core.pool.QueryRow(ctx, "SELECT to_regclass('schema_version') IS NOT NULL").Scan(&exists); err != nil {
		return db.core.wrap("check schema", err)
	}
	have := 0
	if exists {
		var err error
		if have, err = currentVersion(ctx, db.core.pool); err != nil {
			return db.core.wrap("check schema", err)
		}
	}
	want := SchemaVersion()
	switch {
	case have < want:
		return fmt.Errorf("%w: the database is at version %d, this program needs %d: run \"galla store init --db URL\" first", ErrSchema, have, want)
	case have > want:
		return fmt.Errorf("%w: the database is at version %d, this program knows %d: update the program", ErrSchema, have, want)
	}
	return db.core.openKey(ctx)
}
