package ui

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/widget"

	"galla/pos"
)

// journalScreen is screen 9 (managers): the day's orders filtered by status and
// tender, an order's event history, refund, reprint, the X report, day close and the
// CSV export. Scanning a receipt's QR code into the field opens its order.
type journalScreen struct {
	u       *UI
	day     time.Time
	orders  []OrderSummary
	visible []OrderSummary
	events  []OrderEvent
	hit     int

	root     fyne.CanvasObject
	title    *widget.Label
	scan     *keyEntry
	pick     string // the order to choose once the day is loaded (serial.go)
	status   *widget.Select
	tender   *widget.Select
	list     *widget.List
	history  *widget.List
	detail   *widget.Label
	message  *widget.Label
	refund   *action
	returnA  *action // the Returns screen (returns.go)
	cancelA  *action // cancel the chosen sale's invoice (cancel.go)
	openA    *action // continue the chosen open sale (a split sale left part paid)
	reprint  *action
	xReport  *action
	closeDay *action
	export   *action
	prevDay  *action
	nextDay  *action
	stateF   *action
	tenderF  *action
	checkA   *action
	back     *action
	report   *widget.Label // the last report shown
}

func newJournalScreen(u *UI) *journalScreen {
	s := &journalScreen{u: u}
	s.title = heading("Journal")
	s.scan = newKeyEntry(u)
	s.scan.SetPlaceHolder("Scan a receipt, or type an invoice or note number, IMEI, mobile or card's last four")
	s.scan.OnSubmitted = s.find
	s.scan.onKey = func(k *fyne.KeyEvent) bool {
		switch k.Name {
		case fyne.KeyUp:
			s.move(-1)
		case fyne.KeyDown:
			s.move(1)
		default:
			return false
		}
		return true
	}
	s.status = widget.NewSelect([]string{"All", string(pos.StatePaid), string(pos.StateFailed), string(pos.StateUnknown),
		string(pos.StateAuthenticating), string(pos.StatePartlyRefunded), string(pos.StateRefunded), string(pos.StateAbandoned), string(pos.StatusCancelled),
		string(pos.StateOpen)}, func(string) { s.apply() })
	s.tender = widget.NewSelect([]string{"All", string(pos.TenderCard), string(pos.TenderEMI), string(pos.TenderCash), string(pos.TenderPhone),
		string(pos.TenderUPI), string(pos.TenderNote), string(pos.TenderSplit)}, func(string) { s.apply() })
	s.list = widget.NewList(
		func() int { return len(s.visible) },
		func() fyne.CanvasObject {
			return journalRow("00:00", "ORDER-ID", "PARTLY_REFUNDED", "emi", "₹1,00,000.00", "cashier name")
		},
		func(i widget.ListItemID, o fyne.CanvasObject) {
			r := s.visible[i]
			if s.tenderRow(i) {
				// A tender of the sale above: beneath it, indented, by its kind.
				setRow(o, "", tenderIndent+strings.TrimSpace(tenderName(r.Tender)+" "+r.Detail), string(r.State), string(r.Tender), r.Amount.String(), "")
				return
			}
			doc := r.ReceiptNo // the invoice's number, or the order's id before it has one
			if doc == "" {
				doc = r.OrderID
			}
			setRow(o, r.At.Format("15:04"), doc, string(r.State), string(r.Tender), r.Amount.String(), r.Cashier)
		})
	s.list.OnSelected = func(i widget.ListItemID) {
		s.hit = i
		s.openOrder(s.visible[i].OrderID)
		u.win.Canvas().Focus(s.scan)
	}
	s.status.SetSelectedIndex(0)
	s.tender.SetSelectedIndex(0)
	s.history = widget.NewList(
		func() int { return len(s.events) },
		func() fyne.CanvasObject {
			text := widget.NewLabel("Verified answer")
			text.Truncation = fyne.TextTruncateEllipsis // a long sentence ends in … rather than widen the screen
			return container.NewBorder(nil, nil, widget.NewLabel("00:00:00"), nil, text)
		},
		func(i widget.ListItemID, o fyne.CanvasObject) {
			e := s.events[i]
			c := o.(*fyne.Container)
			c.Objects[0].(*widget.Label).SetText(e.Detail) // pos says it in words
			c.Objects[1].(*widget.Label).SetText(e.At.Format("15:04:05"))
		})
	s.detail = widget.NewLabel("")
	s.detail.Wrapping = fyne.TextWrapWord
	s.message = widget.NewLabel("")
	s.message.Wrapping = fyne.TextWrapWord
	s.refund = u.newAction("Refund", fyne.KeyF5, 0, s.askRefund)
	s.returnA = u.newAction("Return goods", fyne.KeyU, fyne.KeyModifierControl, s.openReturns)
	s.cancelA = u.newAction("Cancel invoice", fyne.KeyD, fyne.KeyModifierControl, func() {
		if !s.saidOpen() {
			s.askCancel()
		}
	})
	s.openA = u.newAction("Continue sale", fyne.KeyF1, 0, s.continueSale)
	s.reprint = u.newAction("Reprint", fyne.KeyF6, 0, s.reprintOrder)
	s.xReport = u.newAction("X report", fyne.KeyF7, 0, s.showX)
	s.closeDay = u.newAction("Close day", fyne.KeyF8, 0, s.askClose)
	s.export = u.newAction("Export CSV", fyne.KeyS, fyne.KeyModifierControl, s.askExport)
	s.prevDay = u.newAction("Previous day", fyne.KeyF3, 0, func() { s.load(s.day.AddDate(0, 0, -1)) })
	s.nextDay = u.newAction("Next day", fyne.KeyF4, 0, func() { s.load(s.day.AddDate(0, 0, 1)) })
	s.back = u.newAction("Back", fyne.KeyEscape, 0, func() { u.goTo(u.sale) })
	s.checkA = u.newAction("Check now", fyne.KeyK, fyne.KeyModifierControl, s.check)
	s.report = widget.NewLabel("")

	s.stateF = u.newAction("State", fyne.KeyF, fyne.KeyModifierControl, func() { cycle(s.status) })
	s.tenderF = u.newAction("Tender", fyne.KeyR, fyne.KeyModifierControl, func() { cycle(s.tender) })
	filters := container.NewGridWithColumns(2,
		container.NewGridWithColumns(2, s.prevDay.btn, s.nextDay.btn),
		container.NewGridWithColumns(2,
			container.NewBorder(nil, nil, widget.NewLabel("[Ctrl+F]"), nil, s.status),
			container.NewBorder(nil, nil, widget.NewLabel("[Ctrl+R]"), nil, s.tender)))
	header := journalRow("Time", "Document or order", "State", "Tender", "Amount", "Cashier")
	left := container.NewBorder(container.NewVBox(s.title, s.scan, filters, header), nil, nil, nil, s.list)
	right := container.NewBorder(container.NewVBox(heading("Order history"), s.detail), s.message, nil, nil, s.history)
	buttons := container.NewGridWithColumns(5, s.back.btn, s.refund.btn, s.returnA.btn, s.cancelA.btn, s.reprint.btn, s.openA.btn, s.checkA.btn, s.xReport.btn, s.closeDay.btn, s.export.btn)
	s.root = container.NewPadded(container.NewBorder(nil, buttons, nil, nil, container.New(&ratioLayout{ratio: 0.58}, left, right)))
	return s
}

func (s *journalScreen) view() fyne.CanvasObject { return s.root }

func (s *journalScreen) actions() []*action {
	return []*action{s.refund, s.returnA, s.cancelA, s.reprint, s.openA, s.checkA, s.xReport, s.closeDay, s.export, s.prevDay, s.nextDay, s.stateF, s.tenderF, s.back}
}

func (s *journalScreen) shown() { s.u.win.Canvas().Focus(s.scan) }

// journalRow is one row of the orders table.
func journalRow(cells ...string) fyne.CanvasObject {
	row := tableRow([]float32{0.8, 3.6, 2, 1, 1.6, 1.2}, 4, cells...)
	row.(*fyne.Container).Objects[1].(*widget.Label).Truncation = fyne.TextTruncateOff // order ids are read whole
	return row
}

// open shows the journal of the day shown last (today the first time), reread.
func (s *journalScreen) open() {
	day := s.day
	if day.IsZero() {
		day = s.u.till.Books.BusinessDate() // today's date, after a Z too (ADR 0010)
	}
	s.u.goTo(s)
	s.load(day)
}

// load reads day's orders.
func (s *journalScreen) load(day time.Time) {
	s.day = day
	s.title.SetText("Journal of " + day.Format("Mon 2 Jan 2006"))
	s.u.async(func(ctx context.Context) func() {
		orders, err := s.u.till.Books.Orders(ctx, day)
		return func() {
			if !s.day.Equal(day) {
				return
			}
			if err != nil {
				s.message.SetText(sentence(err))
				return
			}
			s.orders = orders
			sales := 0
			for _, o := range orders {
				if o.Sale == "" {
					sales++
				}
			}
			s.title.SetText("Journal of " + day.Format("Mon 2 Jan 2006") + ": " + plural(sales, "sale"))
			s.apply()
		}
	})
}

// apply filters the orders by state and tender.
func (s *journalScreen) apply() {
	st, td := s.status.Selected, s.tender.Selected
	keep := ""
	if s.hit >= 0 && s.hit < len(s.visible) {
		keep = s.visible[s.hit].OrderID
	}
	if s.pick != "" {
		keep, s.pick = s.pick, "" // the sale an IMEI search found
	}
	// A sale is listed when it or one of its tenders passes the filters, with
	// all its tenders beneath it.
	match := func(o OrderSummary) bool {
		return (s.status.SelectedIndex() <= 0 || string(o.State) == st) &&
			(s.tender.SelectedIndex() <= 0 || string(o.Tender) == td)
	}
	keepSale := map[string]bool{}
	for _, o := range s.orders {
		if match(o) {
			keepSale[saleOf(o)] = true
		}
	}
	s.visible = s.visible[:0]
	for _, o := range s.orders {
		if keepSale[saleOf(o)] {
			s.visible = append(s.visible, o)
		}
	}
	s.unselect()
	s.list.Refresh()
	for i, o := range s.visible {
		if o.OrderID == keep {
			s.list.Select(i) // keeps the order chosen across a reload
		}
	}
}

// tenderIndent starts a tender's row beneath its sale (a glyph every counter
// font has).
const tenderIndent = "      · "

// saleOf is the sale a journal row belongs to: its own id, or for a tender of
// a split sale that sale's.
func saleOf(o OrderSummary) string {
	if o.Sale != "" {
		return o.Sale
	}
	return o.OrderID
}

// tenderRow reports whether visible row i is a tender listed beneath its sale.
func (s *journalScreen) tenderRow(i int) bool {
	r := s.visible[i]
	if r.Sale == "" {
		return false
	}
	for j := i - 1; j >= 0; j-- {
		if s.visible[j].OrderID == r.Sale {
			return true
		}
		if s.visible[j].Sale != r.Sale {
			return false
		}
	}
	return false
}

// unselect leaves no order chosen: F5 and F6 act on none until one is.
func (s *journalScreen) unselect() {
	s.list.UnselectAll()
	s.hit = -1
	s.events = nil
	if s.detail != nil { // the filters apply once while the screen is built
		s.detail.SetText("")
		s.history.Refresh()
	}
}

func (s *journalScreen) move(d int) {
	if len(s.visible) == 0 {
		return
	}
	s.hit = max(0, min(s.hit+d, len(s.visible)-1))
	s.list.Select(s.hit)
	s.list.ScrollTo(s.hit)
}

// find opens the order of a scanned receipt QR code or a typed order id; any
// other text is looked up in the journal (findSales).
func (s *journalScreen) find(text string) {
	text = strings.TrimSpace(text)
	s.scan.SetText("")
	if text == "" {
		return
	}
	id := text
	if got, err := s.u.till.Books.OrderFromQR(text); err == nil {
		id = got
	} else if strings.Contains(text, "{") {
		s.message.SetText(sentence(err)) // a QR code's JSON, not this terminal's
		return
	}
	for i, o := range s.visible {
		if o.OrderID == id {
			s.list.Select(i)
			s.list.ScrollTo(i)
			return
		}
	}
	s.findSales(text)
}

// findSales looks text up in the whole journal (a document number, an IMEI, a
// customer's mobile, a card's last four) and shows the newest sale found on its
// day, chosen.
func (s *journalScreen) findSales(text string) {
	s.unselect() // nothing stays chosen meanwhile, so no key acts on the order chosen before
	s.message.SetText("Looking for “" + text + "”…")
	s.u.async(func(ctx context.Context) func() {
		found, err := s.u.till.Books.FindSales(ctx, text)
		return func() {
			switch {
			case err != nil:
				s.message.SetText(sentence(err))
			case len(found) == 0:
				s.message.SetText("No sale in the journal matches “" + text + "”: type an invoice or credit note number (T1/2627/000012, 2627/000012 or 12), an IMEI, the customer's mobile or the card's last four digits.")
			default:
				o := found[0]
				doc := o.ReceiptNo
				if doc == "" {
					doc = o.OrderID
				}
				what := "Found " + doc + " of"
				if pos.CheckIMEI(text) == nil {
					what = "This IMEI was sold on"
				}
				s.message.SetText(fmt.Sprintf("%s %s (%s, %s)%s.", what, o.At.Format("2 Jan 2006 15:04"), o.State, o.Amount, moreSales(len(found))))
				day := o.At
				if d, err := time.ParseInLocation(pos.DayLayout, o.Day, o.At.Location()); err == nil {
					day = d.Add(12 * time.Hour) // the business day it is listed under
				}
				s.pick = o.OrderID
				s.load(day)
			}
		}
	})
}

// selectedOrder is the order whose history is shown.
func (s *journalScreen) selectedOrder() (OrderSummary, bool) {
	if s.hit >= 0 && s.hit < len(s.visible) {
		return s.visible[s.hit], true
	}
	s.message.SetText("Choose an order first (Up and Down, or scan its receipt).")
	return OrderSummary{}, false
}

// openOrder shows an order's event history.
func (s *journalScreen) openOrder(id string) {
	s.detail.SetText("Order " + id)
	for _, o := range s.orders {
		if o.OrderID == id {
			s.detail.SetText("Order " + id + ": " + string(o.State) + ", " + o.Amount.String() + " by " + string(o.Tender) +
				strings.TrimRight(", "+o.Detail, ", ") + refundedText(o) + openText(o))
		}
	}
	s.u.async(func(ctx context.Context) func() {
		evs, err := s.u.till.Books.History(ctx, id)
		return func() {
			if err != nil {
				s.message.SetText(sentence(err))
				return
			}
			s.events = evs
			s.history.Refresh()
		}
	})
}

// openSale reports whether o is a split sale left open: part paid, or not
// paid at all, with no invoice yet.
func openSale(o OrderSummary) bool {
	return o.State == pos.StateOpen // only a split sale is ever OPEN
}

func openText(o OrderSummary) string {
	if openSale(o) {
		return "; open: F1 continues it, to take its other tenders or void it"
	}
	return ""
}

// saidOpen says, when the chosen order is an open sale, that it has no invoice
// to refund or cancel yet and that F1 continues it.
func (s *journalScreen) saidOpen() bool {
	if s.hit < 0 || s.hit >= len(s.visible) || !openSale(s.visible[s.hit]) {
		return false
	}
	s.message.SetText("Sale " + s.visible[s.hit].OrderID + " is open: it has no invoice yet. F1 continues it, to take its other tenders or void it.")
	return true
}

// continueSale opens the chosen open sale on the split-tender screen.
func (s *journalScreen) continueSale() {
	o, ok := s.selectedOrder()
	if !ok {
		return
	}
	if !openSale(o) {
		s.message.SetText("Order " + o.OrderID + " is not an open sale: F1 continues a split sale left part paid (state OPEN).")
		return
	}
	s.u.tender.openID(o.OrderID)
}

func refundedText(o OrderSummary) string {
	if o.Refunded > 0 {
		return "; refunded " + o.Refunded.String()
	}
	return ""
}

func (s *journalScreen) askRefund() {
	o, ok := s.selectedOrder()
	if !ok || s.saidOpen() {
		return
	}
	if o.NoRefund != "" {
		s.message.SetText(o.NoRefund)
		return
	}
	left, least := o.Refundable, o.MinRefund
	amount := newKeyEntry(s.u)
	amount.SetText(left.Plain())
	pin := newKeyEntry(s.u)
	pin.Password = true
	pin.SetPlaceHolder("Manager PIN")
	if me := s.u.user; !me.Manager() && me.Limits != nil {
		pin.SetPlaceHolder("Your PIN (refunds up to " + me.Limits.Refund.String() + ") or a manager's")
	}
	s.u.dialogs.ask("Refund order "+o.OrderID, refundNames(o)+"\nUp to "+left.String()+" can be refunded. Change the amount for a partial refund.",
		[]*keyEntry{amount, pin}, func(p *prompt) {
			code := pin.Text
			pin.SetText("")
			amt, err := pos.ParsePaise(amount.Text)
			if err != nil || amt < least || amt > left {
				p.say("Type an amount from " + least.String() + " to " + left.String() + ".")
				return
			}
			p.ok.Disable()
			p.message.SetText("Refunding…")
			s.u.async(func(ctx context.Context) func() {
				out, err := s.u.till.Returns.Refund(ctx, o.OrderID, amt, code)
				return func() {
					p.ok.Enable()
					if err != nil {
						p.say(sentence(err))
						return
					}
					p.close()
					s.load(s.day)
					if !out.Verified {
						s.message.SetText("The refund of order " + o.OrderID + " was sent; its outcome is not known yet and will be checked again.")
						return
					}
					note := "Refunded " + amt.String() + " on order " + o.OrderID + ": verified."
					s.message.SetText(note)
					s.u.receipt.openRefund(o.OrderID, amt.String(), s) // its receipt, to print or save

				}
			})
		})
}

// refundNames names the order a refund acts on: its receipt, amount, tender and
// card.
func refundNames(o OrderSummary) string {
	parts := []string{"Order " + o.OrderID}
	if o.ReceiptNo != "" {
		parts = append(parts, "receipt "+o.ReceiptNo)
	}
	parts = append(parts, o.Amount.String()+" by "+string(o.Tender))
	if o.CardLast4 != "" {
		parts = append(parts, "card ••••"+o.CardLast4)
	}
	parts = append(parts, o.At.Format("2 Jan 15:04"))
	return strings.Join(parts, " · ")
}

// check inquires the chosen order's pending payment now.
func (s *journalScreen) check() {
	o, ok := s.selectedOrder()
	if !ok {
		return
	}
	s.message.SetText("Checking order " + o.OrderID + " with the payment service…")
	s.u.async(func(ctx context.Context) func() {
		out, err := s.u.till.Pending.CheckOrder(ctx, o.OrderID)
		return func() {
			if err != nil {
				s.message.SetText(sentence(err))
				return
			}
			s.message.SetText("Order " + o.OrderID + ": " + string(out.State) + ".")
			s.load(s.day)
			s.u.sale.payment.checkLock()
			s.u.bar.refreshStatus()
		}
	})
}

func (s *journalScreen) reprintOrder() {
	o, ok := s.selectedOrder()
	if !ok {
		return
	}
	s.u.receipt.open(o.OrderID, s)
}

// showX shows the day's X report.
func (s *journalScreen) showX() {
	day := s.day
	s.message.SetText("Preparing the X report…")
	s.u.async(func(ctx context.Context) func() {
		text, err := s.u.till.Books.XReport(ctx, day)
		return func() {
			if err != nil {
				s.message.SetText(sentence(err))
				return
			}
			s.message.SetText("")
			s.u.showReport("X report "+day.Format("2 Jan 2006"), text, day, "x")
		}
	})
}

// askClose closes the day after the manager confirms with their PIN.
func (s *journalScreen) askClose() {
	day := s.day
	pin := newKeyEntry(s.u)
	pin.Password = true
	pin.SetPlaceHolder("Manager PIN to close the day")
	s.u.dialogs.ask("Close "+day.Format("2 Jan 2006")+"?",
		"The Z report closes the day's sales so far for good: they cannot change afterwards, and what is sold later today goes on the same date, for another Z. Type a manager's PIN and press Enter to close it, or Escape to keep it open.",
		[]*keyEntry{pin}, func(p *prompt) {
			code := pin.Text
			pin.SetText("")
			p.ok.Disable()
			s.u.async(func(ctx context.Context) func() {
				text, err := s.u.closeDay(ctx, day, code, false)
				return func() {
					p.ok.Enable()
					if err != nil && s.askAccept(p, day, err) {
						return
					}
					if err != nil {
						p.say(sentence(err))
						return
					}
					p.close()
					s.message.SetText("The day is closed.")
					s.u.showReport("Z report "+day.Format("2 Jan 2006"), text, day, "z")
				}
			})
		})
}

// closeDay closes day with its Z report on a manager's pin (accept: listing the
// payments still unknown), printed at once where there is a receipt printer,
// and returns the text the report screen shows.
func (u *UI) closeDay(ctx context.Context, day time.Time, pin string, accept bool) (string, error) {
	res, err := u.till.Books.CloseDay(ctx, pos.CloseDayRequest{Day: pos.ToDay(day), PIN: pin, AcceptUnknown: accept, Print: true})
	if err != nil {
		return "", err
	}
	return u.till.Books.ZText(ctx, res), nil
}

func (s *journalScreen) askExport() {
	day := s.day
	path := newKeyEntry(s.u)
	dir := s.u.opts.ExportDir
	if dir == "" {
		dir, _ = os.UserHomeDir()
	}
	path.SetText(filepath.Join(dir, "galla-"+day.Format(pos.DayLayout)+".csv"))
	s.u.dialogs.ask("Export CSV", "Where should the day's orders be written?", []*keyEntry{path}, func(p *prompt) {
		name := strings.TrimSpace(path.Text)
		p.ok.Disable()
		s.u.async(func(ctx context.Context) func() {
			err := exportTo(ctx, s.u.till.Books, day, name)
			return func() {
				p.ok.Enable()
				if err != nil {
					p.say("The file could not be written: " + sentence(err))
					return
				}
				p.close()
				s.message.SetText("Wrote " + name + ".")
			}
		})
	})
}

func exportTo(ctx context.Context, t Books, day time.Time, name string) (err error) {
	if err := os.MkdirAll(filepath.Dir(name), 0o700); err != nil {
		return err
	}
	f, err := os.OpenFile(name, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o600)
	if err != nil {
		return err
	}
	defer func() {
		if cerr := f.Close(); err == nil {
			err = cerr
		}
	}()
	return t.ExportCSV(ctx, day, f)
}

// showReport shows the text of day's report (kind "x" or "z") in a dialog that
// prints it (F5) or saves its slip as a PNG (Ctrl+S) in Options.ReceiptDir.
func (u *UI) showReport(title, text string, day time.Time, kind string) {
	lbl := widget.NewLabel(text)
	lbl.TextStyle = fyne.TextStyle{Monospace: true}
	// The note's sentences (the backups, the shifts) run longer than the
	// dialog is wide: wrapped, not cut at its edge.
	lbl.Wrapping = fyne.TextWrapWord
	u.journal.report.SetText(text)
	scroll := container.NewVScroll(lbl)
	scroll.SetMinSize(fyne.NewSize(640, 400))
	var p *prompt
	printA := u.newAction("Print", fyne.KeyF5, 0, func() {
		p.message.SetText("Printing…")
		u.async(func(ctx context.Context) func() {
			err := u.till.Documents.PrintReport(ctx, day)
			return func() {
				if err != nil {
					p.message.SetText("The report did not print: " + sentence(err) + " Fix the printer and press F5 again.")
					return
				}
				p.message.SetText("Printed.")
			}
		})
	})
	save := u.newAction("Save PNG", fyne.KeyS, fyne.KeyModifierControl, func() {
		p.message.SetText("Saving…")
		dir := u.opts.ReceiptDir
		u.async(func(ctx context.Context) func() {
			png, err := u.till.Documents.ReportReceipt(ctx, day)
			return func() {
				if err != nil {
					p.message.SetText("The report could not be drawn: " + sentence(err))
					return
				}
				u.savePNG(p.message, dir, kind+"-report-"+day.Format(pos.DayLayout)+".png", "report", png)
			}
		})
	})
	if u.opts.ReceiptDir == "" {
		save.btn.Disable()
	}
	p = u.dialogs.askWithActions(title, "", scroll, []*action{printA, save}, nil, func(p *prompt) { p.close() })
}

// cycle selects a Select's next option, from the keyboard.
func cycle(sel *widget.Select) {
	if len(sel.Options) == 0 {
		return
	}
	sel.SetSelectedIndex((sel.SelectedIndex() + 1) % len(sel.Options))
}
