package ui

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/canvas"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/layout"
	"fyne.io/fyne/v2/widget"

	"galla/pos"
)

// saleScreen is screen 2: the scan/search field keeps the focus (a scanner types the
// code and Enter), matches show as typed, the cart with quantities, discounts and
// its totals with the GST split, and the tenders.
type saleScreen struct {
	u       *UI
	lines   []Line
	bill    Bill
	sel     int // selected cart line
	bestEMI map[string]string

	finder   *productFinder // product_finder.go
	payment  *cartPayment   // cart_payment.go
	customer *saleCustomer  // sale_customer.go
	serials  *cartIMEIs     // cart_imeis.go
	held     *heldBills     // held_bills.go

	root    fyne.CanvasObject
	cart    *widget.List
	total   *canvas.Text
	gst     *widget.Label
	count   *widget.Label
	emiHint *widget.Label
	message *widget.Label
	// shortShown is the stock warning the message last showed (warnShort).
	shortShown string
	qty        *action
	discount   *action
	remove     *action
	emiItem    *action
	card       *action
	emi        *action
	cashA      *action
	phoneA     *action
	splitA     *action // split tender and UPI (tender.go)
	newSale    *action
	clearA     *action
	// The open sales (tender.go): split sales left part paid, shown above the
	// scan field with the key back to them, whatever the cart holds.
	openSales []*SaleStatus
	openRow   *fyne.Container
	openText  *widget.Label
	openA     *action
}

func newSaleScreen(u *UI) *saleScreen {
	s := &saleScreen{u: u, sel: -1, bestEMI: map[string]string{}}
	s.finder = newProductFinder(s)
	s.payment = &cartPayment{s: s}
	s.serials = &cartIMEIs{s: s}
	s.cart = widget.NewList(
		func() int { return len(s.lines) },
		func() fyne.CanvasObject {
			return container.NewBorder(nil, nil, nil,
				container.NewHBox(widget.NewLabel("99 × ₹1,00,000.00"), widget.NewLabel("−₹1,000.00"), widget.NewLabelWithStyle("₹1,00,000.00", fyne.TextAlignTrailing, fyne.TextStyle{Bold: true})),
				widget.NewLabel("Product name"))
		},
		func(i widget.ListItemID, o fyne.CanvasObject) {
			l := s.lines[i]
			c := o.(*fyne.Container)
			c.Objects[0].(*widget.Label).SetText(l.Product.Name)
			right := c.Objects[1].(*fyne.Container)
			right.Objects[0].(*widget.Label).SetText(fmt.Sprintf("%d × %s", l.Qty, l.Product.Price))
			d := ""
			if l.Discount > 0 {
				d = "−" + l.Discount.String()
			}
			right.Objects[1].(*widget.Label).SetText(d)
			amt := ""
			if i < len(s.bill.Lines) {
				amt = s.bill.Lines[i].String()
			}
			right.Objects[2].(*widget.Label).SetText(amt)
		})
	s.cart.OnSelected = func(i widget.ListItemID) {
		s.sel = i
		s.showEMIHint()
		u.win.Canvas().Focus(s.finder.scan)
	}

	s.total = bigText(pos.Paise(0).String(), sizeTotal)
	s.total.Alignment = fyne.TextAlignTrailing
	s.gst = widget.NewLabelWithStyle("", fyne.TextAlignTrailing, fyne.TextStyle{})
	s.gst.Wrapping = fyne.TextWrapWord
	s.count = widget.NewLabel("Cart is empty")
	s.emiHint = widget.NewLabelWithStyle("", fyne.TextAlignLeading, fyne.TextStyle{Bold: true})
	s.emiHint.Wrapping = fyne.TextWrapWord
	s.message = widget.NewLabel("")
	s.message.Wrapping = fyne.TextWrapWord

	s.qty = u.newAction("Quantity", fyne.KeyF3, 0, s.askQty)
	s.discount = u.newAction("Discount", fyne.KeyF4, 0, s.askDiscount)
	s.remove = u.newAction("Remove", fyne.KeyDelete, fyne.KeyModifierControl, s.removeLine)
	s.emiItem = u.newAction("EMI for item", fyne.KeyE, fyne.KeyModifierControl, s.emiForItem)
	s.card = u.newAction("Card", fyne.KeyF5, 0, s.payCard)
	s.emi = u.newAction("EMI", fyne.KeyF6, 0, s.payEMI)
	s.cashA = u.newAction("Cash", fyne.KeyF7, 0, s.payCash)
	s.phoneA = u.newAction("Pay on phone", fyne.KeyF8, 0, s.payPhone)
	s.splitA = u.newAction("Split / UPI", fyne.KeyF11, 0, s.paySplit) // tender.go
	s.newSale = u.newAction("New sale", fyne.KeyN, fyne.KeyModifierControl, s.clear)
	s.customer = newSaleCustomer(s)
	s.held = newHeldBills(s)
	s.clearA = u.newAction("Clear field", fyne.KeyEscape, 0, func() {
		s.finder.scan.SetText("")
		s.message.SetText("")
	})
	for _, a := range []*action{s.card, s.emi, s.cashA, s.phoneA} {
		a.btn.Importance = widget.HighImportance
	}

	results := container.NewBorder(widget.NewLabel("Matches (Up and Down to choose, Enter to add)"), nil, nil, nil, s.finder.found)
	cart := container.NewBorder(
		container.NewBorder(nil, nil, heading("Cart"), s.count),
		container.NewGridWithColumns(3, s.qty.btn, s.discount.btn, s.remove.btn, s.held.holdA.btn, s.held.recallA.btn, s.newSale.btn),
		nil, nil, s.cart)
	split := container.NewVSplit(results, cart)
	split.Offset = 0.3
	s.openText = widget.NewLabelWithStyle("", fyne.TextAlignLeading, fyne.TextStyle{Bold: true})
	s.openText.Wrapping = fyne.TextWrapWord
	s.openText.Importance = widget.WarningImportance
	s.openA = u.newAction("Continue it", fyne.KeyF1, 0, s.continueOpen) // tender.go
	s.openRow = container.NewBorder(nil, nil, nil, s.openA.btn, s.openText)
	s.openRow.Hide()
	left := container.NewBorder(container.NewVBox(s.openRow, s.finder.scan, s.message), nil, nil, nil, split)

	totals := container.NewVBox(
		widget.NewLabelWithStyle("Total to pay", fyne.TextAlignTrailing, fyne.TextStyle{}),
		s.total, s.gst, widget.NewSeparator(), s.customer.buyerInfo, s.customer.customerA.btn, widget.NewSeparator(), s.emiHint, s.emiItem.btn, layout.NewSpacer())
	tenders := container.NewVBox(container.NewGridWithColumns(2, s.card.btn, s.emi.btn, s.cashA.btn, s.phoneA.btn), s.splitA.btn)
	right := container.NewBorder(nil, tenders, nil, nil, totals)
	s.root = container.NewPadded(container.New(&ratioLayout{ratio: 0.6}, left, right))
	s.customer.showBuyer()
	s.refresh()
	return s
}

func (s *saleScreen) view() fyne.CanvasObject { return s.root }

func (s *saleScreen) actions() []*action {
	return []*action{s.qty, s.discount, s.remove, s.emiItem, s.card, s.emi, s.cashA, s.phoneA, s.splitA, s.newSale, s.customer.customerA, s.clearA, s.held.holdA, s.held.recallA, s.openA}
}

func (s *saleScreen) shown() {
	s.u.win.Canvas().Focus(s.finder.scan)
	s.loadOpenSales() // tender.go: the open sales, in the banner above the scan field
	if s.payment.lock.Locked && s.payment.lockRun == nil {
		s.payment.checkLock()
	}
}

// add puts one of p in the cart (one more on its line when it is there already).
func (s *saleScreen) add(p Product) {
	if s.payment.locked() {
		return
	}
	var i int
	s.lines, i = pos.AddToCart(s.lines, p)
	s.reprice()
	s.selectLine(i)
}

func (s *saleScreen) selectLine(i int) {
	if i < 0 || i >= len(s.lines) {
		s.sel = -1
		s.cart.UnselectAll()
		s.showEMIHint()
		return
	}
	s.sel = i
	s.cart.Select(i)
	s.cart.ScrollTo(i)
	s.showEMIHint()
}

// reprice asks pos for the bill and shows it. A refusal (say, a discount above the
// limit) is shown and the cart is left as pos last accepted it.
func (s *saleScreen) reprice() bool {
	if err := s.price(); err != nil {
		s.message.SetText(sentence(err))
		return false
	}
	return true
}

// price asks pos for the bill and shows it, or returns pos's refusal.
func (s *saleScreen) price() error {
	b, err := s.u.till.Catalog.Price(s.lines)
	if err != nil {
		return err
	}
	s.bill = b
	s.refresh()
	s.warnShort()
	return nil
}

// warnShort says under the scan field, once the till has answered, which
// items not serialised the cart takes below what is on hand (the sale goes
// on; the stock list shows it below zero), and takes the warning away when
// none is short any more.
func (s *saleScreen) warnShort() {
	lines := slices.Clone(s.lines)
	s.u.async(func(ctx context.Context) func() {
		short, err := s.u.till.Stock.Short(ctx, lines)
		return func() {
			w := ""
			if err == nil {
				w = pos.ShortWarning(short)
			}
			switch {
			case w != "":
				s.message.SetText(w)
			case s.shortShown != "" && s.message.Text == s.shortShown:
				s.message.SetText("")
			}
			s.shortShown = w
		}
	})
}

func (s *saleScreen) refresh() {
	s.total.Text = s.bill.Total.String()
	s.total.Refresh()
	if len(s.lines) == 0 {
		s.gst.SetText("")
		s.count.SetText("Cart is empty")
	} else {
		txt := s.customer.taxLine()
		if s.bill.Discount > 0 {
			txt = "Discount −" + s.bill.Discount.String() + "\n" + txt
		}
		s.gst.SetText(txt)
		n := 0
		for _, l := range s.lines {
			n += l.Qty
		}
		s.count.SetText(plural(n, "item"))
	}
	s.cart.Refresh()
	off := len(s.lines) == 0 || s.payment.lock.Locked
	for _, a := range []*action{s.qty, s.discount, s.remove, s.emiItem, s.card, s.emi, s.cashA, s.phoneA} {
		if off {
			a.btn.Disable()
		} else {
			a.btn.Enable()
		}
	}
}

// showEMIHint shows the selected product's best EMI offer, asking pos once per product.
func (s *saleScreen) showEMIHint() {
	if s.sel < 0 || s.sel >= len(s.lines) {
		s.emiHint.SetText("")
		return
	}
	p := s.lines[s.sel].Product
	if h, ok := s.bestEMI[p.SKU]; ok {
		s.emiHint.SetText(h)
		return
	}
	s.emiHint.SetText(p.Name + ": looking up EMI offers…")
	s.u.async(func(ctx context.Context) func() {
		offers, err := s.u.till.Checkout.EMIOffers(ctx, []Line{{Product: p, Qty: 1}})
		return func() {
			h := ""
			switch {
			case err != nil:
				h = p.Name + ": EMI offers are not available now."
			case len(offers) == 0:
				h = p.Name + ": no EMI offer."
			default:
				best, _ := pos.EMIFrom(offers)
				h = p.Name + ": EMI from " + wholeRupees(best.Figures().Last) + "/month"
				s.bestEMI[p.SKU] = h
			}
			if s.sel >= 0 && s.sel < len(s.lines) && s.lines[s.sel].Product.SKU == p.SKU {
				s.emiHint.SetText(h)
			}
		}
	})
}

// wholeRupees shows an amount rounded up to whole rupees: "₹2,499". The hint
// quotes the customer's largest instalment (EMIFigures.Last) so rounded: no
// month costs more than it says.
func wholeRupees(p pos.Paise) string {
	r := (p + 99) / 100 * 100
	return strings.TrimSuffix(r.String(), ".00")
}

func (s *saleScreen) selected() (int, bool) {
	if s.payment.locked() {
		return 0, false
	}
	if s.sel < 0 || s.sel >= len(s.lines) {
		s.message.SetText("Choose a cart line first (Up and Down with the field empty).")
		return 0, false
	}
	return s.sel, true
}

func (s *saleScreen) askQty() {
	i, ok := s.selected()
	if !ok {
		return
	}
	in := newKeyEntry(s.u)
	in.SetText(strconv.Itoa(s.lines[i].Qty))
	s.u.dialogs.ask("Quantity", "How many "+s.lines[i].Product.Name+"?", []*keyEntry{in}, func(p *prompt) {
		n, err := strconv.Atoi(strings.TrimSpace(in.Text))
		if err != nil || n < 1 || n > 999 {
			p.say("Type a whole number from 1 to 999.")
			return
		}
		old := s.lines[i].Qty
		s.lines[i].Qty = n
		if !s.reprice() {
			s.lines[i].Qty = old
			p.say(s.message.Text)
			return
		}
		p.close()
	})
}

func (s *saleScreen) askDiscount() {
	i, ok := s.selected()
	if !ok {
		return
	}
	l := s.lines[i]
	limit := s.u.till.Catalog.DiscountLimit(l)
	amount := newKeyEntry(s.u)
	amount.SetPlaceHolder("Amount off the line, e.g. 500")
	pin := newKeyEntry(s.u)
	pin.Password = true
	text := "Discount on " + l.Product.Name + ". Up to " + limit.String() + " without a manager."
	if limit <= 0 {
		pin.SetPlaceHolder("Manager PIN")
		text = "Discount on " + l.Product.Name + ". Every discount needs a manager's PIN."
	} else {
		pin.SetPlaceHolder("Manager PIN (only above " + limit.String() + ")")
	}
	var p *prompt
	defer func() { amount.OnSubmitted = func(string) { p.confirm() } }() // Enter on the amount confirms; the PIN only when asked
	p = s.u.dialogs.ask("Discount", text, []*keyEntry{amount, pin}, func(p *prompt) {
		d, err := pos.ParsePaise(amount.Text)
		if err != nil || d < 0 {
			p.say("Type the amount in rupees, like 500 or 499.50.")
			return
		}
		// apply puts the discount on the line, approved by the named manager (or
		// nobody); pos decides whether it stands.
		apply := func(by string) error {
			old := s.lines[i]
			s.lines[i].Discount, s.lines[i].ApprovedBy = d, by
			if err := s.price(); err != nil {
				s.lines[i] = old
				return err
			}
			s.message.SetText("")
			p.close()
			return nil
		}
		err = apply("")
		switch {
		case err == nil:
			pin.SetText("")
			return
		case !errors.Is(err, pos.ErrDiscountNeedsManager):
			p.say(sentence(err))
			return
		case pin.Text == "":
			p.message.SetText(sentence(err) + " Type it below, then Enter.")
			s.u.win.Canvas().Focus(pin)
			return
		}
		code := pin.Text
		pin.SetText("")
		p.ok.Disable()
		o := Override{What: pos.OverrideDiscount, SKU: l.Product.SKU, Amount: d, By: s.u.user.ID}
		s.u.async(func(ctx context.Context) func() {
			m, err := s.u.till.Staffer.Authorize(ctx, code, o)
			return func() {
				p.ok.Enable()
				if err != nil {
					p.message.SetText(sentence(err))
					s.u.win.Canvas().Focus(pin)
					return
				}
				if err := apply(m.Name); err != nil {
					p.say(sentence(err))
				}
			}
		})
	})
}

func (s *saleScreen) removeLine() {
	i, ok := s.selected()
	if !ok {
		return
	}
	s.lines = append(s.lines[:i:i], s.lines[i+1:]...)
	s.reprice()
	s.selectLine(min(i, len(s.lines)-1))
	s.shown()
}

// clear empties the cart for the next customer. A payment of the old cart still
// pending stays in the status bar and the journal.
func (s *saleScreen) clear() {
	s.payment.lockRun, s.payment.payOrder, s.payment.lock = nil, "", CartLock{}
	s.lines, s.serials.imeis = nil, nil
	s.bill = Bill{}
	s.customer.buyer, s.customer.interstate = nil, false
	s.customer.showBuyer()
	s.sel = -1
	s.finder.scan.SetText("")
	s.message.SetText("")
	s.emiHint.SetText("")
	s.cart.UnselectAll()
	s.refresh()
	if s.u.current == s {
		s.shown()
	}
}

// ready reports whether the cart can be paid, saying why not.
func (s *saleScreen) ready() bool {
	if s.payment.locked() {
		return false
	}
	if len(s.lines) == 0 {
		s.message.SetText("The cart is empty: scan something first.")
		return false
	}
	return s.reprice() && s.customer.checkBuyer()
}

func (s *saleScreen) request(t pos.TenderKind) PayRequest {
	req := PayRequest{Lines: append([]Line(nil), s.lines...), IMEIs: append([]IMEI(nil), s.serials.imeis...), Tender: t, Cashier: s.u.user.Name}
	if s.customer.buyer != nil {
		b := *s.customer.buyer
		req.Buyer = &b
	}
	return req
}

func (s *saleScreen) payCard() {
	if s.ready() && s.serials.haveIMEIs(s.payCard) {
		s.u.card.start(s.request(pos.TenderCard), s.bill.Total)
	}
}

func (s *saleScreen) payEMI() {
	if s.ready() {
		s.u.emi.start(s.request(pos.TenderEMI), s.bill.Total, "the whole cart")
	}
}

func (s *saleScreen) emiForItem() {
	i, ok := s.selected()
	if !ok || !s.ready() {
		return
	}
	req := s.request(pos.TenderEMI)
	req.Lines = []Line{s.lines[i]}
	b, err := s.u.till.Catalog.Price(req.Lines)
	if err != nil {
		s.message.SetText(sentence(err))
		return
	}
	s.u.emi.start(req, b.Total, s.lines[i].Product.Name)
}

func (s *saleScreen) payCash() {
	if s.ready() && s.serials.haveIMEIs(s.payCash) {
		s.u.cash.start(s.request(pos.TenderCash), s.bill.Total)
	}
}

func (s *saleScreen) payPhone() {
	if s.ready() && s.serials.haveIMEIs(s.payPhone) {
		s.u.pay.start(s.request(pos.TenderPhone))
	}
}
