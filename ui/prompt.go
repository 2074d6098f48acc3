package ui

import (
	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/widget"
)

// prompt is a small modal form: Enter moves to the next field and confirms on the
// last, Escape cancels. Its fields are kept for tests.
type prompt struct {
	u       *UI
	pop     *widget.PopUp
	title   string
	fields  []*keyEntry
	message *widget.Label
	ok      *keyButton
	cancel  *keyButton
	onOK    func(p *prompt)
	// onCancel, if set, runs when the person backs out (Escape, Cancel), not when
	// onOK closes the prompt.
	onCancel func()
	closed   bool
	actions  []*action // the dialog's own keys (Print [F5]); the screen's do not run
	// under is the dialog this one opened over (closing the window during a
	// payment's OTP): it is the open one again once this one closes.
	under *prompt
}

// dispatch runs the dialog's action bound to key, if any.
func (p *prompt) dispatch(key fyne.KeyName, mod fyne.KeyModifier) bool {
	if p.closed {
		return false
	}
	for _, a := range p.actions {
		if a.matches(key, mod) {
			if !a.btn.Disabled() {
				a.run()
			}
			return true
		}
	}
	return false
}

func (p *prompt) confirm() {
	if p.closed {
		return
	}
	p.onOK(p)
}

// say shows msg in the prompt and puts the focus back on its first field.
func (p *prompt) say(msg string) {
	p.message.SetText(msg)
	if len(p.fields) > 0 {
		p.u.win.Canvas().Focus(p.fields[0])
	}
}

// dismiss closes the prompt as the person backing out of it: onCancel runs.
func (p *prompt) dismiss() {
	if p.closed {
		return
	}
	p.close()
	if p.onCancel != nil {
		p.onCancel()
	}
}

// close hides the prompt and gives the focus back to the screen.
func (p *prompt) close() {
	if p.closed {
		return
	}
	p.closed = true
	p.pop.Hide()
	if p.u.dialogs.prompt == p {
		p.u.dialogs.prompt = nil
		if u := p.under; u != nil && !u.closed {
			p.u.dialogs.prompt = u
			if len(u.fields) > 0 {
				p.u.win.Canvas().Focus(u.fields[0])
			} else {
				p.u.win.Canvas().Focus(u.ok)
			}
			return
		}
	}
	if p.u.current != nil {
		p.u.current.shown()
	}
}
