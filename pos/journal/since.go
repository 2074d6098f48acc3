package journal

import (
	"encoding/json"

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
