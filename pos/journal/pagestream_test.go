package journal

import (
	"bytes"
	"context"
	"errors"
	"hash/crc32"
	"io"
	"math/rand/v2"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// copyAsWriteTo hands data to s as bbolt's Tx.WriteTo does: the two meta
// pages written, then the rest through io.CopyN from a section of the file.
func copyAsWriteTo(s *pageStream, file io.ReaderAt, size, ps int) error {
	meta := make([]byte, 2*ps)
	if _, err := file.ReadAt(meta, 0); err != nil {
		return err
	}
	if _, err := s.Write(meta[:ps]); err != nil {
		return err
	}
	if _, err := s.Write(meta[ps:]); err != nil {
		return err
	}
	n := int64(size - 2*ps)
	_, err := io.CopyN(s, io.NewSectionReader(file, int64(2*ps), n), n)
	return err
}

// countingReaderAt counts the reads of a file and the bytes they read.
type countingReaderAt struct {
	r     io.ReaderAt
	reads atomic.Int64
	bytes atomic.Int64
}

func (c *countingReaderAt) ReadAt(p []byte, off int64) (int, error) {
	c.reads.Add(1)
	n, err := c.r.ReadAt(p, off)
	c.bytes.Add(int64(n))
	return n, err
}

// TestPageStreamDigestsTheFileInPieces: the data pages Tx.WriteTo hands over
// as a section of the file are read in pieces of digestChunk, not through
// the stream's Write, and the stream gives what it gives reading them in
// order: the pages wanted, in order and with their bytes, every page's
// digest, the copy's CRC-32C and length.
func TestPageStreamDigestsTheFileInPieces(t *testing.T) {
	const ps = 4096
	pages := 2 + 3*digestChunk/ps + 7 // the last piece a part of one
	data := make([]byte, pages*ps)
	rng := rand.New(rand.NewPCG(1, 2))
	for i := range data {
		data[i] = byte(rng.Uint32())
	}
	var mu sync.Mutex
	asked := map[uint64]bool{}
	want := func(id, d uint64) bool {
		mu.Lock()
		asked[id] = true
		mu.Unlock()
		return id%5 == 3 || id == uint64(pages-1)
	}
	var ids []uint64
	var got [][]byte
	s := newPageStream(ps, want, func(id uint64, p []byte) error {
		ids = append(ids, id)
		got = append(got, bytes.Clone(p))
		return nil
	})
	s.keep = true
	file := &countingReaderAt{r: bytes.NewReader(data)}
	require.NoError(t, copyAsWriteTo(s, file, len(data), ps))
	require.NoError(t, s.close())

	var wantIDs []uint64
	var wantPages [][]byte
	var digests []uint64
	for id := range uint64(pages) {
		p := data[id*ps : (id+1)*ps]
		digests = append(digests, pageDigest(p))
		if id%5 == 3 || id == uint64(pages-1) {
			wantIDs = append(wantIDs, id)
			wantPages = append(wantPages, p)
		}
	}
	assert.Equal(t, wantIDs, ids)
	assert.Equal(t, wantPages, got)
	assert.Equal(t, digests, s.digests)
	assert.Len(t, asked, pages, "want is asked of every page")
	assert.Equal(t, crc32.Checksum(data, backupCRC), s.crc)
	assert.Equal(t, int64(len(data)), s.written)
	// The meta pages, 4 pieces of the data pages, and each page wanted read
	// again alone.
	assert.Equal(t, int64(1+4+len(wantIDs)), file.reads.Load())
	assert.Equal(t, int64(len(data)+len(wantIDs)*ps), file.bytes.Load())
}

// changingReader is a file one of whose pages a commit rewrites after it was
// first read: a page free in the journal, outside the read transaction.
type changingReader struct {
	data   []byte
	page   int64
	ps     int64
	reads  atomic.Int64
	update []byte
}

func (c *changingReader) ReadAt(p []byte, off int64) (int, error) {
	if off <= c.page*c.ps && c.page*c.ps < off+int64(len(p)) && c.reads.Add(1) == 2 {
		copy(c.data[c.page*c.ps:], c.update)
	}
	return bytes.NewReader(c.data).ReadAt(p, off)
}

// TestPageStreamTakesAPageAsReadAgain: a page rewritten between its digest
// and its second read is handed on as read the second time, and the copy's
// CRC-32C and the digest kept are of those bytes, so that the increment or
// the base made of them is the copy its CRC stands for.
func TestPageStreamTakesAPageAsReadAgain(t *testing.T) {
	const ps = 4096
	pages := 2 + digestChunk/ps + 3
	data := bytes.Repeat([]byte{7}, pages*ps)
	const changed = 5
	file := &changingReader{data: data, page: changed, ps: ps, update: bytes.Repeat([]byte{9}, ps)}
	var handed []byte
	s := newPageStream(ps, func(id, _ uint64) bool { return id == changed }, func(_ uint64, p []byte) error {
		handed = bytes.Clone(p)
		return nil
	})
	s.keep = true
	require.NoError(t, copyAsWriteTo(s, file, len(data), ps))
	assert.Equal(t, file.update, handed)
	assert.Equal(t, crc32.Checksum(data, backupCRC), s.crc, "the copy as handed on, page 5 as read again")
	assert.Equal(t, pageDigest(file.update), s.digests[changed])
}

// failingReader fails its reads from a given offset on.
type failingReader struct {
	r    io.ReaderAt
	from int64
}

var errDisk = errors.New("input/output error")

func (f failingReader) ReadAt(p []byte, off int64) (int, error) {
	if off+int64(len(p)) > f.from {
		return 0, errDisk
	}
	return f.r.ReadAt(p, off)
}

// TestPageStreamReadFailure: a read of the file that fails fails the copy
// with the disk's error, and no page past it is handed on.
func TestPageStreamReadFailure(t *testing.T) {
	const ps = 4096
	pages := 2 + 4*digestChunk/ps
	data := make([]byte, pages*ps)
	handed := 0
	s := newPageStream(ps, func(uint64, uint64) bool { return true }, func(uint64, []byte) error {
		handed++
		return nil
	})
	err := copyAsWriteTo(s, failingReader{r: bytes.NewReader(data), from: int64(len(data) - ps)}, len(data), ps)
	require.ErrorIs(t, err, errDisk)
	assert.Equal(t, 2, handed, "only the meta pages, written before the section")
}

// TestCRCJoin: the CRC-32C of two pieces joined from theirs is the CRC-32C
// of the two together, for pieces of any length, the empty first included.
func TestCRCJoin(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for _, n := range []int{1, 3, 64, 4096, 65536} {
		j := newCRCJoin(n)
		for _, m := range []int{0, 1, 17, 4096} {
			a := make([]byte, m)
			b := make([]byte, n)
			for i := range a {
				a[i] = byte(rng.Uint32())
			}
			for i := range b {
				b[i] = byte(rng.Uint32())
			}
			joined := j.join(crc32.Checksum(a, backupCRC), crc32.Checksum(b, backupCRC))
			assert.Equal(t, crc32.Checksum(append(a, b...), backupCRC), joined, "a of %d bytes, b of %d", m, n)
		}
	}
}

// TestFileCRC: the CRC-32C read in pieces by several goroutines is the
// file's, at every length about a piece's; a cancelled read says so.
func TestFileCRC(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	data := make([]byte, 3*crcChunk+5)
	for i := range data {
		data[i] = byte(rng.Uint32())
	}
	for _, n := range []int{0, 1, crcChunk - 1, crcChunk, crcChunk + 1, 2 * crcChunk, len(data)} {
		got, err := fileCRC(context.Background(), bytes.NewReader(data[:n]), int64(n))
		require.NoError(t, err)
		assert.Equal(t, crc32.Checksum(data[:n], backupCRC), got, "%d bytes", n)
	}
	_, err := fileCRC(context.Background(), failingReader{r: bytes.NewReader(data), from: 2 * crcChunk}, int64(len(data)))
	require.ErrorIs(t, err, errDisk)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err = fileCRC(ctx, bytes.NewReader(data), int64(len(data)))
	require.ErrorIs(t, err, context.Canceled)
}
