package store

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strconv"
	"strings"

	"github.com/jackc/pgx/v5"

	"galla/store/api"
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
	return pj.project(ctx, terminal, nil)
}

// ProjectBatch catches the projections up with terminal's events, as
// ProjectTerminal does, where batch is a batch of terminal's events that
// Events.Ingest has just accepted: the events of it past the mark are
// projected from memory, not read back from events (the ingest compared the
// ones it held already with their stored copies and stored the others as
// they are, so both hold the same JSON). Events before the batch, if the mark
// is behind it, and after it are read from events. Only events up to the
// terminal's last stored sequence are taken from batch.
func (pj *Projections) ProjectBatch(ctx context.Context, terminal string, batch []api.Event) error {
	mem, err := memRows(terminal, batch)
	if err != nil {
		return pj.wrap("project", err)
	}
	return pj.project(ctx, terminal, mem)
}

// memRows are the rows of batch, terminal's events, to project from memory.
func memRows(terminal string, batch []api.Event) ([]row, error) {
	mem := make([]row, 0, len(batch))
	for i, e := range batch {
		if i > 0 && e.Seq != batch[i-1].Seq+1 {
			return nil, fmt.Errorf("the batch of terminal %s does not run in sequence at event %d", terminal, e.Seq)
		}
		mem = append(mem, row{seq: e.Seq, body: bytes.TrimSpace(e.Body)})
	}
	return mem, nil
}

// project catches the projections up with terminal's events, taking those of
// mem (events in sequence without a gap, stored as they are) from memory.
func (pj *Projections) project(ctx context.Context, terminal string, mem []row) error {
	var from, to int64 // the events projected: after from, up to to
	m, err := pj.beginMarked(ctx, terminal)
	if err == nil {
		defer m.rollback(ctx)
		err = func() error {
			for len(mem) > 0 && int64(mem[len(mem)-1].seq) > m.last {
				mem = mem[:len(mem)-1]
			}
			n, marked, err := catchUp(ctx, m.tx, pj.vault(), terminal, m.seq, m.last, mem, true)
			if err != nil || n == m.seq {
				return err
			}
			from, to = m.seq, n
			if m.claimed {
				if err := voidUnbacked(ctx, m.tx, terminal, n); err != nil {
					return err
				}
			}
			if !marked {
				_, err = m.tx.Exec(ctx, markSQL, terminal, n)
			}
			return err
		}()
	}
	if err == nil {
		err = m.tx.Commit(ctx)
	}
	if err == nil {
		pj.analyzeAfter(ctx, terminal, from, to)
	}
	return pj.wrap("project", err)
}

// marked is a projection's transaction holding its terminal's mark locked.
type marked struct {
	tx pgx.Tx
	// seq is the mark (events 1..seq are projected) and last the terminal's
	// last event stored, as this transaction sees them.
	seq, last int64
	// claimed says whether the terminal holds a claimed credit note, which
	// voidUnbacked looks at (almost never).
	claimed bool
}

// rollback rolls the transaction back: nothing once it is committed.
func (m marked) rollback(ctx context.Context) { _ = m.tx.Rollback(ctx) }

// beginMarked begins a projection's transaction on the pool and locks
// terminal's mark (made when missing). The transaction's start, the mark's row
// and its lock take one round trip (pgx.Batch.BeginTx).
func (pj *Projections) beginMarked(ctx context.Context, terminal string) (marked, error) {
	var m marked
	var b pgx.Batch
	b.BeginTx(pgx.TxOptions{})
	b.Queue("INSERT INTO projection_marks (terminal_id) VALUES ($1) ON CONFLICT DO NOTHING", terminal)
	b.Queue(`SELECT m.seq, coalesce((SELECT last_seq FROM terminals WHERE id = $1), 0),
		EXISTS (SELECT 1 FROM credit_note_balances WHERE terminal_id = $1 AND state = 'claimed')
		FROM projection_marks m WHERE m.terminal_id = $1 FOR UPDATE`, terminal).QueryRow(func(r pgx.Row) error {
		return r.Scan(&m.seq, &m.last, &m.claimed)
	})
	br := pj.pool.SendBatch(ctx, &b)
	m.tx = br.Tx()
	err := br.Close()
	if err == nil && m.tx == nil {
		err = errors.New("the projection's transaction did not begin")
	}
	if err != nil && m.tx != nil {
		m.rollback(ctx)
	}
	return m, err
}

// analyzeAfter runs analyzeStale when the events projected (after from, up
// to to) crossed a multiple of analyzeEvery. The projection is done: a
// statistics run that fails leaves the plans as they were, and the next one
// tries again.
func (pj *Projections) analyzeAfter(ctx context.Context, terminal string, from, to int64) {
	if from/analyzeEvery == to/analyzeEvery {
		return
	}
	if err := pj.analyzeStale(ctx); err != nil && ctx.Err() == nil {
		slog.Warn("store: analyze the projections", "terminal", terminal, "err", err)
	}
}

// analyzeEvery is how often, in a terminal's events projected, the
// projections look for tables whose statistics are stale.
const analyzeEvery = 10000

// analyzeStale runs ANALYZE on each projected table (and events) whose
// statistics PostgreSQL's planner reads as stale: never analyzed, or changed
// by more than a fifth of its rows since. Autovacuum does the same, but up to
// a minute late and then only past its own thresholds; a catch-up at
// thousands of events a second grows a table from nothing to millions of
// rows in that time, planned all along as nearly empty. It runs outside the
// projection's transaction (ANALYZE holds its lock until the end of one), at
// most once every analyzeEvery events of a terminal, and each table's
// ANALYZE reads a fixed sample of it. A table never analyzed is analyzed
// whatever its count of changes says: the count reaches the statistics a
// second or more after the writes (each connection sends its own when idle,
// at most once a second), so a fast catch-up's first crossing could read it
// still near nothing.
func (pj *Projections) analyzeStale(ctx context.Context) error {
	rs, err := pj.pool.Query(ctx, `SELECT s.relname FROM pg_stat_user_tables s JOIN pg_class c ON c.oid = s.relid
		WHERE s.schemaname = current_schema() AND s.relname = ANY($1)
		AND (s.n_mod_since_analyze > 1000 + 0.2 * greatest(c.reltuples, 0)
			OR c.reltuples < 0 AND s.last_analyze IS NULL AND s.last_autoanalyze IS NULL)`, append([]string{"events"}, projectedTables...))
	if err != nil {
		return err
	}
	stale, err := pgx.CollectRows(rs, pgx.RowTo[string])
	if err != nil {
		return err
	}
	for _, t := range stale {
		analyze := "ANALYZE " + pgx.Identifier{t}.Sanitize()
		if t != "events" {
			if _, err := pj.pool.Exec(ctx, analyze); err != nil {
				return err
			}
			continue
		}
		// The events are read by their key alone (terminal_id, seq), whose
		// estimates a small sample gives as well as the default's 30 000
		// rows: on 30 000 events of 500 bytes the default took 1.7–2.5 s of
		// a loaded machine, this one 150–220 ms.
		err := pgx.BeginFunc(ctx, pj.pool, func(tx pgx.Tx) error {
			if _, err := tx.Exec(ctx, "SET LOCAL default_statistics_target = "+strconv.Itoa(eventsStatisticsTarget)); err != nil {
				return err
			}
			_, err := tx.Exec(ctx, analyze)
			return err
		})
		if err != nil {
			return err
		}
	}
	return nil
}

// eventsStatisticsTarget is the statistics target analyzeStale samples events
// with: 300 rows a unit, 3 000 rows.
const eventsStatisticsTarget = 10

// markSQL moves a terminal's mark to the last event projected.
const markSQL = "UPDATE projection_marks SET seq = $2 WHERE terminal_id = $1"

// catchUp projects terminal's events after seq, up to last (the terminal's
// last stored), and returns the last one projected. The events of mem (in
// sequence without a gap, stored) are taken from it, the others read from
// events. With mark, the terminal's mark is moved to last with the writes of
// the events that reach it, in their round trip, and marked says so (the
// mark is left to the caller otherwise: events missing, or an event
// skipped with an alarm). The mark moved before the claims are voided
// (voidUnbacked) is the same transaction's end as after.
func catchUp(ctx context.Context, tx pgx.Tx, v *vault, terminal string, seq, last int64, mem []row, mark bool) (_ int64, marked bool, _ error) {
	const chunk = 2000
	for seq < last {
		var rows []row
		if len(mem) > 0 && int64(mem[0].seq) <= seq+1 && int64(mem[len(mem)-1].seq) > seq {
			i := int(seq + 1 - int64(mem[0].seq))
			rows = mem[i:min(i+chunk, len(mem))]
		} else {
			n := int(min(int64(chunk), last-seq))
			if len(mem) > 0 && int64(mem[0].seq) > seq+1 {
				n = int(min(int64(n), int64(mem[0].seq)-seq-1)) // up to the batch's first
			}
			var err error
			if rows, err = readEvents(ctx, tx, v, terminal, seq, n); err != nil || len(rows) == 0 {
				return seq, false, err
			}
		}
		end := int64(rows[len(rows)-1].seq)
		markTo := int64(0)
		if mark && end == last {
			markTo = last
		}
		var err error
		if marked, err = projectSafely(ctx, tx, v, terminal, rows, markTo); err != nil {
			return seq, false, err
		}
		seq = end
	}
	return seq, marked, nil
}

// AlarmProjection is an event the projections could not take: it stays in
// events, the rest of the terminal's events are projected, and a manager looks.
const AlarmProjection = "projection"

// projectSafely projects rows inside a savepoint. When the database refuses
// them (an event whose values it cannot hold), they are projected one by one
// and each event refused is skipped with an alarm, so that one bad event does
// not stop the pages of the whole store.
//
// With markTo, the terminal's mark is moved to it with the rows' writes
// (marked) when they are all projected at once; one by one, it is left to
// the caller.
func projectSafely(ctx context.Context, tx pgx.Tx, v *vault, terminal string, rows []row, markTo int64) (marked bool, _ error) {
	try := func(rs []row, markTo int64) error {
		return projectPart(ctx, tx, v, terminal, rs, subChunk, true, markTo)
	}
	err := try(rows, markTo)
	if err == nil || unavailable(err) || ctx.Err() != nil {
		return err == nil && markTo > 0, err
	}
	for _, r := range rows {
		err := try([]row{r}, 0)
		if err == nil {
			continue
		}
		if unavailable(err) || ctx.Err() != nil {
			return false, err
		}
		if _, aerr := tx.Exec(ctx, "INSERT INTO alarms (terminal_id, kind, seq, detail) VALUES ($1, $2, $3, $4)",
			terminal, AlarmProjection, int64(r.seq), fmt.Sprintf("event %d could not be projected (%v): the pages leave it out; it is kept in events", r.seq, err)); aerr != nil {
			return false, aerr
		}
	}
	return false, nil
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
			n, _, err := catchUp(ctx, tx, pj.vault(), t.id, 0, t.last, nil, false)
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

// readEvents reads up to n of terminal's events after seq, their bodies
// opened with v as they came.
func readEvents(ctx context.Context, tx pgx.Tx, v *vault, terminal string, after int64, n int) ([]row, error) {
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
		b, err := v.open([]byte(body))
		if err != nil {
			return nil, fmt.Errorf("event %d of terminal %s: %w", seq, terminal, err)
		}
		out = append(out, row{seq: uint64(seq), body: b})
	}
	return out, rs.Err()
}
