package pos

import (
	"context"
	"encoding/json"
	"net"
	"strconv"
	"strings"

	"galla/receipts"
)

// Settings is the shop's configuration as the settings screen edits it.
type Settings struct {
	ShopName       string
	Address        string
	GSTIN          string
	Live           bool
	GatewayURL     string
	MerchantID     string
	AccessCode     string
	SecretSet      bool // a secret is stored; it is never shown
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

// PrinterProfiles names the printer profiles on offer.
func (t *Till) PrinterProfiles() []string { return []string{"58mm", "80mm"} }

// Settings reads the settings as the settings screen shows them.
func (t *Till) Settings(ctx context.Context) (Settings, error) {
	shop, err := LoadShop(ctx, t.j)
	if err != nil {
		return Settings{}, err
	}
	prof, _, err := LoadPrinter(ctx, t.j)
	if err != nil {
		return Settings{}, err
	}
	discount, err := LoadDiscountPolicy(ctx, t.j)
	if err != nil {
		return Settings{}, err
	}
	var svc ServiceSettings
	if t.cfg.Service != nil {
		svc = t.cfg.Service.ServiceSettings()
	}
	s := Settings{ShopName: shop.Name, Address: strings.Join(shop.Address, ", "), GSTIN: shop.GSTIN,
		Live: svc.BaseURL != "", GatewayURL: svc.BaseURL, MerchantID: svc.MerchantID, AccessCode: svc.AccessCode, SecretSet: svc.SecretSet,
		PrinterAddr: prof.Address, DiscountLimit: discount.Limit, PhoneListen: svc.PhoneListen}
	if prof.Width == 58 || prof.Width == 32 {
		s.PrinterProfile = "58mm"
	} else if prof.Width != 0 {
		s.PrinterProfile = "80mm"
	}
	return s, nil
}

// saveSetting journals one setting as JSON.
func (t *Till) saveSetting(ctx context.Context, key string, v any) error {
	raw, err := json.Marshal(v)
	if err != nil {
		return err
	}
	now := t.eng.Now()
	_, err = t.j.Append(ctx, Event{V: EventVersion, Time: now, Day: ToDay(now), Kind: EvSettingsChanged,
		Setting: &Setting{Key: key, Value: raw}})
	return err
}

// SaveSettings journals the shop, the discount policy (when it changed) and the
// printer, and writes the gateway and the phone page's address into the
// configuration (Service). The discount limit applies at once; the gateway change
// takes effect at the next start, the phone page's address the next time its
// server starts. An empty secret keeps the stored one.
func (t *Till) SaveSettings(ctx context.Context, s Settings, secret string) error {
	discount := DiscountPolicy{Limit: s.DiscountLimit}
	if err := discount.Validate(); err != nil {
		return err
	}
	if err := CheckPhoneListen(s.PhoneListen); err != nil {
		return err
	}
	shop := Shop{Name: s.ShopName, GSTIN: s.GSTIN}
	for _, a := range strings.Split(s.Address, ",") {
		if a = strings.TrimSpace(a); a != "" {
			shop.Address = append(shop.Address, a)
		}
	}
	if err := t.saveSetting(ctx, SettingShop, shop); err != nil {
		return err
	}
	if cur, err := LoadDiscountPolicy(ctx, t.j); err != nil || cur != discount {
		if err := t.saveSetting(ctx, SettingDiscount, discount); err != nil {
			return err
		}
	}
	t.mu.Lock()
	t.discount = discount
	t.mu.Unlock()
	if s.PrinterAddr != "" {
		if err := t.saveSetting(ctx, SettingPrinter, PrinterProfileFor(s.PrinterAddr, s.PrinterProfile)); err != nil {
			return err
		}
	}
	if t.cfg.Service == nil {
		return nil
	}
	svc := ServiceSettings{MerchantID: s.MerchantID, AccessCode: s.AccessCode, Secret: secret, PhoneListen: s.PhoneListen}
	if s.Live {
		svc.BaseURL = s.GatewayURL
	}
	return t.cfg.Service.SaveServiceSettings(svc)
}
