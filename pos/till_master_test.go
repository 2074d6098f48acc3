package pos

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// catalogs keeps imported catalogs and who imported them.
type catalogs struct {
	cat *Catalog
	by  []string
}

func (c *catalogs) Catalog(context.Context) (*Catalog, error) { return c.cat, nil }
func (c *catalogs) PutCatalog(_ context.Context, cat *Catalog, staff string) error {
	c.cat, c.by = cat, append(c.by, staff)
	return nil
}

func TestTheStoresMasterDataIsAppliedOnce(t *testing.T) {
	ctx := t.Context()
	r := newRig(t)
	cs := &catalogs{}
	tl, err := NewTill(ctx, TillConfig{Engine: r.e, Catalogs: cs, SampleCatalog: catalogJSON(t)})
	require.NoError(t, err)
	v, err := tl.Shelf.MasterVersion(ctx)
	require.NoError(t, err)
	assert.Equal(t, uint64(0), v)

	store := []byte(`[{"sku":"CHG","name":"Charger 20W","price":"1180.00","gst_rate":18,"hsn":"8504"}]`)
	require.NoError(t, tl.Shelf.ApplyMaster(ctx, MasterCatalog, store, 1))
	p, ok := tl.Shelf.Lookup("CHG")
	require.True(t, ok, "the store's catalog is sold from at once")
	assert.Equal(t, Rupees(1180), p.Price)
	_, ok = tl.Shelf.Lookup("ACC-CASE")
	assert.False(t, ok, "the store's catalog replaced the counter's")
	assert.Equal(t, []string{"store"}, cs.by)

	require.NoError(t, tl.Shelf.ApplyMaster(ctx, MasterCatalog, store, 1))
	assert.Equal(t, []string{"store"}, cs.by, "a version applied is not applied again")

	shop := []byte(`{"name":"Galla Mobiles","address":["FC Road, Pune"],"gstin":"27AAPFU0939F1ZV","state":"27"}`)
	require.NoError(t, tl.Shelf.ApplyMaster(ctx, MasterShop, shop, 2))
	got, err := LoadShop(ctx, r.j)
	require.NoError(t, err)
	assert.Equal(t, Shop{Name: "Galla Mobiles", Address: []string{"FC Road, Pune"}, GSTIN: "27AAPFU0939F1ZV", State: "27"}, got)
	// From now on the store's details win: the counter's own change is refused.
	_, _, err = tl.Setup.SetShop(ctx, ShopDetails{Name: "Other", Address: "Elsewhere", State: "27"}, "")
	require.ErrorIs(t, err, ErrShopByStore)
	got, err = LoadShop(ctx, r.j)
	require.NoError(t, err)
	assert.Equal(t, "Galla Mobiles", got.Name, "nothing changed")

	// A catalog the counter's rules refuse changes nothing.
	err = tl.Shelf.ApplyMaster(ctx, MasterCatalog, []byte(`[{"sku":"X","name":"X","price":"10.00","gst_rate":7,"hsn":"8504"}]`), 3)
	require.ErrorIs(t, err, ErrBadCatalog)
	_, ok = tl.Shelf.Lookup("CHG")
	assert.True(t, ok)

	// After a restart the counter knows what it applied.
	tl2, err := NewTill(ctx, TillConfig{Engine: r.e, Catalogs: cs, SampleCatalog: catalogJSON(t)})
	require.NoError(t, err)
	v, err = tl2.Shelf.MasterVersion(ctx)
	require.NoError(t, err)
	assert.Equal(t, uint64(2), v)
	var byStore int
	for _, raw := range r.j.events {
		var ev Event
		require.NoError(t, json.Unmarshal(raw, &ev))
		// The shop's change is dated in its registration history too (an
		// event of its own, before the shop's), not a second application.
		if ev.Kind == EvSettingsChanged && ev.Staff == "store" && ev.Setting.Key != SettingRegistrations {
			byStore++
		}
	}
	assert.Equal(t, 4, byStore, "version 1, the shop, the store's shop version, version 2")
}
