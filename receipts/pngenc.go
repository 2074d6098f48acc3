package receipts

import (
	"bufio"
	"compress/zlib"
	"encoding/binary"
	"errors"
	"hash/crc32"
	"image"
	"io"
)

// encodePNG2 writes a paletted image of at most four colours as a PNG of 2 bits a
// pixel. image/png writes such images pixel by pixel through ColorIndexAt, which
// takes longer than drawing the receipt; packing the rows here keeps the PNG within
// its budget (docs/benchmarks.md). The output is a plain PNG: colour type 3, no
// interlace, filter 0 on every row, zlib at its fastest level.
func encodePNG2(w io.Writer, img *image.Paletted) error {
	if len(img.Palette) > 4 {
		return errors.New("more than four colours")
	}
	b := img.Bounds()
	bw := bufio.NewWriterSize(w, 32<<10)
	bw.WriteString("\x89PNG\r\n\x1a\n")

	var ihdr [13]byte
	binary.BigEndian.PutUint32(ihdr[0:], uint32(b.Dx()))
	binary.BigEndian.PutUint32(ihdr[4:], uint32(b.Dy()))
	ihdr[8], ihdr[9] = 2, 3 // bit depth 2, colour type 3 (paletted)
	writeChunk(bw, "IHDR", ihdr[:])

	plte := make([]byte, 0, 3*len(img.Palette))
	for _, c := range img.Palette {
		r, g, bl, _ := c.RGBA()
		plte = append(plte, byte(r>>8), byte(g>>8), byte(bl>>8))
	}
	writeChunk(bw, "PLTE", plte)

	idat := &chunkWriter{w: bw, name: "IDAT"}
	zw, err := zlib.NewWriterLevel(idat, zlib.BestSpeed)
	if err != nil {
		return err
	}
	stride := (b.Dx()*2 + 7) / 8
	row := make([]byte, 1+stride) // filter type 0, then the packed pixels
	for y := b.Min.Y; y < b.Max.Y; y++ {
		clear(row)
		pix := img.Pix[img.PixOffset(b.Min.X, y):][:b.Dx()]
		x := 0
		for ; x+4 <= len(pix); x += 4 {
			p := pix[x : x+4 : x+4]
			row[1+x/4] = (p[0]&3)<<6 | (p[1]&3)<<4 | (p[2]&3)<<2 | p[3]&3
		}
		for ; x < len(pix); x++ {
			row[1+x/4] |= (pix[x] & 3) << (6 - 2*(x%4))
		}
		if _, err := zw.Write(row); err != nil {
			return err
		}
	}
	if err := zw.Close(); err != nil {
		return err
	}
	if err := idat.flush(); err != nil {
		return err
	}
	writeChunk(bw, "IEND", nil)
	return bw.Flush()
}

func writeChunk(w *bufio.Writer, name string, data []byte) {
	var head [8]byte
	binary.BigEndian.PutUint32(head[:4], uint32(len(data)))
	copy(head[4:], name)
	w.Write(head[:])
	w.Write(data)
	crc := crc32.NewIEEE()
	crc.Write(head[4:])
	crc.Write(data)
	var sum [4]byte
	binary.BigEndian.PutUint32(sum[:], crc.Sum32())
	w.Write(sum[:])
}

// chunkWriter gathers the compressed stream into one chunk written at flush.
type chunkWriter struct {
	w    *bufio.Writer
	name string
	buf  []byte
}

func (c *chunkWriter) Write(p []byte) (int, error) {
	c.buf = append(c.buf, p...)
	return len(p), nil
}

func (c *chunkWriter) flush() error {
	writeChunk(c.w, c.name, c.buf)
	return nil
}
