package store

import (
	"context"
	"encoding/json"
	"fmt"

	"galla/pos"
)

// Each counter's registration (issue 23). A counter journals its shop's
// details (settings.changed "shop") and, before each change of them, its
// registration history (settings.changed "shop.registrations",
// pos.RegistrationHistory). The store keeps the last of each per counter
// (counter_shops) and reads them as the counter's pos.Shops, so that its
// GSTR-1, CSV and day report put each document under the registration in
// force on its date by the counter's own rule (pos.GSTRDocumentsAt,
// pos.ShopReportAt, pos.Shops.StatesTax).

// registrationTables are the tables of this file, rebuilt with the others.
var registrationTables = []string{"counter_shops"}

// registrationColumns is the column of counter_shops each setting is kept in.
var registrationColumns = map[string]string{pos.SettingShop: "shop", pos.SettingRegistrations: "registrations"}

// projectSettings keeps a counter's shop details and registration history; any
// other setting, or a value that is not JSON, records nothing.
func projectSettings(p *projector, _ uint64, ev *pos.Event) error {
	s := ev.Setting
	if s == nil || !json.Valid(s.Value) {
		return nil
	}
	col, ok := registrationColumns[s.Key]
	if !ok {
		return nil
	}
	_, err := p.tx.Exec(p.ctx, `INSERT INTO counter_shops (terminal_id, `+col+`) VALUES ($1, $2)
		ON CONFLICT (terminal_id) DO UPDATE SET `+col+` = EXCLUDED.`+col, p.terminal, []byte(s.Value))
	return err
}

// counterShops is each counter's shop by date, from what it journaled: today's
// details and its registration history. A counter that journaled no details
// of its shop takes fallback's (the store's, pos.ShopsOf), on every date.
type counterShops struct {
	byTerminal map[string]pos.Shops
	fallback   pos.Shop
}

// of is terminal's shop by date.
func (cs counterShops) of(terminal string) pos.Shops {
	if s, ok := cs.byTerminal[terminal]; ok {
		return s
	}
	return pos.ShopsOf(cs.fallback)
}

// readCounterShops reads every counter's shop by date (counter_shops), with
// fallback for the counters that journaled none.
func readCounterShops(ctx context.Context, q querier, fallback pos.Shop) (counterShops, error) {
	cs := counterShops{byTerminal: map[string]pos.Shops{}, fallback: fallback}
	rows, err := q.Query(ctx, "SELECT terminal_id, shop, registrations FROM counter_shops")
	if err != nil {
		return cs, err
	}
	defer rows.Close()
	for rows.Next() {
		var terminal string
		var shop, history []byte
		if err := rows.Scan(&terminal, &shop, &history); err != nil {
			return cs, err
		}
		s := pos.Shops{Today: fallback}
		if shop != nil {
			s.Today = pos.Shop{}
			if err := json.Unmarshal(shop, &s.Today); err != nil {
				return cs, fmt.Errorf("the shop details counter %s journaled cannot be read: %w", terminal, err)
			}
		}
		if history != nil {
			if err := json.Unmarshal(history, &s.History); err != nil {
				return cs, fmt.Errorf("the registration history counter %s journaled cannot be read: %w", terminal, err)
			}
		}
		cs.byTerminal[terminal] = s
	}
	return cs, rows.Err()
}
