package ui

import (
	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/driver/desktop"
	"fyne.io/fyne/v2/widget"
)

// action is one thing a person can do on a screen: a button with its key shown on it.
type action struct {
	key   fyne.KeyName     // an F-key, Escape, or a letter with mod
	mod   fyne.KeyModifier // 0 for F-keys and Escape
	label string
	run   func()
	btn   *keyButton
}

// keyText names the key as a person reads it: "F5", "Ctrl+R", "Esc".
func (a *action) keyText() string {
	name := string(a.key)
	switch a.key {
	case fyne.KeyEscape:
		name = "Esc"
	case fyne.KeyDelete:
		name = "Del"
	}
	if a.mod&fyne.KeyModifierControl != 0 {
		name = "Ctrl+" + name
	}
	return name
}

// matches reports whether the key (with modifiers) triggers a.
func (a *action) matches(key fyne.KeyName, mod fyne.KeyModifier) bool {
	return a.key == key && a.mod == mod
}

// keyEntry is an Entry that passes the counter's keys (F-keys, Escape, Ctrl
// combinations) to the screen instead of swallowing them, so that every action
// works while the scan field keeps the focus.
type keyEntry struct {
	widget.Entry
	ui    *UI
	onKey func(k *fyne.KeyEvent) bool // the entry's own keys first (Up/Down in a list)
	modal bool                        // inside a dialog: no screen action runs
	// noCopy refuses copy and cut (keys and the context menu alike): a card
	// number, a CVV or a secret never reaches the clipboard (DESIGN.md section 5).
	noCopy bool
	// label, when set, names the field beside it in a dialog (a count of notes).
	label string
}

// SetText sets the text, nothing selected and the cursor after it: what is
// typed next goes after it.
func (e *keyEntry) SetText(s string) {
	e.Entry.SetText(s)
	e.Entry.TypedKey(&fyne.KeyEvent{Name: fyne.KeyEnd}) // ends a selection too
}

// FocusGained selects the text the field holds: a pre-filled value (the
// quantity, a refund's amount, a held bill's number) is replaced by what is
// typed ("2", not "21"), and a key that moves the cursor keeps it to edit.
func (e *keyEntry) FocusGained() {
	e.Entry.FocusGained()
	if e.Text != "" {
		e.Entry.TypedShortcut(&fyne.ShortcutSelectAll{})
	}
}

func newKeyEntry(u *UI) *keyEntry {
	e := &keyEntry{ui: u}
	e.ExtendBaseWidget(e)
	return e
}

// TypedKey runs the entry's own keys, then the screen's actions, then edits text.
// While the screen changes, Enter and Backspace wait for the next screen
// (typeAhead).
func (e *keyEntry) TypedKey(k *fyne.KeyEvent) {
	e.ui.touch()
	if e.ui.typeAhead.keep(0, k.Name) {
		return
	}
	if e.onKey != nil && e.onKey(k) {
		return
	}
	if !e.modal && isActionKey(k.Name) && e.ui.dispatch(k.Name, 0) {
		return
	}
	e.Entry.TypedKey(k)
}

// TypedRune records activity and types; while the screen changes the character
// waits for the next screen's field (typeAhead).
func (e *keyEntry) TypedRune(r rune) {
	e.ui.touch()
	if e.ui.typeAhead.keep(r, "") {
		return
	}
	e.Entry.TypedRune(r)
}

// TypedShortcut runs a screen action bound to a Ctrl combination; the rest (copy,
// paste, select all) edit text as usual, but an entry with noCopy refuses copy and
// cut.
func (e *keyEntry) TypedShortcut(s fyne.Shortcut) {
	e.ui.touch()
	if cs, ok := s.(*desktop.CustomShortcut); ok && !e.modal && e.ui.dispatch(cs.KeyName, cs.Modifier) {
		return
	}
	if e.noCopy {
		switch s.(type) {
		case *fyne.ShortcutCopy, *fyne.ShortcutCut:
			return
		}
	}
	e.Entry.TypedShortcut(s)
}

// keyButton is a Button that Enter also presses and that passes the counter's keys
// on while it has the focus.
type keyButton struct {
	widget.Button
	ui    *UI
	onEsc func() // inside a dialog: Escape closes it and no screen action runs
	// onKey, inside a dialog, runs the dialog's own action bound to a key.
	onKey func(key fyne.KeyName, mod fyne.KeyModifier) bool
}

func newKeyButton(u *UI, label string, tapped func()) *keyButton {
	b := &keyButton{ui: u}
	b.Text = label
	b.OnTapped = tapped
	b.ExtendBaseWidget(b)
	return b
}

// Tapped records activity and presses the button.
func (b *keyButton) Tapped(ev *fyne.PointEvent) {
	b.ui.touch()
	b.Button.Tapped(ev)
}

// TypedKey presses the button on Enter; other counter keys go to the screen.
func (b *keyButton) TypedKey(k *fyne.KeyEvent) {
	b.ui.touch()
	switch {
	case b.ui.typeAhead.keep(0, k.Name):
	case k.Name == fyne.KeyReturn || k.Name == fyne.KeyEnter:
		if !b.Disabled() && b.OnTapped != nil {
			b.OnTapped()
		}
	case b.onEsc != nil:
		if k.Name == fyne.KeyEscape {
			b.onEsc()
		} else if b.onKey != nil && isActionKey(k.Name) {
			b.onKey(k.Name, 0)
		}
	case isActionKey(k.Name) && b.ui.dispatch(k.Name, 0):
	default:
		b.Button.TypedKey(k)
	}
}

// TypedShortcut runs a screen action bound to a Ctrl combination.
func (b *keyButton) TypedShortcut(s fyne.Shortcut) {
	cs, ok := s.(*desktop.CustomShortcut)
	switch {
	case !ok:
	case b.onEsc == nil:
		b.ui.dispatch(cs.KeyName, cs.Modifier)
	case b.onKey != nil:
		b.onKey(cs.KeyName, cs.Modifier)
	}
}

// isActionKey reports whether a key without modifiers may trigger an action.
func isActionKey(k fyne.KeyName) bool {
	switch k {
	case fyne.KeyF1, fyne.KeyF2, fyne.KeyF3, fyne.KeyF4, fyne.KeyF5, fyne.KeyF6,
		fyne.KeyF7, fyne.KeyF8, fyne.KeyF9, fyne.KeyF10, fyne.KeyF11, fyne.KeyF12,
		fyne.KeyEscape:
		return true
	}
	return false
}
