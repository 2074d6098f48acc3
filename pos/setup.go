package pos

import (
	"context"
	"net"
	"slices"
	"strconv"
	"strings"

	"galla/receipts"
)

// Settings is the shop's configuration as the settings screen edits it.
type Settings struct {
	ShopName string
	Address  string
	GSTIN    string
	// State is the shop's GST state code ("27"); with a GSTIN it is the GSTIN's
	// first two digits, and empty takes them.
	State string
	// Composition is a shop under the composition scheme (bills of supply).
	Composition bool
	// Rates is the shop's GST rate list as typed ("0, 5, 18"), or "all" for every
	// rate in force; a catalog row outside it is refused at import.
	Rates string
	// Turnover is the previous financial year's aggregate turnover in crore of
	// rupees ("12.5", ParseCrore); empty is none declared. Above ₹5 crore, HSN
	// codes take six digits and B2B documents are e-invoiced.
	Turnover string
	// DocumentsNote says what the shop's sales print and why (DocumentsNote).
	DocumentsNote string
	Live          bool
	GatewayURL    string
	MerchantID    string
	// AccessCode is a new access code to store (replace-only): Settings returns
	// it empty, and an empty one, or the stored one as shown, keeps the stored one.
	AccessCode string
	// AccessCodeShown is the stored access code masked ("••••34"), "" when none:
	// what the screen may show of it.
	AccessCodeShown string
	SecretSet       bool // a secret is stored; it is never shown
	// SecretsWhere says where the access code and the secret are kept: "the
	// system keyring", or the fallback file readable by this user only.
	SecretsWhere   string
	PrinterProfile string
	PrinterAddr    string
	// DiscountLimit is the largest line discount a cashier gives without a
	// manager's PIN; 0 means every discount needs one.
	DiscountLimit Paise
	// PhoneListen is where the page for pay on the customer's phone listens,
	// host:port; empty means this computer only (127.0.0.1:0). A LAN address such
	// as 0.0.0.0:7071 lets a phone on the shop's Wi-Fi open it.
	PhoneListen string
}

// CheckPhoneListen checks a phone page address as the manager typed it; empty
// means the default (this computer only).
func CheckPhoneListen(addr string) error {
	if addr == "" {
		return nil
	}
	_, port, err := net.SplitHostPort(addr)
	if err == nil {
		_, err = strconv.ParseUint(port, 10, 16)
	}
	if err != nil {
		return sentenceErr("The phone page address is host:port, like 127.0.0.1:0 (this computer only) or 0.0.0.0:7071 (the shop's Wi-Fi).")
	}
	return nil
}

// PrinterProfileFor is the printer profile of an address as a manager types it: a
// path is a file or device, host:port or an IP address a network printer, any
// other name a printer of the system's spooler. profile is "58mm" or "80mm".
func PrinterProfileFor(addr, profile string) receipts.Profile {
	p := receipts.Profile{Transport: receipts.TransportFile, Address: addr, Width: 80}
	if profile == "58mm" {
		p.Width = 58
	}
	switch {
	case strings.ContainsAny(addr, `/\`):
		// a file or a device node
	case strings.Contains(addr, ":") || net.ParseIP(addr) != nil:
		p.Transport = receipts.TransportTCP
	default:
		p.Transport = receipts.TransportSpooler
	}
	return p
}

// SettingService is the settings.changed key of a change of the payment service
// or the phone page (a ServiceChange): the audit record only, the configuration
// file holds the settings themselves.
const SettingService = "service"

// ServiceChange is the journal's record of a change of the payment service's
// settings: the address and the merchant as set, and whether the access code or
// the secret was replaced, never their values.
type ServiceChange struct {
	BaseURL           string `json:"base_url"` // "" is the embedded sandbox
	MerchantID        string `json:"merchant_id,omitempty"`
	AccessCodeChanged bool   `json:"access_code_changed,omitempty"`
	SecretChanged     bool   `json:"secret_changed,omitempty"`
	PhoneListen       string `json:"phone_listen,omitempty"`
}

// ErrNotManager refuses a settings change by someone who is not a manager on
// record.
var ErrNotManager = sentenceErr("The settings are changed by a manager: sign in as a manager.")

// ErrNoServiceURL refuses the live payment service without its address.
var ErrNoServiceURL = sentenceErr("Type the live payment service's address (https://…), or switch the live service off to use the embedded sandbox.")

// ShopDetails is what `galla shop set` and Settings take of the shop.
type ShopDetails struct {
	Name        string
	Address     string // lines separated by commas
	State       string // GST state code, "27"
	GSTIN       string // "" while the shop is not registered: documents are RECEIPTs
	Composition bool
	// Rates is the shop's GST rate schedule as typed (ParseRateList: "0, 5, 18";
	// "0, 5, 18, 28; from 2026-02-01: 0, 5, 18, 40"; "all" for every rate in
	// force); empty keeps the schedule the shop has.
	Rates string
	// Turnover is the previous financial year's aggregate turnover in crore of
	// rupees as typed ("12.5", ParseCrore); empty keeps the one the shop has.
	Turnover string
}

// Apply returns cur with the details d gives, checked (Shop.Check): the
// name, address (split at commas), state, GSTIN and scheme replace cur's;
// empty Rates and Turnover keep cur's. The counter's `galla shop set` and the
// store's `galla store shop set` build the shop alike.
func (d ShopDetails) Apply(cur Shop) (Shop, error) {
	shop := cur
	shop.Name, shop.State, shop.Composition = strings.TrimSpace(d.Name), strings.TrimSpace(d.State), d.Composition
	shop.GSTIN = NormalGSTIN(d.GSTIN)
	shop.Address = nil
	for _, a := range strings.Split(d.Address, ",") {
		if a = strings.TrimSpace(a); a != "" {
			shop.Address = append(shop.Address, a)
		}
	}
	var err error
	if strings.TrimSpace(d.Rates) != "" {
		if shop.Rates, err = ParseRateList(d.Rates); err != nil {
			return Shop{}, err
		}
	}
	if strings.TrimSpace(d.Turnover) != "" {
		if shop.Turnover, err = ParseCrore(d.Turnover); err != nil {
			return Shop{}, err
		}
	}
	if err := shop.Check(); err != nil {
		return Shop{}, err
	}
	return shop, nil
}

// shownShopChanged reports whether shop differs from old as Settings shows
// them: the address as one text, the rates as their schedule.
func shownShopChanged(shop, old Shop) bool {
	return strings.Join(shop.Address, ", ") != strings.Join(old.Address, ", ") || shop.Name != old.Name || shop.GSTIN != old.GSTIN ||
		shop.State != old.State || shop.Composition != old.Composition || shop.Rates.String() != old.Rates.String() ||
		shop.Turnover != old.Turnover
}

// SettingShopByStore holds the store's master-data version of the shop's
// details the counter applied (Shelf.ApplyMaster): once the store publishes
// them, its details are the counter's.
const SettingShopByStore = "store.shop_version"

// ErrShopByStore refuses a counter's own change of the shop's details once the
// store publishes them: the store's win, and every counter prints the same.
var ErrShopByStore = sentenceErr("The store publishes this shop's details to every counter, so they are changed at the store (galla store shop set on the store server) and this counter takes them at its next sync. Nothing was changed here.")

// shopByStore refuses, with ErrShopByStore, a change of the shop's details
// once the counter applied the store's.
func (su *Setup) shopByStore(ctx context.Context) error {
	raw, err := su.j.Setting(ctx, SettingShopByStore)
	if err != nil {
		return err
	}
	if raw != nil {
		return ErrShopByStore
	}
	return nil
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

// Setup is the shop's setup as a manager changes it: the settings screen (the
// shop's details, the discount limit, the printer, the payment service and the
// phone page), the shop's details of galla shop set, the shop's UPI
// address, and the HSN list the shop loads (galla hsn import, hsn_list.go).
// Each change is journaled naming the manager. The screen's values are
// a Settings.
type Setup struct{ *core }

// PrinterProfiles names the printer profiles on offer.
func (su *Setup) PrinterProfiles() []string { return []string{"58mm", "80mm"} }

// Settings reads the settings as the settings screen shows them.
func (su *Setup) Settings(ctx context.Context) (Settings, error) {
	shop, err := LoadShop(ctx, su.j)
	if err != nil {
		return Settings{}, err
	}
	prof, _, err := LoadPrinter(ctx, su.j)
	if err != nil {
		return Settings{}, err
	}
	discount, err := LoadDiscountPolicy(ctx, su.j)
	if err != nil {
		return Settings{}, err
	}
	var svc ServiceSettings
	if su.cfg.Service != nil {
		svc = su.cfg.Service.ServiceSettings()
	}
	rates := shop.Rates.String()
	s := Settings{ShopName: shop.Name, Address: strings.Join(shop.Address, ", "), GSTIN: shop.GSTIN,
		State: shop.State, Composition: shop.Composition, Rates: rates, Turnover: CroreText(shop.Turnover), DocumentsNote: DocumentsNote(shop),
		Live: svc.BaseURL != "", GatewayURL: svc.BaseURL, MerchantID: svc.MerchantID, AccessCodeShown: svc.AccessCode,
		SecretSet: svc.SecretSet, SecretsWhere: svc.SecretsWhere,
		PrinterAddr: prof.Address, DiscountLimit: discount.Limit, PhoneListen: svc.PhoneListen}
	if prof.Width == 58 || prof.Width == 32 {
		s.PrinterProfile = "58mm"
	} else if prof.Width != 0 {
		s.PrinterProfile = "80mm"
	}
	return s, nil
}

// SaveSettings stores the settings as the manager by changed them. Everything is
// checked first (the discount limit, the phone page's address, the payment
// service's address through Service), so a refusal changes nothing. Then each
// part that changed is journaled as settings.changed naming the manager's id —
// the shop, the discount policy, the printer, and the payment service (its
// address and merchant, and only that the access code or the secret was
// replaced) — and the service settings are written into the configuration. The
// discount limit applies at once; the gateway change takes effect at the next
// start, the phone page's address the next time its server starts. An empty
// secret, and an empty access code, keep the stored ones.
func (su *Setup) SaveSettings(ctx context.Context, by StaffMember, s Settings, secret string) error {
	mgr, err := su.j.Get(ctx, by.ID)
	if by.ID == "" || err != nil || mgr.Role != RoleManager {
		return ErrNotManager
	}
	discount := DiscountPolicy{Limit: s.DiscountLimit}
	if err := discount.Validate(); err != nil {
		return err
	}
	if err := CheckPhoneListen(s.PhoneListen); err != nil {
		return err
	}
	shop, err := LoadShop(ctx, su.j)
	if err != nil {
		return err
	}
	oldShop := shop
	shop.Name, shop.GSTIN, shop.Address = s.ShopName, NormalGSTIN(s.GSTIN), nil
	for _, a := range strings.Split(s.Address, ",") {
		if a = strings.TrimSpace(a); a != "" {
			shop.Address = append(shop.Address, a)
		}
	}
	shop.State, shop.Composition = strings.TrimSpace(s.State), s.Composition
	shop.stateFromGSTIN()
	if shop.State != "" {
		if err := shop.CheckTax(); err != nil {
			return err
		}
	}
	if shop.Rates, err = ParseRateList(s.Rates); err != nil {
		return err
	}
	shop.Turnover = 0
	if strings.TrimSpace(s.Turnover) != "" {
		if shop.Turnover, err = ParseCrore(s.Turnover); err != nil {
			return err
		}
	}
	curDiscount, derr := LoadDiscountPolicy(ctx, su.j)
	curPrinter, havePrinter, err := LoadPrinter(ctx, su.j)
	if err != nil {
		return err
	}
	var printer *receipts.Profile
	if s.PrinterAddr != "" {
		if p := PrinterProfileFor(s.PrinterAddr, s.PrinterProfile); !havePrinter || p != curPrinter {
			printer = &p
		}
	}
	var (
		svc    ServiceSettings
		change *ServiceChange
	)
	if su.cfg.Service != nil {
		cur := su.cfg.Service.ServiceSettings()
		svc = ServiceSettings{MerchantID: s.MerchantID, AccessCode: cur.AccessCode, Secret: secret, PhoneListen: s.PhoneListen}
		if s.Live {
			if s.GatewayURL == "" {
				return ErrNoServiceURL
			}
			svc.BaseURL = s.GatewayURL
		}
		c := ServiceChange{BaseURL: svc.BaseURL, MerchantID: svc.MerchantID, PhoneListen: svc.PhoneListen, SecretChanged: secret != ""}
		if s.AccessCode != "" && s.AccessCode != cur.AccessCode {
			svc.AccessCode, c.AccessCodeChanged = s.AccessCode, true
		}
		if err := su.cfg.Service.Check(svc); err != nil {
			return err
		}
		if c.AccessCodeChanged || c.SecretChanged || svc.BaseURL != cur.BaseURL || svc.MerchantID != cur.MerchantID || svc.PhoneListen != cur.PhoneListen {
			change = &c
		}
	}

	shopChanged := !slices.Equal(shop.Address, oldShop.Address) || shop.Name != oldShop.Name || shop.GSTIN != oldShop.GSTIN ||
		shop.State != oldShop.State || shop.Composition != oldShop.Composition || !shop.Rates.Equal(oldShop.Rates) ||
		shop.Turnover != oldShop.Turnover
	if shopChanged {
		if err := su.shopByStore(ctx); err != nil {
			if shownShopChanged(shop, oldShop) {
				return err
			}
			// The store's details as Settings shows them, unchanged (an
			// address line of its own with a comma reads back as two): kept.
			shopChanged = false
		}
	}

	// Everything is valid: journal what changed, naming the manager.
	if shopChanged {
		if err := su.saveSetting(ctx, mgr.ID, SettingShop, shop); err != nil {
			return err
		}
	}
	if derr != nil || curDiscount != discount {
		if err := su.saveSetting(ctx, mgr.ID, SettingDiscount, discount); err != nil {
			return err
		}
	}
	su.mu.Lock()
	su.discount = discount
	su.mu.Unlock()
	if printer != nil {
		if err := su.saveSetting(ctx, mgr.ID, SettingPrinter, *printer); err != nil {
			return err
		}
	}
	if change == nil {
		return nil
	}
	if err := su.saveSetting(ctx, mgr.ID, SettingService, *change); err != nil {
		return err
	}
	return su.cfg.Service.SaveServiceSettings(svc)
}

// SetShop checks and journals the shop's details on a manager's authority
// (managerPIN, once staff exist), naming the manager on the event. It returns the
// shop as stored and the sentence Settings shows about its documents.
//
// Once the store publishes the shop's details (galla store shop set), they
// are every counter's and this refuses with ErrShopByStore: the store's win.
func (su *Setup) SetShop(ctx context.Context, d ShopDetails, managerPIN string) (Shop, string, error) {
	if err := su.shopByStore(ctx); err != nil {
		return Shop{}, "", err
	}
	cur, err := LoadShop(ctx, su.j)
	if err != nil {
		return Shop{}, "", err
	}
	shop, err := d.Apply(cur)
	if err != nil {
		return Shop{}, "", err
	}
	by := ""
	if has, err := su.crew.HasStaff(ctx); err != nil {
		return Shop{}, "", err
	} else if has {
		m, err := su.crew.authorise(ctx, managerPIN)
		if err != nil {
			return Shop{}, "", err
		}
		by = m.ID
	}
	if err := su.saveSetting(ctx, by, SettingShop, shop); err != nil {
		return Shop{}, "", err
	}
	return shop, DocumentsNote(shop), nil
}

// VPA returns the shop's UPI address; "" when none is set.
func (su *Setup) VPA(ctx context.Context) (string, error) { return LoadVPA(ctx, su.j) }

// SaveVPA stores the shop's UPI address as the manager by typed it ("" turns
// UPI off), journaled as settings.changed naming the manager.
func (su *Setup) SaveVPA(ctx context.Context, by StaffMember, vpa string) error {
	vpa = strings.TrimSpace(vpa)
	mgr, err := su.j.Get(ctx, by.ID)
	if by.ID == "" || err != nil || mgr.Role != RoleManager {
		return ErrNotManager
	}
	if err := CheckVPA(vpa); err != nil {
		return err
	}
	cur, err := LoadVPA(ctx, su.j)
	if err != nil || cur == vpa {
		return err
	}
	return su.saveSetting(ctx, by.ID, SettingUPI, vpa)
}

// stateFromGSTIN takes the shop's state code from its GSTIN (its first two
// digits) when none was given, as Settings does (galla shop set asks for
// --state and refuses a GSTIN without it).
func (s *Shop) stateFromGSTIN() {
	if s.State == "" && len(s.GSTIN) >= 2 {
		s.State = s.GSTIN[:2]
	}
}
