package receipts

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"time"
)

// DefaultPrintTimeout bounds a print job when neither the Profile nor the context
// says otherwise.
const DefaultPrintTimeout = 5 * time.Second

// Printer sends a finished job (ESC/POS bytes, or a PDF for a spooler) to a printer.
// Print returns within the transport's timeout or the context's deadline, whichever
// comes first; a printer that does not answer in time is a *PrinterError matching
// ErrPrinterNotAnswering.
type Printer interface {
	Print(ctx context.Context, job []byte) error
}

// ErrPrinterNotAnswering matches (errors.Is) every error of a printer that could not
// be reached, did not take the job in time, or reported itself offline.
var ErrPrinterNotAnswering = errors.New("receipts: printer not answering")

// PrinterError is a printer that did not take a job. Its Error text is the sentence
// the cashier sees, e.g. "Printer at 192.168.1.50 is not answering; the sale is saved
// — reprint from the journal"; Err keeps the cause for the log.
type PrinterError struct {
	Transport Transport
	Name      string // host, queue name or path
	Offline   bool   // the printer answered that it is offline (paper out, cover open)
	Err       error
}

// Error returns the cashier's sentence.
func (e *PrinterError) Error() string {
	who := "Printer " + e.Name
	if e.Transport == TransportTCP {
		who = "Printer at " + e.Name
	}
	what := "is not answering"
	if e.Offline {
		what = "is offline (out of paper or its cover is open)"
	}
	return who + " " + what + "; the sale is saved — print it again once the printer answers (it prints as the original)"
}

// Unwrap returns ErrPrinterNotAnswering and the cause.
func (e *PrinterError) Unwrap() []error { return []error{ErrPrinterNotAnswering, e.Err} }

// NewPrinter returns the transport p describes.
func NewPrinter(p Profile) (Printer, error) {
	switch p.Transport {
	case TransportTCP:
		return &TCP{Address: p.Address, Timeout: p.Timeout}, nil
	case TransportSpooler:
		return &Spooler{Name: p.Address, Timeout: p.Timeout}, nil
	case TransportFile:
		return &File{Path: p.Address, Timeout: p.Timeout}, nil
	}
	return nil, fmt.Errorf("receipts: printer transport %q: want tcp, spooler or file", p.Transport)
}

func withTimeout(ctx context.Context, d time.Duration) (context.Context, context.CancelFunc) {
	if d <= 0 {
		d = DefaultPrintTimeout
	}
	return context.WithTimeout(ctx, d)
}

// TCP prints to a network receipt printer's raw port (9100). After the job it sends
// the ESC/POS real-time status request DLE EOT 1 (10 04 01) and waits for the
// printer's status byte: a printer whose buffer is full, that accepted the
// connection but does not read, or that is switched off does not answer, and the
// job fails within the timeout instead of hanging or silently vanishing.
type TCP struct {
	Address string        // host or host:port; the port defaults to 9100
	Timeout time.Duration // zero: DefaultPrintTimeout
}

// statusRequest is DLE EOT 1: transmit the printer status, in real time.
const statusRequest = "\x10\x04\x01"

// Print sends job and waits for the printer's status answer.
func (t *TCP) Print(ctx context.Context, job []byte) error {
	addr := t.Address
	if _, _, err := net.SplitHostPort(addr); err != nil {
		addr = net.JoinHostPort(addr, "9100")
	}
	host, _, _ := net.SplitHostPort(addr)
	fail := func(err error) error { return &PrinterError{Transport: TransportTCP, Name: host, Err: err} }
	ctx, cancel := withTimeout(ctx, t.Timeout)
	defer cancel()
	var d net.Dialer
	conn, err := d.DialContext(ctx, "tcp", addr)
	if err != nil {
		return fail(err)
	}
	defer conn.Close()
	deadline, _ := ctx.Deadline()
	if err := conn.SetDeadline(deadline); err != nil {
		return fail(err)
	}
	// Closing the connection when ctx ends unblocks a write or read at once.
	stop := context.AfterFunc(ctx, func() { conn.Close() })
	defer stop()
	if _, err := conn.Write(job); err != nil {
		return fail(err)
	}
	if _, err := conn.Write([]byte(statusRequest)); err != nil {
		return fail(err)
	}
	var status [1]byte
	if _, err := conn.Read(status[:]); err != nil {
		return fail(err)
	}
	// A status byte has bit 1 and 4 set and bit 0 and 7 clear; bit 3 is "offline".
	if status[0]&0x93 != 0x12 {
		return fail(fmt.Errorf("answer %#02x is not a printer status", status[0]))
	}
	if status[0]&0x08 != 0 {
		return &PrinterError{Transport: TransportTCP, Name: host, Offline: true, Err: errors.New("status: offline")}
	}
	return nil
}

// File writes the job to a file or device node (/dev/usb/lp0, or a file to keep).
type File struct {
	Path    string
	Timeout time.Duration // zero: DefaultPrintTimeout
}

// Print writes job to the file, replacing what was there.
func (f *File) Print(ctx context.Context, job []byte) error {
	ctx, cancel := withTimeout(ctx, f.Timeout)
	defer cancel()
	fail := func(err error) error { return &PrinterError{Transport: TransportFile, Name: f.Path, Err: err} }
	done := make(chan error, 1)
	go func() {
		fh, err := os.OpenFile(f.Path, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o600)
		if err != nil {
			done <- err
			return
		}
		_, err = fh.Write(job)
		if cerr := fh.Close(); err == nil {
			err = cerr
		}
		done <- err
	}()
	select {
	case err := <-done:
		if err != nil {
			return fail(err)
		}
		return nil
	case <-ctx.Done():
		// A device that never takes the write leaves the goroutine blocked until
		// the driver gives up; the sale is not held up by it.
		return fail(ctx.Err())
	}
}

// Spooler prints through the operating system's print spooler in raw mode: "lp -d
// NAME -o raw" on Linux and macOS, the winspool RAW data type on Windows.
type Spooler struct {
	Name    string        // the print queue
	Timeout time.Duration // zero: DefaultPrintTimeout
	// Command replaces "lp" (Linux and macOS only), e.g. with a full path.
	Command string
}

// Print hands job to the spooler.
func (s *Spooler) Print(ctx context.Context, job []byte) error {
	ctx, cancel := withTimeout(ctx, s.Timeout)
	defer cancel()
	if err := s.spool(ctx, job); err != nil {
		return &PrinterError{Transport: TransportSpooler, Name: s.Name, Err: err}
	}
	return nil
}
