package ui

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/widget"

	"galla/pos"
)

// emiSorts are the orders the offers can be shown in (pos decides them and the
// default); F3 cycles through them.
var emiSorts = pos.OfferSorts

// emiScreen is screen 3: the EMI offers for a product or the cart, by issuer and
// tenure, sortable and filterable as typed; Enter picks one and goes to the card.
// Its second page takes the IMEI of each serialised unit when the brand needs it.
type emiScreen struct {
	u      *UI
	req    PayRequest
	total  pos.Paise
	offers []EMIOffer
	shown_ []EMIOffer // after the filter
	sortBy int
	hit    int

	root    fyne.CanvasObject
	title   *widget.Label
	filter  *keyEntry
	list    *widget.List
	sortLbl *widget.Label
	message *widget.Label
	pick    *action
	sortA   *action
	back    *action

	imei *imeiScreen
	// tender is a split sale's brand-EMI tender order whose IMEIs the service
	// validated (for tenderOffer), waiting for its card: Back from the card
	// comes to the offers and the same offer goes on with it; another offer,
	// or Back to the sale's tenders, cancels it (no payment was sent on it).
	tender      string
	tenderOffer EMIOffer
}

func newEMIScreen(u *UI) *emiScreen {
	s := &emiScreen{u: u}
	s.title = heading("EMI offers")
	s.filter = newKeyEntry(u)
	s.filter.SetPlaceHolder("Filter by bank, brand or months as you type; Up and Down to choose, Enter to pick")
	s.filter.OnChanged = func(string) { s.apply() }
	s.filter.OnSubmitted = func(string) { s.choose() }
	s.filter.onKey = func(k *fyne.KeyEvent) bool {
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
	s.list = widget.NewList(
		func() int { return len(s.shown_) },
		func() fyne.CanvasObject { return offerRow("", "", "", "", "", "", "") },
		func(i widget.ListItemID, o fyne.CanvasObject) {
			f := s.shown_[i]
			who := f.Issuer
			if f.Debit {
				who += " debit"
			}
			if f.Brand != "" {
				who += " · " + f.Brand
			}
			if f.IMEIRequired {
				who += " · IMEI"
			}
			setRow(o, who, kindName(f), strconv.Itoa(f.TenureMonths)+" months", f.Monthly.String(),
				f.Interest.String(), benefit(f), f.TotalPayable.String())
		})
	s.list.OnSelected = func(i widget.ListItemID) {
		s.hit = i
		u.win.Canvas().Focus(s.filter)
	}
	s.sortLbl = widget.NewLabel("")
	s.message = widget.NewLabel("")
	s.message.Wrapping = fyne.TextWrapWord
	s.pick = u.newAction("Pick offer", fyne.KeyF5, 0, s.choose)
	s.pick.btn.Importance = widget.HighImportance
	s.sortA = u.newAction("Sort", fyne.KeyF3, 0, func() {
		s.sortBy = (s.sortBy + 1) % len(emiSorts)
		s.apply()
	})
	s.back = u.newAction("Back", fyne.KeyEscape, 0, func() {
		s.dropTender()
		u.goTo(u.backFrom(s.req))
	})
	header := offerRow("Issuer", "Plan", "Tenure", "Monthly", "Interest", "Benefit", "Total payable")
	top := container.NewVBox(s.title, s.filter, container.NewHBox(s.sortLbl), header)
	bottom := container.NewVBox(s.message, container.NewGridWithColumns(3, s.back.btn, s.sortA.btn, s.pick.btn))
	s.root = container.NewPadded(container.NewBorder(top, bottom, nil, nil, s.list))
	s.imei = newIMEIScreen(u)
	return s
}

// offerRow is one row of the offers table (also its header).
func offerRow(cells ...string) fyne.CanvasObject {
	return tableRow([]float32{2.2, 1.6, 1.1, 1.3, 1.3, 1.6, 1.4}, 3, cells...)
}

// tableRow is one row of a table whose columns share the width by weight; cells
// from column right on are aligned to the right (amounts).
func tableRow(weights []float32, right int, cells ...string) fyne.CanvasObject {
	row := container.New(&columns{weights: weights})
	for i, c := range cells {
		l := widget.NewLabel(c)
		if i >= right {
			l.Alignment = fyne.TextAlignTrailing
		}
		l.Truncation = fyne.TextTruncateEllipsis
		row.Add(l)
	}
	return row
}

func setRow(o fyne.CanvasObject, cells ...string) {
	for i, c := range o.(*fyne.Container).Objects {
		c.(*widget.Label).SetText(cells[i])
	}
}

func kindName(f EMIOffer) string {
	k := f.Subvention
	if k == "" {
		k = "standard"
	}
	rate := strconv.FormatFloat(float64(f.RateBP)/10000, 'f', -1, 64)
	return strings.ToUpper(k[:1]) + k[1:] + " " + rate + "%"
}

func benefit(f EMIOffer) string {
	if f.Benefit <= 0 {
		return "—"
	}
	if f.Subvention == "no-cost" {
		return "no-cost " + f.Benefit.String()
	}
	return "cashback " + f.Benefit.String()
}

// offerLine describes an offer in one sentence.
func offerLine(f EMIOffer) string {
	s := fmt.Sprintf("%s, %d months at %s a month (%s); total payable %s.", f.Issuer, f.TenureMonths, f.Monthly, kindName(f), f.TotalPayable)
	if f.Benefit > 0 {
		s += " Benefit " + f.Benefit.String() + "."
	}
	return s
}

func (s *emiScreen) view() fyne.CanvasObject { return s.root }

func (s *emiScreen) actions() []*action { return []*action{s.pick, s.sortA, s.back} }

func (s *emiScreen) shown() { s.u.win.Canvas().Focus(s.filter) }

// start asks pos for the offers of req's lines (a product or the cart).
func (s *emiScreen) start(req PayRequest, total pos.Paise, what string) {
	s.dropTender()
	s.req, s.total = req, total
	s.offers, s.shown_ = nil, nil
	s.filter.SetText("")
	s.list.Refresh()
	s.title.SetText(emiTitle(what, total))
	s.message.SetText("Asking the payment service for offers…")
	s.pick.btn.Disable()
	s.u.goTo(s)
	s.u.async(func(ctx context.Context) func() {
		offers, err := s.offersFor(ctx, req)
		return func() {
			if err != nil {
				s.message.SetText(sentence(err))
				return
			}
			s.offers = offers
			if len(offers) == 0 {
				s.message.SetText("No EMI offer for this amount (EMI starts at ₹3,000). Choose another tender.")
				return
			}
			s.message.SetText("")
			s.pick.btn.Enable()
			s.apply()
		}
	})
}

// apply filters and sorts the offers.
func (s *emiScreen) apply() {
	words := strings.Fields(strings.ToLower(s.filter.Text))
	s.shown_ = s.shown_[:0]
	for _, f := range s.offers {
		if pos.OfferMatches(f, words) {
			s.shown_ = append(s.shown_, f)
		}
	}
	pos.SortOffers(s.shown_, pos.OfferSort(s.sortBy))
	s.sortLbl.SetText("Sorted by " + emiSorts[s.sortBy] + "  [F3 to change]    " + plural(len(s.shown_), "offer"))
	s.list.UnselectAll()
	s.list.Refresh()
	s.hit = 0
	if len(s.shown_) > 0 {
		s.list.Select(0)
	}
	if s.u.current == s {
		s.u.win.Canvas().Focus(s.filter)
	}
}

func (s *emiScreen) move(d int) {
	if len(s.shown_) == 0 {
		return
	}
	s.hit = max(0, min(s.hit+d, len(s.shown_)-1))
	s.list.Select(s.hit)
	s.list.ScrollTo(s.hit)
}

// choose takes the highlighted offer to the card form.
func (s *emiScreen) choose() {
	if s.hit < 0 || s.hit >= len(s.shown_) {
		s.message.SetText("Choose an offer first.")
		return
	}
	f := s.shown_[s.hit]
	req := s.req
	req.Offer = &f
	switch {
	case f.IMEIRequired && req.Sale != "" && imeisCover(req.Lines, req.IMEIs):
		// A tender of a split sale: its phones' IMEIs were entered for the
		// sale, and the brand's offer uses them; they are not asked again, but
		// validated with the service on the tender's order before the card.
		s.checkTender(req, f)
	case f.IMEIRequired:
		// A brand offer takes the IMEIs on its own page first: they are
		// validated with the service on the sale's order before the card is
		// asked for.
		req.IMEIs = s.u.sale.serials.imeisFor(req.Lines, req.IMEIs)
		s.imei.start(req, s.total)
	default:
		// Any other offer takes them here, as every phone sold carries its IMEI.
		if !s.u.sale.serials.haveIMEIs(s.choose) {
			return
		}
		req.IMEIs = s.u.sale.serials.imeisFor(req.Lines, req.IMEIs)
		s.u.card.start(req, s.total)
	}
}

// checkTender opens the brand-EMI tender of req, a split sale's, and has its
// IMEIs validated with the service before the card form opens (the service
// needs the order's token): a phone of another brand is said here, on the
// offers, and the sale keeps its other tenders.
func (s *emiScreen) checkTender(req PayRequest, f EMIOffer) {
	chk := s.u.till.Checkout
	if s.tender != "" && sameOffer(s.tenderOffer, f) {
		// Back from the card to the same offer: its validated order goes on.
		req.OrderID = s.tender
		s.u.card.start(req, s.total)
		return
	}
	s.dropTender()
	s.pick.btn.Disable()
	s.message.SetText("Opening the tender and checking the IMEIs with the payment service…")
	s.u.async(func(ctx context.Context) func() {
		id, err := chk.CheckEMIOrder(ctx, req)
		return func() {
			s.pick.btn.Enable()
			if s.u.current != s || s.req.Sale != req.Sale {
				if err == nil {
					s.imei.cancelOrder(id) // left meanwhile: the tender goes unpaid
				}
				return
			}
			if err != nil {
				s.message.SetText(sentence(err))
				return
			}
			s.tender, s.tenderOffer = id, f
			s.message.SetText("")
			req.OrderID = id
			s.u.card.start(req, s.total)
		}
	})
}

// sameOffer reports whether a and b are the same plan of the same issuer.
func sameOffer(a, b EMIOffer) bool {
	return a.Issuer == b.Issuer && a.Debit == b.Debit && a.Brand == b.Brand && a.Program == b.Program &&
		a.TenureMonths == b.TenureMonths && a.TenureID == b.TenureID && a.TotalPayable == b.TotalPayable
}

// dropTender cancels the split tender's validated order, which no payment was
// sent on; the sale stays open with its other tenders.
func (s *emiScreen) dropTender() {
	if s.tender != "" {
		s.imei.cancelOrder(s.tender)
	}
	s.tender = ""
}

// askIMEI opens the IMEI page for req, a brand offer's sale.
func (s *emiScreen) askIMEI(req PayRequest, total pos.Paise) { s.imei.start(req, total) }

// imeiScreen takes one IMEI per serialised unit, typed or scanned, Luhn-checked as
// typed; Enter moves to the next, and from the last the IMEIs are validated with
// the service on the sale's order before the card form opens.
type imeiScreen struct {
	u     *UI
	req   PayRequest
	total pos.Paise
	// order is the brand-EMI order whose IMEIs the service validated (imeis, in
	// entry order), waiting for its card: Back from the card comes here and
	// the same IMEIs go on with it; other IMEIs, or Back to the offers, cancel
	// it (no payment was sent on it).
	order string
	imeis string

	root    *fyne.Container
	form    *fyne.Container
	entries []*keyEntry
	checks  []*widget.Label
	codes   []string // product code per entry
	message *widget.Label
	pay     *action
	back    *action
}

func newIMEIScreen(u *UI) *imeiScreen {
	s := &imeiScreen{u: u}
	s.message = widget.NewLabel("")
	s.message.Wrapping = fyne.TextWrapWord
	s.pay = u.newAction("Next: card", fyne.KeyF5, 0, s.submit)
	s.pay.btn.Importance = widget.HighImportance
	s.back = u.newAction("Back", fyne.KeyEscape, 0, s.cancel)
	s.form = container.NewVBox()
	s.root = container.NewPadded(container.NewBorder(
		container.NewVBox(heading("IMEI of each phone"), widget.NewLabel("The brand's offer needs each unit's IMEI: scan the box's barcode or type the 15 digits.")),
		container.NewVBox(s.message, container.NewGridWithColumns(2, s.back.btn, s.pay.btn)),
		nil, nil, container.NewVScroll(s.form)))
	return s
}

func (s *imeiScreen) view() fyne.CanvasObject { return s.root }

func (s *imeiScreen) actions() []*action { return []*action{s.pay, s.back} }

func (s *imeiScreen) shown() {
	for _, e := range s.entries {
		if pos.CheckIMEI(e.Text) != nil {
			s.u.win.Canvas().Focus(e)
			return
		}
	}
	if len(s.entries) > 0 {
		s.u.win.Canvas().Focus(s.entries[len(s.entries)-1])
	}
}

func (s *imeiScreen) start(req PayRequest, total pos.Paise) {
	s.drop()
	s.req, s.total = req, total
	s.entries, s.checks, s.codes = nil, nil, nil
	s.form.RemoveAll()
	for _, l := range req.Lines {
		if !l.Product.Serialised {
			continue
		}
		for n := 1; n <= l.Qty; n++ {
			e := newKeyEntry(s.u)
			e.SetPlaceHolder("15 digits")
			chk := widget.NewLabel("")
			i := len(s.entries)
			e.OnChanged = func(t string) { s.check(i, t) }
			if imei := nthIMEI(req.IMEIs, l.Product.ProductCode, unitsBefore(req.Lines, l, n)); imei != "" {
				e.SetText(imei) // scanned at the cart already
				s.check(i, imei)
			}
			e.OnSubmitted = func(string) { s.next(i) }
			s.entries = append(s.entries, e)
			s.checks = append(s.checks, chk)
			s.codes = append(s.codes, l.Product.ProductCode)
			s.form.Add(widget.NewLabelWithStyle(fmt.Sprintf("%s, unit %d of %d", l.Product.Name, n, l.Qty), fyne.TextAlignLeading, fyne.TextStyle{Bold: true}))
			s.form.Add(container.NewGridWithColumns(2, e, chk))
		}
	}
	s.message.SetText("")
	s.u.goTo(s)
	if len(s.entries) == 0 {
		s.message.SetText("The cart has no serialised item; nothing to enter.")
	}
}

// check shows whether an IMEI is right as it is typed.
func (s *imeiScreen) check(i int, t string) {
	t = strings.TrimSpace(t)
	switch err := pos.CheckIMEI(t); {
	case t == "":
		s.checks[i].SetText("")
	case err == nil:
		s.checks[i].SetText("✓ IMEI looks right")
	case len(t) < pos.IMEILength && errors.Is(err, pos.ErrIMEILength):
		s.checks[i].SetText(strconv.Itoa(len(t)) + " of 15 digits")
	default:
		s.checks[i].SetText("✗ " + sentence(err))
	}
}

func (s *imeiScreen) next(i int) {
	if pos.CheckIMEI(strings.TrimSpace(s.entries[i].Text)) != nil {
		s.message.SetText("That IMEI is not right: check it against the box.")
		return
	}
	for j := i + 1; j < len(s.entries); j++ {
		if pos.CheckIMEI(strings.TrimSpace(s.entries[j].Text)) != nil {
			s.u.win.Canvas().Focus(s.entries[j])
			return
		}
	}
	s.submit()
}

func (s *imeiScreen) submit() {
	var list []IMEI
	seen := map[string]bool{}
	for i, e := range s.entries {
		t := strings.TrimSpace(e.Text)
		if err := pos.CheckIMEI(t); err != nil {
			s.message.SetText(fmt.Sprintf("IMEI %d is not right: %s", i+1, sentence(err)))
			s.u.win.Canvas().Focus(e)
			return
		}
		if seen[t] {
			s.message.SetText(fmt.Sprintf("IMEI %d is typed twice: each unit has its own.", i+1))
			s.u.win.Canvas().Focus(e)
			return
		}
		seen[t] = true
		list = append(list, IMEI{ProductCode: s.codes[i], IMEI: t})
	}
	req := s.req
	req.IMEIs = list
	key := imeiKey(list)
	chk := s.u.till.Checkout
	switch {
	case req.Offer == nil || req.OrderID != "" || req.Sale != "":
		s.u.card.start(req, s.total)
		return
	case s.order != "" && s.imeis == key:
		// Back from the card with the same IMEIs: their order goes on.
		req.OrderID = s.order
		s.u.card.start(req, s.total)
		return
	}
	s.drop()
	// The order is created and its IMEIs validated with the service before the
	// card is asked for (the service needs the order's token): a wrong brand
	// is said here, with every IMEI typed kept.
	s.pay.btn.Disable()
	s.message.SetText("Creating the order and checking the IMEIs with the payment service…")
	req.AskIMEIOverride = s.u.dialogs.askIMEIOverride
	s.u.async(func(ctx context.Context) func() {
		id, err := chk.CheckEMIOrder(ctx, req)
		return func() {
			s.pay.btn.Enable()
			if s.u.current != s || s.req.Offer != req.Offer {
				if err == nil {
					s.cancelOrder(id) // left meanwhile: the order goes unpaid
				}
				return
			}
			if err != nil {
				s.refused(err)
				return
			}
			s.order, s.imeis = id, key
			s.message.SetText("")
			req.OrderID = id
			req.AskIMEIOverride = nil
			s.u.card.start(req, s.total)
		}
	})
}

// imeiKey is the IMEIs of a page as one text, to tell whether they changed.
func imeiKey(list []IMEI) string {
	var b strings.Builder
	for _, m := range list {
		b.WriteString(m.ProductCode + "=" + m.IMEI + ";")
	}
	return b.String()
}

// drop cancels the page's validated order, which no payment was sent on.
func (s *imeiScreen) drop() {
	if s.order != "" {
		s.cancelOrder(s.order)
	}
	s.order, s.imeis = "", ""
}

func (s *imeiScreen) cancelOrder(id string) {
	c := s.u.till.Checkout
	s.u.async(func(ctx context.Context) func() {
		_ = c.CancelEMIOrder(ctx, id) // a payment already sent on it is never cancelled: pos refuses
		return nil
	})
}

// IMEIChecker validates a brand-EMI sale's IMEIs with the service before the
// card is asked for (pos.Checkout.CheckEMIOrder); the order it opens is then paid,
// or cancelled when the cashier goes back to the offers.
type IMEIChecker interface {
	CheckEMIOrder(ctx context.Context, req PayRequest) (string, error)
	CancelEMIOrder(ctx context.Context, id string) error
}

// refused says which IMEI the service refused and puts the focus on it; every
// IMEI typed stays (the order whose IMEIs were refused is closed by pos, and the
// next try opens a fresh one).
func (s *imeiScreen) refused(err error) {
	s.message.SetText(sentence(err))
	var ie *pos.IMEIError
	if errors.As(err, &ie) && len(ie.Problems) > 0 {
		for i, e := range s.entries {
			if strings.TrimSpace(e.Text) == ie.Problems[0].IMEI {
				s.checks[i].SetText("✗ " + ie.Problems[0].Reason)
				s.u.win.Canvas().Focus(e)
				return
			}
		}
	}
}

func (s *imeiScreen) cancel() {
	s.drop()
	s.u.goTo(s.u.emi)
}

// columns lays its objects out in one row, sharing the width by weight.
type columns struct{ weights []float32 }

func (c *columns) weight(i int) float32 {
	if i < len(c.weights) {
		return c.weights[i]
	}
	return 1
}

func (c *columns) Layout(objs []fyne.CanvasObject, size fyne.Size) {
	var total float32
	for i := range objs {
		total += c.weight(i)
	}
	x := float32(0)
	for i, o := range objs {
		w := size.Width * c.weight(i) / total
		o.Move(fyne.NewPos(x, 0))
		o.Resize(fyne.NewSize(w, size.Height))
		x += w
	}
}

func (c *columns) MinSize(objs []fyne.CanvasObject) fyne.Size {
	var h float32
	for _, o := range objs {
		h = max(h, o.MinSize().Height)
	}
	return fyne.NewSize(float32(len(objs))*40, h)
}

// offersFor are the EMI plans of req: for the lines, or for its part of a split sale.
func (s *emiScreen) offersFor(ctx context.Context, req PayRequest) ([]EMIOffer, error) {
	if req.Sale != "" {
		return s.u.till.Checkout.SaleEMIOffers(ctx, req.Sale, req.Amount)
	}
	return s.u.till.Checkout.EMIOffers(ctx, req.Lines)
}
