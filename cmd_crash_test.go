package main

import (
	"bytes"
	"os"
	"path/filepath"
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
