package receipts

import (
	"bytes"
	"context"
	"net"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// fakePrinter accepts one connection, reads the job up to the status request,
// answers status and then reads until the client closes. It sends what it read.
func fakePrinter(t *testing.T, status byte) (addr string, got <-chan []byte) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	t.Cleanup(func() { ln.Close() })
	ch := make(chan []byte, 1)
	go func() {
		conn, err := ln.Accept()
		if err != nil {
			ch <- nil
			return
		}
		defer conn.Close()
		conn.SetDeadline(time.Now().Add(5 * time.Second))
		var buf bytes.Buffer
		chunk := make([]byte, 4096)
		answered := false
		for {
			n, err := conn.Read(chunk)
			buf.Write(chunk[:n])
			if !answered && bytes.HasSuffix(buf.Bytes(), []byte(statusRequest)) {
				conn.Write([]byte{status})
				answered = true
			}
			if err != nil {
				break
			}
		}
		ch <- buf.Bytes()
	}()
	return ln.Addr().String(), ch
}

func TestTCPPrintsExactBytes(t *testing.T) {
	addr, got := fakePrinter(t, 0x12)
	var job bytes.Buffer
	require.NoError(t, ESCPOS(&job, emiSale(), Profile{Width: 80, DrawerPulse: true}))
	pr, err := NewPrinter(Profile{Transport: TransportTCP, Address: addr, Timeout: 2 * time.Second})
	require.NoError(t, err)
	require.NoError(t, pr.Print(t.Context(), job.Bytes()))
	want := append(bytes.Clone(job.Bytes()), 0x10, 0x04, 0x01)
	select {
	case b := <-got:
		assert.Equal(t, want, b, "the printer receives the job and then DLE EOT 1")
	case <-time.After(5 * time.Second):
		t.Fatal("the fake printer received nothing")
	}
}

func TestTCPOffline(t *testing.T) {
	addr, _ := fakePrinter(t, 0x1a) // bit 3: offline
	err := (&TCP{Address: addr, Timeout: 2 * time.Second}).Print(t.Context(), []byte("x"))
	var pe *PrinterError
	require.ErrorAs(t, err, &pe)
	assert.True(t, pe.Offline)
	assert.ErrorIs(t, err, ErrPrinterNotAnswering)
	assert.Equal(t, "Printer at 127.0.0.1 is offline (out of paper or its cover is open); the sale is saved — print it again once the printer answers (it prints as the original)", err.Error())
}

func TestTCPNotAnswering(t *testing.T) {
	// A listener that accepts and never reads nor answers, like a printer that
	// hangs; and a port nobody listens on, like a printer switched off.
	silent, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	t.Cleanup(func() { silent.Close() })
	go func() {
		for {
			c, err := silent.Accept()
			if err != nil {
				return
			}
			t.Cleanup(func() { c.Close() })
		}
	}()
	closed, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	closedAddr := closed.Addr().String()
	closed.Close()

	tests := map[string]string{"accepts but never reads": silent.Addr().String(), "nobody listening": closedAddr}
	for name, addr := range tests {
		t.Run(name, func(t *testing.T) {
			start := time.Now()
			err := (&TCP{Address: addr, Timeout: 500 * time.Millisecond}).Print(t.Context(), bytes.Repeat([]byte("receipt "), 500))
			elapsed := time.Since(start)
			require.Error(t, err)
			assert.Less(t, elapsed, 2*time.Second, "the error comes within the deadline")
			assert.ErrorIs(t, err, ErrPrinterNotAnswering)
			assert.Equal(t, "Printer at 127.0.0.1 is not answering; the sale is saved — print it again once the printer answers (it prints as the original)", err.Error())
		})
	}
}

func TestTCPContextDeadlineWins(t *testing.T) {
	silent, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	t.Cleanup(func() { silent.Close() })
	go func() {
		c, err := silent.Accept()
		if err == nil {
			t.Cleanup(func() { c.Close() })
		}
	}()
	ctx, cancel := context.WithTimeout(t.Context(), 300*time.Millisecond)
	defer cancel()
	start := time.Now()
	err = (&TCP{Address: silent.Addr().String()}).Print(ctx, []byte("x")) // transport default: 5 s
	assert.ErrorIs(t, err, ErrPrinterNotAnswering)
	assert.Less(t, time.Since(start), 2*time.Second)
}

func TestDefaultTimeout(t *testing.T) {
	ctx, cancel := withTimeout(t.Context(), 0)
	defer cancel()
	dl, ok := ctx.Deadline()
	require.True(t, ok)
	assert.InDelta(t, float64(5*time.Second), float64(time.Until(dl)), float64(time.Second), "a print job is bounded by 5 s")
	assert.Equal(t, 5*time.Second, DefaultPrintTimeout)
}

func TestTCPDefaultPort(t *testing.T) {
	// "printer.invalid" has no port: 9100 is added, and the host is named alone.
	err := (&TCP{Address: "printer.invalid", Timeout: time.Second}).Print(t.Context(), []byte("x"))
	var pe *PrinterError
	require.ErrorAs(t, err, &pe)
	assert.Equal(t, "printer.invalid", pe.Name)
}

func TestFilePrinter(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "receipt.bin")
	pr, err := NewPrinter(Profile{Transport: TransportFile, Address: path})
	require.NoError(t, err)
	require.NoError(t, pr.Print(t.Context(), []byte("first")))
	require.NoError(t, pr.Print(t.Context(), []byte("job")))
	b, err := os.ReadFile(path)
	require.NoError(t, err)
	assert.Equal(t, "job", string(b))

	err = (&File{Path: filepath.Join(dir, "missing", "x")}).Print(t.Context(), []byte("x"))
	assert.ErrorIs(t, err, ErrPrinterNotAnswering)
	assert.True(t, strings.HasPrefix(err.Error(), "Printer "+filepath.Join(dir, "missing", "x")+" is not answering"))
}

func TestSpooler(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("the lp spooler is Linux and macOS; Windows uses winspool")
	}
	dir := t.TempDir()
	lp := filepath.Join(dir, "lp")
	script := "#!/bin/sh\necho \"$@\" > " + dir + "/args\ncat > " + dir + "/job\n"
	require.NoError(t, os.WriteFile(lp, []byte(script), 0o700))
	require.NoError(t, (&Spooler{Name: "RECEIPT1", Command: lp}).Print(t.Context(), []byte("\x1b@job")))
	args, err := os.ReadFile(filepath.Join(dir, "args"))
	require.NoError(t, err)
	assert.Equal(t, "-d RECEIPT1 -o raw\n", string(args))
	job, err := os.ReadFile(filepath.Join(dir, "job"))
	require.NoError(t, err)
	assert.Equal(t, "\x1b@job", string(job))

	hang := filepath.Join(dir, "lp-hang")
	require.NoError(t, os.WriteFile(hang, []byte("#!/bin/sh\nexec sleep 30\n"), 0o700))
	start := time.Now()
	err = (&Spooler{Name: "RECEIPT1", Command: hang, Timeout: 300 * time.Millisecond}).Print(t.Context(), []byte("x"))
	assert.Less(t, time.Since(start), 3*time.Second)
	assert.ErrorIs(t, err, ErrPrinterNotAnswering)
	assert.ErrorIs(t, err, context.DeadlineExceeded)
	assert.Equal(t, "Printer RECEIPT1 is not answering; the sale is saved — print it again once the printer answers (it prints as the original)", err.Error())

	fail := filepath.Join(dir, "lp-fail")
	require.NoError(t, os.WriteFile(fail, []byte("#!/bin/sh\necho 'lp: The printer or class does not exist.' >&2\nexit 1\n"), 0o700))
	err = (&Spooler{Name: "NOPE", Command: fail}).Print(t.Context(), []byte("x"))
	var pe *PrinterError
	require.ErrorAs(t, err, &pe)
	assert.Contains(t, pe.Err.Error(), "does not exist", "the spooler's own words are kept for the log")
}

func TestNewPrinterUnknown(t *testing.T) {
	_, err := NewPrinter(Profile{Transport: "usb"})
	assert.Error(t, err)
}
