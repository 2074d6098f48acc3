package ui

import (
	"context"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/canvas"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/widget"

	"galla/pos"
)

// cashScreen is screen 7: the amount tendered, the change due as typed, Enter takes
// the cash.
type cashScreen struct {
	u     *UI
	req   PayRequest
	total pos.Paise
	busy  bool

	root     fyne.CanvasObject
	due      *canvas.Text
	tendered *keyEntry
	change   *canvas.Text
	message  *widget.Label
	take     *action
	back     *action
}

func newCashScreen(u *UI) *cashScreen {
	s := &cashScreen{u: u}
	s.due = bigText("", sizeTotal)
	s.tendered = newKeyEntry(u)
	s.tendered.SetPlaceHolder("Cash tendered, e.g. 2000")
	s.tendered.OnChanged = s.typed
	s.tendered.OnSubmitted = func(string) { s.takeCash() }
	s.change = bigText("", sizeTotal)
	s.message = widget.NewLabel("")
	s.message.Wrapping = fyne.TextWrapWord
	s.take = u.newAction("Take cash", fyne.KeyF5, 0, s.takeCash)
	s.take.btn.Importance = widget.HighImportance
	s.back = u.newAction("Back", fyne.KeyEscape, 0, func() { u.goTo(u.backFrom(s.req)) })
	form := container.NewVBox(heading("Cash"), widget.NewLabel("To pay"), s.due,
		widget.NewLabel("Tendered"), s.tendered, widget.NewLabel("Change due"), s.change, s.message,
		container.NewGridWithColumns(2, s.back.btn, s.take.btn))
	s.root = container.NewPadded(container.New(&columnLayout{width: 600}, form))
	return s
}

func (s *cashScreen) view() fyne.CanvasObject { return s.root }

func (s *cashScreen) actions() []*action { return []*action{s.take, s.back} }

func (s *cashScreen) shown() { s.u.win.Canvas().Focus(s.tendered) }

func (s *cashScreen) start(req PayRequest, total pos.Paise) {
	s.req, s.total, s.busy = req, total, false
	s.due.Text = total.String()
	s.due.Refresh()
	s.tendered.SetText("")
	s.change.Text = ""
	s.change.Refresh()
	s.message.SetText("")
	s.take.btn.Enable()
	s.u.goTo(s)
}

// typed shows the change due for what is typed so far.
func (s *cashScreen) typed(t string) {
	p, err := pos.ParsePaise(t)
	switch {
	case t == "":
		s.change.Text = ""
	case err != nil:
		s.change.Text = "—"
	case p < s.total:
		s.change.Text = "short by " + (s.total - p).String()
	default:
		s.change.Text = (p - s.total).String()
	}
	s.change.Refresh()
}

func (s *cashScreen) takeCash() {
	if s.busy {
		return
	}
	p, err := pos.ParsePaise(s.tendered.Text)
	if err != nil {
		s.message.SetText("Type the cash the customer gave, in rupees, like 2000.")
		return
	}
	if p < s.total {
		s.message.SetText("That is less than the total: " + (s.total - p).String() + " more is needed.")
		return
	}
	s.busy = true
	s.take.btn.Disable()
	req := s.req
	req.Tendered = p
	s.u.async(func(ctx context.Context) func() {
		o, err := s.u.till.Checkout.Pay(ctx, req, nil)
		return func() {
			s.busy = false
			s.take.btn.Enable()
			if s.u.tenderDone(req, o, err, s) {
				return
			}
			if err != nil {
				s.message.SetText(sentence(err))
				return
			}
			if o.State != pos.StatePaid {
				s.message.SetText("The cash sale was not recorded: " + o.Reason)
				return
			}
			s.u.sale.clear()
			s.u.receipt.show(o.SaleOutcome(), clearCart)
		}
	})
}
