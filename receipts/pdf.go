package receipts

import (
	"fmt"
	"image"
	"image/draw"
	"io"
	"strings"

	"github.com/signintech/gopdf"
	"github.com/skip2/go-qrcode"
)

// The PDF of a sale is the A4 tax invoice (a4.go), that of a credit note its A4
// page (a4credit.go); that of a refund receipt or a report is
// an A4 page with the receipt as a column of 48 monospaced characters in its
// middle, the same rows as the printed receipt.
const (
	pdfCols     = 48
	pdfFontSize = 10.0 // points
	pdfLineH    = 13.0
	pdfQRSize   = 120.0
	pdfTop      = 40.0
	pdfBottom   = 40.0
)

// pdfCanvas is what the PDF renderer draws on: gopdf in use, a recorder in tests
// (PDF bytes carry compressed streams and subset fonts, so tests compare what was
// drawn rather than bytes).
type pdfCanvas interface {
	addPage()
	text(x, baseline float64, s string, bold bool, size float64) error
	line(x1, y1, x2, y2 float64)
	qr(x, y, size float64, text string) error
}

// PDF writes r as an A4 PDF (more pages if it is long) with the embedded DejaVu
// Sans Mono, ₹ and the QR code, for A4 printers and e-mail: a sale as the A4 tax
// invoice with its tables, a credit note as its A4 page, anything else as the
// receipt's column. The document's
// creation date is the receipt's time, so the same receipt gives the same file.
func (rd *Renderer) PDF(w io.Writer, r Receipt) error {
	pdf := &gopdf.GoPdf{}
	pdf.Start(gopdf.Config{PageSize: *gopdf.PageSizeA4, Unit: gopdf.UnitPT})
	pdf.SetInfo(gopdf.PdfInfo{Title: pdfTitle(r), Creator: "Galla", Producer: "Galla", CreationDate: r.Time})
	if err := pdf.AddTTFFontData("mono", rd.regular); err != nil {
		return fmt.Errorf("receipts: pdf: font: %w", err)
	}
	if err := pdf.AddTTFFontData("mono-bold", rd.bold); err != nil {
		return fmt.Errorf("receipts: pdf: font: %w", err)
	}
	if err := drawPDF(&gopdfCanvas{pdf: pdf}, r); err != nil {
		return err
	}
	if _, err := pdf.WriteTo(w); err != nil {
		return fmt.Errorf("receipts: pdf: %w", err)
	}
	return nil
}

func pdfTitle(r Receipt) string {
	switch r.Kind {
	case KindRefund:
		return "Refund " + r.Number
	case KindCreditNote:
		return "Credit note " + r.Number
	case KindXReport:
		return "X report " + r.Number
	case KindZReport:
		return "Z report " + r.Number
	case KindTestPage:
		return "Printer test"
	}
	title := r.Title
	if title == "" {
		title = "Tax invoice"
	}
	return strings.ToUpper(title[:1]) + strings.ToLower(title[1:]) + " " + r.Number
}

// pdfGrid is the grid of monospaced cells a PDF is laid out on.
type pdfGrid struct {
	cols        int
	size, lineH float64 // points
}

// drawPDF lays r out on A4 pages of c (pdfRows).
func drawPDF(c pdfCanvas, r Receipt) error {
	rows, g := pdfRows(r)
	return drawGrid(c, r, rows, g)
}

// pdfRows is what r's PDF draws and on what grid: a sale as the A4 invoice, a
// credit note as its A4 page, anything else as the receipt's column.
func pdfRows(r Receipt) ([]row, pdfGrid) {
	a4 := pdfGrid{cols: a4Cols, size: a4FontSize, lineH: a4LineH}
	switch r.Kind {
	case KindSale, "":
		return a4Layout(r), a4
	case KindCreditNote:
		return a4CreditLayout(r), a4
	}
	return layout(r, pdfCols, "₹"), pdfGrid{cols: pdfCols, size: pdfFontSize, lineH: pdfLineH}
}

// PageText is the text r's PDF prints, a line per row (the QR code and rules as
// they are in Text), for reading what an A4 document says without a PDF reader.
func PageText(r Receipt) string {
	rows, g := pdfRows(r)
	var b strings.Builder
	for _, rw := range rows {
		b.WriteString(strings.TrimRight(rw.compose(g.cols), " "))
		b.WriteByte('\n')
	}
	return b.String()
}

// drawGrid draws rows on A4 pages of c, centred, on grid g.
func drawGrid(c pdfCanvas, r Receipt, rows []row, g pdfGrid) error {
	pageW, pageH := gopdf.PageSizeA4.W, gopdf.PageSizeA4.H
	cellW := g.size * 0.602 // DejaVu Sans Mono's advance
	left := (pageW - float64(g.cols)*cellW) / 2
	right := left + float64(g.cols)*cellW
	c.addPage()
	y := pdfTop
	for _, rw := range rows {
		h := g.lineH
		switch {
		case rw.kind == rowQR:
			h = pdfQRSize
		case rw.big:
			h = 2 * g.lineH
		}
		if y+h > pageH-pdfBottom {
			c.addPage()
			y = pdfTop
		}
		switch {
		case rw.kind == rowQR:
			if err := c.qr((pageW-pdfQRSize)/2, y, pdfQRSize, r.QR); err != nil {
				return err
			}
		case rw.kind == rowRule && rw.ruleChar != '*':
			c.line(left, y+h/2, right, y+h/2)
			if rw.ruleChar == '=' {
				c.line(left, y+h/2+2, right, y+h/2+2)
			}
		default:
			width, cw, size := g.cols, cellW, g.size
			if rw.big {
				width, cw, size = g.cols/2, 2*cellW, 2*g.size
			}
			baseline := y + (h+0.7*size)/2
			// Each run of text is placed at its column, so alignment is exact even
			// where a glyph's advance differs from the grid.
			col := 0
			for _, run := range runs(rw.compose(width)) {
				col += run.skip
				if err := c.text(left+float64(col)*cw, baseline, run.text, rw.bold, size); err != nil {
					return err
				}
				col += runeLen(run.text)
			}
		}
		y += h
	}
	return nil
}

type textRun struct {
	skip int // spaces before the run
	text string
}

// runs splits s at runs of two or more spaces: the pieces placed on the grid.
func runs(s string) []textRun {
	var out []textRun
	rs := []rune(s)
	i := 0
	for i < len(rs) {
		start := i
		for i < len(rs) && rs[i] == ' ' {
			i++
		}
		skip := i - start
		j := i
		for j < len(rs) && !(rs[j] == ' ' && (j+1 == len(rs) || rs[j+1] == ' ')) {
			j++
		}
		if j > i {
			out = append(out, textRun{skip: skip, text: string(rs[i:j])})
		}
		i = j
	}
	return out
}

// gopdfCanvas draws on a gopdf document.
type gopdfCanvas struct{ pdf *gopdf.GoPdf }

func (g *gopdfCanvas) addPage() { g.pdf.AddPage() }

func (g *gopdfCanvas) text(x, y float64, s string, bold bool, size float64) error {
	family := "mono"
	if bold {
		family = "mono-bold"
	}
	if err := g.pdf.SetFont(family, "", size); err != nil {
		return fmt.Errorf("receipts: pdf: %w", err)
	}
	g.pdf.SetXY(x, y)
	if err := g.pdf.Text(s); err != nil {
		return fmt.Errorf("receipts: pdf: %w", err)
	}
	return nil
}

func (g *gopdfCanvas) line(x1, y1, x2, y2 float64) {
	g.pdf.SetLineWidth(0.8)
	g.pdf.Line(x1, y1, x2, y2)
}

func (g *gopdfCanvas) qr(x, y, size float64, text string) error {
	q, err := qrcode.New(text, qrcode.Medium)
	if err != nil {
		return fmt.Errorf("receipts: pdf: qr: %w", err)
	}
	// gopdf embeds greyscale images faithfully; a paletted one comes out blank.
	src := q.Image(-qrModule)
	img := image.NewGray(src.Bounds())
	draw.Draw(img, img.Bounds(), src, src.Bounds().Min, draw.Src)
	if err := g.pdf.ImageFrom(img, x, y, &gopdf.Rect{W: size, H: size}); err != nil {
		return fmt.Errorf("receipts: pdf: qr: %w", err)
	}
	return nil
}
