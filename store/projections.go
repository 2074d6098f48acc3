package store

import (
	"context"
	"fmt"
	"strings"

	"github.com/jackc/pgx/v5"
)

// Projections keeps the tables derived from the events (ADR 0006): caught up
// terminal by terminal after each batch or read, or rebuilt from every event.
type Projections struct{ *dbCore }

// Project catches the projections up with every event stored: for each
// terminal whose events go past its mark, in a transaction of its own that
// locks the mark (two servers catching up the same terminal take turns). It is
// cheap when nothing is new (one query). The ingest does not wait for it: a
// batch is stored first, projected after.
func (pj *Projections) Project(ctx context.Context) error {
	rs, err := pj.pool.Query(ctx, `SELECT t.id FROM terminals t LEFT JOIN projection_marks m ON m.terminal_id = t.id
		WHERE t.last_seq > coalesce(m.seq, 0) ORDER BY t.id`)
	if err != nil {
		return pj.wrap("project", err)
	}
	behind, err := pgx.CollectRows(rs, pgx.RowTo[string])
	if err != nil {
		return pj.wrap("project", err)
	}
	for _, t := range behind {
		if err := pj.ProjectTerminal(ctx, t); err != nil {
			return err
		}
	}
	return nil
}

// ProjectTerminal catches the projections up with terminal's events.
func (pj *Projections) ProjectTerminal(ctx context.Context, terminal string) error {
	err := pgx.BeginFunc(ctx, pj.pool, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, "INSERT INTO projection_marks (terminal_id) VALUES ($1) ON CONFLICT DO NOTHING", terminal); err != nil {
			return err
		}
		var mark int64
		if err := tx.QueryRow(ctx, "SELECT seq FROM projection_marks WHERE terminal_id = $1 FOR UPDATE", terminal).Scan(&mark); err != nil {
			return err
		}
		n, err := catchUp(ctx, tx, terminal, mark)
		if err != nil || n == mark {
			return err
		}
		if err := voidUnbacked(ctx, tx, terminal, n); err != nil {
			return err
		}
		_, err = tx.Exec(ctx, "UPDATE projection_marks SET seq = $2 WHERE terminal_id = $1", terminal, n)
		return err
	})
	return pj.wrap("project", err)
}

// catchUp projects terminal's events after seq and returns the last one.
func catchUp(ctx context.Context, tx pgx.Tx, terminal string, seq int64) (int64, error) {
	const chunk = 2000
	for {
		rows, err := readEvents(ctx, tx, terminal, seq, chunk)
		if err != nil || len(rows) == 0 {
			return seq, err
		}
		if err := projectSafely(ctx, tx, terminal, rows); err != nil {
			return seq, err
		}
		seq = int64(rows[len(rows)-1].seq)
	}
}

// AlarmProjection is an event the projections could not take: it stays in
// events, the rest of the terminal's events are projected, and a manager looks.
const AlarmProjection = "projection"

// projectSafely projects rows inside a savepoint. When the database refuses
// them (an event whose values it cannot hold), they are projected one by one
// and each event refused is skipped with an alarm, so that one bad event does
// not stop the pages of the whole store.
func projectSafely(ctx context.Context, tx pgx.Tx, terminal string, rows []row) error {
	try := func(rs []row) error {
		sp, err := tx.Begin(ctx)
		if err != nil {
			return err
		}
		if err := projectRows(ctx, sp, terminal, rs); err != nil {
			_ = sp.Rollback(ctx)
			return err
		}
		return sp.Commit(ctx)
	}
	err := try(rows)
	if err == nil || unavailable(err) || ctx.Err() != nil {
		return err
	}
	for _, r := range rows {
		err := try([]row{r})
		if err == nil {
			continue
		}
		if unavailable(err) || ctx.Err() != nil {
			return err
		}
		if _, aerr := tx.Exec(ctx, "INSERT INTO alarms (terminal_id, kind, seq, detail) VALUES ($1, $2, $3, $4)",
			terminal, AlarmProjection, int64(r.seq), fmt.Sprintf("event %d could not be projected (%v): the pages leave it out; it is kept in events", r.seq, err)); aerr != nil {
			return aerr
		}
	}
	return nil
}

// RebuildStats says what Rebuild replayed.
type RebuildStats struct {
	Terminals int
	Events    int64
	Orders    int64
}

// Rebuild empties the projections and replays every stored event into them,
// terminal by terminal in sequence order, in one transaction: a failure leaves
// the projections as they were. Catching up waits for it (it locks the marks).
func (pj *Projections) Rebuild(ctx context.Context) (RebuildStats, error) {
	var st RebuildStats
	err := pgx.BeginFunc(ctx, pj.pool, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, "LOCK TABLE projection_marks IN ACCESS EXCLUSIVE MODE"); err != nil {
			return err
		}
		if _, err := tx.Exec(ctx, "TRUNCATE projection_marks, "+strings.Join(projectedTables, ", ")); err != nil {
			return err
		}
		rs, err := tx.Query(ctx, "SELECT id, last_seq FROM terminals WHERE last_seq > 0 ORDER BY id")
		if err != nil {
			return err
		}
		type term struct {
			id   string
			last int64
		}
		terms, err := pgx.CollectRows(rs, func(r pgx.CollectableRow) (term, error) {
			var t term
			err := r.Scan(&t.id, &t.last)
			return t, err
		})
		if err != nil {
			return err
		}
		for _, t := range terms {
			n, err := catchUp(ctx, tx, t.id, 0)
			if err != nil {
				return err
			}
			if err := voidUnbacked(ctx, tx, t.id, n); err != nil {
				return err
			}
			if _, err := tx.Exec(ctx, "INSERT INTO projection_marks (terminal_id, seq) VALUES ($1, $2)", t.id, n); err != nil {
				return err
			}
			st.Terminals++
			st.Events += n
		}
		return tx.QueryRow(ctx, "SELECT count(*) FROM orders").Scan(&st.Orders)
	})
	if err != nil {
		return RebuildStats{}, pj.wrap("rebuild", err)
	}
	return st, nil
}

// readEvents reads up to n of terminal's events after seq.
func readEvents(ctx context.Context, tx pgx.Tx, terminal string, after int64, n int) ([]row, error) {
	rs, err := tx.Query(ctx, "SELECT seq, body::text FROM events WHERE terminal_id = $1 AND seq > $2 ORDER BY seq LIMIT $3", terminal, after, n)
	if err != nil {
		return nil, err
	}
	defer rs.Close()
	var out []row
	for rs.Next() {
		var seq int64
		var body string
		if err := rs.Scan(&seq, &body); err != nil {
			return nil, err
		}
		out = append(out, row{seq: uint64(seq), body: []byte(body)})
	}
	return out, rs.Err()
}
