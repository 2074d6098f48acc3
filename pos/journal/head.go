package journal

import "encoding/binary"

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
	var s sealer
	sum := s.headSeal(key, seq, h)
	return sum[:]
}

// headSeal is the package's headSeal with a state from s's pool when key is s's.
func (s *sealer) headSeal(key []byte, seq uint64, h [32]byte) [32]byte {
	st := s.macs.get(key)
	st.write(headLabel)
	st.writeU64(seq)
	st.writeHash(h)
	sum := st.sum32()
	s.macs.put(key, st)
	return sum
}

// headLabel opens what a head record's seal is the hash of.
var headLabel = []byte("galla journal head 1")

// headRecord encodes the head record of seq and h.
func headRecord(key []byte, seq uint64, h [32]byte) []byte {
	var s sealer
	return s.appendHead(make([]byte, 0, headRecordSize), key, seq, h)
}

// appendHead appends to dst the head record of seq and h sealed with key.
func (s *sealer) appendHead(dst, key []byte, seq uint64, h [32]byte) []byte {
	dst = binary.BigEndian.AppendUint64(dst, seq)
	dst = append(dst, h[:]...)
	sum := s.headSeal(key, seq, h)
	return append(dst, sum[:]...)
}
