package journal

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"

	bolt "go.etcd.io/bbolt"

	"galla/pos"
)

// The journal implements the interfaces pos declares.
var (
	_ pos.Journal    = (*Journal)(nil)
	_ pos.StaffStore = (*Journal)(nil)
)

// Order returns the derived state of the order with this merchant_order_id, or an
// error matching pos.ErrOrderNotFound.
func (j *Journal) Order(ctx context.Context, id string) (*pos.Order, error) {
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("journal: order: %w", err)
	}
	var o *pos.Order
	err := j.view(func(tx *bolt.Tx) error {
		var err error
		o, err = j.getOrder(tx, []byte(id))
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
func (j *Journal) getOrder(tx *bolt.Tx, id []byte) (*pos.Order, error) {
	raw := tx.Bucket(bucketOrders).Get(id)
	if raw == nil {
		return nil, pos.ErrOrderNotFound
	}
	if o := j.orders.get(string(id), raw); o != nil {
		return o, nil
	}
	o := new(pos.Order)
	if err := json.Unmarshal(raw, o); err != nil {
		return nil, err
	}
	return o, nil
}

// OrdersByDay returns every order that has an event recorded on day
// (pos.DayLayout), in the order of their first event. It seeks to the day's
// prefix in the days bucket and reads that range only, so its cost does not grow
// with the size of the journal.
func (j *Journal) OrdersByDay(ctx context.Context, day string) ([]*pos.Order, error) {
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("journal: orders of %s: %w", day, err)
	}
	if err := checkDay(day); err != nil {
		return nil, fmt.Errorf("journal: orders of day: %w", err)
	}
	var out []*pos.Order
	err := j.view(func(tx *bolt.Tx) error {
		prefix := dayPrefix(day)
		c := tx.Bucket(bucketDays).Cursor()
		for k, id := c.Seek(prefix); k != nil && bytes.HasPrefix(k, prefix); k, id = c.Next() {
			o, err := j.getOrder(tx, id)
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
func (j *Journal) Unresolved(ctx context.Context) ([]*pos.Order, error) {
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("journal: unresolved: %w", err)
	}
	var out []*pos.Order
	err := j.view(func(tx *bolt.Tx) error {
		return tx.Bucket(bucketUnresolved).ForEach(func(_, id []byte) error {
			o, err := j.getOrder(tx, id)
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
func (j *Journal) Events(ctx context.Context, orderID string) ([]pos.Event, error) {
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("journal: events of %q: %w", orderID, err)
	}
	var out []pos.Event
	err := j.view(func(tx *bolt.Tx) error {
		prefix := orderEventPrefix(orderID)
		events := tx.Bucket(bucketEvents)
		c := tx.Bucket(bucketOrders).Cursor()
		for k, _ := c.Seek(prefix); k != nil && bytes.HasPrefix(k, prefix); k, _ = c.Next() {
			seq := k[len(prefix):]
			if len(seq) != 8 {
				continue // a longer order id that shares this prefix cannot exist (no NUL in ids)
			}
			ev, err := j.rec.eventAt(events, beU64(seq))
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

// Event returns the event stored at seq.
func (j *Journal) Event(ctx context.Context, seq uint64) (pos.Event, error) {
	if err := ctx.Err(); err != nil {
		return pos.Event{}, fmt.Errorf("journal: event %d: %w", seq, err)
	}
	var ev pos.Event
	err := j.view(func(tx *bolt.Tx) error {
		var err error
		ev, err = j.rec.eventAt(tx.Bucket(bucketEvents), seq)
		return err
	})
	if err != nil {
		return pos.Event{}, fmt.Errorf("journal: event %d: %w", seq, err)
	}
	return ev, nil
}

// errNoEvent reports a sequence number past the end of the log.
var errNoEvent = errors.New("no such event")

// eventAt decodes the event stored at seq.
func (s *sealer) eventAt(events *bolt.Bucket, seq uint64) (pos.Event, error) {
	v := events.Get(u64(seq))
	if v == nil {
		return pos.Event{}, fmt.Errorf("event %d: %w", seq, errNoEvent)
	}
	r, err := s.decode(v)
	if err != nil {
		return pos.Event{}, fmt.Errorf("event %d: %w", seq, err)
	}
	return r.event()
}

// LastSeq returns the sequence number of the last event, 0 when the journal is
// empty.
func (j *Journal) LastSeq(ctx context.Context) (uint64, error) {
	return j.counter(ctx, "last sequence", func(meta *bolt.Bucket) uint64 {
		seq, _, _ := headOf(meta.Get(metaHead))
		return seq
	})
}

// LastReceiptNo returns the last receipt number allocated, 0 when none.
func (j *Journal) LastReceiptNo(ctx context.Context) (uint64, error) {
	return j.counter(ctx, "last receipt number", func(meta *bolt.Bucket) uint64 { return getU64(meta, metaReceipt) })
}

// LastDocNo returns the last number allocated in a document series, 0 when none.
func (j *Journal) LastDocNo(ctx context.Context, series string) (uint64, error) {
	if err := ctx.Err(); err != nil {
		return 0, fmt.Errorf("journal: last number of %s: %w", series, err)
	}
	var n uint64
	err := j.view(func(tx *bolt.Tx) error { n = lastDoc(tx, series); return nil })
	if err != nil {
		return 0, fmt.Errorf("journal: last number of %s: %w", series, err)
	}
	return n, nil
}

// FindDocument returns the order, and for a credit note the refund, that number
// no of series was given to.
func (j *Journal) FindDocument(ctx context.Context, series string, no uint64) (orderID, refund string, err error) {
	if err := ctx.Err(); err != nil {
		return "", "", fmt.Errorf("journal: document %s/%d: %w", series, no, err)
	}
	var found bool
	err = j.view(func(tx *bolt.Tx) error {
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

// LastZ returns the number of the last Z report, 0 when none.
func (j *Journal) LastZ(ctx context.Context) (uint64, error) {
	return j.counter(ctx, "last Z", func(meta *bolt.Bucket) uint64 { return getU64(meta, metaZ) })
}

// counter reads one number from the meta bucket.
func (j *Journal) counter(ctx context.Context, what string, read func(meta *bolt.Bucket) uint64) (uint64, error) {
	if err := ctx.Err(); err != nil {
		return 0, fmt.Errorf("journal: %s: %w", what, err)
	}
	var n uint64
	err := j.view(func(tx *bolt.Tx) error {
		n = read(tx.Bucket(bucketMeta))
		return nil
	})
	if err != nil {
		return 0, fmt.Errorf("journal: %s: %w", what, err)
	}
	return n, nil
}

// DayClose returns the sealed Z report of day, or nil when the day is open.
func (j *Journal) DayClose(ctx context.Context, day string) (*pos.DayClose, error) {
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("journal: day close %s: %w", day, err)
	}
	var dc *pos.DayClose
	err := j.view(func(tx *bolt.Tx) error {
		zno := tx.Bucket(bucketClosedDays).Get([]byte(day))
		if zno == nil {
			return nil
		}
		raw := tx.Bucket(bucketZ).Get(zno)
		if raw == nil {
			return fmt.Errorf("the Z report of a closed day is missing")
		}
		dc = new(pos.DayClose)
		if err := json.Unmarshal(raw, dc); err != nil {
			return err
		}
		if cps := tx.Bucket(bucketCheckpoints); cps != nil {
			if cp, ok := decodeCheckpoint(beU64(zno), cps.Get(zno)); ok {
				dc.Seq = cp.Seq
			}
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("journal: day close %s: %w", day, err)
	}
	return dc, nil
}

// Setting returns the value last stored for key by settings.changed, or nil when
// the key was never set.
func (j *Journal) Setting(ctx context.Context, key string) (json.RawMessage, error) {
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("journal: setting %q: %w", key, err)
	}
	var v json.RawMessage
	err := j.view(func(tx *bolt.Tx) error {
		if raw := tx.Bucket(bucketSettings).Get([]byte(key)); raw != nil {
			v = bytes.Clone(raw)
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("journal: setting %q: %w", key, err)
	}
	return v, nil
}
