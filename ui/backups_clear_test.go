package ui

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"galla/pos"
)

// TestSettingsNamesTheBackupsInClear: Settings' Backups line names the
// backups that hold customers' details in clear after the space and the
// keeping rule, and is as before without one.
func TestSettingsNamesTheBackupsInClear(t *testing.T) {
	space := pos.BackupSpace{Files: 3, Bytes: 3000}
	assert.Equal(t, "3 files, 3.0 kB (14 days, 24 month-ends, year ends)", backupsText(space, true, nil))
	space.Clear = []string{"journal-2026-03-31.db"}
	assert.Equal(t, "3 files, 3.0 kB (14 days, 24 month-ends, year ends). The backup journal-2026-03-31.db was made before the customers' details were sealed and holds them in clear: a manager seals it with galla journal seal-backups (docs/security.md).",
		backupsText(space, true, nil))
}
