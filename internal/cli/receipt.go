package cli

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"galla/pos"
	"galla/pos/journal"
)

// cmdReceipt renders a journaled sale's receipt: galla receipt MERCHANT_ORDER_ID
// [--refund [N]] [--format text|escpos|png|pdf] [--out FILE] [--print]. Without
// --out it writes to standard output; --print sends it (as ESC/POS) to the printer
// of the settings. --refund renders the receipt of the order's Nth done refund
// (counted from 1; default the latest) instead of the sale's. Every copy after the
// first says "DUPLICATE — reprint N" and is journaled.
func cmdReceipt(c *cli, args []string) int {
	flags := c.flagSet("galla receipt")
	format := flags.String("format", "text", "text, escpos, png or pdf")
	out := flags.String("out", "", "write the receipt to this file instead of standard output")
	doPrint := flags.Bool("print", false, "print the receipt on the configured receipt printer")
	var refund refundFlag
	flags.Var(&refund, "refund", "the receipt of the order's refund `N` (from 1; default the latest) instead of the sale's")
	rest, err := c.parse(flags, args)
	if err != nil {
		return exitBadInput
	}
	if refund.set && refund.n == 0 && len(rest) == 2 { // --refund N: N came as an argument
		n := 1 // the order id first, then N; or N first ("--refund 2 ORDER")
		if _, err := strconv.Atoi(rest[1]); err != nil {
			if _, err0 := strconv.Atoi(rest[0]); err0 == nil {
				n = 0
			}
		}
		if err := refund.Set(rest[n]); err != nil {
			return c.fail(exitBadInput, "%v; write --refund 2 for the second refund.", err)
		}
		rest = []string{rest[1-n]}
	}
	if len(rest) != 1 {
		return c.fail(exitBadInput, "Name one order: %s.", commands()["receipt"].usage)
	}
	switch *format {
	case "text", "escpos", "png", "pdf":
	default:
		return c.fail(exitBadInput, "The format %q is not known; use text, escpos, png or pdf.", *format)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()

	if _, err := os.Stat(filepath.Join(c.dataDir, journalFile)); errors.Is(err, fs.ErrNotExist) && !journalDirUsed(c.dataDir) {
		return c.fail(exitBadInput, "There is no journal in %s yet, so there is no sale to print; check --data.", c.dataDir)
	}
	t, err := openTerminalWith(c, false, journal.CreateNever)
	if err != nil {
		return c.failOpen(err)
	}
	defer t.close()
	n := -1
	if refund.set {
		n = refund.n
	}
	id := rest[0]
	if series, _, ok := pos.ParseDocNumber(id); ok {
		// A document number as printed: a credit note is its own document; an
		// invoice names its sale.
		if strings.HasPrefix(series, "C") {
			d, err := t.Returns.CreditNoteDocument(ctx, id)
			if err != nil {
				return c.fail(exitBadInput, "%s", pos.Sentence(err))
			}
			return c.document(ctx, t, d, *format, *out, *doPrint, nil)
		}
		o, err := t.Returns.FindSale(ctx, id)
		if err != nil {
			return c.fail(exitBadInput, "%s", pos.Sentence(err))
		}
		id = o.ID
	}
	if _, err := t.Books.Order(ctx, id); err != nil {
		return c.fail(exitBadInput, "%s", pos.Sentence(err))
	}
	d, err := t.Documents.ReceiptDocument(ctx, id, n)
	if err != nil {
		code := exitFailed
		if errors.Is(err, pos.ErrNoSuchRefund) {
			code = exitBadInput
		}
		return c.fail(code, "%s", pos.Sentence(err))
	}
	return c.document(ctx, t, d, *format, *out, *doPrint, nil)
}

// refundFlag is --refund [N]: set without a value it names the latest refund (n 0).
type refundFlag struct {
	set bool
	n   int
}

func (f *refundFlag) String() string {
	if f == nil || !f.set {
		return ""
	}
	return strconv.Itoa(f.n)
}

// Set takes "true" (the flag alone) or a refund's number from 1.
func (f *refundFlag) Set(s string) error {
	switch s {
	case "true":
		f.set, f.n = true, 0
		return nil
	case "false":
		f.set, f.n = false, 0
		return nil
	}
	n, err := strconv.Atoi(s)
	if err != nil || n < 1 {
		return fmt.Errorf("the refund number %q is not a number from 1", s)
	}
	f.set, f.n = true, n
	return nil
}

// IsBoolFlag lets --refund stand without a value.
func (f *refundFlag) IsBoolFlag() bool { return true }

// document writes d in format to out (or standard output) unless it is only
// printed, then prints it when asked; write, when set, draws it instead of the
// till (the report's text, csv and json). Every paper copy of a receipt (a print,
// or an ESC/POS job written out) is journaled, and each after the first says
// DUPLICATE; text, PNG and PDF are views that leave the original to be printed.
func (c *cli) document(ctx context.Context, t *terminal, d *pos.Document, format, out string, print bool, write func(io.Writer) error) int {
	if print && !d.HavePrinter {
		return c.fail(exitBadInput, "No receipt printer is configured; write the %s to a file with --out instead.", strings.TrimPrefix(strings.TrimPrefix(d.Noun, "X "), "Z "))
	}
	if out != "" || !print {
		var b bytes.Buffer
		if write == nil {
			write = func(w io.Writer) error { return t.Documents.Render(w, d, format) }
		}
		if err := write(&b); err != nil {
			return c.fail(exitFailed, "The %s cannot be drawn: %v.", d.Noun, pos.ErrDetail(err, pos.ErrDocumentDraw))
		}
		where := "stdout"
		if out != "" {
			if err := os.WriteFile(out, b.Bytes(), 0o600); err != nil {
				return c.fail(exitFailed, "The %s cannot be written to %s (%v); choose another file.", d.Noun, out, err)
			}
			where = "file:" + out
		} else if _, err := c.stdout.Write(b.Bytes()); err != nil {
			return exitFailed
		}
		if err := t.Documents.RecordCopy(ctx, d, where, format); err != nil {
			return c.fail(exitFailed, "The %s was written but the journal could not record it: %s", d.Noun, pos.Sentence(err))
		}
	}
	if !print {
		return exitOK
	}
	switch err := t.Documents.PrintDocument(ctx, d); {
	case err == nil:
		return exitOK
	case errors.Is(err, pos.ErrDocumentDraw):
		return c.fail(exitFailed, "The %s cannot be drawn for the printer: %v.", d.Noun, pos.ErrDetail(err, pos.ErrDocumentDraw))
	case errors.Is(err, pos.ErrPrinterSettings):
		return c.fail(exitBadInput, "The receipt printer's settings are wrong (%v); set the printer again.", pos.ErrDetail(err, pos.ErrPrinterSettings))
	case errors.Is(err, pos.ErrCopyNotRecorded):
		return c.fail(exitFailed, "The %s was printed but the journal could not record it: %s", d.Noun, pos.Sentence(err))
	default:
		return c.fail(exitFailed, "%v.", err)
	}
}
