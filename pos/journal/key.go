package journal

import (
	"bytes"
	"crypto/hmac"
	"crypto/sha256"
	"errors"
	"fmt"

	bolt "go.etcd.io/bbolt"
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

// Is makes errors.Is(err, ErrKey) and errors.Is(err, ErrDamaged) hold.
func (e *KeyError) Is(target error) bool { return target == ErrKey || target == ErrDamaged }

// Sentence is what the manager reads (pos.Sentencer).
func (e *KeyError) Sentence() string {
	if e.Missing {
		return fmt.Sprintf("The journal %s is sealed with this terminal's journal key, and no key was found (the keyring may be locked, or belong to another user), so Galla will not use it. Sign in to this computer as the user who runs Galla, unlock the keyring and start again; the journal is kept as it is.", e.Path)
	}
	return fmt.Sprintf("The journal key in the keyring does not match the journal %s (the keyring may be of another terminal or another user), so Galla will not use it. Sign in as the user who runs Galla on this terminal, or put this terminal's key back in the keyring, and start again; the journal is kept as it is.", e.Path)
}

// checkKey compares the chain key with the key check kept in meta. A journal
// that has one needs that very key; one that has none but whose last event is
// keyed lost it (an edit); one that has none is given it when a key is given
// (not read-only), and from then on its events are keyed.
func (j *Journal) checkKey() error {
	var (
		stored    []byte
		headKeyed bool
		head      uint64
	)
	err := j.view(func(tx *bolt.Tx) error {
		meta, events := tx.Bucket(bucketMeta), tx.Bucket(bucketEvents)
		if meta == nil || events == nil {
			return nil
		}
		stored = bytes.Clone(meta.Get(metaKey))
		head, _, _ = headOf(meta.Get(metaHead))
		if v := events.Get(u64(head)); v != nil {
			if r, _, err := splitV2(v); err == nil {
				headKeyed = r.Keyed
			}
		}
		return nil
	})
	if err != nil {
		return j.openErr(err)
	}
	key := j.rec.key
	switch {
	case stored == nil && headKeyed && key == nil:
		return &KeyError{Path: j.path, Missing: true}
	case stored == nil && headKeyed:
		return j.corrupt(head, "the check of the chain key is missing, but the events are keyed")
	case stored == nil && key != nil && !j.readOnly:
		j.keyAdopted = true
		return j.update(func(tx *bolt.Tx) error { return tx.Bucket(bucketMeta).Put(metaKey, keyCheck(key)) })
	case stored == nil:
		return nil
	case key == nil:
		return &KeyError{Path: j.path, Missing: true}
	case !hmac.Equal(stored, keyCheck(key)):
		return &KeyError{Path: j.path}
	}
	return nil
}
