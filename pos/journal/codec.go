package journal

import (
	"bytes"
	"compress/flate"
	"encoding/binary"
	"fmt"
	"io"
	"sync"

	kflate "github.com/klauspost/compress/flate"

	"galla/pos"
)

// codec compresses the bodies of records of format 2 with DEFLATE and the preset
// dictionary eventDict, and inflates them. The zero value is ready to use; it is
// safe for concurrent use.
//
// A body of up to lzMaxBody bytes (every event but a large catalog or Z report)
// is compressed by our own encoder (lz.go), which keeps the dictionary's index
// for the life of the process instead of putting the dictionary into a
// compressor's window again for each body; a longer one by klauspost/compress's
// DEFLATE at its fastest level, one writer kept for the life of the codec
// (Append runs one at a time, inside bbolt's write lock). Both write the same
// format: any DEFLATE reader given eventDict inflates it (the standard
// library's does, in inflate), so records written before and after read alike.
// Measured in docs/benchmarks.md ("What was tried", "A DEFLATE encoder for the
// bodies").
type codec struct {
	mu    sync.Mutex     // guards w, buf, lz and lzBuf
	w     *kflate.Writer // bodies longer than lzMaxBody
	buf   bytes.Buffer   // w's output
	lz    *lzEncoder     // every other body
	lzBuf []byte         // lz's output

	r sync.Pool // io.ReadCloser (a flate.Resetter) with eventDict

	jmu  sync.Mutex // guards jbuf, held by the caller of marshalEvent
	jbuf []byte     // the JSON of the body marshalEvent wrote last
}

// marshalEvent returns the JSON of ev as json.Marshal gives it
// (appendEventJSON), in c's buffer: valid until the next call. The caller
// holds c.jmu.
func (c *codec) marshalEvent(ev *pos.Event) ([]byte, error) {
	b, err := appendEventJSON(c.jbuf[:0], ev)
	if err != nil {
		return nil, err
	}
	c.jbuf = b
	return b, nil
}

// deflateLevel is the compressor's level: the fastest, whose bodies average 13
// bytes more than the standard library's default level (96 against 83 for a
// card sale's events) at half its CPU.
const deflateLevel = kflate.BestSpeed

// deflateBody appends to dst the length of src compressed (uvarint) and src
// compressed, and returns the result and the compressed bytes within it.
func (c *codec) deflateBody(dst, src []byte) (out, packed []byte) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if len(src) <= lzMaxBody {
		if c.lz == nil {
			c.lz = &lzEncoder{x: eventDictIndex()}
		}
		// The length goes before the body: encoded into a buffer of the
		// codec's, then copied after it.
		c.lzBuf = c.lz.encode(c.lzBuf[:0], src)
		dst = binary.AppendUvarint(dst, uint64(len(c.lzBuf)))
		at := len(dst)
		dst = append(dst, c.lzBuf...)
		return dst, dst[at:]
	}
	c.buf.Reset()
	if c.w == nil {
		// NewWriterDict fails only for a level out of range.
		c.w, _ = kflate.NewWriterDict(&c.buf, deflateLevel, []byte(eventDict))
	} else {
		c.w.Reset(&c.buf) // keeps the level and the dictionary
	}
	// Writes to a bytes.Buffer do not fail.
	_, _ = c.w.Write(src)
	_ = c.w.Close()
	dst = binary.AppendUvarint(dst, uint64(c.buf.Len()))
	at := len(dst)
	dst = append(dst, c.buf.Bytes()...)
	return dst, dst[at:]
}

// eventDictIndex is the index of eventDict's strings, built once.
var eventDictIndex = sync.OnceValue(func() *lzIndex { return newLZIndex([]byte(eventDict)) })

// inflate returns src inflated, refusing more than limit bytes of output.
func (c *codec) inflate(src []byte, limit int) ([]byte, error) {
	r, _ := c.r.Get().(io.ReadCloser)
	if r == nil {
		r = flate.NewReaderDict(bytes.NewReader(src), []byte(eventDict))
	} else if err := r.(flate.Resetter).Reset(bytes.NewReader(src), []byte(eventDict)); err != nil {
		return nil, err
	}
	defer c.r.Put(r)
	out, err := io.ReadAll(io.LimitReader(r, int64(limit)+1))
	switch {
	case err != nil:
		return nil, fmt.Errorf("the body does not inflate: %w", err)
	case len(out) > limit:
		return nil, fmt.Errorf("the body inflates to more than %d bytes", limit)
	}
	return out, nil
}
