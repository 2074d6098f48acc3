package journal

import (
	"context"
	"fmt"

	bolt "go.etcd.io/bbolt"

	"galla/pos"
)

var _ pos.EventRanger = (*Journal)(nil)

// EventsFrom calls fn with every event from sequence number from on, in order,
// inside one read transaction: pos derives the counter's shifts, held bills and
// IMEIs this way. An error of fn stops the walk and is returned.
func (j *Journal) EventsFrom(ctx context.Context, from uint64, fn func(pos.Event) error) error {
	err := j.view(func(tx *bolt.Tx) error {
		c := tx.Bucket(bucketEvents).Cursor()
		for k, v := c.Seek(u64(max(from, 1))); k != nil; k, v = c.Next() {
			if err := ctx.Err(); err != nil {
				return err
			}
			ev, err := j.storedEvent(k, v)
			if err != nil {
				return err
			}
			if err := fn(ev); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("journal: events from %d: %w", from, err)
	}
	return nil
}
