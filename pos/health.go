package pos

import (
	"time"
)

// JournalHealth reports the journal's startup check (DESIGN.md section 4: bbolt's
// consistency check and the hash chain). journal.Log implements it; when the
// window opens the journal with the check deferred, the check runs in the
// background and the engine's gate waits for it.
type JournalHealth interface {
	// Verified reports whether the check has finished and, when it has, its
	// result: nil, or an error (a Sentencer) that says what is damaged and where
	// the last backup is.
	Verified() (done bool, err error)
}

// DefaultHealthWait is how long a payment waits for the journal's startup check
// before it is refused with ErrJournalChecking.
const DefaultHealthWait = 30 * time.Second

// healthPoll is how often the gate asks whether the check has finished.
const healthPoll = 100 * time.Millisecond

// ErrJournalChecking reports a payment asked for while the journal's startup
// check still runs, after waiting Config.HealthWait for it.
var ErrJournalChecking = sentenceError{"the journal is still being checked",
	"The journal is still being checked; try again in a moment."}
