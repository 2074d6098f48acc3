package pos

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// keepingBackups is a Backuper that keeps its backups by a rule (BackupKeeper):
// it records the day it was asked to prune from and answers with prune.
type keepingBackups struct {
	prune    BackupPrune
	prunedAt string
}

func (k *keepingBackups) BackupDay(day string) (string, error) {
	return "/data/backups/journal-" + day + ".db", nil
}

func (k *keepingBackups) PruneBackups(day string) (BackupPrune, error) {
	k.prunedAt = day
	return k.prune, nil
}

func (k *keepingBackups) BackupSpace() (BackupSpace, error) { return k.prune.Kept, nil }

// TestCloseDayPrunesBackups: day close prunes the backups by the keeping rule
// from the day it closes, and the Z report's note says what went and what is
// kept; Settings reads the space through Books.BackupSpace.
func TestCloseDayPrunesBackups(t *testing.T) {
	r := newRig(t)
	k := &keepingBackups{prune: BackupPrune{
		Removed: []string{"journal-2026-10-01.db", "journal-2026-10-02.db"},
		Freed:   2_400_000_000,
		Kept:    BackupSpace{Files: 17, Bytes: 20_400_000_000},
	}}
	tl, err := NewTill(t.Context(), TillConfig{Engine: r.e, SampleCatalog: catalogJSON(t), Backups: k})
	require.NoError(t, err)
	res, err := tl.Books.CloseDay(t.Context(), CloseDayRequest{PIN: managerPIN})
	require.NoError(t, err)
	assert.Equal(t, res.Report.Day, k.prunedAt, "pruned from the day closed")
	const line = "Backups: 2 old copies removed by the keeping rule (2.4 GB freed); kept 17 files, 20.4 GB."
	assert.Contains(t, res.Note, line)
	assert.Contains(t, tl.Books.ZText(t.Context(), res), line, "the Z report as shown carries the line")

	space, ok, err := tl.Books.BackupSpace()
	require.NoError(t, err)
	assert.True(t, ok)
	assert.Equal(t, "17 files, 20.4 GB", space.String())
}

func TestBackupPruneLine(t *testing.T) {
	tests := []struct {
		p    BackupPrune
		want string
	}{
		{BackupPrune{Kept: BackupSpace{Files: 1, Bytes: 900}}, "Backups kept: 1 file, 900 B."},
		{BackupPrune{Removed: []string{"journal-2026-01-01.db"}, Freed: 1_500_000, Kept: BackupSpace{Files: 14, Bytes: 21_000_000}},
			"Backups: 1 old copy removed by the keeping rule (1.5 MB freed); kept 14 files, 21.0 MB."},
		{BackupPrune{Kept: BackupSpace{Files: 3, Bytes: 3_000_000}, Discarded: []string{"its state is missing"}},
			"Backups kept: 3 files, 3.0 MB. The next base being built from the backups was discarded: its state is missing; the day's backup was written without it, and it is started again when due (backups.log)."},
	}
	for _, tt := range tests {
		assert.Equal(t, tt.want, tt.p.Line())
	}
	for n, want := range map[int64]string{0: "0 B", 999: "999 B", 1000: "1.0 kB", 1_234_567: "1.2 MB", 850_000_000: "850.0 MB", 3_000_000_000_000: "3.0 TB"} {
		assert.Equal(t, want, SizeText(n), "SizeText(%d)", n)
	}
}
