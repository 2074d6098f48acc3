package ui

import (
	"context"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/canvas"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/widget"

	"github.com/skip2/go-qrcode"

	"galla/pos"
)

// upiScreen shows the dynamic UPI QR of one tender (the shop's VPA, the amount,
// the sale's reference); the customer pays from any UPI app and the cashier, once
// the shop's app or sound box shows the money arrived with that reference,
// confirms it (F5). The journal records it as confirmed by the cashier.
type upiScreen struct {
	u    *UI
	req  PayRequest
	upi  UPIRequest
	busy bool

	root    fyne.CanvasObject
	amount  *canvas.Text
	qr      *canvas.Image
	ref     *widget.Label
	message *widget.Label
	confirm *action
	back    *action
}

func newUPIScreen(u *UI) *upiScreen {
	s := &upiScreen{u: u}
	s.amount = bigText("", sizeTotal)
	s.amount.Alignment = fyne.TextAlignCenter
	s.qr = canvas.NewImageFromResource(nil)
	s.qr.FillMode = canvas.ImageFillContain
	s.qr.SetMinSize(fyne.NewSize(300, 300))
	s.ref = widget.NewLabelWithStyle("", fyne.TextAlignCenter, fyne.TextStyle{Bold: true})
	s.ref.Wrapping = fyne.TextWrapWord
	s.message = widget.NewLabel("")
	s.message.Wrapping = fyne.TextWrapWord
	s.confirm = u.newAction("Money received", fyne.KeyF5, 0, s.received)
	s.confirm.btn.Importance = widget.HighImportance
	s.back = u.newAction("Back", fyne.KeyEscape, 0, func() { u.goTo(u.tender) })
	// The code beside what the cashier reads: one above the other is taller
	// than a 1280×720 screen.
	code := container.NewVBox(s.amount, s.qr)
	text := container.NewVBox(heading("UPI"), s.ref, s.message,
		container.NewGridWithColumns(2, s.back.btn, s.confirm.btn))
	s.root = container.NewPadded(container.New(&columnLayout{width: 860},
		container.New(&ratioLayout{ratio: 0.42}, code, text)))
	return s
}

func (s *upiScreen) view() fyne.CanvasObject { return s.root }

func (s *upiScreen) actions() []*action { return []*action{s.confirm, s.back} }

func (s *upiScreen) shown() { s.u.win.Canvas().Unfocus() }

// start builds the QR of req's amount and shows it.
func (s *upiScreen) start(req PayRequest) {
	t := s.u.till.Checkout
	s.u.async(func(ctx context.Context) func() {
		up, err := t.UPIRequest(ctx, req.Sale, req.Amount)
		return func() {
			if err != nil {
				s.u.tender.message.SetText(sentence(err))
				return
			}
			png, err := qrcode.Encode(up.Link, qrcode.Medium, 512)
			if err != nil {
				s.u.tender.message.SetText("The UPI QR code could not be drawn; take another payment method.")
				return
			}
			s.req, s.upi, s.busy = req, up, false
			s.amount.Text = up.Amount.String()
			s.amount.Refresh()
			s.qr.Resource = fyne.NewStaticResource("upi-qr.png", png)
			s.qr.Refresh()
			s.ref.SetText("Pay to " + up.VPA + " · reference " + up.Ref)
			s.message.SetText("The customer scans the code with any UPI app. Press F5 only once the shop's UPI app or sound box shows " +
				up.Amount.String() + " received with the reference " + up.Ref + "; Escape goes back without taking it.")
			s.confirm.btn.Enable()
			s.u.goTo(s)
		}
	})
}

// received journals the UPI tender as confirmed by the signed-in cashier.
func (s *upiScreen) received() {
	if s.busy || s.upi.Link == "" {
		return
	}
	s.busy = true
	s.confirm.btn.Disable()
	req := s.req
	req.Amount = s.upi.Amount
	req.Tender = pos.TenderUPI
	s.u.async(func(ctx context.Context) func() {
		o, err := s.u.till.Checkout.Pay(ctx, req, nil)
		return func() {
			s.busy = false
			s.confirm.btn.Enable()
			if err == nil {
				s.upi = UPIRequest{}
			}
			s.u.tenderDone(req, o, err, s)
		}
	})
}
