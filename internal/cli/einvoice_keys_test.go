package cli

import (
	"crypto/rsa"
	"crypto/x509"
	"encoding/json"
	"encoding/pem"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	irpsandbox "galla/gateway/irp/sandbox"
	"galla/internal/config"
)

func publicPEM(t *testing.T, k *rsa.PublicKey) string {
	t.Helper()
	der, err := x509.MarshalPKIXPublicKey(k)
	require.NoError(t, err)
	return string(pem.EncodeToMemory(&pem.Block{Type: "PUBLIC KEY", Bytes: der}))
}

// TestEInvoiceCredentialsEncryptionKey: the live IRP's access needs NIC's
// public encryption key beside the signing key; without it the access is
// refused with a sentence naming it, and an access kept before without one
// turns e-invoicing off with a sentence saying to set it again.
func TestEInvoiceCredentialsEncryptionKey(t *testing.T) {
	dir := t.TempDir()
	access := map[string]string{"base_url": "https://einv-apisandbox.nic.in", "client_id": "AAAAA", "client_secret": "s",
		"user_name": "shop", "password": "p", "gstin": "27AAPFU0939F1ZV", "public_key_pem": publicPEM(t, &irpsandbox.TestKey().PublicKey)}
	raw, _ := json.Marshal(access)
	code, _, errOut := tillRun(t, dir, string(raw), nil, "einvoice", "credentials")
	assert.Equal(t, exitBadInput, code)
	assert.Contains(t, errOut, "encryption_key_pem")

	sec := config.OpenSecrets(dir, nil)
	require.NoError(t, sec.Set(SecretIRP, string(raw)))
	_, live, err := openIRP(sec, dir, "27AAPFU0939F1ZV", time.Now)
	assert.True(t, live)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "set the access again")

	access["encryption_key_pem"] = publicPEM(t, &irpsandbox.TestEncryptionKey().PublicKey)
	raw, _ = json.Marshal(access)
	code, _, errOut = tillRun(t, dir, string(raw), nil, "einvoice", "credentials")
	require.Equal(t, exitOK, code, errOut)
	port, live, err := openIRP(config.OpenSecrets(dir, nil), dir, "27AAPFU0939F1ZV", time.Now)
	require.NoError(t, err)
	assert.True(t, live)
	assert.Equal(t, "27AAPFU0939F1ZV", port.GSTIN())
}
