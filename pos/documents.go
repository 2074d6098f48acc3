package pos

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
	"time"

	"galla/pos/gstr"
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

// Documents are the counter's papers and what is decided about them: the
// receipts of sales, refunds and credit notes, and the X and Z report slips,
// drawn in each format or printed on the receipt printer, each copy after the
// first a journaled reprint; and the exports an accountant takes (GSTR-1 and the
// CSV of lines). One of them is a Document.
type Documents struct{ *core }

// printer is the configured printer profile; a missing one is the 80 mm default.
func (ds *Documents) printerProfile(ctx context.Context) (receipts.Profile, bool, error) {
	prof, ok, err := LoadPrinter(ctx, ds.j)
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
func (ds *Documents) ReceiptDocument(ctx context.Context, orderID string, refund int) (*Document, error) {
	o, err := ds.eng.Order(ctx, orderID)
	if err != nil {
		return nil, err
	}
	if !o.State.Paid() && (o.State != StateReturn || refund < 0) { // a return order has its credit notes only
		return nil, Errorf("Order %s is %s, not paid, so it has no receipt; run \"galla reconcile\" if its outcome is unknown.", o.ID, o.State)
	}
	prof, ok, err := ds.printerProfile(ctx)
	if err != nil {
		return nil, Errorf("The printer settings cannot be read (%v); set the receipt printer again.", err)
	}
	d := &Document{Profile: prof, HavePrinter: ok, Noun: "receipt", orderID: o.ID}
	opt := ReceiptOptions{Terminal: ds.cfg.Terminal, QRKey: ds.cfg.QRKey, Reprint: NextReprint(*o), Sandbox: !ds.live}
	if refund < 0 {
		shop, err := ds.shopAt(ctx, saleTime(*o))
		if err != nil {
			return nil, err
		}
		sale, err := ds.eng.Sales.saleOf(ctx, o)
		if err != nil {
			return nil, err
		}
		opt.Tenders = sale.paidTenders()
		d.Receipt = ReceiptFor(*o, shop, opt)
		ds.einv.stamp(ctx, o, &d.Receipt)
		return d, nil
	}
	ref, found := DoneRefund(*o, refund)
	if !found {
		if refund == 0 {
			return nil, wrapf(ErrNoSuchRefund, "Order %s has no done refund, so there is no refund receipt; refund it with \"galla refund %s\".", o.ID, o.ID)
		}
		return nil, wrapf(ErrNoSuchRefund, "Order %s has no refund no. %d; leave the number out for its latest refund.", o.ID, refund)
	}
	shop, err := ds.shopAt(ctx, ref.Time)
	if err != nil {
		return nil, err
	}
	opt.Reprint, opt.Cashier = NextRefundReprint(ref), ds.staffName(ctx, ref.Staff)
	if ref.Tender != "" { // a split sale's refund to a card: the tender it went back to
		via, err := ds.eng.Sales.tenderOrder(ctx, ref.Tender)
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
	ds.einv.stamp(ctx, o, &d.Receipt)
	d.refundID = ref.UniqueTxnID
	return d, nil
}

// shopAt is the shop as a document issued at t prints it (ShopAt): every copy of
// a document, the first and each DUPLICATE, names the shop as it was registered
// when the document was issued.
func (ds *Documents) shopAt(ctx context.Context, t time.Time) (Shop, error) {
	shop, err := ShopAt(ctx, ds.j, t)
	if err != nil {
		return shop, Errorf("The shop's settings cannot be read (%v); set the shop's name, address and GSTIN again.", err)
	}
	return shop, nil
}

// ReportDocument is day's report slip (DayLayout): the X report, or the sealed Z
// report once the day is closed.
func (ds *Documents) ReportDocument(ctx context.Context, rep *Report) (*Document, error) {
	shops, err := LoadShops(ctx, ds.j)
	if err != nil {
		return nil, Errorf("The shop's settings cannot be read (%v); set the shop's name, address and GSTIN again.", err)
	}
	shop := reportShop(shops, rep.Day, ds.eng.Now().Location())
	prof, ok, err := ds.printerProfile(ctx)
	if err != nil {
		return nil, Errorf("The printer settings cannot be read (%v); set the receipt printer again.", err)
	}
	r := ReportReceipt(*rep, shop, ReceiptOptions{Terminal: ds.cfg.Terminal, Sandbox: !ds.live})
	return &Document{Receipt: r, Profile: prof, HavePrinter: ok, Noun: rep.Kind + " report"}, nil
}

// reportShop is the shop a report of day names: as registered at the end of
// the day, or, when the shop stated tax only for part of it (its registration
// changed that day), as registered when it last did, so that the slip prints
// the GST rows of the documents that stated tax (ShopReportAt).
func reportShop(shops Shops, day string, loc *time.Location) Shop {
	start, err := time.ParseInLocation(DayLayout, day, loc)
	if err != nil {
		return shops.Today
	}
	during := shops.During(start, start.AddDate(0, 0, 1).Add(-time.Nanosecond))
	shop := during[len(during)-1]
	for _, s := range during {
		if s.Registration().ShowsTax() {
			shop = s
		}
	}
	return shop
}

// Render draws d in format: text, escpos, png (58 or 80 mm, as the printer) or
// pdf.
func (ds *Documents) Render(w io.Writer, d *Document, format string) error {
	var err error
	switch format {
	case "escpos":
		err = receipts.ESCPOS(w, d.Receipt, d.Profile)
	case "png", "pdf":
		var rd *receipts.Renderer
		if rd, err = ds.renderer(); err != nil {
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

func (ds *Documents) renderer() (*receipts.Renderer, error) {
	ds.mu.Lock()
	defer ds.mu.Unlock()
	if ds.rd == nil {
		rd, err := receipts.NewRenderer()
		if err != nil {
			return nil, err
		}
		ds.rd = rd
	}
	return ds.rd, nil
}

// RecordCopy journals one copy of a receipt written to where ("stdout",
// "file:PATH") in format, and makes the next copy a reprint. Only a printer's job
// (escpos) is a paper copy: text, a PNG or a PDF to look at or send is a view and
// leaves the original to be printed. Reports are not journaled.
func (ds *Documents) RecordCopy(ctx context.Context, d *Document, where, format string) error {
	if !d.Journaled() || format != "escpos" {
		return nil
	}
	ev := PrintEvent{Printer: where, Format: format, Refund: d.refundID}
	if err := ds.eng.Ledger.RecordPrint(ctx, d.orderID, d.Receipt.Reprint > 0, ev, nil); err != nil {
		return fmt.Errorf("%w: %w", ErrCopyNotRecorded, err)
	}
	d.Receipt.Reprint++
	return nil
}

// PrintDocument prints d on the receipt printer as ESC/POS and journals the copy,
// or the failed print: the sale stands either way. The printer's own failure is
// returned as it is (a *receipts.PrinterError whose text the cashier reads).
func (ds *Documents) PrintDocument(ctx context.Context, d *Document) error {
	if !d.HavePrinter {
		return ErrNoPrinter
	}
	var job bytes.Buffer
	if err := receipts.ESCPOS(&job, d.Receipt, d.Profile); err != nil {
		return fmt.Errorf("%w: %w", ErrDocumentDraw, err)
	}
	pr, err := ds.prn(d.Profile)
	if err != nil {
		return fmt.Errorf("%w: %w", ErrPrinterSettings, err)
	}
	perr := pr.Print(ctx, job.Bytes())
	if d.Journaled() {
		ev := PrintEvent{Printer: string(d.Profile.Transport) + ":" + d.Profile.Address, Format: "escpos", Refund: d.refundID}
		if err := ds.eng.Ledger.RecordPrint(ctx, d.orderID, d.Receipt.Reprint > 0, ev, perr); err != nil && perr == nil {
			return fmt.Errorf("%w: %w", ErrCopyNotRecorded, err)
		}
		if perr == nil {
			d.Receipt.Reprint++
		}
	}
	return perr
}

// png draws d as an 80 mm PNG, the window's preview.
func (ds *Documents) png(d *Document) ([]byte, error) {
	rd, err := ds.renderer()
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
func (ds *Documents) Receipt(ctx context.Context, orderID string) ([]byte, error) {
	d, err := ds.ReceiptDocument(ctx, orderID, -1)
	if err != nil {
		return nil, err
	}
	return ds.png(d)
}

// Print prints an order's receipt; every copy after the first says DUPLICATE
// (the journal decides, whatever reprint says).
func (ds *Documents) Print(ctx context.Context, orderID string, _ bool) error {
	d, err := ds.ReceiptDocument(ctx, orderID, -1)
	if err != nil {
		return err
	}
	return ds.PrintDocument(ctx, d)
}

// RefundReceipt renders the receipt of an order's latest done refund as a PNG
// image.
func (ds *Documents) RefundReceipt(ctx context.Context, orderID string) ([]byte, error) {
	d, err := ds.refundDocument(ctx, orderID)
	if err != nil {
		return nil, err
	}
	return ds.png(d)
}

// refundDocument is the receipt of an order's latest done refund.
func (ds *Documents) refundDocument(ctx context.Context, orderID string) (*Document, error) {
	o, err := ds.eng.Order(ctx, orderID)
	if err != nil {
		return nil, err
	}
	if _, ok := DoneRefund(*o, 0); !ok {
		return nil, Errorf("Order %s has no done refund, so there is no refund receipt.", o.ID)
	}
	return ds.ReceiptDocument(ctx, orderID, 0)
}

// PrintRefund prints the receipt of an order's latest done refund; every copy
// after the first is a reprint.
func (ds *Documents) PrintRefund(ctx context.Context, orderID string) error {
	d, err := ds.refundDocument(ctx, orderID)
	if err != nil {
		return err
	}
	return ds.PrintDocument(ctx, d)
}

// dayReport is day's report document.
func (ds *Documents) dayReport(ctx context.Context, day time.Time) (*Document, error) {
	rep, err := ds.eng.Ledger.Report(ctx, ToDay(day))
	if err != nil {
		return nil, err
	}
	return ds.ReportDocument(ctx, rep)
}

// ReportReceipt renders day's report as the printed slip, a PNG image: the X
// report, or the sealed Z report once the day is closed.
func (ds *Documents) ReportReceipt(ctx context.Context, day time.Time) ([]byte, error) {
	d, err := ds.dayReport(ctx, day)
	if err != nil {
		return nil, err
	}
	return ds.png(d)
}

// PrintReport prints day's report (X, or Z once closed) on the receipt printer.
func (ds *Documents) PrintReport(ctx context.Context, day time.Time) error {
	d, err := ds.dayReport(ctx, day)
	if err != nil {
		return err
	}
	return ds.PrintDocument(ctx, d)
}

// PrintZ prints the Z report just taken on the configured printer, if there is
// one, and returns the sentence to say: where it printed, or why it did not and how
// to print it again. It returns "" when no printer is configured.
func (ds *Documents) PrintZ(ctx context.Context, rep *Report) string {
	again := fmt.Sprintf("print it again with \"galla report --day %s --print\"", rep.Day)
	d, err := ds.ReportDocument(ctx, rep)
	if err != nil {
		return fmt.Sprintf("The Z report was not printed: %s The day is closed all the same — %s.", Sentence(err), again)
	}
	if !d.HavePrinter {
		return ""
	}
	switch err := ds.PrintDocument(ctx, d); {
	case errors.Is(err, ErrDocumentDraw):
		return fmt.Sprintf("The Z report was not printed: it cannot be drawn for the printer (%v); the day is closed all the same — %s.", ErrDetail(err, ErrDocumentDraw), again)
	case err != nil:
		return fmt.Sprintf("The Z report was not printed (%s); the day is closed all the same — %s.", PrinterProblem(err), again)
	}
	return fmt.Sprintf("Z report no. %d printed on %s.", rep.ZNo, d.Profile.Address)
}

// TestPrint prints a test page on the configured printer.
func (ds *Documents) TestPrint(ctx context.Context) error {
	prof, ok, err := LoadPrinter(ctx, ds.j)
	if err != nil {
		return err
	}
	if !ok {
		return ErrNoPrinter
	}
	shop, err := LoadShop(ctx, ds.j)
	if err != nil {
		return err
	}
	r := receipts.Receipt{Kind: receipts.KindTestPage, Shop: receipts.Shop{Name: shop.Name, Address: shop.Address, GSTIN: shop.GSTIN},
		Terminal: ds.cfg.Terminal, Time: ds.eng.Now(), Footer: []string{"Test page: the printer works."}, Sandbox: !ds.live}
	return ds.PrintDocument(ctx, &Document{Receipt: r, Profile: prof, HavePrinter: true, Noun: "test page"})
}

// ExportDocuments returns the documents issued on the days from to to (both
// included, local days): a tax invoice for every paid sale confirmed on one of
// those days and a credit note for every refund done on one of them, by date and
// number. Each document is as the shop was registered on its date
// (GSTRDocumentsAt).
func (ds *Documents) ExportDocuments(ctx context.Context, from, to time.Time) ([]gstr.Document, error) {
	first, last := ToDay(from), ToDay(to)
	if first > last {
		return nil, ErrExportRange
	}
	shops, err := LoadShops(ctx, ds.j)
	if err != nil {
		return nil, err
	}
	loc := ds.eng.Now().Location()
	names := map[string]string{}
	name := func(id string) string {
		if id == "" {
			return ""
		}
		if n, ok := names[id]; ok {
			return n
		}
		n := ds.staffName(ctx, id)
		names[id] = n
		return n
	}
	seen := map[string]bool{}
	var docs []gstr.Document
	start, err := time.ParseInLocation(DayLayout, first, loc)
	if err != nil {
		return nil, fmt.Errorf("pos: export: %w", err)
	}
	if start.AddDate(0, 0, MaxExportDays-1).Format(DayLayout) < last {
		return nil, ErrExportTooLong
	}
	for d := start; ToDay(d) <= last; d = d.AddDate(0, 0, 1) {
		orders, err := ds.j.OrdersByDay(ctx, ToDay(d))
		if err != nil {
			return nil, fmt.Errorf("pos: export %s: %w", ToDay(d), err)
		}
		for _, o := range orders {
			if seen[o.ID] {
				continue
			}
			seen[o.ID] = true
			for _, doc := range GSTRDocumentsAt(*o, shops, ds.cfg.Terminal, loc, name) {
				if day := ToDay(doc.Date); day >= first && day <= last {
					docs = append(docs, doc)
				}
			}
		}
	}
	sortDocuments(docs)
	return docs, nil
}

// GSTR1 builds the GSTR-1 of month from the journal, under the shop's GSTIN. It
// is refused while the shop has no GSTIN (its documents are receipts, not tax
// invoices) and for a composition-scheme shop (which files GSTR-4, not GSTR-1).
func (ds *Documents) GSTR1(ctx context.Context, month gstr.Month) (*gstr.Return, error) {
	return ds.GSTR1Period(ctx, gstr.MonthPeriod(month), "", false)
}

// WriteLinesCSV writes one row per line sold or returned on the days from to to
// (gstr.WriteCSV), for the accountant: the rows of ExportDocuments, in its order,
// written a day at a time (ExportDays), so that its memory is one day's
// documents whatever the length of the period or of the journal.
func (ds *Documents) WriteLinesCSV(ctx context.Context, from, to time.Time, w io.Writer) error {
	var cw *gstr.CSVWriter
	err := ds.ExportDays(ctx, from, to, func(docs []gstr.Document) error {
		if cw == nil {
			cw = gstr.NewCSVWriter(w)
		}
		cw.Write(docs...)
		return cw.Flush()
	})
	if err != nil {
		return err
	}
	if cw == nil {
		cw = gstr.NewCSVWriter(w)
	}
	return cw.Close()
}

// ExportDays calls fn with the documents of ExportDocuments one day at a time,
// day by day from from to to, each day's by date and number (fn is called for
// every day, with none on a day with none): the same documents in the same order,
// with one day's in memory. A document is dated on a day on which its order has
// an event (its payment, its refund), and the journal lists an order under every
// such day (Journal.OrdersByDay), so the documents of a day are those of the
// orders listed under it that are dated on it: a credit note issued days after
// its invoice comes with the orders of its own day, and a cancelled invoice with
// those of its sale. fn's slice is reused for the next day.
func (ds *Documents) ExportDays(ctx context.Context, from, to time.Time, fn func(docs []gstr.Document) error) error {
	first, last := ToDay(from), ToDay(to)
	if first > last {
		return ErrExportRange
	}
	shops, err := LoadShops(ctx, ds.j)
	if err != nil {
		return err
	}
	loc := ds.eng.Now().Location()
	start, err := time.ParseInLocation(DayLayout, first, loc)
	if err != nil {
		return fmt.Errorf("pos: export: %w", err)
	}
	if start.AddDate(0, 0, MaxExportDays-1).Format(DayLayout) < last {
		return ErrExportTooLong
	}
	names := map[string]string{} // one per member of staff, not per day
	name := func(id string) string {
		if id == "" {
			return ""
		}
		if n, ok := names[id]; ok {
			return n
		}
		n := ds.staffName(ctx, id)
		names[id] = n
		return n
	}
	var docs []gstr.Document
	for d := start; ToDay(d) <= last; d = d.AddDate(0, 0, 1) {
		day := ToDay(d)
		orders, err := ds.j.OrdersByDay(ctx, day)
		if err != nil {
			return fmt.Errorf("pos: export %s: %w", day, err)
		}
		clear(docs)
		docs = docs[:0]
		for _, o := range orders {
			for _, doc := range GSTRDocumentsAt(*o, shops, ds.cfg.Terminal, loc, name) {
				if ToDay(doc.Date) == day {
					docs = append(docs, doc)
				}
			}
		}
		sortDocuments(docs)
		if err := fn(docs); err != nil {
			return err
		}
	}
	return nil
}

// sortDocuments sorts docs by date and number, keeping the order of equals.
func sortDocuments(docs []gstr.Document) {
	slices.SortStableFunc(docs, func(a, b gstr.Document) int {
		if c := a.Date.Compare(b.Date); c != 0 {
			return c
		}
		return strings.Compare(a.Number, b.Number)
	})
}
