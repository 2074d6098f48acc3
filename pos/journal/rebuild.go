package journal

import (
	"context"
	"errors"
	"fmt"

	bolt "go.etcd.io/bbolt"
	berrors "go.etcd.io/bbolt/errors"
)

// Rebuild throws the derived buckets away and replays every event into fresh
// ones, in one transaction: either the whole new state is committed or the old
// one stays. The events are checked against their hashes as they are read.
func (j *Journal) Rebuild(ctx context.Context) error {
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("journal: rebuild: %w", err)
	}
	err := j.update(func(tx *bolt.Tx) error {
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
			r, err := j.rec.decode(v)
			if err != nil {
				return fmt.Errorf("event %d: %w", beU64(k), err)
			}
			ev, err := r.event()
			if err != nil {
				return err
			}
			ev.Hash = ""
			if err := derive(tx, &ev, nil); err != nil {
				return fmt.Errorf("replay event %d (%s): %w", ev.Seq, ev.Kind, err)
			}
			if err := sealCheckpoint(tx, &ev, r.Hash, j.rec.keyOf(r)); err != nil {
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
