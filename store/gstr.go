package store

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"

	"galla/pos"
	"galla/pos/gstr"
)

// The store's GSTR-1 (issue 15). GSTR-1 is filed per GSTIN, that is per store:
// it is built from every counter's orders as projected (pos.Order snapshots) by
// the terminal's own rules (pos.GSTRDocuments, gstr.GSTR1), under the shop's
// details published as master data or, failing that, the newest a counter
// journaled.

// ErrNoGSTIN refuses a GSTR-1 of a store whose GSTIN is not known.
var ErrNoGSTIN = errors.New("GSTR-1 is filed under the store's GSTIN, which is not known: set it on a counter (galla shop set --gstin, or Settings) and let the counter sync, then export again")

// ErrComposition refuses a GSTR-1 of a composition-scheme store.
var ErrComposition = errors.New("a store under the composition scheme files CMP-08 and GSTR-4, not GSTR-1: there is nothing to export")

// Shop returns the store's shop details: the newest published as master data,
// else the newest a counter journaled (settings.changed "shop"); ok is false
// when neither is known.
func (db *DB) Shop(ctx context.Context) (shop pos.Shop, ok bool, err error) {
	var body []byte
	err = db.pool.QueryRow(ctx, "SELECT body FROM master_data WHERE kind = $1 ORDER BY version DESC LIMIT 1", MasterShop).Scan(&body)
	switch {
	case errors.Is(err, pgx.ErrNoRows):
		err = db.pool.QueryRow(ctx, `SELECT body->'setting'->'value' FROM events WHERE kind = 'settings.changed' AND body->'setting'->>'key' = $1
			ORDER BY (body->>'time')::timestamptz DESC, terminal_id, seq DESC LIMIT 1`, pos.SettingShop).Scan(&body)
		if errors.Is(err, pgx.ErrNoRows) {
			return shop, false, nil
		}
		if err != nil {
			return shop, false, db.wrap("read the shop's details", err)
		}
	case err != nil:
		return shop, false, db.wrap("read the shop's details", err)
	}
	if err := json.Unmarshal(body, &shop); err != nil {
		return shop, false, fmt.Errorf("the shop's details held cannot be read: %w", err)
	}
	return shop, true, nil
}

// MonthDocuments returns the tax invoices and credit notes every counter issued
// in month (days in loc), by date, counter and number, under shop.
func (db *DB) MonthDocuments(ctx context.Context, month gstr.Month, shop pos.Shop, loc *time.Location) ([]gstr.Document, error) {
	if err := db.Project(ctx); err != nil {
		return nil, err
	}
	first, last := month.Days(loc)
	from, to := first.Format(pos.DayLayout), last.Format(pos.DayLayout)
	// A sale paid in an earlier month may have been refunded in this one.
	rs, err := db.pool.Query(ctx, `SELECT terminal_id, snapshot FROM orders
		WHERE paid_day <= $2 AND (paid_day >= $1 OR refunded > 0) ORDER BY terminal_id, order_id`, from, to)
	if err != nil {
		return nil, db.wrap("read the month's orders", err)
	}
	defer rs.Close()
	var docs []gstr.Document
	for rs.Next() {
		var terminal string
		var snap []byte
		if err := rs.Scan(&terminal, &snap); err != nil {
			return nil, err
		}
		var o pos.Order
		if err := json.Unmarshal(snap, &o); err != nil {
			return nil, fmt.Errorf("an order of terminal %s held by the store cannot be read (galla store rebuild rebuilds it from the events): %w", terminal, err)
		}
		for _, d := range pos.GSTRDocuments(o, shop, terminal, loc, nil) {
			if day := d.Date.In(loc).Format(pos.DayLayout); day >= from && day <= to {
				docs = append(docs, d)
			}
		}
	}
	if err := rs.Err(); err != nil {
		return nil, err
	}
	slices.SortStableFunc(docs, func(a, b gstr.Document) int {
		if c := a.Date.Compare(b.Date); c != 0 {
			return c
		}
		return strings.Compare(a.Number, b.Number)
	})
	return docs, nil
}

// GSTR1 builds the store's GSTR-1 of month from every counter's documents.
func (db *DB) GSTR1(ctx context.Context, month gstr.Month, loc *time.Location) (*gstr.Return, error) {
	shop, _, err := db.Shop(ctx)
	if err != nil {
		return nil, err
	}
	switch {
	case shop.GSTIN == "":
		return nil, ErrNoGSTIN
	case shop.Composition:
		return nil, ErrComposition
	}
	docs, err := db.MonthDocuments(ctx, month, shop, loc)
	if err != nil {
		return nil, err
	}
	return gstr.GSTR1(month, shop.GSTIN, docs)
}

// WriteMonthCSV writes one row per line every counter sold or returned in
// month (gstr.WriteCSV), for the accountant.
func (db *DB) WriteMonthCSV(ctx context.Context, month gstr.Month, loc *time.Location, w io.Writer) error {
	shop, _, err := db.Shop(ctx)
	if err != nil {
		return err
	}
	docs, err := db.MonthDocuments(ctx, month, shop, loc)
	if err != nil {
		return err
	}
	return gstr.WriteCSV(w, docs)
}
