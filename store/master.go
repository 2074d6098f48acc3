package store

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/jackc/pgx/v5"

	"galla/pos"
	"galla/store/api"
)

// Master is the master data the store publishes to its counters: the catalog
// and the shop's details (the staff's records are published by Staff), and
// what a counter fetches after the version it holds.
type Master struct{ *dbCore }

// The master kinds a terminal receives.
const (
	MasterCatalog = "catalog"
	MasterShop    = "shop"
)

// ErrCatalogRemoves is wrapped by the refusal of a catalog that would take
// products off every counter (a *CatalogRemovalError says how many).
var ErrCatalogRemoves = errors.New("the catalog would remove products from every counter")

// CatalogRemovalError refuses a catalog that lacks products of the catalog
// published before: publishing it would remove them from every counter.
type CatalogRemovalError struct {
	Removed  []string // the SKUs it lacks, as published before, in their order
	Products int      // the products it has
	Before   int      // the products of the catalog published before
}

func (e *CatalogRemovalError) Error() string {
	list := e.Removed
	more := ""
	if len(list) > 5 {
		list, more = list[:5], fmt.Sprintf(" and %d more", len(e.Removed)-5)
	}
	return fmt.Sprintf("the file has %s and the store's catalog %d: publishing it would remove %s from every counter (%s%s)",
		products(e.Products), e.Before, products(len(e.Removed)), strings.Join(list, ", "), more)
}

// products is n products in words: "1 product", "39 products".
func products(n int) string {
	if n == 1 {
		return "1 product"
	}
	return fmt.Sprintf("%d products", n)
}

func (e *CatalogRemovalError) Unwrap() error { return ErrCatalogRemoves }

// PublishCatalog checks a catalog (CSV, or JSON when isJSON) by the terminal's
// own rules (pos.ImportCSV, pos.ImportJSON) and publishes it as the store's
// catalog, by who: every counter receives it at its next fetch, and its
// products are the counters' whole catalog. A catalog with a bad product is
// refused whole with pos's sentence of every problem; one that lacks products
// of the catalog published before is refused with a *CatalogRemovalError
// (ReplaceCatalog publishes it).
func (ms *Master) PublishCatalog(ctx context.Context, r io.Reader, isJSON bool, who string) (version uint64, products int, err error) {
	return ms.publishCatalog(ctx, r, isJSON, who, false)
}

// ReplaceCatalog is PublishCatalog of a catalog meant to be the whole of the
// store's: the products the one before had and it lacks are removed from
// every counter.
func (ms *Master) ReplaceCatalog(ctx context.Context, r io.Reader, isJSON bool, who string) (version uint64, products int, err error) {
	return ms.publishCatalog(ctx, r, isJSON, who, true)
}

func (ms *Master) publishCatalog(ctx context.Context, r io.Reader, isJSON bool, who string, replace bool) (uint64, int, error) {
	var cat *pos.Catalog
	var err error
	if isJSON {
		cat, err = pos.ImportJSON(r)
	} else {
		cat, err = pos.ImportCSV(r)
	}
	if err != nil {
		return 0, 0, err
	}
	body, err := json.Marshal(cat.Products())
	if err != nil {
		return 0, 0, err
	}
	if who == "" {
		return 0, 0, errors.New("name who publishes it")
	}
	var v int64
	err = pgx.BeginFunc(ctx, ms.pool, func(tx pgx.Tx) error {
		// One catalog at a time: the one compared with is the one replaced.
		if _, err := tx.Exec(ctx, "SELECT pg_advisory_xact_lock(hashtextextended($1, 0))", "galla master catalog"); err != nil {
			return err
		}
		if !replace {
			var before []byte
			err := tx.QueryRow(ctx, "SELECT body FROM master_data WHERE kind = $1 ORDER BY version DESC LIMIT 1", MasterCatalog).Scan(&before)
			switch {
			case err == nil:
				if rm := removed(before, cat); rm != nil {
					return rm
				}
			case !errors.Is(err, pgx.ErrNoRows):
				return err
			}
		}
		return tx.QueryRow(ctx, "INSERT INTO master_data (kind, body, published_by, published_at) VALUES ($1, $2, $3, $4) RETURNING version",
			MasterCatalog, body, who, ms.now()).Scan(&v)
	})
	var rm *CatalogRemovalError
	if errors.As(err, &rm) {
		return 0, cat.Len(), rm
	}
	if err != nil {
		return 0, 0, ms.wrap("publish "+MasterCatalog, err)
	}
	return uint64(v), cat.Len(), nil
}

// removed is the refusal of cat when it lacks products of the catalog
// published before (its body); nil when it has them all. A body that cannot
// be read any more is replaced without a word: it holds nothing to keep.
func removed(before []byte, cat *pos.Catalog) *CatalogRemovalError {
	old, err := pos.ImportJSON(bytes.NewReader(before))
	if err != nil {
		return nil
	}
	e := &CatalogRemovalError{Products: cat.Len(), Before: old.Len()}
	for _, p := range old.Products() {
		if n, ok := cat.Lookup(p.SKU); !ok || !strings.EqualFold(n.SKU, p.SKU) {
			e.Removed = append(e.Removed, p.SKU)
		}
	}
	if len(e.Removed) == 0 {
		return nil
	}
	return e
}

// PublishShop checks the shop's details by the terminal's own rules
// (pos.Shop.Check: a name, an address, a GST state code, a GSTIN of that
// state) and publishes them by who.
func (ms *Master) PublishShop(ctx context.Context, shop pos.Shop, who string) (uint64, error) {
	if err := shop.Check(); err != nil {
		return 0, err
	}
	body, err := json.Marshal(shop)
	if err != nil {
		return 0, err
	}
	return ms.publish(ctx, MasterShop, body, who)
}

func (ms *Master) publish(ctx context.Context, kind string, body []byte, who string) (uint64, error) {
	if who == "" {
		return 0, errors.New("name who publishes it")
	}
	var v int64
	err := ms.pool.QueryRow(ctx, "INSERT INTO master_data (kind, body, published_by, published_at) VALUES ($1, $2, $3, $4) RETURNING version",
		kind, body, who, ms.now()).Scan(&v)
	if err != nil {
		return 0, ms.wrap("publish "+kind, err)
	}
	return uint64(v), nil
}

// MasterSince returns the newest item of each kind (of each member, for the
// staff) published after since, in version order, and the newest version.
func (ms *Master) MasterSince(ctx context.Context, since uint64) (api.MasterUpdate, error) {
	out := api.MasterUpdate{Items: []api.MasterItem{}}
	err := pgx.BeginFunc(ctx, ms.pool, func(tx pgx.Tx) error {
		var v int64
		if err := tx.QueryRow(ctx, "SELECT coalesce(max(version), 0) FROM master_data").Scan(&v); err != nil {
			return err
		}
		out.Version = uint64(v)
		rs, err := tx.Query(ctx, `SELECT DISTINCT ON (kind, key) version, kind, body::text, published_by FROM master_data
			WHERE version > $1 AND version <= $2 ORDER BY kind, key, version DESC`, int64(since), v)
		if err != nil {
			return err
		}
		items, err := pgx.CollectRows(rs, func(r pgx.CollectableRow) (api.MasterItem, error) {
			var it api.MasterItem
			var ver int64
			var body string
			err := r.Scan(&ver, &it.Kind, &body, &it.PublishedBy)
			it.Version, it.Body = uint64(ver), json.RawMessage(body)
			return it, err
		})
		if err != nil {
			return err
		}
		// In version order: a terminal applying them in turn ends at the newest.
		slices.SortFunc(items, func(a, b api.MasterItem) int { return cmp.Compare(a.Version, b.Version) })
		out.Items = append(out.Items, items...)
		return nil
	})
	if err != nil {
		return api.MasterUpdate{}, ms.wrap("master data", err)
	}
	return out, nil
}

// Shop returns the store's shop details: the newest published as master data,
// else the newest a counter journaled (settings.changed "shop"); ok is false
// when neither is known.
func (ms *Master) Shop(ctx context.Context) (shop pos.Shop, ok bool, err error) {
	var body []byte
	err = ms.pool.QueryRow(ctx, "SELECT body FROM master_data WHERE kind = $1 ORDER BY version DESC LIMIT 1", MasterShop).Scan(&body)
	switch {
	case errors.Is(err, pgx.ErrNoRows):
		err = ms.pool.QueryRow(ctx, `SELECT body->'setting'->'value' FROM events WHERE kind = 'settings.changed' AND body->'setting'->>'key' = $1
			ORDER BY (body->>'time')::timestamptz DESC, terminal_id, seq DESC LIMIT 1`, pos.SettingShop).Scan(&body)
		if errors.Is(err, pgx.ErrNoRows) {
			return shop, false, nil
		}
		if err != nil {
			return shop, false, ms.wrap("read the shop's details", err)
		}
	case err != nil:
		return shop, false, ms.wrap("read the shop's details", err)
	}
	if err := json.Unmarshal(body, &shop); err != nil {
		return shop, false, fmt.Errorf("the shop's details held cannot be read: %w", err)
	}
	return shop, true, nil
}
