package pos

import (
	"fmt"
	"strconv"
	"time"
)

// StoreLink is the terminal's link to the store server (DESIGN.md section 11),
// implemented by store/link and wired by main. It sends the journal's events
// beside the counter's work, never inside a payment: the till only asks it how
// it stands.
type StoreLink interface {
	// Status says how the link stands; it must not block on the network.
	Status() StoreStatus
}

// StoreStatus is how the terminal's link to the store server stands.
type StoreStatus struct {
	Enrolled bool      // the terminal is enrolled at a store server
	Waiting  uint64    // journal events the server does not hold yet
	LastSync time.Time // when the server last acknowledged a batch; zero when never
	// Problem is the sentence of the last sync that failed (the server
	// unreachable, its database down), "" when the last one went through. The
	// events wait in the journal and are sent later.
	Problem string
	// Blocked is the server's refusal of this terminal's events until a
	// manager looks (its journal forked from what the store holds).
	Blocked string
}

// StoreStatus returns how the link to the store server stands; the zero
// StoreStatus (not enrolled) when the terminal has none.
func (t *Till) StoreStatus() StoreStatus {
	if t.c.cfg.Store == nil {
		return StoreStatus{}
	}
	return t.c.cfg.Store.Status()
}

// Text is the status bar's line for s at now: "" when the terminal is not
// enrolled, else "store: N events waiting" or "store: up to date", the last
// sync's time, and what went wrong.
func (s StoreStatus) Text(now time.Time) string {
	if !s.Enrolled {
		return ""
	}
	if s.Blocked != "" {
		return "store: events refused until a manager looks (" + s.Blocked + ")"
	}
	var txt string
	switch s.Waiting {
	case 0:
		txt = "store: up to date"
	case 1:
		txt = "store: 1 event waiting"
	default:
		txt = "store: " + strconv.FormatUint(s.Waiting, 10) + " events waiting"
	}
	switch {
	case s.LastSync.IsZero():
		txt += ", never synced"
	case now.Sub(s.LastSync) < 24*time.Hour && now.YearDay() == s.LastSync.YearDay():
		txt += ", last sync " + s.LastSync.Format("15:04")
	default:
		txt += ", last sync " + s.LastSync.Format("2 Jan 15:04")
	}
	if s.Problem != "" {
		txt += fmt.Sprintf(" (%s)", s.Problem)
	}
	return txt
}
