package ui

import (
	"testing"

	"fyne.io/fyne/v2"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"galla/pos"
)

// TestDiscountLimitSetting sets the discount limit in the settings as a manager,
// then checks as a cashier that a discount up to it needs no PIN (₹1,000 is above
// the default), that one above it
// asks for a manager's PIN, that a cashier's or a wrong PIN refuses it, and that the
// manager's PIN approves it.
func TestDiscountLimitSetting(t *testing.T) {
	tests := []struct {
		name      string
		typed     string    // in the settings field
		limit     pos.Paise // what is saved
		intro     string    // the discount prompt's text
		alone     string    // a discount given without a PIN; "" for none
		above     string    // a discount that needs a manager
		aboveP    pos.Paise
		needsText string // what the prompt says above the limit
	}{
		{name: "a lower limit", typed: "200", limit: pos.Rupees(200), intro: "Up to ₹200.00 without a manager.",
			alone: "200", above: "200.50", aboveP: pos.Rupees(200) + 50, needsText: "A discount above ₹200.00 needs a manager's PIN."},
		{name: "a higher limit", typed: "₹1,000", limit: pos.Rupees(1000), intro: "Up to ₹1,000.00 without a manager.",
			alone: "1000", above: "1000.01", aboveP: pos.Rupees(1000) + 1, needsText: "A discount above ₹1,000.00 needs a manager's PIN."},
		{name: "every discount needs a manager", typed: "0", limit: 0, intro: "Every discount needs a manager's PIN.",
			above: "1", aboveP: pos.Rupees(1), needsText: "Every discount needs a manager's PIN."},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFakeTill()
			h := newHarness(t, f)
			h.signIn("Asha", "4321")
			h.press(fyne.KeyF10)
			h.settle()
			st := h.u.settings
			require.Equal(t, st, h.u.current)
			assert.Equal(t, "500", st.discount.Text, "the default limit is shown")
			st.discount.SetText(tt.typed)
			h.ctrl(fyne.KeyS)
			h.settle()
			require.Equal(t, "Saved.", st.message.Text)
			f.mu.Lock()
			assert.Equal(t, tt.limit, f.settings.DiscountLimit, "saved limit after typing %q", tt.typed)
			f.mu.Unlock()

			h.ctrl(fyne.KeyL)
			h.signIn("Ravi", "1234")
			s := h.u.sale
			h.press(fyne.KeyF2)
			h.enter("TV55")
			require.Len(t, s.lines, 1)

			var given pos.Paise
			if tt.alone != "" {
				h.press(fyne.KeyF4)
				require.NotNil(t, h.u.dialogs.prompt)
				assert.Contains(t, h.u.dialogs.prompt.message.Text, tt.intro)
				h.enter(tt.alone)
				assert.Nil(t, h.u.dialogs.prompt, "up to the limit no PIN is asked")
				given, _ = pos.ParsePaise(tt.alone)
				assert.Equal(t, given, s.lines[0].Discount)
				assert.Empty(t, s.lines[0].ApprovedBy)
			}

			h.press(fyne.KeyF4)
			require.NotNil(t, h.u.dialogs.prompt)
			assert.Contains(t, h.u.dialogs.prompt.message.Text, tt.intro)
			h.enter(tt.above)
			require.NotNil(t, h.u.dialogs.prompt, "above the limit the prompt stays for the PIN")
			assert.Contains(t, h.u.dialogs.prompt.message.Text, tt.needsText)
			assert.Equal(t, given, s.lines[0].Discount, "nothing changes before a manager approves")

			for _, pin := range []string{"1234", "9999"} { // a cashier's PIN, a PIN of nobody
				h.enter(pin)
				h.settle()
				require.NotNil(t, h.u.dialogs.prompt, "PIN %s", pin)
				assert.Equal(t, sentence(errFakeWrongPIN), h.u.dialogs.prompt.message.Text, "PIN %s", pin)
				assert.Equal(t, given, s.lines[0].Discount, "PIN %s does not approve", pin)
				assert.Empty(t, s.lines[0].ApprovedBy)
			}

			h.enter("4321")
			h.settle()
			assert.Nil(t, h.u.dialogs.prompt)
			assert.Equal(t, tt.aboveP, s.lines[0].Discount)
			assert.Equal(t, "Asha", s.lines[0].ApprovedBy)
			assert.Equal(t, (pos.Rupees(139990) - tt.aboveP).String(), s.total.Text)
		})
	}
}

// TestDiscountLimitSettingRefused checks that the settings are not saved with a
// limit that is not an amount, or is negative, or could not be loaded.
func TestDiscountLimitSettingRefused(t *testing.T) {
	for _, typed := range []string{"", "lots", "-5", "1.234"} {
		t.Run(typed, func(t *testing.T) {
			f := newFakeTill()
			h := newHarness(t, f)
			h.signIn("Asha", "4321")
			h.press(fyne.KeyF10)
			h.settle()
			st := h.u.settings
			require.Equal(t, st, h.u.current)
			st.shop.SetText("Renamed")
			st.discount.SetText(typed)
			h.ctrl(fyne.KeyS)
			h.settle()
			assert.Contains(t, st.message.Text, "Type the discount a cashier may give without a manager in rupees")
			f.mu.Lock()
			defer f.mu.Unlock()
			assert.Equal(t, "Sharma Mobiles", f.settings.ShopName, "nothing is saved")
			assert.Equal(t, pos.DefaultDiscountLimit, f.settings.DiscountLimit)
		})
	}
}
