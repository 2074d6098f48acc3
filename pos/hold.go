package pos

import (
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"time"
)

// ErrHeldNotFound reports a held bill that is not held (recalled, discarded, or
// never held).
var ErrHeldNotFound = errors.New("no such held bill")

// HeldBill is a cart put aside at the counter (bill.held), kept until it is
// recalled or discarded. Its lines are the cart's as the front end held them, the
// products as they were priced then.
type HeldBill struct {
	ID    string     `json:"id"`
	Lines []CartLine `json:"lines"`
	IMEIs []UnitIMEI `json:"imeis,omitempty"`
	Total Paise      `json:"total"`
	Note  string     `json:"note,omitempty"` // a name or a word to find it by
	Staff string     `json:"staff,omitempty"`
	At    time.Time  `json:"at"`
	Items int        `json:"items"` // units in the cart
}

// applyHold takes bill.held, bill.recalled and bill.discarded into the book.
func (b *book) applyHold(ev Event) error {
	var h HeldBill
	if err := json.Unmarshal(ev.Data, &h); err != nil || h.ID == "" {
		return fmt.Errorf("pos: %s at %d: %w", ev.Kind, ev.Seq, ErrBadEvent)
	}
	i := slices.IndexFunc(b.holds, func(x *HeldBill) bool { return x.ID == h.ID })
	switch ev.Kind {
	case EvBillHeld:
		if i < 0 {
			b.holds = append(b.holds, &h)
		}
	default:
		if i >= 0 {
			b.holds = slices.Delete(b.holds, i, i+1)
		}
	}
	return nil
}
