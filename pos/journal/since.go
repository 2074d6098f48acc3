package journal

import (
	"bytes"
	"encoding/json"
	"fmt"

	bolt "go.etcd.io/bbolt"

	"galla/pos"
)

// since gathers, from the events after the last checkpoint, what they must have
// left in the derived buckets; start-up compares it with what is there.
type since struct {
	orders  map[string][]uint64         // order id → its events after the checkpoint
	staff   map[string][]byte           // staff id → the record of its last staff.added or staff.changed, with the attempts after it
	attempt map[string]pos.StaffAttempt // staff id → its last staff.attempt, for records last written before the checkpoint
	setting map[string][]byte           // key → the last value
	catalog []byte                      // the last catalog imported, nil when none
	receipt uint64                      // the highest receipt number handed out
	series  Numbers                     // Series: the highest number of each document series handed out
}

// note adds ev, read from the log after the last checkpoint.
func (s *since) note(ev *pos.Event) {
	if s.orders == nil {
		s.orders, s.staff, s.setting = map[string][]uint64{}, map[string][]byte{}, map[string][]byte{}
		s.attempt = map[string]pos.StaffAttempt{}
	}
	s.receipt = max(s.receipt, ev.ReceiptNo)
	if ev.DocNo != 0 {
		s.series = s.series.max(Numbers{Series: map[string]uint64{ev.Series: ev.DocNo}})
	}
	switch {
	case ev.Kind.IsOrderEvent():
		s.orders[ev.OrderID] = append(s.orders[ev.OrderID], ev.Seq)
	case ev.Kind == pos.EvStaffAdded || ev.Kind == pos.EvStaffChanged:
		if id, ok := staffID(ev.Data); ok {
			s.staff[id] = compact(ev.Data)
			delete(s.attempt, id)
		}
	case ev.Kind == pos.EvStaffAttempt:
		a, err := staffAttempt(ev.Data)
		if err != nil {
			return
		}
		if rec, ok := s.staff[a.ID]; ok {
			// The whole record is known: the replay reproduces every byte.
			if rec, err = withAttempt(rec, a); err == nil {
				s.staff[a.ID] = rec
			}
			return
		}
		// The record was last written before the checkpoint: the replay
		// reproduces only the counters.
		s.attempt[a.ID] = a
	case ev.Kind == pos.EvSettingsChanged && ev.Setting != nil:
		s.setting[ev.Setting.Key] = compact(ev.Setting.Value)
	case ev.Kind == pos.EvCatalogImported:
		s.catalog = compact(ev.Data)
	}
}

// checkSince compares the derived records the events after the last checkpoint
// wrote with a replay of them: every order they touched (its stored state
// against Order.Apply over all its events, its event index, its place in
// unresolved), every staff record and setting they wrote (of a record written
// last before the checkpoint and counted by staff.attempt events after it, the
// counters: what the replay can reproduce), the catalog, and the
// receipt counter. The first difference is a *MismatchError. The cost is that
// of the events since the last Z report (and of the orders they belong to).
func (j *Journal) checkSince(tx *bolt.Tx, s *since) error {
	if s.orders == nil {
		return nil
	}
	for _, name := range derivedBuckets {
		if tx.Bucket(name) == nil {
			return nil // Open rebuilds them all from the events; VerifyFile says which is missing
		}
	}
	orders := tx.Bucket(bucketOrders)
	for id, seqs := range s.orders {
		for _, seq := range seqs {
			if orders.Get(orderEventKey(id, seq)) == nil {
				return j.mismatch("orders", id, fmt.Sprintf("event %d of the order is missing from its index", seq))
			}
		}
		if err := j.checkOrder(tx, id, "", 0); err != nil {
			return err
		}
	}
	for _, c := range []struct {
		bucket []byte
		want   map[string][]byte
	}{{bucketStaff, s.staff}, {bucketSettings, s.setting}} {
		b := tx.Bucket(c.bucket)
		for k, v := range c.want {
			if !bytes.Equal(b.Get([]byte(k)), v) {
				return j.mismatch(string(c.bucket), k, "the stored record is not the one its last event wrote")
			}
		}
	}
	staff := tx.Bucket(bucketStaff)
	for id, a := range s.attempt {
		have := staff.Get([]byte(id))
		if have == nil {
			return j.mismatch("staff", id, "the record its last attempt counted is missing")
		}
		// The stored record was written by this attempt last: applying it
		// again changes nothing.
		if want, err := withAttempt(have, a); err != nil || !bytes.Equal(have, want) {
			return j.mismatch("staff", id, "the stored counters are not the ones its last attempt wrote")
		}
	}
	if s.catalog != nil && !bytes.Equal(tx.Bucket(bucketCatalog).Get(catalogKey), s.catalog) {
		return j.mismatch("catalog", string(catalogKey), "the stored catalog is not the one its last event imported")
	}
	have := numbersOf(tx)
	if have.Receipt < s.receipt {
		return j.mismatch("meta", "receipt_no", fmt.Sprintf("the counter is %d, but receipt number %d was handed out", have.Receipt, s.receipt))
	}
	if sr, behind := have.behindSeries(s.series); behind {
		return j.mismatch("documents", sr, fmt.Sprintf("the counter is %d, but number %d was handed out", have.Series[sr], s.series.Series[sr]))
	}
	return nil
}

// staffID is the id of the staff record in data.
func staffID(data []byte) (string, bool) {
	var s struct {
		ID string `json:"id"`
	}
	if json.Unmarshal(data, &s) != nil || s.ID == "" {
		return "", false
	}
	return s.ID, true
}
