package journal

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"time"

	bolt "go.etcd.io/bbolt"
	berrors "go.etcd.io/bbolt/errors"

	"galla/pos"
)

// Log is the journal's chain of events itself: Append, the reads of an event by
// its sequence (Event, EventsFrom, LastSeq), Rebuild, which replays it into the
// derived buckets, and the verification of the chain and the file (Verify,
// VerifyAll, Verified; VerifyFile's replay). It is pos.EventLog and
// pos.EventRanger, and pos.JournalHealth (the window's Config.Health).
type Log struct{ *journalCore }

// Append commits ev as the next event in one short bbolt transaction (one fsync'd
// commit) that also updates the derived buckets, following the rules of
// pos.Journal: it assigns Seq, sets V when zero, fills PrevHash and Hash, refuses
// events dated before a closed date (pos.ErrDayClosed; ADR 0010), applies order events with
// Order.Apply (a stale event is stored and changes nothing), checks receipt and Z
// numbers (pos.ErrSequence) and keeps staff, settings and the catalog. On any
// error nothing is stored and the error reads "journal: append KIND: ...".
func (lg *Log) Append(ctx context.Context, ev pos.Event) (pos.Event, error) {
	return lg.append(ctx, ev, nil)
}

// AppendBatch commits evs as the next events, in their order, in one bbolt
// transaction (one fsync'd commit): each is checked, chained, applied and
// numbered as Append does one, on the state the ones before it left. One event
// refused refuses the batch: nothing is stored and the error reads "journal:
// append KIND: ..." of the event refused. It returns the events as stored.
func (lg *Log) AppendBatch(ctx context.Context, evs []pos.Event) ([]pos.Event, error) {
	return lg.appendAll(ctx, evs, nil)
}

// Event returns the event stored at seq.
func (lg *Log) Event(ctx context.Context, seq uint64) (pos.Event, error) {
	if err := ctx.Err(); err != nil {
		return pos.Event{}, fmt.Errorf("journal: event %d: %w", seq, err)
	}
	var ev pos.Event
	err := lg.view(func(tx *bolt.Tx) error {
		var err error
		ev, err = lg.rec.eventAt(tx.Bucket(bucketEvents), seq)
		return err
	})
	if err != nil {
		return pos.Event{}, fmt.Errorf("journal: event %d: %w", seq, err)
	}
	return ev, nil
}

// EventsFrom calls fn with every event from sequence number from on, in order:
// pos derives the counter's shifts, held bills, stock and IMEIs this way. An
// error of fn stops the walk and is returned.
//
// The events are read eventsChunk at a time, each chunk in a read transaction
// closed before fn sees its events, so that fn may read the journal again (the
// stock book reads a sale's or a unit's own events while it walks): a read
// transaction opened inside another would wait behind a writer that must grow
// the file, which waits for the outer one, and neither would move. Events are
// never changed once written, so the chunks read are the events as one
// transaction would read them; an event appended during the walk is walked
// when its chunk had not been read yet.
func (lg *Log) EventsFrom(ctx context.Context, from uint64, fn func(pos.Event) error) error {
	next := max(from, 1)
	chunk := make([]pos.Event, 0, eventsChunk)
	for {
		chunk = chunk[:0]
		err := lg.view(func(tx *bolt.Tx) error {
			c := tx.Bucket(bucketEvents).Cursor()
			for k, v := c.Seek(u64(next)); k != nil && len(chunk) < eventsChunk; k, v = c.Next() {
				if err := ctx.Err(); err != nil {
					return err
				}
				ev, err := lg.storedEvent(k, v)
				if err != nil {
					return err
				}
				chunk = append(chunk, ev)
			}
			return nil
		})
		if err != nil {
			return fmt.Errorf("journal: events from %d: %w", from, err)
		}
		for _, ev := range chunk {
			if err := fn(ev); err != nil {
				return fmt.Errorf("journal: events from %d: %w", from, err)
			}
		}
		if len(chunk) < eventsChunk {
			return nil
		}
		next = chunk[len(chunk)-1].Seq + 1
	}
}

// eventsChunk is how many events EventsFrom reads in one read transaction.
const eventsChunk = 256

// LastSeq returns the sequence number of the last event, 0 when the journal is
// empty.
func (lg *Log) LastSeq(ctx context.Context) (uint64, error) {
	if err := ctx.Err(); err != nil {
		return 0, fmt.Errorf("journal: last sequence: %w", err)
	}
	var seq uint64
	err := lg.view(func(tx *bolt.Tx) error {
		seq, _, _ = headIn(tx.Bucket(bucketEvents))
		return nil
	})
	if err != nil {
		return 0, fmt.Errorf("journal: last sequence: %w", err)
	}
	return seq, nil
}

// Rebuild throws the derived buckets away and replays every event into fresh
// ones, in one transaction: either the whole new state is committed or the old
// one stays. The events are checked against their hashes as they are read.
func (lg *Log) Rebuild(ctx context.Context) error {
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("journal: rebuild: %w", err)
	}
	err := lg.update(func(tx *bolt.Tx) error {
		for _, name := range derivedBuckets {
			if err := tx.DeleteBucket(name); err != nil && !errors.Is(err, berrors.ErrBucketNotFound) {
				return err
			}
		}
		meta := tx.Bucket(bucketMeta)
		for _, k := range [][]byte{metaReceipt, metaZ} {
			if err := meta.Delete(k); err != nil {
				return err
			}
		}
		if err := createBuckets(tx); err != nil {
			return err
		}
		c := tx.Bucket(bucketEvents).Cursor()
		for k, v := c.First(); k != nil; k, v = c.Next() {
			if err := ctx.Err(); err != nil {
				return err
			}
			r, err := lg.rec.decode(v)
			if err != nil {
				return fmt.Errorf("event %d: %w", beU64(k), err)
			}
			ev, err := r.event()
			if err != nil {
				return err
			}
			ev.Hash = ""
			if err := derive(tx, &ev, nil, lg.proofs); err != nil {
				return fmt.Errorf("replay event %d (%s): %w", ev.Seq, ev.Kind, err)
			}
			if err := sealCheckpoint(tx, &ev, r.Hash, lg.rec.keyOf(r)); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("journal: rebuild: %w", err)
	}
	return nil
}

// Verify is the check of start-up, the one Open makes unless
// Options.DeferVerify is set: it walks the hash chain from the last checkpoint
// (the newest Z report's seal) to the head, after checking that the checkpoint's
// event is still the one it sealed, and reads the pages the next Append rewrites
// (every bucket's root and right edge) from the file. Its cost is that of the
// events since the last Z report, not of the file; VerifyAll and VerifyFile check
// everything. It remembers the result for Verified. A damaged file gives the
// same *CorruptError (matching ErrCorrupt) as Open would; once a verification
// has failed, Verify returns that error again without checking anew. When ctx
// ends first it returns ctx's error and remembers nothing.
func (lg *Log) Verify(ctx context.Context) error {
	return lg.verifyOnce(ctx, false)
}

// VerifyAll is the whole check of the file on an open journal: bbolt's
// consistency check (Tx.Check) after a walk of every page from the file, and the
// hash chain from the first event to the head. Appends wait while bbolt's check
// runs; on a large journal prefer VerifyFile on the day's backup, which checks
// the derived records too and leaves the live file alone. It remembers its
// result for Verified as Verify does.
func (lg *Log) VerifyAll(ctx context.Context) error {
	return lg.verifyOnce(ctx, true)
}

// Verified reports whether a verification has finished (in Open, or a Verify)
// and, when it has, its result: nil, or the *CorruptError that says what is
// damaged and where the last backup is.
func (lg *Log) Verified() (done bool, err error) {
	lg.vmu.Lock()
	defer lg.vmu.Unlock()
	return lg.verified, lg.verifyErr
}

// verifyOnce runs verify and keeps its result; a failure stays.
func (lg *Log) verifyOnce(ctx context.Context, full bool) error {
	lg.verifyRun.Lock()
	defer lg.verifyRun.Unlock()
	if done, err := lg.Verified(); done && err != nil {
		return err
	}
	err := lg.verify(ctx, full)
	if err != nil && !errors.Is(err, ErrDamaged) {
		return err
	}
	lg.vmu.Lock()
	if lg.verifyErr != nil {
		// A record refused while this ran (refuse): that failure stays.
		err = lg.verifyErr
	}
	lg.verified, lg.verifyErr = true, err
	lg.vmu.Unlock()
	return err
}

// verify checks the pages and then walks the hash chain: everything when full is
// set, else the right edge of every bucket and the chain from the last
// checkpoint.
func (lg *Log) verify(ctx context.Context, full bool) error {
	var mark uint64 // the event to mark as verified, 0 for none
	err := lg.checkPages(full)
	if err == nil {
		err = ctx.Err()
	}
	if err == nil {
		scope := scopeFromMark
		if full {
			scope = scopeAll
		}
		err = lg.view(func(tx *bolt.Tx) error { return lg.verifyChain(ctx, tx, scope, &mark) })
	}
	if err == nil && mark > 0 && !lg.readOnly {
		// Best effort: without the mark the next Open verifies a little more.
		_ = lg.SaveSnapshot(ctx, markVerified, pos.Snapshot{Seq: mark})
	}
	if err != nil {
		var (
			ce *CorruptError
			me *MismatchError
		)
		if errors.As(err, &ce) || errors.As(err, &me) {
			return err
		}
		return fmt.Errorf("journal: verify: %w", err)
	}
	return nil
}

// checkPages walks the page tree from the file (walkTree; only the right edge of
// every bucket unless full is set) and, when full is set, runs bbolt's
// consistency check (Tx.Check). bbolt allows it beside
// writers only in a read-write transaction (in a read-only one it reads the
// freelist that a concurrent commit changes), so it runs in one that is rolled
// back: nothing is written, and appends wait for the check (not for the chain
// walk, which reads a snapshot).
//
// A journal opened read-only has no writers, so its check runs in a read-only
// transaction. bbolt's check runs in a goroutine of its own, where guard cannot
// catch a fault; preflight has made sure every page it can name is in the file.
func (lg *Log) checkPages(full bool) error {
	var first error
	err := guard(func() error {
		tx, err := lg.db.Begin(!lg.readOnly)
		if err != nil {
			return err
		}
		defer func() { _ = tx.Rollback() }()
		if err := walkTree(tx, !full); err != nil {
			first = err
			return nil
		}
		if !full {
			return nil
		}
		// Read the channel to its end so that the checking goroutine finishes.
		for cerr := range tx.Check() {
			if first == nil {
				first = cerr
			}
		}
		return nil
	})
	var pe *panicError
	switch {
	case errors.Is(err, berrors.ErrDatabaseNotOpen):
		return ErrClosed
	case errors.As(err, &pe):
		return lg.corrupt(0, pe.Error())
	case err != nil:
		return err
	}
	if first != nil {
		return lg.corrupt(0, "bbolt consistency check: "+first.Error())
	}
	return nil
}

// chainScope is where verifyChain starts.
type chainScope int

const (
	// scopeFromMark starts after the last checkpoint, or after the mark an
	// earlier Open left past it: the check of start-up.
	scopeFromMark chainScope = iota
	// scopeFromPrevious starts after the checkpoint before the last one (from
	// event 1 when there is none), or after the mark an Open left past it
	// when the mark is before the last one, and checks the last one after:
	// the day a Z report just sealed, the check of its backup.
	scopeFromPrevious
	// scopeAll walks every event.
	scopeAll
)

// verifyChain decodes every event in sequence order and checks its own hash, its
// link to the one before and the head kept in meta, from where scope says: from
// a checkpoint, whose own event must still be the day.closed it sealed, with the
// hash it sealed, or after the mark an earlier Open left past it (snapshot.go).
// It sets *mark when it walked enough events from a mark to leave one, and stops
// with ctx's error when ctx ends.
func (lg *Log) verifyChain(ctx context.Context, tx *bolt.Tx, scope chainScope, mark *uint64) error {
	events := tx.Bucket(bucketEvents)
	meta := tx.Bucket(bucketMeta)
	if events == nil || meta == nil {
		return lg.corrupt(0, "a bucket is missing")
	}
	full := scope == scopeAll
	var (
		prev    [32]byte
		want    uint64 = 1
		keyed   bool   // an event before was keyed: every one after must be
		cpSeq   uint64 // the checkpoint's event the walk starts after
		derived since  // what the events after it wrote
	)
	cp, ok, err := lastCheckpoint(tx)
	if err != nil {
		return lg.corrupt(0, err.Error())
	}
	start, startOK := cp, ok
	if ok && scope == scopeFromPrevious {
		if start, startOK, err = checkpointBefore(tx, cp.ZNo); err != nil {
			return lg.corrupt(0, err.Error())
		}
	}
	if startOK {
		cpSeq = start.Seq
	}
	if startOK && !full {
		r, err := lg.checkCheckpoint(events, start)
		if err != nil {
			return err
		}
		prev, want, keyed = start.Hash, start.Seq+1, r.Keyed
	}
	if scope == scopeFromMark || (scope == scopeFromPrevious && ok) {
		// An Open verified up to its mark since that checkpoint (snapshot.go).
		// The check of a backup starts there too when the mark is before the
		// last checkpoint: the day's events up to the mark were checked on the
		// live file, whose bytes the copy's are, and a day closed after
		// weeks without a Z walks what came since, not the weeks.
		m, r, found, err := lg.snapshotIn(tx, markVerified)
		if err != nil {
			return err
		}
		if found && m.Seq >= want && (scope == scopeFromMark || m.Seq < cp.Seq) {
			prev, want, keyed, cpSeq = r.Hash, m.Seq+1, r.Keyed, m.Seq
		}
	}
	walked := want
	c := events.Cursor()
	for k, v := c.Seek(u64(want)); k != nil; k, v = c.Next() {
		if len(k) != 8 || beU64(k) != want {
			return lg.corrupt(want, "a sequence number is missing or a key is malformed")
		}
		r, err := lg.rec.decode(v)
		switch {
		case err != nil:
			return lg.corrupt(want, err.Error())
		case r.Seq != want:
			return lg.corrupt(want, "the sequence number does not match its key")
		case r.Prev != prev:
			return lg.corrupt(want, "hash chain broken: prev_hash is not the previous event's hash")
		case keyed && !r.Keyed:
			return lg.corrupt(want, "an event without the chain key after keyed ones")
		}
		if want > cpSeq {
			ev, err := r.event()
			if err != nil {
				return lg.corrupt(want, err.Error())
			}
			derived.note(&ev)
		}
		prev, keyed = r.Hash, r.Keyed
		want++
		if want%1024 == 0 {
			if err := ctx.Err(); err != nil {
				return err
			}
		}
	}
	if ok, named := fileHeadMatches(tx, want-1, prev); !ok {
		return lg.corrupt(max(named, want-1), "the head the journal keeps does not match the last event")
	}
	if ok && scope != scopeFromMark {
		if _, err := lg.checkCheckpoint(events, cp); err != nil {
			return err
		}
	}
	if err := lg.checkSince(tx, &derived); err != nil {
		return err
	}
	if scope == scopeFromMark && want-walked >= markEvery {
		*mark = want - 1 // verified up to the head: the next Open starts here
	}
	return nil
}

// checkCheckpoint checks that the event cp names is still the day.closed of its Z
// report, with the hash cp sealed.
func (lg *Log) checkCheckpoint(events *bolt.Bucket, cp Checkpoint) (*record, error) {
	v := events.Get(u64(cp.Seq))
	if v == nil {
		return nil, lg.corrupt(cp.Seq, fmt.Sprintf("the event sealed by Z report %d is missing", cp.ZNo))
	}
	r, err := lg.rec.decode(v)
	if err != nil {
		return nil, lg.corrupt(cp.Seq, err.Error())
	}
	if r.Seq != cp.Seq || r.Hash != cp.Hash || cp.Events != cp.Seq {
		return nil, lg.corrupt(cp.Seq, fmt.Sprintf("the event is not the one Z report %d sealed", cp.ZNo))
	}
	ev, err := r.event()
	if err != nil {
		return nil, lg.corrupt(cp.Seq, err.Error())
	}
	if ev.Kind != pos.EvDayClosed || ev.DayClose == nil || ev.DayClose.ZNo != cp.ZNo {
		return nil, lg.corrupt(cp.Seq, fmt.Sprintf("the event is not the day.closed of Z report %d", cp.ZNo))
	}
	return r, nil
}

// checkSince compares the derived records the events after the last checkpoint
// wrote with a replay of them: every order they touched (its stored state
// against Order.Apply over all its events, its event index, its place in
// unresolved), every staff record and setting they wrote (of a record written
// last before the checkpoint and counted by staff.attempt events after it, the
// counters: what the replay can reproduce), the catalog, and the
// receipt counter. The first difference is a *MismatchError. The cost is that
// of the events since the last Z report (and of the orders they belong to).
func (lg *Log) checkSince(tx *bolt.Tx, s *since) error {
	if s.orders == nil {
		return nil
	}
	for _, name := range derivedBuckets {
		if tx.Bucket(name) == nil {
			return nil // Open rebuilds them all from the events; VerifyFile says which is missing
		}
	}
	orders := tx.Bucket(bucketOrders)
	for id, seqs := range s.orders {
		for _, seq := range seqs {
			if orders.Get(orderEventKey(id, seq)) == nil {
				return lg.mismatch("orders", id, fmt.Sprintf("event %d of the order is missing from its index", seq))
			}
		}
		if err := lg.checkOrder(tx, id, "", 0); err != nil {
			return err
		}
	}
	for _, c := range []struct {
		bucket []byte
		want   map[string][]byte
	}{{bucketStaff, s.staff}, {bucketSettings, s.setting}} {
		b := tx.Bucket(c.bucket)
		for k, v := range c.want {
			sk := lg.proofs.v.storeKey(c.bucket, []byte(k))
			if b.Get(sk) == nil {
				sk = []byte(k) // stored in clear by an older build, not yet sealed (reseal.go)
			}
			if have, err := lg.proofs.v.openValue(c.bucket, sk, b.Get(sk)); err != nil || !bytes.Equal(have, v) {
				return lg.mismatch(string(c.bucket), k, "the stored record is not the one its last event wrote")
			}
		}
	}
	staff := tx.Bucket(bucketStaff)
	for id, a := range s.attempt {
		have := staff.Get([]byte(id))
		if have == nil {
			return lg.mismatch("staff", id, "the record its last attempt counted is missing")
		}
		// The stored record was written by this attempt last: applying it
		// again changes nothing.
		if want, err := withAttempt(have, a); err != nil || !bytes.Equal(have, want) {
			return lg.mismatch("staff", id, "the stored counters are not the ones its last attempt wrote")
		}
	}
	if s.catalog != nil && !bytes.Equal(tx.Bucket(bucketCatalog).Get(catalogKey), s.catalog) {
		return lg.mismatch("catalog", string(catalogKey), "the stored catalog is not the one its last event imported")
	}
	have := numbersOf(tx)
	if have.Receipt < s.receipt {
		return lg.mismatch("meta", "receipt_no", fmt.Sprintf("the counter is %d, but receipt number %d was handed out", have.Receipt, s.receipt))
	}
	if sr, behind := have.behindSeries(s.series); behind {
		return lg.mismatch("documents", sr, fmt.Sprintf("the counter is %d, but number %d was handed out", have.Series[sr], s.series.Series[sr]))
	}
	return nil
}

// checkDerived replays every event into a temporary file and compares each
// derived bucket and the counters with the journal's, key by key.
func (lg *Log) checkDerived(ctx context.Context) error { return lg.checkDerivedAs(ctx, false) }

// checkDerivedAs is checkDerived; with upgrade set (the first Open of a journal
// written before proofs) a derived bucket missing from the journal is not a
// difference: Open rebuilds it from the events next.
func (lg *Log) checkDerivedAs(ctx context.Context, upgrade bool) error {
	dir, err := os.MkdirTemp("", "galla-verify-")
	if err != nil {
		return fmt.Errorf("journal: verify: %w", err)
	}
	defer os.RemoveAll(dir)
	replay, err := bolt.Open(filepath.Join(dir, "replay.db"), 0o600, &bolt.Options{Timeout: time.Second, NoSync: true})
	if err != nil {
		return fmt.Errorf("journal: verify: %w", err)
	}
	defer replay.Close()
	return lg.view(func(src *bolt.Tx) error {
		// The replay commits every replayBatch events, so that bbolt holds the
		// pages of one batch in memory and not those of the whole history.
		dst, err := replay.Begin(true)
		if err != nil {
			return err
		}
		defer func() { _ = dst.Rollback() }() // the open one; a committed one says ErrTxClosed
		return func() error {
			if err := createBuckets(dst); err != nil {
				return err
			}
			before6 := src.Bucket(bucketIMEIs) == nil && src.Bucket(bucketStockDays) == nil && schemaOf(src) < schemaIMEIs
			if before6 {
				// A file of schema 5 or older (a backup) is replayed as it was
				// written: without the records of IMEIs and the stock days.
				for _, name := range [][]byte{bucketIMEIs, bucketStockDays} {
					if err := dst.DeleteBucket(name); err != nil {
						return err
					}
				}
			}
			before7 := src.Bucket(bucketStockInvoices) == nil && schemaOf(src) < schemaStockRecords
			if before7 {
				// A file of schema 6 or older (a backup) is replayed as it was
				// written: its records of IMEIs without their stock events.
				if err := dst.DeleteBucket(bucketStockInvoices); err != nil {
					return err
				}
			}
			// A file of schema 7 or 8 (a backup) keeps its deliveries under
			// indexKey: its index is replayed that way too, beside the one
			// this schema derives (deriveIndexKey), and compared with it.
			before9 := !before7 && schemaOf(src) < schemaInvoiceKeys
			if before9 {
				if _, err := dst.CreateBucket(replayIndexKeys); err != nil {
					return err
				}
			}
			srcProved := src.Bucket(bucketProofs) != nil || (schemaOf(src) >= schemaProofs && !upgrade)
			if !srcProved {
				// A file written before proofs (a backup, or the journal at the
				// upgrade) is replayed as it was written: without them.
				if err := dst.DeleteBucket(bucketProofs); err != nil {
					return err
				}
			}
			cache := new(orderCache)
			ahead, stop := lg.decodeAhead(src)
			defer stop()
			for it := range ahead {
				if err := ctx.Err(); err != nil {
					return err
				}
				if it.err != nil {
					return it.err
				}
				ev := it.ev
				ev.Hash = ""
				if err := derive(dst, &ev, cache, lg.proofs); err != nil {
					return lg.corrupt(ev.Seq, fmt.Sprintf("replay of %s: %v", ev.Kind, err))
				}
				if before9 {
					if err := deriveIndexKey(dst.Bucket(replayIndexKeys), &ev); err != nil {
						return lg.corrupt(ev.Seq, fmt.Sprintf("replay of %s: %v", ev.Kind, err))
					}
				}
				if err := sealCheckpoint(dst, &ev, it.hash, it.key); err != nil {
					return err
				}
				if ev.Seq%lg.replayEvery() == 0 {
					if lg.replayHook != nil {
						lg.replayHook()
					}
					if err := dst.Commit(); err != nil {
						return err
					}
					if dst, err = replay.Begin(true); err != nil {
						return err
					}
				}
			}
			if lg.replayHook != nil {
				lg.replayHook()
			}
			known := map[string]bool{string(bucketMeta): true, string(bucketEvents): true, string(bucketSnapshots): true}
			for _, name := range derivedBuckets {
				known[string(name)] = true
			}
			if err := src.ForEach(func(name []byte, _ *bolt.Bucket) error {
				if !known[string(name)] {
					return lg.mismatch(string(name), "", "the file holds a bucket the schema does not have")
				}
				return nil
			}); err != nil {
				return err
			}
			for _, name := range derivedBuckets {
				if bytes.Equal(name, bucketProofs) && (!srcProved || upgrade) {
					continue // none yet; the upgrade gives them
				}
				if upgrade && src.Bucket(name) == nil {
					continue
				}
				if bytes.Equal(name, bucketCheckpoints) && schemaOf(src) < schemaCheckpoints {
					continue // a file of schema 1 (a backup) has none yet
				}
				if (bytes.Equal(name, bucketIMEIs) || bytes.Equal(name, bucketStockDays)) && before6 ||
					bytes.Equal(name, bucketStockInvoices) && before7 {
					continue // made before them
				}
				if bytes.Equal(name, bucketDocuments) && src.Bucket(name) == nil && dst.Bucket(name).Stats().KeyN == 0 {
					continue // made before document series, and none numbered since
				}
				if bytes.Equal(name, bucketStockInvoices) && before9 {
					if err := lg.compareBucketAs(src.Bucket(name), dst.Bucket(replayIndexKeys), string(name), false); err != nil {
						return err
					}
					continue
				}
				if err := lg.compareBucketAs(src.Bucket(name), dst.Bucket(name), string(name), upgrade && bytes.Equal(name, bucketOrders)); err != nil {
					return err
				}
			}
			meta := src.Bucket(bucketMeta)
			gone := upgrade && meta.Get(metaReceipt) == nil && meta.Get(metaZ) == nil // deleted with the buckets: rebuilt
			if have, want := numbersOf(src), numbersOf(dst); !gone && (have.behind(want) || want.behind(have)) {
				return lg.mismatch("meta", "counters", fmt.Sprintf("receipt %d and Z %d stored, the events give receipt %d and Z %d", have.Receipt, have.Z, want.Receipt, want.Z))
			}
			return nil
		}()
	})
}

// replayIndexKeys is the bucket of checkDerived's replay that holds the
// deliveries of a file of schema 7 or 8 under their indexKey, as that file
// keeps them.
var replayIndexKeys = []byte("stock_invoices.schema8")

// replayed is one event of the journal decoded for checkDerived's replay.
type replayed struct {
	ev   pos.Event
	hash [32]byte // the record's hash, which its checkpoint seals
	key  []byte   // the key the record's hash is made with
	err  error    // the record does not decode (a *CorruptError): the replay stops at it
}

// decodeAheadEvents is how many events decodeAhead decodes ahead of the
// replay.
const decodeAheadEvents = 256

// decodeAhead decodes the events of src in sequence order in a goroutine of
// its own, so that the replay derives an event while the next ones are
// inflated and decoded (the two take about the same time). The replay does
// not read src until the channel is closed: the goroutine's cursor is src's
// only reader meanwhile. A record that does not decode, or a fault of bbolt
// reading the file (caught as guard catches it in view), is the last item.
// stop ends the goroutine and waits for it; call it before src ends.
func (lg *Log) decodeAhead(src *bolt.Tx) (<-chan replayed, func()) {
	ahead := decodeAheadEvents
	switch {
	case lg.replayAhead > 0:
		ahead = lg.replayAhead
	case lg.replayAhead < 0:
		ahead = 0
	}
	out := make(chan replayed, ahead)
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		defer close(out)
		send := func(it replayed) bool {
			select {
			case out <- it:
				return it.err == nil
			case <-done:
				return false
			}
		}
		err := guard(func() error {
			c := src.Bucket(bucketEvents).Cursor()
			for k, v := c.First(); k != nil; k, v = c.Next() {
				var it replayed
				r, err := lg.rec.decode(v)
				if err == nil {
					it.ev, err = r.event()
					it.hash, it.key = r.Hash, lg.rec.keyOf(r)
				}
				if err != nil {
					it.err = lg.corrupt(beU64(k), err.Error())
				}
				if !send(it) {
					return nil
				}
			}
			return nil
		})
		var pe *panicError
		if errors.As(err, &pe) {
			send(replayed{err: lg.corrupt(0, pe.Error())})
		}
	}()
	var once sync.Once
	return out, func() {
		once.Do(func() {
			close(done)
			wg.Wait()
		})
	}
}

// replayBatch is how many events the replay of checkDerived writes in one
// transaction of its temporary file (journalCore.replayBatch, when set,
// stands in for it in tests).
const replayBatch = 10_000

// replayEvery is the replay's batch.
func (lg *Log) replayEvery() uint64 {
	if lg.replayBatch > 0 {
		return uint64(lg.replayBatch)
	}
	return replayBatch
}

// compareBucketAs reports the first key whose value differs between have (the
// journal) and want (the replay). With indexOnly the values of the orders'
// event index entries (their proofs, made with another key or none) are not
// compared, only their keys: the upgrade gives them anew.
func (lg *Log) compareBucketAs(have, want *bolt.Bucket, name string, indexOnly bool) error {
	if have == nil {
		return lg.mismatch(name, "", "the bucket is missing")
	}
	if name == string(bucketSettings) {
		return lg.compareSettings(have, want)
	}
	v, bucket := lg.proofs.v, []byte(name)
	same := func(k, hv, wv []byte) bool {
		if bytes.Equal(hv, wv) {
			return true
		}
		// A record stored in clear by an older build, and sealed by the replay
		// (seal.go): the same when they open to the same.
		h, herr := v.openValue(bucket, k, hv)
		w, werr := v.openValue(bucket, k, wv)
		return herr == nil && werr == nil && bytes.Equal(h, w)
	}
	hc, wc := have.Cursor(), want.Cursor()
	hk, hv := hc.First()
	wk, wv := wc.First()
	for hk != nil || wk != nil {
		switch c := bytes.Compare(hk, wk); {
		case hk == nil || (wk != nil && c > 0):
			return lg.mismatch(name, printable(wk), "missing: the events give it")
		case wk == nil || c < 0:
			return lg.mismatch(name, printable(hk), "stored, but no event gives it")
		case !same(hk, hv, wv) && !(indexOnly && bytes.IndexByte(hk, sep) >= 0):
			return lg.mismatch(name, printable(hk), "the stored value is not what the events give")
		}
		hk, hv = hc.Next()
		wk, wv = wc.Next()
	}
	return nil
}

// compareSettings is compareBucketAs of the settings, a few hundred records at
// most: each key as this build stores it (a remembered customer's under its
// digest, seal.go) and each value in clear, so that the settings an older build
// stored in clear compare with their replay.
func (lg *Log) compareSettings(have, want *bolt.Bucket) error {
	v := lg.proofs.v
	read := func(b *bolt.Bucket) (map[string][]byte, string) {
		m := map[string][]byte{}
		bad := ""
		_ = b.ForEach(func(k, val []byte) error {
			sk := v.storeKey(bucketSettings, k)
			plain, err := v.openValue(bucketSettings, k, val)
			if err != nil {
				bad = printable(k)
				return errStop
			}
			m[string(sk)] = plain
			return nil
		})
		return m, bad
	}
	hm, bad := read(have)
	if bad != "" {
		return lg.mismatch(string(bucketSettings), bad, "the stored value does not open with the journal's key")
	}
	wm, _ := read(want)
	for k, w := range wm {
		h, ok := hm[k]
		switch {
		case !ok:
			return lg.mismatch(string(bucketSettings), k, "missing: the events give it")
		case !bytes.Equal(h, w):
			return lg.mismatch(string(bucketSettings), k, "the stored value is not what the events give")
		}
	}
	for k := range hm {
		if _, ok := wm[k]; !ok {
			return lg.mismatch(string(bucketSettings), k, "stored, but no event gives it")
		}
	}
	return nil
}
