package cli

import (
	"bytes"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"galla/internal/config"
	"galla/pos"
)

// TestIRPOpenedOnFirstUse: a command of a shop that registers nothing never
// opens the IRP (its access unreadable in the keyring says nothing); the first
// document asked of it opens it once, and a failure is said once and answered
// as no IRP.
func TestIRPOpenedOnFirstUse(t *testing.T) {
	var stderr bytes.Buffer
	opened := 0
	l := &lazyIRP{gstin: "27AAPFU0939F1ZV", stderr: &stderr, open: func() (pos.IRP, error) {
		opened++
		return nil, errors.New("the IRP's public key is not a PEM block")
	}}
	assert.Equal(t, "27AAPFU0939F1ZV", l.GSTIN())
	assert.Zero(t, opened)
	_, err := l.GetByDocument(t.Context(), "INV", "T1/2627/000001", time.Now())
	require.ErrorIs(t, err, pos.ErrNoIRP)
	_, err = l.Cancel(t.Context(), "irn", "1", "x")
	require.ErrorIs(t, err, pos.ErrNoIRP)
	assert.Equal(t, 1, opened)
	assert.Equal(t, 1, strings.Count(stderr.String(), "e-invoicing is off: the IRP's public key is not a PEM block"))

	// On the command line: the access is unreadable, a cash sale of a shop
	// below the e-invoicing limit neither reads it nor complains.
	dir := t.TempDir()
	code, _, errOut := tillRun(t, dir, "", nil, "shop", "set", "--name", "Sharma Mobiles",
		"--address", "12 FC Road, Pune 411004", "--state", "27", "--gstin", "27AAPFU0939F1ZV")
	require.Equal(t, exitOK, code, errOut)
	require.NoError(t, config.OpenSecrets(dir, nil).Set(SecretIRP, "{not json"))
	code, _, errOut = tillRun(t, dir, "", nil, "checkout", "--items", "ACC-CBL-CC1M", "--pay", "cash")
	require.Equal(t, exitOK, code, errOut)
	assert.NotContains(t, errOut, "e-invoicing is off")

	// A shop that must e-invoice is told when its B2B invoice is registered,
	// and the invoice stays pending.
	setTurnover(t, dir, pos.Paise(12_50_00_000_00))
	code, _, errOut = tillRun(t, dir, "", nil, "checkout", "--items", "ACC-CBL-CC1M", "--pay", "cash",
		"--customer-name", "Reliance Traders", "--customer-address", "12 MG Road, Pune", "--customer-gstin", "27AAACR5055K1Z7")
	require.Equal(t, exitOK, code, errOut)
	code, _, errOut = tillRun(t, dir, "", nil, "einvoice", "register")
	assert.NotEqual(t, exitOK, code)
	assert.Equal(t, 1, strings.Count(errOut, "e-invoicing is off: the IRP's access in the keyring is not readable"), errOut)
	code, out, _ := tillRun(t, dir, "", nil, "einvoice", "pending")
	require.Equal(t, exitOK, code)
	assert.Contains(t, out, "T1/")
}
