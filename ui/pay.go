package ui

import (
	"context"
	"fmt"
	"image/color"
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
type payScreen struct {
	u       *UI
	req     PayRequest
	orderID string
	running bool
	opened  string // the authentication page already opened
	outcome Outcome
	err     error

	root     fyne.CanvasObject
	title    *widget.Label
	steps    [len(stepNames)]*widget.Label
	poll     *widget.Label
	result   *canvas.Text
	detail   *widget.Label
	qr       *canvas.Image
	qrURL    *widget.Label
	otp      *prompt
	otpEntry *keyEntry
	receiptA *action
	retryA   *action
	backA    *action
	newSaleA *action
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
	s.retryA = u.newAction("Try again on the same order", fyne.KeyF6, 0, s.retry)
	s.backA = u.newAction("Back to the counter", fyne.KeyEscape, 0, func() { u.goTo(u.sale) })
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
	left := container.NewVBox(s.title, steps, s.poll, s.qr, s.qrURL)
	right := container.NewVBox(layout.NewSpacer(), s.result, s.detail, layout.NewSpacer())
	buttons := container.NewGridWithColumns(4, s.backA.btn, s.newSaleA.btn, s.retryA.btn, s.receiptA.btn)
	s.root = container.NewPadded(container.NewBorder(nil, buttons, nil, nil,
		container.New(&ratioLayout{ratio: 0.4}, left, right)))
	return s
}

func (s *payScreen) view() fyne.CanvasObject { return s.root }

func (s *payScreen) actions() []*action {
	return []*action{s.receiptA, s.retryA, s.backA, s.newSaleA}
}

func (s *payScreen) shown() {
	if s.otp != nil && !s.otp.closed {
		s.u.win.Canvas().Focus(s.otpEntry)
		return
	}
	s.u.win.Canvas().Unfocus()
}

// start takes the payment of req in the background and shows its progress.
func (s *payScreen) start(req PayRequest) {
	if s.running {
		s.u.showError("A payment is already in progress: wait for its result before starting another.")
		return
	}
	s.req = req
	s.req.Card = nil // the card belongs to the call below, which wipes it
	s.orderID = req.OrderID
	s.running = true
	s.opened = ""
	s.err = nil
	s.outcome = Outcome{}
	s.title.SetText(tenderTitle(req) + ": payment in progress")
	for i, n := range stepNames {
		s.steps[i].SetText("      " + n)
	}
	s.mark(StepCreating)
	s.qr.Hide()
	s.qrURL.SetText("")
	s.poll.SetText("Creating the order…")
	s.showResult("", nil, "Keep the card with the customer. Escape goes back to the counter; the payment goes on.")
	s.receiptA.btn.Disable()
	s.retryA.btn.Disable()
	s.newSaleA.btn.Disable()
	s.u.goTo(s)
	s.u.async(func(ctx context.Context) func() {
		o, err := s.u.till.Pay(ctx, req, func(p Progress) {
			s.u.do(func() { s.progress(p) })
		})
		return func() { s.done(o, err) }
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
func (s *payScreen) progress(p Progress) {
	if p.OrderID != "" {
		s.orderID = p.OrderID
	}
	switch p.Step {
	case StepCreated:
		s.mark(StepAuthenticating)
	default:
		s.mark(p.Step)
	}
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
	if p.OTP && (s.otp == nil || s.otp.closed) && s.running {
		s.askOTP()
	}
}

func plural(n int, what string) string {
	if n == 1 {
		return "1 " + what
	}
	return fmt.Sprintf("%d %ss", n, what)
}

// askOTP opens the sandbox's authentication step in the window.
func (s *payScreen) askOTP() {
	s.otpEntry = newKeyEntry(s.u)
	s.otpEntry.Password = true
	s.otpEntry.SetPlaceHolder("One-time password")
	order := s.orderID
	s.otp = s.u.ask("Customer authentication (sandbox)",
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
				err := s.u.till.SubmitOTP(ctx, order, code)
				return func() {
					p.ok.Enable()
					if err != nil {
						p.say(sentence(err))
						return
					}
					p.close()
					s.mark(StepVerifying)
					s.poll.SetText("Order " + order + ": verifying the payment.")
				}
			})
		})
}

// done shows the outcome of the payment call.
func (s *payScreen) done(o Outcome, err error) {
	s.running = false
	s.outcome, s.err = o, err
	if o.OrderID != "" {
		s.orderID = o.OrderID
	}
	if s.otp != nil && !s.otp.closed {
		s.otp.close()
	}
	s.u.card.reset()
	s.newSaleA.btn.Enable()
	s.u.refreshStatus()
	switch {
	case err != nil:
		s.showResult("NOT PAID", colFailed, sentence(err))
		s.mark(StepCreating)
	case o.State == pos.StatePaid && o.Verified:
		s.mark(StepDone)
		s.showResult("PAID", colPaid, o.Amount.String()+" verified by the payment service. Hand over the goods.")
		s.receiptA.btn.Enable()
		s.u.sale.clear()
	case o.State == pos.StateFailed:
		msg := o.Reason
		if msg == "" {
			msg = "The payment failed."
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
	case o.Unverified:
		s.showResult("UNVERIFIED", colWarn, "Do not hand over the goods: the payment service's answer could not be verified. It will be checked again.")
	default:
		s.showResult("UNKNOWN", colWarn, "The payment service has not answered; it will be checked again. Do not hand over the goods yet.")
	}
	s.poll.SetText(strings.TrimSpace("Order " + s.orderID))
	if err == nil && o.State == pos.StateUnknown {
		s.poll.SetText("Order " + s.orderID + ": the reconciler checks it again before the next payment and at every start.\n" + pos.PollScheduleText)
	}
	s.title.SetText(tenderTitle(s.req) + ": " + strings.ToLower(s.result.Text))
	if s.u.current != s {
		s.u.note("Order " + s.orderID + ": " + s.result.Text)
	}
	s.shown()
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
	if s.outcome.State == pos.StatePaid {
		s.u.receipt.show(s.outcome)
	}
}

// retry goes back to the card form for another attempt on the same order.
func (s *payScreen) retry() {
	if s.running || s.outcome.State != pos.StateFailed || !s.outcome.CanRetry {
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
}
