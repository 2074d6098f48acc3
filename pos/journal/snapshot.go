package journal

import (
	"bytes"
	"context"
	"crypto/hmac"
	"fmt"

	bolt "go.etcd.io/bbolt"

	"galla/pos"
)

// bucketSnapshots holds the state pos derives from the events (the book of
// shifts, held bills and IMEIs; the e-invoice registrations) sealed at an
// event, so that a process replays only the events since (pos.Snapshotter).
// Created by the first snapshot, so that no migration is needed: a journal
// without one is replayed from its first event once, and sealed then.
//
//	name → [32]byte proof ‖ u64 seq ‖ [32]byte hash of event seq ‖ state
//
// The proof is the record's proof (proof.go) of "seq ‖ hash ‖ state" under
// the name, kept in the value rather than in the proofs bucket: Rebuild and
// VerifyFile's replay make every derived bucket and the proofs anew from the
// events, and a snapshot is not made by the events alone. A snapshot stays
// right across a Rebuild (the events are the same) and is not compared by
// verify; what it holds is checked against a replay by pos's tests.
var bucketSnapshots = []byte("snapshots")

// snapshotHeader is the proof, the sequence and the event's hash.
const snapshotHeader = 32 + 8 + 32

// Snapshot returns the snapshot last saved under name, or false when there is
// none. A snapshot whose proof fails (edited in the file), or whose event is
// no longer the one it was sealed at, is a *MismatchError naming it, kept as
// the verification's result like any record whose proof fails.
func (lg *Log) Snapshot(ctx context.Context, name string) (pos.Snapshot, bool, error) {
	if err := ctx.Err(); err != nil {
		return pos.Snapshot{}, false, fmt.Errorf("journal: snapshot %s: %w", name, err)
	}
	var (
		s  pos.Snapshot
		ok bool
	)
	err := lg.view(func(tx *bolt.Tx) error {
		var err error
		s, _, ok, err = lg.snapshotIn(tx, name)
		return err
	})
	if err != nil {
		return pos.Snapshot{}, false, fmt.Errorf("journal: snapshot %s: %w", name, err)
	}
	return s, ok, nil
}

// snapshotIn reads and checks the snapshot name in tx, with the record of its
// event.
func (lg *Log) snapshotIn(tx *bolt.Tx, name string) (pos.Snapshot, *record, bool, error) {
	b := tx.Bucket(bucketSnapshots)
	if b == nil {
		return pos.Snapshot{}, nil, false, nil
	}
	v := b.Get([]byte(name))
	if v == nil {
		return pos.Snapshot{}, nil, false, nil
	}
	refuse := func(reason string) (pos.Snapshot, *record, bool, error) {
		return pos.Snapshot{}, nil, false, lg.refuse(string(bucketSnapshots), name, reason)
	}
	if len(v) < snapshotHeader {
		return refuse("the record is cut short")
	}
	if !hmac.Equal(v[:32], lg.proofs.sum(bucketSnapshots, []byte(name), v[32:])) {
		return refuse("the record was changed outside Galla: its proof does not match")
	}
	seq := beU64(v[32:40])
	raw := tx.Bucket(bucketEvents).Get(u64(seq))
	if raw == nil {
		return refuse(fmt.Sprintf("it was sealed at event %d, which the journal does not hold", seq))
	}
	r, err := lg.rec.decode(raw)
	if err != nil {
		return pos.Snapshot{}, nil, false, lg.corrupt(seq, err.Error())
	}
	if r.Seq != seq || !bytes.Equal(r.Hash[:], v[40:72]) {
		return refuse(fmt.Sprintf("it was sealed at event %d, which the journal holds with another hash", seq))
	}
	return pos.Snapshot{Seq: seq, Data: bytes.Clone(v[snapshotHeader:])}, r, true, nil
}

// markVerified is the snapshot that marks the event up to which an Open
// verified the chain and the derived records since the last checkpoint; the
// next Open starts there when it is past the last Z report's checkpoint, so
// that a journal with no Z report for many days still opens in the time of
// markEvery events. Its state is empty.
const markVerified = "journal.verified"

// markEvery is how many events a verification walks before it leaves a mark:
// an Open walks fewer than that, each with the derived records it wrote
// checked (some 27 µs an event of a cash sale; at 2 000 a command of the
// command line spent up to 54 ms in it), and one in that many events costs a
// commit of the mark.
const markEvery = 128

// SaveSnapshot seals s under name, bound to the hash of its event, in one
// commit. It refuses a snapshot of an event the journal does not hold, and one
// older than the snapshot kept (two processes of one journal cannot run at
// once, but a window's slow catch-up must not put an older one back).
func (lg *Log) SaveSnapshot(ctx context.Context, name string, s pos.Snapshot) error {
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("journal: save snapshot %s: %w", name, err)
	}
	err := lg.update(func(tx *bolt.Tx) error {
		raw := tx.Bucket(bucketEvents).Get(u64(s.Seq))
		if raw == nil {
			return fmt.Errorf("event %d: %w", s.Seq, errNoEvent)
		}
		r, err := lg.rec.decode(raw)
		if err != nil {
			return lg.corrupt(s.Seq, err.Error())
		}
		b, err := tx.CreateBucketIfNotExists(bucketSnapshots)
		if err != nil {
			return err
		}
		if old := b.Get([]byte(name)); len(old) >= snapshotHeader && beU64(old[32:40]) >= s.Seq {
			return nil
		}
		body := make([]byte, 0, snapshotHeader-32+len(s.Data))
		body = append(append(append(body, u64(s.Seq)...), r.Hash[:]...), s.Data...)
		v := append(lg.proofs.sum(bucketSnapshots, []byte(name), body), body...)
		return b.Put([]byte(name), v)
	})
	if err != nil {
		return fmt.Errorf("journal: save snapshot %s: %w", name, err)
	}
	return nil
}
