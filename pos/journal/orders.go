package journal

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strconv"

	bolt "go.etcd.io/bbolt"

	"galla/pos"
)

// Orders reads the orders derived from the events (an order, a day's orders, the
// unresolved ones, an order's events) and the numbers handed out to their
// documents (the receipt counter, the last number of a series, the order a
// number was given to).
type Orders struct{ *journalCore }

// Order returns the derived state of the order with this merchant_order_id, or an
// error matching pos.ErrOrderNotFound.
func (or *Orders) Order(ctx context.Context, id string) (*pos.Order, error) {
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("journal: order: %w", err)
	}
	var o *pos.Order
	err := or.view(func(tx *bolt.Tx) error {
		var err error
		o, err = or.getOrder(tx, []byte(id))
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("journal: order %q: %w", id, err)
	}
	return o, nil
}

// getOrder decodes the order stored under id, or copies it from the orders
// Append wrote last when the stored bytes are the ones it wrote (a sale's next
// step reads the order it just journaled).
func (or *Orders) getOrder(tx *bolt.Tx, id []byte) (*pos.Order, error) {
	raw := tx.Bucket(bucketOrders).Get(id)
	if raw == nil {
		return nil, pos.ErrOrderNotFound
	}
	if o := or.orders.get(string(id), raw); o != nil {
		return o, nil // the bytes Append wrote last, so proved
	}
	if reason := or.proofs.checkOrderProof(tx, id, raw); reason != "" {
		return nil, or.refuse(string(bucketOrders), string(id), reason)
	}
	plain, err := or.proofs.v.openValue(bucketOrders, id, raw)
	if err != nil {
		return nil, or.refuse(string(bucketOrders), string(id), err.Error())
	}
	o := new(pos.Order)
	if err := json.Unmarshal(plain, o); err != nil {
		return nil, err
	}
	return o, nil
}

// OrdersByDay returns every order that has an event recorded on day
// (pos.DayLayout), in the order of their first event. It seeks to the day's
// prefix in the days bucket and reads that range only, so its cost does not grow
// with the size of the journal.
func (or *Orders) OrdersByDay(ctx context.Context, day string) ([]*pos.Order, error) {
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("journal: orders of %s: %w", day, err)
	}
	if err := checkDay(day); err != nil {
		return nil, fmt.Errorf("journal: orders of day: %w", err)
	}
	var out []*pos.Order
	err := or.view(func(tx *bolt.Tx) error {
		prefix := dayPrefix(day)
		c := tx.Bucket(bucketDays).Cursor()
		for k, id := c.Seek(prefix); k != nil && bytes.HasPrefix(k, prefix); k, id = c.Next() {
			o, err := or.listed(tx, bucketDays, k, id, k[len(prefix):], day)
			if err != nil {
				return err
			}
			out = append(out, o)
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("journal: orders of %s: %w", day, err)
	}
	return out, nil
}

// Unresolved returns every order for which Order.Unresolved reports true, oldest
// first.
func (or *Orders) Unresolved(ctx context.Context) ([]*pos.Order, error) {
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("journal: unresolved: %w", err)
	}
	var out []*pos.Order
	err := or.view(func(tx *bolt.Tx) error {
		return tx.Bucket(bucketUnresolved).ForEach(func(k, id []byte) error {
			o, err := or.listed(tx, bucketUnresolved, k, id, k, "")
			if err != nil {
				return err
			}
			if !o.Unresolved() {
				return or.refuse(string(bucketUnresolved), printable(k), fmt.Sprintf("the index lists order %q as unresolved, but its proven record is final (%s): the index was changed outside Galla", id, o.State))
			}
			out = append(out, o)
			return nil
		})
	})
	if err != nil {
		return nil, fmt.Errorf("journal: unresolved: %w", err)
	}
	return out, nil
}

// Events returns the events of one order in sequence, stale ones included, each
// with its hash chain filled in. An order with no events gives an empty list.
func (or *Orders) Events(ctx context.Context, orderID string) ([]pos.Event, error) {
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("journal: events of %q: %w", orderID, err)
	}
	var out []pos.Event
	err := or.view(func(tx *bolt.Tx) error {
		prefix := orderEventPrefix(orderID)
		events := tx.Bucket(bucketEvents)
		c := tx.Bucket(bucketOrders).Cursor()
		for k, _ := c.Seek(prefix); k != nil && bytes.HasPrefix(k, prefix); k, _ = c.Next() {
			seq := k[len(prefix):]
			if len(seq) != 8 {
				continue // a longer order id that shares this prefix cannot exist (no NUL in ids)
			}
			ev, err := or.rec.eventAt(events, beU64(seq))
			if err != nil {
				return err
			}
			out = append(out, ev)
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("journal: events of %q: %w", orderID, err)
	}
	return out, nil
}

// LastReceiptNo returns the last receipt number allocated, 0 when none.
func (or *Orders) LastReceiptNo(ctx context.Context) (uint64, error) {
	return or.counter(ctx, "last receipt number", func(meta *bolt.Bucket) uint64 { return getU64(meta, metaReceipt) })
}

// LastDocNo returns the last number allocated in a document series, 0 when none.
func (or *Orders) LastDocNo(ctx context.Context, series string) (uint64, error) {
	if err := ctx.Err(); err != nil {
		return 0, fmt.Errorf("journal: last number of %s: %w", series, err)
	}
	var n uint64
	err := or.view(func(tx *bolt.Tx) error { n = lastDoc(tx, series); return nil })
	if err != nil {
		return 0, fmt.Errorf("journal: last number of %s: %w", series, err)
	}
	return n, nil
}

// FindDocument returns the order, and for a credit note the refund, that number
// no of series was given to. The entry of the documents index is checked
// against the proven record of the order it names (checkDocument).
func (or *Orders) FindDocument(ctx context.Context, series string, no uint64) (orderID, refund string, err error) {
	if err := ctx.Err(); err != nil {
		return "", "", fmt.Errorf("journal: document %s/%d: %w", series, no, err)
	}
	var found bool
	err = or.view(func(tx *bolt.Tx) error {
		if orderID, refund, found = document(tx, series, no); found {
			return or.checkDocument(tx, series, no, orderID, refund)
		}
		return nil
	})
	switch {
	case err != nil:
		return "", "", fmt.Errorf("journal: document %s/%d: %w", series, no, err)
	case !found:
		return "", "", fmt.Errorf("journal: document %s/%d: %w", series, no, pos.ErrOrderNotFound)
	}
	return orderID, refund, nil
}

// The lookup indexes (days, unresolved, documents) carry no proof of their
// own: an entry is checked against the proven record of the order it names
// before that order is returned, so that an entry edited in the file (a
// document number pointed at another sale, a day's entry at another order)
// is a *MismatchError naming it, never a wrong order. The checks read only
// what the lookup reads anyway: the order's record and the first key of its
// event index, on the same page.

// listed returns the order id listed in bucket under key, whose key names
// the sequence seq (8 bytes) of the order's first event, and for the days
// index the day: an entry naming another order than the one whose first
// event that is, or listing an order under a day it has no event on, was
// changed outside Galla.
func (or *Orders) listed(tx *bolt.Tx, bucket, key, id, seq []byte, day string) (*pos.Order, error) {
	if len(seq) != 8 {
		return nil, or.refuse(string(bucket), printable(key), "the index entry's key is not one Galla writes: the index was changed outside Galla")
	}
	o, err := or.getOrder(tx, id)
	switch {
	case errors.Is(err, pos.ErrOrderNotFound):
		return nil, or.refuse(string(bucket), printable(key), fmt.Sprintf("the index names order %q, which has no record: the index was changed outside Galla", id))
	case err != nil:
		return nil, fmt.Errorf("order %q: %w", id, err)
	}
	if first := firstSeq(tx, string(id)); first != beU64(seq) {
		return nil, or.refuse(string(bucket), printable(key), fmt.Sprintf("the index names order %q at event %d, but that order's first event is %d: the index was changed outside Galla", id, beU64(seq), first))
	}
	if day != "" {
		on, err := or.onDay(tx, o, day)
		switch {
		case err != nil:
			return nil, fmt.Errorf("order %q: %w", id, err)
		case !on:
			return nil, or.refuse(string(bucket), printable(key), fmt.Sprintf("the index lists order %q under %s, but it has no event on that day: the index was changed outside Galla", id, day))
		}
	}
	return o, nil
}

// onDay reports whether order o has an event recorded on day: a day its
// proven record keeps (its sale's, its payment's, a refund's, its
// cancellation's), else the day of one of its events (a reprint, a late
// answer: days the record keeps no trace of), read through its event index.
func (or *Orders) onDay(tx *bolt.Tx, o *pos.Order, day string) (bool, error) {
	if o.Day == day || o.PaidDay == day || (o.Cancelled != nil && o.Cancelled.Day == day) ||
		slices.ContainsFunc(o.Refunds, func(r pos.Refund) bool { return r.Day == day }) {
		return true, nil
	}
	prefix := orderEventPrefix(o.ID)
	events := tx.Bucket(bucketEvents)
	c := tx.Bucket(bucketOrders).Cursor()
	for k, _ := c.Seek(prefix); k != nil && bytes.HasPrefix(k, prefix); k, _ = c.Next() {
		if len(k) != len(prefix)+8 {
			continue
		}
		ev, err := or.rec.eventAt(events, beU64(k[len(prefix):]))
		if err != nil {
			return false, err
		}
		if ev.Day == day {
			return true, nil
		}
	}
	return false, nil
}

// checkDocument checks the documents index's entry of number no of series,
// which names orderID (and for a credit note its refund), against the
// order's proven record: the number must be the order's own (refund "") or
// that refund's.
func (or *Orders) checkDocument(tx *bolt.Tx, series string, no uint64, orderID, refund string) error {
	key := fmt.Sprintf("%s/%d", series, no)
	o, err := or.getOrder(tx, []byte(orderID))
	switch {
	case errors.Is(err, pos.ErrOrderNotFound):
		return or.refuse(string(bucketDocuments), key, fmt.Sprintf("the index gives the number to order %q, which has no record: the index was changed outside Galla", orderID))
	case err != nil:
		return fmt.Errorf("order %q: %w", orderID, err)
	}
	carries := refund == "" && o.Series == series && o.DocNo == no
	if refund != "" {
		i := slices.IndexFunc(o.Refunds, func(r pos.Refund) bool { return r.UniqueTxnID == refund })
		carries = i >= 0 && o.Refunds[i].Series == series && o.Refunds[i].DocNo == no
	}
	if !carries {
		what := "order " + strconv.Quote(orderID)
		if refund != "" {
			what = "refund " + strconv.Quote(refund) + " of " + what
		}
		return or.refuse(string(bucketDocuments), key, fmt.Sprintf("the index gives the number to %s, whose proven record does not carry it: the index was changed outside Galla", what))
	}
	return nil
}
