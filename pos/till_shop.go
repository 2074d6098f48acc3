package pos

import (
	"context"
	"strings"
)

// ShopDetails is what `galla shop set` and Settings take of the shop.
type ShopDetails struct {
	Name        string
	Address     string // lines separated by commas
	State       string // GST state code, "27"
	GSTIN       string // "" while the shop is not registered: documents are RECEIPTs
	Composition bool
	// Rates is the shop's GST rate list as typed ("0, 5, 18"; "all" for every
	// rate in force); empty keeps the list the shop has.
	Rates string
}

// SetShop checks and journals the shop's details on a manager's authority
// (managerPIN, once staff exist), naming the manager on the event. It returns the
// shop as stored and the sentence Settings shows about its documents.
func (t *Till) SetShop(ctx context.Context, d ShopDetails, managerPIN string) (Shop, string, error) {
	cur, err := LoadShop(ctx, t.j)
	if err != nil {
		return Shop{}, "", err
	}
	shop := cur
	shop.Name, shop.State, shop.Composition = strings.TrimSpace(d.Name), strings.TrimSpace(d.State), d.Composition
	shop.GSTIN = NormalGSTIN(d.GSTIN)
	shop.Address = nil
	for _, a := range strings.Split(d.Address, ",") {
		if a = strings.TrimSpace(a); a != "" {
			shop.Address = append(shop.Address, a)
		}
	}
	if strings.TrimSpace(d.Rates) != "" {
		if shop.Rates, err = ParseRateList(d.Rates); err != nil {
			return Shop{}, "", err
		}
	}
	if err := shop.Check(); err != nil {
		return Shop{}, "", err
	}
	by := ""
	if has, err := t.HasStaff(ctx); err != nil {
		return Shop{}, "", err
	} else if has {
		m, err := t.authorise(ctx, managerPIN)
		if err != nil {
			return Shop{}, "", err
		}
		by = m.ID
	}
	if err := t.saveSetting(ctx, by, SettingShop, shop); err != nil {
		return Shop{}, "", err
	}
	return shop, DocumentsNote(shop), nil
}

// DocumentsNote says what the shop's sales documents are and why.
func DocumentsNote(s Shop) string {
	switch s.DocumentTitle() {
	case "RECEIPT":
		return "Sales print a RECEIPT, not a tax invoice: the shop's GSTIN is not set."
	case "BILL OF SUPPLY":
		return "Sales print a BILL OF SUPPLY: the shop is under the composition scheme and charges no GST."
	}
	return "Sales print a TAX INVOICE with the shop's GSTIN " + s.GSTIN + "."
}
