package config

import (
	"crypto/ed25519"
	"encoding/hex"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/zalando/go-keyring"

	"galla/pos"
)

// fakeKeyring is a keyring in memory; broken makes it answer nothing, as on a
// headless Linux without Secret Service.
type fakeKeyring struct {
	m      map[string]string
	broken bool
}

func (k *fakeKeyring) Set(service, user, password string) error {
	if k.broken {
		return errors.New("no keyring")
	}
	k.m[service+"/"+user] = password
	return nil
}

func (k *fakeKeyring) Get(service, user string) (string, error) {
	if k.broken {
		return "", errors.New("no keyring")
	}
	v, ok := k.m[service+"/"+user]
	if !ok {
		return "", keyring.ErrNotFound
	}
	return v, nil
}

// dirHolds reports whether any file under dir contains s.
func dirHolds(t *testing.T, dir, s string) bool {
	t.Helper()
	found := false
	require.NoError(t, filepath.Walk(dir, func(path string, info os.FileInfo, err error) error {
		if err != nil || info.IsDir() {
			return err
		}
		b, err := os.ReadFile(path)
		found = found || strings.Contains(string(b), s)
		return err
	}))
	return found
}

const secret = "5e3c7a9b1d2f4e6a8c0b1d3f5a7c9e1b3d5f7a9c" // 40 hex digits, nothing else looks like it

func TestSecretsInTheKeyring(t *testing.T) {
	dir := t.TempDir()
	kr := &fakeKeyring{m: map[string]string{}}
	s := OpenSecrets(dir, kr)
	require.NoError(t, s.Set(SecretMerchant, secret))
	got, err := s.Get(SecretMerchant)
	require.NoError(t, err)
	assert.Equal(t, secret, got)
	assert.Equal(t, "the system keyring", s.Where())
	assert.Equal(t, "the system keyring", s.Place())
	assert.False(t, dirHolds(t, dir, secret), "nothing of it in the data directory")
	missing, err := s.Get(SecretAccessCode)
	require.NoError(t, err)
	assert.Empty(t, missing)
}

func TestSecretsFallBackToAPrivateFile(t *testing.T) {
	dir := t.TempDir()
	s := OpenSecrets(dir, &fakeKeyring{broken: true})
	require.NoError(t, s.Set(SecretMerchant, secret))
	assert.Contains(t, s.Where(), SecretsFile)
	// A sentence that says where something is kept names the file, not the
	// warning (which every start shows).
	assert.Equal(t, "the file "+filepath.Join(dir, SecretsFile)+", readable by this user only", s.Place())
	st, err := os.Stat(filepath.Join(dir, SecretsFile))
	require.NoError(t, err)
	if st.Mode().Perm()&0o077 != 0 {
		t.Errorf("the secrets file is mode %v; want 0600", st.Mode().Perm())
	}
	again, err := OpenSecrets(dir, nil).Get(SecretMerchant)
	require.NoError(t, err)
	assert.Equal(t, secret, again)
}

// TestEnvironmentSecretNeverWritten gives the secret and the access code in the
// environment, saves Settings as the screen sends them back (the access code as
// shown, masked), and scans the data directory: neither is anywhere in it.
func TestEnvironmentSecretNeverWritten(t *testing.T) {
	dir := t.TempDir()
	env := map[string]string{"GALLA_MERCHANT_ID": "100001", "GALLA_ACCESS_CODE": "ACCESS-7F3K9Q", "GALLA_SECRET_KEY": secret}
	sec := OpenSecrets(dir, &fakeKeyring{broken: true}) // the file: what is written is there to find
	cfg, err := Load(dir, func(k string) string { return env[k] }, "https://pay.example.in", sec)
	require.NoError(t, err)
	assert.Equal(t, secret, cfg.Gateway.Secret)
	st := NewStore(dir, cfg, sec)
	shown := st.ServiceSettings()
	assert.NotContains(t, shown.AccessCode, "ACCESS-7F3K9Q", "the access code is masked")
	assert.True(t, shown.SecretSet)
	shown.PhoneListen = "0.0.0.0:7071"
	require.NoError(t, st.SaveServiceSettings(shown))
	assert.False(t, dirHolds(t, dir, secret), "the environment's secret is not on disk")
	assert.False(t, dirHolds(t, dir, "ACCESS-7F3K9Q"), "nor its access code")
	assert.Equal(t, "ACCESS-7F3K9Q", st.Config().Gateway.AccessCode, "it is still used")

	// A new access code typed in Settings replaces the shown one and is kept.
	shown.AccessCode = "NEWCODE-2"
	require.NoError(t, st.SaveServiceSettings(shown))
	got, err := sec.Get(SecretAccessCode)
	require.NoError(t, err)
	assert.Equal(t, "NEWCODE-2", got)
}

// TestPlainSecretsMoveOutOfConfig loads a config.json of an earlier version that
// held the secret in plain text: it moves into the keyring and out of the file.
func TestPlainSecretsMoveOutOfConfig(t *testing.T) {
	dir := t.TempDir()
	old := `{"gateway":{"base_url":"https://pay.example.in","merchant_id":"1","access_code":"AC-OLD-1","secret":"` + secret + `"}}`
	require.NoError(t, os.WriteFile(filepath.Join(dir, File), []byte(old), 0o600))
	kr := &fakeKeyring{m: map[string]string{}}
	cfg, err := Load(dir, func(string) string { return "" }, "", OpenSecrets(dir, kr))
	require.NoError(t, err)
	assert.Equal(t, secret, cfg.Gateway.Secret)
	assert.Equal(t, "AC-OLD-1", cfg.Gateway.AccessCode)
	assert.False(t, dirHolds(t, dir, secret))
	assert.False(t, dirHolds(t, dir, "AC-OLD-1"))
	assert.Len(t, kr.m, 2)
	var _ pos.ServiceConfig = NewStore(dir, cfg, nil)
}

// TestKeyIsMadeOnceAndKept: a terminal key is made on first use and the same
// one is read after.
func TestKeyIsMadeOnceAndKept(t *testing.T) {
	dir := t.TempDir()
	kr := &fakeKeyring{m: map[string]string{}}
	k1, err := OpenSecrets(dir, kr).Key(SecretPINPepper, 32)
	require.NoError(t, err)
	assert.Len(t, k1, 32)
	k2, err := OpenSecrets(dir, kr).Key(SecretPINPepper, 32)
	require.NoError(t, err)
	assert.Equal(t, k1, k2)
	other, err := OpenSecrets(t.TempDir(), kr).Key(SecretPINPepper, 32)
	require.NoError(t, err)
	assert.NotEqual(t, k1, other, "each data directory has its own")
}

// The terminal's key at the store is kept in the keyring, never in the data
// directory, and comes back as the same key.
func TestStoreKeyInTheKeyring(t *testing.T) {
	dir := t.TempDir()
	kr := &fakeKeyring{m: map[string]string{}}
	s := OpenSecrets(dir, kr)
	none, err := s.StoreKey()
	require.NoError(t, err)
	assert.Nil(t, none)
	_, key, err := ed25519.GenerateKey(nil)
	require.NoError(t, err)
	require.NoError(t, s.SetStoreKey(key))
	got, err := OpenSecrets(dir, kr).StoreKey()
	require.NoError(t, err)
	assert.Equal(t, key, got)
	assert.False(t, dirHolds(t, dir, hex.EncodeToString(key.Seed())), "nothing of it in the data directory")
	require.Error(t, s.SetStoreKey(key[:10]))
	require.NoError(t, s.Set(SecretStoreKey, "00ff"))
	_, err = s.StoreKey()
	require.Error(t, err, "a damaged key is said, not taken")
}

// TestQRKeyMovesIntoTheSecrets: the QR key an older build kept in
// receipt-qr.key is moved into the keyring (or, where none answers, into
// secrets.json), the same bytes, and the file removed; a new terminal makes
// one in the secrets and never writes the file.
func TestQRKeyMovesIntoTheSecrets(t *testing.T) {
	old := []byte("0123456789abcdef0123456789abcdef")
	for _, c := range []struct {
		name string
		kr   *fakeKeyring
	}{{"keyring", &fakeKeyring{m: map[string]string{}}}, {"no keyring", &fakeKeyring{broken: true}}} {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			path := filepath.Join(dir, ReceiptKeyFile)
			require.NoError(t, os.WriteFile(path, old, 0o600))
			s := OpenSecrets(dir, c.kr)
			key, err := s.QRKey()
			require.NoError(t, err)
			assert.Equal(t, old, key, "the key that signed the printed codes is kept")
			assert.NoFileExists(t, path)
			v, err := s.Get(SecretQRKey)
			require.NoError(t, err)
			assert.Equal(t, hex.EncodeToString(old), v)
			again, err := OpenSecrets(dir, c.kr).QRKey()
			require.NoError(t, err)
			assert.Equal(t, old, again)
			if c.kr.broken {
				assert.True(t, dirHolds(t, dir, hex.EncodeToString(old)), "in secrets.json")
			} else {
				assert.False(t, dirHolds(t, dir, hex.EncodeToString(old)), "nothing of it in the data directory")
			}
		})
	}
	t.Run("new", func(t *testing.T) {
		dir := t.TempDir()
		key, err := OpenSecrets(dir, &fakeKeyring{m: map[string]string{}}).QRKey()
		require.NoError(t, err)
		assert.Len(t, key, 32)
		assert.NoFileExists(t, filepath.Join(dir, ReceiptKeyFile))
	})
}

// TestSecretsMoveIntoAKeyringAdded: a counter that ran without a keyring keeps
// its secrets in secrets.json; once a keyring answers, they move into it, the
// same values, and the file is removed, so that the journal key (and the
// customers' details it seals) is no longer beside the journal. A keyring that
// holds another value of one of them leaves the file as the store.
func TestSecretsMoveIntoAKeyringAdded(t *testing.T) {
	dir := t.TempDir()
	kr := &fakeKeyring{m: map[string]string{}, broken: true}
	before := OpenSecrets(dir, kr)
	key, err := before.Key(SecretJournalKey, 32)
	require.NoError(t, err)
	require.NoError(t, before.Set(SecretMerchant, secret))
	require.FileExists(t, filepath.Join(dir, SecretsFile))

	kr.broken = false
	after := OpenSecrets(dir, kr)
	again, err := after.Key(SecretJournalKey, 32)
	require.NoError(t, err)
	assert.Equal(t, key, again, "the journal key is the same")
	v, err := after.Get(SecretMerchant)
	require.NoError(t, err)
	assert.Equal(t, secret, v)
	assert.Equal(t, "the system keyring", after.Where())
	assert.NoFileExists(t, filepath.Join(dir, SecretsFile))
	assert.False(t, dirHolds(t, dir, secret))

	t.Run("a different value in the keyring", func(t *testing.T) {
		dir := t.TempDir()
		kr := &fakeKeyring{m: map[string]string{}, broken: true}
		require.NoError(t, OpenSecrets(dir, kr).Set(SecretMerchant, secret))
		kr.broken = false
		require.NoError(t, OpenSecrets(dir, kr).kr.Set("Galla "+mustAbs(t, dir), SecretMerchant, "other"))
		s := OpenSecrets(dir, kr)
		v, err := s.Get(SecretMerchant)
		require.NoError(t, err)
		assert.Equal(t, secret, v, "the file stays the store")
		assert.Contains(t, s.Where(), SecretsFile)
	})
}

func mustAbs(t *testing.T, dir string) string {
	t.Helper()
	abs, err := filepath.Abs(dir)
	require.NoError(t, err)
	return abs
}
