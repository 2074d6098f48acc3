package ui

import (
	"galla/internal/testclock"
	"sync"
	"testing"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/driver/desktop"
	"fyne.io/fyne/v2/test"
	"github.com/stretchr/testify/require"
)

// harness is a window on the test driver with a fake till. Background results are
// queued (instead of fyne.Do) and run on the test goroutine by drain, so a test sees
// the screen between a call and its answer, and the race detector sees one UI thread.
type harness struct {
	t     *testing.T
	u     *UI
	till  *fakeTill
	clock *testclock.Clock

	mu    sync.Mutex
	queue []func()
}

func newHarness(t *testing.T, till *fakeTill) *harness {
	t.Helper()
	app := test.NewTempApp(t)
	h := &harness{t: t, till: till, clock: testclock.New(time.Date(2026, 11, 22, 11, 30, 0, 0, time.Local))}
	till.now = h.clock.Now
	h.u = New(app, servicesOf(till), Options{Do: h.enqueue, Now: h.clock.Now})
	h.u.win.Resize(fyne.NewSize(1366, 768))
	t.Cleanup(func() {
		h.u.stop()
		h.settle()
	})
	h.settle()
	return h
}

func (h *harness) enqueue(f func()) {
	h.mu.Lock()
	h.queue = append(h.queue, f)
	h.mu.Unlock()
}

// drain runs the queued UI work; it reports whether there was any.
func (h *harness) drain() bool {
	h.mu.Lock()
	q := h.queue
	h.queue = nil
	h.mu.Unlock()
	for _, f := range q {
		f()
	}
	return len(q) > 0
}

// settle waits until no background call is running and the queue is empty.
func (h *harness) settle() {
	h.t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for time.Now().Before(deadline) {
		ran := h.drain()
		if !ran && h.u.pending.Load() == 0 {
			h.mu.Lock()
			empty := len(h.queue) == 0
			h.mu.Unlock()
			if empty {
				return
			}
		}
		time.Sleep(time.Millisecond)
	}
	h.t.Fatal("the UI did not settle within 5 s")
}

// waitFor drains the queue until cond holds.
func (h *harness) waitFor(what string, cond func() bool) {
	h.t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for time.Now().Before(deadline) {
		h.drain()
		if cond() {
			return
		}
		time.Sleep(time.Millisecond)
	}
	h.t.Fatalf("timed out waiting for %s", what)
}

// focused is what has the keyboard focus.
func (h *harness) focused() fyne.Focusable {
	h.t.Helper()
	f := h.u.win.Canvas().Focused()
	require.NotNil(h.t, f, "nothing has the keyboard focus")
	return f
}

// typeText types s into whatever has the focus, as a keyboard (or scanner) would.
func (h *harness) typeText(s string) {
	h.t.Helper()
	f := h.focused()
	for _, r := range s {
		f.TypedRune(r)
	}
}

// press sends a key the way the desktop driver does: to the focused widget, else
// to the canvas.
func (h *harness) press(k fyne.KeyName) {
	h.t.Helper()
	ev := &fyne.KeyEvent{Name: k}
	if f := h.u.win.Canvas().Focused(); f != nil {
		f.TypedKey(ev)
		return
	}
	if on := h.u.win.Canvas().OnTypedKey(); on != nil {
		on(ev)
	}
}

// ctrl sends Ctrl+k the way the desktop driver does.
func (h *harness) ctrl(k fyne.KeyName) {
	h.t.Helper()
	sc := &desktop.CustomShortcut{KeyName: k, Modifier: fyne.KeyModifierControl}
	if f, ok := h.u.win.Canvas().Focused().(fyne.Shortcutable); ok {
		f.TypedShortcut(sc)
		return
	}
	h.u.dispatch(k, fyne.KeyModifierControl)
}

// enter types s and presses Enter.
func (h *harness) enter(s string) {
	h.t.Helper()
	h.typeText(s)
	h.press(fyne.KeyReturn)
}

// signIn signs in as name with pin by keyboard.
func (h *harness) signIn(name, pin string) {
	h.t.Helper()
	for i, s := range h.u.signIn.staff {
		if s.Name == name {
			h.u.signIn.choose(i)
		}
	}
	h.enter(pin)
	h.settle()
	require.True(h.t, h.u.signedIn, "signed in as %s: %s", name, h.u.signIn.message.Text)
}
