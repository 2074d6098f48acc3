package cli

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"galla/pos"
	"galla/pos/journal"
)

// TestEInvoiceCommands: a shop of ₹12.5 crore turnover sells to a registered
// buyer on the command line; galla einvoice pending lists the invoice, register
// registers it with the embedded IRP, status shows its IRN (computed here:
// SHA-256 of GSTIN, FY, INV and the number) and the receipt prints it.
func TestEInvoiceCommands(t *testing.T) {
	dir := t.TempDir()
	code, _, errOut := tillRun(t, dir, "", nil, "shop", "set", "--name", "Sharma Mobiles",
		"--address", "12 FC Road, Pune 411004", "--state", "27", "--gstin", "27AAPFU0939F1ZV")
	require.Equal(t, exitOK, code, errOut)
	setTurnover(t, dir, pos.Paise(12_50_00_000_00))

	code, out, errOut := tillRun(t, dir, "", nil, "checkout", "--items", "ACC-CBL-CC1M", "--pay", "cash",
		"--customer-name", "Reliance Traders", "--customer-address", "12 MG Road, Pune", "--customer-gstin", "27AAACR5055K1Z7")
	require.Equal(t, exitOK, code, errOut)
	co := decodeCheckout(t, out)
	doc := co.DocumentNo
	require.NotEmpty(t, doc)

	code, out, errOut = tillRun(t, dir, "", nil, "einvoice", "pending")
	require.Equal(t, exitOK, code, errOut)
	var pending einvoiceLine
	require.NoError(t, json.Unmarshal([]byte(strings.TrimSpace(out)), &pending), out)
	assert.Equal(t, doc, pending.DocNo)
	assert.Equal(t, "INV", pending.Type)

	code, _, errOut = tillRun(t, dir, "", nil, "einvoice", "register")
	require.Equal(t, exitOK, code, errOut)
	code, out, _ = tillRun(t, dir, "", nil, "einvoice", "pending")
	require.Equal(t, exitOK, code)
	assert.Empty(t, strings.TrimSpace(out))

	code, out, errOut = tillRun(t, dir, "", nil, "einvoice", "status", doc)
	require.Equal(t, exitOK, code, errOut)
	var st einvoiceLine
	require.NoError(t, json.Unmarshal([]byte(strings.TrimSpace(out)), &st), out)
	series := strings.Split(doc, "/")[1] // "2627": the financial year 2026-27
	sum := sha256.Sum256([]byte("27AAPFU0939F1ZV" + "20" + series[:2] + "-" + series[2:] + "INV" + doc))
	irn := hex.EncodeToString(sum[:])
	assert.Equal(t, pos.IRNRegistered, st.Status)
	assert.Equal(t, irn, st.IRN)

	code, receipt, errOut := tillRun(t, dir, "", nil, "receipt", co.MerchantOrderID)
	require.Equal(t, exitOK, code, errOut)
	assert.Contains(t, receipt, "IRN "+irn[:32])
	assert.Contains(t, receipt, irn[32:])
	assert.Contains(t, receipt, "Ack No. "+st.AckNo)

	code, _, errOut = tillRun(t, dir, "", nil, "einvoice", "status", "T1/2627/999999")
	assert.Equal(t, exitBadInput, code)
	assert.Contains(t, errOut, "No document T1/2627/999999 was sent to the IRP")
	code, _, _ = tillRun(t, dir, "", nil, "einvoice", "cancel")
	assert.Equal(t, exitBadInput, code)
}

// setTurnover declares the shop's aggregate turnover in the journal's settings.
func setTurnover(t *testing.T, dir string, turnover pos.Paise) {
	t.Helper()
	j, err := journal.Open(filepath.Join(dir, journalFile), keyed(t, dir, journal.Options{}))
	require.NoError(t, err)
	defer j.Close()
	shop, err := pos.LoadShop(t.Context(), j.Port())
	require.NoError(t, err)
	shop.Turnover = turnover
	raw, err := json.Marshal(shop)
	require.NoError(t, err)
	_, err = j.Log.Append(t.Context(), pos.Event{Kind: pos.EvSettingsChanged, Time: time.Now(), Setting: &pos.Setting{Key: pos.SettingShop, Value: raw}})
	require.NoError(t, err)
}
