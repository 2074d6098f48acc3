package cli

import (
	"io"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"galla/pos"
	"galla/ui"
)

// TestWindowTillDiscountPolicy checks the discount limit behind the sale screen:
// the default, who may approve a discount above it, the limit a manager sets in
// the settings, that Pay applies the same rule, and that the setting survives a
// restart through the real journal.
func TestWindowTillDiscountPolicy(t *testing.T) {
	ctx := t.Context()
	c := &cli{dataDir: t.TempDir(), stdout: io.Discard, stderr: io.Discard, getenv: func(string) string { return "" }}
	till, closeAll, err := openWindowTill(c)
	require.NoError(t, err)
	closed := false
	t.Cleanup(func() {
		if !closed {
			closeAll()
		}
	})
	require.NoError(t, till.Crew.AddStaff(ctx, "Asha", ui.RoleManager, "432100"))
	require.NoError(t, till.Crew.AddStaff(ctx, "Ravi", ui.RoleCashier, "1234"))
	asha, err := till.Crew.SignIn(ctx, "Asha", "432100")
	require.NoError(t, err)

	tv, ok := till.Shelf.Lookup("TV-LG-OLED55C4")
	require.True(t, ok, "the sample catalog has the LG television")
	line := func(d pos.Paise, by string) []ui.Line {
		return []ui.Line{{Product: tv, Qty: 1, Discount: d, ApprovedBy: by}}
	}

	// The default: ₹500.
	assert.Equal(t, pos.DefaultDiscountLimit, till.Shelf.DiscountLimit(line(0, "")[0]))
	st, err := till.Setup.Settings(ctx)
	require.NoError(t, err)
	assert.Equal(t, pos.DefaultDiscountLimit, st.DiscountLimit)

	refusals := []struct {
		name string
		d    pos.Paise
		by   string
	}{
		{"above the limit alone", pos.Rupees(500) + 1, ""},
		{"a manager's name without her PIN", pos.Rupees(600), "Asha"},
		{"a cashier as approver", pos.Rupees(600), "Ravi"},
		{"nobody of that name", pos.Rupees(600), "Someone"},
	}
	for _, r := range refusals {
		_, err := till.Shelf.Price(line(r.d, r.by))
		require.ErrorIs(t, err, pos.ErrDiscountNeedsManager, r.name)
		assert.Equal(t, "A discount above ₹500.00 needs a manager's PIN.", pos.Sentence(err), r.name)
	}
	b, err := till.Shelf.Price(line(pos.Rupees(500), ""))
	require.NoError(t, err, "at the limit no manager is needed")
	assert.Equal(t, tv.Price-pos.Rupees(500), b.Total)
	_, err = till.Shelf.Price(line(tv.Price+1, ""))
	assert.ErrorIs(t, err, pos.ErrDiscountTooLarge, "the cart's bound stays")

	tvDiscount := pos.Override{What: pos.OverrideDiscount, SKU: tv.SKU, Amount: pos.Rupees(600)}
	_, err = till.Crew.Authorize(ctx, "1234", tvDiscount)
	require.Error(t, err, "a cashier's PIN is not a manager's")
	_, err = till.Shelf.Price(line(pos.Rupees(600), "Ravi"))
	assert.ErrorIs(t, err, pos.ErrDiscountNeedsManager)
	m, err := till.Crew.Authorize(ctx, "432100", tvDiscount)
	require.NoError(t, err)
	require.Equal(t, "Asha", m.Name)
	b, err = till.Shelf.Price(line(pos.Rupees(600), "Asha"))
	require.NoError(t, err, "approved by a manager whose PIN was checked")
	assert.Equal(t, tv.Price-pos.Rupees(600), b.Total)

	// A manager sets ₹1,000 in the settings; it applies at once.
	st.DiscountLimit = pos.Rupees(1000)
	require.NoError(t, till.Setup.SaveSettings(ctx, asha, st, ""))
	assert.Equal(t, pos.Rupees(1000), till.Shelf.DiscountLimit(line(0, "")[0]))
	_, err = till.Shelf.Price(line(pos.Rupees(1000), ""))
	assert.NoError(t, err)
	_, err = till.Shelf.Price(line(pos.Rupees(1000)+1, ""))
	require.ErrorIs(t, err, pos.ErrDiscountNeedsManager)
	assert.Equal(t, "A discount above ₹1,000.00 needs a manager's PIN.", pos.Sentence(err))

	bad := st
	bad.DiscountLimit = -1
	assert.ErrorIs(t, till.Setup.SaveSettings(ctx, asha, bad, ""), pos.ErrBadDiscount)
	assert.Equal(t, pos.Rupees(1000), till.Shelf.DiscountLimit(line(0, "")[0]), "a refused save changes nothing")

	// Pay applies the same rule, and the approving manager is journaled with the line.
	pay := func(d pos.Paise, by string) (ui.Outcome, error) {
		return till.Checkout.Pay(ctx, ui.PayRequest{Lines: line(d, by), Tender: pos.TenderCash, Tendered: tv.Price, Cashier: "Ravi"}, nil)
	}
	_, err = pay(pos.Rupees(1500), "")
	require.ErrorIs(t, err, pos.ErrDiscountNeedsManager)
	_, err = pay(pos.Rupees(1500), "Ravi")
	require.ErrorIs(t, err, pos.ErrDiscountNeedsManager)
	orders, err := till.Books.Orders(ctx, till.eng.Now())
	require.NoError(t, err)
	assert.Empty(t, orders, "a refused discount journals no sale")
	out, err := pay(pos.Rupees(1500), "Asha")
	require.NoError(t, err)
	require.Equal(t, pos.StatePaid, out.State, out.Reason)
	o, err := till.eng.Order(ctx, out.OrderID)
	require.NoError(t, err)
	require.Len(t, o.Lines, 1)
	assert.Equal(t, pos.Rupees(1500), o.Lines[0].Discount)
	assert.Equal(t, "Asha", o.Lines[0].ApprovedBy)
	assert.Equal(t, tv.Price-pos.Rupees(1500), o.Amount)

	// The setting is in the journal: a restart reads it back.
	closeAll()
	closed = true
	again, closeAgain, err := openWindowTill(c)
	require.NoError(t, err)
	defer closeAgain()
	assert.Equal(t, pos.Rupees(1000), again.Shelf.DiscountLimit(line(0, "")[0]))
	st, err = again.Setup.Settings(ctx)
	require.NoError(t, err)
	assert.Equal(t, pos.Rupees(1000), st.DiscountLimit)
	assert.Equal(t, pos.Rupees(1000), mustPolicy(t, again).Limit)
	_, err = again.Shelf.Price(line(pos.Rupees(600), "Asha"))
	assert.NoError(t, err, "within the stored limit")
	_, err = again.Shelf.Price(line(pos.Rupees(1200), "Asha"))
	assert.ErrorIs(t, err, pos.ErrDiscountNeedsManager, "approvals do not outlive the session")

	// 0: every discount needs a manager.
	st.DiscountLimit = 0
	require.NoError(t, again.Setup.SaveSettings(ctx, asha, st, ""))
	assert.Equal(t, pos.Paise(0), mustPolicy(t, again).Limit)
	_, err = again.Shelf.Price(line(1, ""))
	require.ErrorIs(t, err, pos.ErrDiscountNeedsManager)
	assert.Equal(t, "Every discount needs a manager's PIN.", pos.Sentence(err))
	_, err = again.Shelf.Price(line(0, ""))
	assert.NoError(t, err, "no discount, no manager")
}

// mustPolicy reads the discount policy straight from the till's journal.
func mustPolicy(t *testing.T, till *terminal) pos.DiscountPolicy {
	t.Helper()
	p, err := pos.LoadDiscountPolicy(t.Context(), till.j.Port())
	require.NoError(t, err)
	return p
}
