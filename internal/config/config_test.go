package config

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"galla/pos"
)

func TestCheckBaseURL(t *testing.T) {
	for _, ok := range []string{"", "https://pay.example.in", "https://pay.example.in/api/", "http://127.0.0.1:7070", "http://localhost:7070", "http://[::1]:7070"} {
		assert.NoError(t, CheckBaseURL(ok), ok)
	}
	for _, bad := range []string{"http://pay.example.in", "http://10.0.0.5:7070", "ftp://pay.example.in", "https://", "pay.example.in",
		"https://user:pass@pay.example.in", "http://127.0.0.1.evil.example"} {
		err := CheckBaseURL(bad)
		require.Error(t, err, bad)
		assert.Contains(t, pos.Sentence(err), "https://", bad)
	}
}

// TestForgedConfigURL writes a plain-http address into config.json as someone
// with the shop PC's files could: loading refuses it, and Settings refuses to
// save one.
func TestForgedConfigURL(t *testing.T) {
	dir := t.TempDir()
	cfg := `{"gateway":{"base_url":"http://collector.example/api","merchant_id":"1","access_code":"a","secret":"00"}}`
	require.NoError(t, os.WriteFile(filepath.Join(dir, File), []byte(cfg), 0o600))
	_, err := Load(dir, func(string) string { return "" }, "", nil)
	require.Error(t, err)
	assert.Contains(t, pos.Sentence(err), "collector.example")

	s := NewStore(t.TempDir(), Config{}, nil)
	assert.Error(t, s.SaveServiceSettings(pos.ServiceSettings{BaseURL: "http://collector.example"}))
	assert.NoError(t, s.SaveServiceSettings(pos.ServiceSettings{BaseURL: "https://pay.example.in", MerchantID: "1"}))
	assert.Equal(t, "https://pay.example.in", s.ServiceSettings().BaseURL)
}

// TestStoreCheck: Check refuses what SaveServiceSettings refuses and stores
// nothing, so pos can check the address before it journals anything; the service
// settings say where the secrets are kept.
func TestStoreCheck(t *testing.T) {
	dir := t.TempDir()
	s := NewStore(dir, Config{}, OpenSecrets(dir, nil))
	for _, raw := range []string{"http://collector.example", "ftp://pay.example.in", "https://user:pw@pay.example.in"} {
		err := s.Check(pos.ServiceSettings{BaseURL: raw})
		require.Error(t, err, raw)
		assert.Contains(t, pos.Sentence(err), "https://", raw)
	}
	for _, raw := range []string{"", "https://pay.example.in", "http://127.0.0.1:8080"} {
		assert.NoError(t, s.Check(pos.ServiceSettings{BaseURL: raw}), raw)
	}
	assert.NoFileExists(t, filepath.Join(dir, File), "checking writes nothing")
	assert.Contains(t, s.ServiceSettings().SecretsWhere, filepath.Join(dir, SecretsFile), "no keyring: the 0600 file, named")
	assert.Equal(t, "the system keyring", NewStore(dir, Config{}, OpenSecrets(dir, &fakeKeyring{})).ServiceSettings().SecretsWhere)
}
