package journal

import (
	"bytes"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/binary"
	"hash"
	"sync"
)

// macPool keeps the HMAC-SHA256 states of one key (plain SHA-256 for a nil key)
// for reuse: hmac.New costs five heap allocations and the hashing of both pads,
// and an Append makes three of them (the record's hash, the order's proof, the
// head record's seal). A state is reset when it is put back; the pool is safe
// for concurrent use (the readers check proofs while an Append makes them). A
// nil *macPool pools nothing: each state is new.
//
// It is a short free list rather than a sync.Pool: a sync.Pool empties at
// every collection (an Append's garbage brings one every hundred or so) and,
// under the race detector, drops a quarter of what it is given, so the count
// of an Append's allocations that make test bounds would vary with both.
type macPool struct {
	key  []byte
	mu   sync.Mutex
	free []*macState // at most maxFreeMACs
}

// maxFreeMACs bounds the states a macPool keeps: as many as are in use at
// once (an Append and a few readers).
const maxFreeMACs = 8

// newMACPool returns the pool of the states keyed with key.
func newMACPool(key []byte) *macPool { return &macPool{key: key} }

// macState is one hash in use, with room to write a length and to take its sum
// without allocating.
type macState struct {
	h   hash.Hash
	n   [8]byte
	b   [sha256.Size]byte // a hash to write: an array on the stack would move to the heap
	sum [sha256.Size]byte
}

// newMACState returns a fresh state keyed with key (SHA-256 without one).
func newMACState(key []byte) *macState {
	if key == nil {
		return &macState{h: sha256.New()}
	}
	return &macState{h: hmac.New(sha256.New, key)}
}

// get returns a state of key: a pooled one when the pool is of that key, a new
// one otherwise.
func (mp *macPool) get(key []byte) *macState {
	if mp == nil || !bytes.Equal(mp.key, key) || (mp.key == nil) != (key == nil) {
		return newMACState(key)
	}
	mp.mu.Lock()
	if n := len(mp.free); n > 0 {
		st := mp.free[n-1]
		mp.free = mp.free[:n-1]
		mp.mu.Unlock()
		return st
	}
	mp.mu.Unlock()
	return newMACState(key)
}

// put resets st, a state of key, and keeps it for reuse.
func (mp *macPool) put(key []byte, st *macState) {
	if mp == nil || !bytes.Equal(mp.key, key) || (mp.key == nil) != (key == nil) {
		return
	}
	st.h.Reset()
	mp.mu.Lock()
	if len(mp.free) < maxFreeMACs {
		mp.free = append(mp.free, st)
	}
	mp.mu.Unlock()
}

// write writes b.
func (st *macState) write(b []byte) { st.h.Write(b) }

// writeHash writes h.
func (st *macState) writeHash(h [sha256.Size]byte) {
	st.b = h
	st.h.Write(st.b[:])
}

// writeU64 writes v as 8 bytes big-endian.
func (st *macState) writeU64(v uint64) {
	binary.BigEndian.PutUint64(st.n[:], v)
	st.h.Write(st.n[:])
}

// writeLen writes b prefixed with its length (8 bytes big-endian).
func (st *macState) writeLen(b []byte) {
	st.writeU64(uint64(len(b)))
	st.h.Write(b)
}

// sum32 is the sum of what was written.
func (st *macState) sum32() [sha256.Size]byte {
	st.h.Sum(st.sum[:0])
	return st.sum
}
