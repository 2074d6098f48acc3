package cli

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// fyneAppVersion reads the version out of FyneApp.toml by a pattern of the
// test's own, not by the code under test.
func fyneAppVersion(t *testing.T) string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("..", "..", "FyneApp.toml"))
	require.NoError(t, err)
	m := regexp.MustCompile(`(?m)^\s*Version\s*=\s*"([0-9]+\.[0-9]+\.[0-9]+)"`).FindSubmatch(data)
	require.NotNil(t, m, "FyneApp.toml has a Version")
	return string(m[1])
}

func TestVersionFlag(t *testing.T) {
	want := fyneAppVersion(t)
	dir := t.TempDir()
	code, out, errs := runGalla(t, "--data", dir, "--version")
	require.Equal(t, exitOK, code, errs)
	assert.Equal(t, "Galla "+want, strings.SplitN(out, "\n", 2)[0])
	assert.Contains(t, out, "\ncommit:         ")
	assert.Contains(t, out, "\nbuilt:          ")
	assert.Contains(t, out, "\njournal schema: 9\n")
	assert.Contains(t, out, "\ndata directory: "+dir+" (set by --data)\n")
	_, err := os.Stat(filepath.Join(dir, journalFile))
	assert.ErrorIs(t, err, os.ErrNotExist, "--version opens no journal")

	var sb strings.Builder
	c := &cli{stdout: &sb, stderr: &sb, stdin: strings.NewReader(""),
		getenv: func(k string) string { return map[string]string{"GALLA_DATA": "/srv/galla"}[k] }}
	require.Equal(t, exitOK, c.main([]string{"--version"}))
	assert.Contains(t, sb.String(), "\ndata directory: /srv/galla (set by GALLA_DATA)\n")
}

func TestChooseDataDir(t *testing.T) {
	home := t.TempDir()
	withJournal := func(dir string) {
		require.NoError(t, os.MkdirAll(dir, 0o700))
		require.NoError(t, os.WriteFile(filepath.Join(dir, journalFile), []byte("x"), 0o600))
	}
	env := func(kv ...string) func(string) string {
		m := map[string]string{}
		for i := 0; i+1 < len(kv); i += 2 {
			m[kv[i]] = kv[i+1]
		}
		return func(k string) string { return m[k] }
	}
	tests := []struct {
		name    string
		goos    string
		getenv  func(string) string
		setup   func()
		want    string
		whyPart string
	}{
		{"linux default", "linux", env("HOME", home), nil, home + "/.local/share/galla", "default"},
		{"linux XDG_DATA_HOME", "linux", env("HOME", home, "XDG_DATA_HOME", home+"/xdg"), nil, home + "/xdg/galla", "default"},
		{"linux relative XDG_DATA_HOME is ignored", "linux", env("HOME", home, "XDG_DATA_HOME", "rel"), nil, home + "/.local/share/galla", "default"},
		{"GALLA_DATA wins", "linux", env("HOME", home, "GALLA_DATA", "/srv/g"), nil, "/srv/g", "GALLA_DATA"},
		{"linux upgrade keeps the old journal", "linux", env("HOME", home+"/up"), func() { withJournal(home + "/up/.config/galla") },
			home + "/up/.config/galla", "earlier Galla"},
		{"linux both hold one: the new place", "linux", env("HOME", home+"/both"), func() {
			withJournal(home + "/both/.config/galla")
			withJournal(home + "/both/.local/share/galla")
		}, home + "/both/.local/share/galla", "default"},
		{"windows local AppData", "windows", env("LOCALAPPDATA", `C:\Users\a\AppData\Local`, "APPDATA", `C:\Users\a\AppData\Roaming`), nil,
			filepath.Join(`C:\Users\a\AppData\Local`, "Galla"), "default"},
		{"windows upgrade keeps the roaming AppData journal", "windows", env("LOCALAPPDATA", home+"/win/Local", "APPDATA", home+"/win/Roaming"),
			func() { withJournal(home + "/win/Roaming/galla") }, home + "/win/Roaming/galla", "earlier Galla"},
		{"macOS Application Support", "darwin", env("HOME", "/Users/a"), nil, "/Users/a/Library/Application Support/galla", "default"},
		{"no home", "linux", env(), nil, "galla-data", "current directory"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if tt.setup != nil {
				tt.setup()
			}
			got := chooseDataDir(tt.goos, tt.getenv)
			assert.Equal(t, tt.want, got.dir)
			assert.Contains(t, got.why, tt.whyPart)
		})
	}
}

// copyJournalFixture puts one of pos/journal's committed fixtures in a fresh
// data directory as its journal.
func copyJournalFixture(t *testing.T, name string) string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("..", "..", "pos", "journal", "testdata", name))
	require.NoError(t, err)
	dir := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(dir, journalFile), data, 0o600))
	return dir
}

// TestNewerJournalRefused: a journal written by a newer Galla is refused with
// exit 5 and a sentence naming both versions; nothing is written.
func TestNewerJournalRefused(t *testing.T) {
	dir := copyJournalFixture(t, "journal-schema10.db")
	before, err := os.ReadFile(filepath.Join(dir, journalFile))
	require.NoError(t, err)
	code, _, errs := runGalla(t, "--data", dir, "report", "--day", "2026-11-21")
	assert.Equal(t, exitCannotWork, code, errs)
	assert.Contains(t, errs, "Galla 0.2.0 (journal schema 10)")
	assert.Contains(t, errs, "This is Galla "+fyneAppVersion(t)+", which reads journal schema 9 at most")
	after, err := os.ReadFile(filepath.Join(dir, journalFile))
	require.NoError(t, err)
	assert.Equal(t, before, after, "the journal is untouched")
}

// TestOlderJournalMigrated: the previous schema's journal opens, its sales
// stay, and a checked copy of it is kept in backups/ before the migration.
func TestOlderJournalMigrated(t *testing.T) {
	dir := copyJournalFixture(t, "journal-schema2.db")
	code, out, errs := runGalla(t, "--data", dir, "report", "--day", "2026-11-22", "--format", "csv")
	require.Equal(t, exitOK, code, errs)
	assert.Contains(t, out, "G-0005", "the card sale of the old journal")
	backups, err := filepath.Glob(filepath.Join(dir, "backups", "journal-schema2-before-upgrade-*.db"))
	require.NoError(t, err)
	assert.Len(t, backups, 1, "one copy before the migration")

	code, _, errs = runGalla(t, "--data", dir, "report", "--day", "2026-11-22")
	require.Equal(t, exitOK, code, errs)
	again, err := filepath.Glob(filepath.Join(dir, "backups", "journal-schema2-*.db"))
	require.NoError(t, err)
	assert.Equal(t, backups, again, "migrated once")
}
