package journal

import (
	"bytes"

	bolt "go.etcd.io/bbolt"
)

// derivedMemo remembers what Append's transactions last found and left in the
// indexes derive reads before it writes (closed_days, days, unresolved, the
// proofs bucket's presence, an order's first event) and the head of the log
// (the last event's sequence and hash, which the next Append chains to), so that the next Append
// need not open those buckets again: in bbolt each bucket opened costs a
// cursor, the bucket's own maps and its header, about seven heap allocations,
// whether or not anything is written to it.
//
// What it holds is true of the file as the transaction that recorded it left
// it, and it is believed in that transaction and in the one right after it
// only: bbolt numbers its read-write transactions by the one committed last
// (Tx.ID is the last committed one's plus one), so a transaction whose ID is
// the recording one's plus one follows its commit with no commit between. Any
// other writer (Rebuild, a migration, a test's raw Update) and a transaction
// rolled back (the next one gets the same ID again) leave a gap, and the memo
// is forgotten. Every write derive makes to these indexes updates it. The
// Tx it names is kept, so that no later transaction can be at its address.
//
// It is used inside the journal's write transactions only, which bbolt runs
// one at a time; a nil *derivedMemo (the replays) remembers nothing.
type derivedMemo struct {
	tx     *bolt.Tx
	txid   int
	proofs int8   // the proofs bucket: 0 not known, 1 there, -1 absent
	closed bool   // newest is known
	newest string // the newest date in closed_days, "" when there is none
	orders map[string]orderFacts
	// The head of the log (its last event's sequence and hash) as the
	// Append that recorded it left it, when known.
	headKnown bool
	headSeq   uint64
	head      [32]byte
}

// orderFacts is what derivedMemo knows of one order.
type orderFacts struct {
	first  uint64 // its first event, as its index gives it
	day    string // a date its days entry (day, first) is known to be in ("" none)
	listed int8   // its unresolved entry: 0 not known, 1 there, -1 absent
}

// maxMemoOrders bounds the orders derivedMemo knows; more start it over.
const maxMemoOrders = 64

// in readies m for tx: what m holds stays when tx is the transaction that
// recorded it or the one right after its commit, and is forgotten otherwise.
func (m *derivedMemo) in(tx *bolt.Tx) *derivedMemo {
	if m == nil || m.tx == tx {
		return m
	}
	if tx.ID() != m.txid+1 || m.tx == nil {
		m.proofs, m.closed, m.newest = 0, false, ""
		m.headKnown = false
		clear(m.orders)
	}
	m.tx, m.txid = tx, tx.ID()
	return m
}

// keepsProofs reports whether tx holds the proofs bucket, without opening it.
func (m *derivedMemo) keepsProofs(tx *bolt.Tx) bool {
	if m != nil && m.proofs != 0 {
		return m.proofs > 0
	}
	on := hasBucket(tx, bucketProofs)
	if m != nil {
		m.proofs = -1
		if on {
			m.proofs = 1
		}
	}
	return on
}

// headIn is the package's headIn of tx's events, from m when it is known.
func (m *derivedMemo) headIn(events *bolt.Bucket) (uint64, [32]byte, bool) {
	if m.headKnown {
		return m.headSeq, m.head, true
	}
	return headIn(events)
}

// setHead records the head tx leaves.
func (m *derivedMemo) setHead(seq uint64, h [32]byte) {
	m.headKnown, m.headSeq, m.head = true, seq, h
}

// laterClosed is the package's laterClosed, from the newest closed date when it
// is known.
func (m *derivedMemo) laterClosed(tx *bolt.Tx, day string) bool {
	if m == nil {
		return laterClosed(tx, day)
	}
	if !m.closed {
		k, _ := tx.Bucket(bucketClosedDays).Cursor().Last()
		m.newest, m.closed = string(k), true
	}
	// A date after day has a Z report exactly when the newest one is after it.
	return m.newest > day
}

// dayClosed notes that closed_days was written.
func (m *derivedMemo) dayClosed() {
	if m != nil {
		m.closed = false
	}
}

// order returns what m knows of order id (the zero orderFacts when nothing).
func (m *derivedMemo) order(id string) orderFacts {
	if m == nil {
		return orderFacts{}
	}
	return m.orders[id]
}

// setOrder records f of order id.
func (m *derivedMemo) setOrder(id string, f orderFacts) {
	if m == nil {
		return
	}
	if m.orders == nil || (len(m.orders) >= maxMemoOrders && m.orders[id] == (orderFacts{})) {
		if m.orders == nil {
			m.orders = make(map[string]orderFacts, maxMemoOrders)
		}
		clear(m.orders)
	}
	m.orders[id] = f
}

// forget forgets order id.
func (m *derivedMemo) forget(id string) {
	if m != nil {
		delete(m.orders, id)
	}
}

// hasBucket reports whether tx holds the top-level bucket name, without
// opening it.
func hasBucket(tx *bolt.Tx, name []byte) bool {
	k, v := tx.Cursor().Seek(name)
	return v == nil && bytes.Equal(k, name)
}
