package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"galla/internal/config"
	"galla/pos"
)

// TestEInvoiceSandboxAcrossCommands: the embedded IRP keeps what it registered
// in the data directory, so an IRN registered by one command is cancelled by
// the next: the invoice registered by galla einvoice register is voided by
// galla void, a later process, and its IRN is cancelled, not left registered
// with the IRP because that process's sandbox did not know it.
func TestEInvoiceSandboxAcrossCommands(t *testing.T) {
	dir := t.TempDir()
	code, _, errOut := tillRun(t, dir, "", nil, "shop", "set", "--name", "Sharma Mobiles",
		"--address", "12 FC Road, Pune 411004", "--state", "27", "--gstin", "27AAPFU0939F1ZV")
	require.Equal(t, exitOK, code, errOut)
	setTurnover(t, dir, pos.Paise(12_50_00_000_00))
	code, out, errOut := tillRun(t, dir, "", nil, "checkout", "--items", "ACC-CBL-CC1M", "--pay", "cash",
		"--customer-name", "Reliance Traders", "--customer-address", "12 MG Road, Pune", "--customer-gstin", "27AAACR5055K1Z7")
	require.Equal(t, exitOK, code, errOut)
	doc := decodeCheckout(t, out).DocumentNo

	code, _, errOut = tillRun(t, dir, "", nil, "einvoice", "register")
	require.Equal(t, exitOK, code, errOut)
	_, err := os.Stat(filepath.Join(dir, config.IRPSandboxFile))
	require.NoError(t, err, "the sandbox's registrations are in the data directory")

	code, _, errOut = tillRun(t, dir, "432100\n", nil, "staff", "add", "Meera", "--role", "manager")
	require.Equal(t, exitOK, code, errOut)
	pin := map[string]string{"GALLA_PIN": "432100"}
	code, _, errOut = tillRun(t, dir, "", pin, "void", doc, "--reason", "customer left before delivery")
	require.Equal(t, exitOK, code, errOut)
	assert.NotContains(t, errOut, "could not cancel the IRN")
	code, out, errOut = tillRun(t, dir, "", nil, "einvoice", "status", doc)
	require.Equal(t, exitOK, code, errOut)
	var st einvoiceLine
	require.NoError(t, json.Unmarshal([]byte(strings.TrimSpace(out)), &st), out)
	assert.Equal(t, pos.IRNCancelled, st.Status)

	// A damaged state file turns e-invoicing off with a sentence; the sale
	// goes on and the file is left as it was.
	require.NoError(t, os.WriteFile(filepath.Join(dir, config.IRPSandboxFile), []byte("{not json"), 0o600))
	code, out, errOut = tillRun(t, dir, "", pin, "checkout", "--staff", "Meera", "--items", "ACC-CBL-CC1M", "--pay", "cash",
		"--customer-name", "Reliance Traders", "--customer-address", "12 MG Road, Pune", "--customer-gstin", "27AAACR5055K1Z7")
	require.Equal(t, exitOK, code, errOut)
	second := decodeCheckout(t, out).DocumentNo
	code, _, errOut = tillRun(t, dir, "", pin, "einvoice", "register", second)
	assert.NotEqual(t, exitOK, code)
	assert.Contains(t, errOut, "cannot be read as the IRP sandbox's registrations")
	raw, err := os.ReadFile(filepath.Join(dir, config.IRPSandboxFile))
	require.NoError(t, err)
	assert.Equal(t, "{not json", string(raw))
}
