package cli

import (
	"bytes"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestCrashIsASentenceAndAReport makes a command panic with a card number in its
// message: the user reads one sentence with exit 5 and no stack trace; the crash
// report in the data directory has the stack and not the card number.
func TestCrashIsASentenceAndAReport(t *testing.T) {
	dir := t.TempDir()
	var out, errOut bytes.Buffer
	c := &cli{stdin: strings.NewReader(""), stdout: &out, stderr: &errOut, getenv: func(string) string { return "" },
		extra: map[string]command{"boom": {"galla boom", func(*cli, []string) int {
			panic("card 4111111111111111 was not expected here")
		}}}}
	code := c.guarded([]string{"--data", dir, "boom"})
	assert.Equal(t, exitCannotWork, code)
	msg := errOut.String()
	assert.Equal(t, 1, strings.Count(strings.TrimSpace(msg), "\n")+1, "one sentence: %q", msg)
	assert.NotContains(t, msg, "goroutine")
	assert.NotContains(t, msg, "panic")
	assert.Contains(t, msg, "galla reconcile")
	reports, err := filepath.Glob(filepath.Join(dir, "crash-*.txt"))
	require.NoError(t, err)
	require.Len(t, reports, 1)
	assert.Contains(t, msg, reports[0])
	body, err := os.ReadFile(reports[0])
	require.NoError(t, err)
	assert.Contains(t, string(body), "goroutine", "the report has the stack")
	assert.Contains(t, string(body), "1111", "the last four stay")
	assert.NotContains(t, string(body), "411111111111", "the card number does not")
}

// TestAlreadyRunningExitsFive holds the journal as a running window does: a
// command says so in one sentence and exits 5, not 1 like a declined card.
func TestAlreadyRunningExitsFive(t *testing.T) {
	dir := t.TempDir()
	code, _, errOut := tillRun(t, dir, "", nil, "reconcile")
	require.Equal(t, exitOK, code, errOut)
	till := &cli{dataDir: dir, stdin: strings.NewReader(""), stdout: &bytes.Buffer{}, stderr: &bytes.Buffer{}, getenv: func(string) string { return "" }}
	_, closeAll, err := openWindowTill(till)
	require.NoError(t, err)
	t.Cleanup(closeAll)

	code, out, errOut := tillRun(t, dir, "", nil, "checkout", "--items", "ACC-CBL-CC1M", "--pay", "cash")
	assert.Equal(t, exitCannotWork, code)
	assert.Empty(t, out)
	assert.Contains(t, errOut, "Galla is already running on this data directory")
}

// unread is a standard input that must not be read.
type unread struct{ t *testing.T }

func (u unread) Read([]byte) (int, error) {
	u.t.Error("the card was read although the service's address is refused")
	return 0, io.EOF
}

// TestForgedGatewayURLBeforeCard puts a plain-http collector in config.json: a card
// checkout refuses with exit 5 before it reads the card from standard input.
func TestForgedGatewayURLBeforeCard(t *testing.T) {
	dir := t.TempDir()
	cfg := `{"gateway":{"base_url":"http://collector.example/api","merchant_id":"1","access_code":"a","secret":"` + strings.Repeat("ab", 32) + `"}}`
	require.NoError(t, os.WriteFile(filepath.Join(dir, configFile), []byte(cfg), 0o600))
	var out, errOut bytes.Buffer
	c := &cli{stdin: unread{t}, stdout: &out, stderr: &errOut, getenv: func(string) string { return "" }}
	code := c.main([]string{"--data", dir, "checkout", "--items", "ACC-CBL-CC1M", "--pay", "card", "--otp", "123456"})
	assert.Equal(t, exitCannotWork, code)
	assert.Contains(t, errOut.String(), "https://")
	assert.Empty(t, out.String())
}

// TestNoCoreDumps checks that the process's core file limit is 0 after
// noCoreDumps, on systems that have one.
func TestNoCoreDumps(t *testing.T) {
	if runtime.GOOS == "windows" {
		return // no core files of its own
	}
	require.NoError(t, noCoreDumps())
	out, err := exec.Command("sh", "-c", "ulimit -c").Output()
	require.NoError(t, err)
	assert.Equal(t, "0", strings.TrimSpace(string(out)), "a child inherits the limit")
}

// TestSandboxSaleSaysSo sells on the embedded sandbox: the checkout says which
// service took it, the journal records it, and the receipt says SANDBOX — NOT A
// VALID TAX DOCUMENT.
func TestSandboxSaleSaysSo(t *testing.T) {
	dir := t.TempDir()
	code, out, errOut := tillRun(t, dir, visaJSON, nil, "checkout", "--items", "ACC-CASE-S24", "--pay", "card", "--otp", "123456")
	require.Equal(t, exitOK, code, errOut)
	co := decodeCheckout(t, out)
	assert.Equal(t, "sandbox", co.Gateway)
	code, receipt, errOut := tillRun(t, dir, "", nil, "receipt", co.MerchantOrderID)
	require.Equal(t, exitOK, code, errOut)
	assert.Contains(t, receipt, "SANDBOX — NOT A VALID TAX DOCUMENT")
}

// TestForgedGatewayURLBeforePayAgain: galla pay refuses a plain-http service too,
// before it reads the card.
func TestForgedGatewayURLBeforePayAgain(t *testing.T) {
	dir := t.TempDir()
	cfg := `{"gateway":{"base_url":"http://collector.example/api","merchant_id":"1"}}`
	require.NoError(t, os.WriteFile(filepath.Join(dir, configFile), []byte(cfg), 0o600))
	var out, errOut bytes.Buffer
	c := &cli{stdin: unread{t}, stdout: &out, stderr: &errOut, getenv: func(string) string { return "" }}
	code := c.main([]string{"--data", dir, "pay", "T1-ANY"})
	assert.Equal(t, exitCannotWork, code)
	assert.Contains(t, errOut.String(), "https://")
}
