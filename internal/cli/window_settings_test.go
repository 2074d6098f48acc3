package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"galla/internal/config"
	"galla/pos"
)

// journalEvents reads every event of the terminal's journal from seq from on.
func journalEvents(t *testing.T, till *terminal, from uint64) []pos.Event {
	t.Helper()
	last, err := till.j.Log.LastSeq(t.Context())
	require.NoError(t, err)
	var out []pos.Event
	for seq := from; seq <= last; seq++ {
		ev, err := till.j.Log.Event(t.Context(), seq)
		require.NoError(t, err)
		out = append(out, ev)
	}
	return out
}

// TestWindowSettingsAudit drives the settings through the real configuration and
// journal: a plain-http service address is refused before anything is journaled
// or written; the live service with new credentials and a printer is journaled as
// settings.changed naming the manager, with no secret in the journal or
// config.json; Settings says where the secrets are kept and shows the access code
// masked only.
func TestWindowSettingsAudit(t *testing.T) {
	ctx := t.Context()
	till := newWindowTill(t)
	asha := manager(t, till)
	st, err := till.Setup.Settings(ctx)
	require.NoError(t, err)
	assert.Contains(t, st.SecretsWhere, config.SecretsFile, "no keyring in the tests: the 0600 file, and Settings says so")

	start, err := till.j.Log.LastSeq(ctx)
	require.NoError(t, err)
	cfgPath := filepath.Join(till.c.dataDir, configFile)
	cfgBefore, _ := os.ReadFile(cfgPath)

	st.ShopName, st.DiscountLimit = "Sharma Mobiles", pos.Rupees(900)
	st.Live, st.GatewayURL, st.MerchantID, st.AccessCode = true, "http://collector.example/api", "29845", "ACCESS-7F3K9Q"
	st.PrinterAddr, st.PrinterProfile = filepath.Join(t.TempDir(), "printer.bin"), "80mm"
	err = till.Setup.SaveSettings(ctx, asha, st, "SECRET-VALUE-1")
	require.Error(t, err)
	assert.Contains(t, pos.Sentence(err), "collector.example")
	last, err := till.j.Log.LastSeq(ctx)
	require.NoError(t, err)
	assert.Equal(t, start, last, "a refused address journals nothing, not even the shop")
	cfgAfter, _ := os.ReadFile(cfgPath)
	assert.Equal(t, string(cfgBefore), string(cfgAfter), "nor writes the configuration")
	assert.Equal(t, pos.DefaultDiscountLimit, till.Shelf.DiscountLimit(pos.CartLine{}))

	st.GatewayURL = "https://pay.example.in"
	require.NoError(t, till.Setup.SaveSettings(ctx, asha, st, "SECRET-VALUE-1"))
	byKey := map[string]pos.Event{}
	for _, ev := range journalEvents(t, till, start+1) {
		require.Equal(t, pos.EvSettingsChanged, ev.Kind)
		assert.Equal(t, asha.ID, ev.Staff, "%s names the manager", ev.Setting.Key)
		byKey[ev.Setting.Key] = ev
	}
	for _, key := range []string{pos.SettingShop, pos.SettingDiscount, pos.SettingPrinter, pos.SettingService} {
		assert.Contains(t, byKey, key)
	}
	var change pos.ServiceChange
	require.NoError(t, json.Unmarshal(byKey[pos.SettingService].Setting.Value, &change))
	assert.Equal(t, pos.ServiceChange{BaseURL: "https://pay.example.in", MerchantID: "29845", AccessCodeChanged: true, SecretChanged: true}, change)

	for _, f := range []string{config.JournalFile, configFile} {
		b, err := os.ReadFile(filepath.Join(till.c.dataDir, f))
		require.NoError(t, err)
		for _, secret := range []string{"ACCESS-7F3K9Q", "SECRET-VALUE-1"} {
			assert.NotContains(t, string(b), secret, "%s holds no secret", f)
		}
	}
	again, err := till.Setup.Settings(ctx)
	require.NoError(t, err)
	assert.Empty(t, again.AccessCode)
	assert.Equal(t, "••••9Q", again.AccessCodeShown)
	assert.True(t, again.SecretSet)
	assert.Equal(t, "ACCESS-7F3K9Q", till.cfg.Config().Gateway.AccessCode, "kept for the next start")
}
