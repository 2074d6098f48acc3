package pos

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestSettingsKeepTheStoresShop: once the counter applied the shop's details
// the store published, Settings saves the rest (the printer; the store's
// address line with a comma in it, shown as two, is no change) but refuses a
// change of the shop with ErrShopByStore, changing nothing of it.
func TestSettingsKeepTheStoresShop(t *testing.T) {
	r, tl, _, meera, _ := auditRig(t)
	ctx := t.Context()
	shop := []byte(`{"name":"Galla Mobiles","address":["FC Road, Pune"],"gstin":"27AAPFU0939F1ZV","state":"27"}`)
	require.NoError(t, tl.Shelf.ApplyMaster(ctx, MasterShop, shop, 1))

	st, err := tl.Setup.Settings(ctx)
	require.NoError(t, err)
	st.PrinterAddr, st.PrinterProfile = "192.168.1.50:9100", "80mm"
	require.NoError(t, tl.Setup.SaveSettings(ctx, meera, st, ""), "the shop unchanged: the rest is saved")
	got, err := LoadShop(ctx, r.j)
	require.NoError(t, err)
	assert.Equal(t, []string{"FC Road, Pune"}, got.Address, "the store's lines are kept as published")
	prof, _, err := LoadPrinter(ctx, r.j)
	require.NoError(t, err)
	assert.Equal(t, "192.168.1.50:9100", prof.Address)

	st, err = tl.Setup.Settings(ctx)
	require.NoError(t, err)
	st.ShopName = "Other Name"
	require.ErrorIs(t, tl.Setup.SaveSettings(ctx, meera, st, ""), ErrShopByStore)
	got, err = LoadShop(ctx, r.j)
	require.NoError(t, err)
	assert.Equal(t, "Galla Mobiles", got.Name, "the store's details stay")
}
