package journal

import (
	"bytes"
	"errors"
	"math/rand/v2"
	"runtime"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// readChunks hands write every byte of r in order, in pieces of its size,
// whatever r's length against the pieces' (read ahead on a goroutine of its
// own).
func TestReadChunksInOrder(t *testing.T) {
	const size = 1 << 10
	for _, n := range []int{0, 1, size - 1, size, size + 1, 3*size + 5, 64 * size} {
		data := make([]byte, n)
		for i := range data {
			data[i] = byte(rand.IntN(256))
		}
		var got bytes.Buffer
		pieces := 0
		total, err := readChunksOf(bytes.NewReader(data), size, func(p []byte) (int, error) {
			require.LessOrEqual(t, len(p), size)
			pieces++
			return got.Write(p)
		})
		require.NoError(t, err, "length %d", n)
		assert.Equal(t, int64(n), total, "length %d", n)
		assert.True(t, bytes.Equal(data, got.Bytes()), "length %d: the bytes as read, in order", n)
		assert.Equal(t, (n+size-1)/size, pieces, "length %d", n)
	}
}

// countingReader counts its reads and fails the one after fail.
type countingReader struct {
	reads atomic.Int32
	fail  int32
}

func (r *countingReader) Read(p []byte) (int, error) {
	if r.reads.Add(1) > r.fail {
		return 0, errors.New("the disk refused the read")
	}
	return len(p), nil
}

// A write that fails stops the reads, and readChunks returns its error only
// once the reading goroutine is done: r is not read after it returns. A read
// that fails is returned after the pieces before it were written.
func TestReadChunksStops(t *testing.T) {
	r := &countingReader{fail: 1 << 30}
	written := 0
	errWrite := errors.New("the backup's disk is full")
	_, err := readChunksOf(r, 16, func(p []byte) (int, error) {
		if written++; written == 3 {
			return 0, errWrite
		}
		return len(p), nil
	})
	require.ErrorIs(t, err, errWrite)
	after := r.reads.Load()
	assert.LessOrEqual(t, after, int32(5), "at most two pieces read ahead of the failed write")
	for range 1000 {
		runtime.Gosched() // a reader left running would read on
	}
	assert.Equal(t, after, r.reads.Load(), "no read after readChunks returned")

	r = &countingReader{fail: 4}
	var pieces int
	total, err := readChunksOf(r, 16, func(p []byte) (int, error) { pieces++; return len(p), nil })
	require.ErrorContains(t, err, "the disk refused the read")
	assert.Equal(t, 4, pieces)
	assert.Equal(t, int64(64), total)
}
