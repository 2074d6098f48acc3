package ui

import (
	"context"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/canvas"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/widget"
)

// receiptScreen is screen 8: the receipt's preview, print and reprint. A print
// failure says why and offers the reprint.
type receiptScreen struct {
	u       *UI
	orderID string
	refund  bool // the receipt of the order's latest refund, not of the sale
	printed bool
	back    screen    // where Escape goes
	after   afterSale // what Escape does to the counter's cart (show)

	root    fyne.CanvasObject
	title   *widget.Label
	change  *canvas.Text
	image   *canvas.Image
	png     []byte // the preview's bytes, for Save PNG
	message *widget.Label
	print   *action
	reprint *action
	save    *action
	done    *action
}

func newReceiptScreen(u *UI) *receiptScreen {
	s := &receiptScreen{u: u}
	s.title = heading("Receipt")
	s.change = bigText("", sizeBig)
	s.image = canvas.NewImageFromResource(nil)
	s.image.FillMode = canvas.ImageFillContain
	s.image.SetMinSize(fyne.NewSize(380, 560))
	s.message = widget.NewLabel("")
	s.message.Wrapping = fyne.TextWrapWord
	s.print = u.newAction("Print", fyne.KeyF5, 0, func() { s.send(false) })
	s.print.btn.Importance = widget.HighImportance
	s.reprint = u.newAction("Reprint", fyne.KeyF6, 0, func() { s.send(true) })
	s.save = u.newAction("Save PNG", fyne.KeyS, fyne.KeyModifierControl, s.savePNG)
	s.done = u.newAction("Next customer", fyne.KeyEscape, 0, func() {
		if s.back != nil {
			u.goTo(s.back)
			return
		}
		if s.after != keepCart {
			u.sale.clear()
		}
		u.goTo(u.sale)
	})
	side := container.NewVBox(s.title, s.change, s.message, s.print.btn, s.reprint.btn, s.save.btn, s.done.btn)
	s.root = container.NewPadded(container.NewBorder(nil, nil, nil, side, container.NewScroll(s.image)))
	return s
}

func (s *receiptScreen) view() fyne.CanvasObject { return s.root }

func (s *receiptScreen) actions() []*action {
	return []*action{s.print, s.reprint, s.save, s.done}
}

func (s *receiptScreen) shown() { s.u.win.Canvas().Unfocus() }

// afterSale is what Escape on a sale's receipt does to the counter's cart on
// the way to the next customer.
type afterSale bool

const (
	// clearCart empties the cart: it was the sale just paid.
	clearCart afterSale = false
	// keepCart leaves the cart as it is: the sale was a split sale, whose cart
	// left the counter when it was opened, and the counter may hold the next
	// customer's cart by now.
	keepCart afterSale = true
)

// show opens the receipt of a paid order (after a sale); Escape goes on to the
// next customer, doing after to the counter's cart.
func (s *receiptScreen) show(o Outcome, after afterSale) {
	s.open(o.OrderID, nil)
	s.after = after
	if o.Change > 0 {
		s.change.Text = "Change due " + o.Change.String()
	}
	if o.ReceiptNo != "" {
		s.title.SetText("Receipt " + o.ReceiptNo)
	}
}

// open shows orderID's receipt; back is where Escape returns (nil: the next sale).
func (s *receiptScreen) open(orderID string, back screen) {
	s.load(orderID, false, back)
}

// openRefund shows the receipt of orderID's latest refund, not printed yet; Escape
// returns to back. note, shown big, is the amount refunded.
func (s *receiptScreen) openRefund(orderID, note string, back screen) {
	s.load(orderID, true, back)
	s.printed = false
	s.print.btn.Enable()
	s.title.SetText("Refund receipt")
	s.change.Text = note
	s.change.Refresh()
}

func (s *receiptScreen) load(orderID string, refund bool, back screen) {
	s.orderID, s.refund, s.back, s.printed = orderID, refund, back, back != nil
	s.after = clearCart
	s.done.btn.SetText("Next customer  [Esc]")
	if back != nil {
		s.done.btn.SetText("Back  [Esc]")
	}
	s.title.SetText("Receipt")
	s.change.Text = ""
	s.change.Refresh()
	s.message.SetText("Preparing the preview…")
	s.image.Resource = nil
	s.image.Refresh()
	s.png = nil
	s.save.btn.Disable()
	s.print.btn.Enable()
	s.reprint.btn.Enable()
	if s.printed {
		s.print.btn.Disable()
	}
	s.u.goTo(s)
	s.u.async(func(ctx context.Context) func() {
		render := s.u.till.Documents.Receipt
		if refund {
			render = s.u.till.Documents.RefundReceipt
		}
		png, err := render(ctx, orderID)
		return func() {
			if s.orderID != orderID || s.refund != refund {
				return
			}
			if err != nil {
				s.message.SetText(sentence(err))
				return
			}
			s.message.SetText("Order " + orderID)
			if refund {
				s.message.SetText("Refund of order " + orderID)
			}
			s.png = png
			if s.u.opts.ReceiptDir != "" {
				s.save.btn.Enable()
			}
			s.image.Resource = fyne.NewStaticResource("receipt-"+orderID+".png", png)
			s.image.Refresh()
		}
	})
}

func (s *receiptScreen) send(reprint bool) {
	if s.orderID == "" {
		return
	}
	reprint = reprint || s.printed
	id, refund := s.orderID, s.refund
	s.print.btn.Disable()
	s.reprint.btn.Disable()
	s.message.SetText("Printing…")
	s.u.async(func(ctx context.Context) func() {
		var err error
		if refund {
			err = s.u.till.Documents.PrintRefund(ctx, id)
		} else {
			err = s.u.till.Documents.Print(ctx, id, reprint)
		}
		return func() {
			s.reprint.btn.Enable()
			if err != nil {
				if !s.printed {
					s.print.btn.Enable()
				}
				s.message.SetText("The receipt did not print: " + sentence(err) + " Fix the printer and press F6 to reprint.")
				return
			}
			s.printed = true
			switch {
			case refund:
				s.message.SetText("Printed. Press Escape to go back to the journal.")
			case s.back != nil:
				s.message.SetText("Printed. Press Escape to go back.")
			default:
				s.message.SetText("Printed. Press Escape for the next customer.")
			}
		}
	})
}

// savePNG writes the previewed receipt as a PNG file into Options.ReceiptDir (for
// e-mail or a shop without a receipt printer) and says where it went. Saving is
// not printing: the journal's print count does not change.
func (s *receiptScreen) savePNG() {
	if s.png == nil || s.u.opts.ReceiptDir == "" {
		return
	}
	name := "receipt-" + s.orderID + ".png"
	if s.refund {
		name = "refund-" + s.orderID + ".png"
	}
	s.u.savePNG(s.message, s.u.opts.ReceiptDir, name, "receipt", s.png)
}
