package pos

import (
	"context"
	"fmt"
	"time"
)

// JournalHealth reports the journal's startup check (DESIGN.md section 4: bbolt's
// consistency check and the hash chain). *journal.Journal implements it; when the
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

// journalReady is the gate of every path that takes or returns money, or appends
// after asking the payment service (Open for every tender, cash included; PayCard,
// PayEMI, Await, Refund, Reconcile, CloseDay). It waits, at most cfg.HealthWait
// and no longer than ctx, for the journal's check to finish and refuses when the
// check failed, with the check's own error (its Sentence names the backup).
// Without a Health it lets everything through: the journal was checked in Open.
func (e *engineCore) journalReady(ctx context.Context) error {
	h := e.cfg.Health
	if h == nil {
		return nil
	}
	deadline := e.clock.Now().Add(e.healthWait)
	for {
		done, err := h.Verified()
		if done {
			if err != nil {
				return fmt.Errorf("pos: journal check: %w", err)
			}
			return nil
		}
		if !e.clock.Now().Before(deadline) {
			return fmt.Errorf("pos: %w", ErrJournalChecking)
		}
		if err := e.clock.Sleep(ctx, healthPoll); err != nil {
			return fmt.Errorf("pos: waiting for the journal check: %w", err)
		}
	}
}
