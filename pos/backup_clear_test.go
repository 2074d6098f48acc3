package pos

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

// TestBackupSpaceNamesTheBackupsInClear: Settings' line of the backups, and
// the Z report's through BackupPrune.Line, name the copies that hold
// customers' details in clear (made before they were sealed) and say what to
// do; without one the line is as before.
func TestBackupSpaceNamesTheBackupsInClear(t *testing.T) {
	const advice = " made before the customers' details were sealed and "
	tests := []struct {
		s    BackupSpace
		want string
	}{
		{BackupSpace{Files: 17, Bytes: 4_200_000_000}, "17 files, 4.2 GB"},
		{BackupSpace{Files: 2, Bytes: 2000, Clear: []string{"journal-2026-03-31.db"}},
			"2 files, 2.0 kB; journal-2026-03-31.db was" + advice + "holds them in clear: keep it off this computer, or delete it (docs/security.md)"},
		{BackupSpace{Files: 20, Bytes: 2000, Clear: []string{"journal-2025-03-31.db", "journal-2026-02-28.db", "journal-2026-03-31.db", "journal-schema4-before-upgrade-20261125.db"}},
			"20 files, 2.0 kB; 4 of them (journal-2025-03-31.db, journal-2026-02-28.db, journal-2026-03-31.db and 1 more) were" + advice + "hold them in clear: keep them off this computer, or delete them (docs/security.md)"},
	}
	for _, tt := range tests {
		assert.Equal(t, tt.want, tt.s.String())
	}
	p := BackupPrune{Kept: tests[1].s}
	assert.Equal(t, "Backups kept: "+tests[1].want+".", p.Line())
}
