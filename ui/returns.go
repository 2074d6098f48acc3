package ui

import (
	"context"
	"strconv"
	"strings"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/widget"

	"galla/pos"
)

// Returner takes goods back on a paid sale (pos.Returns does): the Returns screen
// finds the sale and issues the credit note through it.
type Returner interface {
	// ReturnView finds a paid sale by its invoice number or order id.
	ReturnView(ctx context.Context, doc string) (*pos.SaleForReturn, error)
	// Return takes goods or a price adjustment back, authorised by a manager's
	// PIN, and issues a credit note.
	Return(ctx context.Context, r pos.ReturnRequest) (*pos.ReturnResult, error)
}

// returnsScreen takes goods back (issue 13): find the invoice (its number typed,
// its QR code scanned, or the order chosen in the journal), the units of each
// line that come back or an amount for a price adjustment, where the money goes
// (card, cash, or a credit note to spend), the reason and a manager's PIN; F5
// issues the credit note and opens it to print.
type returnsScreen struct {
	u    *UI
	r    Returner
	back screen
	sale *pos.SaleForReturn

	root    fyne.CanvasObject
	find    *keyEntry
	detail  *widget.Label
	lines   *fyne.Container
	qty     []*keyEntry
	to      *widget.Select
	amount  *keyEntry
	reason  *keyEntry
	pin     *keyEntry
	message *widget.Label
	issue   *action
	toA     *action
	backA   *action
}

func newReturnsScreen(u *UI, r Returner, back screen) *returnsScreen {
	s := &returnsScreen{u: u, r: r, back: back}
	s.find = newKeyEntry(u)
	s.find.SetPlaceHolder("Invoice number (T1/2627/000123), its QR code, an IMEI, the card's last four or the phone, then Enter")
	s.find.OnSubmitted = s.load
	s.detail = widget.NewLabel("")
	s.detail.Wrapping = fyne.TextWrapWord
	s.lines = container.NewVBox()
	s.to = widget.NewSelect(nil, nil)
	s.amount = newKeyEntry(u)
	s.amount.SetPlaceHolder("Price adjustment in ₹, without goods (leave empty to return goods)")
	s.reason = newKeyEntry(u)
	s.reason.SetPlaceHolder("Reason, printed on the credit note")
	s.pin = newKeyEntry(u)
	s.pin.Password = true
	s.pin.SetPlaceHolder("Manager PIN")
	s.pin.OnSubmitted = func(string) { s.submit() }
	s.message = widget.NewLabel("")
	s.message.Wrapping = fyne.TextWrapWord
	s.issue = u.newAction("Issue credit note", fyne.KeyF5, 0, s.submit)
	s.toA = u.newAction("Money to", fyne.KeyM, fyne.KeyModifierControl, func() { cycle(s.to) })
	s.backA = u.newAction("Back", fyne.KeyEscape, 0, func() { u.goTo(s.back) })
	form := container.NewVBox(
		container.NewBorder(nil, nil, widget.NewLabel("Money goes to [Ctrl+M]"), nil, s.to),
		s.amount, s.reason, s.pin)
	top := container.NewVBox(heading("Returns"), s.find, s.detail, heading("Units that come back"))
	buttons := container.NewGridWithColumns(3, s.backA.btn, s.toA.btn, s.issue.btn)
	body := container.NewBorder(top, container.NewVBox(form, s.message), nil, nil, container.NewVScroll(s.lines))
	s.root = container.NewPadded(container.NewBorder(nil, buttons, nil, nil, body))
	s.issue.btn.Disable()
	return s
}

func (s *returnsScreen) view() fyne.CanvasObject { return s.root }

func (s *returnsScreen) actions() []*action { return []*action{s.issue, s.toA, s.backA} }

func (s *returnsScreen) shown() {
	if s.sale == nil {
		s.u.win.Canvas().Focus(s.find)
		return
	}
	if len(s.qty) > 0 {
		s.u.win.Canvas().Focus(s.qty[0])
	}
}

// load finds the sale typed or scanned.
func (s *returnsScreen) load(text string) {
	text = strings.TrimSpace(text)
	if id, err := s.u.till.Books.OrderFromQR(text); err == nil {
		text = id
	}
	s.message.SetText("Finding " + text + "…")
	s.u.async(func(ctx context.Context) func() {
		v, err := s.r.ReturnView(ctx, text)
		return func() {
			if err != nil {
				s.message.SetText(sentence(err))
				s.find.SetText("") // ready for the next scan; the message names what was tried
				return
			}
			s.show(v)
		}
	})
}

// show lists the sale's lines with a quantity field each.
func (s *returnsScreen) show(v *pos.SaleForReturn) {
	s.sale = v
	s.find.SetText(v.Number)
	s.detail.SetText("Invoice " + v.Number + " of " + v.At + ", order " + v.OrderID + ", paid by " + string(v.Tender) +
		"; up to " + v.Refundable.String() + " can be refunded.")
	s.lines.Objects = nil
	s.qty = nil
	for i, l := range v.Lines {
		q := newKeyEntry(s.u)
		q.SetPlaceHolder("0")
		if len(l.IMEIs) > 0 {
			q.SetPlaceHolder("IMEIs") // a serialised line: the units that come back by IMEI
		}
		if l.Left == 0 {
			q.Disable()
		}
		next := i + 1
		q.OnSubmitted = func(string) {
			if next < len(s.qty) {
				s.u.win.Canvas().Focus(s.qty[next])
			} else {
				s.u.win.Canvas().Focus(s.reason)
			}
		}
		s.qty = append(s.qty, q)
		info := l.Name + " (" + l.SKU + "): sold " + strconv.Itoa(l.Sold) + ", returned " + strconv.Itoa(l.Returned) +
			", " + l.Amount.String()
		if len(l.IMEIs) > 0 {
			info += "; IMEI " + strings.Join(l.IMEIs, ", ")
		}
		width := float32(80)
		if len(l.IMEIs) > 0 {
			width = 320
		}
		label := widget.NewLabel(info)
		label.Wrapping = fyne.TextWrapWord
		s.lines.Add(container.NewBorder(nil, nil, nil, container.NewGridWrap(fyne.NewSize(width, q.MinSize().Height), q), label))
	}
	s.lines.Refresh()
	var to []string
	for _, t := range v.To {
		to = append(to, string(t))
	}
	s.to.Options = to
	s.to.SetSelectedIndex(0)
	s.message.SetText("Type the units of each line that come back (or a price adjustment), the reason and a manager's PIN; F5 issues the credit note.")
	s.issue.btn.Enable()
	s.shown()
}

// request reads the screen into a return, or says what is missing.
func (s *returnsScreen) request() (pos.ReturnRequest, string) {
	r := pos.ReturnRequest{Document: s.sale.OrderID, To: pos.RefundTo(s.to.Selected), Reason: s.reason.Text, PIN: s.pin.Text}
	for i, q := range s.qty {
		t := strings.TrimSpace(q.Text)
		if t == "" || t == "0" {
			continue
		}
		l := s.sale.Lines[i]
		if len(l.IMEIs) > 0 && len(t) > 4 { // the IMEIs of the units that come back
			imeis := strings.FieldsFunc(t, func(r rune) bool { return r == ',' || r == ' ' })
			r.Items = append(r.Items, pos.ReturnQty{SKU: l.SKU, Qty: len(imeis), IMEIs: imeis})
			continue
		}
		n, err := strconv.Atoi(t)
		if err != nil || n < 0 || n > l.Left {
			return r, "Type a whole number from 0 to " + strconv.Itoa(l.Left) + " for " + l.Name + "."
		}
		r.Items = append(r.Items, pos.ReturnQty{SKU: l.SKU, Qty: n})
	}
	if a := strings.TrimSpace(s.amount.Text); a != "" {
		p, err := pos.ParsePaise(a)
		if err != nil || p <= 0 {
			return r, "Type the price adjustment in rupees, such as 250 or 250.50."
		}
		r.Amount = p
	}
	switch {
	case len(r.Items) == 0 && r.Amount == 0:
		return r, "Type how many units come back, or an amount for a price adjustment."
	case len(r.Items) > 0 && r.Amount != 0:
		return r, "Return goods or make a price adjustment, not both at once."
	case r.PIN == "":
		return r, "A manager's PIN authorises the return."
	}
	return r, ""
}

// submit issues the credit note and opens it to print.
func (s *returnsScreen) submit() {
	if s.sale == nil || s.issue.btn.Disabled() {
		return
	}
	r, problem := s.request()
	s.pin.SetText("")
	if problem != "" {
		s.message.SetText(problem)
		return
	}
	s.issue.btn.Disable()
	s.message.SetText("Issuing the credit note…")
	s.u.async(func(ctx context.Context) func() {
		res, err := s.r.Return(ctx, r)
		return func() {
			s.issue.btn.Enable()
			if err != nil {
				s.message.SetText(sentence(err))
				return
			}
			switch res.Status {
			case pos.RefundDone:
				s.issue.btn.Disable()
				s.sale = nil
				s.message.SetText("Credit note " + res.CreditNote + " issued for " + res.Refund.Amount.String() + ".")
				s.u.receipt.openRefund(res.Order.ID, "Credit note "+res.CreditNote, s.back)
			case pos.RefundFailed:
				s.message.SetText("The refund was refused: " + res.Reason + " No credit note was issued.")
			default:
				s.issue.btn.Disable()
				s.message.SetText("The refund to the card was sent; its answer is not in yet. It will be checked again and never sent twice; the credit note is issued once it is confirmed.")
			}
		}
	})
}

// openReturns opens the Returns screen on the order chosen in the journal, or
// empty to type or scan the invoice.
func (s *journalScreen) openReturns() {
	rs := newReturnsScreen(s.u, s.u.till.Returns, s)
	s.u.goTo(rs)
	if o, ok := s.selectedOrder(); ok {
		rs.load(o.OrderID)
	}
}
