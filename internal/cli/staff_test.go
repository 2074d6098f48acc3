package cli

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"galla/pos"
)

// TestStaffCommands runs a member of staff through the manager's commands: a
// cashier locked out by wrong PINs is listed so and unlocked; a disabled one cannot
// sign in until enabled; a reset PIN replaces the old one; the last manager cannot
// be disabled; every change needs a manager's PIN.
func TestStaffCommands(t *testing.T) {
	dir := t.TempDir()
	pin := map[string]string{"GALLA_PIN": "432100"}
	run := func(stdin string, env map[string]string, args ...string) (int, string, string) {
		t.Helper()
		return tillRun(t, dir, stdin, env, append([]string{"staff"}, args...)...)
	}
	code, _, errOut := run("432100\n", nil, "add", "Meera", "--role", "manager")
	require.Equal(t, exitOK, code, errOut)
	code, _, errOut = run("1111\n432100\n", nil, "add", "Ravi", "--role", "cashier")
	require.Equal(t, exitOK, code, errOut)

	signIn := func(name, p string) error {
		t.Helper()
		c := &cli{dataDir: dir, stdin: strings.NewReader(""), stdout: &bytes.Buffer{}, stderr: &bytes.Buffer{}, getenv: func(string) string { return "" }}
		tl, err := openTerminal(c, false)
		require.NoError(t, err)
		defer tl.close()
		_, err = tl.Crew.SignIn(t.Context(), name, p)
		return err
	}
	for range pos.MaxPINAttempts {
		require.Error(t, signIn("Ravi", "0000"))
	}
	assert.ErrorIs(t, signIn("Ravi", "1111"), pos.ErrLocked)
	_, out, _ := run("", nil, "list")
	assert.Contains(t, out, "Ravi\tcashier\tlocked until")

	code, _, _ = run("", map[string]string{"GALLA_PIN": "9999"}, "unlock", "Ravi")
	assert.Equal(t, exitBadInput, code, "a wrong manager PIN unlocks nothing")
	code, _, errOut = run("", pin, "unlock", "Ravi")
	require.Equal(t, exitOK, code, errOut)
	assert.NoError(t, signIn("Ravi", "1111"))

	code, _, errOut = run("", pin, "disable", "ravi")
	require.Equal(t, exitOK, code, errOut)
	assert.ErrorIs(t, signIn("Ravi", "1111"), pos.ErrStaffDisabled)
	_, out, _ = run("", nil, "list")
	assert.Contains(t, out, "Ravi\tcashier\tdisabled")
	code, _, errOut = run("", pin, "disable", "Meera")
	assert.Equal(t, exitBadInput, code)
	assert.Contains(t, errOut, "last manager")

	code, _, errOut = run("2222\n", pin, "reset-pin", "Ravi")
	require.Equal(t, exitOK, code, errOut)
	code, _, errOut = run("", pin, "enable", "Ravi")
	require.Equal(t, exitOK, code, errOut)
	assert.Error(t, signIn("Ravi", "1111"), "the old PIN is gone")
	assert.NoError(t, signIn("Ravi", "2222"))

	code, _, errOut = run("", pin, "unlock", "Nobody")
	assert.Equal(t, exitBadInput, code)
	assert.Contains(t, errOut, "galla staff list")
}

// Once staff exist, a sale on the command line is made by a signed-in member
// (--staff NAME and that member's PIN), and a catalog import needs a manager's
// PIN: a refused attempt records nothing, and the member's name is on the receipt.
func TestCommandLineSalesNeedASignedInMember(t *testing.T) {
	dir := t.TempDir()
	code, _, errOut := tillRun(t, dir, "432100\n", nil, "staff", "add", "Meera", "--role", "manager")
	require.Equal(t, exitOK, code, errOut)
	code, _, errOut = tillRun(t, dir, "2468\n432100\n", nil, "staff", "add", "Ravi", "--role", "cashier")
	require.Equal(t, exitOK, code, errOut)

	code, _, errOut = tillRun(t, dir, "", nil, "checkout", "--items", "ACC-CBL-CC1M", "--pay", "cash")
	assert.Equal(t, exitBadInput, code)
	assert.Contains(t, errOut, "--staff NAME")
	code, _, errOut = tillRun(t, dir, "1357\n", nil, "checkout", "--staff", "Ravi", "--items", "ACC-CBL-CC1M", "--pay", "cash")
	assert.Equal(t, exitBadInput, code)
	assert.Contains(t, errOut, "Wrong PIN")
	code, _, errOut = tillRun(t, dir, visaJSON, nil, "checkout", "--staff", "Ravi", "--items", "ACC-CBL-CC1M", "--pay", "card", "--otp", "123456")
	assert.Equal(t, exitBadInput, code, "the card's JSON is not a PIN")
	assert.Contains(t, errOut, "PIN")
	assertNoCardNumber(t, errOut)
	code, _, errOut = tillRun(t, dir, "2468\n", nil, "checkout", "--staff", "Nobody", "--items", "ACC-CBL-CC1M", "--pay", "cash")
	assert.Equal(t, exitBadInput, code, errOut)

	// The PIN on the first line, the card after it.
	code, out, errOut := tillRun(t, dir, "2468\n"+visaJSON, nil, "checkout", "--staff", "Ravi", "--items", "ACC-CBL-CC1M", "--pay", "card", "--otp", "123456")
	require.Equal(t, exitOK, code, errOut)
	sale := decodeCheckout(t, out)
	assert.Equal(t, uint64(1), sale.ReceiptNo, "the refused attempts recorded no sale")
	code, out, errOut = tillRun(t, dir, "", nil, "receipt", sale.MerchantOrderID)
	require.Equal(t, exitOK, code, errOut)
	assert.Contains(t, out, "Cashier Ravi")

	catalog := filepath.Join(t.TempDir(), "catalog.csv")
	require.NoError(t, os.WriteFile(catalog, []byte("sku,name,price,gst_rate,hsn\nTEA-1,Tea,120.00,5,0902\n"), 0o600))
	code, _, errOut = tillRun(t, dir, "", nil, "catalog", "import", catalog)
	assert.Equal(t, exitBadInput, code)
	assert.Contains(t, errOut, "changes prices")
	code, _, errOut = tillRun(t, dir, "2468\n", nil, "catalog", "import", catalog)
	assert.Equal(t, exitBadInput, code, "a cashier's PIN does not import a catalog: %s", errOut)
	code, out, _ = tillRun(t, dir, "", nil, "catalog", "list")
	require.Equal(t, exitOK, code)
	assert.NotContains(t, out, "TEA-1")
	code, _, errOut = tillRun(t, dir, "432100\n", nil, "catalog", "import", catalog)
	require.Equal(t, exitOK, code, errOut)
	code, out, _ = tillRun(t, dir, "", nil, "catalog", "list")
	require.Equal(t, exitOK, code)
	assert.Contains(t, out, "TEA-1")
}
