package store

import (
	"bytes"
	"context"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"reflect"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"galla/store/api"
)

// Events takes the terminals' journal events (DESIGN.md section 11): each
// batch stored exactly once on (terminal, seq), its chain checked, a fork
// blocking its terminal; and it tells a terminal what the store holds of it.
type Events struct{ *dbCore }

// row is one event of a batch, checked and decoded for the database.
type row struct {
	seq        uint64
	hash, prev []byte
	kind       string
	day        any // time.Time, or nil when the event names no day
	body       []byte
	// stored is body as the events table keeps it: the body itself, or,
	// for one that names a buyer, the body sealed (vault.seal).
	stored []byte
}

// Ingest stores a batch of terminal's events in one transaction (DESIGN.md
// section 11). Events already held with the same content are counted as
// duplicates and stored no second time, so resending is harmless. The answer
// says what the server holds afterwards. A refusal is an *api.Error and stores
// nothing of the batch:
//
//   - malformed: the batch breaks a rule of api.Event (sequence order without a
//     gap, 64-hex hashes, each event's prev_hash the hash of the one before, a
//     JSON object as body that agrees with the fields beside it);
//   - gap: the batch starts past the next sequence expected (Expected says which);
//   - fork: an event differs from the one held under its sequence, or the first
//     new event does not continue the stored chain. An alarm is recorded and the
//     terminal is blocked until a manager clears it (Access.Unblock);
//   - blocked, unauthorized (an unknown terminal), unavailable (the database).
func (es *Events) Ingest(ctx context.Context, terminal string, events []api.Event) (api.BatchResponse, error) {
	return es.ingest(ctx, es.pool, terminal, events, func(bool) {})
}

// batchSender is a pool or one of its connections: what the ingest's
// transaction begins on.
type batchSender interface {
	SendBatch(ctx context.Context, b *pgx.Batch) pgx.BatchResults
}

// ingest is Ingest, its transaction begun on q. settled is called once, as
// soon as the batch is known stored (true: committed, every event of it held)
// or not (false), before any alarm or block is recorded; q is not used after
// it.
func (es *Events) ingest(ctx context.Context, q batchSender, terminal string, events []api.Event, settled func(stored bool)) (api.BatchResponse, error) {
	rows, err := checkBatch(events)
	if err != nil {
		settled(false)
		es.alarm(ctx, terminal, AlarmMalformed, 0, err.Error())
		return api.BatchResponse{}, malformed(err)
	}
	// The buyers' details are sealed before the terminal's row is locked: a
	// body naming nobody is stored as it came.
	v := es.vault()
	for i := range rows {
		if rows[i].stored, err = v.seal(rows[i].body); err != nil {
			settled(false)
			return api.BatchResponse{}, es.wrap("ingest", err)
		}
	}
	var resp api.BatchResponse
	var fork *forkError
	err = es.inLockedTx(ctx, q, terminal, func(tx pgx.Tx, t lockedTerminal) error {
		if t.state == StateBlocked {
			return blocked(terminal, t.reason, t.held)
		}
		held, lastHash := t.held, t.lastHash
		resp.Held, resp.HeldHash = held, hex.EncodeToString(lastHash)
		if len(rows) == 0 {
			return nil
		}
		if first := rows[0].seq; first > held+1 {
			return &api.Error{HTTPStatus: http.StatusConflict, Code: api.CodeGap, Expected: held + 1, Held: held,
				Message: fmt.Sprintf("the batch starts at event %d, but the store holds terminal %s's events up to %d: send from %d", first, terminal, held, held+1)}
		}
		// The events held already must be the same.
		var known []row
		for len(rows) > 0 && rows[0].seq <= held {
			known, rows = append(known, rows[0]), rows[1:]
		}
		if len(known) > 0 {
			if fork, err = compareHeld(ctx, tx, v, terminal, known); err != nil || fork != nil {
				return err
			}
			resp.Duplicates = len(known)
		}
		if len(rows) == 0 {
			return nil
		}
		// The first new event continues the stored chain.
		if held > 0 && !bytes.Equal(rows[0].prev, lastHash) {
			fork = &forkError{seq: held, detail: fmt.Sprintf("event %d names %x as the event before it, but the store holds event %d with hash %x: the terminal's journal no longer continues what the store holds (a journal restored or made anew)", rows[0].seq, rows[0].prev, held, lastHash)}
			return nil
		}
		if _, err := tx.CopyFrom(ctx, pgx.Identifier{"events"}, []string{"terminal_id", "seq", "hash", "prev_hash", "kind", "day", "body"},
			pgx.CopyFromSlice(len(rows), func(i int) ([]any, error) {
				r := rows[i]
				return []any{terminal, int64(r.seq), r.hash, r.prev, r.kind, r.day, r.stored}, nil
			})); err != nil {
			return copyError(err, rows[0].seq)
		}
		// The bodies' check and the chain's end, in one round trip: the end is
		// rolled back with the batch when a body is refused.
		end := rows[len(rows)-1]
		var b pgx.Batch
		bad := checkBodies(&b, terminal, rows[0].seq, end.seq)
		b.Queue("UPDATE terminals SET last_seq = $2, last_hash = $3, last_seen_at = $4 WHERE id = $1",
			terminal, int64(end.seq), end.hash, es.now())
		if err := tx.SendBatch(ctx, &b).Close(); err != nil {
			return err
		}
		if *bad != 0 {
			return malformed(fmt.Errorf("event %d: the body's seq, hash, prev_hash, kind or day differ from the event's", *bad))
		}
		resp.Held, resp.HeldHash, resp.Stored = end.seq, hex.EncodeToString(end.hash), len(rows)
		return nil
	})
	settled(err == nil && fork == nil)
	if fork != nil && err == nil {
		return api.BatchResponse{}, es.block(ctx, terminal, fork)
	}
	if err != nil {
		var ae *api.Error
		if errors.As(err, &ae) {
			if ae.Code == api.CodeMalformed {
				es.alarm(ctx, terminal, AlarmMalformed, 0, strings.TrimPrefix(ae.Message, "the batch was refused, nothing of it stored: "))
			}
			return api.BatchResponse{}, ae
		}
		return api.BatchResponse{}, es.wrap("ingest", err)
	}
	return resp, nil
}

// blocked is the refusal of a blocked terminal's request.
func blocked(terminal, reason string, held uint64) *api.Error {
	return &api.Error{HTTPStatus: http.StatusForbidden, Code: api.CodeBlocked, Held: held, Reason: reason,
		Message: fmt.Sprintf("the store refuses terminal %s's events until a manager looks: %s", terminal, reason)}
}

// forkError is a fork found inside the ingest's transaction.
type forkError struct {
	seq    uint64
	detail string
}

// block records the fork's alarm and blocks the terminal, in one transaction
// of its own (the batch's was rolled back).
func (es *Events) block(ctx context.Context, terminal string, f *forkError) error {
	reason := fmt.Sprintf("its journal forked at event %d", f.seq)
	// Recorded even when the request that found it is gone.
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 10*time.Second)
	defer cancel()
	err := pgx.BeginFunc(ctx, es.pool, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, "UPDATE terminals SET state = 'blocked', blocked_reason = $2 WHERE id = $1", terminal, reason); err != nil {
			return err
		}
		_, err := tx.Exec(ctx, "INSERT INTO alarms (terminal_id, kind, seq, detail, raised_at, last_at) VALUES ($1, $2, $3, $4, $5, $5)",
			terminal, AlarmFork, int64(f.seq), f.detail, es.now())
		return err
	})
	if err != nil {
		return es.wrap("ingest: record a fork", err)
	}
	return &api.Error{HTTPStatus: http.StatusConflict, Code: api.CodeFork, Held: f.seq, Reason: reason,
		Message: fmt.Sprintf("the store holds a different event %d from terminal %s: an alarm is recorded and the terminal's events are refused until a manager looks (%s)", f.seq, terminal, f.detail)}
}

// compareHeld compares events with the ones held under their sequences (their
// bodies opened with v): a difference is a fork.
func compareHeld(ctx context.Context, tx pgx.Tx, v *vault, terminal string, known []row) (*forkError, error) {
	rs, err := tx.Query(ctx, `SELECT seq, hash, prev_hash, kind, body::text FROM events
		WHERE terminal_id = $1 AND seq BETWEEN $2 AND $3 ORDER BY seq`, terminal, int64(known[0].seq), int64(known[len(known)-1].seq))
	if err != nil {
		return nil, err
	}
	defer rs.Close()
	i := 0
	for rs.Next() {
		var seq int64
		var hash, prev []byte
		var kind, body string
		if err := rs.Scan(&seq, &hash, &prev, &kind, &body); err != nil {
			return nil, err
		}
		if i >= len(known) || uint64(seq) != known[i].seq {
			return nil, fmt.Errorf("event %d of terminal %s is missing below its held sequence", known[min(i, len(known)-1)].seq, terminal)
		}
		k := known[i]
		plain, err := v.open([]byte(body))
		if err != nil {
			return nil, fmt.Errorf("event %d of terminal %s: %w", k.seq, terminal, err)
		}
		switch {
		case !bytes.Equal(hash, k.hash):
			return &forkError{seq: k.seq, detail: fmt.Sprintf("event %d arrived with hash %x, the store holds %x", k.seq, k.hash, hash)}, nil
		case !bytes.Equal(prev, k.prev) || kind != k.kind || !sameJSON(plain, k.body):
			return &forkError{seq: k.seq, detail: fmt.Sprintf("event %d arrived with the hash held but a different content (an edited event)", k.seq)}, nil
		}
		i++
	}
	if err := rs.Err(); err != nil {
		return nil, err
	}
	if i != len(known) {
		return nil, fmt.Errorf("events %d to %d of terminal %s are missing below its held sequence", known[i].seq, known[len(known)-1].seq, terminal)
	}
	return nil, nil
}

// sameJSON reports whether a and b hold the same JSON value (jsonb keeps
// neither the order of keys nor the spaces).
func sameJSON(a, b []byte) bool {
	var x, y any
	if json.Unmarshal(a, &x) != nil || json.Unmarshal(b, &y) != nil {
		return false
	}
	return reflect.DeepEqual(x, y)
}

// checkBatch checks a batch against the rules of api.Event and decodes it.
func checkBatch(events []api.Event) ([]row, error) {
	if len(events) > api.MaxBatch {
		return nil, fmt.Errorf("it holds %d events, at most %d may go in one", len(events), api.MaxBatch)
	}
	rows := make([]row, len(events))
	for i, e := range events {
		r := &rows[i]
		switch {
		case e.Seq == 0:
			return nil, fmt.Errorf("event %d of the batch has no sequence number", i+1)
		case i > 0 && e.Seq != events[i-1].Seq+1:
			return nil, fmt.Errorf("event %d follows event %d: a batch runs in sequence order without a gap", e.Seq, events[i-1].Seq)
		case e.Seq > 1<<62:
			return nil, fmt.Errorf("event %d: the sequence number is out of range", e.Seq)
		case e.Kind == "" || len(e.Kind) > 64:
			return nil, fmt.Errorf("event %d has no kind", e.Seq)
		}
		var err error
		if r.hash, err = hash32(e.Hash); err != nil {
			return nil, fmt.Errorf("event %d: the hash is %w", e.Seq, err)
		}
		if r.prev, err = hash32(e.PrevHash); err != nil {
			return nil, fmt.Errorf("event %d: prev_hash is %w", e.Seq, err)
		}
		if i > 0 && !bytes.Equal(r.prev, rows[i-1].hash) {
			return nil, fmt.Errorf("event %d does not name event %d's hash as the one before it: the batch's chain is broken", e.Seq, events[i-1].Seq)
		}
		if e.Day != "" {
			d, err := time.Parse("2006-01-02", e.Day)
			if err != nil {
				return nil, fmt.Errorf("event %d: the day %q is not YYYY-MM-DD", e.Seq, e.Day)
			}
			r.day = d
		}
		body := bytes.TrimSpace(e.Body)
		if len(body) < 2 || body[0] != '{' || body[len(body)-1] != '}' {
			return nil, fmt.Errorf("event %d: the body is not a JSON object", e.Seq)
		}
		// PostgreSQL parses the body as jsonb, and checkBodies compares its
		// fields with these, in the batch's transaction.
		r.seq, r.kind, r.body = e.Seq, e.Kind, body
	}
	return rows, nil
}

// checkBodies queues on b the check, in PostgreSQL, that each body stored just
// now (terminal's events from seq first to last) is a JSON object whose seq,
// hash, prev_hash, kind and day, where it has them, are the event's (day must
// be there when the event names one). jsonb reads them without a second
// parse, which decoding in Go would cost. A hash is compared as written
// first and lowered only when that differs: lower() is most of the query's
// time, and terminals write lowercase hex. After b is sent, the value
// returned holds the first event that fails, or 0.
func checkBodies(b *pgx.Batch, terminal string, first, last uint64) *int64 {
	bad := new(int64)
	b.Queue(`SELECT seq FROM events WHERE terminal_id = $1 AND seq BETWEEN $2 AND $3 AND NOT (
			jsonb_typeof(body) = 'object'
			AND coalesce(body->>'seq' = seq::text, NOT body ? 'seq')
			AND coalesce(body->>'hash' = encode(hash, 'hex') OR lower(body->>'hash') = encode(hash, 'hex'), NOT body ? 'hash')
			AND coalesce(body->>'prev_hash' = encode(prev_hash, 'hex') OR lower(body->>'prev_hash') = encode(prev_hash, 'hex'), NOT body ? 'prev_hash')
			AND coalesce(body->>'kind' = kind, NOT body ? 'kind')
			AND coalesce(body->>'day', '') = coalesce(to_char(day, 'YYYY-MM-DD'), ''))
		ORDER BY seq LIMIT 1`, terminal, int64(first), int64(last)).QueryRow(func(r pgx.Row) error {
		if err := r.Scan(bad); !errors.Is(err, pgx.ErrNoRows) {
			return err
		}
		return nil
	})
	return bad
}

// lockedTerminal is a terminal's row as the ingest holds it locked.
type lockedTerminal struct {
	state, reason string
	held          uint64
	lastHash      []byte
}

// inLockedTx runs f in a transaction that holds terminal's row locked (FOR
// UPDATE), and commits when f returns nil. The transaction's start and the
// lock take one round trip (pgx.Batch.BeginTx). A terminal not enrolled is
// refused as unauthorized.
func (es *Events) inLockedTx(ctx context.Context, q batchSender, terminal string, f func(pgx.Tx, lockedTerminal) error) error {
	var t lockedTerminal
	var b pgx.Batch
	b.BeginTx(pgx.TxOptions{})
	b.Queue(`SELECT state, coalesce(blocked_reason, ''), last_seq, last_hash
		FROM terminals WHERE id = $1 AND enrolled_at IS NOT NULL FOR UPDATE`, terminal).QueryRow(func(r pgx.Row) error {
		var last int64
		err := r.Scan(&t.state, &t.reason, &last, &t.lastHash)
		if errors.Is(err, pgx.ErrNoRows) {
			return &api.Error{HTTPStatus: http.StatusUnauthorized, Code: api.CodeUnauthorized, Message: fmt.Sprintf("terminal %s is not enrolled at this store", terminal)}
		}
		t.held = uint64(last)
		return err
	})
	br := q.SendBatch(ctx, &b)
	tx := br.Tx()
	defer func() { _ = tx.Rollback(ctx) }() // nothing once committed
	if err := br.Close(); err != nil {
		return err
	}
	if err := f(tx, t); err != nil {
		return err
	}
	return tx.Commit(ctx)
}

// malformed is the refusal of a batch that breaks a rule of api.Event.
func malformed(err error) *api.Error {
	return &api.Error{HTTPStatus: http.StatusBadRequest, Code: api.CodeMalformed, Message: "the batch was refused, nothing of it stored: " + err.Error()}
}

// copyLine finds the line of a COPY error's context ("COPY events, line 3, ...").
var copyLine = regexp.MustCompile(`COPY events, line (\d+)`)

// copyError turns PostgreSQL's refusal of a value in the COPY (class 22, data
// exception: a body that is not JSON) into a malformed batch naming the event.
func copyError(err error, first uint64) error {
	var pe *pgconn.PgError
	if !errors.As(err, &pe) || !strings.HasPrefix(pe.Code, "22") {
		return err
	}
	what := "an event"
	if m := copyLine.FindStringSubmatch(pe.Where); m != nil {
		if n, err := strconv.ParseUint(m[1], 10, 64); err == nil && n > 0 {
			what = fmt.Sprintf("event %d", first+n-1)
		}
	}
	return malformed(fmt.Errorf("%s: the body is not valid JSON (%s)", what, pe.Message))
}

// hash32 decodes 64 hex digits.
func hash32(s string) ([]byte, error) {
	b, err := hex.DecodeString(s)
	if err != nil || len(b) != 32 {
		return nil, errors.New("not 64 hex digits")
	}
	return b, nil
}

// Status is the store's view of terminal, as the terminal asks for it.
func (es *Events) Status(ctx context.Context, terminal string) (api.Status, error) {
	t, err := es.access.Terminal(ctx, terminal)
	if errors.Is(err, pgx.ErrNoRows) {
		return api.Status{}, &api.Error{HTTPStatus: http.StatusUnauthorized, Code: api.CodeUnauthorized, Message: fmt.Sprintf("terminal %s is not enrolled at this store", terminal)}
	}
	if err != nil {
		return api.Status{}, err
	}
	st := api.Status{TerminalID: t.ID, Held: t.Held, Blocked: t.State == StateBlocked, Reason: t.BlockedReason}
	if t.Held > 0 {
		st.HeldHash = hex.EncodeToString(t.HeldHash[:])
	}
	return st, nil
}
