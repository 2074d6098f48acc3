package ui

import (
	"context"
	"errors"
	"fmt"
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
	imeis   []IMEI // the IMEI of each phone in the cart (serial.go)
	bill    Bill
	results []Product
	hit     int // highlighted result
	sel     int // selected cart line
	bestEMI map[string]string
	// The cart's open payment: the run in flight (nil once its call ended) and its
	// order. While pos says the cart is locked to it (CartLock), no tender is taken
	// and no line changes.
	lockRun  *payRun
	payOrder string
	lock     CartLock
	// buyer is who the invoice names (the customer panel); nil: a walk-in.
	buyer      *pos.Buyer
	interstate bool // the buyer's place of supply is another state: IGST
	buyerInfo  *widget.Label
	customerA  *action

	root     fyne.CanvasObject
	scan     *keyEntry
	found    *widget.List
	cart     *widget.List
	total    *canvas.Text
	gst      *widget.Label
	count    *widget.Label
	emiHint  *widget.Label
	message  *widget.Label
	qty      *action
	discount *action
	remove   *action
	emiItem  *action
	card     *action
	emi      *action
	cashA    *action
	phoneA   *action
	splitA   *action // split tender and UPI (tender.go)
	newSale  *action
	clearA   *action
	holdA    *action // hold.go
	recallA  *action
	// The open sales (tender.go): split sales left part paid, shown above the
	// scan field with the key back to them, whatever the cart holds.
	openSales []*SaleStatus
	openRow   *fyne.Container
	openText  *widget.Label
	openA     *action
}

func newSaleScreen(u *UI) *saleScreen {
	s := &saleScreen{u: u, sel: -1, bestEMI: map[string]string{}}
	s.scan = newKeyEntry(u)
	s.scan.SetPlaceHolder("Scan a barcode or type a name or code, then Enter")
	s.scan.OnChanged = s.search
	s.scan.OnSubmitted = s.submit
	s.scan.onKey = s.key

	s.found = widget.NewList(
		func() int { return len(s.results) },
		func() fyne.CanvasObject {
			return container.NewBorder(nil, nil, nil, widget.NewLabel("₹1,00,000.00"), widget.NewLabel("Product name"))
		},
		func(i widget.ListItemID, o fyne.CanvasObject) {
			p := s.results[i]
			c := o.(*fyne.Container)
			c.Objects[0].(*widget.Label).SetText(p.Name + "  ·  " + p.SKU)
			c.Objects[1].(*widget.Label).SetText(p.Price.String())
		})
	s.found.OnSelected = func(i widget.ListItemID) {
		if i < len(s.results) {
			s.hit = i
		}
	}
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
		u.win.Canvas().Focus(s.scan)
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
	s.customerA = u.newAction("Customer", fyne.KeyU, fyne.KeyModifierControl, func() { s.askCustomer("") })
	s.buyerInfo = widget.NewLabel("")
	s.buyerInfo.Wrapping = fyne.TextWrapWord
	s.holdA = u.newAction("Hold", fyne.KeyH, fyne.KeyModifierControl, s.hold)
	s.recallA = u.newAction("Held bills", fyne.KeyR, fyne.KeyModifierControl, s.recall)
	s.clearA = u.newAction("Clear field", fyne.KeyEscape, 0, func() {
		s.scan.SetText("")
		s.message.SetText("")
	})
	for _, a := range []*action{s.card, s.emi, s.cashA, s.phoneA} {
		a.btn.Importance = widget.HighImportance
	}

	results := container.NewBorder(widget.NewLabel("Matches (Up and Down to choose, Enter to add)"), nil, nil, nil, s.found)
	cart := container.NewBorder(
		container.NewBorder(nil, nil, heading("Cart"), s.count),
		container.NewGridWithColumns(3, s.qty.btn, s.discount.btn, s.remove.btn, s.holdA.btn, s.recallA.btn, s.newSale.btn),
		nil, nil, s.cart)
	split := container.NewVSplit(results, cart)
	split.Offset = 0.3
	s.openText = widget.NewLabelWithStyle("", fyne.TextAlignLeading, fyne.TextStyle{Bold: true})
	s.openText.Wrapping = fyne.TextWrapWord
	s.openText.Importance = widget.WarningImportance
	s.openA = u.newAction("Continue it", fyne.KeyF1, 0, s.continueOpen) // tender.go
	s.openRow = container.NewBorder(nil, nil, nil, s.openA.btn, s.openText)
	s.openRow.Hide()
	left := container.NewBorder(container.NewVBox(s.openRow, s.scan, s.message), nil, nil, nil, split)

	totals := container.NewVBox(
		widget.NewLabelWithStyle("Total to pay", fyne.TextAlignTrailing, fyne.TextStyle{}),
		s.total, s.gst, widget.NewSeparator(), s.buyerInfo, s.customerA.btn, widget.NewSeparator(), s.emiHint, s.emiItem.btn, layout.NewSpacer())
	tenders := container.NewVBox(container.NewGridWithColumns(2, s.card.btn, s.emi.btn, s.cashA.btn, s.phoneA.btn), s.splitA.btn)
	right := container.NewBorder(nil, tenders, nil, nil, totals)
	s.root = container.NewPadded(container.New(&ratioLayout{ratio: 0.6}, left, right))
	s.showBuyer()
	s.refresh()
	return s
}

func (s *saleScreen) view() fyne.CanvasObject { return s.root }

func (s *saleScreen) actions() []*action {
	return []*action{s.qty, s.discount, s.remove, s.emiItem, s.card, s.emi, s.cashA, s.phoneA, s.splitA, s.newSale, s.customerA, s.clearA, s.holdA, s.recallA, s.openA}
}

func (s *saleScreen) shown() {
	s.u.win.Canvas().Focus(s.scan)
	s.loadOpenSales() // tender.go: the open sales, in the banner above the scan field
	if s.lock.Locked && s.lockRun == nil {
		s.checkLock()
	}
}

// paymentStarted locks the cart to the payment run takes of it. A tender of an
// open split sale is that sale's: it neither locks nor, once paid, empties the
// counter's cart, which may be the next customer's by then.
func (s *saleScreen) paymentStarted(run *payRun) {
	if run.req.Sale != "" {
		return
	}
	s.lockRun, s.payOrder = run, run.req.OrderID
	s.lock = CartLock{Locked: true, Reason: "A payment of this cart is in progress: wait for its result before another tender or a change to the cart."}
	s.refresh()
}

// paymentOrder records the order of the cart's payment run.
func (s *saleScreen) paymentOrder(run *payRun, id string) {
	if s.lockRun == run {
		s.payOrder = id
	}
}

// paymentDone ends the call of the cart's payment run: a verified PAID sells the
// cart; anything else is for pos to say (CartLock).
func (s *saleScreen) paymentDone(run *payRun, o Outcome, err error) {
	if s.lockRun != run {
		return
	}
	s.lockRun = nil
	if o.OrderID != "" {
		s.payOrder = o.OrderID
	}
	if err == nil && o.State.Paid() && o.Verified {
		s.clear()
		return
	}
	s.checkLock()
}

// resolved is told that order id became final in the background.
func (s *saleScreen) resolved(id string) {
	if id != "" && s.payOrder == id && s.lockRun == nil {
		s.checkLock()
	}
}

// checkLock asks pos whether the cart is still locked to its payment.
func (s *saleScreen) checkLock() {
	id := s.payOrder
	if s.lockRun != nil {
		return
	}
	if id == "" {
		s.lock = CartLock{}
		s.refresh()
		return
	}
	s.u.async(func(ctx context.Context) func() {
		l := s.u.till.Pending.CartLock(ctx, id)
		return func() {
			if s.payOrder != id || s.lockRun != nil {
				return // the cart moved on meanwhile
			}
			if l.Paid {
				s.clear()
				s.message.SetText(l.Reason + " That cart is sold; this is the next sale.")
				return
			}
			s.lock = l
			if !l.Locked {
				s.payOrder = ""
			}
			s.message.SetText(l.Reason)
			s.refresh()
		}
	})
}

// locked says why the cart takes no tender and no change now, if it is locked.
func (s *saleScreen) locked() bool {
	if s.lock.Locked {
		s.message.SetText(s.lock.Reason)
	}
	return s.lock.Locked
}

// key moves the highlight in the matches (when something is typed) or the cart.
func (s *saleScreen) key(k *fyne.KeyEvent) bool {
	d := 0
	switch k.Name {
	case fyne.KeyUp:
		d = -1
	case fyne.KeyDown:
		d = 1
	default:
		return false
	}
	if s.scan.Text != "" && len(s.results) > 0 {
		s.hit = max(0, min(s.hit+d, len(s.results)-1))
		s.found.Select(s.hit)
		s.found.ScrollTo(s.hit)
	} else if len(s.lines) > 0 {
		s.selectLine(max(0, min(s.sel+d, len(s.lines)-1)))
	}
	s.u.win.Canvas().Focus(s.scan)
	return true
}

// search shows the matches of what is typed so far.
func (s *saleScreen) search(q string) {
	q = strings.TrimSpace(q)
	if q == "" {
		s.results = nil
	} else {
		s.results = s.u.till.Catalog.Search(q, 20)
	}
	s.hit = 0
	s.found.UnselectAll()
	s.found.Refresh()
	if len(s.results) > 0 {
		s.found.Select(0)
	}
}

// submit adds the scanned or chosen product: an exact code first (a scanner), else
// the highlighted match.
func (s *saleScreen) submit(text string) {
	text = strings.TrimSpace(text)
	if text == "" {
		return
	}
	p, ok := s.u.till.Catalog.Lookup(text)
	if !ok && len(s.results) > 0 && s.hit < len(s.results) {
		p, ok = s.results[s.hit], true
	}
	s.scan.SetText("")
	if !ok {
		s.message.SetText("Nothing in the catalog matches “" + text + "”. Check the code or search by name.")
		return
	}
	s.message.SetText("")
	s.add(p)
}

// add puts one of p in the cart (one more on its line when it is there already).
func (s *saleScreen) add(p Product) {
	if s.locked() {
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
	return nil
}

func (s *saleScreen) refresh() {
	s.total.Text = s.bill.Total.String()
	s.total.Refresh()
	if len(s.lines) == 0 {
		s.gst.SetText("")
		s.count.SetText("Cart is empty")
	} else {
		txt := s.taxLine()
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
	off := len(s.lines) == 0 || s.lock.Locked
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
				h = p.Name + ": EMI from " + wholeRupees(best.Monthly) + "/month"
				s.bestEMI[p.SKU] = h
			}
			if s.sel >= 0 && s.sel < len(s.lines) && s.lines[s.sel].Product.SKU == p.SKU {
				s.emiHint.SetText(h)
			}
		}
	})
}

// wholeRupees shows an amount rounded up to whole rupees: "₹2,499".
func wholeRupees(p pos.Paise) string {
	r := (p + 99) / 100 * 100
	return strings.TrimSuffix(r.String(), ".00")
}

func (s *saleScreen) selected() (int, bool) {
	if s.locked() {
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
	s.lockRun, s.payOrder, s.lock = nil, "", CartLock{}
	s.lines, s.imeis = nil, nil
	s.bill = Bill{}
	s.buyer, s.interstate = nil, false
	s.showBuyer()
	s.sel = -1
	s.scan.SetText("")
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
	if s.locked() {
		return false
	}
	if len(s.lines) == 0 {
		s.message.SetText("The cart is empty: scan something first.")
		return false
	}
	return s.reprice() && s.checkBuyer()
}

func (s *saleScreen) request(t pos.TenderKind) PayRequest {
	req := PayRequest{Lines: append([]Line(nil), s.lines...), IMEIs: append([]IMEI(nil), s.imeis...), Tender: t, Cashier: s.u.user.Name}
	if s.buyer != nil {
		b := *s.buyer
		req.Buyer = &b
	}
	return req
}

func (s *saleScreen) payCard() {
	if s.ready() && s.haveIMEIs(s.payCard) {
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
	if s.ready() && s.haveIMEIs(s.payCash) {
		s.u.cash.start(s.request(pos.TenderCash), s.bill.Total)
	}
}

func (s *saleScreen) payPhone() {
	if s.ready() && s.haveIMEIs(s.payPhone) {
		s.u.pay.start(s.request(pos.TenderPhone))
	}
}

// ratioLayout puts two objects side by side, the first taking ratio of the width.
type ratioLayout struct{ ratio float32 }

func (r *ratioLayout) Layout(objs []fyne.CanvasObject, size fyne.Size) {
	if len(objs) < 2 {
		return
	}
	pad := float32(12)
	w := size.Width*r.ratio - pad/2
	objs[0].Move(fyne.NewPos(0, 0))
	objs[0].Resize(fyne.NewSize(w, size.Height))
	objs[1].Move(fyne.NewPos(w+pad, 0))
	objs[1].Resize(fyne.NewSize(size.Width-w-pad, size.Height))
}

func (r *ratioLayout) MinSize(objs []fyne.CanvasObject) fyne.Size {
	if len(objs) < 2 {
		return fyne.NewSize(0, 0)
	}
	a, b := objs[0].MinSize(), objs[1].MinSize()
	return fyne.NewSize(a.Width+b.Width+12, max(a.Height, b.Height))
}
