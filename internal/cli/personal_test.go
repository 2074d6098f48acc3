package cli

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"galla/internal/config"
	"galla/pos"
)

// The buyer of TestPersonalDataSealed: what a copied journal must not show.
var (
	buyerName    = "Asha Rao"
	buyerPhone   = "9845012345"
	buyerAddress = "12 MG Road, Bengaluru"
	buyerGSTIN   = "29AAPFU0939F1ZR"
)

// personalLeaks lists which of the buyer's details are in data.
func personalLeaks(data []byte) []string {
	var found []string
	for _, s := range []string{buyerName, buyerPhone, "98450 12345", "12 MG Road", buyerGSTIN} {
		if bytes.Contains(data, []byte(s)) {
			found = append(found, s)
		}
	}
	return found
}

// TestPersonalDataSealed sells to a registered buyer with a name, phone,
// address and GSTIN on the command line, remembers the same customer through
// the till (the customer record the window keeps), and copies journal.db: its
// raw bytes hold none of the buyer's details. The copy in a data directory
// without the terminal's journal key is refused with a sentence naming the key
// (exit 5), and is left byte for byte as it was; with the key the invoice and
// the customer read as they were written.
func TestPersonalDataSealed(t *testing.T) {
	dir := t.TempDir()
	code, _, errOut := tillRun(t, dir, "", nil, "shop", "set", "--name", "Sharma Mobiles",
		"--address", "12 FC Road, Pune 411004", "--state", "27", "--gstin", "27AAPFU0939F1ZV")
	require.Equal(t, exitOK, code, errOut)
	code, out, errOut := tillRun(t, dir, "", nil, "checkout", "--items", "TV-SONY-X80L55", "--pay", "cash",
		"--customer-name", buyerName, "--customer-phone", "98450 12345", "--customer-address", buyerAddress, "--customer-gstin", buyerGSTIN)
	require.Equal(t, exitOK, code, errOut)
	id := decodeCheckout(t, out).MerchantOrderID
	code, invoice, errOut := tillRun(t, dir, "", nil, "receipt", id)
	require.Equal(t, exitOK, code, errOut)
	require.Contains(t, invoice, buyerName, "the invoice names the buyer")
	require.Contains(t, invoice, buyerGSTIN)

	buyer := pos.Buyer{Name: buyerName, Phone: buyerPhone, Address: buyerAddress, GSTIN: buyerGSTIN}
	c := &cli{dataDir: dir, stdin: strings.NewReader(""), stdout: &bytes.Buffer{}, stderr: &bytes.Buffer{}, getenv: func(string) string { return "" }}
	tl, err := openTerminal(c, false)
	require.NoError(t, err)
	require.NoError(t, tl.Customers.RememberBuyer(t.Context(), "", buyer))
	tl.close()

	raw, err := os.ReadFile(filepath.Join(dir, journalFile))
	require.NoError(t, err)
	assert.Empty(t, personalLeaks(raw), "the buyer's details in a copy of journal.db")
	require.NotEmpty(t, personalLeaks([]byte(invoice)), "the scan finds the details where they are in clear")

	// The copy, without the keyring of its data directory.
	other := t.TempDir()
	copied := filepath.Join(other, journalFile)
	require.NoError(t, os.WriteFile(copied, raw, 0o600))
	code, _, errOut = tillRun(t, other, "", nil, "receipt", id)
	assert.Equal(t, exitCannotWork, code, errOut)
	assert.Contains(t, errOut, "customers' details")
	assert.Contains(t, errOut, "journal-key")
	assert.Empty(t, personalLeaks([]byte(errOut)))
	after, err := os.ReadFile(copied)
	require.NoError(t, err)
	assert.True(t, bytes.Equal(raw, after), "the refused copy is left as it was")

	// With the key, everything reads as it was written.
	code, again, errOut := tillRun(t, dir, "", nil, "receipt", id)
	require.Equal(t, exitOK, code, errOut)
	assert.Equal(t, invoice, again)
	tl, err = openTerminal(c, false)
	require.NoError(t, err)
	defer tl.close()
	got, ok, err := tl.Customers.FindBuyer(t.Context(), "+91 98450 12345")
	require.NoError(t, err)
	require.True(t, ok, "the customer is found by phone")
	assert.Equal(t, buyer.Normal(), got)
}

// deafKeyring is a system keyring that does not answer (a headless Linux
// without Secret Service).
type deafKeyring struct{}

func (deafKeyring) Set(string, string, string) error { return errors.New("no keyring") }

func (deafKeyring) Get(string, string) (string, error) { return "", errors.New("no keyring") }

// TestNoKeyringSaysSoAtEveryStart: where the system keyring does not answer,
// every command says in one line that the secrets, and the key that seals the
// customers' details, are in secrets.json, and Settings says the same.
func TestNoKeyringSaysSoAtEveryStart(t *testing.T) {
	dir := t.TempDir()
	run := func(args ...string) (int, string) {
		var out, errOut bytes.Buffer
		c := &cli{stdin: strings.NewReader(""), stdout: &out, stderr: &errOut, getenv: func(string) string { return "" }, keyring: deafKeyring{}}
		return c.main(append([]string{"--data", dir}, args...)), errOut.String()
	}
	for _, args := range [][]string{{"report"}, {"journal", "verify"}} {
		code, errOut := run(args...)
		require.Equal(t, exitOK, code, errOut)
		assert.Equal(t, 1, strings.Count(errOut, "No system keyring answers"), "%v: %q", args, errOut)
		assert.Contains(t, errOut, filepath.Join(dir, "secrets.json"))
		assert.Contains(t, errOut, "customers' details")
	}
	sec := config.OpenSecrets(dir, deafKeyring{})
	assert.Equal(t, sec.NoKeyring(), config.NewStore(dir, config.Config{}, sec).ServiceSettings().SecretsWhere, "Settings says the same")
}
