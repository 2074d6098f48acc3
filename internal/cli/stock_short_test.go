package cli

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestCheckoutWarnsBelowZero: once stock is kept, a checkout that takes an
// item not serialised below what is on hand is warned of and goes on; the
// stock list shows the quantity below zero. A checkout within stock is not
// warned of.
func TestCheckoutWarnsBelowZero(t *testing.T) {
	dir := t.TempDir()
	pin := map[string]string{"GALLA_PIN": "432100"}
	run := func(env map[string]string, args ...string) (int, string, string) {
		t.Helper()
		return tillRun(t, dir, "", env, args...)
	}
	code, _, errOut := tillRun(t, dir, "432100\n", nil, "staff", "add", "Meera", "--role", "manager")
	require.Equal(t, exitOK, code, errOut)
	code, _, errOut = run(pin, "stock", "receive", "--supplier", "Sai", "--invoice", "SD/1", "--date", "2026-01-05", "--items", "ACC-CBL-CC1M:2@9000")
	require.Equal(t, exitOK, code, errOut)

	code, _, errOut = run(pin, "checkout", "--staff", "Meera", "--items", "ACC-CBL-CC1M:2", "--pay", "cash")
	require.Equal(t, exitOK, code, errOut)
	assert.NotContains(t, errOut, "below zero", "within stock")
	code, _, errOut = run(pin, "checkout", "--staff", "Meera", "--items", "ACC-CBL-CC1M:1", "--pay", "cash")
	require.Equal(t, exitOK, code, "warned, not refused: %s", errOut)
	assert.Contains(t, errOut, "Stock: ACC-CBL-CC1M is not on hand in that quantity; the sale goes on and takes its stock below zero")

	code, out, errOut := run(nil, "stock", "list", "--format", "json")
	require.Equal(t, exitOK, code, errOut)
	var s stockJSON
	require.NoError(t, json.Unmarshal([]byte(out), &s), out)
	require.Len(t, s.Items, 1)
	assert.Equal(t, int64(-1), s.Items[0].OnHand)
}
