package journal

import (
	"bytes"
	"context"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"sync"
	"sync/atomic"
	"time"

	bolt "go.etcd.io/bbolt"
	berrors "go.etcd.io/bbolt/errors"

	"galla/pos"
)

// journalCore is the state the journal's parts share: the bbolt handle, the
// file's path and backup directory, the clock, the sealer of the records, the
// head record beside the file, the number high-water file and the result of the
// verification, with their locks. Its methods are the transactions every part
// runs in (view, update), the append every write goes through, the reads and
// checks more than one part makes, and the errors that name the file and its
// newest backup. Each part holds the one core of its journal.
type journalCore struct {
	db          *bolt.DB
	path        string
	backupDir   string
	now         func() time.Time
	commits     atomic.Uint64
	orders      orderCache  // decoded orders for Append
	memo        derivedMemo // what Append's transactions last found in the indexes (memo.go)
	last        [32]byte    // the hash of the event Append sealed last (in its transaction) ...
	lastHash    string      // ... and it in hex
	rec         sealer      // the chain key and the compressors of the records
	proofs      prover      // the proofs of the derived records, keyed from the chain key
	headMu      sync.Mutex  // guards head, headSeq, headErr, headBuf and headMap
	head        *os.File    // the head record beside the file (HeadPath); nil read-only
	headSeq     uint64      // the sequence it holds
	headErr     error       // its last write's error
	headBuf     []byte      // the head record written last, its buffer reused
	headMap     fileMap     // head mapped into memory
	keyAdopted  bool        // this Open gave the chain key to a journal that had none
	keyAdoptOld bool        // ... one of a schema before keys, or empty: it needs no head record

	readOnly bool
	written  *writtenLog // the pages written since the newest backup base (written.go); nil read-only

	numMu      sync.Mutex    // guards nums, numWritten and numErr
	nums       numbersWriter // writes the high-water file in place
	numWritten Numbers       // what the high-water file last received
	numErr     error         // its last write's error, tried again with the next number

	backupMu     sync.Mutex        // guards backupSums and backupChecks
	backupSums   map[string]uint32 // the CRC-32C of each backup BackupTo wrote, by path
	backupChecks map[string]error  // the check of the copy each increment stands for, by path
	next         nextBaseKnobs     // the tests' hold on the building of the next base (increment.go)

	replayBatch int    // the events of one transaction of checkDerived's replay; 0 is replayBatch
	replayHook  func() // called by checkDerived's replay before each commit and before its comparison (tests)
	replayAhead int    // events decoded ahead of the replay; 0 is decodeAheadEvents, -1 none (tests measuring its heap)

	verifyRun sync.Mutex // one Verify at a time
	vmu       sync.Mutex // guards verified and verifyErr
	verified  bool       // a verification has finished (in Open or Verify)
	verifyErr error      // its result: nil or a *CorruptError; a failure stays

	changed atomic.Pointer[MismatchError] // the first record found changed outside Galla
}

// update runs fn in one read-write transaction and counts its commit.
func (jc *journalCore) update(fn func(tx *bolt.Tx) error) error {
	if jc.readOnly {
		return ErrReadOnly
	}
	var refused error
	err := guard(func() error {
		return jc.db.Update(func(tx *bolt.Tx) error {
			jc.written.note(tx)
			if err := fn(tx); err != nil {
				refused = err
				return err
			}
			return nil
		})
	})
	if err == nil {
		jc.commits.Add(1) // Update returns nil only once its commit is done
		return nil
	}
	return jc.updateErr(err, refused)
}

// updateErr is the error of update whose transaction failed with err, refused
// being fn's own error.
func (jc *journalCore) updateErr(err, refused error) error {
	var pe *panicError
	switch {
	case errors.Is(err, berrors.ErrDatabaseNotOpen):
		return ErrClosed
	case errors.As(err, &pe):
		return jc.corrupt(0, pe.Error())
	case err != nil && err != refused:
		// Not a rule that refused the event: the file itself could not be written.
		return &writeError{err: err}
	}
	return err
}

// view runs fn in one read-only transaction.
func (jc *journalCore) view(fn func(tx *bolt.Tx) error) error {
	err := guard(func() error { return jc.db.View(fn) })
	var pe *panicError
	switch {
	case errors.Is(err, berrors.ErrDatabaseNotOpen):
		return ErrClosed
	case errors.As(err, &pe):
		return jc.corrupt(0, pe.Error())
	}
	return err
}

// corrupt builds the CorruptError for seq, naming the newest backup.
func (jc *journalCore) corrupt(seq uint64, reason string) error {
	backup, _ := LatestBackup(jc.backupDir)
	return &CorruptError{Path: jc.path, Seq: seq, Reason: reason, Backup: backup}
}

// mismatch builds the MismatchError of j.
func (jc *journalCore) mismatch(bucket, key, reason string) error {
	backup, _ := LatestBackup(jc.backupDir)
	e := &MismatchError{Path: jc.path, Bucket: bucket, Key: key, Reason: reason, Backup: backup}
	jc.changed.CompareAndSwap(nil, e)
	return e
}

// changedErr returns the first derived record found not matching its events
// since the journal was opened (a *MismatchError), nil while none was.
func (jc *journalCore) changedErr() error {
	if e := jc.changed.Load(); e != nil {
		return e
	}
	return nil
}

// openErr turns a bbolt failure caught by guard into the CorruptError it means.
func (jc *journalCore) openErr(err error) error {
	var pe *panicError
	if errors.As(err, &pe) {
		return jc.corrupt(0, pe.Error())
	}
	return err
}

// storedEvent decodes the event stored in the events bucket under key k; damage
// is a *CorruptError at its sequence.
func (jc *journalCore) storedEvent(k, v []byte) (pos.Event, error) {
	r, err := jc.rec.decode(v)
	if err == nil {
		var ev pos.Event
		if ev, err = r.event(); err == nil {
			return ev, nil
		}
	}
	return pos.Event{}, jc.corrupt(beU64(k), err.Error())
}

// lastHex is prev in hex: the hex the last Append made of it when it is the
// same hash (its Hash is the next one's PrevHash), else made anew. It runs
// inside the journal's write transactions.
func (jc *journalCore) lastHex(prev [32]byte) string {
	if jc.lastHash != "" && prev == jc.last {
		return jc.lastHash
	}
	return hexString(prev)
}

// hexString is h in hex, in one allocation.
func hexString(h [32]byte) string {
	var b [64]byte
	hex.Encode(b[:], h[:])
	return string(b[:])
}

// append is Append with a hook that may adjust the event inside the transaction,
// before it is applied (StaffStore.Put uses it to tell added from changed).
func (jc *journalCore) append(ctx context.Context, ev pos.Event, prepare func(tx *bolt.Tx, ev *pos.Event)) (pos.Event, error) {
	out, err := jc.appendAll(ctx, []pos.Event{ev}, prepare)
	if err != nil {
		return pos.Event{}, err
	}
	return out[0], nil
}

// appendAll commits evs as the next events, in order, in one transaction: each
// is checked, chained and derived as append does one, on the state the ones
// before it left; one refused refuses them all and nothing is stored. The
// error names the kind of the event refused.
func (jc *journalCore) appendAll(ctx context.Context, evs []pos.Event, prepare func(tx *bolt.Tx, ev *pos.Event)) ([]pos.Event, error) {
	failed := 0 // the event an error is about
	fail := func(err error) ([]pos.Event, error) {
		var kind pos.EventKind
		if failed < len(evs) {
			kind = evs[failed].Kind
		}
		return nil, fmt.Errorf("journal: append %s: %w", kind, err)
	}
	if len(evs) == 0 {
		return fail(errNoEvents)
	}
	if err := ctx.Err(); err != nil {
		return fail(err)
	}
	for i := range evs {
		failed = i
		if err := checkEvent(&evs[i]); err != nil {
			return fail(err)
		}
	}
	var (
		out      = make([]pos.Event, 0, len(evs))
		numbered bool
		nums     Numbers
		sum      [32]byte
	)
	err := jc.update(func(tx *bolt.Tx) error {
		events := tx.Bucket(bucketEvents)
		events.FillPercent = 1 // keys only grow: pack the log's pages
		// The head is the last event (schema 8): the one the Append before
		// left when no other commit came between, else read from its record.
		memo := jc.memo.in(tx)
		seq, prev, ok := memo.headIn(events)
		if !ok {
			return jc.corrupt(seq, "the last event's key or record is malformed")
		}
		out = out[:0]
		prevHex := ""
		for i := range evs {
			failed = i
			out = append(out, evs[i])
			e := &out[i]
			if e.V == 0 {
				e.V = pos.EventVersion
			}
			if prepare != nil {
				prepare(tx, e)
			}
			if prevHex == "" {
				prevHex = jc.lastHex(prev)
			}
			e.Seq, e.PrevHash, e.Hash = seq+1, prevHex, ""
			if err := deriveWith(tx, e, &jc.orders, jc.proofs, &jc.memo); err != nil {
				var pe *proofError
				if errors.As(err, &pe) {
					return jc.refuse(pe.bucket, pe.key, pe.reason)
				}
				return err
			}
			data, h, err := jc.rec.sealPrev(e, prev)
			if err != nil {
				return err
			}
			// The key is the sequence in the record's header (bbolt copies
			// the key it is given): no allocation of its own.
			if err := events.Put(data[4:12:12], data); err != nil {
				return err
			}
			// The mark of the head (no allocation: the Put materialized the
			// bucket's root, whose header the commit writes).
			if err := events.SetSequence(headMark(e.Seq, h)); err != nil {
				return err
			}
			memo.setHead(e.Seq, h)
			if err := sealCheckpoint(tx, e, h, jc.rec.key); err != nil {
				return err
			}
			e.Hash = hexString(h)
			jc.last, jc.lastHash = h, e.Hash
			seq, prev, sum, prevHex = e.Seq, h, h, e.Hash
			// Only an event that hands out a number reads the counters, and only
			// then is the high-water file written, after the commit.
			numbered = numbered || e.ReceiptNo != 0 || e.DocNo != 0 || e.Kind == pos.EvDayClosed || e.Kind == EvNumbersContinued
		}
		if numbered {
			nums = numbersOf(tx)
		}
		return nil
	})
	if err != nil {
		return fail(err)
	}
	jc.writeHead(out[len(out)-1].Seq, sum)
	if numbered {
		jc.noteNumbers(nums)
	}
	return out, nil
}

// errNoEvents refuses a batch of no events.
var errNoEvents = errors.New("no events to append")

// errNoKind refuses an event without a kind.
var errNoKind = errors.New("the event has no kind")

// checkEvent refuses events whose ids or day would break the key layout.
func checkEvent(ev *pos.Event) error {
	if ev.Kind == "" {
		return errNoKind
	}
	if ev.Kind.IsOrderEvent() {
		if err := checkID(ev.OrderID); err != nil {
			return fmt.Errorf("order id: %w", err)
		}
	}
	if ev.Day != "" {
		if err := checkDay(ev.Day); err != nil {
			return err
		}
	}
	return nil
}

// writeHead writes the head record in place. It is written after the commit
// and not fsync'd: after a power cut it is at worst behind the journal, which
// the check allows (the event it names is still there), and it never gets ahead
// of it, since the commit was fsync'd first. Once written it is mapped, and
// stored into the mapping from then on (fileMap).
func (jc *journalCore) writeHead(seq uint64, h [32]byte) {
	jc.headMu.Lock()
	defer jc.headMu.Unlock()
	if jc.head == nil || (seq <= jc.headSeq && jc.headErr == nil) {
		return // an Append that committed later wrote it already
	}
	jc.headBuf = jc.rec.appendHead(jc.headBuf[:0], jc.rec.key, seq, h)
	if !jc.headMap.store(0, jc.headBuf) {
		if _, err := jc.head.WriteAt(jc.headBuf, 0); err != nil {
			jc.headErr = err
			return
		}
		jc.headMap.mapOnce(jc.head, headRecordSize)
	}
	jc.headSeq, jc.headErr = seq, nil
}

// closeHeadFile unmaps and closes the head record. The caller holds headMu.
func (jc *journalCore) closeHeadFile() error {
	jc.headMap.unmap()
	err := jc.head.Close()
	jc.head = nil
	return err
}

// noteNumbers raises the high-water file to n when n is above what it last wrote.
// Appends that hand out no number never call it. A failed write is kept and tried
// again with the next number, and Open catches the file up, since the journal
// itself already holds the numbers.
func (jc *journalCore) noteNumbers(n Numbers) {
	jc.numMu.Lock()
	defer jc.numMu.Unlock()
	if !jc.numWritten.behind(n) && jc.numErr == nil {
		return
	}
	hw := jc.numWritten.max(n)
	if err := jc.nums.write(hw); err != nil {
		jc.numErr = err
		return
	}
	jc.numWritten, jc.numErr = hw, nil
}

// counter reads one number from the meta bucket.
func (jc *journalCore) counter(ctx context.Context, what string, read func(meta *bolt.Bucket) uint64) (uint64, error) {
	if err := ctx.Err(); err != nil {
		return 0, fmt.Errorf("journal: %s: %w", what, err)
	}
	var n uint64
	err := jc.view(func(tx *bolt.Tx) error {
		n = read(tx.Bucket(bucketMeta))
		return nil
	})
	if err != nil {
		return 0, fmt.Errorf("journal: %s: %w", what, err)
	}
	return n, nil
}

// checkOrder replays the events of order id and compares the result with its
// stored record, its listing under day (first) and in unresolved. With day ""
// (start-up) the listing under a day is not checked, and first is the order's
// first event as its index says.
func (jc *journalCore) checkOrder(tx *bolt.Tx, id, day string, first uint64) error {
	orders, events := tx.Bucket(bucketOrders), tx.Bucket(bucketEvents)
	raw := orders.Get([]byte(id))
	if raw == nil && day == "" {
		return jc.mismatch("orders", id, "the order has events but no record")
	}
	if raw == nil {
		return jc.mismatch("orders", id, "listed under "+day+" but has no record")
	}
	var (
		o      = new(pos.Order)
		n      int
		seqs   []uint64
		hasDay bool
	)
	prefix := orderEventPrefix(id)
	c := orders.Cursor()
	for k, _ := c.Seek(prefix); k != nil && bytes.HasPrefix(k, prefix); k, _ = c.Next() {
		if len(k) != len(prefix)+8 {
			continue
		}
		seqs = append(seqs, beU64(k[len(prefix):]))
	}
	if day == "" && len(seqs) > 0 {
		first = seqs[0]
	}
	if len(seqs) == 0 || seqs[0] != first {
		return jc.mismatch("days", day+" "+id, "the listing does not name the order's first event")
	}
	for _, seq := range seqs {
		ev, err := jc.rec.eventAt(events, seq)
		if err != nil {
			return jc.mismatch("orders", id, fmt.Sprintf("its event index names event %d: %v", seq, err))
		}
		if ev.OrderID != id {
			return jc.mismatch("orders", id, fmt.Sprintf("its event index names event %d of order %q", seq, ev.OrderID))
		}
		hasDay = hasDay || ev.Day == day || day == ""
		ev.Hash = ""
		next := o.Clone()
		if err := next.Apply(ev); err != nil {
			if errors.Is(err, pos.ErrStaleEvent) {
				continue
			}
			return jc.mismatch("orders", id, fmt.Sprintf("event %d does not apply: %v", seq, err))
		}
		o = next
		n++
	}
	if !hasDay {
		return jc.mismatch("days", day+" "+id, "listed under the day but has no event on it")
	}
	want, err := json.Marshal(o)
	if err != nil {
		return err
	}
	if plain, err := jc.proofs.v.openValue(bucketOrders, []byte(id), raw); err != nil || !bytes.Equal(want, plain) {
		return jc.mismatch("orders", id, fmt.Sprintf("the stored record is not what its %d events give", n))
	}
	listed := tx.Bucket(bucketUnresolved).Get(u64(first)) != nil
	if listed != o.Unresolved() {
		return jc.mismatch("unresolved", id, fmt.Sprintf("listed %v, but the order's outcome is final %v", listed, !o.Unresolved()))
	}
	return nil
}
