package cli

import (
	"context"
	"encoding/hex"
	"fmt"

	"galla/internal/config"
	"galla/store/link"
)

// The store's staff pepper on the terminal (ADR 0007): handed over at
// enrolment, or asked for at the first sync of a terminal enrolled before,
// over the pinned link; kept in the keyring like the terminal's own PIN
// pepper, never in the journal.

// storePepper reads the store's staff pepper from the keyring: nil when the
// store has not handed it over.
func storePepper(sec *config.Secrets) ([]byte, error) {
	v, err := sec.Get(config.SecretStorePINPepper)
	if err != nil {
		return nil, fmt.Errorf("the store's PIN key cannot be read (%v); check the system keyring", err)
	}
	if b, err := hex.DecodeString(v); err == nil && len(b) >= 32 {
		return b, nil
	}
	return nil, nil
}

// acceptedStorePepper is the store's staff pepper for the counter's engine:
// nil unless the counter's journal names the store config.json names as one a
// manager accepted (link.Enrolment), so that the staff a store pushed gain no
// power here from a store the counter's manager did not accept.
func acceptedStorePepper(cfg config.Config, sec *config.Secrets, settings link.Settings) ([]byte, error) {
	rec, err := link.ReadEnrolment(context.Background(), settings)
	if err != nil {
		return nil, err
	}
	if !rec.Accepts(cfg.Store.URL, cfg.Store.Fingerprint, cfg.Store.TerminalID) {
		return nil, nil
	}
	return storePepper(sec)
}

// keepStorePepper keeps the store's staff pepper (hex) in the keyring; an
// empty one (a store server of an earlier version) is passed over.
func keepStorePepper(sec *config.Secrets, pepper string) error {
	if pepper == "" {
		return nil
	}
	if b, err := hex.DecodeString(pepper); err != nil || len(b) < 32 {
		return fmt.Errorf("the store server sent a PIN key that is not 32 bytes of hex")
	}
	return sec.Set(config.SecretStorePINPepper, pepper)
}

// ensureStorePepper returns the store's staff pepper, asking the store for
// it when the keyring holds none.
func ensureStorePepper(ctx context.Context, l *link.Link, sec *config.Secrets) ([]byte, error) {
	if pep, err := storePepper(sec); err != nil || pep != nil {
		return pep, err
	}
	pep, err := l.StaffPepper(ctx)
	if err != nil {
		return nil, err
	}
	if err := keepStorePepper(sec, hex.EncodeToString(pep)); err != nil {
		return nil, err
	}
	return pep, nil
}

// staffCount is "1 member of staff" or "N members of staff".
func staffCount(n int) string {
	if n == 1 {
		return "1 member of staff"
	}
	return fmt.Sprintf("%d members of staff", n)
}
