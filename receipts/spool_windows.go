//go:build windows

package receipts

import (
	"context"
	"fmt"
	"unsafe"

	"golang.org/x/sys/windows"
)

// docInfo1 is winspool's DOC_INFO_1W.
type docInfo1 struct {
	docName    *uint16
	outputFile *uint16
	datatype   *uint16
}

// spool sends the job through winspool in the RAW data type: OpenPrinterW,
// StartDocPrinterW, StartPagePrinter, WritePrinter, EndPagePrinter, EndDocPrinter,
// ClosePrinter. The spooler queues the job and returns; the deadline covers a
// spooler that hangs. (Without this, `copy /b receipt.bin \\host\share` does the
// same from a command prompt.)
func (s *Spooler) spool(ctx context.Context, job []byte) error {
	done := make(chan error, 1)
	go func() { done <- winspoolRaw(s.Name, job) }()
	select {
	case err := <-done:
		return err
	case <-ctx.Done():
		return fmt.Errorf("winspool: %w", ctx.Err())
	}
}

func winspoolRaw(printer string, job []byte) error {
	dll := windows.NewLazySystemDLL("winspool.drv")
	openPrinter := dll.NewProc("OpenPrinterW")
	closePrinter := dll.NewProc("ClosePrinter")
	startDoc := dll.NewProc("StartDocPrinterW")
	endDoc := dll.NewProc("EndDocPrinter")
	startPage := dll.NewProc("StartPagePrinter")
	endPage := dll.NewProc("EndPagePrinter")
	writePrinter := dll.NewProc("WritePrinter")
	if err := dll.Load(); err != nil {
		return fmt.Errorf("winspool: %w", err)
	}
	name, err := windows.UTF16PtrFromString(printer)
	if err != nil {
		return fmt.Errorf("winspool: printer name: %w", err)
	}
	var h windows.Handle
	if r, _, e := openPrinter.Call(uintptr(unsafe.Pointer(name)), uintptr(unsafe.Pointer(&h)), 0); r == 0 {
		return fmt.Errorf("winspool: open printer: %w", e)
	}
	defer closePrinter.Call(uintptr(h))
	docName, _ := windows.UTF16PtrFromString("Galla receipt")
	raw, _ := windows.UTF16PtrFromString("RAW")
	di := docInfo1{docName: docName, datatype: raw}
	if r, _, e := startDoc.Call(uintptr(h), 1, uintptr(unsafe.Pointer(&di))); r == 0 {
		return fmt.Errorf("winspool: start document: %w", e)
	}
	defer endDoc.Call(uintptr(h))
	if r, _, e := startPage.Call(uintptr(h)); r == 0 {
		return fmt.Errorf("winspool: start page: %w", e)
	}
	defer endPage.Call(uintptr(h))
	if len(job) == 0 {
		return nil
	}
	var written uint32
	r, _, e := writePrinter.Call(uintptr(h), uintptr(unsafe.Pointer(&job[0])), uintptr(len(job)), uintptr(unsafe.Pointer(&written)))
	if r == 0 {
		return fmt.Errorf("winspool: write: %w", e)
	}
	if int(written) != len(job) {
		return fmt.Errorf("winspool: wrote %d of %d bytes", written, len(job))
	}
	return nil
}
