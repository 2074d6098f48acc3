package store

import (
	"context"
	"fmt"
	"log/slog"
	"sync/atomic"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
)

// dbCore is what the database's parts share: the pool, the clock, the wrapping
// of errors and the alarms any part may raise. Each part holds the one core of
// its DB (embedded) and reaches another part through the core's pointer to it,
// never through the DB.
type dbCore struct {
	pool *pgxpool.Pool
	// clock is the DB's Now, read at each use: a test that sets DB.Now sets
	// every part's clock.
	clock *func() time.Time

	// keeper keeps the store key outside the database; opened is the key
	// and its data key's vault once openKey opened it (nil before).
	keeper Keeper
	opened atomic.Pointer[openedKey]
	// sealRows is how many rows sealInPlace reads in one transaction (0:
	// SealBatch).
	sealRows int

	// The database's parts, each holding this core.
	access      *Access
	keys        *Keys
	events      *Events
	projections *Projections
	decisions   *Decisions
	master      *Master
	staff       *Staff
	reports     *Reports
}

// newCore makes the core of db over pool, with its parts.
func newCore(db *DB, pool *pgxpool.Pool) *dbCore {
	c := &dbCore{pool: pool, clock: &db.Now}
	c.access, c.keys, c.events, c.projections = &Access{c}, &Keys{c}, &Events{c}, &Projections{c}
	c.decisions, c.master, c.staff, c.reports = &Decisions{c}, &Master{c}, &Staff{c}, &Reports{c}
	return c
}

// openedKey is the store key as openKey opened it.
type openedKey struct {
	secret *storeSecret
	vault  *vault
}

// vault is the vault of the store's data key; nil before openKey (its seal
// and open then refuse personal data with errNoKey).
func (c *dbCore) vault() *vault {
	if k := c.opened.Load(); k != nil {
		return k.vault
	}
	return nil
}

// secret is the store key; nil before openKey.
func (c *dbCore) secret() *storeSecret {
	if k := c.opened.Load(); k != nil {
		return k.secret
	}
	return nil
}

// now is the time on the DB's clock.
func (c *dbCore) now() time.Time { return (*c.clock)() }

// wrap adds the operation to err, and ErrUnavailable where the database could
// not be reached or went away.
func (c *dbCore) wrap(op string, err error) error {
	if err == nil {
		return nil
	}
	if unavailable(err) {
		return fmt.Errorf("store: %s: %w: %w", op, ErrUnavailable, err)
	}
	return fmt.Errorf("store: %s: %w", op, err)
}

// The alarms of requests that name no enrolled terminal (an unsigned request,
// an unknown terminal's name, a refused enrolment code) are raised by anyone
// who reaches the server, so they are bounded: of each kind at most
// AnonymousAlarms rows are opened an AnonymousAlarmPeriod; beyond them the
// alarm is counted in one row of its kind (anonymousOverflow).
const (
	AnonymousAlarms      = 10
	AnonymousAlarmPeriod = time.Hour
)

// anonymousOverflow is the detail of the row that counts the anonymous alarms
// of a kind beyond AnonymousAlarms an AnonymousAlarmPeriod.
const anonymousOverflow = "more refused requests naming no enrolled terminal than are listed one by one (10 an hour of each kind): counted here"

// alarm records an alarm. It is recorded outside the refused request's
// transaction (that one is rolled back); when the database cannot take it
// either, it goes to the log. The same alarm (terminal, kind, sequence and
// detail) raised again while it is open is counted in its row, so that a
// flood of bad requests adds no rows; an alarm naming no terminal opens at
// most AnonymousAlarms rows of its kind an AnonymousAlarmPeriod, so that a
// flood of different names adds no more.
func (c *dbCore) alarm(ctx context.Context, terminal, kind string, seq uint64, detail string) {
	// Recorded even when the request that raised it is gone.
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 10*time.Second)
	defer cancel()
	var t any
	if terminal != "" {
		t = terminal
	}
	now := c.now()
	again := func(tx pgx.Tx, detail string, seq int64) (bool, error) {
		tag, err := tx.Exec(ctx, `UPDATE alarms SET repeats = repeats + 1, last_at = $5
			WHERE cleared_at IS NULL AND terminal_id IS NOT DISTINCT FROM $1 AND kind = $2 AND seq = $3 AND detail = $4`,
			t, kind, seq, detail, now)
		return tag.RowsAffected() > 0, err
	}
	err := pgx.BeginFunc(ctx, c.pool, func(tx pgx.Tx) error {
		if terminal == "" {
			// One anonymous alarm of a kind at a time, so that the count holds.
			if _, err := tx.Exec(ctx, "SELECT pg_advisory_xact_lock(hashtextextended($1, 0))", "galla anonymous alarm "+kind); err != nil {
				return err
			}
		}
		seq := int64(seq)
		if ok, err := again(tx, detail, seq); ok || err != nil {
			return err
		}
		if terminal == "" {
			var n int
			if err := tx.QueryRow(ctx, `SELECT count(*) FROM alarms WHERE terminal_id IS NULL AND kind = $1 AND raised_at > $2 AND detail <> $3`,
				kind, now.Add(-AnonymousAlarmPeriod), anonymousOverflow).Scan(&n); err != nil {
				return err
			}
			if n >= AnonymousAlarms {
				detail, seq = anonymousOverflow, 0
				if ok, err := again(tx, detail, seq); ok || err != nil {
					return err
				}
			}
		}
		_, err := tx.Exec(ctx, `INSERT INTO alarms (terminal_id, kind, seq, detail, raised_at, last_at) VALUES ($1, $2, $3, $4, $5, $5)`,
			t, kind, seq, detail, now)
		return err
	})
	if err != nil {
		slog.Error("store: an alarm could not be recorded", "terminal", terminal, "kind", kind, "seq", seq, "detail", detail, "err", err)
	}
}
