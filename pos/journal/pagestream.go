package journal

import (
	"context"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"math/bits"
	"runtime"
	"sync"
	"sync/atomic"
)

// pageStream receives the copy Tx.WriteTo writes and goes through it a page
// at a time: each page's digest (pageDigest) is handed with its number to
// want, and the pages want asks for are handed to page, in order. It keeps
// the CRC-32C of the whole copy, the digest of every page when keep is set,
// and when there is a tee it writes each chunk it is given to it whole.
//
// Without a tee, the journal's data pages, which Tx.WriteTo hands over as a
// reader of a section of the journal file (ReadFrom), are digested by
// several goroutines at once, a piece each in turn, and the pages wanted
// are read again afterwards: at close-day the increment digests every page
// of the journal and keeps a few hundred, and a year's journal is 300 MB
// read from the page cache and checksummed (issue 25: the close-day of a
// 500 000-event journal, 2× a fresh journal's with one goroutine). A page
// read again is taken as read then: a page free in the journal, outside the
// read transaction's view, may have been written by a commit since; its
// digest kept and its share of the CRC are those of the bytes handed to
// page.
type pageStream struct {
	size    int
	buf     []byte
	n       int // bytes in buf
	pgid    uint64
	written int64
	crc     uint32 // the CRC-32C of the copy so far
	join    *crcJoin
	keep    bool
	digests []uint64 // every page's, in order, when keep is set
	want    func(pgid, digest uint64) bool
	page    func(pgid uint64, p []byte) error
	tee     io.Writer
	// With since set, the data pages not in it are the base's, whose
	// digests are known: only the pages written since the base are read
	// (writtenSection, written.go).
	since *pageSet
	known []uint64
	// taken is the digest of the page handed to page, while it runs.
	taken uint64
	// With since set, the pages from readFrom up to readTo are read as
	// well (a chunk of the next base, copied from the day's copy).
	readFrom, readTo uint64
}

// newPageStream streams pages of size bytes. want and page are called in the
// pages' order, from the caller's goroutine; want may be nil, wanting no
// page, and page then too.
func newPageStream(size int, want func(pgid, digest uint64) bool, page func(pgid uint64, p []byte) error) *pageStream {
	return &pageStream{size: size, buf: make([]byte, size), want: want, page: page}
}

func (s *pageStream) Write(p []byte) (int, error) {
	total := len(p)
	if s.tee != nil {
		if _, err := s.tee.Write(p); err != nil {
			return 0, err
		}
	}
	s.crc = crc32.Update(s.crc, backupCRC, p)
	s.written += int64(total)
	for len(p) > 0 {
		if s.n == 0 && len(p) >= s.size {
			if err := s.whole(p[:s.size]); err != nil {
				return 0, err
			}
			p = p[s.size:]
			continue
		}
		k := copy(s.buf[s.n:], p)
		s.n += k
		p = p[k:]
		if s.n == s.size {
			if err := s.whole(s.buf); err != nil {
				return 0, err
			}
			s.n = 0
		}
	}
	return total, nil
}

// whole takes the next page, p.
func (s *pageStream) whole(p []byte) error {
	id := s.pgid
	s.pgid++
	d := pageDigest(p)
	if s.keep {
		s.digests = append(s.digests, d)
	}
	if s.want != nil && s.want(id, d) {
		s.taken = d
		return s.page(id, p)
	}
	return nil
}

// ReadFrom reads the copy's data pages. Tx.WriteTo hands them over as
// io.CopyN does, a section of the journal file limited to its length: those
// are digested in parallel (digestSection); any other reader is read in
// large chunks (readChunks).
func (s *pageStream) ReadFrom(r io.Reader) (int64, error) {
	if lr, ok := r.(*io.LimitedReader); ok && s.tee == nil && s.n == 0 && lr.N%int64(s.size) == 0 {
		if sr, ok := lr.R.(*io.SectionReader); ok {
			if at, err := sr.Seek(0, io.SeekCurrent); err == nil && at+lr.N <= sr.Size() {
				digest := s.digestSection
				if s.since != nil {
					digest = s.writtenSection
				}
				n, err := digest(sr, at, lr.N)
				if _, serr := sr.Seek(n, io.SeekCurrent); err == nil {
					err = serr
				}
				lr.N -= n
				return n, err
			}
		}
	}
	return readChunks(r, s.Write)
}

// digestChunk is the share of the section one goroutine reads and digests
// at a time: small enough to be checksummed from the processor's cache.
const digestChunk = 256 << 10

// digestSection digests the n bytes of whole pages of r from off: each
// goroutine takes the next chunk not taken, reads it and keeps the digests of
// its pages. Then, in order, it adds each page to the copy's CRC-32C (joined
// from the page's own, the digest's high half) and hands its digest to want,
// reading again the pages wanted. It returns the bytes taken: all of them, or
// up to the page where it stopped.
func (s *pageStream) digestSection(r io.ReaderAt, off, n int64) (int64, error) {
	ps := int64(s.size)
	digests := make([]uint64, n/ps)
	chunk := max(digestChunk/ps, 1) * ps
	err := readInPieces(context.Background(), r, off, n, chunk, func(c int64, p []byte) {
		first := c * chunk / ps
		for i := int64(0); i < int64(len(p)); i += ps {
			digests[first+i/ps] = pageDigest(p[i : i+ps])
		}
	})
	if err != nil {
		return 0, fmt.Errorf("reading the journal's pages: %w", err)
	}
	if s.join == nil {
		s.join = newCRCJoin(s.size)
	}
	for i, d := range digests {
		if err := s.next(r, off+int64(i)*ps, d); err != nil {
			return int64(i) * ps, err
		}
	}
	return n, nil
}

// next counts the next page, at off in r, of digest d, into the copy: when
// want asks for it, it is read again (take), else counted as it is (add).
func (s *pageStream) next(r io.ReaderAt, off int64, d uint64) error {
	id := s.pgid
	if s.want == nil || !s.want(id, d) {
		s.add(id, d)
		return nil
	}
	if _, err := r.ReadAt(s.buf, off); err != nil {
		return err
	}
	return s.take(id, s.buf, true)
}

// writtenRun is the most pages writtenSection reads at once.
const writtenRun = 64

// writtenSection goes through the n bytes of whole pages of r from off as
// digestSection does, reading only the pages written since the base
// (s.since) and those past its digests (s.known): every other page is the
// base's, its digest the one known. Runs of pages to read are read together.
func (s *pageStream) writtenSection(r io.ReaderAt, off, n int64) (int64, error) {
	ps := int64(s.size)
	if s.join == nil {
		s.join = newCRCJoin(s.size)
	}
	count := n / ps
	first := s.pgid
	read := func(id uint64) bool {
		return id >= uint64(len(s.known)) || s.since.has(id) || id >= s.readFrom && id < s.readTo
	}
	var run []byte
	for i := int64(0); i < count; {
		id := first + uint64(i)
		if !read(id) {
			if err := s.next(r, off+i*ps, s.known[id]); err != nil {
				return i * ps, err
			}
			i++
			continue
		}
		j := i + 1
		for j < count && j-i < writtenRun && read(first+uint64(j)) {
			j++
		}
		if run == nil {
			run = make([]byte, writtenRun*ps)
		}
		p := run[:(j-i)*ps]
		if _, err := r.ReadAt(p, off+i*ps); err != nil {
			return i * ps, err
		}
		for k := int64(0); k < j-i; k++ {
			if err := s.take(first+uint64(i+k), p[k*ps:(k+1)*ps], false); err != nil {
				return (i + k + 1) * ps, err
			}
		}
		i = j
	}
	return n, nil
}

// add counts the next page, id, of digest d, into the copy.
func (s *pageStream) add(id, d uint64) {
	s.pgid = id + 1
	s.written += int64(s.size)
	s.crc = s.join.join(s.crc, uint32(d>>32))
	if s.keep {
		s.digests = append(s.digests, d)
	}
}

// take counts the next page, id, read as p, into the copy and hands it to
// page when want asks for it (or wanted says it did).
func (s *pageStream) take(id uint64, p []byte, wanted bool) error {
	d := pageDigest(p)
	s.add(id, d)
	if wanted || (s.want != nil && s.want(id, d)) {
		s.taken = d
		return s.page(id, p)
	}
	return nil
}

// readInPieces reads the n bytes of r from off in pieces of chunk bytes (the
// last may be shorter) and hands each to each with its number, from several
// goroutines at once: each takes the next piece not taken. It returns the
// first error of a read, or ctx's, once every goroutine has stopped.
func readInPieces(ctx context.Context, r io.ReaderAt, off, n, chunk int64, each func(c int64, p []byte)) error {
	pieces := (n + chunk - 1) / chunk
	var (
		next   atomic.Int64
		failed atomic.Bool
		once   sync.Once
		ferr   error
		wg     sync.WaitGroup
	)
	fail := func(err error) {
		once.Do(func() { ferr = err })
		failed.Store(true)
	}
	for range min(int64(min(runtime.GOMAXPROCS(0), 4)), pieces) {
		wg.Go(func() {
			buf := make([]byte, chunk)
			for !failed.Load() {
				c := next.Add(1) - 1
				if c >= pieces {
					return
				}
				if err := ctx.Err(); err != nil {
					fail(err)
					return
				}
				p := buf[:min(chunk, n-c*chunk)]
				if _, err := r.ReadAt(p, off+c*chunk); err != nil {
					if errors.Is(err, io.EOF) {
						err = io.ErrUnexpectedEOF
					}
					fail(err)
					return
				}
				each(c, p)
			}
		})
	}
	wg.Wait()
	return ferr
}

// crcChunk is the piece of a file fileCRC checksums at a time.
const crcChunk = 1 << 20

// fileCRC returns the CRC-32C of the n bytes of r, checksummed in pieces by
// several goroutines at once (readInPieces) and joined in order.
func fileCRC(ctx context.Context, r io.ReaderAt, n int64) (uint32, error) {
	crcs := make([]uint32, (n+crcChunk-1)/crcChunk)
	err := readInPieces(ctx, r, 0, n, crcChunk, func(c int64, p []byte) {
		crcs[c] = crc32.Checksum(p, backupCRC)
	})
	if err != nil {
		return 0, err
	}
	var sum uint32
	if len(crcs) == 0 {
		return sum, nil
	}
	whole := newCRCJoin(crcChunk)
	for _, c := range crcs[:len(crcs)-1] {
		sum = whole.join(sum, c)
	}
	return newCRCJoin(int(n-int64(len(crcs)-1)*crcChunk)).join(sum, crcs[len(crcs)-1]), nil
}

// close reports a copy that did not end on a page.
func (s *pageStream) close() error {
	if s.n != 0 {
		return fmt.Errorf("the copy ends %d bytes into a page", s.n)
	}
	return nil
}

// crcJoin gives the CRC-32C of two pieces of bytes one after the other from
// the CRC-32C of each, the second of a fixed length: the first's is carried
// over that many zero bytes and the second's added. The CRC is linear over
// GF(2), so carrying is a 32×32 matrix, kept as what each value of each of
// the four bytes of the first's becomes.
type crcJoin [4][256]uint32

// gf2 is a 32×32 matrix over GF(2): column i is what bit i of a CRC-32C
// register becomes.
type gf2 [32]uint32

// times is m applied to v.
func (m *gf2) times(v uint32) uint32 {
	var r uint32
	for i := 0; v != 0; i++ {
		if v&1 != 0 {
			r ^= m[i]
		}
		v >>= 1
	}
	return r
}

// then is m followed by n.
func (m *gf2) then(n *gf2) gf2 {
	var r gf2
	for i := range r {
		r[i] = n.times(m[i])
	}
	return r
}

// newCRCJoin makes the join of pieces of n bytes. The register carried over
// n zero bytes is the carry over one zero byte raised to the n-th power, by
// squaring: some twenty products of matrices for a piece of a megabyte, not
// a CRC of 32 megabytes of zeros.
func newCRCJoin(n int) *crcJoin {
	var step, carry gf2
	for i := range step {
		// crc32.Update conditions the register (complemented in and out):
		// undone on both sides, it is the bare register's run over a zero.
		step[i] = ^crc32.Update(^(uint32(1) << i), backupCRC, []byte{0})
		carry[i] = uint32(1) << i
	}
	for ; n > 0; n >>= 1 {
		if n&1 != 0 {
			carry = carry.then(&step)
		}
		step = step.then(&step)
	}
	var j crcJoin
	for k := range j {
		for v := 1; v < 256; v++ {
			// v's lowest bit added to v without it (linear).
			j[k][v] = j[k][v&(v-1)] ^ carry[8*k+bits.TrailingZeros8(uint8(v))]
		}
	}
	return &j
}

// join returns the CRC-32C of a followed by b, given a's and b's.
func (j *crcJoin) join(a, b uint32) uint32 {
	return j[0][a&0xff] ^ j[1][a>>8&0xff] ^ j[2][a>>16&0xff] ^ j[3][a>>24] ^ b
}
