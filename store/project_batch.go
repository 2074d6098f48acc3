package store

import (
	"context"
	"errors"
	"slices"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"galla/pos"
)

// pipeTx is the projector's transaction: its writes (Exec) are queued and sent
// together in one round trip (a pgx.Batch, pipelined), before any read and at
// the end of the projection, or after each part of a long run without
// waiting for them (sendAsync). Reads therefore see every write queued before
// them, as they would one by one. A write the database refuses fails the send,
// which projectSafely takes as the failure of the events it projected (and
// then projects them one by one).
//
// The projection of a batch of a thousand events used to make a round trip or
// more per event (read the order, delete and insert its lines, insert its
// payment, its document, upsert the order); pipelined, it makes a few.
type pipeTx struct {
	pgx.Tx
	batch pgx.Batch
	args  pgx.ExtendedQueryBuilder
	// pending are the results of writes sent by sendAsync and not yet read:
	// the database executes them while the projector goes on in Go. Every
	// other use of the connection reads them first (wait).
	pending pgx.BatchResults
	sds     map[string]*pgconn.StatementDescription // the statements Exec prepared
	sent    bool                                    // whether any write was sent
	// restore gives the connection back its own array codecs, once queue
	// has made it send binArrays (project_arrays.go); nil before.
	restore func()
	// size is about the bytes the writes queued take on the wire (their
	// arrays), for the connection's write buffer to be made that large
	// once (room) instead of growing and being copied again along the send.
	size int
}

// maxQueued bounds the writes held before they are sent.
const maxQueued = 2000

// Exec queues a write; the database's refusal of it, if any, comes with the
// send. Its arguments are encoded first (the statement is prepared once per
// connection): a value its column's type cannot take (a quantity beyond int4)
// is refused here, as a single Exec refuses it, and not in the middle of a
// pipeline, where pgx would have to close the connection.
func (t *pipeTx) Exec(ctx context.Context, sql string, args ...any) (pgconn.CommandTag, error) {
	conn := t.Tx.Conn()
	sd := t.sds[sql]
	if sd == nil {
		// Prepare uses the connection: the writes sent before are read first.
		if err := t.wait(); err != nil {
			return pgconn.CommandTag{}, err
		}
		var err error
		if sd, err = conn.Prepare(ctx, sql, sql); err != nil {
			return pgconn.CommandTag{}, err
		}
		if t.sds == nil {
			t.sds = map[string]*pgconn.StatementDescription{}
		}
		t.sds[sql] = sd
	}
	if err := t.args.Build(conn.TypeMap(), sd, args); err != nil {
		return pgconn.CommandTag{}, err
	}
	t.batch.Queue(sql, args...)
	if t.batch.Len() >= maxQueued {
		return pgconn.CommandTag{}, t.send(ctx)
	}
	return pgconn.CommandTag{}, nil
}

// queue queues a write without encoding its arguments first, for the
// projections' set-based writes (project_sets.go), whose arrays are most of
// the projector's encoding: the caller makes sure every value fits its column's
// type (Go strings, int64 into bigint, int32 into int, pgtype dates and
// times), so that their encoding cannot fail inside the pipeline. Its
// arrays ([]string, []int64, []int32, []pgtype.Date, []pgtype.Timestamptz)
// are encoded here, once, as binArrays: each must go to a parameter of its
// own array type (text[], int8[], int4[], date[], timestamptz[]), which
// PostgreSQL checks.
func (t *pipeTx) queue(ctx context.Context, sql string, args ...any) (pgconn.CommandTag, error) {
	if t.restore == nil {
		t.restore = sendsBinArrays(t.Tx.Conn().TypeMap())
	}
	for i, a := range args {
		args[i] = binArrayOf(a)
	}
	t.size += leadArrays(args)
	t.batch.Queue(sql, args...)
	if t.batch.Len() >= maxQueued {
		return pgconn.CommandTag{}, t.send(ctx)
	}
	return pgconn.CommandTag{}, nil
}

// take returns the writes queued, as a batch of their own, and empties the
// queue: pgx reads the batch sent until its results are closed, so the queue
// filled again meanwhile must not be that batch.
func (t *pipeTx) take() *pgx.Batch {
	b := &pgx.Batch{QueuedQueries: t.batch.QueuedQueries}
	t.room(t.size + 128*len(b.QueuedQueries))
	t.batch, t.sent, t.size = pgx.Batch{}, true, 0
	return b
}

// room makes the connection's write buffer (pgproto3.Frontend's, which
// keeps 1 kB between sends) hold n bytes more before a send: the whole
// pipeline is written into it before it goes out, and without it the buffer
// grew by doubling and was copied at each step, about 1.8 MB a batch of
// 1 000 events. Only when the connection is idle (every result read), as
// it is before each send of pipeTx.
func (t *pipeTx) room(n int) {
	if n > 1024 {
		t.Tx.Conn().PgConn().Frontend().Send(writeRoom(n))
	}
}

// writeRoom is a message of no bytes whose encoding makes room for its
// number of bytes in the buffer it is appended to.
type writeRoom int

func (writeRoom) Frontend()           {}
func (writeRoom) Decode([]byte) error { return errors.New("store: writeRoom is never received") }
func (n writeRoom) Encode(dst []byte) ([]byte, error) {
	return slices.Grow(dst, int(n)), nil
}

// done gives the connection back its own array codecs once the writes
// queued are sent (or dropped).
func (t *pipeTx) done() {
	if t.restore != nil {
		t.restore()
		t.restore = nil
	}
}

// wait reads the results of the writes sent by sendAsync: the first refusal
// among them, if any.
func (t *pipeTx) wait() error {
	if t.pending == nil {
		return nil
	}
	err := t.pending.Close()
	t.pending = nil
	return err
}

// sendAsync sends the writes queued, in the order queued, and returns without
// waiting for the database to execute them; the next use of the connection
// waits.
func (t *pipeTx) sendAsync(ctx context.Context) error {
	if err := t.wait(); err != nil {
		return err
	}
	if t.batch.Len() == 0 {
		return nil
	}
	b := t.take() // the results read it until they are closed
	t.pending = t.Tx.SendBatch(ctx, b)
	return nil
}

// send sends the writes queued, in the order queued, and waits for them.
func (t *pipeTx) send(ctx context.Context) error {
	if err := t.wait(); err != nil {
		return err
	}
	if t.batch.Len() == 0 {
		return nil
	}
	return t.Tx.SendBatch(ctx, t.take()).Close()
}

// withQueued sends the writes queued and then b in one round trip (a
// pipeline), and reads the writes' results: b's are left to the caller. A
// read therefore sees every write queued before it, as it would one by one,
// without a round trip of its own for them.
func (t *pipeTx) withQueued(ctx context.Context, b *pgx.Batch) pgx.BatchResults {
	if err := t.wait(); err != nil {
		return errBatch{err}
	}
	n := t.batch.Len()
	if n == 0 {
		return t.Tx.SendBatch(ctx, b)
	}
	t.batch.QueuedQueries = append(t.batch.QueuedQueries, b.QueuedQueries...)
	br := t.Tx.SendBatch(ctx, t.take())
	for range n {
		if _, err := br.Exec(); err != nil {
			_ = br.Close()
			return errBatch{err}
		}
	}
	return br
}

// QueryRow sends the writes queued and the read together.
func (t *pipeTx) QueryRow(ctx context.Context, sql string, args ...any) pgx.Row {
	var b pgx.Batch
	b.Queue(sql, args...)
	return batchRow{t.withQueued(ctx, &b)}
}

// Query sends the writes queued and the read together.
func (t *pipeTx) Query(ctx context.Context, sql string, args ...any) (pgx.Rows, error) {
	var b pgx.Batch
	b.Queue(sql, args...)
	br := t.withQueued(ctx, &b)
	rs, err := br.Query()
	if err != nil {
		_ = br.Close()
		return nil, err
	}
	return &batchRows{Rows: rs, br: br}, nil
}

// SendBatch sends the writes queued and b together.
func (t *pipeTx) SendBatch(ctx context.Context, b *pgx.Batch) pgx.BatchResults {
	return t.withQueued(ctx, b)
}

// batchRow is the one row of a read sent with the writes queued before it.
type batchRow struct{ br pgx.BatchResults }

func (r batchRow) Scan(dest ...any) error {
	err := r.br.QueryRow().Scan(dest...)
	if cerr := r.br.Close(); err == nil {
		err = cerr
	}
	return err
}

// batchRows are the rows of a read sent with the writes queued before it;
// closing them closes the batch.
type batchRows struct {
	pgx.Rows
	br pgx.BatchResults
}

func (r *batchRows) Close() {
	r.Rows.Close()
	_ = r.br.Close()
}

// CopyFrom sends the writes queued, then copies.
func (t *pipeTx) CopyFrom(ctx context.Context, table pgx.Identifier, columns []string, src pgx.CopyFromSource) (int64, error) {
	if err := t.send(ctx); err != nil {
		return 0, err
	}
	return t.Tx.CopyFrom(ctx, table, columns, src)
}

// Begin sends the writes queued, then starts a savepoint.
func (t *pipeTx) Begin(ctx context.Context) (pgx.Tx, error) {
	if err := t.send(ctx); err != nil {
		return nil, err
	}
	return t.Tx.Begin(ctx)
}

// Commit sends the writes queued, then commits.
func (t *pipeTx) Commit(ctx context.Context) error {
	if err := t.send(ctx); err != nil {
		return err
	}
	return t.Tx.Commit(ctx)
}

type errRow struct{ err error }

func (r errRow) Scan(...any) error { return r.err }

type errBatch struct{ err error }

func (b errBatch) Exec() (pgconn.CommandTag, error) { return pgconn.CommandTag{}, b.err }
func (b errBatch) Query() (pgx.Rows, error)         { return nil, b.err }
func (b errBatch) QueryRow() pgx.Row                { return errRow(b) }
func (b errBatch) Close() error                     { return b.err }
func (b errBatch) Tx() pgx.Tx                       { return nil }

// preloadOrders reads a terminal's orders by their ids, each id a lookup of
// its own through orders_pkey's whole key: the subquery's LIMIT keeps it from
// being flattened into a join, and a key's equality is one row whatever the
// statistics say. (terminal_id = $1 AND order_id = ANY($2) was planned, with
// the statistics of a new database, as a scan of all the terminal's orders
// filtered by the ids, which a wider row made look cheaper.)
const preloadOrders = `SELECT o.order_id, o.snapshot FROM unnest($2::text[]) AS k(id)
	CROSS JOIN LATERAL (SELECT order_id, snapshot FROM orders WHERE terminal_id = $1 AND order_id = k.id LIMIT 1) o`

// preloadReturns reads the return orders citing invoices of a terminal, by
// the invoices' ids: what returnsOf reads for each refund, for the run's
// refunds at once (orders_origin).
const preloadReturns = `SELECT origin_order, terminal_id, order_id, snapshot FROM orders WHERE origin_order <> ''
	AND origin_terminal = $1 AND origin_order = ANY($2::text[])`

// preload reads, in one round trip, the orders that evs name (order_id), as
// order would read them one by one: the stored projection, or a new empty
// order when none is stored; and, for the run's refunds done, the return
// orders citing the invoices they go against, as returnsOf would read them
// one refund at a time. The first query names each order's whole key, so
// that it is planned as lookups of orders_pkey whatever the statistics say
// (one that joined the events read back was planned, with stale statistics,
// as a scan of all of the terminal's orders).
func (p *projector) preload(evs []*pos.Event) error {
	var ids []string
	seen := map[string]bool{}
	refunded := map[string]bool{}
	for _, ev := range evs {
		if ev == nil || ev.OrderID == "" {
			continue
		}
		if ev.Kind == pos.EvRefundDone {
			refunded[ev.OrderID] = true
		}
		if seen[ev.OrderID] {
			continue
		}
		if _, ok := p.orders[ev.OrderID]; ok {
			continue
		}
		seen[ev.OrderID] = true
		ids = append(ids, ev.OrderID)
	}
	if len(ids) == 0 && len(refunded) == 0 {
		return nil
	}
	// The invoices the refunds go against: the order's own, or, for a return
	// order of this terminal's invoice, its origin's (from its intent, or as
	// stored: read below). Another terminal's invoices are read by returnsOf.
	invoices := map[string]bool{}
	for _, ev := range evs {
		if ev != nil && refunded[ev.OrderID] && ev.Kind == pos.EvOrderIntent && ev.Intent != nil && ev.Intent.Origin != nil &&
			ev.Intent.Origin.Terminal == p.terminal {
			invoices[ev.Intent.Origin.OrderID] = true
		}
	}
	for id := range refunded {
		invoices[id] = true
	}
	var b pgx.Batch
	if len(ids) > 0 {
		b.Queue(preloadOrders, p.terminal, ids)
	}
	var inv []string
	if len(invoices) > 0 {
		inv = make([]string, 0, len(invoices))
		for id := range invoices {
			inv = append(inv, id)
		}
		b.Queue(preloadReturns, p.terminal, inv)
	}
	if !p.stock.loaded {
		b.Queue(keepsStockSQL, p.terminal).QueryRow(func(r pgx.Row) error { return p.stockKept(r) })
	}
	br := p.tx.SendBatch(p.ctx, &b)
	defer br.Close()
	if len(ids) > 0 {
		if err := p.readOrders(br, ids, seen); err != nil {
			return err
		}
	}
	if len(inv) > 0 {
		if err := p.readReturns(br, inv); err != nil {
			return err
		}
	}
	if err := br.Close(); err != nil {
		return err
	}
	if len(ids) == 0 {
		return nil
	}
	return p.preloadStock(ids) // once the batch's answers are read: one query at a time on the connection
}

// readOrders reads preloadOrders' answer.
func (p *projector) readOrders(br pgx.BatchResults, ids []string, seen map[string]bool) error {
	rs, err := br.Query()
	if err != nil {
		return err
	}
	defer rs.Close()
	for rs.Next() {
		var id string
		var snap []byte
		if err := rs.Scan(&id, &snap); err != nil {
			return err
		}
		o := &pos.Order{}
		if p.vault.unmarshal(snap, o) != nil {
			delete(seen, id) // order reads it again and says what is wrong, if an event needs it
			continue
		}
		p.orders[id] = o
		p.stored[id] = true
		p.snaps[id] = snap
		delete(seen, id)
	}
	if err := rs.Err(); err != nil {
		return err
	}
	for _, id := range ids {
		if seen[id] { // none stored
			p.orders[id] = &pos.Order{}
		}
	}
	return nil
}

// readReturns reads preloadReturns' answer into p.returns: for each invoice
// of inv, the stored return orders citing it (none for most).
func (p *projector) readReturns(br pgx.BatchResults, inv []string) error {
	rs, err := br.Query()
	if err != nil {
		return err
	}
	defer rs.Close()
	if p.returns == nil {
		p.returns = map[[2]string][]storedReturn{}
	}
	for _, id := range inv {
		p.returns[[2]string{p.terminal, id}] = nil
	}
	for rs.Next() {
		var invoice string
		var r storedReturn
		if err := rs.Scan(&invoice, &r.terminal, &r.id, &r.snap); err != nil {
			return err
		}
		k := [2]string{p.terminal, invoice}
		p.returns[k] = append(p.returns[k], r)
	}
	return rs.Err()
}
