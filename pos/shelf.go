package pos

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
)

// MaxHeld is how many bills may be held at once at a terminal: a counter that
// holds more has forgotten some.
const MaxHeld = 50

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

// Shelf is what the counter sells and how it prices it: the catalog (imported,
// or published by the store with the shop's details and staff, ApplyMaster),
// products found by name or code, a cart's lines priced with their GST and
// their discounts checked against the shop's policy and the approvals, and the
// bills held aside to be recalled later. The products themselves are a
// Catalog.
type Shelf struct{ *core }

// Catalog returns the catalog last imported, or the sample catalog.
func (sh *Shelf) Catalog(ctx context.Context) (*Catalog, error) {
	sh.mu.Lock()
	cat := sh.cat
	sh.mu.Unlock()
	if cat != nil {
		return cat, nil
	}
	var err error
	if sh.cfg.Catalogs != nil {
		cat, err = sh.cfg.Catalogs.Catalog(ctx)
		if err != nil {
			return nil, err
		}
	}
	if cat == nil {
		if cat, err = LoadCatalogJSON(sh.cfg.SampleCatalog); err != nil {
			return nil, err
		}
	}
	sh.mu.Lock()
	sh.cat = cat
	sh.mu.Unlock()
	return cat, nil
}

// ImportCatalogBy imports a catalog as ImportCatalog does, on a manager's
// authority once staff exist: managerPIN must be a manager's, and the import is
// journaled with that manager's id (the window's rule for what changes prices).
// Before any member exists there is nobody to ask, as for the first member.
func (sh *Shelf) ImportCatalogBy(ctx context.Context, r io.Reader, json bool, managerPIN string) (*Catalog, []string, error) {
	staff, err := sh.crew.managerOnceStaffExist(ctx, managerPIN)
	if err != nil {
		return nil, nil, err
	}
	return sh.ImportCatalog(ctx, r, json, staff)
}

// ImportCatalog reads a catalog (CSV, or JSON when json is true) and journals it as
// imported by staff; it is sold from at once. Its HSN codes are checked
// against the HSN list the shop loaded, or without one as CheckRates says:
// hsnFormOnly is the codes checked for their form only.
func (sh *Shelf) ImportCatalog(ctx context.Context, r io.Reader, json bool, staff string) (cat *Catalog, hsnFormOnly []string, err error) {
	if sh.cfg.Catalogs == nil {
		return nil, nil, errors.New("pos: import catalog: no catalog store")
	}
	if json {
		cat, err = ImportJSON(r)
	} else {
		cat, err = ImportCSV(r)
	}
	if err != nil {
		if !errors.Is(err, ErrBadCatalog) {
			err = fmt.Errorf("%w: %w", ErrBadCatalog, err)
		}
		return nil, nil, err
	}
	shop, err := LoadShop(ctx, sh.j)
	if err != nil {
		return nil, nil, err
	}
	list, err := sh.hsnMaster(ctx)
	if err != nil {
		return nil, nil, err
	}
	if hsnFormOnly, err = cat.CheckRates(shop, sh.eng.Now(), list); err != nil {
		return nil, nil, err
	}
	if err := sh.cfg.Catalogs.PutCatalog(ctx, cat, staff); err != nil {
		return nil, nil, err
	}
	sh.mu.Lock()
	sh.cat = cat
	sh.mu.Unlock()
	return cat, hsnFormOnly, nil
}

// Search finds products whose name, code or barcode matches q, as typed.
func (sh *Shelf) Search(q string, limit int) []Product {
	cat, err := sh.Catalog(context.Background())
	if err != nil {
		return nil
	}
	return cat.Search(q, limit)
}

// Lookup finds the product whose barcode or SKU is exactly code.
func (sh *Shelf) Lookup(code string) (Product, bool) {
	cat, err := sh.Catalog(context.Background())
	if err != nil {
		return Product{}, false
	}
	return cat.Lookup(code)
}

// ParseItems reads the command line's cart, "SKU[:QTY],...", and the IMEIs of its
// serialised units in cart order, checked as the cart checks them (codes,
// quantities, IMEI digits, repeats).
func (sh *Shelf) ParseItems(ctx context.Context, items string, imeis []string) ([]CartLine, []UnitIMEI, error) {
	cat, err := sh.Catalog(ctx)
	if err != nil {
		return nil, nil, err
	}
	cart := NewCart(cat)
	for it := range strings.SplitSeq(items, ",") {
		it = strings.TrimSpace(it)
		if it == "" {
			continue
		}
		code, qtyText, hasQty := strings.Cut(it, ":")
		qty := 1
		if hasQty {
			n, err := strconv.Atoi(qtyText)
			if err != nil {
				return nil, nil, fmt.Errorf("quantity %q: %w", qtyText, ErrBadQuantity)
			}
			qty = n
		}
		if _, err := cart.Add(code, qty); err != nil {
			return nil, nil, err
		}
	}
	if cart.Len() == 0 {
		return nil, nil, ErrEmptyCart
	}
	var units []UnitIMEI
	for _, l := range cart.Lines() {
		if !l.Serialised || len(imeis) == 0 {
			continue
		}
		n := min(l.Qty, len(imeis))
		if err := cart.SetIMEIs(l.SKU, imeis[:n]); err != nil {
			return nil, nil, err
		}
		for _, s := range imeis[:n] {
			units = append(units, UnitIMEI{ProductCode: l.ProductCode, IMEI: s})
		}
		imeis = imeis[n:]
	}
	if len(imeis) > 0 {
		return nil, nil, ErrTooManyIMEIs
	}
	var out []CartLine
	for _, l := range cart.Lines() {
		p, _ := cat.Lookup(l.SKU)
		out = append(out, CartLine{Product: p, Qty: l.Qty})
	}
	return out, units, nil
}

// Price totals the lines with their GST; it refuses a discount above the limit
// that no manager approved with an error matching ErrDiscountNeedsManager.
func (sh *Shelf) Price(lines []CartLine) (Bill, error) {
	var b Bill
	pl := SaleLines(lines, nil)
	if err := sh.checkDiscounts(pl); err != nil {
		return Bill{}, err
	}
	for _, l := range pl {
		b.Lines = append(b.Lines, l.Amount())
	}
	tt := ComputeTotals(pl)
	b.Gross, b.Discount, b.Taxable, b.CGST, b.SGST, b.Total = tt.Gross, tt.Discount, tt.Taxable, tt.CGST, tt.SGST, tt.Total
	b.IGST = tt.Interstate().IGST
	return b, nil
}

// DiscountLimit is the largest line discount a cashier may give alone, as a
// manager set it in the settings; 0 means every discount needs a manager.
func (sh *Shelf) DiscountLimit(CartLine) Paise {
	sh.mu.Lock()
	defer sh.mu.Unlock()
	return sh.discountPolicy().Limit
}

// checkDiscounts applies the cart's bounds and the manager's discount policy to
// each line. An approval counts only from a manager whose PIN Authorize checked;
// the name a screen puts on a line proves nothing by itself.
func (sh *Shelf) checkDiscounts(pl []Line) error {
	sh.mu.Lock()
	defer sh.mu.Unlock()
	pol := sh.discountPolicy()
	for _, l := range pl {
		if l.Discount < 0 {
			return ErrBadDiscount
		}
		if l.Discount > l.Gross() {
			return ErrDiscountTooLarge
		}
		var by *Staff
		if m, ok := sh.approvers[l.ApprovedBy]; ok && l.ApprovedBy != "" {
			by = &m
		}
		if err := pol.Check(l, l.Discount, by); err != nil {
			return err
		}
	}
	return nil
}

// discountPolicy is the shop's discount policy, with the limit of the cashier
// signed in here when a manager set them one. sh.mu is held.
func (sh *Shelf) discountPolicy() DiscountPolicy {
	pol := sh.discount
	if c := sh.crew.signedCashier(); c != nil {
		pol.Limit = c.Limits.Discount
	}
	return pol
}

// HoldBill puts a cart aside (bill.held) with its lines, the IMEIs scanned for
// it and a note to find it by. The bill is journaled: a crash loses none.
func (sh *Shelf) HoldBill(ctx context.Context, lines []CartLine, imeis []UnitIMEI, staff, note string) (HeldBill, error) {
	if len(lines) == 0 {
		return HeldBill{}, ErrEmptyCart
	}
	bill, err := sh.Price(lines)
	if err != nil {
		return HeldBill{}, err
	}
	b, err := sh.shiftBook(ctx)
	if err != nil {
		return HeldBill{}, err
	}
	defer b.mu.Unlock()
	if len(b.holds) >= MaxHeld {
		return HeldBill{}, Errorf("%d bills are held already; recall or discard one before holding another.", len(b.holds))
	}
	id, err := sh.ec.newID("H")
	if err != nil {
		return HeldBill{}, err
	}
	h := HeldBill{ID: id, Lines: slices.Clone(lines), IMEIs: slices.Clone(imeis), Total: bill.Total,
		Note: strings.TrimSpace(note), Staff: staff, At: sh.eng.Now()}
	for _, l := range lines {
		h.Items += l.Qty
	}
	if err := sh.holdEvent(ctx, EvBillHeld, staff, h); err != nil {
		return HeldBill{}, err
	}
	return h, b.catchUp(ctx, sh.j)
}

// HeldBills lists the bills held at this terminal, oldest first.
func (sh *Shelf) HeldBills(ctx context.Context) ([]HeldBill, error) {
	b, err := sh.shiftBook(ctx)
	if err != nil {
		return nil, err
	}
	defer b.mu.Unlock()
	out := make([]HeldBill, 0, len(b.holds))
	for _, h := range b.holds {
		out = append(out, *h)
	}
	return out, nil
}

// RecallBill takes held bill id back (bill.recalled) and returns it, its lines
// for the cart.
func (sh *Shelf) RecallBill(ctx context.Context, id, staff string) (HeldBill, error) {
	return sh.endHold(ctx, EvBillRecalled, id, staff)
}

// DiscardBill throws held bill id away (bill.discarded).
func (sh *Shelf) DiscardBill(ctx context.Context, id, staff string) error {
	_, err := sh.endHold(ctx, EvBillDiscarded, id, staff)
	return err
}

func (sh *Shelf) endHold(ctx context.Context, kind EventKind, id, staff string) (HeldBill, error) {
	b, err := sh.shiftBook(ctx)
	if err != nil {
		return HeldBill{}, err
	}
	defer b.mu.Unlock()
	i := slices.IndexFunc(b.holds, func(h *HeldBill) bool { return h.ID == id })
	if i < 0 {
		return HeldBill{}, wrapf(ErrHeldNotFound, "That bill is no longer held (recalled or discarded already).")
	}
	h := *b.holds[i]
	if err := sh.holdEvent(ctx, kind, staff, HeldBill{ID: id}); err != nil {
		return HeldBill{}, err
	}
	return h, b.catchUp(ctx, sh.j)
}

func (sh *Shelf) holdEvent(ctx context.Context, kind EventKind, staff string, h HeldBill) error {
	data, err := json.Marshal(h)
	if err != nil {
		return fmt.Errorf("pos: %s: %w", kind, err)
	}
	ev := Event{V: EventVersion, Time: sh.eng.Now(), Kind: kind, Day: sh.eng.Today(), Staff: staff, Data: data}
	if _, err := sh.j.Append(context.WithoutCancel(ctx), ev); err != nil {
		return fmt.Errorf("pos: journal %s: %w: %w", kind, errJournalWrite, err)
	}
	return nil
}

// MasterVersion returns the store's master-data version the counter applied
// (0 when none was).
func (sh *Shelf) MasterVersion(ctx context.Context) (uint64, error) {
	raw, err := sh.j.Setting(ctx, SettingMasterVersion)
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
// (ADR 0007); then the version is journaled. Once the store's shop details
// are applied, the counter's own changes of them are refused
// (ErrShopByStore). An item of a version already applied changes nothing; a
// kind this build does not know is passed over (its version recorded). A catalog or shop the counter's rules
// refuse is refused with pos's sentence, and the counter keeps what it has.
func (sh *Shelf) ApplyMaster(ctx context.Context, kind string, body []byte, version uint64) error {
	have, err := sh.MasterVersion(ctx)
	if err != nil {
		return err
	}
	if version <= have {
		return nil
	}
	switch kind {
	case MasterCatalog:
		if _, _, err := sh.ImportCatalog(ctx, bytes.NewReader(body), true, MasterByStore); err != nil {
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
		if err := sh.saveSetting(ctx, MasterByStore, SettingShop, shop); err != nil {
			return err
		}
		// From now on the store's details win (Setup.SetShop refuses).
		if err := sh.saveSetting(ctx, MasterByStore, SettingShopByStore, json.Number(strconv.FormatUint(version, 10))); err != nil {
			return err
		}
	case MasterStaff:
		if err := sh.crew.applyStaff(ctx, body); err != nil {
			return err
		}
	}
	return sh.saveSetting(ctx, MasterByStore, SettingMasterVersion, json.Number(strconv.FormatUint(version, 10)))
}
