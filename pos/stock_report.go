package pos

import (
	"context"
	"slices"
	"strings"
	"time"
)

// AgeingRow is one model's serialised units in stock by how long they have
// sat there: what loses value first.
type AgeingRow struct {
	SKU     string `json:"sku"`
	Name    string `json:"name"`
	Brand   string `json:"brand,omitempty"`
	Units   int    `json:"units"`
	Days30  int    `json:"days_0_30"`
	Days60  int    `json:"days_31_60"`
	Days90  int    `json:"days_61_90"`
	Over90  int    `json:"days_over_90"`
	Oldest  int    `json:"oldest_days"` // the days the oldest unit has been in stock
	Cost    Paise  `json:"cost"`        // the units at cost
	OldestI string `json:"oldest_imei"`
}

// Ageing lists the serialised units in stock by model, brand then SKU, with
// their days in stock at the till's time: the slow movers are those with
// units over 90 days.
func (s *Stock) Ageing(ctx context.Context) ([]AgeingRow, error) {
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
	var out []AgeingRow
	for _, sku := range b.sortedSKUs() {
		ims := b.shelf[sku]
		if len(ims) == 0 {
			continue
		}
		p, _ := cat.Lookup(sku)
		r := AgeingRow{SKU: sku, Name: p.Name, Brand: p.Brand, Units: len(ims)}
		for _, m := range ims {
			u := b.st.Units[m]
			days := int(now.Sub(u.Received) / (24 * time.Hour))
			switch {
			case days <= 30:
				r.Days30++
			case days <= 60:
				r.Days60++
			case days <= 90:
				r.Days90++
			default:
				r.Over90++
			}
			if days > r.Oldest || r.OldestI == "" {
				r.Oldest, r.OldestI = days, m
			}
			r.Cost += u.Cost
		}
		out = append(out, r)
	}
	slices.SortStableFunc(out, func(a, b AgeingRow) int { return strings.Compare(strings.ToLower(a.Brand), strings.ToLower(b.Brand)) })
	return out, nil
}

// History is the whole story of the unit with imei (either of its IMEIs):
// received from whom on which invoice, sold, returned, set aside, sent and
// received; false when stock never knew it. The stock book keeps no story (it
// would grow with every sale): History reads the unit's events into a book
// that tells them (story): the stock events and orders the journal's records
// of its IMEIs name, or, in a journal without them, every event.
func (s *Stock) History(ctx context.Context, imei string) (StockUnit, bool, error) {
	b, err := s.book(ctx)
	if err != nil {
		return StockUnit{}, false, err
	}
	since, began := b.st.Since, b.st.Began
	b.mu.Unlock()
	u, err := s.story(ctx, strings.TrimSpace(imei), since, began)
	if err != nil || u == nil {
		return StockUnit{}, false, err
	}
	return *u, true, nil
}
