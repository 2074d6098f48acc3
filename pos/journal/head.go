package journal

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/binary"
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
