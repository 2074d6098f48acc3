package receipts

import (
	"bufio"
	"fmt"
	"io"
	"strings"
)

// TextOption changes how Text writes a receipt.
type TextOption func(*textOptions)

type textOptions struct {
	sign string
}

// WithRs writes amounts with "Rs." instead of the rupee sign ₹, for terminals and
// printers that have no ₹.
func WithRs() TextOption { return func(o *textOptions) { o.sign = "Rs." } }

// Columns returns the text width of a printer width given either in columns (32, 42,
// 48) or in millimetres of paper (58 is 32 columns, 80 is 48). Anything else is an
// error.
func Columns(width int) (int, error) {
	switch width {
	case 32, 42, 48:
		return width, nil
	case 58:
		return 32, nil
	case 80:
		return 48, nil
	}
	return 0, fmt.Errorf("receipts: width %d: want 32, 42 or 48 columns, or 58 or 80 mm", width)
}

// Text writes r as plain UTF-8 text of cols columns (32, 42 or 48; 58 and 80 mean
// millimetres of paper). Amounts carry ₹ unless WithRs is given. Double-size lines
// of a printer are written at normal size, and the QR code is left out: plain text
// cannot draw it.
func Text(w io.Writer, r Receipt, cols int, opts ...TextOption) error {
	cols, err := Columns(cols)
	if err != nil {
		return err
	}
	o := textOptions{sign: "₹"}
	for _, f := range opts {
		f(&o)
	}
	bw := bufio.NewWriter(w)
	blank := false // a blank line is written only when text follows it
	for _, rw := range layout(r, cols, o.sign) {
		if rw.kind == rowQR {
			continue
		}
		line := strings.TrimRight(rw.compose(cols), " ")
		if line == "" {
			blank = true
			continue
		}
		if blank {
			bw.WriteByte('\n')
			blank = false
		}
		bw.WriteString(line)
		bw.WriteByte('\n')
	}
	if err := bw.Flush(); err != nil {
		return fmt.Errorf("receipts: text: %w", err)
	}
	return nil
}
