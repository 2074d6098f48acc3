package journal

import (
	"bytes"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/binary"
	"fmt"

	bolt "go.etcd.io/bbolt"

	"galla/pos"
)

// Checkpoint is the seal a Z report puts on the journal (DESIGN.md section 4):
// the chain hash at the day.closed event, the count of events up to it, and a
// digest of the derived state of the day that a replay of the events
// reproduces. Start-up verifies the chain from the last checkpoint only; the
// whole file is checked by VerifyFile, which also replays every digest.
type Checkpoint struct {
	ZNo    uint64   // the Z report that sealed it
	Seq    uint64   // the sequence of its day.closed event
	Hash   [32]byte // the chain hash of that event
	Events uint64   // the events in the log up to it (equal to Seq: the log has no gaps)
	Digest [32]byte // SHA-256 of the day's derived records (see dayDigest)
}

// checkpointSize is the stored size of a checkpoint: seq ‖ hash ‖ events ‖ digest.
const checkpointSize = 8 + 32 + 8 + 32

// encode is the stored value of c.
func (c Checkpoint) encode() []byte {
	b := make([]byte, 0, checkpointSize)
	b = binary.BigEndian.AppendUint64(b, c.Seq)
	b = append(b, c.Hash[:]...)
	b = binary.BigEndian.AppendUint64(b, c.Events)
	return append(b, c.Digest[:]...)
}

// decodeCheckpoint reads a stored checkpoint of Z report zno.
func decodeCheckpoint(zno uint64, v []byte) (Checkpoint, bool) {
	if len(v) != checkpointSize {
		return Checkpoint{}, false
	}
	c := Checkpoint{ZNo: zno, Seq: beU64(v), Events: beU64(v[40:])}
	copy(c.Hash[:], v[8:40])
	copy(c.Digest[:], v[48:])
	return c, true
}

// sealCheckpoint stores the checkpoint of ev, a day.closed event whose derived
// records are already in tx, and whose chain hash is sum. key is the chain key
// of ev's record (nil for an unkeyed one): the digest of a keyed event is keyed
// too. Append, Rebuild and the replay of VerifyFile all call it after derive, so
// a replay gives the same value or VerifyFile names the difference.
func sealCheckpoint(tx *bolt.Tx, ev *pos.Event, sum [32]byte, key []byte) error {
	if ev.Kind != pos.EvDayClosed || ev.DayClose == nil {
		return nil
	}
	c := Checkpoint{ZNo: ev.DayClose.ZNo, Seq: ev.Seq, Hash: sum, Events: ev.Seq, Digest: dayDigest(tx, ev.DayClose.Day, ev.DayClose.ZNo, key)}
	return tx.Bucket(bucketCheckpoints).Put(u64(c.ZNo), c.encode())
}

// dayDigest is SHA-256 over the derived records of a closed day, each with its
// length: the day, every key of the day in days with its order id and the
// order's stored record, the receipt and Z counters, and the stored Z report.
// With a key (the Z report's event is keyed) it is an HMAC-SHA256 with the
// chain key over the same, under a label of its own.
func dayDigest(tx *bolt.Tx, day string, zno uint64, key []byte) [32]byte {
	h, label := sha256.New(), "galla checkpoint 1"
	if key != nil {
		h, label = hmac.New(sha256.New, key), "galla checkpoint 2 keyed"
	}
	put := func(b []byte) {
		h.Write(binary.BigEndian.AppendUint32(nil, uint32(len(b))))
		h.Write(b)
	}
	put([]byte(label))
	put([]byte(day))
	// The digest is of the records in clear: sealing them (seal.go) changes
	// no digest already printed. A sealed record that does not open is
	// digested as stored, so that the day does not match.
	v := newVault(key)
	orders := tx.Bucket(bucketOrders)
	prefix := dayPrefix(day)
	c := tx.Bucket(bucketDays).Cursor()
	for k, id := c.Seek(prefix); k != nil && bytes.HasPrefix(k, prefix); k, id = c.Next() {
		put(k)
		put(id)
		raw := orders.Get(id)
		if isSealedValue(raw) {
			if plain, err := v.openValue(bucketOrders, id, raw); err == nil {
				raw = plain
			}
		}
		put(raw)
	}
	n := numbersOf(tx)
	put(u64(n.Receipt))
	put(u64(n.Z))
	put(tx.Bucket(bucketZ).Get(u64(zno)))
	var sum [32]byte
	h.Sum(sum[:0])
	return sum
}

// lastCheckpoint returns the newest checkpoint in tx; ok is false when there is
// none (no Z report yet, or a file of schema 1 not yet rebuilt).
func lastCheckpoint(tx *bolt.Tx) (c Checkpoint, ok bool, err error) {
	b := tx.Bucket(bucketCheckpoints)
	if b == nil {
		return Checkpoint{}, false, nil
	}
	k, v := b.Cursor().Last()
	if k == nil {
		return Checkpoint{}, false, nil
	}
	if len(k) != 8 {
		return Checkpoint{}, false, fmt.Errorf("a malformed checkpoint key")
	}
	c, ok = decodeCheckpoint(beU64(k), v)
	if !ok {
		return Checkpoint{}, false, fmt.Errorf("the checkpoint of Z report %d is malformed", beU64(k))
	}
	return c, true, nil
}

// checkpointBefore returns the newest checkpoint of a Z report before zno; ok is
// false when there is none.
func checkpointBefore(tx *bolt.Tx, zno uint64) (c Checkpoint, ok bool, err error) {
	b := tx.Bucket(bucketCheckpoints)
	if b == nil {
		return Checkpoint{}, false, nil
	}
	cur := b.Cursor()
	var k, v []byte
	if k, _ = cur.Seek(u64(zno)); k == nil {
		k, v = cur.Last()
	} else {
		k, v = cur.Prev()
	}
	for ; k != nil; k, v = cur.Prev() {
		if len(k) != 8 {
			return Checkpoint{}, false, fmt.Errorf("a malformed checkpoint key")
		}
		if beU64(k) >= zno {
			continue
		}
		c, ok = decodeCheckpoint(beU64(k), v)
		if !ok {
			return Checkpoint{}, false, fmt.Errorf("the checkpoint of Z report %d is malformed", beU64(k))
		}
		return c, true, nil
	}
	return Checkpoint{}, false, nil
}
