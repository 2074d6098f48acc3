package ui

import (
	"testing"
	"time"

	"fyne.io/fyne/v2/test"
	"github.com/stretchr/testify/assert"

	"galla/internal/testclock"
)

// TestSettingsShowsVersionAndDataDir: Settings shows the version and the data
// directory the window was given, as given.
func TestSettingsShowsVersionAndDataDir(t *testing.T) {
	till := newFakeTill()
	h := &harness{t: t, till: till, clock: testclock.New(time.Date(2026, 11, 22, 11, 30, 0, 0, time.Local))}
	till.now = h.clock.Now
	h.u = New(test.NewTempApp(t), servicesOf(till), Options{Do: h.enqueue, Now: h.clock.Now,
		Version: "0.1.0 (commit abc, built 2026-11-24)", DataDir: "/home/shop/.local/share/galla (the default for this system)"})
	t.Cleanup(func() {
		h.u.stop()
		h.settle()
	})
	h.settle()
	assert.Equal(t, "0.1.0 (commit abc, built 2026-11-24)", h.u.settings.version.Text)
	assert.Equal(t, "/home/shop/.local/share/galla (the default for this system)", h.u.settings.dataDir.Text)
}
