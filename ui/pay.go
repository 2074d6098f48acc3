package ui

import (
	"context"
	"fmt"
	"image/color"
	"net"
	"net/url"
	"strings"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/canvas"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/layout"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"github.com/skip2/go-qrcode"

	"galla/pos"
)

// stepNames are the steps the progress screen shows, in order.
var stepNames = [...]string{"Order created", "Customer authenticating", "Verifying with the payment service", "Paid"}

// payScreen is screen 5: the steps of a payment, the polling schedule, the sandbox's
// OTP step in the window, and an unmistakable result. The payment runs in the
// background: Escape goes back to the counter and the result arrives anyway.
// Backing out of the OTP step stops waiting for it: the payment stays pending (the
// status bar and the journal, with Check now) and the terminal is free.
type payScreen struct {
	u       *UI
	req     PayRequest
	orderID string
	run     *payRun // the payment the screen shows while its call runs; nil once it ended
	opened  string  // the authentication page already opened
	outcome Outcome
	err     error

	root   fyne.CanvasObject
	title  *widget.Label
	steps  [len(stepNames)]*widget.Label
	poll   *widget.Label
	result *canvas.Text
	detail *widget.Label
	qr     *canvas.Image
	qrURL  *widget.Label
	// phoneWarn says when the phone page's address is this computer's only.
	phoneWarn *widget.Label
	otp       *prompt
	otpEntry  *keyEntry
	receiptA  *action
	retryA    *action
	checkA    *action
	backA     *action
	newSaleA  *action
}

// payRun is one call of Till.Pay. A run whose screen the cashier left for another
// payment goes on in the background; its result becomes a notice.
type payRun struct {
	req     PayRequest
	orderID string
	cancel  context.CancelFunc // ends the call's waits (the OTP step); the engine leaves the order pending
}

func newPayScreen(u *UI) *payScreen {
	s := &payScreen{u: u}
	s.title = heading("Payment")
	steps := container.NewVBox()
	for i, n := range stepNames {
		s.steps[i] = widget.NewLabel("      " + n)
		s.steps[i].SizeName = theme.SizeNameSubHeadingText
		steps.Add(s.steps[i])
	}
	s.poll = widget.NewLabel("")
	s.poll.Wrapping = fyne.TextWrapWord
	s.result = bigText("", sizeResult)
	s.result.Alignment = fyne.TextAlignCenter
	s.detail = widget.NewLabelWithStyle("", fyne.TextAlignCenter, fyne.TextStyle{Bold: true})
	s.detail.Wrapping = fyne.TextWrapWord
	s.detail.SizeName = theme.SizeNameSubHeadingText
	s.receiptA = u.newAction("Receipt", fyne.KeyF5, 0, s.toReceipt)
	s.receiptA.btn.Importance = widget.HighImportance
	s.retryA = u.newAction("Try again, same order", fyne.KeyF6, 0, s.retry)
	s.checkA = u.newAction("Check now", fyne.KeyF7, 0, s.check)
	s.backA = u.newAction("Back to the counter", fyne.KeyEscape, 0, s.back)
	s.newSaleA = u.newAction("New sale", fyne.KeyN, fyne.KeyModifierControl, func() {
		u.sale.clear()
		u.goTo(u.sale)
	})
	s.qr = canvas.NewImageFromResource(nil)
	s.qr.FillMode = canvas.ImageFillContain
	s.qr.SetMinSize(fyne.NewSize(260, 260))
	s.qr.Hide()
	s.qrURL = widget.NewLabel("")
	s.qrURL.Wrapping = fyne.TextWrapBreak
	s.qrURL.Alignment = fyne.TextAlignCenter
	s.phoneWarn = widget.NewLabelWithStyle("", fyne.TextAlignLeading, fyne.TextStyle{Bold: true})
	s.phoneWarn.Wrapping = fyne.TextWrapWord
	// The phone's code and its address stand with the result: under the steps
	// they ran past the bottom of a 1366×768 screen.
	// The steps scroll: the polling's account and the address warning are
	// long on a 1280×720 screen with the status bar's notice shown.
	left := container.NewVScroll(container.NewVBox(s.title, steps, s.poll, s.phoneWarn))
	right := container.NewVBox(layout.NewSpacer(), container.NewCenter(s.qr), s.qrURL, s.result, s.detail, layout.NewSpacer())
	buttons := container.NewGridWithColumns(5, s.backA.btn, s.newSaleA.btn, s.retryA.btn, s.checkA.btn, s.receiptA.btn)
	s.root = container.NewPadded(container.NewBorder(nil, buttons, nil, nil,
		container.New(&ratioLayout{ratio: 0.4}, left, right)))
	return s
}

func (s *payScreen) view() fyne.CanvasObject { return s.root }

func (s *payScreen) actions() []*action {
	return []*action{s.receiptA, s.retryA, s.checkA, s.backA, s.newSaleA}
}

func (s *payScreen) shown() {
	if s.otp != nil && !s.otp.closed {
		s.u.win.Canvas().Focus(s.otpEntry)
		return
	}
	s.u.win.Canvas().Unfocus()
}

// start takes the payment of req in the background and shows its progress. A
// payment still running for an earlier cart goes on in the background.
func (s *payScreen) start(req PayRequest) {
	if req.OrderID == "" && req.Sale == "" {
		// A new sale's phones are reserved with the store server; when it
		// cannot be asked, a manager may approve them here ("Manager override").
		req.AskIMEIOverride = s.u.dialogs.askIMEIOverride
	}
	s.req = req
	s.req.Card = nil // the card belongs to the call below, which wipes it
	s.orderID = req.OrderID
	ctx, cancel := context.WithCancel(s.u.ctx)
	run := &payRun{req: s.req, orderID: req.OrderID, cancel: cancel}
	s.run = run
	if s.otp != nil && !s.otp.closed {
		s.otp.close()
	}
	s.opened = ""
	s.err = nil
	s.outcome = Outcome{}
	s.title.SetText(tenderTitle(req) + ": payment in progress")
	for i, n := range stepNames {
		s.steps[i].SetText("      " + n)
	}
	s.mark(StepCreating)
	s.phoneView() // pay_phone.go
	s.qr.Hide()
	s.qrURL.SetText("")
	s.phoneWarn.SetText("")
	s.poll.SetText("Creating the order…")
	s.showResult("", nil, "Keep the card with the customer. Escape goes back to the counter; the payment goes on.")
	s.receiptA.btn.Disable()
	s.retryA.btn.Disable()
	s.checkA.btn.Disable()
	s.newSaleA.btn.Disable()
	s.u.sale.payment.paymentStarted(run)
	s.u.goTo(s)
	s.u.async(func(context.Context) func() {
		o, err := s.u.till.Checkout.Pay(ctx, req, func(p Progress) {
			s.u.do(func() { s.progress(run, p) })
		})
		return func() { s.done(run, o, err) }
	})
}

func tenderTitle(req PayRequest) string {
	switch req.Tender {
	case pos.TenderEMI:
		if req.Offer != nil {
			return fmt.Sprintf("EMI %s %d months", req.Offer.Issuer, req.Offer.TenureMonths)
		}
		return "EMI"
	case pos.TenderPhone:
		return "Pay on phone"
	case pos.TenderCash:
		return "Cash"
	}
	return "Card"
}

// mark ticks the steps before step and shows step as the current one.
func (s *payScreen) mark(step Step) {
	for i, n := range stepNames {
		st := Step(i + 1) // StepCreated is the first shown step
		switch {
		case st < step || (st == step && step == StepDone):
			s.steps[i].SetText("✓   " + n)
		case st == step:
			s.steps[i].SetText("…   " + n)
		default:
			s.steps[i].SetText("      " + n)
		}
	}
}

// progress shows a report from the payment in flight.
func (s *payScreen) progress(run *payRun, p Progress) {
	if p.OrderID != "" {
		run.orderID = p.OrderID
		s.u.sale.payment.paymentOrder(run, p.OrderID)
	}
	if s.run != run {
		return // a payment gone to the background: its result becomes a notice
	}
	if p.OrderID != "" {
		s.orderID = p.OrderID
	}
	switch p.Step {
	case StepCreated:
		s.mark(StepAuthenticating)
	default:
		s.mark(p.Step)
	}
	s.phoneView() // pay_phone.go
	switch {
	case p.Step == StepCreating:
		s.poll.SetText("Creating the order…")
	case p.Step == StepCreated || p.Step == StepAuthenticating:
		s.poll.SetText("Order " + s.orderID + ": the customer authenticates.")
	case p.Step == StepVerifying:
		txt := "Order " + s.orderID + ": checked with the payment service " + plural(p.Checks, "time")
		if p.NextCheck > 0 {
			txt += "; next check in " + p.NextCheck.Round(time.Second).String()
		}
		s.poll.SetText(txt + ".\n" + pos.PollScheduleText)
	}
	if p.AuthURL != "" && p.AuthURL != s.opened {
		s.opened = p.AuthURL
		if u, err := url.Parse(p.AuthURL); err == nil {
			_ = s.u.app.OpenURL(u)
		}
		s.detail.SetText("The bank's page has opened for the customer to authenticate.")
	}
	if p.CheckoutURL != "" && s.qrURL.Text != p.CheckoutURL {
		s.showQR(p.CheckoutURL)
	}
	if p.Note != "" {
		s.detail.SetText(p.Note)
	}
	if p.OTP && (s.otp == nil || s.otp.closed) {
		s.askOTP(run)
	}
}

func plural(n int, what string) string {
	if n == 1 {
		return "1 " + what
	}
	return fmt.Sprintf("%d %ss", n, what)
}

// askOTP opens the sandbox's authentication step in the window. Backing out of it
// (Escape, Cancel) ends the wait: the payment is left pending, never cancelled, for
// the customer may have been charged.
func (s *payScreen) askOTP(run *payRun) {
	s.otpEntry = newKeyEntry(s.u)
	s.otpEntry.Password = true
	s.otpEntry.SetPlaceHolder("One-time password")
	order := s.orderID
	s.otp = s.u.dialogs.ask("Customer authentication (sandbox)",
		"The customer types the one-time password the bank sent (the sandbox accepts 123456).",
		[]*keyEntry{s.otpEntry}, func(p *prompt) {
			code := strings.TrimSpace(s.otpEntry.Text)
			s.otpEntry.SetText("")
			if code == "" {
				p.say("Type the one-time password, then Enter.")
				return
			}
			p.ok.Disable()
			p.message.SetText("Sending…")
			s.u.async(func(ctx context.Context) func() {
				err := s.u.till.Checkout.SubmitOTP(ctx, order, code)
				return func() {
					p.ok.Enable()
					if err != nil {
						p.say(sentence(err))
						return
					}
					p.close()
					// The payment may have ended first (the service
					// answered before this did): its outcome stands.
					if s.run == run {
						s.mark(StepVerifying)
						s.poll.SetText("Order " + order + ": verifying the payment.")
					}
				}
			})
		})
	s.otp.onCancel = func() {
		run.cancel()
		if s.run == run {
			s.poll.SetText("Order " + order + ": the authentication step was left; the payment stays pending and will be checked.")
			s.detail.SetText("Stopped waiting for the customer's one-time password…")
		}
	}
}

// done shows the outcome of the payment call, or raises it as a notice when the
// cashier has started another payment since.
func (s *payScreen) done(run *payRun, o Outcome, err error) {
	run.cancel()
	if o.OrderID == "" {
		o.OrderID = run.orderID
	}
	s.u.sale.payment.paymentDone(run, o, err)
	defer s.u.bar.refreshStatus()
	if s.run != run {
		s.u.bar.noteOutcome(o, err)
		return
	}
	s.run = nil
	if s.otp != nil && !s.otp.closed {
		s.otp.close()
	}
	s.u.card.reset()
	s.show(o, err)
	if s.u.current != s {
		s.u.bar.noteOutcome(o, err)
	}
	s.shown()
}

// show shows how the payment of the screen stands.
func (s *payScreen) show(o Outcome, err error) {
	s.outcome, s.err = o, err
	if o.OrderID != "" {
		s.orderID = o.OrderID
	}
	s.newSaleA.btn.Enable()
	s.checkA.btn.Disable()
	switch {
	case err != nil:
		s.showResult("NOT PAID", colFailed, sentence(err))
		s.mark(StepCreating)
	case o.State == pos.StatePaid && o.Verified && o.Sale != nil && !o.Sale.Complete():
		s.mark(StepDone)
		s.showResult("PAID", colPaid, fmt.Sprintf("%s verified by the payment service; %s is left to pay on this sale. Escape goes back to its tenders.",
			o.Amount, o.Sale.Due))
	case o.State == pos.StatePaid && o.Verified:
		s.mark(StepDone)
		msg := o.Amount.String() + " verified by the payment service. Hand over the goods."
		if o.Sale != nil {
			msg = fmt.Sprintf("%s verified by the payment service: the sale's %s is paid in full. Hand over the goods.", o.Amount, o.Sale.Sale.Amount)
		}
		s.showResult("PAID", colPaid, msg)
		s.receiptA.btn.Enable()
	case o.State == pos.StateFailed:
		msg := o.Reason
		if msg == "" {
			msg = "The payment failed."
		}
		if st := o.Sale; st != nil && s.req.Sale == "" && st.Sale.State == pos.StateOpen {
			// The cart's sale stays open with its failed tender: from now on the
			// screen pays a tender of it, and Escape goes to its tenders (another
			// tender, or drop it).
			s.req.Sale = st.Sale.ID
			msg += " Escape shows sale " + st.Sale.ID + " to take another tender or drop it."
		}
		switch {
		case o.CanRetry && s.req.Tender == pos.TenderPhone:
			// The attempts of a phone payment are made on the phone: another try
			// is a fresh checkout page, so a fresh order and QR code.
			msg += " Press F6 for a new QR code for the customer's phone, or choose another tender."
			s.retryA.btn.Enable()
		case o.CanRetry:
			msg += " Try again on the same order with F6, or choose another tender."
			s.retryA.btn.Enable()
		}
		s.showResult("FAILED", colFailed, msg)
	case o.State == pos.StateAbandoned:
		s.showResult("NOT PAID", colFailed, "The order was abandoned before any payment was sent; nothing was charged.")
	case o.Unverified:
		s.showResult("UNVERIFIED", colWarn, "Do not hand over the goods: the payment service's answer could not be verified. It stays pending: Check now with F7; the cart stays locked to it.")
		s.checkA.btn.Enable()
	default:
		s.showResult("UNKNOWN", colWarn, "The payment is pending: its outcome is not known yet. Do not hand over the goods. Check now with F7; the cart stays locked to it. New sale (Ctrl+N) serves the next customer.")
		s.checkA.btn.Enable()
	}
	s.poll.SetText(strings.TrimSpace("Order " + s.orderID))
	if err == nil && o.State == pos.StateUnknown {
		s.poll.SetText("Order " + s.orderID + " is pending: it is checked again in the background, with Check now, and at every start.\n" + pos.PollScheduleText)
	}
	s.title.SetText(tenderTitle(s.req) + ": " + strings.ToLower(s.result.Text))
}

// check asks pos about the screen's pending payment now.
func (s *payScreen) check() {
	id := s.orderID
	if s.run != nil || id == "" || s.outcome.State != pos.StateUnknown {
		return
	}
	s.checkA.btn.Disable()
	s.detail.SetText("Checking order " + id + " with the payment service…")
	s.u.async(func(ctx context.Context) func() {
		o, err := s.u.till.Pending.CheckOrder(ctx, id)
		return func() {
			s.checked(id, o, err)
			s.u.sale.payment.checkLock()
			s.u.bar.refreshStatus()
		}
	})
}

// checked shows what Check now found of order id, when the screen still shows it.
func (s *payScreen) checked(id string, o Outcome, err error) {
	if s.run != nil || s.orderID != id {
		return
	}
	if err != nil {
		s.detail.SetText(sentence(err))
		s.checkA.btn.Enable()
		return
	}
	s.show(o, nil)
	if o.State == pos.StateUnknown {
		s.detail.SetText("Order " + id + " is still pending: the payment service has no final answer yet. Check again with F7 later; do not hand over the goods.")
	}
}

func (s *payScreen) showResult(word string, col color.Color, detail string) {
	s.result.Text = word
	if col == nil {
		col = theme.Color(theme.ColorNameForeground)
	}
	s.result.Color = col
	s.result.Refresh()
	s.detail.SetText(detail)
}

func (s *payScreen) toReceipt() {
	if s.outcome.State != pos.StatePaid {
		return
	}
	if st := s.outcome.Sale; st != nil && s.req.Sale != "" {
		if st.Complete() {
			s.u.tenderDone(s.req, s.outcome, nil, s)
		}
		return
	}
	if st := s.outcome.Sale; st != nil && !st.Complete() {
		return // its other tenders are on the sale's screen (Escape)
	}
	s.u.receipt.show(s.outcome.SaleOutcome(), clearCart)
}

// back leaves the payment screen: to the split sale's tenders while it is not
// paid in full, else to the counter.
func (s *payScreen) back() {
	if s.req.Sale != "" && s.run == nil {
		if st := s.outcome.Sale; st == nil || !st.Complete() {
			s.reopenSale()
			return
		}
	}
	s.u.goTo(s.u.sale)
}

// reopenSale shows the split sale of the screen's tender again, as it stands.
func (s *payScreen) reopenSale() {
	t, id := s.u.till.Checkout, s.req.Sale
	s.u.async(func(ctx context.Context) func() {
		st, err := t.SaleStatus(ctx, id)
		return func() {
			if err != nil {
				s.detail.SetText(sentence(err))
				return
			}
			s.u.tender.open(st, "")
		}
	})
}

// retry goes back to the card form for another attempt on the same order.
func (s *payScreen) retry() {
	if s.run != nil || s.outcome.State != pos.StateFailed || !s.outcome.CanRetry {
		return
	}
	req := s.req
	if req.Tender == pos.TenderPhone {
		req.OrderID = ""
		s.start(req)
		return
	}
	req.OrderID = s.outcome.OrderID
	total := s.outcome.Amount
	s.u.card.start(req, total)
}

// showQR shows the checkout page's address as a QR code for the customer's phone.
func (s *payScreen) showQR(addr string) {
	png, err := qrcode.Encode(addr, qrcode.Medium, 512)
	if err != nil {
		s.detail.SetText("The QR code could not be drawn; the customer can type the address below.")
	} else {
		s.qr.Resource = fyne.NewStaticResource("checkout-qr.png", png)
		s.qr.Show()
		s.qr.Refresh()
		s.detail.SetText("The customer scans the code and pays on the phone. Waiting…")
	}
	s.qrURL.SetText(addr)
	s.phoneWarn.SetText(PhonePageWarning(addr))
}

// PhonePageWarning says, for a phone page address that only this computer can
// open (the default, 127.0.0.1), that a phone cannot reach it and how to set the
// LAN address; "" for an address a phone on the shop's network can open.
func PhonePageWarning(addr string) string {
	u, err := url.Parse(addr)
	if err != nil {
		return ""
	}
	host := u.Hostname()
	ip := net.ParseIP(host)
	if host != "localhost" && (ip == nil || !ip.IsLoopback()) {
		return ""
	}
	return "⚠ This address is on this computer only (" + host + "): a phone cannot open it. A manager sets the phone page " +
		"address to this computer's LAN address, such as 0.0.0.0:7071, in Settings (F10); it applies after Galla restarts."
}
