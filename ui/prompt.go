package ui

import (
	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
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
}

// ask opens a prompt with the given fields; onOK runs when the last field is
// confirmed (it closes the prompt itself, or shows a message and leaves it open).
func (u *UI) ask(title, text string, fields []*keyEntry, onOK func(p *prompt)) *prompt {
	return u.askWith(title, text, nil, fields, onOK)
}

// askWith is ask with extra content (a report, a QR code) above the fields.
func (u *UI) askWith(title, text string, extra fyne.CanvasObject, fields []*keyEntry, onOK func(p *prompt)) *prompt {
	return u.askWithActions(title, text, extra, nil, fields, onOK)
}

// askWithActions is askWith with actions of the dialog's own, shown as a row of
// buttons under the extra content; their keys work while the dialog is open.
func (u *UI) askWithActions(title, text string, extra fyne.CanvasObject, acts []*action, fields []*keyEntry, onOK func(p *prompt)) *prompt {
	p := &prompt{u: u, title: title, fields: fields, onOK: onOK, actions: acts}
	p.message = widget.NewLabel(text)
	p.message.Wrapping = fyne.TextWrapWord
	box := container.NewVBox(heading(title), p.message)
	if extra != nil {
		box.Add(extra)
	}
	if len(acts) > 0 {
		row := container.NewGridWithColumns(len(acts))
		for _, a := range acts {
			a.btn.onEsc, a.btn.onKey = p.dismiss, p.dispatch
			row.Add(a.btn)
		}
		box.Add(row)
	}
	for i, f := range fields {
		f.modal = true
		last := i == len(fields)-1
		next := i + 1
		f.OnSubmitted = func(string) {
			if last {
				p.confirm()
				return
			}
			u.win.Canvas().Focus(fields[next])
		}
		f.onKey = func(k *fyne.KeyEvent) bool {
			if k.Name == fyne.KeyEscape {
				p.dismiss()
				return true
			}
			return isActionKey(k.Name) && p.dispatch(k.Name, 0)
		}
		if f.label != "" {
			// Labels of one width, so that the fields line up.
			l := container.NewGridWrap(fyne.NewSize(150, f.MinSize().Height), widget.NewLabel(f.label))
			box.Add(container.NewBorder(nil, nil, l, nil, f))
			continue
		}
		box.Add(f)
	}
	p.ok = newKeyButton(u, "OK  [Enter]", p.confirm)
	p.ok.Importance = widget.HighImportance
	p.cancel = newKeyButton(u, "Cancel  [Esc]", p.dismiss)
	p.ok.onEsc, p.cancel.onEsc = p.dismiss, p.dismiss
	p.ok.onKey, p.cancel.onKey = p.dispatch, p.dispatch
	if len(fields) == 0 {
		p.cancel.Hide()
	}
	box.Add(container.NewGridWithColumns(2, p.cancel, p.ok))
	p.pop = widget.NewModalPopUp(container.NewGridWrap(fyne.NewSize(max(540, box.MinSize().Width+20), box.MinSize().Height+20), box), u.win.Canvas())
	u.prompt = p
	p.pop.Show()
	if len(fields) > 0 {
		u.win.Canvas().Focus(fields[0])
		// A value the dialog opens with is replaced by what is typed first.
		fields[0].replace = fields[0].Text != ""
	} else {
		u.win.Canvas().Focus(p.ok)
	}
	return p
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
	if p.u.prompt == p {
		p.u.prompt = nil
	}
	if p.u.current != nil {
		p.u.current.shown()
	}
}
