package link_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"galla/pos"
	"galla/store/api"
	"galla/store/link"
)

const storeCatalog = `sku,name,brand,hsn,gst_rate,price,barcode
CHG-20W,20W charger,Acme,8504,18,1180.00,8901234567890
TEA-250,Tea 250 g,Leaf,0902,5,105.00,
`

func TestACatalogPublishedAtTheStoreReachesEveryCounter(t *testing.T) {
	s := newStoreServer(t)
	ctx := t.Context()
	var links []*link.Link
	for _, id := range []string{"T1", "T2"} {
		l, err := link.New(s.enrol(t, id, t.TempDir()), openJournal(t, t.TempDir()).Log)
		require.NoError(t, err)
		links = append(links, l)
	}
	v, n, err := s.db.Master.PublishCatalog(ctx, strings.NewReader(storeCatalog), false, "meera")
	require.NoError(t, err)
	assert.Equal(t, 2, n)
	_, err = s.db.Master.PublishShop(ctx, pos.Shop{Name: "Galla Mobiles"}, "meera")
	require.Error(t, err, "a shop without an address or state is refused as the terminal refuses it")
	_, err = s.db.Master.PublishShop(ctx, pos.Shop{Name: "Galla Mobiles", Address: []string{"12 MG Road, Bengaluru"}, State: "29"}, "meera")
	require.NoError(t, err)

	for _, l := range links {
		var cat *pos.Catalog
		var kinds []string
		got, err := l.PullMaster(ctx, 0, func(it api.MasterItem) error {
			kinds = append(kinds, it.Kind)
			if it.Kind == "shop" {
				var shop pos.Shop
				require.NoError(t, json.Unmarshal(it.Body, &shop))
				assert.Equal(t, "29", shop.State)
			}
			if it.Kind == "catalog" {
				var err error
				cat, err = pos.ImportJSON(bytes.NewReader(it.Body))
				return err
			}
			return nil
		})
		require.NoError(t, err)
		assert.Equal(t, v+1, got)
		assert.Equal(t, []string{"catalog", "shop"}, kinds)
		require.NotNil(t, cat)
		p, ok := cat.Lookup("8901234567890")
		require.True(t, ok)
		assert.Equal(t, pos.Rupees(1180), p.Price)
		// Nothing new since: nothing applied.
		again, err := l.PullMaster(ctx, got, func(api.MasterItem) error { t.Fatal("nothing is new"); return nil })
		require.NoError(t, err)
		assert.Equal(t, got, again)
	}

	// A new catalog supersedes the old: one item, the newest.
	v2, _, err := s.db.Master.PublishCatalog(ctx, strings.NewReader(strings.Replace(storeCatalog, "1180.00", "1090.00", 1)), false, "meera")
	require.NoError(t, err)
	var items []api.MasterItem
	got, err := links[0].PullMaster(ctx, v, func(it api.MasterItem) error { items = append(items, it); return nil })
	require.NoError(t, err)
	assert.Equal(t, v2, got)
	require.Len(t, items, 2, "the shop published after v and the new catalog")
	assert.Equal(t, "catalog", items[1].Kind)

	// A terminal that cannot apply an item asks for it again next time.
	refused := errors.New("disk full")
	got, err = links[1].PullMaster(ctx, v+1, func(api.MasterItem) error { return refused })
	require.ErrorIs(t, err, refused)
	assert.Equal(t, v+1, got)

	// A bad catalog is refused at the store with pos's sentence; nothing published.
	_, _, err = s.db.Master.PublishCatalog(ctx, strings.NewReader("sku,name,hsn,gst_rate,price\nX,Thing,8504,7,10.00\n"), false, "meera")
	require.ErrorIs(t, err, pos.ErrBadCatalog)
	after, err := s.db.Master.MasterSince(ctx, v2)
	require.NoError(t, err)
	assert.Empty(t, after.Items)
}
