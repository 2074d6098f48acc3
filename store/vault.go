package store

import (
	"bytes"
	"crypto/aes"
	"crypto/cipher"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
)

// Personal data at rest (issue 22, docs/security.md). The buyers' names,
// phones, addresses and GSTINs that a sale to a named buyer carries, and the
// customers a counter remembers (settings.changed of a "buyer/" key), are kept
// in the database only sealed with AES-256-GCM under the store's data key, a
// secret kept outside PostgreSQL (key.go), so that a copy of the database (a
// backup, a read-only login) yields none of them:
//
//   - a JSON value that names a person (an event's body, an order's snapshot)
//     is stored without the members that name them (every "buyer", and the key
//     and value of a remembered customer's setting) and with one member more,
//     sealedMember: the whole value as it came, sealed. Every other member
//     stays in clear, so that the queries that read them in SQL (an order's
//     origin, an event's time, order id, seq, hash and kind) are unchanged;
//   - everything that reads such a value in Go opens it first (vault.open),
//     and reads the value as it came.
//
// Every other value stays in clear: a buyer is named on a minority of sales,
// and sealing only what names a person keeps the ingest at its floor
// (docs/benchmarks.md). The contact an intent gives the payment service
// (pos.Customer) is the counter's own, not a customer's (as the journal
// holds it, pos/journal/seal.go), and stays in clear.

// sealedMember is the member of a sealed JSON object that holds the value as
// it came, sealed: base64 of nonce ‖ AES-256-GCM ciphertext and tag.
const sealedMember = "galla_sealed"

// sealedAAD binds what is sealed to its use.
var sealedAAD = []byte("galla store personal data 1")

// Markers of personal data in a JSON value (the compact JSON of the wire, or
// jsonb's text): a buyer named anywhere in it, or the setting of a
// remembered customer. A value holding neither names nobody.
var (
	markBuyer      = []byte(`"buyer"`)
	markRemembered = []byte(`"buyer/`)
	markSealed     = []byte(`"` + sealedMember + `"`)
)

// buyerKeyPrefix is the prefix of the settings that remember a customer by
// phone (pos.settingBuyer).
const buyerKeyPrefix = "buyer/"

// personal reports whether the JSON js may name a person (a cheap test: one
// that does is parsed and sealed by seal).
func personal(js []byte) bool {
	return bytes.Contains(js, markBuyer) || bytes.Contains(js, markRemembered)
}

// ErrSealedData is a value sealed with a data key that is not the one given.
var ErrSealedData = errors.New("store: a buyer's details in the database do not open with the store key given")

// vault seals and opens the personal data of the store with its data key.
type vault struct {
	aead  cipher.AEAD
	phone []byte // the key of the digests of the buyers' phones (orders.buyer_phone)
}

// newVault returns the vault of the 32-byte data key.
func newVault(dataKey []byte) *vault {
	sub := func(label string) []byte {
		m := hmac.New(sha256.New, dataKey)
		m.Write([]byte("galla store data key 1\x00" + label))
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
	return &vault{aead: aead, phone: sub("phone")}
}

// phoneKey is what orders.buyer_phone holds of a buyer's phone: a keyed
// digest (hex) that the pages' search by phone compares, and that names no
// number without the key; "" for no phone (or no key).
func (v *vault) phoneKey(phone string) string {
	digits := make([]byte, 0, len(phone))
	for _, r := range phone {
		if r >= '0' && r <= '9' {
			digits = append(digits, byte(r))
		}
	}
	if len(digits) > 10 {
		digits = digits[len(digits)-10:] // the number without +91
	}
	if v == nil || len(digits) == 0 {
		return ""
	}
	m := hmac.New(sha256.New, v.phone)
	m.Write(digits)
	return hex.EncodeToString(m.Sum(nil)[:16])
}

// seal returns js to store: as it is when it names nobody, else without the
// members that name a person and with sealedMember holding js sealed. js is a
// JSON object (an event's body, an order's snapshot); a value sealed already
// is returned as it is.
func (v *vault) seal(js []byte) ([]byte, error) {
	if !personal(js) || bytes.Contains(js, markSealed) {
		return js, nil
	}
	if v == nil {
		return nil, errNoKey
	}
	d := json.NewDecoder(bytes.NewReader(js))
	d.UseNumber()
	var top map[string]any
	if err := d.Decode(&top); err != nil || top == nil {
		return js, nil // not an object: stored as it is, and refused where it must be one
	}
	if !strip(top) {
		return js, nil
	}
	nonce := make([]byte, v.aead.NonceSize(), v.aead.NonceSize()+len(js)+v.aead.Overhead())
	if _, err := rand.Read(nonce); err != nil {
		return nil, err
	}
	top[sealedMember] = base64.StdEncoding.EncodeToString(v.aead.Seal(nonce, nonce, js, sealedAAD))
	return json.Marshal(top)
}

// strip removes from the JSON value x (decoded) every member that names a
// person: "buyer", and the key and value of a remembered customer's setting.
// It reports whether it removed any.
func strip(x any) bool {
	found := false
	switch x := x.(type) {
	case map[string]any:
		if _, ok := x["buyer"]; ok {
			delete(x, "buyer")
			found = true
		}
		if k, ok := x["key"].(string); ok && strings.HasPrefix(k, buyerKeyPrefix) {
			delete(x, "key")
			delete(x, "value")
			found = true
		}
		for _, m := range x {
			found = strip(m) || found
		}
	case []any:
		for _, m := range x {
			found = strip(m) || found
		}
	}
	return found
}

// open returns the value stored as js as it came: js itself when it is not
// sealed, the sealed value opened otherwise (ErrSealedData when this key does
// not open it).
func (v *vault) open(js []byte) ([]byte, error) {
	if !bytes.Contains(js, markSealed) {
		return js, nil
	}
	var top map[string]json.RawMessage
	if err := json.Unmarshal(js, &top); err != nil {
		return js, nil
	}
	raw, ok := top[sealedMember]
	if !ok {
		return js, nil // the word in a value, not the member
	}
	if v == nil {
		return nil, errNoKey
	}
	var s string
	if err := json.Unmarshal(raw, &s); err != nil {
		return nil, fmt.Errorf("%w: %s is not a string", ErrSealedData, sealedMember)
	}
	box, err := base64.StdEncoding.DecodeString(s)
	n := v.aead.NonceSize()
	if err != nil || len(box) < n+v.aead.Overhead() {
		return nil, fmt.Errorf("%w: %s is cut", ErrSealedData, sealedMember)
	}
	plain, err := v.aead.Open(nil, box[:n], box[n:], sealedAAD)
	if err != nil {
		return nil, ErrSealedData
	}
	return plain, nil
}

// unmarshal opens js (vault.open) and decodes it into out.
func (v *vault) unmarshal(js []byte, out any) error {
	plain, err := v.open(js)
	if err != nil {
		return err
	}
	return json.Unmarshal(plain, out)
}
