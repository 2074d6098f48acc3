package journal

import (
	"fmt"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"galla/pos"
)

// TestOpenErrorsSpeakToTheCashier checks that the two ways a journal cannot be
// opened reach the screen as their own sentences, not as pos's generic one.
func TestOpenErrorsSpeakToTheCashier(t *testing.T) {
	path := filepath.Join(t.TempDir(), "journal.db")
	j, err := Open(path, Options{})
	require.NoError(t, err)
	defer j.Close()
	_, err = Open(path, Options{LockTimeout: 50e6})
	require.ErrorIs(t, err, ErrAlreadyRunning)
	got := pos.Sentence(fmt.Errorf("main: open: %w", err))
	assert.NotEqual(t, pos.GenericSentence, got)
	assert.Contains(t, got, "Galla is already running on this data directory")

	c := &CorruptError{Path: path, Seq: 7, Reason: "hash chain broken", Backup: "/data/backups/journal-2026-11-21.db"}
	got = pos.Sentence(fmt.Errorf("open: %w", c))
	assert.Equal(t, "The journal "+path+" is damaged at event 7 (hash chain broken), so Galla will not take payments from it. The last backup is /data/backups/journal-2026-11-21.db: close Galla and run \"galla journal salvage "+path+" --backup /data/backups/journal-2026-11-21.db --out NEW\" to keep the sales after it too, or \"galla journal restore /data/backups/journal-2026-11-21.db\"; the damaged file is kept aside. A salvaged journal is put in place with \"galla journal restore NEW\" (a manager's PIN).", got)
	c.Backup = ""
	assert.Contains(t, pos.Sentence(c), "No backup was found")
}
