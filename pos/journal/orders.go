package journal

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"

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
			o, err := or.getOrder(tx, id)
			if err != nil {
				return fmt.Errorf("order %q: %w", id, err)
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
		return tx.Bucket(bucketUnresolved).ForEach(func(_, id []byte) error {
			o, err := or.getOrder(tx, id)
			if err != nil {
				return fmt.Errorf("order %q: %w", id, err)
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
// no of series was given to.
func (or *Orders) FindDocument(ctx context.Context, series string, no uint64) (orderID, refund string, err error) {
	if err := ctx.Err(); err != nil {
		return "", "", fmt.Errorf("journal: document %s/%d: %w", series, no, err)
	}
	var found bool
	err = or.view(func(tx *bolt.Tx) error {
		orderID, refund, found = document(tx, series, no)
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
