package pos

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"strconv"
)

// Master data from the store server (issue 15): the catalog and the shop's
// details a store's manager published reach each counter at its sync. They are
// journaled as changed by "store" (no PIN: the store's manager published them),
// and so is the store version applied, so that a restart does not apply them
// again.

// MasterByStore is the staff a change the store published is journaled by.
const MasterByStore = "store"

// SettingMasterVersion is the store's master-data version the counter applied.
const SettingMasterVersion = "store.master_version"

// The master kinds the store publishes (store.MasterCatalog, store.MasterShop).
const (
	MasterCatalog = "catalog"
	MasterShop    = "shop"
)

// MasterVersion returns the store's master-data version the counter applied
// (0 when none was).
func (t *Till) MasterVersion(ctx context.Context) (uint64, error) {
	raw, err := t.j.Setting(ctx, SettingMasterVersion)
	if err != nil || raw == nil {
		return 0, err
	}
	var v uint64
	if err := json.Unmarshal(raw, &v); err != nil {
		return 0, fmt.Errorf("pos: setting %q: %w", SettingMasterVersion, err)
	}
	return v, nil
}

// ApplyMaster applies one item of the store's master data of version: a
// catalog (the JSON of its products) is imported as the store's, the shop's
// details replace the counter's, a member of the store's staff is journaled
// (ADR 0007); then the version is journaled. An item of a
// version already applied changes nothing; a kind this build does not know is
// passed over (its version recorded). A catalog or shop the counter's rules
// refuse is refused with pos's sentence, and the counter keeps what it has.
func (t *Till) ApplyMaster(ctx context.Context, kind string, body []byte, version uint64) error {
	have, err := t.MasterVersion(ctx)
	if err != nil {
		return err
	}
	if version <= have {
		return nil
	}
	switch kind {
	case MasterCatalog:
		if _, err := t.ImportCatalog(ctx, bytes.NewReader(body), true, MasterByStore); err != nil {
			return err
		}
	case MasterShop:
		var shop Shop
		if err := json.Unmarshal(body, &shop); err != nil {
			return sentenceErr("The shop's details the store sent cannot be read; the counter keeps its own. Publish them again at the store.")
		}
		if err := shop.Check(); err != nil {
			return err
		}
		if err := t.saveSetting(ctx, MasterByStore, SettingShop, shop); err != nil {
			return err
		}
	case MasterStaff:
		if err := t.applyStaff(ctx, body); err != nil {
			return err
		}
	}
	return t.saveSetting(ctx, MasterByStore, SettingMasterVersion, json.Number(strconv.FormatUint(version, 10)))
}
