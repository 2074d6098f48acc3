package main

import (
	"bytes"
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"time"

	"galla/pos"
	"galla/pos/journal"
	"galla/receipts"
)

// receiptKeyFile holds the terminal's key that receipt QR codes are signed with
// (32 random bytes, mode 0600), made the first time a receipt needs it.
const receiptKeyFile = "receipt-qr.key"

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
	job := receiptJob{id: rest[0], format: *format, out: *out, print: *doPrint, terminal: cfg.Terminal, key: key, refund: -1}
	if refund.set {
		job.refund = refund.n
	}
	return job.run(ctx, c, j)
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

// receiptJob is one run of galla receipt.
type receiptJob struct {
	id, format, out string
	print           bool
	terminal        string
	key             []byte
	refund          int // -1: the sale's receipt; 0: the latest refund's; N: the Nth refund's
}

func (jb receiptJob) run(ctx context.Context, c *cli, j pos.Journal) int {
	o, err := j.Order(ctx, jb.id)
	if err != nil {
		return c.fail(exitBadInput, "%s", pos.Sentence(err))
	}
	if !o.State.Paid() {
		return c.fail(exitFailed, "Order %s is %s, not paid, so it has no receipt; run \"galla reconcile\" if its outcome is unknown.", o.ID, o.State)
	}
	var ref pos.Refund
	if jb.refund >= 0 {
		var ok bool
		if ref, ok = pos.DoneRefund(*o, jb.refund); !ok {
			if jb.refund == 0 {
				return c.fail(exitBadInput, "Order %s has no done refund, so there is no refund receipt; refund it with \"galla refund %s\".", o.ID, o.ID)
			}
			return c.fail(exitBadInput, "Order %s has no refund no. %d; leave the number out for its latest refund.", o.ID, jb.refund)
		}
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
	opt := pos.ReceiptOptions{Terminal: jb.terminal, QRKey: jb.key, Reprint: pos.NextReprint(*o)}
	r := pos.ReceiptFor(*o, shop, opt)
	if jb.refund >= 0 {
		opt.Reprint, opt.Cashier = pos.NextRefundReprint(ref), staffName(ctx, j, ref.Staff)
		if r, err = pos.RefundReceiptFor(*o, ref.UniqueTxnID, shop, opt); err != nil {
			return c.fail(exitFailed, "%s", pos.Sentence(err))
		}
	}
	eng, err := pos.New(pos.Config{Journal: j, Terminal: jb.terminal})
	if err != nil {
		return c.fail(exitFailed, "%s", pos.Sentence(err))
	}
	s := slip{r: r, format: jb.format, out: jb.out, print: jb.print, profile: profile, noun: "receipt",
		record: func(ctx context.Context, ev pos.PrintEvent, reprint bool, printErr error) error {
			ev.Refund = ref.UniqueTxnID
			return eng.RecordPrint(ctx, o.ID, reprint, ev, printErr)
		}}
	return s.run(ctx, c)
}

// slip is one receipt or report to write (in any format) and print (as ESC/POS).
type slip struct {
	r           receipts.Receipt
	format, out string
	print       bool
	profile     receipts.Profile
	noun        string // "receipt", "X report", "Z report"
	// write draws the slip in format; nil draws r with renderReceipt.
	write func(w io.Writer) error
	// record journals one copy; nil: copies are not journaled.
	record func(ctx context.Context, ev pos.PrintEvent, reprint bool, printErr error) error
}

// run writes the slip to --out or standard output unless it is only printed, then
// prints it when asked. A copy journaled before the print makes the print the next
// reprint.
func (s slip) run(ctx context.Context, c *cli) int {
	if s.out != "" || !s.print {
		var b bytes.Buffer
		write := s.write
		if write == nil {
			write = func(w io.Writer) error { return renderReceipt(w, s.r, s.format, s.profile) }
		}
		if err := write(&b); err != nil {
			return c.fail(exitFailed, "The %s cannot be drawn: %v.", s.noun, err)
		}
		if s.out != "" {
			if err := os.WriteFile(s.out, b.Bytes(), 0o600); err != nil {
				return c.fail(exitFailed, "The %s cannot be written to %s (%v); choose another file.", s.noun, s.out, err)
			}
		} else if _, err := c.stdout.Write(b.Bytes()); err != nil {
			return exitFailed
		}
		if s.record != nil {
			where := "stdout"
			if s.out != "" {
				where = "file:" + s.out
			}
			if err := s.record(ctx, pos.PrintEvent{Printer: where, Format: s.format}, s.r.Reprint > 0, nil); err != nil {
				return c.fail(exitFailed, "The %s was written but the journal could not record it: %s", s.noun, pos.Sentence(err))
			}
			s.r.Reprint++ // the copy just journaled counts: the printed one is the next
		}
	}
	if !s.print {
		return exitOK
	}
	code, printErr := printSlip(ctx, c, s.r, s.profile, s.noun)
	if code != exitOK && printErr == nil {
		return code
	}
	if s.record != nil {
		ev := pos.PrintEvent{Printer: string(s.profile.Transport) + ":" + s.profile.Address, Format: "escpos"}
		if err := s.record(ctx, ev, s.r.Reprint > 0, printErr); err != nil && printErr == nil {
			return c.fail(exitFailed, "The %s was printed but the journal could not record it: %s", s.noun, pos.Sentence(err))
		}
	}
	if printErr != nil {
		return c.fail(exitFailed, "%v.", printErr)
	}
	return exitOK
}

// printSlip sends r as ESC/POS to the printer of p. A failure to draw it or a bad
// printer setting is said on standard error and returned as an exit code with a nil
// error; the printer's own failure is returned (with exitFailed) for the caller to
// journal and say.
func printSlip(ctx context.Context, c *cli, r receipts.Receipt, p receipts.Profile, noun string) (int, error) {
	var b bytes.Buffer
	if err := receipts.ESCPOS(&b, r, p); err != nil {
		return c.fail(exitFailed, "The %s cannot be drawn for the printer: %v.", noun, err), nil
	}
	pr, err := receipts.NewPrinter(p)
	if err != nil {
		return c.fail(exitBadInput, "The receipt printer's settings are wrong (%v); set the printer again.", err), nil
	}
	if err := pr.Print(ctx, b.Bytes()); err != nil {
		return exitFailed, err
	}
	return exitOK, nil
}

// staffName is the name of the member of staff whose id the journal recorded (a
// refund records its manager's id), or the id itself when there is no such member.
func staffName(ctx context.Context, st pos.StaffStore, id string) string {
	if id == "" {
		return ""
	}
	if s, err := st.Get(ctx, id); err == nil && s.Name != "" {
		return s.Name
	}
	return id
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
