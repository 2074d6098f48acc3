package pos

import (
	"context"
	"slices"
	"strings"
	"time"
)

// SlowDays is how many days without a sale make an item a slow mover when
// the report is not told otherwise.
const SlowDays = 60

// SlowRow is an item on hand that has not sold for a while: how long, how
// much of it is on the shelf and what that cost.
type SlowRow struct {
	SKU   string `json:"sku"`
	Name  string `json:"name"`
	Brand string `json:"brand,omitempty"`
	// Days is the days since a unit of it was last sold or, when none ever
	// was (Never), since what is on hand was received.
	Days     int       `json:"days"`
	Never    bool      `json:"never_sold,omitempty"`
	LastSold time.Time `json:"last_sold,omitzero"`
	OnHand   int64     `json:"on_hand"`
	Cost     Paise     `json:"cost"` // on hand at cost, as the stock list values it
}

// Slow lists the items on hand with no sale in the last days days (SlowDays
// when days is not positive), at the till's time: the most stale first, then
// by SKU.
func (s *Stock) Slow(ctx context.Context, days int) ([]SlowRow, error) {
	if days <= 0 {
		days = SlowDays
	}
	cat, err := s.shelf.Catalog(ctx)
	if err != nil {
		return nil, err
	}
	b, err := s.book(ctx)
	if err != nil {
		return nil, err
	}
	defer b.mu.Unlock()
	now := s.eng.Now()
	daysSince := func(t time.Time) int { return int(now.Sub(t) / (24 * time.Hour)) }
	var out []SlowRow
	for _, sku := range b.sortedSKUs() {
		n := b.st.Qty[sku]
		if n <= 0 {
			continue
		}
		p, _ := cat.Lookup(sku)
		r := SlowRow{SKU: sku, Name: p.Name, Brand: p.Brand, OnHand: n}
		var since time.Time // when what is on hand began, for an item never sold
		if ims := b.shelf[sku]; len(ims) > 0 {
			for _, m := range ims {
				u := b.st.Units[m]
				r.Cost += u.Cost
				if since.IsZero() || u.Received.Before(since) {
					since = u.Received
				}
			}
		} else {
			r.Cost = Paise(n) * b.st.Cost[sku]
			since = b.st.First[sku]
		}
		if last, ok := b.st.Sold[sku]; ok {
			r.LastSold, r.Days = last, daysSince(last)
		} else {
			r.Never, r.Days = true, daysSince(since)
		}
		if r.Days >= days {
			out = append(out, r)
		}
	}
	slices.SortStableFunc(out, func(a, b SlowRow) int {
		if a.Days != b.Days {
			return b.Days - a.Days
		}
		return strings.Compare(a.SKU, b.SKU)
	})
	return out, nil
}
