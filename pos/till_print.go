package pos

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"galla/receipts"
)

// Errors of rendering and printing documents, matched with errors.Is.
var (
	// ErrNoPrinter reports a print asked for with no receipt printer set up.
	ErrNoPrinter = sentenceErr("No receipt printer is set up; a manager can choose one in Settings (F10).")
	// ErrDocumentDraw reports a document that cannot be drawn in a format.
	ErrDocumentDraw = errors.New("the document cannot be drawn")
	// ErrPrinterSettings reports printer settings that name no usable printer.
	ErrPrinterSettings = errors.New("the receipt printer's settings are wrong")
	// ErrNoSuchRefund reports a refund receipt asked of an order without that
	// refund.
	ErrNoSuchRefund = errors.New("no such refund")
	// ErrCopyNotRecorded reports a copy written or printed that the journal could
	// not record.
	ErrCopyNotRecorded = errors.New("the copy could not be journaled")
)

// ErrDetail is what err says beyond kind, one of the errors above that it wraps.
func ErrDetail(err, kind error) string { return strings.TrimPrefix(err.Error(), kind.Error()+": ") }

// Document is one receipt or report, ready to be written in any format or printed,
// with the printer of the settings.
type Document struct {
	Receipt receipts.Receipt
	// Profile is the printer's profile (its width draws the text); an 80 mm
	// profile when no printer is set up (HavePrinter false).
	Profile     receipts.Profile
	HavePrinter bool
	Noun        string // "receipt", "X report", "Z report"

	orderID  string // receipts: the order whose copies are journaled
	refundID string // a refund's receipt
}

// Journaled reports whether each copy of d is journaled (receipts are; reports
// are not).
func (d *Document) Journaled() bool { return d.orderID != "" }

// printer is the configured printer profile; a missing one is the 80 mm default.
func (t *Till) printerProfile(ctx context.Context) (receipts.Profile, bool, error) {
	prof, ok, err := LoadPrinter(ctx, t.j)
	if err != nil {
		return prof, false, err
	}
	if !ok {
		prof = receipts.Profile{Width: 80}
	}
	return prof, ok, nil
}

// ReceiptDocument is the receipt of a paid order: the sale's (refund < 0), its
// latest done refund's (0) or its refund no. refund (from 1). Its Reprint is the
// copy the next print makes: every copy after the first says DUPLICATE.
func (t *Till) ReceiptDocument(ctx context.Context, orderID string, refund int) (*Document, error) {
	o, err := t.eng.Order(ctx, orderID)
	if err != nil {
		return nil, err
	}
	if !o.State.Paid() && (o.State != StateReturn || refund < 0) { // a return order has its credit notes only
		return nil, Errorf("Order %s is %s, not paid, so it has no receipt; run \"galla reconcile\" if its outcome is unknown.", o.ID, o.State)
	}
	shop, err := LoadShop(ctx, t.j)
	if err != nil {
		return nil, Errorf("The shop's settings cannot be read (%v); set the shop's name, address and GSTIN again.", err)
	}
	prof, ok, err := t.printerProfile(ctx)
	if err != nil {
		return nil, Errorf("The printer settings cannot be read (%v); set the receipt printer again.", err)
	}
	d := &Document{Profile: prof, HavePrinter: ok, Noun: "receipt", orderID: o.ID}
	opt := ReceiptOptions{Terminal: t.cfg.Terminal, QRKey: t.cfg.QRKey, Reprint: NextReprint(*o), Sandbox: !t.live}
	if refund < 0 {
		if o.Tender == TenderSplit {
			if opt.Tenders, err = t.paidTenders(ctx, o.ID); err != nil {
				return nil, err
			}
		}
		d.Receipt = ReceiptFor(*o, shop, opt)
		return d, nil
	}
	ref, found := DoneRefund(*o, refund)
	if !found {
		if refund == 0 {
			return nil, wrapf(ErrNoSuchRefund, "Order %s has no done refund, so there is no refund receipt; refund it with \"galla refund %s\".", o.ID, o.ID)
		}
		return nil, wrapf(ErrNoSuchRefund, "Order %s has no refund no. %d; leave the number out for its latest refund.", o.ID, refund)
	}
	opt.Reprint, opt.Cashier = NextRefundReprint(ref), t.staffName(ctx, ref.Staff)
	if ref.Tender != "" { // a split sale's refund to a card: the tender it went back to
		via, err := t.eng.tenderOrder(ctx, ref.Tender)
		if err != nil {
			return nil, err
		}
		if via != nil {
			opt.Tenders = []Order{*via}
		}
	}
	if d.Receipt, err = RefundReceiptFor(*o, ref.UniqueTxnID, shop, opt); err != nil {
		return nil, err
	}
	d.refundID = ref.UniqueTxnID
	return d, nil
}

// ReportDocument is day's report slip (DayLayout): the X report, or the sealed Z
// report once the day is closed.
func (t *Till) ReportDocument(ctx context.Context, rep *Report) (*Document, error) {
	shop, err := LoadShop(ctx, t.j)
	if err != nil {
		return nil, Errorf("The shop's settings cannot be read (%v); set the shop's name, address and GSTIN again.", err)
	}
	prof, ok, err := t.printerProfile(ctx)
	if err != nil {
		return nil, Errorf("The printer settings cannot be read (%v); set the receipt printer again.", err)
	}
	r := ReportReceipt(*rep, shop, ReceiptOptions{Terminal: t.cfg.Terminal, Sandbox: !t.live})
	return &Document{Receipt: r, Profile: prof, HavePrinter: ok, Noun: rep.Kind + " report"}, nil
}

// Render draws d in format: text, escpos, png (58 or 80 mm, as the printer) or
// pdf.
func (t *Till) Render(w io.Writer, d *Document, format string) error {
	var err error
	switch format {
	case "escpos":
		err = receipts.ESCPOS(w, d.Receipt, d.Profile)
	case "png", "pdf":
		var rd *receipts.Renderer
		if rd, err = t.renderer(); err != nil {
			break
		}
		if format == "pdf" {
			err = rd.PDF(w, d.Receipt)
			break
		}
		mm := 80
		if cols, cerr := receipts.Columns(d.Profile.Width); cerr == nil && cols == 32 {
			mm = 58
		}
		err = rd.PNG(w, d.Receipt, mm)
	default:
		err = receipts.Text(w, d.Receipt, d.Profile.Width)
	}
	if err != nil {
		return fmt.Errorf("%w: %w", ErrDocumentDraw, err)
	}
	return nil
}

func (t *Till) renderer() (*receipts.Renderer, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.rd == nil {
		rd, err := receipts.NewRenderer()
		if err != nil {
			return nil, err
		}
		t.rd = rd
	}
	return t.rd, nil
}

// RecordCopy journals one copy of a receipt written to where ("stdout",
// "file:PATH") in format, and makes the next copy a reprint. Only a printer's job
// (escpos) is a paper copy: text, a PNG or a PDF to look at or send is a view and
// leaves the original to be printed. Reports are not journaled.
func (t *Till) RecordCopy(ctx context.Context, d *Document, where, format string) error {
	if !d.Journaled() || format != "escpos" {
		return nil
	}
	ev := PrintEvent{Printer: where, Format: format, Refund: d.refundID}
	if err := t.eng.RecordPrint(ctx, d.orderID, d.Receipt.Reprint > 0, ev, nil); err != nil {
		return fmt.Errorf("%w: %w", ErrCopyNotRecorded, err)
	}
	d.Receipt.Reprint++
	return nil
}

// PrintDocument prints d on the receipt printer as ESC/POS and journals the copy,
// or the failed print: the sale stands either way. The printer's own failure is
// returned as it is (a *receipts.PrinterError whose text the cashier reads).
func (t *Till) PrintDocument(ctx context.Context, d *Document) error {
	if !d.HavePrinter {
		return ErrNoPrinter
	}
	var job bytes.Buffer
	if err := receipts.ESCPOS(&job, d.Receipt, d.Profile); err != nil {
		return fmt.Errorf("%w: %w", ErrDocumentDraw, err)
	}
	pr, err := t.prn(d.Profile)
	if err != nil {
		return fmt.Errorf("%w: %w", ErrPrinterSettings, err)
	}
	perr := pr.Print(ctx, job.Bytes())
	if d.Journaled() {
		ev := PrintEvent{Printer: string(d.Profile.Transport) + ":" + d.Profile.Address, Format: "escpos", Refund: d.refundID}
		if err := t.eng.RecordPrint(ctx, d.orderID, d.Receipt.Reprint > 0, ev, perr); err != nil && perr == nil {
			return fmt.Errorf("%w: %w", ErrCopyNotRecorded, err)
		}
		if perr == nil {
			d.Receipt.Reprint++
		}
	}
	return perr
}

// png draws d as an 80 mm PNG, the window's preview.
func (t *Till) png(d *Document) ([]byte, error) {
	rd, err := t.renderer()
	if err != nil {
		return nil, err
	}
	var b bytes.Buffer
	if err := rd.PNG(&b, d.Receipt, 80); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

// Receipt renders an order's receipt as a PNG image.
func (t *Till) Receipt(ctx context.Context, orderID string) ([]byte, error) {
	d, err := t.ReceiptDocument(ctx, orderID, -1)
	if err != nil {
		return nil, err
	}
	return t.png(d)
}

// Print prints an order's receipt; every copy after the first says DUPLICATE
// (the journal decides, whatever reprint says).
func (t *Till) Print(ctx context.Context, orderID string, _ bool) error {
	d, err := t.ReceiptDocument(ctx, orderID, -1)
	if err != nil {
		return err
	}
	return t.PrintDocument(ctx, d)
}

// RefundReceipt renders the receipt of an order's latest done refund as a PNG
// image.
func (t *Till) RefundReceipt(ctx context.Context, orderID string) ([]byte, error) {
	d, err := t.refundDocument(ctx, orderID)
	if err != nil {
		return nil, err
	}
	return t.png(d)
}

// refundDocument is the receipt of an order's latest done refund.
func (t *Till) refundDocument(ctx context.Context, orderID string) (*Document, error) {
	o, err := t.eng.Order(ctx, orderID)
	if err != nil {
		return nil, err
	}
	if _, ok := DoneRefund(*o, 0); !ok {
		return nil, Errorf("Order %s has no done refund, so there is no refund receipt.", o.ID)
	}
	return t.ReceiptDocument(ctx, orderID, 0)
}

// PrintRefund prints the receipt of an order's latest done refund; every copy
// after the first is a reprint.
func (t *Till) PrintRefund(ctx context.Context, orderID string) error {
	d, err := t.refundDocument(ctx, orderID)
	if err != nil {
		return err
	}
	return t.PrintDocument(ctx, d)
}

// dayReport is day's report document.
func (t *Till) dayReport(ctx context.Context, day time.Time) (*Document, error) {
	rep, err := t.eng.Report(ctx, ToDay(day))
	if err != nil {
		return nil, err
	}
	return t.ReportDocument(ctx, rep)
}

// ReportReceipt renders day's report as the printed slip, a PNG image: the X
// report, or the sealed Z report once the day is closed.
func (t *Till) ReportReceipt(ctx context.Context, day time.Time) ([]byte, error) {
	d, err := t.dayReport(ctx, day)
	if err != nil {
		return nil, err
	}
	return t.png(d)
}

// PrintReport prints day's report (X, or Z once closed) on the receipt printer.
func (t *Till) PrintReport(ctx context.Context, day time.Time) error {
	d, err := t.dayReport(ctx, day)
	if err != nil {
		return err
	}
	return t.PrintDocument(ctx, d)
}

// PrintZ prints the Z report just taken on the configured printer, if there is
// one, and returns the sentence to say: where it printed, or why it did not and how
// to print it again. It returns "" when no printer is configured.
func (t *Till) PrintZ(ctx context.Context, rep *Report) string {
	again := fmt.Sprintf("print it again with \"galla report --day %s --print\"", rep.Day)
	d, err := t.ReportDocument(ctx, rep)
	if err != nil {
		return fmt.Sprintf("The Z report was not printed: %s The day is closed all the same — %s.", Sentence(err), again)
	}
	if !d.HavePrinter {
		return ""
	}
	switch err := t.PrintDocument(ctx, d); {
	case errors.Is(err, ErrDocumentDraw):
		return fmt.Sprintf("The Z report was not printed: it cannot be drawn for the printer (%v); the day is closed all the same — %s.", ErrDetail(err, ErrDocumentDraw), again)
	case err != nil:
		return fmt.Sprintf("The Z report was not printed (%s); the day is closed all the same — %s.", PrinterProblem(err), again)
	}
	return fmt.Sprintf("Z report no. %d printed on %s.", rep.ZNo, d.Profile.Address)
}

// PrinterProblem says what is wrong with the printer without the receipt advice
// of receipts.PrinterError's sentence.
func PrinterProblem(err error) string {
	var pe *receipts.PrinterError
	if !errors.As(err, &pe) {
		return err.Error()
	}
	who := "printer " + pe.Name
	if pe.Transport == receipts.TransportTCP {
		who = "the printer at " + pe.Name
	}
	if pe.Offline {
		return who + " is offline: out of paper or its cover is open"
	}
	return who + " is not answering"
}

// TestPrint prints a test page on the configured printer.
func (t *Till) TestPrint(ctx context.Context) error {
	prof, ok, err := LoadPrinter(ctx, t.j)
	if err != nil {
		return err
	}
	if !ok {
		return ErrNoPrinter
	}
	shop, err := LoadShop(ctx, t.j)
	if err != nil {
		return err
	}
	r := receipts.Receipt{Kind: receipts.KindSale, Shop: receipts.Shop{Name: shop.Name, Address: shop.Address, GSTIN: shop.GSTIN},
		Terminal: t.cfg.Terminal, Time: t.eng.Now(), Footer: []string{"Test page: the printer works."}, Sandbox: !t.live}
	return t.PrintDocument(ctx, &Document{Receipt: r, Profile: prof, HavePrinter: true, Noun: "test page"})
}
