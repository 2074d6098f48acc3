package journal

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	bolt "go.etcd.io/bbolt"

	"galla/pos"
)

// Staff keeps the staff records (pos.StaffStore and pos.AttemptRecorder): each
// change is a staff event, the record its derived state.
type Staff struct{ *journalCore }

// List returns every staff record, ordered by ID (pos.StaffStore).
func (st *Staff) List(ctx context.Context) ([]pos.Staff, error) {
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("journal: list staff: %w", err)
	}
	var out []pos.Staff
	err := st.view(func(tx *bolt.Tx) error {
		recorded, _ := proved(tx)
		return tx.Bucket(bucketStaff).ForEach(func(k, v []byte) error {
			if reason := st.proofs.check(tx, bucketStaff, k, v); reason != "" {
				return st.refuse(string(bucketStaff), string(k), reason)
			}
			var s pos.Staff
			if err := json.Unmarshal(v, &s); err != nil {
				return fmt.Errorf("staff %q: %w", k, err)
			}
			s.Recorded = recorded
			out = append(out, s)
			return nil
		})
	})
	if err != nil {
		return nil, fmt.Errorf("journal: list staff: %w", err)
	}
	return out, nil
}

// Get returns the staff record of id, or an error matching pos.ErrUnknownStaff
// (pos.StaffStore).
func (st *Staff) Get(ctx context.Context, id string) (pos.Staff, error) {
	if err := ctx.Err(); err != nil {
		return pos.Staff{}, fmt.Errorf("journal: staff %q: %w", id, err)
	}
	var s pos.Staff
	err := st.view(func(tx *bolt.Tx) error {
		raw, err := st.provedGet(tx, bucketStaff, []byte(id))
		if err != nil {
			return err
		}
		if raw == nil {
			return pos.ErrUnknownStaff
		}
		// Its proof checked: the journal wrote it (an old PIN hash in it
		// was set on this terminal).
		s.Recorded, _ = proved(tx)
		return json.Unmarshal(raw, &s)
	})
	if err != nil {
		return pos.Staff{}, fmt.Errorf("journal: staff %q: %w", id, err)
	}
	return s, nil
}

// Put stores s under s.ID, replacing any record of that ID (pos.StaffStore). It
// appends a staff.added or staff.changed event carrying the record (the PIN only
// as its salted hash), dated with no business day, so that a closed day never
// stops staff from signing in.
func (st *Staff) Put(ctx context.Context, s pos.Staff) error {
	if err := checkID(s.ID); err != nil {
		return fmt.Errorf("journal: put staff: %w: %w", pos.ErrUnknownStaff, err)
	}
	data, err := json.Marshal(s)
	if err != nil {
		return fmt.Errorf("journal: put staff: %w", err)
	}
	ev := pos.Event{Kind: pos.EvStaffChanged, Time: st.now(), Data: data}
	_, err = st.append(ctx, ev, func(tx *bolt.Tx, ev *pos.Event) {
		if tx.Bucket(bucketStaff).Get([]byte(s.ID)) == nil {
			ev.Kind = pos.EvStaffAdded
		}
	})
	return err
}

// RecordAttempt stores the wrong PINs in a row and the end of any lock of
// member id (pos.AttemptRecorder): it appends a staff.attempt event carrying
// those counters only, never the record or its PIN hash. Its error matches
// pos.ErrUnknownStaff when there is no record of id.
func (st *Staff) RecordAttempt(ctx context.Context, id string, failed int, lockedUntil time.Time) error {
	if err := checkID(id); err != nil {
		return fmt.Errorf("journal: record attempt: %w: %w", pos.ErrUnknownStaff, err)
	}
	data, err := json.Marshal(pos.StaffAttempt{ID: id, FailedAttempts: failed, LockedUntil: lockedUntil})
	if err != nil {
		return fmt.Errorf("journal: record attempt: %w", err)
	}
	_, err = st.append(ctx, pos.Event{Kind: pos.EvStaffAttempt, Time: st.now(), Data: data}, nil)
	return err
}
