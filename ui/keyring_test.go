package ui

import (
	"testing"
	"time"

	"fyne.io/fyne/v2/test"
	"github.com/stretchr/testify/assert"

	"galla/internal/testclock"
)

// TestStartNoticeInTheStatusBar: the line the window is started with (where no
// system keyring answers) is in the status bar from the start; none, no row.
func TestStartNoticeInTheStatusBar(t *testing.T) {
	const line = "No system keyring answers: the secrets, and with them the key that seals the customers' details in the journal, are in the file /data/secrets.json (readable by this user only), so they are only as safe as that file; docs/security.md says how to add a keyring."
	for _, notice := range []string{line, ""} {
		till := newFakeTill()
		h := &harness{t: t, till: till, clock: testclock.New(time.Date(2026, 11, 22, 11, 30, 0, 0, time.Local))}
		till.now = h.clock.Now
		h.u = New(test.NewTempApp(t), servicesOf(till), Options{Do: h.enqueue, Now: h.clock.Now, StartNotice: notice})
		h.settle()
		assert.Equal(t, notice, h.u.bar.notice.Text)
		assert.Equal(t, notice != "", h.u.bar.noticeRow.Visible(), "the notice row is shown only with a line")
		h.u.stop()
		h.settle()
	}
}
