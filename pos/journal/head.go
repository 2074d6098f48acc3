package journal

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/binary"
	"errors"
	"fmt"
	"io/fs"
	"os"

	bolt "go.etcd.io/bbolt"
)

// headSuffix ends the name of the head record beside a journal.
const headSuffix = ".head"

// HeadPath is the head record of the journal at path: path with ".head" added
// (journal.db.head). It holds the sequence and hash of the last event the
// journal committed, sealed with the chain key, outside the journal file: a
// journal whose last events were cut off, or whose chain was made anew, no
// longer holds the event it names and is refused.
func HeadPath(path string) string { return path + headSuffix }

// headRecordSize is the head record: u64 seq ‖ [32]byte hash ‖ [32]byte seal.
const headRecordSize = 8 + 32 + 32

// headSeal is the seal of a head record: HMAC-SHA256 under the chain key (SHA-256
// without one, which only catches a torn write) of a label, seq and hash.
func headSeal(key []byte, seq uint64, h [32]byte) []byte {
	m := sha256.New()
	if key != nil {
		m = hmac.New(sha256.New, key)
	}
	m.Write([]byte("galla journal head 1"))
	m.Write(binary.BigEndian.AppendUint64(nil, seq))
	m.Write(h[:])
	return m.Sum(nil)
}

// headRecord encodes the head record of seq and h.
func headRecord(key []byte, seq uint64, h [32]byte) []byte {
	b := binary.BigEndian.AppendUint64(make([]byte, 0, headRecordSize), seq)
	b = append(b, h[:]...)
	return append(b, headSeal(key, seq, h)...)
}

// writeHead writes the head record in place. It is written after the commit
// and not fsync'd: after a power cut it is at worst behind the journal, which
// the check allows (the event it names is still there), and it never gets ahead
// of it, since the commit was fsync'd first. It costs one write per Append.
func (j *Journal) writeHead(seq uint64, h [32]byte) {
	j.headMu.Lock()
	defer j.headMu.Unlock()
	if j.head == nil || (seq <= j.headSeq && j.headErr == nil) {
		return // an Append that committed later wrote it already
	}
	if _, err := j.head.WriteAt(headRecord(j.rec.key, seq, h), 0); err != nil {
		j.headErr = err
		return
	}
	j.headSeq, j.headErr = seq, nil
}

// checkHead compares the head record beside the journal with the log: the
// event it names must be there with the hash it names. A missing record, or one
// whose seal fails without a key (a torn write), is written anew from the log.
// It opens the record for the Appends to come (not read-only).
func (j *Journal) checkHead() error {
	raw, err := os.ReadFile(HeadPath(j.path))
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("journal: open: the head record: %w", err)
	}
	var seq, last uint64
	var h, lastHash, have [32]byte
	found := false
	err = j.view(func(tx *bolt.Tx) error {
		last, lastHash, _ = headOf(tx.Bucket(bucketMeta).Get(metaHead))
		if len(raw) != headRecordSize {
			return nil
		}
		seq = binary.BigEndian.Uint64(raw)
		copy(h[:], raw[8:40])
		if v := tx.Bucket(bucketEvents).Get(u64(seq)); v != nil {
			if r, _, err := splitV2(v); err == nil {
				have, found = r.Hash, true
			} else if r, err := j.rec.decode(v); err == nil {
				have, found = r.Hash, true
			}
		}
		return nil
	})
	if err != nil {
		return j.openErr(err)
	}
	sealed := len(raw) == headRecordSize && hmac.Equal(raw[40:], headSeal(j.rec.key, seq, h))
	if !sealed && j.keyAdopted && len(raw) == headRecordSize {
		// Written before the journal had a key: its unkeyed seal still counts.
		sealed = hmac.Equal(raw[40:], headSeal(nil, seq, h))
	}
	switch {
	case len(raw) == headRecordSize && !sealed && j.rec.key != nil:
		return j.corrupt(0, "the head record beside the journal is not sealed with the chain key")
	case sealed && seq > last:
		return j.corrupt(last+1, fmt.Sprintf("the journal ends at event %d, but event %d was recorded: its last events were cut off", last, seq))
	case sealed && (!found || have != h):
		return j.corrupt(seq, "the event is not the one the head record beside the journal names: the chain was made anew")
	}
	if j.readOnly {
		return nil
	}
	f, err := os.OpenFile(HeadPath(j.path), os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return fmt.Errorf("journal: open: the head record: %w", err)
	}
	j.headMu.Lock()
	j.head = f
	if sealed && seq == last {
		j.headSeq = last
	}
	j.headMu.Unlock()
	j.writeHead(last, lastHash)
	if j.headErr != nil {
		return fmt.Errorf("journal: open: the head record: %w", j.headErr)
	}
	return nil
}
