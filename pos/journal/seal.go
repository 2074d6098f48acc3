package journal

import (
	"bytes"
	"crypto/aes"
	"crypto/cipher"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
)

// Personal data at rest (schema 5). The customers' names, phones, addresses and
// GSTINs that a sale to a named buyer or a remembered customer carries are kept
// in the file only sealed with AES-256-GCM under the journal's data key, so
// that a copy of journal.db without the terminal's keyring yields none of them:
//
//   - an event whose body names a buyer ("buyer":) or remembers a customer
//     (settings.changed of a "buyer/" key) is stored with flagSealed and its
//     compressed body sealed (record.go); its hash stays the one of the
//     plaintext record, so that the chain, the checkpoints, the Z digests, the
//     head record and what was sent to the store are unchanged by sealing;
//   - a derived record that names a buyer (an order) or is a remembered
//     customer (the setting "buyer/PHONE") is stored as a sealed value, and
//     the setting's key is stored as "buyer/" and a keyed digest of the phone
//     number, never the number itself; its proof (proof.go) is made over the
//     key as stored and the plaintext value.
//
// Every other event and record stays in clear: sealing only what names a person
// keeps the checkout's commits at their floor (docs/benchmarks.md).
//
// The data key is HMAC-SHA256(chain key, dataKeyLabel): the chain key is the
// terminal's journal key in the keyring (config.SecretJournalKey), so the data
// key is in the keyring wherever the chain key is, needs no second secret to be
// kept, backed up or lost, and reaches every tool that is given the chain key
// (verify, salvage, restore, the backups, sync). A journal without a chain key
// (the journal's own tools and tests) seals nothing.
//
// Sealing is deterministic (a synthetic nonce: the first 12 bytes of an HMAC of
// where the value is stored and the value itself, under a key of its own), so
// that a record rebuilt from the events is byte for byte the one stored, as the
// rebuild and the checks of the records compare them; the nonce repeats only
// for the same value in the same place, which then gives the same bytes.

// dataKeyLabel is what the data key is the HMAC of, under the chain key.
const dataKeyLabel = "galla journal personal data key 1"

// flagSealed marks a record of format 2 whose body (the compressed JSON) is
// sealed with the data key: nonce (12) ‖ AES-256-GCM ciphertext and tag.
const flagSealed = 0x02

// valueMagic opens a sealed derived record: "GP" and its format, then the
// nonce and the ciphertext. No JSON value starts with it.
var valueMagic = []byte{'G', 'P', 1}

// buyerKeyPrefix is the prefix of the settings that remember a customer by
// phone (pos.settingBuyer).
const buyerKeyPrefix = "buyer/"

// Markers of personal data in the compact JSON of an event or a record: a
// buyer named anywhere in it, or the setting of a remembered customer. The
// contact an intent gives the payment service (pos.Customer) is the counter's
// own (config: 9999999999, counter@galla.local): no front end gives a
// customer's, so it is not a marker.
var (
	markBuyer      = []byte(`"buyer":`)
	markRemembered = []byte(`"key":"` + buyerKeyPrefix)
)

// personal reports whether the compact JSON js names a person.
func personal(js []byte) bool {
	return bytes.Contains(js, markBuyer) || bytes.Contains(js, markRemembered)
}

// ErrSealed is the error of a journal whose personal data is sealed with a data
// key this terminal was not given, or that does not open the data: the chain
// key of the data directory is missing from the keyring, or is another one.
var ErrSealed = errors.New("the customers' details in the journal are sealed with the terminal's journal key, and the key given does not open them")

// vault seals and opens the personal data of one journal.
type vault struct {
	aead  cipher.AEAD
	nonce []byte // the key of the synthetic nonces
	name  []byte // the key of the digests of the customers' phone numbers in keys
}

// newVault returns the vault of the journal keyed with chainKey, nil without a
// key.
func newVault(chainKey []byte) *vault {
	if len(chainKey) == 0 {
		return nil
	}
	sub := func(label string) []byte {
		m := hmac.New(sha256.New, chainKey)
		m.Write([]byte(dataKeyLabel))
		m.Write([]byte{0})
		m.Write([]byte(label))
		return m.Sum(nil)
	}
	block, err := aes.NewCipher(sub("aes-256-gcm"))
	if err != nil {
		panic(err) // a 32-byte key is always accepted
	}
	aead, err := cipher.NewGCM(block)
	if err != nil {
		panic(err) // the standard nonce size is always accepted
	}
	return &vault{aead: aead, nonce: sub("nonce"), name: sub("name")}
}

// seal returns plain sealed, bound to aad: nonce ‖ ciphertext ‖ tag.
func (v *vault) seal(aad, plain []byte) []byte {
	m := hmac.New(sha256.New, v.nonce)
	writeLen(m, aad)
	writeLen(m, plain)
	nonce := m.Sum(nil)[:v.aead.NonceSize()]
	out := make([]byte, 0, len(nonce)+len(plain)+v.aead.Overhead())
	out = append(out, nonce...)
	return v.aead.Seal(out, nonce, plain, aad)
}

// open returns what seal sealed, bound to aad.
func (v *vault) open(aad, box []byte) ([]byte, error) {
	n := v.aead.NonceSize()
	if len(box) < n+v.aead.Overhead() {
		return nil, fmt.Errorf("%w: too short", ErrSealed)
	}
	plain, err := v.aead.Open(nil, box[:n], box[n:], aad)
	if err != nil {
		return nil, ErrSealed
	}
	return plain, nil
}

// valueAAD binds a sealed record to its bucket and key.
func valueAAD(bucket, key []byte) []byte {
	aad := make([]byte, 0, len(valueMagic)+len(bucket)+1+len(key))
	return append(append(append(append(aad, valueMagic...), bucket...), sep), key...)
}

// storeKey is the key under which the record key of bucket is stored: the
// setting of a remembered customer under a digest of the phone number, any
// other as it is.
func (v *vault) storeKey(bucket, key []byte) []byte {
	if v == nil || !bytes.Equal(bucket, bucketSettings) || !bytes.HasPrefix(key, []byte(buyerKeyPrefix)) || isDigestKey(key) {
		return key
	}
	m := hmac.New(sha256.New, v.name)
	m.Write(key)
	return []byte(buyerKeyPrefix + "#" + hex.EncodeToString(m.Sum(nil)[:16]))
}

// isDigestKey reports whether key is a customer's setting key as storeKey makes it.
func isDigestKey(key []byte) bool {
	return bytes.HasPrefix(key, []byte(buyerKeyPrefix+"#"))
}

// sealValue is the value stored for the record value under the stored key of
// bucket: sealed when it names a person, as it is otherwise.
func (v *vault) sealValue(bucket, storedKey, value []byte) []byte {
	if v == nil || !(personal(value) || (bytes.Equal(bucket, bucketSettings) && bytes.HasPrefix(storedKey, []byte(buyerKeyPrefix)))) {
		return value
	}
	return append(bytes.Clone(valueMagic), v.seal(valueAAD(bucket, storedKey), value)...)
}

// openValue returns the plaintext of the value stored under storedKey in
// bucket: a value in clear as it is, a sealed one opened (ErrSealed when this
// journal has no key or another one).
func (v *vault) openValue(bucket, storedKey, stored []byte) ([]byte, error) {
	if !bytes.HasPrefix(stored, valueMagic) {
		return stored, nil
	}
	if v == nil {
		return nil, ErrSealed
	}
	return v.open(valueAAD(bucket, storedKey), stored[len(valueMagic):])
}

// isSealedValue reports whether a stored derived value is sealed.
func isSealedValue(stored []byte) bool { return bytes.HasPrefix(stored, valueMagic) }
