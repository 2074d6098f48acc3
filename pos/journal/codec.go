package journal

import (
	"bytes"
	"compress/flate"
	"fmt"
	"io"
	"sync"
)

// codec compresses the bodies of records of format 2 with DEFLATE and the preset
// dictionary eventDict, and inflates them. A compressor costs hundreds of
// kilobytes to make, so both kinds are kept for reuse. The zero value is ready
// to use; it is safe for concurrent use.
type codec struct {
	w sync.Pool // *flate.Writer with eventDict
	r sync.Pool // io.ReadCloser (a flate.Resetter) with eventDict
}

// deflate returns src compressed.
func (c *codec) deflate(src []byte) []byte {
	var buf bytes.Buffer
	w, _ := c.w.Get().(*flate.Writer)
	if w == nil {
		// NewWriterDict fails only for a level out of range.
		w, _ = flate.NewWriterDict(&buf, flate.DefaultCompression, []byte(eventDict))
	} else {
		w.Reset(&buf) // keeps the level and the dictionary
	}
	// Writes to a bytes.Buffer do not fail.
	_, _ = w.Write(src)
	_ = w.Close()
	c.w.Put(w)
	return buf.Bytes()
}

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
