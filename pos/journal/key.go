package journal

import (
	"crypto/hmac"
	"crypto/sha256"
	"errors"
	"fmt"
)

// ErrKey is matched (errors.Is) by the error Open, VerifyFileWith, RestoreWith
// and Verify return when the journal's events are keyed with another chain key
// than Options.ChainKey, or keyed while no key was given. The error is a
// *KeyError and matches ErrDamaged too: Galla cannot work with the journal.
var ErrKey = errors.New("the chain key does not match the journal")

// keyCheckLabel is what the key check in meta is the HMAC of.
const keyCheckLabel = "galla journal chain key 1"

// keyCheck is the value meta keeps to recognise the chain key: an HMAC under the
// key of a fixed label, from which the key cannot be found.
func keyCheck(key []byte) []byte {
	h := hmac.New(sha256.New, key)
	h.Write([]byte(keyCheckLabel))
	return h.Sum(nil)
}

// KeyError says that the chain key given is not the journal's (or that none was
// given for a keyed journal). It matches ErrKey and ErrDamaged.
type KeyError struct {
	Path    string // the journal file
	Missing bool   // no key was given
}

// Error says which.
func (e *KeyError) Error() string {
	if e.Missing {
		return fmt.Sprintf("journal: %s: its events are keyed with a chain key and none was given: %v", e.Path, ErrKey)
	}
	return fmt.Sprintf("journal: %s: the chain key given is not the one its events are keyed with: %v", e.Path, ErrKey)
}

// keyBackups says what the backups are worth without the key.
const keyBackups = "The backups in the backups folder are sealed with the same key, so the last backup is no way round it: only the key is."

// Is makes errors.Is(err, ErrKey) and errors.Is(err, ErrDamaged) hold.
func (e *KeyError) Is(target error) bool { return target == ErrKey || target == ErrDamaged }

// Sentence is what the manager reads (pos.Sentencer).
func (e *KeyError) Sentence() string {
	if e.Missing {
		return fmt.Sprintf("The journal %s is sealed with this terminal's journal key, and no key was found (the keyring may be locked, or belong to another user), so Galla will not use it: its chain and its customers' details open only with that key. Sign in to this computer as the user who runs Galla, unlock the keyring (the entry journal-key of this data directory, or its secrets.json where no keyring answers) and start again; the journal is kept as it is. %s", e.Path, keyBackups)
	}
	return fmt.Sprintf("The journal key in the keyring does not match the journal %s (the keyring may be of another terminal or another user), so Galla will not use it: its chain and its customers' details open only with its own key. Sign in as the user who runs Galla on this terminal, or put this terminal's key back in the keyring (the entry journal-key of this data directory, or its secrets.json where no keyring answers), and start again; the journal is kept as it is. %s", e.Path, keyBackups)
}
