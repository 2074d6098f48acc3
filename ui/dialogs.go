package ui

import (
	"context"
	"errors"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/widget"

	"galla/pos"
)

// dialogs opens the window's modal dialogs (prompts): forms, messages and the
// manager's override. One is open at a time.
type dialogs struct {
	u      *UI
	prompt *prompt // the open dialog, if any
}

// ask opens a prompt with the given fields; onOK runs when the last field is
// confirmed (it closes the prompt itself, or shows a message and leaves it open).
func (dl *dialogs) ask(title, text string, fields []*keyEntry, onOK func(p *prompt)) *prompt {
	return dl.askWith(title, text, nil, fields, onOK)
}

// askWith is ask with extra content (a report, a QR code) above the fields.
func (dl *dialogs) askWith(title, text string, extra fyne.CanvasObject, fields []*keyEntry, onOK func(p *prompt)) *prompt {
	return dl.askWithActions(title, text, extra, nil, fields, onOK)
}

// askWithActions is askWith with actions of the dialog's own, shown as a row of
// buttons under the extra content; their keys work while the dialog is open.
func (dl *dialogs) askWithActions(title, text string, extra fyne.CanvasObject, acts []*action, fields []*keyEntry, onOK func(p *prompt)) *prompt {
	p := &prompt{u: dl.u, title: title, fields: fields, onOK: onOK, actions: acts, under: dl.prompt}
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
			dl.u.win.Canvas().Focus(fields[next])
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
	p.ok = newKeyButton(dl.u, "OK  [Enter]", p.confirm)
	p.ok.Importance = widget.HighImportance
	p.cancel = newKeyButton(dl.u, "Cancel  [Esc]", p.dismiss)
	p.ok.onEsc, p.cancel.onEsc = p.dismiss, p.dismiss
	p.ok.onKey, p.cancel.onKey = p.dispatch, p.dispatch
	if len(fields) == 0 {
		p.cancel.Hide()
	}
	box.Add(container.NewGridWithColumns(2, p.cancel, p.ok))
	p.pop = widget.NewModalPopUp(container.NewGridWrap(fyne.NewSize(max(540, box.MinSize().Width+20), box.MinSize().Height+20), box), dl.u.win.Canvas())
	dl.prompt = p
	p.pop.Show()
	if len(fields) > 0 {
		dl.u.win.Canvas().Focus(fields[0]) // a value it opens with is selected (keyEntry)
	} else {
		dl.u.win.Canvas().Focus(p.ok)
	}
	dl.u.typeAhead.arrived()
	return p
}

// showError shows msg in a dialog that Enter or Escape closes; the focus goes back
// to the current screen afterwards.
func (dl *dialogs) showError(msg string) {
	dl.showMessage("Cannot do that", msg)
}

func (dl *dialogs) showMessage(title, msg string) {
	dl.ask(title, msg, nil, func(p *prompt) { p.close() })
}

// errOverrideDeclined is the cashier backing out of the manager's override: the
// sale is refused with the store's own sentence.
var errOverrideDeclined = errors.New("ui: the manager's override was declined")

// askIMEIOverride is PayRequest.AskIMEIOverride for the window: when the store
// server cannot be asked about the sale's phones (pos.MayOverrideIMEI), it opens
// "Manager override" asking a manager's PIN, and the sale goes on with it, its
// card kept by the call in memory. cause is said above the PIN: the store's
// sentence, or why the last PIN approved nothing. Escape declines: the sale is
// refused and nothing was charged. It runs on the payment's goroutine and waits.
func (dl *dialogs) askIMEIOverride(ctx context.Context, cause error) (string, error) {
	reply := make(chan string, 1)
	declined := make(chan struct{})
	var p *prompt // the UI goroutine's only
	dl.u.do(func() {
		pin := newKeyEntry(dl.u)
		pin.Password = true
		pin.SetPlaceHolder("Manager PIN")
		text := sentence(cause) + " Type a manager's PIN, or Escape to cancel the sale."
		if pos.MayOverrideIMEI(cause) {
			text = "The store server cannot be reached to approve the phone's IMEI; nothing was charged. " +
				"A manager's PIN sells it without the store's approval (journaled with the manager's name). Escape cancels the sale."
		}
		p = dl.ask("Manager override", text,
			[]*keyEntry{pin}, func(p *prompt) {
				code := pin.Text
				pin.SetText("")
				if code == "" {
					p.say("Type a manager's PIN, then Enter; Escape cancels the sale.")
					return
				}
				p.close()
				reply <- code
			})
		p.onCancel = func() { close(declined) }
	})
	select {
	case pin := <-reply:
		return pin, nil
	case <-declined:
		return "", errOverrideDeclined
	case <-ctx.Done():
		dl.u.do(func() {
			if p != nil {
				p.close()
			}
		})
		return "", ctx.Err()
	}
}
