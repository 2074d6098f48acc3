package ui

import (
	"context"
	"slices"
	"sync"
	"testing"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/test"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"galla/internal/testclock"
	"galla/pos"
)

// fakeStoreActs waits for a manager to accept the store, then to acknowledge.
type fakeStoreActs struct {
	mu    sync.Mutex
	state int // 0: not accepted, 1: not acknowledged, 2: nothing waits
	pins  []string
}

func (f *fakeStoreActs) Waiting() (string, string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	switch f.state {
	case 0:
		return "This counter has not accepted the store https://store.local:7443.", "Accept store"
	case 1:
		return "Accepted at https://store.local:7443 as T2 by Asha, not yet acknowledged by a manager.", "Acknowledge"
	}
	return "", ""
}

func (f *fakeStoreActs) Act(_ context.Context, pin string) (string, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.pins = append(f.pins, pin)
	if pin != "432100" {
		return "", pos.ErrWrongPIN
	}
	f.state++
	return "Done by Asha.", nil
}

// entered is the PINs Act was given so far (Act runs on the window's worker).
func (f *fakeStoreActs) entered() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return slices.Clone(f.pins)
}

// TestSettingsStoreActs: Settings shows what a manager must do about the
// counter's store with its button; the button asks for a manager's PIN,
// says a wrong one and stays open, and with the right one does it, and the
// row shows what waits next. A counter with no store shows no such row.
func TestSettingsStoreActs(t *testing.T) {
	till := newFakeTill()
	acts := &fakeStoreActs{}
	h := &harness{t: t, till: till, clock: testclock.New(time.Date(2026, 11, 26, 11, 30, 0, 0, time.Local))}
	till.now = h.clock.Now
	h.u = New(test.NewTempApp(t), servicesOf(till), Options{Do: h.enqueue, Now: h.clock.Now, Store: acts})
	t.Cleanup(func() {
		h.u.stop()
		h.settle()
	})
	h.settle()
	s := h.u.settings.storeLink
	assert.Equal(t, "This counter has not accepted the store https://store.local:7443.", s.line.Text)
	assert.Equal(t, "Accept store (manager PIN)", s.btn.Text)
	assert.True(t, s.btn.Visible())

	test.Tap(s.btn)
	h.settle()
	p := h.u.dialogs.prompt
	require.NotNil(t, p, "the button asks for a PIN")
	assert.Equal(t, "Accept store?", p.title)
	h.typeText("111111")
	h.press(fyne.KeyReturn)
	h.waitFor("the refusal", func() bool { return p.message.Text != "" && len(acts.entered()) == 1 })
	assert.Equal(t, pos.Sentence(pos.ErrWrongPIN), p.message.Text)
	assert.Equal(t, p, h.u.dialogs.prompt, "the dialog stays open")
	h.typeText("432100")
	h.press(fyne.KeyReturn)
	h.waitFor("the act", func() bool { return h.u.dialogs.prompt == nil })
	assert.Equal(t, []string{"111111", "432100"}, acts.entered())
	assert.Equal(t, "Done by Asha.", h.u.settings.message.Text)
	assert.Equal(t, "Acknowledge (manager PIN)", s.btn.Text)

	test.Tap(s.btn)
	h.settle()
	h.typeText("432100")
	h.press(fyne.KeyReturn)
	h.waitFor("the acknowledgement", func() bool { return h.u.dialogs.prompt == nil })
	assert.False(t, s.btn.Visible())
	assert.Equal(t, "Enrolled; nothing waits for a manager.", s.line.Text)

	plain := newHarness(t, newFakeTill())
	assert.Nil(t, plain.u.settings.storeLink.item(), "no store, no row")
}
