package link

import (
	"context"
	"encoding/json"
	"errors"
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
// journal (pos.StoreDecisions.ReturnedElsewhere).

// ReturnedElsewhere says what other counters returned of this counter's sale
// orderID, as the store last said. It is an *UnknownError when the link does
// not know what the store said: its state file is missing, was written by an
// earlier version, is of another store, or was changed outside Galla (its
// proof does not check), and no sync has asked the store since.
func (l *Link) ReturnedElsewhere(orderID string) (pos.ElsewhereReturn, bool, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.elsewhereWhy != "" {
		return pos.ElsewhereReturn{}, false, &UnknownError{Why: l.elsewhereWhy}
	}
	r, ok := l.st.Elsewhere[orderID]
	return r, ok, nil
}

// UnknownError is why the counter does not know which of its invoices other
// counters returned: it does not believe its state file, and has not asked
// the store since.
type UnknownError struct{ Why string }

func (e *UnknownError) Error() string { return e.Why }

// learnElsewhere asks the store which of this counter's invoices other
// counters returned and keeps what it says beside what earlier answers said
// (an answer lists the latest api.MaxReturnedElsewhere only). A store that
// does not answer leaves what the link knew: the next sync asks again. A
// store of an earlier version, which has no such question, counts as saying
// none: the counter decides offline from its journal, as with that store it
// always did. An answer that changes what the counter knows is journaled
// (answers.go) before the state file names it; learnElsewhere reports
// whether it journaled one, and returns why it could not.
func (l *Link) learnElsewhere(ctx context.Context) (bool, error) {
	body, _ := json.Marshal(api.ReturnedElsewhereRequest{})
	var out api.ReturnedElsewhere
	err := l.request(ctx, http.MethodPost, api.PathReturnedElsewhere, body, &out)
	var na *notAPIError
	switch {
	case errors.As(err, &na) && na.status == http.StatusNotFound:
		out = api.ReturnedElsewhere{}
	case err != nil:
		return false, nil
	}
	l.mu.Lock()
	st := l.st
	st.Elsewhere = maps.Clone(st.Elsewhere)
	if st.Elsewhere == nil {
		st.Elsewhere = map[string]pos.ElsewhereReturn{}
	}
	// A list never numbered (a file of an earlier build) is journaled at
	// its first answer too, so that a copy of it put back is older.
	changed := !st.ElsewhereKnown || (l.cfg.Journal != nil && st.Answer == 0)
	st.ElsewhereKnown = true
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
	journaled := false
	if changed && l.cfg.Journal != nil {
		var err error
		if st, err = l.recordAnswer(ctx, st); err != nil {
			// Known now, but not journaled: no file may say the list is
			// the store's word, or an older file would match the journal's
			// record and be believed at the next start. This run knows it;
			// a start over the file does not until the store answers
			// again, and the next sync journals it again.
			st.ElsewhereKnown = false
			l.keep(st, false)
			_ = RemoveState(l.cfg.StatePath)
			l.mu.Lock()
			l.elsewhereWhy = ""
			l.mu.Unlock()
			return false, err
		}
		journaled = true
	}
	if changed {
		l.keep(st, true)
	}
	l.mu.Lock()
	l.elsewhereWhy = ""
	l.mu.Unlock()
	return journaled, nil
}
