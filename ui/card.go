package ui

import (
	"context"
	"strings"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/canvas"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/widget"

	"galla/pos"
)

// cardScreen is screen 4: card number (Luhn and brand checked as typed), expiry, CVV
// (hidden) and holder; Enter moves on and submits from the last field. Once
// submitted the number shows masked. The form is cleared after the payment call,
// on a refusal, on Back and when the screen locks; the number and the CVV cannot be
// copied.
type cardScreen struct {
	u    *UI
	req  PayRequest
	busy bool
	// card is the card whose EMI offer the bank is asked about, until the answer
	// hands it on; reset drops it, and the answer then wipes it and stops.
	card Card

	root    fyne.CanvasObject
	title   *widget.Label
	amount  *canvas.Text
	plan    *widget.Label
	number  *keyEntry
	brand   *widget.Label
	expiry  *keyEntry
	cvv     *keyEntry
	holder  *keyEntry
	message *widget.Label
	submit  *action
	back    *action
}

func newCardScreen(u *UI) *cardScreen {
	s := &cardScreen{u: u}
	s.title = heading("Card payment")
	s.amount = bigText("", sizeBig)
	s.plan = widget.NewLabel("")
	s.plan.Wrapping = fyne.TextWrapWord
	s.number = newKeyEntry(u)
	s.number.noCopy = true
	s.number.SetPlaceHolder("Card number")
	s.number.OnChanged = s.numberTyped
	s.brand = widget.NewLabelWithStyle("", fyne.TextAlignLeading, fyne.TextStyle{Bold: true})
	s.expiry = newKeyEntry(u)
	s.expiry.SetPlaceHolder("Expiry MM/YY")
	s.cvv = newKeyEntry(u)
	s.cvv.Password = true
	s.cvv.noCopy = true
	s.cvv.SetPlaceHolder("CVV")
	s.holder = newKeyEntry(u)
	s.holder.SetPlaceHolder("Name on the card")
	s.number.OnSubmitted = func(string) { u.win.Canvas().Focus(s.expiry) }
	s.expiry.OnSubmitted = func(string) { u.win.Canvas().Focus(s.cvv) }
	s.cvv.OnSubmitted = func(string) { u.win.Canvas().Focus(s.holder) }
	s.holder.OnSubmitted = func(string) { s.send() }
	s.message = widget.NewLabel("")
	s.message.Wrapping = fyne.TextWrapWord
	s.submit = u.newAction("Pay", fyne.KeyF5, 0, s.send)
	s.submit.btn.Importance = widget.HighImportance
	s.back = u.newAction("Back", fyne.KeyEscape, 0, s.cancel)

	form := container.NewVBox(
		s.title, s.amount, s.plan,
		widget.NewLabel("Card number"), s.number, s.brand,
		// Expiry, CVV and holder on one row: a row each is taller than a
		// 1280×720 screen under an EMI plan.
		container.NewGridWithColumns(3,
			container.NewVBox(widget.NewLabel("Expiry (MM/YY)"), s.expiry),
			container.NewVBox(widget.NewLabel("CVV"), s.cvv),
			container.NewVBox(widget.NewLabel("Card holder"), s.holder)),
		s.message,
		container.NewGridWithColumns(2, s.back.btn, s.submit.btn))
	s.root = container.NewPadded(container.New(&columnLayout{width: 600}, form))
	return s
}

func (s *cardScreen) view() fyne.CanvasObject { return s.root }

func (s *cardScreen) actions() []*action { return []*action{s.submit, s.back} }

func (s *cardScreen) shown() {
	if s.busy {
		return
	}
	s.u.win.Canvas().Focus(s.number)
}

// start opens the form for req (a card sale, or an EMI sale with its offer
// chosen). While the live payment service is not the one a manager approved
// on this counter (the status bar's line), it says so and opens nothing:
// no digit of a card is asked for a payment that cannot be taken. The line
// holds for the window's life, since the approval is a command run with the
// window closed.
func (s *cardScreen) start(req PayRequest, total pos.Paise) {
	if hold := s.u.bar.status.Gateway; hold != "" {
		s.u.dialogs.showError(hold)
		return
	}
	s.req = req
	s.reset()
	s.amount.Text = "Amount " + total.String()
	if req.Offer != nil {
		o := req.Offer
		s.title.SetText("EMI: card of " + o.Issuer)
		s.plan.SetText(offerLine(*o))
		s.amount.Text = "Charged now " + o.AuthAmount.String()
		if o.AuthAmount == 0 {
			s.amount.Text = "Amount " + total.String()
		}
	} else {
		s.title.SetText("Card payment")
		s.plan.SetText("")
	}
	switch {
	case req.OrderID != "" && req.Offer != nil && req.Offer.IMEIRequired:
		s.plan.SetText(strings.TrimSpace(s.plan.Text + "\nOrder " + req.OrderID + ": the IMEIs are validated with the payment service."))
	case req.OrderID != "":
		s.plan.SetText(strings.TrimSpace(s.plan.Text + "\nAnother attempt on order " + req.OrderID + "."))
	}
	s.amount.Refresh()
	s.u.goTo(s)
}

// digits keeps the digits of s (a card number may be typed with spaces or dashes).
func digits(s string) string {
	var b strings.Builder
	for _, c := range s {
		if c >= '0' && c <= '9' {
			b.WriteRune(c)
		}
	}
	return b.String()
}

// numberTyped names the brand and checks the Luhn digit as the number is typed.
func (s *cardScreen) numberTyped(text string) {
	if s.busy {
		return
	}
	d := digits(text)
	switch {
	case d == "":
		s.brand.SetText("")
	case len(d) < 12:
		s.brand.SetText(s.u.till.Checkout.CardBrand(d))
	case !pos.Luhn(d):
		s.brand.SetText(s.u.till.Checkout.CardBrand(d) + "  ✗ this number is mistyped (check digit wrong)")
	case len(d) > 19:
		s.brand.SetText("✗ a card number has at most 19 digits")
	default:
		s.brand.SetText(s.u.till.Checkout.CardBrand(d) + "  ✓ number looks right")
	}
}

func (s *cardScreen) send() {
	if s.busy {
		return
	}
	mm, yyyy, ok := parseExpiry(s.expiry.Text)
	if !ok {
		s.refuseAt(s.expiry, "Type the expiry as on the card: month and year, like 08/29.")
		return
	}
	card := s.u.till.Checkout.NewCard(digits(s.number.Text), mm, yyyy, s.cvv.Text, strings.TrimSpace(s.holder.Text))
	if err := card.Check(s.u.now()); err != nil {
		card.Zero()
		s.refuseAt(s.fieldOf(err), sentence(err))
		return
	}
	s.busy = true
	s.number.SetText(card.Brand() + " •••• " + card.Last4())
	s.cvv.SetText("")
	for _, e := range []*keyEntry{s.number, s.expiry, s.cvv, s.holder} {
		e.Disable()
	}
	s.submit.btn.Disable()
	req := s.req
	req.Card = card
	if req.Offer == nil || req.Sale != "" {
		// A tender of a split sale has its scheme checked by Pay, for its part
		// (and a brand offer's IMEIs are the sale's).
		s.message.SetText("")
		s.u.pay.start(req)
		return
	}
	s.message.SetText("Asking the bank whether this card gets the offer…")
	offer := *req.Offer
	s.card = card
	s.u.async(func(ctx context.Context) func() {
		err := s.u.till.Checkout.ValidateScheme(ctx, req.Lines, offer, card)
		return func() {
			if s.card != card { // cancelled or locked meanwhile: the card goes no further
				card.Zero()
				return
			}
			s.card = nil
			if err != nil {
				// The card's bank does not give the offer: another card is typed;
				// the holder's name, the offer and the cart stay.
				card.Zero()
				s.refuseAt(s.number, sentence(err))
				return
			}
			s.message.SetText("The bank gives this offer on this card.")
			if im := s.u.emi.imei; req.OrderID != "" && req.OrderID == im.order {
				im.order, im.imeis = "", "" // the payment takes its order on
			}
			if e := s.u.emi; req.OrderID != "" && req.OrderID == e.tender {
				e.tender = "" // the payment takes the split tender's order on
			}
			s.u.pay.start(req) // a brand offer's IMEIs were validated on its order before the card
		}
	})
}

// refuseAt says why the card was refused and puts the focus on field, the one to
// fix, which is cleared with the CVV (never kept after a refusal); the other
// fields keep what was typed.
func (s *cardScreen) refuseAt(field *keyEntry, why string) {
	keep := map[*keyEntry]string{}
	for _, e := range []*keyEntry{s.number, s.expiry, s.holder} {
		if e != field && !(e == s.number && s.busy) { // a number sent is shown masked: typed again
			keep[e] = e.Text
		}
	}
	if field == s.number {
		delete(keep, s.expiry) // another card: its own expiry
	}
	s.reset()
	for e, t := range keep {
		e.SetText(t)
	}
	s.message.SetText(why)
	if s.u.current == s {
		s.u.win.Canvas().Focus(field)
	}
}

// fieldOf is the field a refusal of the card's own check is about.
func (s *cardScreen) fieldOf(err error) *keyEntry {
	msg := strings.ToLower(err.Error())
	switch {
	case strings.Contains(msg, "cvv"):
		return s.cvv
	case strings.Contains(msg, "expir"):
		return s.expiry
	case strings.Contains(msg, "holder"):
		return s.holder
	}
	return s.number
}

// reset clears the form after the payment call, a refusal, Back or a lock.
func (s *cardScreen) reset() {
	s.busy = false
	s.card = nil
	for _, e := range []*keyEntry{s.number, s.expiry, s.cvv, s.holder} {
		e.Enable()
		e.SetText("")
	}
	s.brand.SetText("")
	s.message.SetText("")
	s.submit.btn.Enable()
}

func (s *cardScreen) cancel() {
	if s.req.Card != nil {
		s.req.Card.Zero()
	}
	s.reset()
	if im := s.u.emi.imei; s.req.OrderID != "" && s.req.OrderID == im.order {
		s.u.goTo(im) // the IMEIs validated on this order: Back once more to the offers
		return
	}
	if s.req.Offer != nil {
		s.u.goTo(s.u.emi)
		return
	}
	s.u.goTo(s.u.backFrom(s.req))
}

// parseExpiry reads "MM/YY", "MM/YYYY" or "MMYY" as a two-digit month and a
// four-digit year.
func parseExpiry(t string) (mm, yyyy string, ok bool) {
	d := digits(t)
	switch len(d) {
	case 4:
		mm, yyyy = d[:2], "20"+d[2:]
	case 6:
		mm, yyyy = d[:2], d[2:]
	default:
		return "", "", false
	}
	if mm < "01" || mm > "12" {
		return "", "", false
	}
	return mm, yyyy, true
}
