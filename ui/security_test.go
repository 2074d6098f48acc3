package ui

import (
	"testing"

	"fyne.io/fyne/v2"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"galla/pos"
)

// TestSettingsSecretsReplaceOnly: the access code and the secret are never shown
// (the access code only masked, in the placeholder), an empty field keeps the
// stored one, a typed one replaces it and leaves the screen at once; the screen
// says where they are kept, and the save names the signed-in manager.
func TestSettingsSecretsReplaceOnly(t *testing.T) {
	f := newFakeTill()
	f.accessCode = "ACCESS-7F3K9Q"
	f.settings.AccessCodeShown = "••••9Q"
	f.settings.SecretSet = true
	f.settings.SecretsWhere = "the file /data/secrets.json (readable by this user only): no system keyring answered"
	h := newHarness(t, f)
	h.signIn("Asha", "4321")
	h.press(fyne.KeyF10)
	h.settle()
	s := h.u.settings
	require.Equal(t, s, h.u.current)
	assert.Empty(t, s.access.Text, "the stored access code is not put in the field")
	assert.Contains(t, s.access.PlaceHolder, "••••9Q")
	assert.True(t, s.access.Password, "the access code is typed hidden")
	assert.Equal(t, f.settings.SecretsWhere, s.where.Text)

	h.ctrl(fyne.KeyS) // saved with the field empty: the stored code stays
	h.settle()
	require.Equal(t, "Saved.", s.message.Text)
	assert.Equal(t, "ACCESS-7F3K9Q", f.accessCode)
	require.Len(t, f.savedBy, 1)
	assert.Equal(t, "001", f.savedBy[0].ID, "the save names the manager signed in")

	s.access.SetText("NEWCODE-27")
	h.ctrl(fyne.KeyS)
	assert.Empty(t, s.access.Text, "the typed access code leaves the screen at once")
	h.settle()
	assert.Equal(t, "NEWCODE-27", f.accessCode)
	assert.Empty(t, s.access.Text)
	assert.Contains(t, s.access.PlaceHolder, "••••27", "the new one shows masked")
}

// TestCardSecretsNotCopied: the card number, the CVV and the secrets refuse copy
// and cut, by key and by the context menu (both reach TypedShortcut); the card
// holder's name copies as usual.
func TestCardSecretsNotCopied(t *testing.T) {
	h := newHarness(t, newFakeTill())
	h.signIn("Ravi", "1234")
	h.enter("CABLE")
	h.press(fyne.KeyF5)
	c := h.u.card
	require.Equal(t, c, h.u.current)
	clip := h.u.app.Clipboard()

	copyOf := func(e *keyEntry) string {
		clip.SetContent("")
		e.TypedShortcut(&fyne.ShortcutSelectAll{})
		e.TypedShortcut(&fyne.ShortcutCopy{Clipboard: clip})
		return clip.Content()
	}
	c.holder.SetText("A Customer")
	assert.Equal(t, "A Customer", copyOf(c.holder), "an ordinary field copies")

	for name, e := range map[string]*keyEntry{"number": c.number, "cvv": c.cvv,
		"access code": h.u.settings.access, "secret": h.u.settings.secret} {
		e.SetText("4111111111111111")
		assert.Empty(t, copyOf(e), "%s: nothing is copied", name)
		e.TypedShortcut(&fyne.ShortcutCut{Clipboard: clip})
		assert.Empty(t, clip.Content(), "%s: nothing is cut to the clipboard", name)
		assert.Equal(t, "4111111111111111", e.Text, "%s: cut takes nothing away", name)
		e.SetText("")
	}
	assert.True(t, c.cvv.Password, "the CVV is typed hidden")
}

// TestLockClearsCardForm: locking the screen, by hand or idle, clears every field
// of the card form and journals the sign-out.
func TestLockClearsCardForm(t *testing.T) {
	for _, idle := range []bool{false, true} {
		h := newHarness(t, newFakeTill())
		h.signIn("Ravi", "1234")
		h.enter("CABLE")
		h.press(fyne.KeyF5)
		c := h.u.card
		require.Equal(t, c, h.u.current)
		h.enter("4111111111111111")
		h.enter("08/31")
		h.enter("123")
		h.typeText("A Customer")
		if idle {
			h.clock.Advance(16 * 60e9)
			h.u.checkIdle()
		} else {
			h.ctrl(fyne.KeyL)
		}
		h.settle()
		require.False(t, h.u.signedIn)
		for _, e := range []*keyEntry{c.number, c.expiry, c.cvv, c.holder} {
			assert.Empty(t, e.Text, "idle %v: %s cleared on lock", idle, e.PlaceHolder)
		}
		want := "Ravi:locked"
		if idle {
			want = "Ravi:idle"
		}
		assert.Equal(t, []string{want}, h.till.signOuts)
	}
}

// TestCardCancelledWhileBankAsked: Back while the bank is asked about the EMI
// offer wipes the card and pays nothing when the answer comes.
func TestCardCancelledWhileBankAsked(t *testing.T) {
	f := newFakeTill()
	h := newHarness(t, f)
	h.signIn("Ravi", "1234")
	h.enter("S24")
	h.press(fyne.KeyF6)
	h.settle()
	h.press(fyne.KeyDown)
	h.press(fyne.KeyDown)
	h.press(fyne.KeyReturn)
	h.enter(validIMEI(t, "35693803564380")) // every phone sold carries its IMEI
	h.settle()
	require.Equal(t, h.u.card, h.u.current)
	require.Equal(t, "ICICI", h.u.card.req.Offer.Issuer)
	h.enter("4111111111111111")
	h.enter("08/31")
	h.enter("123")
	h.enter("A Customer") // the bank is asked in the background
	h.press(fyne.KeyEscape)
	assert.Equal(t, h.u.emi, h.u.current)
	h.settle()
	assert.Equal(t, h.u.emi, h.u.current, "the answer does not take the payment")
	f.mu.Lock()
	defer f.mu.Unlock()
	assert.Empty(t, f.requests, "nothing is paid")
	require.Len(t, f.cards, 1)
	assert.True(t, f.cards[0].zeroed, "the card is wiped")
}

// TestDiscountOverrideJournaled: a manager's PIN approving a discount above the
// limit is asked for with the line, the amount and the cashier who asked.
func TestDiscountOverrideJournaled(t *testing.T) {
	f := newFakeTill()
	h := newHarness(t, f)
	h.signIn("Ravi", "1234")
	h.enter("TV55")
	h.press(fyne.KeyF4)
	require.NotNil(t, h.u.dialogs.prompt)
	h.enter("600")
	require.NotNil(t, h.u.dialogs.prompt, "above the limit the prompt asks for a manager's PIN")
	h.enter("4321")
	h.settle()
	require.Equal(t, pos.Rupees(600), h.u.sale.lines[0].Discount, h.u.sale.message.Text)
	assert.Equal(t, []string{"discount TV55 600.00 by 002 approved by 001"}, f.overrides)
}
