package link

import (
	"context"
	"encoding/json"
	"maps"
	"net/http"

	"galla/pos"
	"galla/store/api"
)

// Offline returns (docs/security.md "Offline returns"): after each sync the
// link asks the store which of this counter's invoices other counters
// returned (api.PathReturnedElsewhere) and keeps the answer in its state
// file, so that while the store cannot be reached the counter refuses a
// return of any of them instead of refunding it a second time from its own
// journal (pos.ReturnsElsewhere).

var _ pos.ReturnsElsewhere = (*Link)(nil)

// ReturnedElsewhere says what other counters returned of this counter's sale
// orderID, as the store last said.
func (l *Link) ReturnedElsewhere(orderID string) (pos.ElsewhereReturn, bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	r, ok := l.st.Elsewhere[orderID]
	return r, ok
}

// learnElsewhere asks the store which of this counter's invoices other
// counters returned and keeps what it says beside what earlier answers said
// (an answer lists the latest api.MaxReturnedElsewhere only). A store that
// does not answer leaves what the link knew: the next sync asks again.
func (l *Link) learnElsewhere(ctx context.Context) {
	body, _ := json.Marshal(api.ReturnedElsewhereRequest{})
	var out api.ReturnedElsewhere
	if err := l.request(ctx, http.MethodPost, api.PathReturnedElsewhere, body, &out); err != nil || len(out.Invoices) == 0 {
		return
	}
	l.mu.Lock()
	st := l.st
	st.Elsewhere = maps.Clone(st.Elsewhere)
	if st.Elsewhere == nil {
		st.Elsewhere = map[string]pos.ElsewhereReturn{}
	}
	changed := false
	for _, e := range out.Invoices {
		if e.OrderID == "" {
			continue
		}
		r := pos.ElsewhereReturn{Number: e.Number, Amount: pos.Paise(e.Amount), Counters: e.Counters}
		if had, ok := st.Elsewhere[e.OrderID]; !ok || had != r {
			st.Elsewhere[e.OrderID] = r
			changed = true
		}
	}
	l.mu.Unlock()
	if changed {
		l.keep(st, true)
	}
}
