package cli

import (
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"galla/gateway/sandbox"
)

// The embedded sandbox keeps its orders in the data directory, so each command,
// a process of its own in real use, finds the orders of the ones before it.
func TestSandboxStateAcrossCommands(t *testing.T) {
	dir := t.TempDir()
	pin := map[string]string{"GALLA_PIN": "432100"}
	code, _, errOut := tillRun(t, dir, "432100\n", nil, "staff", "add", "Meera", "--role", "manager")
	require.Equal(t, exitOK, code, errOut)

	// The pending card: PENDING for sandbox.PendingHold after its OTP, so the sale
	// ends UNKNOWN; a later run's reconciliation settles it.
	pendingCard := strings.Replace(visaJSON, "4111 1111 1111 1111", "4000000000000119", 1)
	code, out, errOut := tillRun(t, dir, pendingCard, pin, "checkout", "--staff", "Meera", "--items", "ACC-CASE-S24", "--pay", "card", "--otp", "123456", "--wait", "1s")
	require.Equal(t, exitUnknown, code, errOut)
	held := time.Now()
	pending := decodeCheckout(t, out)
	require.Equal(t, "UNKNOWN", pending.Status)

	code, out, errOut = tillRun(t, dir, visaJSON, pin, "checkout", "--staff", "Meera", "--items", "ACC-CASE-S24", "--pay", "card", "--otp", "123456")
	require.Equal(t, exitOK, code, errOut)
	paid := decodeCheckout(t, out)
	require.Equal(t, "PAID", paid.Status)

	// Refunds in later runs: the manager's PIN on standard input, then in GALLA_PIN.
	code, out, errOut = tillRun(t, dir, "432100\n", nil, "refund", paid.MerchantOrderID, "--amount", "10000")
	require.Equal(t, exitOK, code, errOut)
	assert.Contains(t, out, `"status":"DONE"`)
	code, out, errOut = tillRun(t, dir, "", map[string]string{"GALLA_PIN": "432100"}, "refund", paid.MerchantOrderID)
	require.Equal(t, exitOK, code, errOut)
	assert.Contains(t, out, `"order_status":"REFUNDED"`)

	state, err := os.ReadFile(filepath.Join(dir, sandboxFile))
	require.NoError(t, err)
	for _, secret := range []string{"4111111111111111", "4000000000000119", `"cvv"`} {
		assert.NotContains(t, string(state), secret)
	}
	if runtime.GOOS != "windows" {
		st, err := os.Stat(filepath.Join(dir, sandboxFile))
		require.NoError(t, err)
		assert.Equal(t, os.FileMode(0o600), st.Mode().Perm())
	}

	// After the hold, a new run's reconciliation finds the payment captured.
	select {
	case <-time.After(time.Until(held.Add(sandbox.PendingHold + time.Second))):
	case <-t.Context().Done():
		t.Fatal(t.Context().Err())
	}
	code, out, errOut = tillRun(t, dir, "", nil, "reconcile")
	require.Equal(t, exitOK, code, "out %q, err %q", out, errOut)
	require.Len(t, pending.Tenders, 1)
	assert.Contains(t, out, pending.Tenders[0].MerchantOrderID, "the payment resolved is the sale's card tender's")
	assert.Contains(t, errOut, "0 still open")
}

func TestDamagedSandboxState(t *testing.T) {
	dir := t.TempDir()
	code, _, errOut := tillRun(t, dir, "", nil, "reconcile") // a journal and the sandbox's state
	require.Equal(t, exitOK, code, errOut)
	path := filepath.Join(dir, sandboxFile)
	damaged := []byte(`{"v":1,"orders":[{"service_order_id":`)
	require.NoError(t, os.WriteFile(path, damaged, 0o600))

	code, out, errOut := tillRun(t, dir, "", nil, "reconcile")
	assert.Equal(t, exitCannotWork, code)
	assert.Empty(t, out)
	assert.Equal(t, 1, strings.Count(strings.TrimSpace(errOut), "\n")+1, "one line: %q", errOut)
	assert.Contains(t, errOut, "the sandbox's state file "+path+" is damaged")
	assert.Contains(t, errOut, "move it away")

	code, _, errOut = runCLI(t, "sandbox", "--state", path, "--listen", "127.0.0.1:0")
	assert.Equal(t, exitFailed, code, "the standalone sandbox refuses it too")
	assert.Contains(t, errOut, path)

	after, err := os.ReadFile(path)
	require.NoError(t, err)
	assert.Equal(t, damaged, after, "the damaged file is left as it was")
}
