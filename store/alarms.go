package store

import (
	"context"
	"log/slog"
	"time"
)

// The kinds of alarm.
const (
	AlarmFork         = "fork"         // a different event under a sequence held: the terminal is blocked
	AlarmUnauthorized = "unauthorized" // an unknown terminal, a wrong credential, an edited request
	AlarmReplayed     = "replayed"     // a request seen before or dated too far from now
	AlarmBadCode      = "bad_code"     // an enrolment code refused
	AlarmMalformed    = "malformed"    // a batch that cannot be read, from an authenticated terminal
)

// Alarm is something a manager must look at.
type Alarm struct {
	ID        int64
	Terminal  string // "" when the request named no known terminal
	Kind      string
	Seq       uint64 // the sequence concerned, 0 when none
	Detail    string
	RaisedAt  time.Time
	Repeats   int       // how many times it was raised while open (1: once)
	LastAt    time.Time // when it was last raised
	ClearedAt time.Time // zero while open
	ClearedBy string
}

// alarm records an alarm. It is recorded outside the refused request's
// transaction (that one is rolled back); when the database cannot take it
// either, it goes to the log. The same alarm (terminal, kind, sequence and
// detail) raised again while it is open is counted in its row, so that a
// flood of bad requests adds no rows.
func (db *DB) alarm(ctx context.Context, terminal, kind string, seq uint64, detail string) {
	// Recorded even when the request that raised it is gone.
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 10*time.Second)
	defer cancel()
	var t any
	if terminal != "" {
		t = terminal
	}
	if _, err := db.pool.Exec(ctx, `WITH again AS (
			UPDATE alarms SET repeats = repeats + 1, last_at = $5
			WHERE cleared_at IS NULL AND terminal_id IS NOT DISTINCT FROM $1 AND kind = $2 AND seq = $3 AND detail = $4
			RETURNING id)
		INSERT INTO alarms (terminal_id, kind, seq, detail, raised_at, last_at)
		SELECT $1, $2, $3, $4, $5, $5 WHERE NOT EXISTS (SELECT 1 FROM again)`,
		t, kind, int64(seq), detail, db.Now()); err != nil {
		slog.Error("store: an alarm could not be recorded", "terminal", terminal, "kind", kind, "seq", seq, "detail", detail, "err", err)
	}
}

// Alarms lists the alarms, newest first; open only when openOnly.
func (db *DB) Alarms(ctx context.Context, openOnly bool) ([]Alarm, error) {
	rows, err := db.pool.Query(ctx, `SELECT id, coalesce(terminal_id, ''), kind, coalesce(seq, 0), detail, raised_at,
		repeats, last_at, coalesce(cleared_at, 'epoch'), coalesce(cleared_by, '') FROM alarms
		WHERE NOT $1 OR cleared_at IS NULL ORDER BY id DESC`, openOnly)
	if err != nil {
		return nil, db.wrap("alarms", err)
	}
	defer rows.Close()
	var out []Alarm
	for rows.Next() {
		var a Alarm
		var seq int64
		if err := rows.Scan(&a.ID, &a.Terminal, &a.Kind, &seq, &a.Detail, &a.RaisedAt, &a.Repeats, &a.LastAt, &a.ClearedAt, &a.ClearedBy); err != nil {
			return nil, db.wrap("alarms", err)
		}
		a.Seq = uint64(seq)
		if a.ClearedAt.Equal(time.Unix(0, 0)) {
			a.ClearedAt = time.Time{}
		}
		out = append(out, a)
	}
	if err := rows.Err(); err != nil {
		return nil, db.wrap("alarms", err)
	}
	return out, nil
}
