package journal

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"

	bolt "go.etcd.io/bbolt"

	"galla/pos"
)

// Shop keeps the shop's settings (the last value of each, settings.changed) and
// its catalog (catalog.imported): pos.CatalogStore.
type Shop struct{ *journalCore }

// Setting returns the value last stored for key by settings.changed, or nil when
// the key was never set.
func (sh *Shop) Setting(ctx context.Context, key string) (json.RawMessage, error) {
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("journal: setting %q: %w", key, err)
	}
	var v json.RawMessage
	err := sh.view(func(tx *bolt.Tx) error {
		raw, err := sh.provedGet(tx, bucketSettings, []byte(key))
		if raw != nil {
			v = bytes.Clone(raw)
		}
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("journal: setting %q: %w", key, err)
	}
	return v, nil
}

// Catalog returns the catalog last imported (catalog.imported), or nil when none
// was.
func (sh *Shop) Catalog(ctx context.Context) (*pos.Catalog, error) {
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("journal: catalog: %w", err)
	}
	var data []byte
	err := sh.view(func(tx *bolt.Tx) error {
		raw, err := sh.provedGet(tx, bucketCatalog, catalogKey)
		data = bytes.Clone(raw)
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("journal: catalog: %w", err)
	}
	if data == nil {
		return nil, nil
	}
	c, err := pos.RestoreCatalogJSON(data)
	if err != nil {
		return nil, fmt.Errorf("journal: catalog: %w", err)
	}
	return c, nil
}

// PutCatalog replaces the catalog: it appends a catalog.imported event carrying
// the catalog's JSON, done by staff.
func (sh *Shop) PutCatalog(ctx context.Context, c *pos.Catalog, staff string) error {
	var b bytes.Buffer
	if err := c.WriteJSON(&b); err != nil {
		return fmt.Errorf("journal: put catalog: %w", err)
	}
	ev := pos.Event{Kind: pos.EvCatalogImported, Time: sh.now(), Staff: staff, Data: b.Bytes()}
	_, err := sh.append(ctx, ev, nil)
	return err
}
