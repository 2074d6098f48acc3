package receipts

import (
	"fmt"
	"image"
	"image/color"
	"io"

	"galla/assets"

	"github.com/skip2/go-qrcode"
	"golang.org/x/image/font"
	"golang.org/x/image/font/opentype"
	"golang.org/x/image/math/fixed"
)

// The PNG is drawn like a thermal printer at 203 dpi draws: cells of 12×24 dots
// (double size 24×48) on 80 mm paper (576 dots) or 58 mm (384). One column is left
// blank at each edge, so text does not touch the border of the picture: 46 columns
// on 80 mm and 30 on 58 mm.
const (
	cellW     = 12
	cellH     = 24
	fontPx    = 20 // DejaVu Sans Mono advances 0.602 em: 12 px at 20 px
	pngMargin = cellH
)

// atlasRunes are drawn once by NewRenderer; any other rune is drawn as it comes.
const atlasRunes = "₹•—–×·‘’“”✓"

// pngPalette has the four grey levels the PNG is drawn with: white, light, dark and
// black.
func pngPalette() color.Palette {
	return color.Palette{color.Gray{0xff}, color.Gray{0xaa}, color.Gray{0x55}, color.Gray{0x00}}
}

// glyph is a rune's coverage, quantised to palette indices, relative to the pen
// position on the baseline.
type glyph struct {
	rect image.Rectangle
	pix  []uint8 // palette index per pixel of rect, row by row
}

// glyphSet is one face (regular or bold, normal or double size) drawn in advance.
type glyphSet struct {
	glyphs   map[rune]glyph
	baseline int // from the top of a cell
	opts     opentype.FaceOptions
	font     *opentype.Font
}

// Renderer draws receipts as PNG and PDF with the embedded DejaVu Sans Mono. Build
// it once with NewRenderer: it parses the fonts and draws every glyph of printable
// ASCII and ₹ in advance; after that it is never modified, so one Renderer serves
// any number of goroutines. (Runes outside that set are drawn with a face made for
// the one call that needs it.)
type Renderer struct {
	regular, bold []byte         // TrueType bytes, for the PDF
	sets          [2][2]glyphSet // [bold][big]
}

// NewRenderer parses the embedded fonts and prepares the glyphs.
func NewRenderer() (*Renderer, error) {
	rd := &Renderer{regular: assets.MonoRegular(), bold: assets.MonoBold()}
	for bi, data := range [][]byte{rd.regular, rd.bold} {
		f, err := opentype.Parse(data)
		if err != nil {
			return nil, fmt.Errorf("receipts: parse font: %w", err)
		}
		for big := range 2 {
			set, err := newGlyphSet(f, fontPx*(big+1), cellH*(big+1))
			if err != nil {
				return nil, err
			}
			rd.sets[bi][big] = set
		}
	}
	return rd, nil
}

func newGlyphSet(f *opentype.Font, px, cellHeight int) (glyphSet, error) {
	set := glyphSet{
		glyphs: make(map[rune]glyph, 128),
		opts:   opentype.FaceOptions{Size: float64(px), DPI: 72, Hinting: font.HintingFull},
		font:   f,
	}
	face, err := opentype.NewFace(f, &set.opts)
	if err != nil {
		return glyphSet{}, fmt.Errorf("receipts: font face: %w", err)
	}
	defer face.Close()
	m := face.Metrics()
	asc, desc := m.Ascent.Ceil(), m.Descent.Ceil()
	set.baseline = (cellHeight-(asc+desc))/2 + asc
	for r := rune(0x21); r < 0x7f; r++ {
		set.glyphs[r] = drawGlyph(face, r)
	}
	for _, r := range atlasRunes {
		set.glyphs[r] = drawGlyph(face, r)
	}
	return set, nil
}

// drawGlyph rasterises r and quantises its coverage to the palette.
func drawGlyph(face font.Face, r rune) glyph {
	dr, mask, mp, _, ok := face.Glyph(fixed.P(0, 0), r)
	if !ok || dr.Empty() {
		return glyph{}
	}
	g := glyph{rect: dr, pix: make([]uint8, dr.Dx()*dr.Dy())}
	i := 0
	for y := range dr.Dy() {
		for x := range dr.Dx() {
			_, _, _, a := mask.At(mp.X+x, mp.Y+y).RGBA()
			g.pix[i] = quantise(a >> 8)
			i++
		}
	}
	return g
}

// quantise maps coverage 0..255 to a palette index 0 (white) .. 3 (black).
func quantise(a uint32) uint8 {
	switch {
	case a < 48:
		return 0
	case a < 128:
		return 1
	case a < 208:
		return 2
	}
	return 3
}

// PaperWidth returns the printable width in dots at 203 dpi of paper mm wide (58 or
// 80) and the columns of text the PNG puts on it (one cell of margin a side).
func PaperWidth(mm int) (dots, cols int, err error) {
	switch mm {
	case 58:
		return 384, 384/cellW - 2, nil
	case 80:
		return 576, 576/cellW - 2, nil
	}
	return 0, 0, fmt.Errorf("receipts: paper of %d mm: want 58 or 80", mm)
}

// Image draws r as a receipt printer at 203 dpi would print it on paper mm wide
// (58: 384 dots, 80: 576 dots), with ₹ and the QR code.
func (rd *Renderer) Image(r Receipt, mm int) (*image.Paletted, error) {
	dots, cols, err := PaperWidth(mm)
	if err != nil {
		return nil, err
	}
	rows := layout(r, cols, "₹")
	var bitmap [][]bool
	height := 2 * pngMargin
	for _, rw := range rows {
		switch {
		case rw.kind == rowQR:
			q, err := qrcode.New(r.QR, qrcode.Medium)
			if err != nil {
				return nil, fmt.Errorf("receipts: png: qr: %w", err)
			}
			bitmap = q.Bitmap()
			height += len(bitmap) * qrModule
		case rw.big:
			height += 2 * cellH
		default:
			height += cellH
		}
	}
	img := image.NewPaletted(image.Rect(0, 0, dots, height), pngPalette())
	y := pngMargin
	fb := &fallback{}
	defer fb.close()
	for _, rw := range rows {
		switch rw.kind {
		case rowQR:
			drawQR(img, bitmap, (dots-len(bitmap)*qrModule)/2, y)
			y += len(bitmap) * qrModule
			continue
		case rowRule:
			if rw.ruleChar == '-' || rw.ruleChar == '=' {
				drawRule(img, y, rw.ruleChar == '=')
				y += cellH
				continue
			}
		}
		big := 0
		if rw.big {
			big = 1
		}
		set := &rd.sets[boolInt(rw.bold)][big]
		width := cols / (big + 1)
		x := cellW // the left margin
		for _, c := range rw.compose(width) {
			if c != ' ' {
				g, ok := set.glyphs[c]
				if !ok {
					g = fb.glyph(set, c)
				}
				drawGlyphAt(img, g, x, y+set.baseline)
			}
			x += cellW * (big + 1)
		}
		y += cellH * (big + 1)
	}
	return img, nil
}

// PNG writes r as a PNG image of a receipt on paper mm wide (58 or 80); see Image.
func (rd *Renderer) PNG(w io.Writer, r Receipt, mm int) error {
	img, err := rd.Image(r, mm)
	if err != nil {
		return err
	}
	if err := encodePNG2(w, img); err != nil {
		return fmt.Errorf("receipts: png: %w", err)
	}
	return nil
}

func boolInt(v bool) int {
	if v {
		return 1
	}
	return 0
}

// fallback draws runes the atlas lacks, with faces made for this one call.
type fallback struct {
	faces map[*glyphSet]font.Face
}

func (fb *fallback) glyph(set *glyphSet, r rune) glyph {
	if fb.faces == nil {
		fb.faces = make(map[*glyphSet]font.Face)
	}
	face, ok := fb.faces[set]
	if !ok {
		f, err := opentype.NewFace(set.font, &set.opts)
		if err != nil {
			return glyph{}
		}
		fb.faces[set], face = f, f
	}
	return drawGlyph(face, r)
}

func (fb *fallback) close() {
	for _, f := range fb.faces {
		f.Close()
	}
}

func drawGlyphAt(img *image.Paletted, g glyph, x, baseline int) {
	b := img.Bounds()
	i := 0
	for gy := g.rect.Min.Y; gy < g.rect.Max.Y; gy++ {
		py := baseline + gy
		for gx := g.rect.Min.X; gx < g.rect.Max.X; gx++ {
			px := x + gx
			v := g.pix[i]
			i++
			if v == 0 || px < b.Min.X || px >= b.Max.X || py < b.Min.Y || py >= b.Max.Y {
				continue
			}
			o := img.PixOffset(px, py)
			if v > img.Pix[o] {
				img.Pix[o] = v
			}
		}
	}
}

func drawRule(img *image.Paletted, top int, double bool) {
	mid := top + cellH/2
	lines := []int{mid - 1}
	if double {
		lines = []int{mid - 3, mid + 1}
	}
	for _, y := range lines {
		for dy := range 2 {
			o := img.PixOffset(cellW, y+dy)
			row := img.Pix[o : o+img.Bounds().Dx()-2*cellW]
			for i := range row {
				row[i] = 3
			}
		}
	}
}

func drawQR(img *image.Paletted, bm [][]bool, left, top int) {
	for my, mods := range bm {
		for mx, dark := range mods {
			if !dark {
				continue
			}
			for dy := range qrModule {
				o := img.PixOffset(left+mx*qrModule, top+my*qrModule+dy)
				for dx := range qrModule {
					img.Pix[o+dx] = 3
				}
			}
		}
	}
}
