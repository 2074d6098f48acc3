package journal

import (
	"context"
	"encoding/hex"
	"errors"
	"fmt"

	bolt "go.etcd.io/bbolt"

	"galla/pos"
)

// Append commits ev as the next event in one short bbolt transaction (one fsync'd
// commit) that also updates the derived buckets, following the rules of
// pos.Journal: it assigns Seq, sets V when zero, fills PrevHash and Hash, refuses
// events of a closed day (pos.ErrDayClosed), applies order events with
// Order.Apply (a stale event is stored and changes nothing), checks receipt and Z
// numbers (pos.ErrSequence) and keeps staff, settings and the catalog. On any
// error nothing is stored and the error reads "journal: append KIND: ...".
func (j *Journal) Append(ctx context.Context, ev pos.Event) (pos.Event, error) {
	return j.append(ctx, ev, nil)
}

// append is Append with a hook that may adjust the event inside the transaction,
// before it is applied (StaffStore.Put uses it to tell added from changed).
func (j *Journal) append(ctx context.Context, ev pos.Event, prepare func(tx *bolt.Tx, ev *pos.Event)) (pos.Event, error) {
	fail := func(err error) (pos.Event, error) {
		return pos.Event{}, fmt.Errorf("journal: append %s: %w", ev.Kind, err)
	}
	if err := ctx.Err(); err != nil {
		return fail(err)
	}
	if err := checkEvent(&ev); err != nil {
		return fail(err)
	}
	if ev.V == 0 {
		ev.V = pos.EventVersion
	}
	var (
		out      pos.Event
		numbered bool
		nums     Numbers
		sum      [32]byte
	)
	err := j.update(func(tx *bolt.Tx) error {
		meta := tx.Bucket(bucketMeta)
		seq, prev, ok := headOf(meta.Get(metaHead))
		if !ok {
			return j.corrupt(0, "the head in meta is malformed")
		}
		e := ev
		if prepare != nil {
			prepare(tx, &e)
		}
		e.Seq, e.PrevHash, e.Hash = seq+1, hex.EncodeToString(prev[:]), ""
		if err := derive(tx, &e, &j.orders); err != nil {
			return err
		}
		data, h, err := j.rec.seal(&e)
		if err != nil {
			return err
		}
		events := tx.Bucket(bucketEvents)
		events.FillPercent = 1 // keys only grow: pack the log's pages
		if err := events.Put(u64(e.Seq), data); err != nil {
			return err
		}
		if err := meta.Put(metaHead, headValue(e.Seq, h)); err != nil {
			return err
		}
		if err := sealCheckpoint(tx, &e, h, j.rec.key); err != nil {
			return err
		}
		e.Hash, sum = hex.EncodeToString(h[:]), h
		out = e
		// Only an event that hands out a number reads the counters, and only
		// then is the high-water file written, after the commit.
		if numbered = e.ReceiptNo != 0 || e.DocNo != 0 || e.Kind == pos.EvDayClosed || e.Kind == EvNumbersContinued; numbered {
			nums = numbersOf(tx)
		}
		return nil
	})
	if err != nil {
		return fail(err)
	}
	j.writeHead(out.Seq, sum)
	if numbered {
		j.noteNumbers(nums)
	}
	return out, nil
}

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
