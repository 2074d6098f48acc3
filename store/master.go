package store

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"slices"

	"github.com/jackc/pgx/v5"

	"galla/pos"
	"galla/store/api"
)

// The master kinds a terminal receives.
const (
	MasterCatalog = "catalog"
	MasterShop    = "shop"
)

// PublishCatalog checks a catalog (CSV, or JSON when isJSON) by the terminal's
// own rules (pos.ImportCSV, pos.ImportJSON) and publishes it as the store's
// catalog, by who: every counter receives it at its next fetch. A catalog with
// a bad product is refused whole with pos's sentence of every problem.
func (db *DB) PublishCatalog(ctx context.Context, r io.Reader, isJSON bool, who string) (version uint64, products int, err error) {
	var cat *pos.Catalog
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
	v, err := db.publish(ctx, MasterCatalog, body, who)
	return v, cat.Len(), err
}

// PublishShop checks the shop's details by the terminal's own rules
// (pos.Shop.Check: a name, an address, a GST state code, a GSTIN of that
// state) and publishes them by who.
func (db *DB) PublishShop(ctx context.Context, shop pos.Shop, who string) (uint64, error) {
	if err := shop.Check(); err != nil {
		return 0, err
	}
	body, err := json.Marshal(shop)
	if err != nil {
		return 0, err
	}
	return db.publish(ctx, MasterShop, body, who)
}

func (db *DB) publish(ctx context.Context, kind string, body []byte, who string) (uint64, error) {
	if who == "" {
		return 0, errors.New("name who publishes it")
	}
	var v int64
	err := db.pool.QueryRow(ctx, "INSERT INTO master_data (kind, body, published_by, published_at) VALUES ($1, $2, $3, $4) RETURNING version",
		kind, body, who, db.Now()).Scan(&v)
	if err != nil {
		return 0, db.wrap("publish "+kind, err)
	}
	return uint64(v), nil
}

// MasterSince returns the newest item of each kind (of each member, for the
// staff) published after since, in version order, and the newest version.
func (db *DB) MasterSince(ctx context.Context, since uint64) (api.MasterUpdate, error) {
	out := api.MasterUpdate{Items: []api.MasterItem{}}
	err := pgx.BeginFunc(ctx, db.pool, func(tx pgx.Tx) error {
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
		return api.MasterUpdate{}, db.wrap("master data", err)
	}
	return out, nil
}

// masterRoutes registers the terminals' fetch of the master data.
func (s *Server) masterRoutes() {
	s.staffRoutes()
	s.handleSigned("POST "+api.PathMaster, func(w http.ResponseWriter, r *http.Request, terminal string, body []byte) {
		var req api.MasterRequest
		if err := decodeStrict(body, &req); err != nil {
			s.fail(w, err)
			return
		}
		up, err := s.db.MasterSince(r.Context(), req.Since)
		if err != nil {
			s.fail(w, err)
			return
		}
		if req.Since > up.Version {
			s.fail(w, &api.Error{HTTPStatus: http.StatusConflict, Code: api.CodeGap, Held: up.Version,
				Message: fmt.Sprintf("the terminal asks for master data after version %d, but the store's newest is %d: the store's database was replaced; fetch from 0", req.Since, up.Version)})
			return
		}
		writeJSON(w, http.StatusOK, up)
	})
}
