package journal

import (
	"encoding/binary"
	"math/bits"
)

// A DEFLATE encoder of our own for the bodies of events (RFC 1951, one block
// of fixed Huffman codes), whose matches reach into eventDict through an index
// of the dictionary built once for the process.
//
// A body is the compact JSON of one event, some hundreds of bytes, most of it
// the field names and values of its kind's template in the dictionary. A
// general compressor put the whole dictionary into its window again for each
// body (klauspost/compress hashes its 6.8 KB into a table of 128 KB, about 8
// µs a body and most of the compressor's time); this one keeps the
// dictionary's hash chains from the start and keeps a table of its own for
// the body's strings. What it writes is the same format as before: DEFLATE
// with eventDict as the preset dictionary, which every inflater given the
// dictionary reads (inflate in codec.go), so records written before and after
// read alike and nothing of the record format or the schema changes. A body
// longer than lzMaxBody (a catalog, a Z report of a busy day) still goes
// through klauspost's compressor. Measured in docs/benchmarks.md ("A DEFLATE
// encoder for the bodies").

const (
	lzHashBits  = 12
	lzMinMatch  = 4   // the shortest match looked for (DEFLATE allows 3)
	lzMaxMatch  = 258 // DEFLATE's longest
	lzDictChain = 8   // candidates tried in the dictionary at one position
	lzBodyChain = 4   // candidates tried in the body
	lzGoodMatch = 64  // a match this long ends the search
	// lzMaxBody is the longest body this encoder takes: the dictionary and the
	// body then fit in DEFLATE's window of 32 KB, so every distance is valid,
	// and the chains' positions fit in 16 bits.
	lzMaxBody = 16 << 10
)

// lzIndex is the hash chains of a preset dictionary: read-only once built.
type lzIndex struct {
	dict []byte
	head [1 << lzHashBits]uint16 // position+1 of the last string of 4 bytes with each hash; 0 none
	prev []uint16                // prev[p]: position+1 of the string before p with the same hash
}

func newLZIndex(dict []byte) *lzIndex {
	x := &lzIndex{dict: dict, prev: make([]uint16, len(dict))}
	for p := 0; p+lzMinMatch <= len(dict); p++ {
		h := lzHash(load32(dict, p))
		x.prev[p] = x.head[h]
		x.head[h] = uint16(p + 1)
	}
	return x
}

func load32(b []byte, p int) uint32 { return binary.LittleEndian.Uint32(b[p : p+4]) }

func lzHash(u uint32) uint32 { return (u * 0x9E3779B1) >> (32 - lzHashBits) }

// matchLen is the length of the common prefix of a and b, at most max.
func matchLen(a, b []byte, max int) int {
	max = min(max, len(a), len(b))
	n := 0
	for n+8 <= max {
		if x := binary.LittleEndian.Uint64(a[n:]) ^ binary.LittleEndian.Uint64(b[n:]); x != 0 {
			return n + bits.TrailingZeros64(x)>>3
		}
		n += 8
	}
	for n < max && a[n] == b[n] {
		n++
	}
	return n
}

// lzEncoder encodes bodies against one dictionary index. Its tables are
// reused from body to body; it is not safe for concurrent use.
type lzEncoder struct {
	x *lzIndex
	// head is the body's chain heads: the body's number (gen) in the high 16
	// bits and position+1 in the low, so that a head left by an earlier body
	// reads as none and the table is not cleared for each body (8 KB, most of
	// it never read by a body of some hundred bytes).
	head [1 << lzHashBits]uint32
	gen  uint32            // this body's number, 1 to 65535
	prev [lzMaxBody]uint16 // as the index's, for positions of this body
}

// bodyHead returns the position+1 of the last string of this body with hash
// h, 0 when there is none.
func (e *lzEncoder) bodyHead(h uint32) uint16 {
	if v := e.head[h]; v>>16 == e.gen {
		return uint16(v)
	}
	return 0
}

// setHead makes position i of this body the head of hash h's chain.
func (e *lzEncoder) setHead(h uint32, i int) { e.head[h] = e.gen<<16 | uint32(i+1) }

// encode appends to dst src compressed as one final DEFLATE block of fixed
// Huffman codes whose distances may reach into the dictionary before src.
// src is at most lzMaxBody bytes.
func (e *lzEncoder) encode(dst, src []byte) []byte {
	if e.gen++; e.gen > 0xffff {
		clear(e.head[:])
		e.gen = 1
	}
	w := bitWriter{out: dst}
	w.bits(1|1<<1, 3) // BFINAL, BTYPE 01: fixed Huffman codes
	n := len(src)
	for i := 0; i < n; {
		l, d := e.find(src, i)
		if l < lzMinMatch {
			e.insert(src, i)
			w.literal(src[i])
			i++
			continue
		}
		next := i // the first position of the match not yet in the chains
		if l < lzGoodMatch && i+1+lzMinMatch <= n {
			// One step of lazy matching: a longer match at the next byte
			// is worth a literal.
			e.insert(src, i)
			next = i + 1
			if l2, d2 := e.find(src, i+1); l2 > l {
				w.literal(src[i])
				i, l, d = i+1, l2, d2
			}
		}
		for k := next; k < i+l; k++ {
			e.insert(src, k)
		}
		w.match(l, d)
		i += l
	}
	w.code(256) // end of block
	return w.flush()
}

// insert adds the string at i of src to the body's chains.
func (e *lzEncoder) insert(src []byte, i int) {
	if i+lzMinMatch > len(src) {
		return
	}
	h := lzHash(load32(src, i))
	e.prev[i] = e.bodyHead(h)
	e.setHead(h, i)
}

// find returns the longest match for the string at i of src, in the body
// before it and in the dictionary, and its distance; 0 when there is none of
// lzMinMatch bytes.
func (e *lzEncoder) find(src []byte, i int) (length, dist int) {
	if i+lzMinMatch > len(src) {
		return 0, 0
	}
	cur := src[i:]
	h := lzHash(load32(src, i))
	for c, k := e.bodyHead(h), 0; c != 0 && k < lzBodyChain; c, k = e.prev[c-1], k+1 {
		j := int(c - 1)
		if l := matchLen(src[j:], cur, lzMaxMatch); l > length {
			length, dist = l, i-j
			if l >= lzGoodMatch {
				return length, dist
			}
		}
	}
	x := e.x
	for c, k := x.head[h], 0; c != 0 && k < lzDictChain; c, k = x.prev[c-1], k+1 {
		j := int(c - 1)
		if l := matchLen(x.dict[j:], cur, lzMaxMatch); l > length {
			length, dist = l, len(x.dict)-j+i
			if l >= lzGoodMatch {
				break
			}
		}
	}
	return length, dist
}

// bitWriter writes DEFLATE's bit stream: least significant bit first, Huffman
// codes with their first bit first.
type bitWriter struct {
	out []byte
	acc uint64
	n   uint
}

func (w *bitWriter) bits(v uint64, n uint) {
	w.acc |= v << w.n
	w.n += n
	if w.n >= 32 {
		w.out = binary.LittleEndian.AppendUint32(w.out, uint32(w.acc))
		w.acc >>= 32
		w.n -= 32
	}
}

func (w *bitWriter) flush() []byte {
	for w.n > 0 {
		w.out = append(w.out, byte(w.acc))
		w.acc >>= 8
		w.n = max(w.n, 8) - 8
	}
	return w.out
}

// code writes the fixed Huffman code of literal/length symbol s.
func (w *bitWriter) code(s int) { w.bits(uint64(fixedLit[s].code), uint(fixedLit[s].len)) }

func (w *bitWriter) literal(b byte) { w.code(int(b)) }

// match writes a match of length l (3 to 258) at distance d (1 to 32768).
func (w *bitWriter) match(l, d int) {
	lc := lengthCodes[l]
	w.code(int(lc.sym))
	if lc.extraBits > 0 {
		w.bits(uint64(lc.extra), uint(lc.extraBits))
	}
	sym, nb, extra := distCode(d)
	w.bits(uint64(bits.Reverse8(uint8(sym))>>3), 5) // the fixed distance codes: 5 bits each
	if nb > 0 {
		w.bits(uint64(extra), nb)
	}
}

// distCode is the distance symbol of d (1 to 32768), its count of extra bits and
// their value (RFC 1951 3.2.5).
func distCode(d int) (sym int, nb uint, extra int) {
	v := d - 1
	if v < 4 {
		return v, 0, 0
	}
	nb = uint(bits.Len32(uint32(v))) - 2
	return 2*int(nb) + 2 + (v>>nb)&1, nb, v & (1<<nb - 1)
}

type huffCode struct {
	code uint16 // reversed: first bit in the least significant place
	len  uint8
}

type lengthCode struct {
	sym       uint16
	extraBits uint8
	extra     uint8
}

var (
	fixedLit    [288]huffCode
	lengthCodes [lzMaxMatch + 1]lengthCode
)

func init() {
	for s := range fixedLit {
		var code, n int
		switch {
		case s < 144:
			code, n = 0x30+s, 8
		case s < 256:
			code, n = 0x190+s-144, 9
		case s < 280:
			code, n = s-256, 7
		default:
			code, n = 0xC0+s-280, 8
		}
		fixedLit[s] = huffCode{code: bits.Reverse16(uint16(code)) >> (16 - n), len: uint8(n)}
	}
	// RFC 1951 3.2.5: the base length of each length symbol from 257 and its
	// extra bits.
	base := [...]int{3, 4, 5, 6, 7, 8, 9, 10, 11, 13, 15, 17, 19, 23, 27, 31, 35, 43, 51, 59, 67, 83, 99, 115, 131, 163, 195, 227, 258}
	extra := [...]uint8{0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2, 2, 3, 3, 3, 3, 4, 4, 4, 4, 5, 5, 5, 5, 0}
	for k := len(base) - 1; k >= 0; k-- {
		top := lzMaxMatch
		if k+1 < len(base) {
			top = base[k+1] - 1
		}
		for l := base[k]; l <= top; l++ {
			lengthCodes[l] = lengthCode{sym: uint16(257 + k), extraBits: extra[k], extra: uint8(l - base[k])}
		}
	}
}
