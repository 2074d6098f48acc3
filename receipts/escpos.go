package receipts

import (
	"fmt"
	"io"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/skip2/go-qrcode"
)

// Transport is how a printer is reached.
type Transport string

// The transports.
const (
	TransportTCP     Transport = "tcp"     // raw TCP, usually port 9100
	TransportSpooler Transport = "spooler" // the system's print spooler in raw mode
	TransportFile    Transport = "file"    // a file or a device node (/dev/usb/lp0)
)

// QRMode is how an ESC/POS printer draws the QR code.
type QRMode string

// The QR modes.
const (
	QRNative QRMode = "native" // the printer's own QR command (GS ( k)
	QRRaster QRMode = "raster" // a raster image (GS v 0) for printers without it
)

// Profile describes one receipt printer. Its JSON form is what the terminal's
// settings keep.
type Profile struct {
	Transport Transport `json:"transport"`
	// Address is host[:port] for TCP (port 9100 when left out), the queue name for
	// the spooler, or a path for a file.
	Address string `json:"address"`
	// Width is the paper in columns (32, 42, 48) or millimetres (58, 80).
	Width  int    `json:"width"`
	QRMode QRMode `json:"qr_mode,omitempty"` // empty: native
	// CodePage is the ESC t table the printer is switched to (0 is PC437).
	CodePage byte `json:"code_page,omitempty"`
	// HasRupee says the code page has ₹, at byte RupeeByte; without it, "Rs." is
	// printed.
	HasRupee  bool `json:"has_rupee,omitempty"`
	RupeeByte byte `json:"rupee_byte,omitempty"`
	// DrawerPulse opens the cash drawer after the receipt (ESC p).
	DrawerPulse bool `json:"drawer_pulse,omitempty"`
	// Timeout bounds one print job; zero means 5 seconds.
	Timeout time.Duration `json:"timeout,omitempty"`
}

// ESC/POS command bytes.
const (
	esc = 0x1b
	gs  = 0x1d
	lf  = 0x0a
)

// DrawerPulse is the ESC/POS job that opens the cash drawer wired to the receipt
// printer: ESC p on pin 2 (m 0), 50 ms on (t1 25 × 2 ms), 500 ms off (t2 250 × 2 ms).
// It prints nothing.
func DrawerPulse() []byte { return []byte{esc, 'p', 0, 25, 250} }

// QR code settings shared by the native command and the raster fallback.
const (
	qrModule   = 6  // dots per module
	qrECLevelM = 49 // GS ( k function 169: error correction level M
)

// ESCPOS writes r as ESC/POS bytes for the printer p: initialise (ESC @), the code
// page (ESC t), each line with its alignment (ESC a), emphasis (ESC E) and size
// (GS !), the QR code (GS ( k natively or a GS v 0 raster image by p.QRMode), a
// partial cut (GS V) and, if p.DrawerPulse, the cash-drawer pulse (ESC p). Text is
// reduced to printable ASCII: ₹ prints as p.RupeeByte when p.HasRupee and as "Rs."
// otherwise, accented letters lose their accents, dashes and bullets become "-" and
// "*", other characters "?", and control characters are dropped so that no text can
// smuggle a printer command in.
func ESCPOS(w io.Writer, r Receipt, p Profile) error {
	b, err := appendESCPOS(make([]byte, 0, 4096), r, p)
	if err != nil {
		return err
	}
	if _, err := w.Write(b); err != nil {
		return fmt.Errorf("receipts: escpos: %w", err)
	}
	return nil
}

func appendESCPOS(b []byte, r Receipt, p Profile) ([]byte, error) {
	cols, err := Columns(p.Width)
	if err != nil {
		return nil, err
	}
	sign := "Rs."
	if p.HasRupee && p.RupeeByte != 0 {
		sign = "₹"
	}
	b = append(b, esc, '@', esc, 't', p.CodePage)
	var cur struct {
		align     align
		bold, big bool
	}
	setAlign := func(a align) {
		if a != cur.align {
			b = append(b, esc, 'a', byte(a))
			cur.align = a
		}
	}
	setStyle := func(bold, big bool) {
		if bold != cur.bold {
			b = append(b, esc, 'E', boolByte(bold))
			cur.bold = bold
		}
		if big != cur.big {
			n := byte(0)
			if big {
				n = 0x11 // double width and double height
			}
			b = append(b, gs, '!', n)
			cur.big = big
		}
	}
	for _, rw := range layout(r, cols, sign) {
		switch rw.kind {
		case rowRule:
			setAlign(alignLeft)
			setStyle(false, false)
			b = append(b, rw.compose(cols)...)
		case rowQR:
			setAlign(alignCenter)
			setStyle(false, false)
			if b, err = appendQR(b, r.QR, p.QRMode); err != nil {
				return nil, err
			}
		default:
			setStyle(rw.bold, rw.big)
			width := cols
			if rw.big {
				width = cols / 2
			}
			if rw.right != "" || rw.align == alignLeft {
				setAlign(alignLeft)
				b = appendASCII(b, strings.TrimRight(rw.compose(width), " "), p)
			} else {
				setAlign(rw.align)
				b = appendASCII(b, rw.left, p)
			}
		}
		b = append(b, lf)
	}
	setAlign(alignLeft)
	setStyle(false, false)
	b = append(b, gs, 'V', 66, 0) // feed to the cutter and cut partially
	if p.DrawerPulse {
		b = append(b, DrawerPulse()...)
	}
	return b, nil
}

func boolByte(v bool) byte {
	if v {
		return 1
	}
	return 0
}

// appendQR appends the commands that print text as a QR code: natively with GS ( k
// (model 2, module size, error correction M, store, print) or as a raster image.
func appendQR(b []byte, text string, mode QRMode) ([]byte, error) {
	if mode == QRRaster {
		return appendQRRaster(b, text)
	}
	if len(text)+3 > 0xffff {
		return nil, fmt.Errorf("receipts: escpos: qr text of %d bytes is too long", len(text))
	}
	b = append(b,
		gs, '(', 'k', 4, 0, 49, 65, 50, 0, // function 165: model 2
		gs, '(', 'k', 3, 0, 49, 67, qrModule, // function 167: module size
		gs, '(', 'k', 3, 0, 49, 69, qrECLevelM, // function 169: error correction
	)
	n := len(text) + 3
	b = append(b, gs, '(', 'k', byte(n), byte(n>>8), 49, 80, 48) // function 180: store
	b = append(b, text...)
	b = append(b, gs, '(', 'k', 3, 0, 49, 81, 48) // function 181: print
	return b, nil
}

// appendQRRaster appends text's QR code as a GS v 0 raster image, qrModule dots per
// module, with its quiet zone.
func appendQRRaster(b []byte, text string) ([]byte, error) {
	q, err := qrcode.New(text, qrcode.Medium)
	if err != nil {
		return nil, fmt.Errorf("receipts: escpos: qr: %w", err)
	}
	bm := q.Bitmap()
	dots := len(bm) * qrModule
	rowBytes := (dots + 7) / 8
	b = append(b, gs, 'v', '0', 0, byte(rowBytes), byte(rowBytes>>8), byte(dots), byte(dots>>8))
	line := make([]byte, rowBytes)
	for _, mods := range bm {
		clear(line)
		for x, dark := range mods {
			if !dark {
				continue
			}
			for d := x * qrModule; d < (x+1)*qrModule; d++ {
				line[d/8] |= 0x80 >> (d % 8)
			}
		}
		for range qrModule {
			b = append(b, line...)
		}
	}
	return b, nil
}

// appendASCII appends s as printable ASCII for the printer p (see ESCPOS).
func appendASCII(b []byte, s string, p Profile) []byte {
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if c >= 0x20 && c < 0x7f {
				b = append(b, c)
			}
			i++
			continue
		}
		r, n := utf8.DecodeRuneInString(s[i:])
		i += n
		if r == '₹' {
			if p.HasRupee && p.RupeeByte != 0 {
				b = append(b, p.RupeeByte)
			} else {
				b = append(b, "Rs."...)
			}
			continue
		}
		b = append(b, translit(r))
	}
	return b
}

// translit maps a non-ASCII rune to one printable ASCII byte, so that columns stay
// aligned.
func translit(r rune) byte {
	switch r {
	case '—', '–', '‐', '‑', '−':
		return '-'
	case '•':
		return '*'
	case '·':
		return '.'
	case '×':
		return 'x'
	case '‘', '’', '′':
		return '\''
	case '“', '”', '″':
		return '"'
	case '\u00a0':
		return ' '
	}
	const from = "ÀÁÂÃÄÅàáâãäåÇçÈÉÊËèéêëÌÍÎÏìíîïÑñÒÓÔÕÖØòóôõöøÙÚÛÜùúûüÝýÿ"
	const to = "AAAAAAaaaaaaCcEEEEeeeeIIIIiiiiNnOOOOOOooooooUUUUuuuuYyy"
	if i := strings.IndexRune(from, r); i >= 0 {
		return to[utf8.RuneCountInString(from[:i])]
	}
	return '?'
}
