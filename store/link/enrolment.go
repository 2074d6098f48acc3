package link

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"galla/pos"
)

// SettingEnrolment is the settings.changed key under which the counter's
// journal holds its enrolment at a store (Enrolment): which store its manager
// accepted, the terminal code fixed at the first enrolment, and who did it.
// The journal is the counter's own record, so a store cannot rewrite it.
const SettingEnrolment = "store.enrolment"

// The acts an Enrolment records.
const (
	ActEnrol        = "enrol"         // the first enrolment journaled on this counter
	ActReEnrol      = "re-enrol"      // enrolled again: a new key, perhaps another store
	ActFirstContact = "first-contact" // a store of an earlier enrolment accepted at its first sync
	ActAcknowledged = "acknowledged"  // a manager saw the enrolment and confirmed it
)

// Enrolment is the counter's own record of the store it belongs to, journaled
// as settings.changed naming the manager (Event.Staff) at each enrolment,
// first contact and acknowledgement. The link talks only to the store it
// names, and only as TerminalID.
type Enrolment struct {
	URL         string `json:"url"`
	Fingerprint string `json:"fingerprint"`
	// TerminalID is the counter's code at its stores: fixed at the first
	// enrolment, never changed by a store after it.
	TerminalID string `json:"terminal_id"`
	// PublicKey is the public half of the key the counter signs with, hex
	// (the private key never leaves its keyring).
	PublicKey string    `json:"public_key,omitempty"`
	Act       string    `json:"act"`
	By        string    `json:"by"` // the manager's name
	At        time.Time `json:"at"`
	// AcknowledgedBy is the manager who acknowledged the enrolment, "" until
	// one did: until then every screen shows it.
	AcknowledgedBy string    `json:"acknowledged_by,omitempty"`
	AcknowledgedAt time.Time `json:"acknowledged_at,omitzero"`
}

// Settings reads a journaled setting (journal.Shop has it).
type Settings interface {
	Setting(ctx context.Context, key string) (json.RawMessage, error)
}

// ReadEnrolment returns the counter's journaled enrolment, nil when the
// journal holds none (a counter never enrolled, or enrolled by an earlier
// version that journaled nothing).
func ReadEnrolment(ctx context.Context, s Settings) (*Enrolment, error) {
	raw, err := s.Setting(ctx, SettingEnrolment)
	if err != nil {
		return nil, fmt.Errorf("link: the journaled enrolment: %w", err)
	}
	if raw == nil {
		return nil, nil
	}
	var e Enrolment
	if err := json.Unmarshal(raw, &e); err != nil || e.TerminalID == "" {
		return nil, errors.New("link: the journaled enrolment cannot be read")
	}
	return &e, nil
}

// Accepts reports whether e is the enrolment at the store at url with
// fingerprint, as terminal: the store a manager accepted on this counter.
func (e *Enrolment) Accepts(url, fingerprint, terminal string) bool {
	return e != nil && e.URL == url && e.Fingerprint == fingerprint && e.TerminalID == terminal
}

// Event is e as the journal's event, naming the manager's staff id.
func (e Enrolment) Event(staffID string, now time.Time) (pos.Event, error) {
	raw, err := json.Marshal(e)
	if err != nil {
		return pos.Event{}, err
	}
	return pos.Event{V: pos.EventVersion, Time: now, Kind: pos.EvSettingsChanged, Staff: staffID,
		Setting: &pos.Setting{Key: SettingEnrolment, Value: raw}, Extra: map[string]string{"what": "store " + e.Act}}, nil
}

// Notice is the line every screen shows while no manager has acknowledged
// e, "" once one has.
func (e *Enrolment) Notice() string {
	if e == nil || e.AcknowledgedBy != "" {
		return ""
	}
	verb := "enrolled"
	if e.Act == ActFirstContact {
		verb = "accepted"
	}
	return fmt.Sprintf("%s at %s as %s by %s on %s, not yet acknowledged by a manager (Settings, or galla enrol --acknowledge --staff NAME)",
		verb, e.URL, e.TerminalID, e.By, e.At.Local().Format("2 Jan 15:04"))
}
