package ui

import (
	"context"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/widget"
)

// StoreActs are a manager's acts on the counter's link to its store that
// Settings offers: accepting a store the journal has not accepted (nothing is
// sent to it until then), and acknowledging the counter's enrolment (every
// screen's status line shows it until then). Options.Store is nil where the
// counter is not enrolled at a store.
type StoreActs interface {
	// Waiting says what awaits a manager: "" and "" for nothing, else the
	// sentence to show and the act's name for its button.
	Waiting() (line, act string)
	// Act does what waits, signed by the manager whose PIN this is, journaled
	// naming them, and says what was done.
	Act(ctx context.Context, managerPIN string) (string, error)
}

// storeSetting is the settings screen's line of what a manager must do about
// the counter's store, with the button that does it on a manager's PIN.
type storeSetting struct {
	u    *UI
	line *widget.Label
	btn  *widget.Button
	row  fyne.CanvasObject
}

func newStoreSetting(u *UI) *storeSetting {
	s := &storeSetting{u: u, line: widget.NewLabel("")}
	s.line.Wrapping = fyne.TextWrapWord
	s.btn = widget.NewButton("", s.ask)
	s.btn.Importance = widget.WarningImportance
	s.row = container.NewBorder(nil, nil, nil, s.btn, s.line)
	s.refresh()
	return s
}

// item is the form's row; nil where the counter has no store.
func (s *storeSetting) item() *widget.FormItem {
	if s.u.opts.Store == nil {
		return nil
	}
	return widget.NewFormItem("Store", s.row)
}

// refresh shows what waits now.
func (s *storeSetting) refresh() {
	if s.u.opts.Store == nil {
		return
	}
	line, act := s.u.opts.Store.Waiting()
	if act == "" {
		s.line.SetText("Enrolled; nothing waits for a manager.")
		s.btn.Hide()
		return
	}
	s.line.SetText(line)
	s.btn.SetText(act + " (manager PIN)")
	s.btn.Show()
}

// ask takes a manager's PIN and does the act.
func (s *storeSetting) ask() {
	line, act := s.u.opts.Store.Waiting()
	if act == "" {
		s.refresh()
		return
	}
	pin := newKeyEntry(s.u)
	pin.Password = true
	pin.SetPlaceHolder("Manager PIN")
	s.u.dialogs.ask(act+"?", line+" Type a manager's PIN and press Enter (journaled with the manager's name), or Escape to leave it.",
		[]*keyEntry{pin}, func(p *prompt) {
			code := pin.Text
			pin.SetText("")
			p.ok.Disable()
			s.u.async(func(ctx context.Context) func() {
				done, err := s.u.opts.Store.Act(ctx, code)
				return func() {
					p.ok.Enable()
					if err != nil {
						p.say(sentence(err))
						return
					}
					p.close()
					s.refresh()
					s.u.settings.message.SetText(done)
				}
			})
		})
}
