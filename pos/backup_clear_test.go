package pos

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

// TestBackupSpaceNamesTheBackupsInClear: the Z report's line of the backups
// (BackupPrune.Line), and Settings' through ClearText, name the copies that
// hold customers' details in clear (made before they were sealed) and say
// what to do; without one the line is as before.
func TestBackupSpaceNamesTheBackupsInClear(t *testing.T) {
	const advice = " made before the customers' details were sealed and "
	tests := []struct {
		s     BackupSpace
		clear string
	}{
		{BackupSpace{Files: 17, Bytes: 4_200_000_000}, ""},
		{BackupSpace{Files: 2, Bytes: 2000, Clear: []string{"journal-2026-03-31.db"}},
			"The backup journal-2026-03-31.db was" + advice + "holds them in clear: a manager seals it with galla journal seal-backups (docs/security.md)."},
		{BackupSpace{Files: 20, Bytes: 2000, Clear: []string{"journal-2025-03-31.db", "journal-2026-02-28.db", "journal-2026-03-31.db", "journal-schema4-before-upgrade-20261125.db"}},
			"4 backups (journal-2025-03-31.db, journal-2026-02-28.db, journal-2026-03-31.db and 1 more) were" + advice + "hold them in clear: a manager seals them with galla journal seal-backups (docs/security.md)."},
	}
	for _, tt := range tests {
		assert.Equal(t, tt.clear, tt.s.ClearText())
		assert.NotContains(t, tt.s.String(), "clear", "the space alone")
	}
	assert.Equal(t, "Backups kept: 17 files, 4.2 GB.", BackupPrune{Kept: tests[0].s}.Line())
	assert.Equal(t, "Backups kept: 2 files, 2.0 kB. "+tests[1].clear, BackupPrune{Kept: tests[1].s}.Line())
	assert.Equal(t, "Backups: 1 old copy removed by the keeping rule (1.5 MB freed); kept 20 files, 2.0 kB. "+tests[2].clear,
		BackupPrune{Removed: []string{"journal-2026-01-01.db"}, Freed: 1_500_000, Kept: tests[2].s}.Line())
}
