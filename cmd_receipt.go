package main

import (
	"bytes"
	"context"
	"crypto/rand"
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"time"

	"galla/pos"
	"galla/pos/journal"
	"galla/receipts"
)

// receiptKeyFile holds the terminal's key that receipt QR codes are signed with
// (32 random bytes, mode 0600), made the first time a receipt needs it.
const receiptKeyFile = "receipt-qr.key"

// cmdReceipt renders a journaled sale's receipt: galla receipt MERCHANT_ORDER_ID
// [--format text|escpos|png|pdf] [--out FILE] [--print]. Without --out it writes to
// standard output; --print sends it (as ESC/POS) to the printer of the settings.
// Every copy after the first says "DUPLICATE — reprint N" and is journaled.
func cmdReceipt(c *cli, args []string) int {
	flags := c.flagSet("galla receipt")
	format := flags.String("format", "text", "text, escpos, png or pdf")
	out := flags.String("out", "", "write the receipt to this file instead of standard output")
	doPrint := flags.Bool("print", false, "print the receipt on the configured receipt printer")
	rest, err := c.parse(flags, args)
	if err != nil {
		return exitBadInput
	}
	if len(rest) != 1 {
		return c.fail(exitBadInput, "Name one order: galla receipt MERCHANT_ORDER_ID [--format text|escpos|png|pdf] [--out FILE] [--print].")
	}
	switch *format {
	case "text", "escpos", "png", "pdf":
	default:
		return c.fail(exitBadInput, "The format %q is not known; use text, escpos, png or pdf.", *format)
	}
	cfg, err := c.loadConfig()
	if err != nil {
		return c.fail(exitBadInput, "%v", err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()

	path := filepath.Join(c.dataDir, journalFile)
	if _, err := os.Stat(path); errors.Is(err, fs.ErrNotExist) {
		return c.fail(exitBadInput, "There is no journal in %s yet, so there is no sale to print; check --data.", c.dataDir)
	}
	j, err := journal.Open(path, journal.Options{})
	if err != nil {
		return c.fail(exitFailed, "%s", pos.Sentence(err))
	}
	defer j.Close()
	key, err := receiptKey(c.dataDir)
	if err != nil {
		return c.fail(exitFailed, "The receipt key in %s cannot be read or made (%v); check the folder's permissions.", c.dataDir, err)
	}
	job := receiptJob{id: rest[0], format: *format, out: *out, print: *doPrint, terminal: cfg.Terminal, key: key}
	return job.run(ctx, c, j)
}

// receiptJob is one run of galla receipt.
type receiptJob struct {
	id, format, out string
	print           bool
	terminal        string
	key             []byte
}

func (jb receiptJob) run(ctx context.Context, c *cli, j pos.Journal) int {
	o, err := j.Order(ctx, jb.id)
	if err != nil {
		return c.fail(exitBadInput, "%s", pos.Sentence(err))
	}
	if !o.State.Paid() {
		return c.fail(exitFailed, "Order %s is %s, not paid, so it has no receipt; run \"galla reconcile\" if its outcome is unknown.", o.ID, o.State)
	}
	shop, err := pos.LoadShop(ctx, j)
	if err != nil {
		return c.fail(exitFailed, "The shop's settings cannot be read (%v); set the shop's name, address and GSTIN again.", err)
	}
	profile, havePrinter, err := pos.LoadPrinter(ctx, j)
	if err != nil {
		return c.fail(exitFailed, "The printer settings cannot be read (%v); set the receipt printer again.", err)
	}
	if jb.print && !havePrinter {
		return c.fail(exitBadInput, "No receipt printer is configured; write the receipt to a file with --out instead.")
	}
	if !havePrinter {
		profile = receipts.Profile{Width: 80}
	}
	reprint := pos.NextReprint(*o)
	r := pos.ReceiptFor(*o, shop, pos.ReceiptOptions{Terminal: jb.terminal, QRKey: jb.key, Reprint: reprint})

	eng, err := pos.New(pos.Config{Journal: j, Terminal: jb.terminal})
	if err != nil {
		return c.fail(exitFailed, "%s", pos.Sentence(err))
	}
	copies := 0
	if jb.out != "" || !jb.print {
		var b bytes.Buffer
		if err := renderReceipt(&b, r, jb.format, profile); err != nil {
			return c.fail(exitFailed, "The receipt cannot be drawn: %v.", err)
		}
		var w io.Writer = c.stdout
		if jb.out != "" {
			if err := os.WriteFile(jb.out, b.Bytes(), 0o600); err != nil {
				return c.fail(exitFailed, "The receipt cannot be written to %s (%v); choose another file.", jb.out, err)
			}
		} else if _, err := w.Write(b.Bytes()); err != nil {
			return exitFailed
		}
		where := "stdout"
		if jb.out != "" {
			where = "file:" + jb.out
		}
		if err := eng.RecordPrint(ctx, o.ID, reprint > 0, pos.PrintEvent{Printer: where, Format: jb.format}, nil); err != nil {
			return c.fail(exitFailed, "The receipt was written but the journal could not record it: %s", pos.Sentence(err))
		}
		copies++
	}
	if jb.print {
		if copies > 0 { // the copy just journaled counts: the printed one is the next
			r.Reprint = reprint + 1
		}
		var b bytes.Buffer
		if err := receipts.ESCPOS(&b, r, profile); err != nil {
			return c.fail(exitFailed, "The receipt cannot be drawn for the printer: %v.", err)
		}
		pr, err := receipts.NewPrinter(profile)
		if err != nil {
			return c.fail(exitBadInput, "The receipt printer's settings are wrong (%v); set the printer again.", err)
		}
		printErr := pr.Print(ctx, b.Bytes())
		ev := pos.PrintEvent{Printer: string(profile.Transport) + ":" + profile.Address, Format: "escpos"}
		if err := eng.RecordPrint(ctx, o.ID, r.Reprint > 0, ev, printErr); err != nil && printErr == nil {
			return c.fail(exitFailed, "The receipt was printed but the journal could not record it: %s", pos.Sentence(err))
		}
		if printErr != nil {
			return c.fail(exitFailed, "%v.", printErr)
		}
	}
	return exitOK
}

// renderReceipt draws r in format for the printer profile p (its width).
func renderReceipt(w io.Writer, r receipts.Receipt, format string, p receipts.Profile) error {
	switch format {
	case "escpos":
		return receipts.ESCPOS(w, r, p)
	case "png", "pdf":
		rd, err := receipts.NewRenderer()
		if err != nil {
			return err
		}
		if format == "pdf" {
			return rd.PDF(w, r)
		}
		mm := 80
		if cols, err := receipts.Columns(p.Width); err == nil && cols == 32 {
			mm = 58
		}
		return rd.PNG(w, r, mm)
	}
	return receipts.Text(w, r, p.Width)
}

// receiptKey returns the terminal's QR signing key, making it on first use.
func receiptKey(dataDir string) ([]byte, error) {
	path := filepath.Join(dataDir, receiptKeyFile)
	key, err := os.ReadFile(path)
	if err == nil && len(key) >= 32 {
		return key, nil
	}
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return nil, err
	}
	key = make([]byte, 32)
	if _, err := rand.Read(key); err != nil {
		return nil, err
	}
	if err := os.MkdirAll(dataDir, 0o700); err != nil {
		return nil, err
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if errors.Is(err, fs.ErrExist) { // made by another process meanwhile
		return os.ReadFile(path)
	}
	if err != nil {
		return nil, err
	}
	if _, err := f.Write(key); err != nil {
		f.Close()
		return nil, err
	}
	return key, f.Close()
}
