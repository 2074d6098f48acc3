package store

import (
	"time"
)

// The kinds of alarm.
const (
	AlarmFork         = "fork"         // a different event under a sequence held: the terminal is blocked
	AlarmUnauthorized = "unauthorized" // an unknown terminal, a wrong credential, an edited request
	AlarmReplayed     = "replayed"     // a request seen before or dated too far from now
	AlarmBadCode      = "bad_code"     // an enrolment code refused
	AlarmMalformed    = "malformed"    // a batch that cannot be read, from an authenticated terminal
	AlarmSignIn       = "signin"       // a source stopped after too many wrong manager PINs (store/web)
)

// Alarm is something a manager must look at.
type Alarm struct {
	ID        int64
	Terminal  string // "" when the request named no known terminal
	Kind      string
	Seq       uint64 // the sequence concerned, 0 when none
	Detail    string
	RaisedAt  time.Time
	Repeats   int       // how many times it was raised while open (1: once)
	LastAt    time.Time // when it was last raised
	ClearedAt time.Time // zero while open
	ClearedBy string
}
