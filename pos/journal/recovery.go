package journal

import (
	"context"
	"encoding/json"
	"fmt"

	"galla/pos"
)

// EvRecovered is the journal's own event recording that a journal was put
// together or put in place by a manager: by Salvage (in the new journal it
// writes) or by Restore (in the journal it puts in place, after its counters
// are lifted). Data is a recovered; the event changes no order and no number.
// Its Append writes the journal's new head into the head record beside it, so
// that from then on that head is the one checked.
const EvRecovered pos.EventKind = "journal.recovered"

// recovered is the Data of journal.recovered.
type recovered struct {
	How     string   `json:"how"`              // "salvage" or "restore"
	By      string   `json:"by"`               // the manager who did it (Options.RecoveredBy)
	From    string   `json:"from"`             // the backup restored, or the damaged file salvaged
	Backup  string   `json:"backup,omitempty"` // salvage: the backup whose events were taken too
	Aside   string   `json:"aside,omitempty"`  // restore: where the journal replaced was moved
	Events  uint64   `json:"events"`           // the events of the journal before this one
	Numbers Numbers  `json:"numbers"`          // its counters, past the highest ever handed out
	Lost    []string `json:"lost,omitempty"`   // salvage: what could not be recovered
}

// noteRecovery appends journal.recovered with d, its events and counters
// filled in.
func (j *Journal) noteRecovery(ctx context.Context, d recovered) error {
	seq, err := j.Log.LastSeq(ctx)
	if err != nil {
		return err
	}
	if d.Numbers, err = j.Numbers(); err != nil {
		return err
	}
	d.Events = seq
	data, err := json.Marshal(d)
	if err != nil {
		return err
	}
	if _, err := j.Log.Append(ctx, pos.Event{Kind: EvRecovered, Time: j.core.now(), Staff: d.By, Data: data}); err != nil {
		return fmt.Errorf("journal: record the %s: %w", d.How, err)
	}
	return nil
}
