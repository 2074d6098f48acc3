package receipts

import (
	"bytes"
	"flag"
	"fmt"
	"image"
	"image/png"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata/")

// golden compares got with testdata/name, or writes it there with -update.
func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		require.NoError(t, os.MkdirAll("testdata", 0o755))
		require.NoError(t, os.WriteFile(path, got, 0o644))
		return
	}
	want, err := os.ReadFile(path)
	require.NoError(t, err, "golden file missing; run go test ./receipts -update")
	assert.Equal(t, string(want), string(got), "%s differs from its golden file (go test ./receipts -update rewrites it)", path)
}

func TestTextGolden(t *testing.T) {
	for _, c := range goldenCases() {
		for _, cols := range []int{32, 42, 48} {
			t.Run(fmt.Sprintf("%s/%d", c.name, cols), func(t *testing.T) {
				var b bytes.Buffer
				require.NoError(t, Text(&b, c.r, cols))
				for i, line := range strings.Split(strings.TrimSuffix(b.String(), "\n"), "\n") {
					assert.LessOrEqual(t, runeLen(line), cols, "line %d %q is wider than %d columns", i+1, line, cols)
				}
				golden(t, fmt.Sprintf("%s.%d.txt", c.name, cols), b.Bytes())
			})
		}
	}
}

func TestTextRs(t *testing.T) {
	var b bytes.Buffer
	require.NoError(t, Text(&b, emiSale(), 32, WithRs()))
	assert.Contains(t, b.String(), "Rs.74,999.00")
	assert.NotContains(t, b.String(), "₹")
}

func TestESCPOSGolden(t *testing.T) {
	for _, c := range goldenCases() {
		for _, cols := range []int{32, 42, 48} {
			t.Run(fmt.Sprintf("%s/%d", c.name, cols), func(t *testing.T) {
				var b bytes.Buffer
				p := Profile{Width: cols, QRMode: QRNative, DrawerPulse: c.r.Kind == KindSale}
				require.NoError(t, ESCPOS(&b, c.r, p))
				out := b.String()
				assert.NotContains(t, out, "₹", "a printer without ₹ gets Rs.")
				assert.NotContains(t, out, "•", "bullets are transliterated")
				assert.NotContains(t, out, "—", "dashes are transliterated")
				assert.Contains(t, out, "Rs.")
				golden(t, fmt.Sprintf("%s.%d.escpos", c.name, cols), b.Bytes())
			})
		}
	}
	t.Run("card-sale/raster", func(t *testing.T) {
		var b bytes.Buffer
		require.NoError(t, ESCPOS(&b, cardSale(), Profile{Width: 58, QRMode: QRRaster}))
		golden(t, "card-sale.58.raster.escpos", b.Bytes())
	})
}

func TestPNGGolden(t *testing.T) {
	rd, err := NewRenderer()
	require.NoError(t, err)
	for _, c := range goldenCases() {
		for _, mm := range []int{58, 80} {
			t.Run(fmt.Sprintf("%s/%d", c.name, mm), func(t *testing.T) {
				var b bytes.Buffer
				require.NoError(t, rd.PNG(&b, c.r, mm))
				got, err := png.Decode(bytes.NewReader(b.Bytes()))
				require.NoError(t, err)
				dots, _, _ := PaperWidth(mm)
				assert.Equal(t, dots, got.Bounds().Dx())
				name := fmt.Sprintf("%s.%d.png", c.name, mm)
				if *update {
					golden(t, name, b.Bytes())
					return
				}
				// Pixels, not bytes: the encoder's output may change between Go
				// releases while the picture does not.
				f, err := os.Open(filepath.Join("testdata", name))
				require.NoError(t, err, "golden file missing; run go test ./receipts -update")
				defer f.Close()
				want, err := png.Decode(f)
				require.NoError(t, err)
				assert.True(t, samePixels(want, got), "%s: the picture differs from its golden file", name)
			})
		}
	}
}

func samePixels(a, b image.Image) bool {
	if a.Bounds() != b.Bounds() {
		return false
	}
	for y := a.Bounds().Min.Y; y < a.Bounds().Max.Y; y++ {
		for x := a.Bounds().Min.X; x < a.Bounds().Max.X; x++ {
			r1, g1, b1, a1 := a.At(x, y).RGBA()
			r2, g2, b2, a2 := b.At(x, y).RGBA()
			if r1 != r2 || g1 != g2 || b1 != b2 || a1 != a2 {
				return false
			}
		}
	}
	return true
}

// recorder is a pdfCanvas that writes down what is drawn.
type recorder struct{ b strings.Builder }

func (r *recorder) addPage() { r.b.WriteString("page\n") }

func (r *recorder) text(x, y float64, s string, bold bool, size float64) error {
	style := ""
	if bold {
		style += " bold"
	}
	switch size {
	case pdfFontSize:
	case 2 * pdfFontSize:
		style += " big"
	default:
		style += " size " + ff(size)
	}
	fmt.Fprintf(&r.b, "text %s %s%s %q\n", ff(x), ff(y), style, s)
	return nil
}

func (r *recorder) line(x1, y1, x2, y2 float64) {
	fmt.Fprintf(&r.b, "line %s %s %s %s\n", ff(x1), ff(y1), ff(x2), ff(y2))
}

func (r *recorder) qr(x, y, size float64, text string) error {
	fmt.Fprintf(&r.b, "qr %s %s %s %q\n", ff(x), ff(y), ff(size), text)
	return nil
}

func ff(v float64) string { return strconv.FormatFloat(v, 'f', 2, 64) }

func TestPDFGolden(t *testing.T) {
	rd, err := NewRenderer()
	require.NoError(t, err)
	for _, c := range goldenCases() {
		t.Run(c.name, func(t *testing.T) {
			var rec recorder
			require.NoError(t, drawPDF(&rec, c.r))
			golden(t, c.name+".pdf.txt", []byte(rec.b.String()))

			var b bytes.Buffer
			require.NoError(t, rd.PDF(&b, c.r))
			pdf := b.Bytes()
			assert.True(t, bytes.HasPrefix(pdf, []byte("%PDF-")), "starts with the PDF header")
			assert.True(t, bytes.Contains(pdf, []byte("%%EOF")), "ends with the PDF trailer")
			assert.True(t, bytes.Contains(pdf, []byte("/FontFile2")), "embeds the TrueType font")
			assert.Equal(t, strings.Count(rec.b.String(), "page\n"), bytes.Count(pdf, []byte("/Type /Page\n"))+bytes.Count(pdf, []byte("/Type /Page ")), "page count")
			var again bytes.Buffer
			require.NoError(t, rd.PDF(&again, c.r))
			assert.Equal(t, pdf, again.Bytes(), "the same receipt gives the same PDF")
		})
	}
}
