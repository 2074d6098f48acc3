package journal

import (
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// everyDay lists every day from first to last.
func everyDay(t *testing.T, first, last string) []string {
	t.Helper()
	a, err := time.Parse("2006-01-02", first)
	require.NoError(t, err)
	b, err := time.Parse("2006-01-02", last)
	require.NoError(t, err)
	var out []string
	for d := a; !d.After(b); d = d.AddDate(0, 0, 1) {
		out = append(out, d.Format("2006-01-02"))
	}
	return out
}

func TestKeptBackups(t *testing.T) {
	// A backup every day from 2022-01-01 to 2026-11-26, closing 2026-11-26.
	days := everyDay(t, "2022-01-01", "2026-11-26")
	keep, prune := keptBackups(days, "2026-11-26")
	assert.Len(t, keep, 14+23+3, "14 days, the 23 month-ends before this month (this month's is the day closed), the financial-year ends of 2022, 2023 and 2024 before those")
	assert.Equal(t, len(days), len(keep)+len(prune))
	kept := func(d string) bool { _, ok := slices.BinarySearch(keep, d); return ok }
	for _, tt := range []struct {
		day  string
		kept bool
		why  string
	}{
		{"2026-11-26", true, "the day closed"},
		{"2026-11-13", true, "the 14th day back"},
		{"2026-11-12", false, "the 15th day back"},
		{"2026-10-31", true, "last month's end"},
		{"2026-10-30", false, "a day of last month, not its end"},
		{"2024-12-31", true, "the 23rd month-end back"},
		{"2024-11-30", false, "the 24th month-end back, beyond the two years (and not a year end)"},
		{"2024-03-31", true, "a financial-year end"},
		{"2023-03-31", true, "a financial-year end"},
		{"2022-03-31", true, "a financial-year end"},
		{"2022-01-31", false, "an old month-end"},
		{"2026-03-31", true, "the last financial-year end (also a month-end)"},
	} {
		assert.Equal(t, tt.kept, kept(tt.day), "%s: %s", tt.day, tt.why)
	}

	// A shop closed on the last days of a month and of a year: the last backup
	// before stands for the month and the year, and a month's only backup is its
	// end.
	sparse := []string{"2025-03-28", "2025-03-29", "2025-04-02", "2025-06-27", "2025-07-01", "2026-11-20", "2026-11-26"}
	keep, prune = keptBackups(sparse, "2026-11-26")
	assert.Equal(t, []string{"2025-03-29", "2025-04-02", "2025-06-27", "2025-07-01", "2026-11-20", "2026-11-26"}, keep)
	assert.Equal(t, []string{"2025-03-28"}, prune)

	// A backup dated after the day being closed (a clock set back) stays.
	keep, prune = keptBackups([]string{"2026-01-01", "2026-01-05"}, "2026-01-02")
	assert.Equal(t, []string{"2026-01-01", "2026-01-05"}, keep)
	assert.Empty(t, prune)
}

func TestPruneBackups(t *testing.T) {
	dir := t.TempDir()
	j, err := Open(filepath.Join(dir, "journal.db"), Options{BackupDir: filepath.Join(dir, "backups")})
	require.NoError(t, err)
	t.Cleanup(func() { _ = j.Close() })
	bdir := filepath.Join(dir, "backups")
	require.NoError(t, os.MkdirAll(bdir, 0o700))
	days := everyDay(t, "2026-09-01", "2026-11-26")
	for _, d := range days {
		require.NoError(t, os.WriteFile(filepath.Join(bdir, "journal-"+d+".db"), make([]byte, 1000), 0o600))
	}
	// Not day backups: never pruned.
	other := []string{"journal-schema4-20260101T000000.db", "notes.txt"}
	for _, name := range other {
		require.NoError(t, os.WriteFile(filepath.Join(bdir, name), make([]byte, 10), 0o600))
	}
	before, err := j.Archive.BackupSpace()
	require.NoError(t, err)
	assert.Equal(t, len(days)+2, before.Files)
	assert.Equal(t, int64(len(days)*1000+20), before.Bytes)

	res, err := j.Archive.PruneBackups("2026-11-26")
	require.NoError(t, err)
	// Kept: 2026-11-13..26 (14), 2026-09-30, 2026-10-31; the rest of the 87 goes.
	assert.Len(t, res.Removed, len(days)-16)
	assert.Equal(t, int64(len(days)-16)*1000, res.Freed)
	assert.Equal(t, 16+2, res.Kept.Files)
	assert.Equal(t, int64(16*1000+20), res.Kept.Bytes)
	left, err := os.ReadDir(bdir)
	require.NoError(t, err)
	var names []string
	for _, e := range left {
		names = append(names, e.Name())
	}
	assert.Contains(t, names, "journal-2026-09-30.db")
	assert.Contains(t, names, "journal-2026-10-31.db")
	assert.Contains(t, names, "journal-2026-11-13.db")
	assert.NotContains(t, names, "journal-2026-11-12.db")
	for _, name := range other {
		assert.Contains(t, names, name)
	}

	// Again: nothing more to remove.
	res, err = j.Archive.PruneBackups("2026-11-26")
	require.NoError(t, err)
	assert.Empty(t, res.Removed)
}
