package ui

import (
	"context"
	"testing"

	"fyne.io/fyne/v2"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"galla/pos"
)

func (f *fakeAdmin) VPA(context.Context) (string, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.vpa, nil
}

func (f *fakeAdmin) SaveVPA(_ context.Context, by StaffMember, vpa string) error {
	if !by.Manager() {
		return pos.ErrNotManager
	}
	if err := pos.CheckVPA(vpa); err != nil {
		return err
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	f.vpa = vpa
	return nil
}

// TestSettingsUPIAddress shows the stored VPA in Settings and saves the one
// typed with the other settings; a malformed one is refused with a sentence and
// not stored.
func TestSettingsUPIAddress(t *testing.T) {
	f := newFakeTill()
	f.vpa = "old@ybl"
	h := newHarness(t, f)
	h.signIn("Asha", "4321")
	h.press(fyne.KeyF10)
	h.settle()
	st := h.u.settings
	require.Equal(t, st, h.u.current)
	assert.Equal(t, "old@ybl", st.upi.entry.Text)

	st.upi.entry.SetText("galla mobiles@ybl")
	h.ctrl(fyne.KeyS)
	h.settle()
	assert.Contains(t, st.message.Text, "shopname@okhdfcbank")
	assert.Equal(t, "old@ybl", f.vpa)

	st.upi.entry.SetText(" gallamobiles@okhdfcbank ")
	h.ctrl(fyne.KeyS)
	h.settle()
	assert.Equal(t, "Saved.", st.message.Text)
	assert.Equal(t, "gallamobiles@okhdfcbank", f.vpa)
}

func TestPhonePageWarning(t *testing.T) {
	for _, tt := range []struct {
		addr string
		warn bool
	}{
		{"http://127.0.0.1:7071/pay/G1", true},
		{"http://localhost:7071/pay/G1", true},
		{"http://[::1]:7071/pay/G1", true},
		{"http://192.168.1.20:7071/pay/G1", false},
		{"https://pay.example.com/x", false},
	} {
		w := PhonePageWarning(tt.addr)
		assert.Equal(t, tt.warn, w != "", "PhonePageWarning(%q) = %q", tt.addr, w)
		if tt.warn {
			assert.Contains(t, w, "a phone cannot open it")
			assert.Contains(t, w, "Settings (F10)")
		}
	}
}
