package journal

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"sync"

	bolt "go.etcd.io/bbolt"

	"galla/pos"
)

// derive updates the derived buckets for ev, whose Seq is set, inside tx: the
// same code for Append and for Rebuild's replay, so that both give the same state.
// Each record it writes gets its proof from pv (proof.go) when the journal keeps
// proofs; each record it reads to build on is checked against its proof first.
// An error refuses the event (Append) or stops the replay (Rebuild).
func derive(tx *bolt.Tx, ev *pos.Event, cache *orderCache, pv prover) error {
	return deriveWith(tx, ev, cache, pv, nil)
}

// deriveWith is derive with memo, what the journal's Appends know of the
// indexes derive reads (memo.go), kept true by every write it makes to them.
func deriveWith(tx *bolt.Tx, ev *pos.Event, cache *orderCache, pv prover, memo *derivedMemo) error {
	memo = memo.in(tx)
	if ev.Day != "" && memo.laterClosed(tx, ev.Day) {
		return fmt.Errorf("day %s: %w", ev.Day, pos.ErrDayClosed)
	}
	applied := true
	if ev.Kind.IsOrderEvent() {
		var err error
		if applied, err = deriveOrder(tx, ev, cache, pv, memo); err != nil {
			return err
		}
	}
	if applied && ev.ReceiptNo != 0 {
		meta := tx.Bucket(bucketMeta)
		last := getU64(meta, metaReceipt)
		if ev.ReceiptNo != last+1 {
			return fmt.Errorf("the receipt number %d after %d: %w", ev.ReceiptNo, last, pos.ErrSequence)
		}
		if err := putU64(meta, metaReceipt, ev.ReceiptNo); err != nil {
			return err
		}
	}
	if applied && ev.DocNo != 0 {
		if err := deriveDocument(tx, ev); err != nil {
			return err
		}
	}
	// As the till's book of IMEIs took them, stale or not: whether a sale
	// holds the unit is read from its order.
	if err := deriveIMEIs(tx, ev, pv); err != nil {
		return err
	}
	if err := deriveStockDay(tx, ev); err != nil {
		return err
	}
	switch ev.Kind {
	case pos.EvDayClosed:
		memo.dayClosed()
		return deriveDayClose(tx, ev, pv)
	case EvNumbersContinued:
		return deriveNumbers(tx, ev)
	case EvOpenedBy:
		return deriveOpenedBy(tx, ev)
	case pos.EvStaffAdded, pos.EvStaffChanged:
		var s pos.Staff
		if err := json.Unmarshal(ev.Data, &s); err != nil {
			return fmt.Errorf("%w: staff record: %w", pos.ErrBadEvent, err)
		}
		if err := checkID(s.ID); err != nil {
			return fmt.Errorf("%w: staff id: %w", pos.ErrBadEvent, err)
		}
		return pv.put(tx, bucketStaff, []byte(s.ID), compact(ev.Data))
	case pos.EvStaffAttempt:
		a, err := staffAttempt(ev.Data)
		if err != nil {
			return err
		}
		staff := tx.Bucket(bucketStaff)
		raw := staff.Get([]byte(a.ID))
		if raw == nil {
			return fmt.Errorf("%w: staff.attempt of %q: %w", pos.ErrBadEvent, a.ID, pos.ErrUnknownStaff)
		}
		// The counters are written over the stored record: an edited one
		// would be given a proof by them.
		if reason := pv.check(tx, bucketStaff, []byte(a.ID), raw); reason != "" {
			return &proofError{bucket: string(bucketStaff), key: a.ID, reason: reason}
		}
		rec, err := withAttempt(raw, a)
		if err != nil {
			return fmt.Errorf("staff %q: stored record: %w", a.ID, err)
		}
		return pv.put(tx, bucketStaff, []byte(a.ID), rec)
	case pos.EvSettingsChanged:
		st := ev.Setting
		if st == nil || st.Key == "" || !json.Valid(st.Value) {
			return fmt.Errorf("%w: settings.changed without a key and a JSON value", pos.ErrBadEvent)
		}
		return pv.put(tx, bucketSettings, []byte(st.Key), compact(st.Value))
	case pos.EvCatalogImported:
		if !json.Valid(ev.Data) {
			return fmt.Errorf("%w: catalog.imported without the catalog", pos.ErrBadEvent)
		}
		return pv.put(tx, bucketCatalog, catalogKey, compact(ev.Data))
	}
	return nil
}

// staffAttempt reads the Data of a staff.attempt event.
func staffAttempt(data []byte) (pos.StaffAttempt, error) {
	var a pos.StaffAttempt
	if err := json.Unmarshal(data, &a); err != nil {
		return a, fmt.Errorf("%w: staff attempt: %w", pos.ErrBadEvent, err)
	}
	if err := checkID(a.ID); err != nil {
		return a, fmt.Errorf("%w: staff id: %w", pos.ErrBadEvent, err)
	}
	if a.FailedAttempts < 0 {
		return a, fmt.Errorf("%w: staff attempt: %d failed attempts", pos.ErrBadEvent, a.FailedAttempts)
	}
	return a, nil
}

// withAttempt returns the stored staff record raw with the counters of a: the
// same bytes for Append, Rebuild's replay and the start-up check. Every other
// field, known to this version or not, is kept as it was.
func withAttempt(raw []byte, a pos.StaffAttempt) ([]byte, error) {
	var m map[string]json.RawMessage
	if err := json.Unmarshal(raw, &m); err != nil {
		return nil, err
	}
	if m == nil {
		return nil, errors.New("not a JSON object")
	}
	// As pos.Staff writes them: omitted when zero.
	delete(m, "failed_attempts")
	delete(m, "locked_until")
	if a.FailedAttempts != 0 {
		m["failed_attempts"] = json.RawMessage(strconv.Itoa(a.FailedAttempts))
	}
	if !a.LockedUntil.IsZero() {
		t, err := a.LockedUntil.MarshalJSON()
		if err != nil {
			return nil, err
		}
		m["locked_until"] = t
	}
	return json.Marshal(m)
}

// deriveOrder applies an order event to its order with Order.Apply and updates
// orders (state and event index), days and unresolved. It reports whether the event was
// applied (false for a stale event, which is stored and changes no order).
func deriveOrder(tx *bolt.Tx, ev *pos.Event, cache *orderCache, pv prover, memo *derivedMemo) (bool, error) {
	orders := tx.Bucket(bucketOrders)
	// Order ids ascend (the terminal makes them from the day and a counter) and
	// an order's event index sorts right after it, so nearly every put lands on
	// the last page: pack the pages instead of splitting them in halves that
	// are never filled again (bbolt's default of 50% left the pages a third full).
	orders.FillPercent = ordersFill
	// The key of this event's index entry (proof.go) holds the order's id:
	// one allocation for both.
	indexKey := orderEventKeyOf(ev.OrderID, ev.Seq)
	id := indexKey[:len(ev.OrderID)]
	// One cursor for the reads of orders (a cursor's stack is allocated anew
	// for each Get).
	c := orders.Cursor()
	raw := cursorGet(c, id)
	var o *pos.Order
	switch {
	case raw != nil:
		// The order Append wrote last is taken out of the cache, not copied:
		// this transaction changes it, and puts it back as written.
		if o = cache.take(ev.OrderID, raw); o == nil {
			// The bytes this journal wrote last are proved; others are
			// checked: the next state is built on the stored one, and an
			// edited record would be given a proof by it.
			if reason := pv.checkOrderProof(tx, id, raw); reason != "" {
				return false, &proofError{bucket: string(bucketOrders), key: ev.OrderID, reason: reason}
			}
			plain, err := pv.v.openValue(bucketOrders, id, raw)
			if err != nil {
				return false, fmt.Errorf("order %q: stored state: %w", ev.OrderID, err)
			}
			o = new(pos.Order)
			if err := json.Unmarshal(plain, o); err != nil {
				return false, fmt.Errorf("order %q: stored state: %w", ev.OrderID, err)
			}
		}
	case ev.Kind != pos.EvOrderIntent:
		return false, fmt.Errorf("order %q: %w", ev.OrderID, pos.ErrOrderNotFound)
	default:
		o = new(pos.Order)
	}
	// o is this transaction's own (taken out of the cache, decoded, or new),
	// and is dropped when the event does not apply: no copy of it is made.
	err := o.ApplyInPlace(*ev)
	stale := errors.Is(err, pos.ErrStaleEvent)
	if err != nil && !stale {
		return false, err
	}
	// The newest entry of the index holds the proof of the order's record
	// (proof.go); it is put once, with its value, below. Until then it is
	// counted as there: it is the order's first event when the order has none.
	if raw == nil && stale {
		memo.forget(ev.OrderID)
		return false, orders.Put(indexKey, nil) // no order exists to list
	}
	var f orderFacts // what the memo knows of the order's indexes
	if raw != nil {
		f = memo.order(ev.OrderID)
	}
	keeps := memo.keepsProofs(tx)
	// Puts that would change nothing are skipped: each bucket touched costs
	// pages written in the commit.
	if f.first == 0 {
		f.first = firstSeqAt(c, ev.OrderID, indexKey)
	}
	first := f.first
	if ev.Day != "" && f.day != ev.Day {
		days, k := tx.Bucket(bucketDays), dayKey(ev.Day, first)
		days.FillPercent = ordersFill // keys ascend too: day, then first sequence
		if days.Get(k) == nil {
			if err := days.Put(k, id); err != nil {
				return false, err
			}
		}
		f.day = ev.Day
	}
	if stale {
		memo.setOrder(ev.OrderID, f)
		var proof []byte
		if keeps {
			plain, err := pv.v.openValue(bucketOrders, id, raw)
			if err != nil {
				return false, fmt.Errorf("order %q: stored state: %w", ev.OrderID, err)
			}
			proof = pv.sum(bucketOrders, indexKey, plain)
		}
		return false, orders.Put(indexKey, proof)
	}
	buf, err := marshalOrder(o)
	if err != nil {
		return false, err
	}
	// The proof goes after the record, in the same allocation.
	data := buf[:len(buf):len(buf)]
	stored := pv.v.sealValue(bucketOrders, id, data) // sealed when it names a buyer
	if err := orders.Put(id, stored); err != nil {
		return false, err
	}
	var proof []byte
	if keeps {
		proof = pv.appendSum(buf[len(buf):], bucketOrders, indexKey, data)
	}
	if err := orders.Put(indexKey, proof); err != nil {
		return false, err
	}
	// Remembered at once: should the transaction roll back, the stored bytes
	// stay the ones before, which the entry's do not match.
	cache.put(ev.OrderID, stored, o)
	listed, want := f.listed, int8(-1)
	if o.Unresolved() {
		want = 1
	}
	f.listed = want
	memo.setOrder(ev.OrderID, f)
	if listed == want {
		return true, nil
	}
	unresolved, k := tx.Bucket(bucketUnresolved), u64(first)
	if listed == 0 {
		listed = -1
		if unresolved.Get(k) != nil {
			listed = 1
		}
	}
	switch {
	case want > 0 && listed < 0:
		return true, unresolved.Put(k, id)
	case want < 0 && listed > 0:
		return true, unresolved.Delete(k)
	}
	return true, nil
}

// marshalOrder is json.Marshal of o (appendOrderJSON) in one allocation: the
// bytes are built on the stack and copied out once, as json.Marshal copies
// its own buffer, with room after them for the proof of the record (proofSize).
func marshalOrder(o *pos.Order) ([]byte, error) {
	var buf [4096]byte
	data, err := appendOrderJSON(buf[:0], o)
	if err != nil {
		return nil, err
	}
	out := make([]byte, len(data), len(data)+proofSize)
	copy(out, data)
	return out, nil
}

// proofSize is the length of a proof (prover.sum).
const proofSize = 32

// orderEventKeyOf is orderEventKey in one allocation.
func orderEventKeyOf(orderID string, seq uint64) []byte {
	k := make([]byte, len(orderID)+1+8)
	copy(k, orderID)
	k[len(orderID)] = sep
	binary.BigEndian.PutUint64(k[len(orderID)+1:], seq)
	return k
}

// cursorGet is Bucket.Get through c, a cursor of a bucket without nested
// buckets: the value of key, nil when it is absent.
func cursorGet(c *bolt.Cursor, key []byte) []byte {
	k, v := c.Seek(key)
	if !bytes.Equal(k, key) {
		return nil
	}
	return v
}

// ordersFill is the fill of the orders bucket's pages when bbolt splits them.
const ordersFill = 0.95

// firstSeq is the sequence of the first event of orderID (its order.intent): the
// first key of its event index in orders.
func firstSeq(tx *bolt.Tx, orderID string) uint64 {
	return firstSeqAt(tx.Bucket(bucketOrders).Cursor(), orderID, nil)
}

// firstSeqAt is firstSeq through c, a cursor of orders, counting the index
// entry own (nil: none) as there whether it is put yet or not.
func firstSeqAt(c *bolt.Cursor, orderID string, own []byte) uint64 {
	prefix := own
	if prefix != nil {
		prefix = own[:len(orderID)+1]
	} else {
		prefix = orderEventPrefix(orderID)
	}
	k, _ := c.Seek(prefix)
	if own != nil && (!bytes.HasPrefix(k, prefix) || bytes.Compare(own, k) < 0) {
		k = own
	}
	if !bytes.HasPrefix(k, prefix) || len(k) != len(prefix)+8 {
		return 0
	}
	return beU64(k[len(prefix):])
}

// laterClosed reports whether a date after day has a Z report: day can then
// take no more events. A date whose last Z is its newest still can: what is
// sold after a Z on the same date belongs to the date's next period (ADR 0010).
func laterClosed(tx *bolt.Tx, day string) bool {
	c := tx.Bucket(bucketClosedDays).Cursor()
	k, _ := c.Seek([]byte(day))
	if k != nil && string(k) == day {
		k, _ = c.Next()
	}
	return k != nil
}

// deriveDayClose seals a period of a date: the Z number must be the next one,
// and a date already closed takes the Z of its next period (ADR 0010), whose
// Period and After follow the date's last Z. closed_days keeps the number of
// the date's last Z.
func deriveDayClose(tx *bolt.Tx, ev *pos.Event, pv prover) error {
	dc := ev.DayClose
	if dc == nil {
		return fmt.Errorf("%w: day.closed without its report", pos.ErrBadEvent)
	}
	if err := checkDay(dc.Day); err != nil {
		return fmt.Errorf("%w: %w", pos.ErrBadEvent, err)
	}
	if laterClosed(tx, dc.Day) {
		return fmt.Errorf("day %s: %w", dc.Day, pos.ErrDayClosed)
	}
	closed := tx.Bucket(bucketClosedDays)
	prev := closed.Get([]byte(dc.Day))
	switch {
	case prev == nil && dc.Period > 1:
		return fmt.Errorf("%w: Z %d closes period %d of %s, which has no Z before it", pos.ErrBadEvent, dc.ZNo, dc.Period, dc.Day)
	case prev != nil:
		last, err := storedDayClose(tx, pv, prev)
		if err != nil {
			return fmt.Errorf("day %s: its last Z report: %w", dc.Day, err)
		}
		seq, _ := zSeq(tx, prev)
		if dc.Period != max(last.Period, 1)+1 || dc.After != seq {
			return fmt.Errorf("day %s (Z %d): %w", dc.Day, last.ZNo, pos.ErrDayClosed)
		}
	}
	meta := tx.Bucket(bucketMeta)
	last := getU64(meta, metaZ)
	if dc.ZNo != last+1 {
		return fmt.Errorf("the Z number %d after %d: %w", dc.ZNo, last, pos.ErrSequence)
	}
	data, err := json.Marshal(dc)
	if err != nil {
		return err
	}
	if err := pv.put(tx, bucketZ, u64(dc.ZNo), data); err != nil {
		return err
	}
	if err := closed.Put([]byte(dc.Day), u64(dc.ZNo)); err != nil {
		return err
	}
	return putU64(meta, metaZ, dc.ZNo)
}

// storedDayClose reads the Z report numbered zno (8 bytes), checked against its
// proof.
func storedDayClose(tx *bolt.Tx, pv prover, zno []byte) (*pos.DayClose, error) {
	raw := tx.Bucket(bucketZ).Get(zno)
	if raw == nil {
		return nil, fmt.Errorf("the Z report %d is missing", beU64(zno))
	}
	if reason := pv.check(tx, bucketZ, zno, raw); reason != "" {
		return nil, &proofError{bucket: string(bucketZ), key: fmt.Sprint(beU64(zno)), reason: reason}
	}
	var dc pos.DayClose
	if err := json.Unmarshal(raw, &dc); err != nil {
		return nil, err
	}
	return &dc, nil
}

// zSeq is the sequence of the day.closed event of Z report zno (8 bytes), from
// its checkpoint.
func zSeq(tx *bolt.Tx, zno []byte) (uint64, bool) {
	cps := tx.Bucket(bucketCheckpoints)
	if cps == nil {
		return 0, false
	}
	cp, ok := decodeCheckpoint(beU64(zno), cps.Get(zno))
	return cp.Seq, ok
}

// compact returns the compact form of valid JSON.
func compact(data []byte) []byte {
	var b bytes.Buffer
	if err := json.Compact(&b, data); err != nil {
		return bytes.Clone(data)
	}
	return b.Bytes()
}

// orderCache keeps the orders written last decoded, keyed by the exact bytes
// stored, so that the next event of a sale need not decode its order again. A
// hit needs the stored bytes to be equal, so the cache can never serve a state
// other than the stored one. A nil *orderCache caches nothing.
//
// An order is remembered as soon as its record is put, inside the transaction:
// a transaction rolled back leaves the stored bytes the ones before, which the
// entry's do not match (a sealed record's bytes are new each time), and a
// reader's transaction that began before the commit reads the bytes before
// too. The Append that changes an order takes it out of the cache (take) and
// puts it back as written; a reader gets a copy (get).
type orderCache struct {
	mu sync.Mutex
	m  map[string]cachedOrder
}

// cachedOrder is one entry of orderCache.
type cachedOrder struct {
	raw []byte
	o   *pos.Order
}

// maxCachedOrders bounds orderCache; a full cache starts over.
const maxCachedOrders = 64

// get returns a copy of the cached order id if its stored bytes are raw.
func (c *orderCache) get(id string, raw []byte) *pos.Order {
	if c == nil {
		return nil
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	e, ok := c.m[id]
	if !ok || !bytes.Equal(e.raw, raw) {
		return nil
	}
	return e.o.Clone()
}

// take returns the cached order id itself if its stored bytes are raw, and
// forgets it: the caller may change it.
func (c *orderCache) take(id string, raw []byte) *pos.Order {
	if c == nil {
		return nil
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	e, ok := c.m[id]
	if !ok {
		return nil
	}
	delete(c.m, id)
	if !bytes.Equal(e.raw, raw) {
		return nil
	}
	return e.o
}

// put remembers o as the order stored as raw under id. o is the cache's from
// then on: it is not changed but by the one who takes it.
func (c *orderCache) put(id string, raw []byte, o *pos.Order) {
	if c == nil {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.m == nil || len(c.m) >= maxCachedOrders {
		c.m = make(map[string]cachedOrder, maxCachedOrders)
	}
	c.m[id] = cachedOrder{raw: raw, o: o}
}
