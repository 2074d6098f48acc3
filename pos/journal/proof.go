package journal

import (
	"bytes"
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"hash"

	bolt "go.etcd.io/bbolt"

	"galla/pos"
)

// The proofs of the derived records (schema 4). Every record pos reads to decide
// (a staff member with role and PIN hash, a setting such as the shop's name or
// UPI address, the catalog, a Z report, an order) carries a keyed proof written
// in the transaction that derived it, and every part's read checks the proof
// before the record is used: a record edited in the file, whatever its age, is
// a *MismatchError naming it, never believed. The proof is
//
//	HMAC-SHA256(proof key, len ‖ bucket ‖ len ‖ key ‖ len ‖ value)
//
// with the proof key HMAC-SHA256(chain key, proofLabel), so that a proof cannot
// be made without the chain key and a record cannot be moved to another key or
// bucket. Staff, settings, the catalog and the Z reports keep theirs in the
// proofs bucket under bucket ‖ 0x00 ‖ key. An order keeps its proof in the
// value of its newest event index entry (orderID ‖ 0x00 ‖ u64 seq), proving
// the record under that key: it is written on the page the Append rewrites
// anyway, and an older state of the order put back no longer matches the
// newest entry.
var bucketProofs = []byte("proofs")

// proofLabel is what the proof key is the HMAC of, under the chain key.
const proofLabel = "galla journal record proof 1"

// schemaProofs is the first schema whose derived records carry proofs.
const schemaProofs = 4

// prover makes and checks the proofs of the derived records of one journal.
type prover struct {
	key  []byte
	v    *vault   // seals the records that name a person (seal.go); nil without a chain key
	macs *macPool // the hash states of key
}

// newProver returns the prover of the journal keyed with chainKey. Without a key
// (tests, the journal's own tools) the proofs are keyed with a fixed label:
// they catch damage, not an edit.
func newProver(chainKey []byte) prover {
	m := hmac.New(sha256.New, chainKey)
	m.Write([]byte(proofLabel))
	key := m.Sum(nil)
	return prover{key: key, v: newVault(chainKey), macs: newMACPool(key)}
}

// sum is the proof of value stored under key in bucket.
func (p prover) sum(bucket, key, value []byte) []byte {
	return p.appendSum(nil, bucket, key, value)
}

// appendSum appends to dst the proof of value stored under key in bucket.
func (p prover) appendSum(dst, bucket, key, value []byte) []byte {
	st := p.macs.get(p.key)
	st.writeLen(bucket)
	st.writeLen(key)
	st.writeLen(value)
	sum := st.sum32()
	p.macs.put(p.key, st)
	return append(dst, sum[:]...)
}

// writeLen writes b to m prefixed with its length.
func writeLen(m hash.Hash, b []byte) {
	m.Write(binary.BigEndian.AppendUint64(nil, uint64(len(b))))
	m.Write(b)
}

// proofKey is the key of the proof of bucket's record key in the proofs bucket.
func proofKey(bucket, key []byte) []byte {
	k := make([]byte, 0, len(bucket)+1+len(key))
	k = append(append(append(k, bucket...), sep), key...)
	return k
}

// put stores value under key in bucket, and its proof beside it when the journal
// keeps proofs (the proofs bucket is there). A record that names a person is
// stored sealed, a remembered customer under a digest of the key (seal.go); the
// proof is of the key as stored and the value in clear.
func (p prover) put(tx *bolt.Tx, bucket, key, value []byte) error {
	key = p.v.storeKey(bucket, key)
	if err := tx.Bucket(bucket).Put(key, p.v.sealValue(bucket, key, value)); err != nil {
		return err
	}
	proofs := tx.Bucket(bucketProofs)
	if proofs == nil {
		return nil
	}
	return proofs.Put(proofKey(bucket, key), p.sum(bucket, key, value))
}

// proved reports whether the journal in tx keeps proofs, and refuses a journal
// of schema 4 or later whose proofs bucket is gone (deleted to make edited
// records pass). A journal of an older schema (read-only, not migrated) has
// none, and its records are read as they are.
func proved(tx *bolt.Tx) (bool, error) {
	if tx.Bucket(bucketProofs) != nil {
		return true, nil
	}
	if schemaOf(tx) >= schemaProofs {
		return false, errProofsMissing
	}
	return false, nil
}

// errProofsMissing is the reason of a journal of schema 4 without proofs.
var errProofsMissing = fmt.Errorf("the proofs of the records are missing")

// check checks the proof of the record value stored under key in bucket (key
// and value as stored). It returns the reason the record is not to be
// believed, or "".
func (p prover) check(tx *bolt.Tx, bucket, key, value []byte) string {
	value, err := p.v.openValue(bucket, key, value)
	if err != nil {
		return err.Error()
	}
	on, err := proved(tx)
	switch {
	case err != nil:
		return err.Error()
	case !on:
		return ""
	}
	have := tx.Bucket(bucketProofs).Get(proofKey(bucket, key))
	switch {
	case have == nil:
		return "the record has no proof: it was put into the file outside Galla"
	case !hmac.Equal(have, p.sum(bucket, key, value)):
		return "the record was changed outside Galla: its proof does not match"
	}
	return ""
}

// lastOrderEvent returns the newest entry of the event index of order id: its
// key and value.
func lastOrderEvent(orders *bolt.Bucket, id []byte) ([]byte, []byte) {
	prefix := append(bytes.Clone(id), sep)
	c := orders.Cursor()
	// The entries of id sort between id ‖ 0x00 and id ‖ 0x01.
	k, _ := c.Seek(append(bytes.Clone(id), sep+1))
	var v []byte
	if k == nil {
		k, v = c.Last()
	} else {
		k, v = c.Prev()
	}
	if !bytes.HasPrefix(k, prefix) || len(k) != len(prefix)+8 {
		return nil, nil
	}
	return k, v
}

// checkOrderProof checks the proof of the stored order record raw of id.
func (p prover) checkOrderProof(tx *bolt.Tx, id, raw []byte) string {
	raw, err := p.v.openValue(bucketOrders, id, raw)
	if err != nil {
		return err.Error()
	}
	on, err := proved(tx)
	switch {
	case err != nil:
		return err.Error()
	case !on:
		return ""
	}
	k, proof := lastOrderEvent(tx.Bucket(bucketOrders), id)
	switch {
	case k == nil:
		return "the order has no events"
	case len(proof) == 0:
		return "the record has no proof: it was put into the file outside Galla"
	case !hmac.Equal(proof, p.sum(bucketOrders, k, raw)):
		return "the record was changed outside Galla: its proof does not match its last event"
	}
	return ""
}

// refuse is the *MismatchError of a record whose proof fails: it is also kept as
// the result of the verification, so that the window's payments stop
// (pos.JournalHealth) as they do for a broken chain.
func (jc *journalCore) refuse(bucket, key, reason string) error {
	err := jc.mismatch(bucket, key, reason)
	jc.vmu.Lock()
	if jc.verifyErr == nil {
		jc.verified, jc.verifyErr = true, err
	}
	jc.vmu.Unlock()
	return err
}

// provedGet reads the record key of bucket and checks its proof: nil when there
// is no record, a *MismatchError when its proof fails. A sealed record is
// returned in clear.
func (jc *journalCore) provedGet(tx *bolt.Tx, bucket, key []byte) ([]byte, error) {
	key = jc.proofs.v.storeKey(bucket, key)
	v := tx.Bucket(bucket).Get(key)
	on, err := proved(tx)
	switch {
	case err != nil:
		return nil, jc.refuse(string(bucket), printable(key), err.Error())
	case v == nil && on && tx.Bucket(bucketProofs).Get(proofKey(bucket, key)) != nil:
		return nil, jc.refuse(string(bucket), printable(key), "the record was deleted outside Galla: its proof is still there")
	case v == nil:
		return nil, nil
	}
	if reason := jc.proofs.check(tx, bucket, key, v); reason != "" {
		return nil, jc.refuse(string(bucket), printable(key), reason)
	}
	return jc.proofs.v.openValue(bucket, key, v)
}

// proofError is a derived record whose proof fails, found while an event is
// derived from it (an order's next event, a staff member's attempt): the event
// is refused, and Append makes it the *MismatchError that names the record.
type proofError struct{ bucket, key, reason string }

func (e *proofError) Error() string {
	return fmt.Sprintf("%s %q: %s: %v", e.bucket, e.key, e.reason, ErrDerivedMismatch)
}

func (e *proofError) Is(target error) bool {
	return target == ErrDerivedMismatch || target == ErrDamaged
}

// checkStaffAndSettings checks the proof of every staff record and setting:
// a few dozen records, read by every command before it does anything.
func (j *Journal) checkStaffAndSettings() error {
	return j.core.view(func(tx *bolt.Tx) error {
		if on, err := proved(tx); err != nil || !on {
			if err != nil {
				return j.core.refuse("proofs", "", err.Error())
			}
			return nil
		}
		for _, bucket := range [][]byte{bucketStaff, bucketSettings} {
			if err := tx.Bucket(bucket).ForEach(func(k, v []byte) error {
				if reason := j.core.proofs.check(tx, bucket, k, v); reason != "" {
					return j.core.refuse(string(bucket), printable(k), reason)
				}
				return nil
			}); err != nil {
				return err
			}
		}
		return nil
	})
}

// EvRecordsProved is the journal's own event recording that the derived records
// of a journal written before proofs (schema 3 or older) were proved against a
// replay of its events, once, at the first Open by a build of schema 4, and
// given their proofs (Data: a recordsProved). It changes no order and no number.
const EvRecordsProved pos.EventKind = "journal.records_proved"

// recordsProved is the Data of journal.records_proved.
type recordsProved struct {
	Proofs int    `json:"proofs"`                // the records given a proof in the proofs bucket (orders keep theirs in their index)
	Events uint64 `json:"events"`                // the events replayed
	Backup string `json:"backup,omitempty"`      // the copy taken before the migration
	From   uint64 `json:"schema_from,omitempty"` // the schema the file had
}

// proveRecords gives a journal without proofs its proofs: its derived records
// are compared with a replay of every event (checkDerived), and only when every
// one matches are they rebuilt with their proofs, and the proof journaled. A
// record that does not match is a *MismatchError naming it: nothing is changed.
func (j *Journal) proveRecords(ctx context.Context, mig migrated) error {
	if err := j.Log.checkDerivedAs(ctx, true); err != nil {
		return err
	}
	if err := j.Log.Rebuild(ctx); err != nil {
		return j.core.openErr(fmt.Errorf("journal: open: prove the records: %w", err))
	}
	var d recordsProved
	if err := j.core.view(func(tx *bolt.Tx) error {
		d.Proofs = tx.Bucket(bucketProofs).Stats().KeyN
		d.Events, _, _ = headIn(tx.Bucket(bucketEvents))
		return nil
	}); err != nil {
		return j.core.openErr(err)
	}
	d.Backup, d.From = mig.backup, mig.from
	data, err := json.Marshal(d)
	if err != nil {
		return err
	}
	if _, err := j.Log.Append(ctx, pos.Event{Kind: EvRecordsProved, Time: j.core.now(), Data: data}); err != nil {
		return fmt.Errorf("journal: open: record the proof of the records: %w", err)
	}
	return nil
}

// provedWith names a record of the proofs bucket whose proof p made, or ""
// when none is (the proofs were made with another key, or there are none).
func provedWith(tx *bolt.Tx, p prover) string {
	proofs := tx.Bucket(bucketProofs)
	if proofs == nil {
		return ""
	}
	found := ""
	_ = proofs.ForEach(func(k, v []byte) error {
		i := bytes.IndexByte(k, sep)
		if i < 0 {
			return nil
		}
		bucket, key := k[:i], k[i+1:]
		b := tx.Bucket(bucket)
		if b == nil {
			return nil
		}
		rec, err := p.v.openValue(bucket, key, b.Get(key))
		if err == nil && rec != nil && hmac.Equal(v, p.sum(bucket, key, rec)) {
			found = string(bucket) + " " + printable(key)
			return errStop
		}
		return nil
	})
	return found
}

// errStop ends a ForEach early.
var errStop = errors.New("stop")

// fileProofLabel prefixes the name of a file beside the journal whose proof key
// FileProofKey gives.
const fileProofLabel = "galla file proof 1\x00"

// FileProofKey is the key of the keyed proof of name, a file the terminal keeps
// beside the journal and decides by (store-sync.json: which of this counter's
// invoices other counters returned). It is derived from the proof key of the
// records, so from the chain key: whoever holds the file without the keyring
// cannot make a proof that checks, and a proof of one file is no proof of
// another. Without a chain key it is a fixed key, as the records' proofs are:
// it catches damage, not an edit.
func (j *Journal) FileProofKey(name string) []byte {
	m := hmac.New(sha256.New, j.core.proofs.key)
	m.Write([]byte(fileProofLabel + name))
	return m.Sum(nil)
}
