package cli

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"galla/internal/config"
	"galla/pos/journal"
)

// TestMissingJournalStopsTheTerminal removes the journal of a used data directory:
// every command refuses with exit 5 and one sentence naming the commands that
// bring it back, and no new journal (numbering receipts from 1 again) is made.
func TestMissingJournalStopsTheTerminal(t *testing.T) {
	dir := t.TempDir()
	code, _, errOut := tillRun(t, dir, "", nil, "checkout", "--items", "ACC-CBL-CC1M", "--pay", "cash")
	require.Equal(t, exitOK, code, errOut)
	path := filepath.Join(dir, journalFile)

	for _, damage := range []struct {
		name string
		do   func()
	}{
		{"missing", func() { require.NoError(t, os.Remove(path)) }},
		{"empty", func() { require.NoError(t, os.WriteFile(path, nil, 0o600)) }},
		{"cut short", func() { require.NoError(t, os.WriteFile(path, make([]byte, 100), 0o600)) }},
	} {
		t.Run(damage.name, func(t *testing.T) {
			damage.do()
			before, _ := os.ReadFile(path)
			for _, args := range [][]string{{"checkout", "--items", "ACC-CBL-CC1M", "--pay", "cash"}, {"report"}, {"reconcile"}, {"receipt", "X"}} {
				code, out, errOut := tillRun(t, dir, "", nil, args...)
				assert.Equal(t, exitCannotWork, code, "%v: %s", args, errOut)
				assert.Empty(t, out, args)
				assert.Equal(t, 1, strings.Count(strings.TrimSpace(errOut), "\n")+1, "one sentence: %q", errOut)
				assert.Contains(t, errOut, "\"galla journal ", args) // restore or salvage
				assert.NotContains(t, errOut, "goroutine", "no stack trace")
			}
			after, _ := os.ReadFile(path)
			assert.Equal(t, before, after, "no new journal is made in its place")
		})
	}
}

// TestJournalCommands verifies a journal, restores a backup after the journal is
// lost, and finds that the receipt numbers handed out after the backup are never
// handed out again; the restored journal closes its day (the derived records
// match the events).
func TestJournalCommands(t *testing.T) {
	dir := t.TempDir()
	pin := map[string]string{"GALLA_PIN": "432100"}
	code, _, errOut := tillRun(t, dir, "432100\n", nil, "staff", "add", "Meera", "--role", "manager")
	require.Equal(t, exitOK, code, errOut)
	code, out, errOut := tillRun(t, dir, "", pin, "checkout", "--staff", "Meera", "--items", "ACC-CBL-CC1M", "--pay", "cash")
	require.Equal(t, exitOK, code, errOut)
	assert.Equal(t, uint64(1), decodeCheckout(t, out).ReceiptNo)

	code, out, errOut = tillRun(t, dir, "", nil, "journal", "verify")
	require.Equal(t, exitOK, code, errOut)
	assert.Contains(t, out, "verified")

	backup := filepath.Join(t.TempDir(), "journal-backup.db")
	j, err := journal.Open(filepath.Join(dir, journalFile), keyed(t, dir, journal.Options{}))
	require.NoError(t, err)
	require.NoError(t, j.Archive.BackupTo(backup))
	require.NoError(t, j.Close())

	// A sale after the backup (receipt 2), then the journal is lost.
	code, out, errOut = tillRun(t, dir, "", pin, "checkout", "--staff", "Meera", "--items", "ACC-CBL-CC1M", "--pay", "cash")
	require.Equal(t, exitOK, code, errOut)
	assert.Equal(t, uint64(2), decodeCheckout(t, out).ReceiptNo)
	require.NoError(t, os.Remove(filepath.Join(dir, journalFile)))

	code, _, errOut = tillRun(t, dir, "", nil, "journal", "restore", backup)
	require.Equal(t, exitOK, code, errOut)
	code, _, errOut = tillRun(t, dir, "", nil, "journal", "verify")
	require.Equal(t, exitOK, code, errOut)
	code, out, errOut = tillRun(t, dir, "", pin, "checkout", "--staff", "Meera", "--items", "ACC-CBL-CC1M", "--pay", "cash")
	require.Equal(t, exitOK, code, errOut)
	assert.Equal(t, uint64(3), decodeCheckout(t, out).ReceiptNo, "receipt 2 was handed out before the restore: never again")
	code, _, errOut = tillRun(t, dir, "", pin, "close-day")
	require.Equal(t, exitOK, code, errOut)

	code, _, errOut = tillRun(t, dir, "", nil, "journal", "salvage", filepath.Join(dir, "nope.db"), "--out", filepath.Join(dir, "new.db"))
	assert.NotEqual(t, exitOK, code)
	assert.NotContains(t, errOut, "goroutine")
	code, _, errOut = tillRun(t, dir, "", nil, "journal", "frobnicate")
	assert.Equal(t, exitBadInput, code, errOut)
}

// TestZReportCarriesTheJournalSeal closes a day: the Z report prints the
// journal's seal of it, and the report read back later prints the same seal.
func TestZReportCarriesTheJournalSeal(t *testing.T) {
	dir := t.TempDir()
	pin := map[string]string{"GALLA_PIN": "432100"}
	code, _, errOut := tillRun(t, dir, "432100\n", nil, "staff", "add", "Meera", "--role", "manager")
	require.Equal(t, exitOK, code, errOut)
	code, _, errOut = tillRun(t, dir, "", pin, "checkout", "--staff", "Meera", "--items", "ACC-CBL-CC1M", "--pay", "cash")
	require.Equal(t, exitOK, code, errOut)
	code, out, errOut := tillRun(t, dir, "", pin, "close-day")
	require.Equal(t, exitOK, code, errOut)
	seal := regexp.MustCompile(`Journal seal ([0-9a-f]{64})`).FindStringSubmatch(out)
	require.NotNil(t, seal, "the Z report prints its seal: %s", out)
	code, again, errOut := tillRun(t, dir, "", nil, "report")
	require.Equal(t, exitOK, code, errOut)
	assert.Contains(t, again, "Journal seal "+seal[1])
}

// keyed is o with the chain key of the terminal of dataDir (the tests keep their
// secrets in the data directory's file): the journal opens as the terminal opens it.
func keyed(t testing.TB, dataDir string, o journal.Options) journal.Options {
	t.Helper()
	key, err := config.OpenSecrets(dataDir, nil).Key(config.SecretJournalKey, 32)
	require.NoError(t, err)
	o.ChainKey = key
	return o
}
