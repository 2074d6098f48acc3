package ui

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"unicode"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/canvas"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/layout"
	"fyne.io/fyne/v2/widget"

	"galla/pos"
)

// SaleStatus is a split-tender sale and its tenders (pos's own type).
type SaleStatus = pos.SaleStatus

// UPIRequest is the dynamic UPI QR of a tender (pos's own type).
type UPIRequest = pos.UPIRequest

// Tenderer takes a sale in several tenders (docs/adr/0005-split-tender.md); the
// tenders themselves go through Payer.Pay with PayRequest.Sale.
type Tenderer interface {
	// OpenSale journals the cart of req (its lines, IMEIs, cashier and buyer)
	// as a split-tender sale; req.AskIMEIOverride asks a manager's PIN when the
	// store server cannot be asked about its phones.
	OpenSale(ctx context.Context, req PayRequest) (*SaleStatus, error)
	// SaleStatus reads a split sale and its tenders.
	SaleStatus(ctx context.Context, id string) (*SaleStatus, error)
	// OpenSales lists the split sales left part paid.
	OpenSales(ctx context.Context) ([]*SaleStatus, error)
	// VoidSale refunds the paid tenders of a part-paid sale, by a manager's PIN.
	VoidSale(ctx context.Context, id, pin, reason string) (*SaleStatus, error)
	// DropSale closes an open sale that holds no money (nothing paid, nothing
	// in flight) for staff, with no PIN: nothing is given back.
	DropSale(ctx context.Context, id, staff, reason string) (*SaleStatus, error)
	// UPIRequest builds the UPI QR for amount of the sale (0: all that is left).
	UPIRequest(ctx context.Context, id string, amount pos.Paise) (UPIRequest, error)
	// SaleEMIOffers lists the EMI plans for amount of the sale (0: the rest).
	SaleEMIOffers(ctx context.Context, id string, amount pos.Paise) ([]EMIOffer, error)
}

// tenderScreen is the split-tender screen: the sale's total, what each tender
// paid and what is left; each tender key takes the amount typed (empty: all that
// is left). The sale stays here, part paid, until it is paid or voided.
type tenderScreen struct {
	u    *UI
	sale *SaleStatus

	root    fyne.CanvasObject
	title   *widget.Label
	due     *canvas.Text
	paid    *widget.Label
	list    *widget.Label
	amount  *keyEntry
	noteNo  *keyEntry
	message *widget.Label
	change  *canvas.Text

	cardA, emiA, cashA, phoneA, upiA, noteA, voidA, backA *action
	// retryA takes a failed tender again (failedTender): the same card or EMI
	// tender on its own order with the card typed again, or the same kind.
	retryA *action
}

func newTenderScreen(u *UI) *tenderScreen {
	s := &tenderScreen{u: u}
	s.title = heading("Split tender")
	s.due = bigText("", sizeTotal)
	s.paid = widget.NewLabel("")
	s.paid.Wrapping = fyne.TextWrapWord
	s.list = widget.NewLabel("")
	s.list.Wrapping = fyne.TextWrapWord
	s.amount = newKeyEntry(u)
	s.amount.SetPlaceHolder("Amount of this tender in rupees (empty: all that is left)")
	s.noteNo = newKeyEntry(u)
	s.noteNo.SetPlaceHolder("Credit note number (for F12)")
	s.message = widget.NewLabel("")
	s.message.Wrapping = fyne.TextWrapWord
	s.change = bigText("", sizeTotal)
	s.change.Color = colPaid
	s.cardA = u.newAction("Card", fyne.KeyF5, 0, func() { s.take(pos.TenderCard) })
	s.emiA = u.newAction("EMI", fyne.KeyF6, 0, func() { s.take(pos.TenderEMI) })
	s.cashA = u.newAction("Cash", fyne.KeyF7, 0, func() { s.take(pos.TenderCash) })
	s.phoneA = u.newAction("Pay on phone", fyne.KeyF8, 0, func() { s.take(pos.TenderPhone) })
	s.upiA = u.newAction("UPI", fyne.KeyF11, 0, func() { s.take(pos.TenderUPI) })
	s.noteA = u.newAction("Credit note", fyne.KeyF12, 0, func() { s.take(pos.TenderNote) })
	s.voidA = u.newAction("Void sale", fyne.KeyF4, 0, s.askVoid)
	s.retryA = u.newAction("Try the failed tender again", fyne.KeyF3, 0, s.retry)
	s.retryA.btn.Disable()
	s.retryA.btn.Hide()
	s.backA = u.newAction("Back to the counter", fyne.KeyEscape, 0, func() { u.goTo(u.sale) })
	for _, a := range []*action{s.cardA, s.emiA, s.cashA, s.phoneA, s.upiA, s.noteA} {
		a.btn.Importance = widget.HighImportance
	}
	left := container.NewVBox(s.title, widget.NewLabel("Left to pay"), s.due, s.paid, widget.NewSeparator(), s.list)
	right := container.NewVBox(widget.NewLabel("Amount"), s.amount, s.noteNo, s.message, s.change, layout.NewSpacer(),
		container.NewGridWithColumns(3, s.cashA.btn, s.upiA.btn, s.cardA.btn, s.emiA.btn, s.phoneA.btn, s.noteA.btn),
		s.retryA.btn, container.NewGridWithColumns(2, s.backA.btn, s.voidA.btn))
	s.root = container.NewPadded(container.New(&ratioLayout{ratio: 0.5}, left, right))
	return s
}

func (s *tenderScreen) view() fyne.CanvasObject { return s.root }

func (s *tenderScreen) actions() []*action {
	return []*action{s.cardA, s.emiA, s.cashA, s.phoneA, s.upiA, s.noteA, s.voidA, s.backA, s.retryA}
}

func (s *tenderScreen) shown() { s.u.win.Canvas().Focus(s.amount) }

// paySplit opens the cart as a split-tender sale; on an empty cart it shows
// again the sale left part paid, if there is one.
func (s *saleScreen) paySplit() {
	t := s.u.till.Checkout
	if len(s.lines) == 0 && !s.payment.locked() {
		s.continueOpen() // an empty cart: the sale left open, if there is one
		return
	}
	if !s.ready() || !s.serials.haveIMEIs(s.paySplit) {
		return
	}
	req := s.request(pos.TenderSplit)
	req.AskIMEIOverride = s.u.dialogs.askIMEIOverride
	s.u.asyncScreen(func(ctx context.Context) func() {
		st, err := t.OpenSale(ctx, req)
		return func() {
			if err != nil {
				s.message.SetText(sentence(err))
				return
			}
			// The sale lives on the tender screen from now on: the cart is free
			// for the next customer once it is paid or voided.
			s.clear()
			s.u.tender.open(st, "")
		}
	})
}

// open shows st with a sentence (what the last tender did); with none, what to
// do about a failed tender, if there is one.
func (s *tenderScreen) open(st *SaleStatus, msg string) {
	s.show(st)
	if t, ok := failedTender(st); ok && msg == "" {
		msg = failedText(t)
	}
	s.amount.SetText("")
	s.noteNo.SetText("")
	s.message.SetText(msg)
	s.change.Text = ""
	s.change.Refresh()
	s.u.goTo(s)
}

// show draws where the sale stands.
func (s *tenderScreen) show(st *SaleStatus) {
	s.sale = st
	s.title.SetText("Split tender: sale " + st.Sale.ID)
	s.due.Text = st.Due.String()
	s.due.Refresh()
	txt := fmt.Sprintf("Total %s · paid %s", st.Sale.Amount, st.Paid)
	if st.Pending > 0 {
		txt += fmt.Sprintf(" · %s being checked", st.Pending)
	}
	s.paid.SetText(txt)
	s.list.SetText(TenderLines(st))
	if _, ok := failedTender(st); ok {
		s.retryA.btn.Enable()
		s.retryA.btn.Show()
	} else {
		s.retryA.btn.Disable() // F3 does nothing either
		s.retryA.btn.Hide()
	}
}

// failedTender is the last tender of st that failed (refused, the offer not
// given on the card: nothing was charged) and may be taken again: its amount is
// still left to pay. A failed tender holds none of what is due, so another
// tender may take its part instead; it stays listed as failed.
func failedTender(st *SaleStatus) (pos.TenderView, bool) {
	if st == nil || st.Complete() || st.Sale.State != pos.StateOpen {
		return pos.TenderView{}, false
	}
	for i := len(st.Tenders) - 1; i >= 0; i-- {
		t := st.Tenders[i]
		if t.Order != nil && t.State == pos.StateFailed && t.Amount <= st.Due {
			return t, true
		}
	}
	return pos.TenderView{}, false
}

// failedText says that tender t failed, why, and what the cashier can do.
func failedText(t pos.TenderView) string {
	again := "F3 tries it again"
	switch t.Kind {
	case pos.TenderCard:
		again += " with the card typed again (or another card)"
	case pos.TenderEMI:
		again += " on the same offer with the card typed again (or another card)"
	}
	return fmt.Sprintf("The %s tender of %s failed: %s It is not counted. %s, or take another tender for what is left (F6 for another EMI offer).",
		tenderNoun(t.Kind), t.Amount, failReason(t), again)
}

// failReason is why a tender failed, as a sentence.
func failReason(t pos.TenderView) string {
	r := strings.TrimSpace(t.Order.Reason)
	if r == "" {
		return "nothing was charged."
	}
	if !strings.HasSuffix(r, ".") {
		r += "."
	}
	return r
}

// retry takes the failed tender again: a card or EMI tender on its own order
// (its offer kept), the card typed again; any other kind as a new tender of the
// same amount.
func (s *tenderScreen) retry() {
	t, ok := failedTender(s.sale)
	if !ok {
		s.message.SetText("No failed tender to try again.")
		return
	}
	req := s.request(t.Kind, t.Amount)
	switch t.Kind {
	case pos.TenderCard:
		req.OrderID = t.Order.ID
		s.u.card.start(req, t.Amount)
	case pos.TenderEMI:
		if t.Order.EMI == nil {
			s.u.emi.start(req, t.Amount, emiPartOf(t.Amount, s.sale.Sale.Amount))
			return
		}
		offer := *t.Order.EMI
		req.OrderID, req.Offer = t.Order.ID, &offer
		s.u.card.start(req, t.Amount)
	case pos.TenderCash:
		s.u.cash.start(req, t.Amount)
	case pos.TenderPhone:
		s.u.pay.start(req) // a fresh order: the customer's phone opens a new page
	case pos.TenderUPI:
		s.u.upi.start(req)
	case pos.TenderNote:
		req.NoteNo = t.NoteNo
		s.payLocal(req)
	}
}

// TenderLines lists a split sale's tenders, one a line: kind, amount (and EMI
// plan) and how it stands (paid and verified, confirmed by the cashier, failed
// with the reason, being checked).
func TenderLines(st *SaleStatus) string {
	if len(st.Tenders) == 0 {
		return "No tender taken yet."
	}
	var b strings.Builder
	for i, t := range st.Tenders {
		state := "not sent"
		switch {
		case t.Order == nil:
		case t.Paid() && t.Kind == pos.TenderUPI:
			state = "confirmed by " + t.Order.ConfirmedBy + " (not verified)"
		case t.Paid() && t.Order.Refunded > 0:
			state = "refunded " + t.Order.Refunded.String()
		case t.Paid() && t.Kind == pos.TenderCash && t.Order.Change > 0:
			state = "paid, change " + t.Order.Change.String()
		case t.Paid():
			state = "paid"
			if t.Order.CardLast4 != "" {
				state += " · " + t.Order.CardBrand + " " + t.Order.CardLast4
			}
		case t.State == pos.StateFailed:
			state = "FAILED: " + failReason(t)
		case t.Pending():
			state = "being checked (" + string(t.State) + ")"
		default:
			state = strings.ToLower(string(t.State)) + ", not counted"
		}
		plan := ""
		if t.Order != nil && t.Order.EMI != nil {
			plan = fmt.Sprintf(" (%s %d months)", t.Order.EMI.Issuer, t.Order.EMI.TenureMonths)
		}
		fmt.Fprintf(&b, "%d. %s %s%s — %s\n", i+1, tenderName(t.Kind), t.Amount, plan, state)
	}
	return strings.TrimSpace(b.String())
}

func tenderName(k pos.TenderKind) string {
	switch k {
	case pos.TenderCash:
		return "Cash"
	case pos.TenderUPI:
		return "UPI"
	case pos.TenderCard:
		return "Card"
	case pos.TenderEMI:
		return "EMI"
	case pos.TenderPhone:
		return "Phone"
	case pos.TenderNote:
		return "Credit note"
	}
	return string(k)
}

// tenderNoun is tenderName inside a sentence: "the card tender", "the EMI
// tender".
func tenderNoun(k pos.TenderKind) string {
	n := tenderName(k)
	if len(n) > 1 && unicode.IsLower(rune(n[1])) {
		return strings.ToLower(n[:1]) + n[1:]
	}
	return n
}

// amountTyped is the amount of the next tender: what is typed, or all that is
// left; ok is false (with a sentence) when it cannot be taken.
func (s *tenderScreen) amountTyped() (pos.Paise, bool) {
	if s.sale == nil {
		return 0, false
	}
	due := s.sale.Due
	if strings.TrimSpace(s.amount.Text) == "" {
		if due <= 0 {
			s.message.SetText("Nothing is left to pay.")
			return 0, false
		}
		return due, true
	}
	p, err := pos.ParsePaise(s.amount.Text)
	switch {
	case err != nil || p <= 0:
		s.message.SetText("Type the amount of this tender in rupees, like 500, or leave it empty for all that is left.")
	case p > due:
		s.message.SetText("Only " + due.String() + " is left to pay; type at most that.")
	default:
		return p, true
	}
	s.u.win.Canvas().Focus(s.amount)
	return 0, false
}

// request is the PayRequest of a tender of amount. It carries the IMEIs the
// sale's phones were sold with: a brand-EMI tender uses them (its IMEI is not
// asked again).
func (s *tenderScreen) request(kind pos.TenderKind, amount pos.Paise) PayRequest {
	return PayRequest{Sale: s.sale.Sale.ID, Amount: amount, Tender: kind, Cashier: s.u.user.Name,
		Lines: SaleCartLines(s.sale.Sale), IMEIs: SaleIMEIs(s.sale.Sale)}
}

// SaleIMEIs are the IMEIs of a journaled sale's phones, unit by unit.
func SaleIMEIs(o *pos.Order) []IMEI {
	var out []IMEI
	for _, l := range o.Lines {
		if !l.Serialised {
			continue
		}
		for _, s := range l.IMEIs {
			out = append(out, IMEI{ProductCode: l.ProductCode, IMEI: s})
		}
	}
	return out
}

// imeisCover reports whether imeis give an IMEI for every serialised unit of
// lines.
func imeisCover(lines []Line, imeis []IMEI) bool {
	need := map[string]int{}
	for _, l := range lines {
		if l.Product.Serialised {
			need[l.Product.ProductCode] += l.Qty
		}
	}
	for _, m := range imeis {
		need[m.ProductCode]--
	}
	for _, n := range need {
		if n > 0 {
			return false
		}
	}
	return true
}

// SaleCartLines are a journaled sale's lines as cart lines (for the EMI screen's
// title and the card form, which show them).
func SaleCartLines(o *pos.Order) []Line {
	out := make([]Line, 0, len(o.Lines))
	for _, l := range o.Lines {
		out = append(out, Line{Product: pos.Product{SKU: l.SKU, Name: l.Name, Brand: l.Brand, ProductCode: l.ProductCode,
			HSN: l.HSN, Price: l.UnitPrice, GSTRate: l.GSTRate, Serialised: l.Serialised}, Qty: l.Qty, Discount: l.Discount, ApprovedBy: l.ApprovedBy})
	}
	return out
}

// take starts a tender of the amount typed.
func (s *tenderScreen) take(kind pos.TenderKind) {
	amount, ok := s.amountTyped()
	if !ok {
		return
	}
	req := s.request(kind, amount)
	switch kind {
	case pos.TenderCash:
		s.u.cash.start(req, amount)
	case pos.TenderCard:
		s.u.card.start(req, amount)
	case pos.TenderEMI:
		s.u.emi.start(req, amount, emiPartOf(amount, s.sale.Sale.Amount))
	case pos.TenderPhone:
		s.u.pay.start(req)
	case pos.TenderUPI:
		s.u.upi.start(req)
	case pos.TenderNote:
		no := strings.TrimSpace(s.noteNo.Text)
		if no == "" {
			s.message.SetText("Type the credit note's number, then F12.")
			s.u.win.Canvas().Focus(s.noteNo)
			return
		}
		req.NoteNo = no
		s.payLocal(req)
	}
}

// payLocal takes a tender that needs no screen of its own (a credit note).
func (s *tenderScreen) payLocal(req PayRequest) {
	s.message.SetText("Redeeming…")
	s.u.async(func(ctx context.Context) func() {
		o, err := s.u.till.Checkout.Pay(ctx, req, nil)
		return func() { s.u.tenderDone(req, o, err, s) }
	})
}

// tenderDone shows what a tender of a split sale did: the sale's receipt once it
// is paid, else the tender screen again with what is left (or why it was not
// taken, on back, the screen that took it).
func (u *UI) tenderDone(req PayRequest, o Outcome, err error, back screen) bool {
	if req.Sale == "" {
		return false
	}
	msg := func(m string) {
		switch b := back.(type) {
		case *cashScreen:
			b.message.SetText(m)
		case *upiScreen:
			b.message.SetText(m)
		default:
			u.tender.message.SetText(m)
		}
	}
	if err != nil {
		msg(sentence(err))
		return true
	}
	st := o.Sale
	if st == nil {
		msg("The tender was not recorded: " + o.Reason)
		return true
	}
	if st.Complete() {
		u.receipt.show(o.SaleOutcome(), keepCart)
		return true
	}
	text := fmt.Sprintf("%s %s taken; %s left to pay.", tenderName(req.Tender), o.Amount, st.Due)
	if o.State != pos.StatePaid {
		text = fmt.Sprintf("The %s tender is %s: %s", tenderNoun(req.Tender), o.State, o.Reason)
	}
	if o.Drawer != "" {
		text += " " + o.Drawer
	}
	u.tender.open(st, text)
	if o.Change > 0 {
		u.tender.change.Text = "Change due " + o.Change.String()
		u.tender.change.Refresh()
	}
	return true
}

// askVoid asks a manager's PIN and voids the sale: each paid tender is
// refunded. A sale that holds no money is dropped instead (askDrop).
func (s *tenderScreen) askVoid() {
	if s.sale == nil {
		return
	}
	if s.sale.HoldsNoMoney() {
		s.askDrop()
		return
	}
	t := s.u.till.Checkout
	pin := newKeyEntry(s.u)
	pin.Password = true
	pin.SetPlaceHolder("Manager PIN")
	id := s.sale.Sale.ID
	text := fmt.Sprintf("Every paid tender (%s) is refunded: cards through the payment service, cash from the drawer, each with a refund receipt. A manager's PIN voids it.", s.sale.Paid)
	if s.sale.Paid == 0 {
		text = "Nothing is paid on this sale: voiding it gives its cart up for good. A manager's PIN confirms it; Esc keeps the sale open."
	}
	s.u.dialogs.ask("Void sale "+id, text,
		[]*keyEntry{pin}, func(p *prompt) {
			code := pin.Text
			pin.SetText("")
			p.ok.Disable()
			p.message.SetText("Refunding…")
			s.u.async(func(ctx context.Context) func() {
				st, err := t.VoidSale(ctx, id, code, "sale voided at the counter")
				return func() {
					p.ok.Enable()
					if err != nil {
						p.say(sentence(err))
						return
					}
					p.close()
					if st.Sale.State != pos.StateVoided {
						s.open(st, "A refund's answer is not in yet; it is checked in the background. Void again once it is settled.")
						return
					}
					s.sale = nil
					s.u.sale.message.SetText("Sale " + id + " voided: " + st.Paid.String() + " refunded. " + refundCash(st))
					s.u.goTo(s.u.sale)
				}
			})
		})
}

// askDrop asks the cashier to confirm dropping the sale, which holds no money:
// no PIN, nothing to give back.
func (s *tenderScreen) askDrop() {
	t, id, staff := s.u.till.Checkout, s.sale.Sale.ID, s.u.user.Name
	p := s.u.dialogs.ask("Drop sale "+id, "Nothing is paid on this sale and nothing is being checked: dropping it gives its cart up, with nothing to give back.",
		nil, func(p *prompt) {
			p.ok.Disable()
			s.u.async(func(ctx context.Context) func() {
				_, err := t.DropSale(ctx, id, staff, "")
				return func() {
					p.ok.Enable()
					if err != nil {
						p.say(sentence(err))
						return
					}
					p.close()
					s.sale = nil
					s.u.sale.message.SetText("Sale " + id + " dropped: nothing was paid on it.")
					s.u.goTo(s.u.sale)
				}
			})
		})
	// The dialog says what each key does: a message's lone OK would not.
	p.ok.SetText("Drop it  [Enter]")
	p.cancel.SetText("Keep it open  [Esc]")
	p.cancel.Show()
}

// refundCash says what to hand back after a void: cash from the drawer, UPI sent
// back to the customer's UPI app by the shop.
func refundCash(st *SaleStatus) string {
	var cash, upi pos.Paise
	for _, t := range st.Tenders {
		switch {
		case t.Order == nil:
		case t.Kind == pos.TenderCash:
			cash += t.Order.Refunded
		case t.Kind == pos.TenderUPI:
			upi += t.Order.Refunded
		}
	}
	var out []string
	if cash > 0 {
		out = append(out, "Hand back "+cash.String()+" in cash.")
	}
	if upi > 0 {
		out = append(out, "Send "+upi.String()+" back to the customer by UPI.")
	}
	return strings.Join(out, " ")
}

// backFrom is where a tender's screen goes back to: the split sale's tenders, or
// the counter.
func (u *UI) backFrom(req PayRequest) screen {
	if req.Sale != "" {
		return u.tender
	}
	return u.sale
}

// loadOpenSales reads the split sales left open (left on screen, or found in
// the journal after a restart) and shows them in the banner above the scan
// field, with the key back to them.
func (s *saleScreen) loadOpenSales() {
	t := s.u.till.Checkout
	s.u.async(func(ctx context.Context) func() {
		open, err := t.OpenSales(ctx)
		return func() {
			if err != nil {
				return // the banner stays as last read; F1 says what is wrong
			}
			s.showOpenSales(open)
		}
	})
}

// showOpenSales shows the open sales above the scan field: one with what is
// paid of it, or how many there are.
func (s *saleScreen) showOpenSales(open []*SaleStatus) {
	s.openSales = open
	if len(open) == 0 {
		s.openRow.Hide()
		return
	}
	label := "Continue it"
	text := openSaleText(open[0])
	if len(open) > 1 {
		label = "Choose one"
		names := make([]string, 0, 3)
		for i, st := range open {
			if i == 3 {
				names = append(names, fmt.Sprintf("and %d more", len(open)-3))
				break
			}
			names = append(names, fmt.Sprintf("%s (%s of %s paid)", st.Sale.ID, st.Paid, st.Sale.Amount))
		}
		text = fmt.Sprintf("%d open sales: %s", len(open), strings.Join(names, ", "))
	}
	s.openA.label = label
	s.openA.btn.SetText(label + "  [" + s.openA.keyText() + "]")
	s.openText.SetText(text)
	s.openRow.Show()
}

// openSaleText is an open sale as the sale screen names it: its id, what is paid
// of it and what is left, and a tender that failed or is being checked.
func openSaleText(st *SaleStatus) string {
	text := fmt.Sprintf("Open sale %s: %s of %s paid, %s left to pay", st.Sale.ID, st.Paid, st.Sale.Amount, st.Due)
	if t, ok := failedTender(st); ok {
		text += "; the " + tenderNoun(t.Kind) + " tender failed"
	}
	if st.Pending > 0 {
		text += "; " + st.Pending.String() + " being checked"
	}
	return text
}

// continueOpen shows the open sale again, to finish or void it (F1, and F11 on
// an empty cart); with several, it asks which.
func (s *saleScreen) continueOpen() {
	t := s.u.till.Checkout
	s.u.async(func(ctx context.Context) func() {
		open, err := t.OpenSales(ctx)
		return func() {
			if err != nil {
				s.message.SetText(sentence(err))
				return
			}
			s.showOpenSales(open)
			switch len(open) {
			case 0:
				if len(s.lines) == 0 {
					s.message.SetText("The cart is empty: scan something first, then F11 to pay it in several tenders.")
				} else {
					s.message.SetText("No sale is open.")
				}
			case 1:
				s.u.tender.open(open[0], "")
			default:
				s.chooseOpen(open)
			}
		}
	})
}

// chooseOpen lists the open sales, oldest first; the number typed opens one.
func (s *saleScreen) chooseOpen(open []*SaleStatus) {
	rows := make([]string, 0, len(open))
	for i, st := range open {
		rows = append(rows, fmt.Sprintf("%d.  %s  %s of %s paid, %s left  (%s)", i+1, st.Sale.ID, st.Paid, st.Sale.Amount, st.Due,
			st.Sale.Opened.Format("2 Jan 15:04")))
	}
	num := newKeyEntry(s.u)
	num.SetPlaceHolder("Number of the sale")
	s.u.dialogs.ask("Open sales", strings.Join(rows, "\n")+"\n\nType a sale's number and press Enter to continue it: take its other tenders, or void it.",
		[]*keyEntry{num}, func(p *prompt) {
			n, err := strconv.Atoi(strings.TrimSpace(num.Text))
			if err != nil || n < 1 || n > len(open) {
				p.say(fmt.Sprintf("Type the number of a sale, 1 to %d.", len(open)))
				return
			}
			p.close()
			s.u.tender.openID(open[n-1].Sale.ID)
		})
}

// openID reads split sale id as it stands now and shows it.
func (s *tenderScreen) openID(id string) {
	t := s.u.till.Checkout
	s.u.async(func(ctx context.Context) func() {
		st, err := t.SaleStatus(ctx, id)
		return func() {
			if err != nil {
				s.u.dialogs.showError(sentence(err))
				return
			}
			s.open(st, "")
		}
	})
}
