package store

import (
	"context"
	"sync"

	"galla/store/api"
)

// IngestAndProject is what the server does with a terminal's batch: it
// stores it (Ingest: the same checks, answer and refusals) and catches the
// projections up with it before it returns. The projection runs alongside
// the ingest, on a connection of its own, from the batch in memory: it locks
// the terminal's mark, projects the events past it and waits, uncommitted,
// for the ingest's verdict. It commits only once the ingest has committed
// the batch, and rolls back when the batch is refused, so the projections
// never hold an event the store does not. The database executes the two
// side by side on the machine's cores (BenchmarkIngest: a batch of 1 000
// events stored and projected in about three quarters of the time the two
// take one after the other).
//
// When the projection cannot go alongside (its mark is behind the batch's
// first event, so events before the batch must be read from the store; or
// the terminal holds a claimed credit note, whose check reads the events
// stored), it runs after the ingest, as ProjectBatch. projected is a
// failure of the projection only (logged by the caller): the events are
// stored, and the next batch or read catches the projections up.
//
// The ingest's connection is taken before the projection asks for its own
// and given back as soon as its transaction is over, and nothing the
// ingest's transaction locks is locked by a projection, so a pool short of
// connections makes them wait in turn, never for each other.
func (es *Events) IngestAndProject(ctx context.Context, terminal string, events []api.Event) (resp api.BatchResponse, projected error, err error) {
	conn, err := es.pool.Acquire(ctx)
	if err != nil {
		return api.BatchResponse{}, nil, es.wrap("ingest", err)
	}
	verdict := make(chan bool, 1)
	var once sync.Once
	// The ingest's transaction is over when it settles: its connection goes
	// back to the pool before any alarm or block takes one.
	settle := func(stored bool) {
		once.Do(func() {
			conn.Release()
			verdict <- stored
		})
	}
	type outcome struct {
		committed bool
		err       error
	}
	done := make(chan outcome, 1)
	go func() {
		c, err := es.projections.alongside(ctx, terminal, events, verdict)
		done <- outcome{c, err}
	}()
	resp, err = es.ingest(ctx, conn, terminal, events, settle)
	settle(false) // when ingest returned before its verdict
	out := <-done
	if err != nil {
		return resp, nil, err
	}
	if out.committed || (resp.Stored == 0 && out.err == nil) {
		return resp, out.err, nil
	}
	return resp, es.projections.ProjectBatch(ctx, terminal, events), nil
}

// alongside projects batch (terminal's events, not yet known stored) from
// memory while the ingest stores it, and commits once verdict says the
// ingest committed it (rolls back otherwise). committed says whether it
// committed a projection of the batch: false when it did not go alongside
// (the mark behind the batch's first event, or past its last; a claimed
// credit note; a batch out of sequence, which the ingest refuses), when the
// batch was refused, or on an error.
func (pj *Projections) alongside(ctx context.Context, terminal string, batch []api.Event, verdict <-chan bool) (committed bool, err error) {
	mem, err := memRows(terminal, batch)
	if err != nil || len(mem) == 0 {
		return false, nil // the ingest refuses a batch out of sequence
	}
	first, last := int64(mem[0].seq), int64(mem[len(mem)-1].seq)
	m, err := pj.beginMarked(ctx, terminal)
	if err != nil {
		return false, pj.wrap("project", err)
	}
	defer m.rollback(ctx)
	if m.claimed || m.seq < first-1 || m.seq >= last {
		return false, nil
	}
	n, marked, err := catchUp(ctx, m.tx, pj.vault(), terminal, m.seq, last, mem, true)
	if err != nil {
		return false, pj.wrap("project", err)
	}
	if !<-verdict {
		return false, nil
	}
	if !marked {
		if _, err := m.tx.Exec(ctx, markSQL, terminal, n); err != nil {
			return false, pj.wrap("project", err)
		}
	}
	if err := m.tx.Commit(ctx); err != nil {
		return false, pj.wrap("project", err)
	}
	pj.analyzeAfter(ctx, terminal, m.seq, n)
	return true, nil
}
