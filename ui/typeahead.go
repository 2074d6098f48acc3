package ui

import (
	"context"

	"fyne.io/fyne/v2"
)

// typeAheadMax is how many keys the type-ahead buffer keeps; a scanner's code
// and an amount fit, a key held down does not fill memory.
const typeAheadMax = 64

// typed is one key kept by the type-ahead buffer: a character, or an editing
// key (Enter, Backspace) when r is 0.
type typed struct {
	r   rune
	key fyne.KeyName
}

// typeAhead is the counter's type-ahead buffer, as terminal POS systems keep:
// while a screen changes (a call to pos that ends on another screen or dialog
// is in flight), what the cashier types is kept, in order, and given to the
// field the new screen focuses once it is shown, instead of landing in the old
// field or being lost. Only the UI goroutine uses it.
type typeAhead struct {
	u     *UI
	holds int // screen changes in flight
	gen   int // bumped when a dialog takes the keys: older holds end silently
	keys  []typed
}

// hold starts keeping keys until the returned release runs; releases nest, and
// the last one gives the keys to what has the focus then.
func (ta *typeAhead) hold() (release func()) {
	ta.holds++
	gen, done := ta.gen, false
	return func() {
		if done || gen != ta.gen {
			return
		}
		done = true
		ta.holds--
		if ta.holds == 0 {
			ta.flush()
		}
	}
}

// keep records r (or key, when r is 0) if a screen change is in flight; it
// reports whether it did, so that the caller types nothing itself.
func (ta *typeAhead) keep(r rune, key fyne.KeyName) bool {
	if ta.holds == 0 {
		return false
	}
	if r == 0 && !typeAheadKey(key) {
		return false
	}
	if len(ta.keys) < typeAheadMax {
		ta.keys = append(ta.keys, typed{r: r, key: key})
	}
	return true
}

// arrived is told that a dialog opened and focused its field: the keys kept so
// far are its own (a PIN asked in the middle of a sale), and the holds still
// in flight keep nothing more.
func (ta *typeAhead) arrived() {
	if ta.holds == 0 {
		return
	}
	ta.gen++
	ta.holds = 0
	ta.flush()
}

// flush types the kept keys into whatever has the focus, in order.
func (ta *typeAhead) flush() {
	keys := ta.keys
	ta.keys = nil
	c := ta.u.win.Canvas()
	for _, k := range keys {
		f := c.Focused()
		switch {
		case k.r != 0 && f != nil:
			f.TypedRune(k.r)
		case k.r != 0:
			if on := c.OnTypedRune(); on != nil {
				on(k.r)
			}
		case f != nil:
			f.TypedKey(&fyne.KeyEvent{Name: k.key})
		default:
			if on := c.OnTypedKey(); on != nil {
				on(&fyne.KeyEvent{Name: k.key})
			}
		}
	}
}

// typeAheadKey reports whether the buffer keeps key: the keys that edit or
// confirm what is typed. Action keys (F-keys, Escape) run at once, as always.
func typeAheadKey(key fyne.KeyName) bool {
	switch key {
	case fyne.KeyReturn, fyne.KeyEnter, fyne.KeyBackspace:
		return true
	}
	return false
}

// asyncScreen is async for a call that changes the screen (or opens a dialog)
// when it answers: what is typed meanwhile goes, in order, to the field the
// screen it ends on focuses (typeAhead). Screens that move to another screen
// on a call's answer use it instead of async.
func (u *UI) asyncScreen(work func(ctx context.Context) func()) {
	release := u.typeAhead.hold()
	u.async(func(ctx context.Context) func() {
		apply := work(ctx)
		return func() {
			if apply != nil {
				apply()
			}
			release()
		}
	})
}
