package pos

import (
	"encoding/json"
	"errors"
	"net/url"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// fakeService is the configuration file as pos sees it: it keeps the access code
// masked for the screen and refuses a base URL that is not https://, as
// internal/config does.
type fakeService struct {
	mu     sync.Mutex
	cur    ServiceSettings // as stored: the real access code and secret
	saves  int
	checks int
}

func (f *fakeService) shown(code string) string {
	if code == "" {
		return ""
	}
	return "••••" + code[len(code)-2:]
}

func (f *fakeService) ServiceSettings() ServiceSettings {
	f.mu.Lock()
	defer f.mu.Unlock()
	s := f.cur
	s.AccessCode, s.Secret, s.SecretSet = f.shown(f.cur.AccessCode), "", f.cur.Secret != ""
	s.SecretsWhere = "the system keyring"
	return s
}

func (f *fakeService) Check(s ServiceSettings) error {
	f.mu.Lock()
	f.checks++
	f.mu.Unlock()
	if s.BaseURL == "" {
		return nil
	}
	if u, err := url.Parse(s.BaseURL); err != nil || u.Scheme != "https" || u.Host == "" {
		return Errorf("The payment service's address %q is refused.", s.BaseURL)
	}
	return nil
}

func (f *fakeService) SaveServiceSettings(s ServiceSettings) error {
	if err := f.Check(s); err != nil {
		return err
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	f.saves++
	if s.AccessCode != f.shown(f.cur.AccessCode) {
		f.cur.AccessCode = s.AccessCode
	}
	if s.Secret != "" {
		f.cur.Secret = s.Secret
	}
	f.cur.BaseURL, f.cur.MerchantID, f.cur.PhoneListen = s.BaseURL, s.MerchantID, s.PhoneListen
	return nil
}

// auditRig is a till over the rig's engine with a fake configuration, its
// manager Meera signed in and a cashier Ravi.
func auditRig(t *testing.T) (*rig, *Till, *fakeService, StaffMember, StaffMember) {
	t.Helper()
	r := newRig(t)
	svc := &fakeService{cur: ServiceSettings{MerchantID: "29845", AccessCode: "ACCESS-7F3K9Q", Secret: "SECRET-VALUE-1"}}
	tl, err := NewTill(t.Context(), TillConfig{Engine: r.e, SampleCatalog: catalogJSON(t), Service: svc})
	require.NoError(t, err)
	_, err = r.e.Roster().WithIterations(MinPINIterations).AddStaff(t.Context(), "Ravi", RoleCashier, "1234")
	require.NoError(t, err)
	meera, err := tl.Crew.SignIn(t.Context(), "Meera", managerPIN)
	require.NoError(t, err)
	ravi, err := tl.Crew.SignIn(t.Context(), "Ravi", "1234")
	require.NoError(t, err)
	return r, tl, svc, meera, ravi
}

// eventsOf returns the journal's events of kind from seq on.
func eventsOf(t *testing.T, r *rig, kind EventKind, from int) []Event {
	t.Helper()
	var out []Event
	for _, ev := range r.j.allEvents()[from:] {
		if ev.Kind == kind {
			out = append(out, ev)
		}
	}
	return out
}

// TestSaveSettingsJournalsTheManager changes the live service, its credentials
// and the printer: each change is a settings.changed event naming the manager's
// id, the secrets only as "changed", never their values.
func TestSaveSettingsJournalsTheManager(t *testing.T) {
	r, tl, svc, meera, _ := auditRig(t)
	ctx := t.Context()
	st, err := tl.Setup.Settings(ctx)
	require.NoError(t, err)
	assert.Empty(t, st.AccessCode, "the access code is never read back")
	assert.Equal(t, "••••9Q", st.AccessCodeShown)
	assert.True(t, st.SecretSet)
	assert.Equal(t, "the system keyring", st.SecretsWhere)

	before := len(r.j.allEvents())
	st.Live, st.GatewayURL, st.MerchantID = true, "https://pay.example.in", "31337"
	st.AccessCode = "NEWCODE-2"
	st.PrinterAddr, st.PrinterProfile = "192.168.1.50:9100", "80mm"
	require.NoError(t, tl.Setup.SaveSettings(ctx, meera, st, "NEW-SECRET-XYZ"))

	changed := eventsOf(t, r, EvSettingsChanged, before)
	keys := map[string]Event{}
	for _, ev := range changed {
		keys[ev.Setting.Key] = ev
		assert.Equal(t, meera.ID, ev.Staff, "settings.changed %s names the manager", ev.Setting.Key)
	}
	require.Contains(t, keys, SettingService)
	require.Contains(t, keys, SettingPrinter)
	var change ServiceChange
	require.NoError(t, json.Unmarshal(keys[SettingService].Setting.Value, &change))
	assert.Equal(t, ServiceChange{BaseURL: "https://pay.example.in", MerchantID: "31337", AccessCodeChanged: true, SecretChanged: true}, change)
	for _, ev := range r.j.allEvents() {
		raw, err := json.Marshal(ev)
		require.NoError(t, err)
		for _, secret := range []string{"NEWCODE-2", "NEW-SECRET-XYZ", "ACCESS-7F3K9Q", "SECRET-VALUE-1"} {
			assert.NotContains(t, string(raw), secret, "event %d (%s)", ev.Seq, ev.Kind)
		}
	}
	assert.Equal(t, "NEWCODE-2", svc.cur.AccessCode)
	assert.Equal(t, "NEW-SECRET-XYZ", svc.cur.Secret)
	assert.Equal(t, "https://pay.example.in", svc.cur.BaseURL)

	// Saved again unchanged, with the access code empty or as shown: nothing is
	// journaled and the stored code stays.
	again, err := tl.Setup.Settings(ctx)
	require.NoError(t, err)
	for _, code := range []string{"", again.AccessCodeShown} {
		before = len(r.j.allEvents())
		again.AccessCode = code
		require.NoError(t, tl.Setup.SaveSettings(ctx, meera, again, ""))
		assert.Empty(t, eventsOf(t, r, EvSettingsChanged, before), "nothing changed, nothing journaled (access code %q)", code)
		assert.Equal(t, "NEWCODE-2", svc.cur.AccessCode, "the stored access code stays")
	}
}

// TestSaveSettingsRefusedChangesNothing: a refused service address, a bad phone
// page address, or someone who is not a manager changes nothing at all — no
// shop, no discount limit, no printer is journaled before the refusal.
func TestSaveSettingsRefusedChangesNothing(t *testing.T) {
	r, tl, svc, meera, ravi := auditRig(t)
	ctx := t.Context()
	st, err := tl.Setup.Settings(ctx)
	require.NoError(t, err)
	st.ShopName, st.DiscountLimit = "Sharma Mobiles", Rupees(900)
	st.PrinterAddr, st.PrinterProfile = "192.168.1.50:9100", "58mm"
	st.Live = true

	tests := []struct {
		name string
		by   StaffMember
		edit func(s *Settings)
	}{
		{"a plain http address", meera, func(s *Settings) { s.GatewayURL = "http://collector.example" }},
		{"live without an address", meera, func(s *Settings) { s.GatewayURL = "" }},
		{"a bad phone page address", meera, func(s *Settings) { s.GatewayURL, s.PhoneListen = "https://pay.example.in", "0.0.0.0" }},
		{"a cashier", ravi, func(s *Settings) { s.GatewayURL = "https://pay.example.in" }},
		{"a cashier calling herself a manager", StaffMember{ID: ravi.ID, Name: "Ravi", Role: RoleManager}, func(s *Settings) { s.GatewayURL = "https://pay.example.in" }},
		{"nobody", StaffMember{}, func(s *Settings) { s.GatewayURL = "https://pay.example.in" }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			before := len(r.j.allEvents())
			s := st
			tt.edit(&s)
			err := tl.Setup.SaveSettings(ctx, tt.by, s, "NEW-SECRET-XYZ")
			require.Error(t, err)
			assert.NotEqual(t, GenericSentence, Sentence(err), "the refusal is a sentence")
			assert.Len(t, r.j.allEvents(), before, "nothing is journaled")
			assert.Equal(t, 0, svc.saves, "the configuration is not written")
			assert.Equal(t, DefaultDiscountLimit, tl.Shelf.DiscountLimit(CartLine{}), "the discount limit stays")
			shop, err := LoadShop(ctx, r.j)
			require.NoError(t, err)
			assert.Empty(t, shop.Name)
			_, ok, err := LoadPrinter(ctx, r.j)
			require.NoError(t, err)
			assert.False(t, ok, "no printer")
		})
	}
	assert.ErrorIs(t, tl.Setup.SaveSettings(ctx, ravi, st, ""), ErrNotManager)
}

// TestAuditSignInOutOverride: sign-in, a refused PIN, sign-out and a manager's
// override are journaled with the staff id, and never with a PIN.
func TestAuditSignInOutOverride(t *testing.T) {
	r, tl, _, meera, ravi := auditRig(t)
	ctx := t.Context()

	signIns := eventsOf(t, r, EvStaffSignIn, 0)
	require.Len(t, signIns, 2)
	assert.Equal(t, []string{meera.ID, ravi.ID}, []string{signIns[0].Staff, signIns[1].Staff})
	assert.Empty(t, signIns[0].Day, "an audit event belongs to no business day")

	before := len(r.j.allEvents())
	_, err := tl.Crew.SignIn(ctx, "Ravi", "9876")
	require.ErrorIs(t, err, ErrWrongPIN)
	failed := eventsOf(t, r, EvStaffSignInFail, before)
	require.Len(t, failed, 1)
	assert.Equal(t, ravi.ID, failed[0].Staff)
	assert.Equal(t, "wrong PIN", failed[0].Reason)

	require.NoError(t, tl.Crew.SignOut(ctx, ravi, true))
	require.NoError(t, tl.Crew.SignOut(ctx, meera, false))
	outs := eventsOf(t, r, EvStaffSignOut, before)
	require.Len(t, outs, 2)
	assert.Equal(t, ravi.ID, outs[0].Staff)
	assert.Equal(t, "idle", outs[0].Reason)
	assert.Equal(t, meera.ID, outs[1].Staff)
	assert.Equal(t, "locked", outs[1].Reason)

	tv, ok := tl.Shelf.Lookup("TV-LG-OLED55C4")
	require.True(t, ok)
	o := Override{What: OverrideDiscount, SKU: tv.SKU, Amount: Rupees(1500), By: ravi.ID}
	_, err = tl.Crew.Authorize(ctx, "1234", o)
	require.Error(t, err, "a cashier's PIN approves nothing")
	assert.Empty(t, eventsOf(t, r, EvOverride, before))
	m, err := tl.Crew.Authorize(ctx, managerPIN, o)
	require.NoError(t, err)
	ov := eventsOf(t, r, EvOverride, before)
	require.Len(t, ov, 1)
	assert.Equal(t, m.ID, ov[0].Staff)
	assert.Equal(t, map[string]string{"what": "discount", "sku": tv.SKU, "amount": "150000", "by": ravi.ID}, ov[0].Extra)

	for _, ev := range r.j.allEvents() {
		if ev.Kind == EvStaffAdded || ev.Kind == EvStaffChanged {
			continue // the staff records, PIN hashes only
		}
		raw, err := json.Marshal(ev)
		require.NoError(t, err)
		for _, pin := range []string{managerPIN, "\"1234\"", "9876"} {
			assert.NotContains(t, string(raw), pin, "event %d (%s) carries no PIN", ev.Seq, ev.Kind)
		}
	}
}

// TestAuditRefusedWhenNotJournaled: a sign-in or an approval the journal cannot
// record does not happen.
func TestAuditRefusedWhenNotJournaled(t *testing.T) {
	r, tl, _, _, _ := auditRig(t)
	ctx := t.Context()
	full := errors.New("disk full")
	r.j.mu.Lock()
	r.j.failNext = func(ev Event) error {
		if strings.HasPrefix(string(ev.Kind), "staff.s") || ev.Kind == EvOverride {
			return full
		}
		return nil
	}
	r.j.mu.Unlock()
	_, err := tl.Crew.SignIn(ctx, "Meera", managerPIN)
	assert.ErrorIs(t, err, full)
	tv, ok := tl.Shelf.Lookup("TV-LG-OLED55C4")
	require.True(t, ok)
	_, err = tl.Crew.Authorize(ctx, managerPIN, Override{What: OverrideDiscount, SKU: tv.SKU, Amount: Rupees(1500)})
	assert.ErrorIs(t, err, full)
	_, err = tl.Shelf.Price([]CartLine{{Product: tv, Qty: 1, Discount: Rupees(1500), ApprovedBy: "Meera"}})
	assert.ErrorIs(t, err, ErrDiscountNeedsManager, "an approval the journal did not record counts for nothing")
}

// TestSettingsRefuseABadGSTIN: Settings take the GSTIN only when it validates,
// and it names the shop's state; a bad one changes nothing.
func TestSettingsRefuseABadGSTIN(t *testing.T) {
	r := newRig(t)
	tl := r.till(t)
	ctx := t.Context()
	m, err := tl.Crew.Authorize(ctx, managerPIN, Override{})
	require.NoError(t, err)
	before, err := LoadShop(ctx, r.j)
	require.NoError(t, err)
	err = tl.Setup.SaveSettings(ctx, m, Settings{ShopName: "Sharma Mobiles", Address: "MG Road", GSTIN: "27AAPFU0939F1ZW", DiscountLimit: DefaultDiscountLimit}, "")
	assert.ErrorIs(t, err, ErrGSTINCheck)
	after, err := LoadShop(ctx, r.j)
	require.NoError(t, err)
	assert.Equal(t, before, after, "a refused GSTIN changes nothing")
	require.NoError(t, tl.Setup.SaveSettings(ctx, m, Settings{ShopName: "Sharma Mobiles", Address: "MG Road", GSTIN: "27aapfu0939f1zv", DiscountLimit: DefaultDiscountLimit}, ""))
	after, err = LoadShop(ctx, r.j)
	require.NoError(t, err)
	assert.Equal(t, "27AAPFU0939F1ZV", after.GSTIN)
	assert.Equal(t, "27", after.State)
}

// TestSettingsKeepTheShopsStateSchemeAndRates: Settings take a state code
// (refusing one a GSTIN contradicts), the composition scheme and the shop's rate
// list, and say what the sales then print.
func TestSettingsKeepTheShopsStateSchemeAndRates(t *testing.T) {
	r := newRig(t)
	tl := r.till(t)
	ctx := t.Context()
	m, err := tl.Crew.Authorize(ctx, managerPIN, Override{})
	require.NoError(t, err)
	base := Settings{ShopName: "Sharma Mobiles", Address: "MG Road", DiscountLimit: DefaultDiscountLimit}

	bad := base
	bad.GSTIN, bad.State = "27AAPFU0939F1ZV", "29"
	err = tl.Setup.SaveSettings(ctx, m, bad, "")
	require.Error(t, err)
	assert.Equal(t, "The GSTIN 27AAPFU0939F1ZV is registered in state 27, not 29: correct the state code or the GSTIN.", Sentence(err))
	bad = base
	bad.Rates = "5, 12"
	assert.Error(t, tl.Setup.SaveSettings(ctx, m, bad, ""), "12% is not a rate in force")

	// An unregistered shop in Karnataka, selling 5% and 18% goods: a RECEIPT.
	s := base
	s.State, s.Rates = "29", "18,5"
	require.NoError(t, tl.Setup.SaveSettings(ctx, m, s, ""))
	got, err := tl.Setup.Settings(ctx)
	require.NoError(t, err)
	assert.Equal(t, "29", got.State)
	assert.Equal(t, "5, 18", got.Rates)
	assert.Equal(t, "Sales print a RECEIPT, not a tax invoice: the shop's GSTIN is not set.", got.DocumentsNote)
	shop, err := LoadShop(ctx, r.j)
	require.NoError(t, err)
	assert.Equal(t, ShopRates{{Rates: []Rate{Percent(5), Percent(18)}}}, shop.Rates)

	// Registered under the composition scheme, every rate again.
	s.GSTIN, s.State, s.Composition, s.Rates = "27AAPFU0939F1ZV", "", true, "all"
	require.NoError(t, tl.Setup.SaveSettings(ctx, m, s, ""))
	got, err = tl.Setup.Settings(ctx)
	require.NoError(t, err)
	assert.Equal(t, "27", got.State, "the GSTIN gives the state")
	assert.Equal(t, "all", got.Rates)
	assert.True(t, got.Composition)
	assert.Equal(t, "Sales print a BILL OF SUPPLY: the shop is under the composition scheme and charges no GST.", got.DocumentsNote)
}

// TestSettingsKeepTheShopsTurnover: Settings take the previous year's aggregate
// turnover in crore (e-invoicing and six-digit HSN above ₹5 crore), refuse what
// is not a number of crore, and clear it when emptied.
func TestSettingsKeepTheShopsTurnover(t *testing.T) {
	r := newRig(t)
	tl := r.till(t)
	ctx := t.Context()
	m, err := tl.Crew.Authorize(ctx, managerPIN, Override{})
	require.NoError(t, err)
	s := Settings{ShopName: "Sharma Mobiles", Address: "MG Road", GSTIN: "27AAPFU0939F1ZV", DiscountLimit: DefaultDiscountLimit}

	s.Turnover = "twelve"
	require.Error(t, tl.Setup.SaveSettings(ctx, m, s, ""))
	shop, err := LoadShop(ctx, r.j)
	require.NoError(t, err)
	assert.Equal(t, Paise(0), shop.Turnover, "a refusal changes nothing")

	s.Turnover = "12.5"
	require.NoError(t, tl.Setup.SaveSettings(ctx, m, s, ""))
	shop, err = LoadShop(ctx, r.j)
	require.NoError(t, err)
	assert.Equal(t, Paise(12_50_00_000_00), shop.Turnover, "₹12.5 crore in paise")
	got, err := tl.Setup.Settings(ctx)
	require.NoError(t, err)
	assert.Equal(t, "12.5", got.Turnover)

	s.Turnover = "0.0375" // ₹3,75,000
	require.NoError(t, tl.Setup.SaveSettings(ctx, m, s, ""))
	got, err = tl.Setup.Settings(ctx)
	require.NoError(t, err)
	assert.Equal(t, "0.0375", got.Turnover)

	s.Turnover = ""
	require.NoError(t, tl.Setup.SaveSettings(ctx, m, s, ""))
	shop, err = LoadShop(ctx, r.j)
	require.NoError(t, err)
	assert.Equal(t, Paise(0), shop.Turnover)
}
