package cli

import (
	"context"
	"sync"
	"testing"

	"fyne.io/fyne/v2"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"galla/pos"
)

// unreachableStore is a store server the terminal is enrolled to but cannot
// reach: every decision is pos.ErrStoreOffline.
type unreachableStore struct {
	mu    sync.Mutex
	asked int
}

func (s *unreachableStore) ReserveIMEIs(context.Context, string, []string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.asked++
	return pos.ErrStoreOffline
}

func (s *unreachableStore) RedeemCreditNote(context.Context, string, string, pos.Paise) (pos.Paise, error) {
	return 0, pos.ErrStoreOffline
}

func (s *unreachableStore) ReserveReturn(context.Context, string, string, pos.Paise) (pos.Paise, error) {
	return 0, pos.ErrStoreOffline
}

func (s *unreachableStore) Release(context.Context, string, string) error { return pos.ErrStoreOffline }

// ReserveReturnItems cannot be asked either.
func (s *unreachableStore) ReserveReturnItems(context.Context, string, string, pos.Paise, []pos.ReturnItem) (pos.Paise, error) {
	return 0, pos.ErrStoreOffline
}

// Invoice cannot be asked either.
func (s *unreachableStore) Invoice(context.Context, string) (*pos.StoreInvoice, error) {
	return nil, pos.ErrStoreOffline
}

// ReturnedElsewhere says the store never named an invoice of this counter
// returned at another counter.
func (s *unreachableStore) ReturnedElsewhere(string) (pos.ElsewhereReturn, bool, error) {
	return pos.ElsewhereReturn{}, false, nil
}

// imeiOverrides are the journal's staff.override events of what=imei.
func imeiOverrides(t *testing.T, till *terminal) []pos.Event {
	t.Helper()
	last, err := till.j.Log.LastSeq(t.Context())
	require.NoError(t, err)
	var out []pos.Event
	for seq := uint64(1); seq <= last; seq++ {
		ev, err := till.j.Log.Event(t.Context(), seq)
		require.NoError(t, err)
		if ev.Kind == pos.EvOverride && ev.Extra["what"] == "imei" {
			out = append(out, ev)
		}
	}
	return out
}

// TestKeyboardIMEIOverrideStoreOffline sells phones while the store server
// cannot be reached: the payment screen asks "Manager override"; a PIN that is
// no manager's is refused and asked again; the manager's PIN lets the card sale
// go on with the card typed once (kept in memory, never written), journaled as
// an IMEI override. Escape on the override refuses the next sale with nothing
// charged, and a split sale of a phone is opened with the override too.
func TestKeyboardIMEIOverrideStoreOffline(t *testing.T) {
	till := newWindowTill(t)
	store := &unreachableStore{}
	till.eng.StoreDesk.SetDecisions(store)
	k := newCounter(t, till)
	k.firstManager()

	k.enter("s24")
	k.waitText("EMI from ₹")
	k.press(fyne.KeyF5)
	k.waitText("IMEI of each phone")
	k.enter("352906110000017")
	k.waitText("Card payment")
	k.typeText("4111 1111 1111 1111")
	k.press(fyne.KeyReturn)
	k.enter("12/30")
	k.enter("123")
	k.enter("Asha Rao")

	k.waitFor("the manager override", func() bool { return k.shows("Manager override") && k.inDialog() })
	assert.True(t, k.shows("The store server cannot be reached to approve the phone's IMEI"), k.screenText())
	k.enter("111111") // no manager's PIN
	k.waitFor("the PIN refused", func() bool {
		return k.shows("Manager override") && !k.shows("The store server cannot be reached")
	})
	assert.Empty(t, imeiOverrides(t, till), "nothing approved yet")
	k.enter("432100")
	k.otp()
	k.waitFor("the result", func() bool { return k.result() != "" })
	require.Equal(t, "PAID", k.result(), k.screenText())
	assert.Equal(t, 1, captures(till))

	ov := imeiOverrides(t, till)
	require.Len(t, ov, 1)
	assert.Equal(t, "352906110000017", ov[0].Extra["imei1"])
	asha, err := till.Crew.SignIn(t.Context(), "Asha", "432100")
	require.NoError(t, err)
	assert.Equal(t, asha.ID, ov[0].Staff, "the override names the manager")
	k.settle()

	// Escape declines the override: the sale is refused, nothing charged.
	k.ctrl(fyne.KeyN)
	k.enter("s24")
	k.waitText("EMI from ₹")
	k.press(fyne.KeyF5)
	k.waitText("IMEI of each phone")
	k.enter(testIMEI(t, "35290611000002"))
	k.waitText("Card payment")
	k.typeText("4111 1111 1111 1111")
	k.press(fyne.KeyReturn)
	k.enter("12/30")
	k.enter("123")
	k.enter("Asha Rao")
	k.waitFor("the manager override", func() bool { return k.shows("Manager override") && k.inDialog() })
	k.press(fyne.KeyEscape)
	k.waitFor("the result", func() bool { return k.result() != "" })
	assert.Equal(t, "NOT PAID", k.result())
	assert.True(t, k.shows("The store server cannot be reached"), k.screenText())
	assert.Equal(t, 1, captures(till), "nothing more charged")
	assert.Len(t, till.ps.sandbox.Controls.Ledger(), 1, "no order was created for the refused sale")
	assert.Len(t, imeiOverrides(t, till), 1)
	k.settle()

	// A split sale of a phone: the override opens it.
	k.ctrl(fyne.KeyN)
	k.enter("s24")
	k.waitText("EMI from ₹")
	k.press(fyne.KeyF11)
	k.waitText("IMEI of each phone")
	k.enter(testIMEI(t, "35290611000003"))
	k.waitFor("the manager override", func() bool { return k.shows("Manager override") && k.inDialog() })
	k.enter("432100")
	k.waitText("Split tender: sale")
	require.Len(t, imeiOverrides(t, till), 2)
	k.settle()
	noCardNumber(t, till, "4111111111111111")
}
