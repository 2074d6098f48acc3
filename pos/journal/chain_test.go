package journal

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"galla/pos"
)

// chainDays backs up days 2026-12-FROM..TO of days of 3 sales on the
// journal j (script s), one close-day each, and returns each day's backup
// with the journal's full copy of the same moment.
func chainDays(t *testing.T, j *Journal, s *script, from, to int) ([]string, map[string][]byte) {
	t.Helper()
	var paths []string
	copies := map[string][]byte{}
	for d := from; d <= to; d++ {
		day := fmt.Sprintf("2026-12-%02d", d)
		appendAll(t, j, s.busyDay(day, 3, uint64(30+d)))
		path, err := j.Archive.BackupDay(day)
		require.NoError(t, err)
		copies[path] = copyNow(t, j)
		require.NoError(t, j.Archive.VerifyBackup(t.Context(), path))
		paths = append(paths, path)
	}
	return paths, copies
}

// TestBackupChain: each day's increment after the first holds only the pages
// that differ from the day before's copy, continuing its increment, and lists
// every page that differs from the base; each stands for its day's copy byte
// for byte, restores, and checks out from a journal that did not write it.
func TestBackupChain(t *testing.T) {
	j, s, bdir := busyJournal(t, 30)
	ctx := t.Context()
	_, err := j.Archive.BackupDay("2026-11-30")
	require.NoError(t, err)
	incs, copies := chainDays(t, j, s, 1, 5)
	for i, inc := range incs {
		require.True(t, isIncrement(inc), inc)
		tr, _, err := readIncrement(inc)
		require.NoError(t, err)
		assert.Equal(t, 2, tr.Version)
		assert.Equal(t, "journal-2026-11-30.db", tr.Base)
		if i == 0 {
			assert.Empty(t, tr.Prev, "the first after the base continues none")
			assert.LessOrEqual(t, tr.Pages, tr.Since)
		} else {
			prev, _, err := readIncrement(incs[i-1])
			require.NoError(t, err)
			assert.Equal(t, filepath.Base(incs[i-1]), tr.Prev)
			assert.Equal(t, prev.CRC, tr.PrevCRC)
			assert.Less(t, tr.Pages, tr.Since, "%s: the day's pages, not every page since the base", filepath.Base(inc))
			assert.GreaterOrEqual(t, tr.Since, prev.Since, "the pages changed since the base only grow here")
		}
		requireStandsFor(t, inc, copies[inc])
	}

	other, err := Open(filepath.Join(t.TempDir(), "journal.db"), Options{BackupDir: bdir, Create: CreateAnyway})
	require.NoError(t, err)
	defer other.Close()
	require.NoError(t, other.Archive.VerifyBackup(ctx, incs[4]), "checked through the copy made of its chain")

	dst := filepath.Join(t.TempDir(), "data", "journal.db")
	require.NoError(t, Restore(ctx, incs[2], dst))
	r, err := Open(dst, Options{})
	require.NoError(t, err)
	defer r.Close()
	want, err := j.Orders.OrdersByDay(ctx, "2026-12-03")
	require.NoError(t, err)
	have, err := r.Orders.OrdersByDay(ctx, "2026-12-03")
	require.NoError(t, err)
	assert.Equal(t, want, have)
	none, err := r.Orders.OrdersByDay(ctx, "2026-12-04")
	require.NoError(t, err)
	assert.Empty(t, none, "the restored copy is of 2026-12-03's close")
}

// TestBackupChainBroken: an increment of a day's chain missing or damaged is
// found where the chain is continued (the increment continued read whole,
// the others' ends, one other whole in turn), and the day's increment then
// holds every page changed since the base again, with a line saying why; a
// restore of a day whose chain is broken is refused with a sentence naming
// the increment and what to restore instead, and the days before it restore.
func TestBackupChainBroken(t *testing.T) {
	const next = "2026-12-06"
	tests := []struct {
		name   string
		damage func(t *testing.T, chain []string) string // returns the increment damaged
		fresh  bool                                      // the next day's increment starts a chain again
		log    string
	}{
		{"an increment of the chain missing", func(t *testing.T, chain []string) string {
			require.NoError(t, os.Remove(chain[2]))
			return chain[2]
		}, true, "journal-2026-12-03.inc, which journal-2026-12-05.inc continues, is missing"},
		{"the increment continued damaged", func(t *testing.T, chain []string) string {
			flipByte(t, chain[4], len(incMagic)+8+100)
			return chain[4]
		}, true, "journal-2026-12-05.inc is damaged"},
		{"the one of the chain read that day damaged", func(t *testing.T, chain []string) string {
			i := scrubIndex(next, len(chain))
			flipByte(t, chain[i], len(incMagic)+8+100)
			return chain[i]
		}, true, " is damaged"},
		{"one of the chain not read that day damaged", func(t *testing.T, chain []string) string {
			i := (scrubIndex(next, len(chain)) + 1) % (len(chain) - 1) // neither that day's nor the one continued
			flipByte(t, chain[i], len(incMagic)+8+100)
			return chain[i]
		}, false, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			j, s, bdir := busyJournal(t, 30)
			_, err := j.Archive.BackupDay("2026-11-30")
			require.NoError(t, err)
			chain, copies := chainDays(t, j, s, 1, 5)
			damaged := tt.damage(t, chain)

			err = materialize(t.Context(), chain[4], filepath.Join(t.TempDir(), "out.db"))
			var ie *IncrementError
			require.ErrorAs(t, err, &ie)
			if damaged != chain[4] {
				assert.Equal(t, damaged, ie.Prev)
				assert.Contains(t, ie.Sentence(), "restore a backup of a day before "+damaged)
			}
			assert.Contains(t, ie.Sentence(), "nothing was changed")
			i := 0
			for chain[i] != damaged {
				requireStandsFor(t, chain[i], copies[chain[i]])
				i++
			}

			appendAll(t, j, s.busyDay(next, 3, 36))
			inc, err := j.Archive.BackupDay(next)
			require.NoError(t, err)
			full := copyNow(t, j)
			tr, _, err := readIncrement(inc)
			require.NoError(t, err)
			logged, err := os.ReadFile(filepath.Join(bdir, backupLog))
			if tt.fresh {
				require.NoError(t, err)
				assert.Empty(t, tr.Prev, "a chain of its own")
				assert.Equal(t, tr.Pages, tr.Since)
				assert.Contains(t, string(logged), logDay(next))
				assert.Contains(t, string(logged), tt.log)
				assert.Contains(t, string(logged), "the day's increment holds every page changed since journal-2026-11-30.db")
				requireStandsFor(t, inc, full)
			} else {
				assert.Equal(t, "journal-2026-12-05.inc", tr.Prev, "the damage is not read that day")
				assert.NotContains(t, string(logged), logDay(next))
				err := materialize(t.Context(), inc, filepath.Join(t.TempDir(), "out.db"))
				require.ErrorAs(t, err, &ie)
				assert.Equal(t, damaged, ie.Prev)
			}
			require.NoError(t, j.Archive.VerifyBackup(t.Context(), inc))
		})
	}
}

// TestBackupChainKept: the keeping rule keeps every increment a kept day's
// copy needs, whatever its own day, and the base; the newest day restores
// after pruning.
func TestBackupChainKept(t *testing.T) {
	j, s, _ := busyJournal(t, 30)
	_, err := j.Archive.BackupDay("2026-11-30")
	require.NoError(t, err)
	incs, copies := chainDays(t, j, s, 1, 19)
	res, err := j.Archive.PruneBackups("2026-12-19")
	require.NoError(t, err)
	assert.Empty(t, res.Removed, "the days before the fourteen kept are the newest's chain")
	for _, inc := range incs {
		assert.FileExists(t, inc)
	}
	newest := incs[len(incs)-1]
	requireStandsFor(t, newest, copies[newest])

	// A day whose chain starts again (an increment missing) leaves the
	// chain before it to the rule: once no kept day needs them, they go.
	require.NoError(t, os.Remove(incs[len(incs)-2]))
	appendAll(t, j, s.busyDay("2026-12-20", 3, 50))
	inc, err := j.Archive.BackupDay("2026-12-20")
	require.NoError(t, err)
	tr, _, err := readIncrement(inc)
	require.NoError(t, err)
	require.Empty(t, tr.Prev)
	full := copyNow(t, j)
	res, err = j.Archive.PruneBackups("2026-12-20")
	require.NoError(t, err)
	assert.Empty(t, res.Removed, "the fourteen days kept need the chain from 2026-12-01")
	res, err = j.Archive.PruneBackups("2027-01-05")
	require.NoError(t, err)
	var want []string
	for _, inc := range incs[:len(incs)-2] {
		want = append(want, filepath.Base(inc))
	}
	want = append(want, filepath.Base(incs[len(incs)-1]))
	assert.Equal(t, want, res.Removed, "2026-12-20, December's last, needs none of them")
	requireStandsFor(t, inc, full)
}

// TestBackupChainClockBack: a day closed again after a later day's increment
// continued its increment (the clock set back) keeps that increment as it
// is; the day's backup is then a base written whole, and the later day still
// restores.
func TestBackupChainClockBack(t *testing.T) {
	j, s, bdir := busyJournal(t, 30)
	_, err := j.Archive.BackupDay("2026-11-30")
	require.NoError(t, err)
	incs, copies := chainDays(t, j, s, 1, 2)
	before, err := os.ReadFile(incs[0])
	require.NoError(t, err)
	path, err := j.Archive.BackupDay("2026-12-01")
	require.NoError(t, err)
	assert.Equal(t, "journal-2026-12-01.db", filepath.Base(path))
	after, err := os.ReadFile(incs[0])
	require.NoError(t, err)
	assert.True(t, bytes.Equal(before, after), "the increment continued is kept as it was")
	requireStandsFor(t, incs[1], copies[incs[1]])
	logged, err := os.ReadFile(filepath.Join(bdir, backupLog))
	require.NoError(t, err)
	assert.True(t, strings.Contains(string(logged), "journal-2026-12-01.inc is continued by journal-2026-12-02.inc"), string(logged))
}

// TestBackupsOverSeveralBases: close-days over several bases' lives, each
// pruned as a close-day does: every day's backup stands for its day's copy
// byte for byte, the next base is built and made more than once, and every
// backup kept restores.
func TestBackupsOverSeveralBases(t *testing.T) {
	j, s, bdir := busyJournal(t, 10)
	_, err := j.Archive.BackupDay(dayOf(10))
	require.NoError(t, err)
	info, err := os.Stat(filepath.Join(bdir, "journal-2026-11-10.db"))
	require.NoError(t, err)
	j.core.next.chunk = info.Size() / 3
	bases := 0
	for i := 0; i < 40; i++ {
		day := time.Date(2026, 11, 11, 0, 0, 0, 0, time.UTC).AddDate(0, 0, i).Format(pos.DayLayout)
		appendAll(t, j, s.busyDay(day, 8, uint64(11+i)))
		path, err := j.Archive.BackupDay(day)
		require.NoError(t, err)
		require.NoError(t, j.Archive.VerifyBackup(t.Context(), path))
		requireStandsFor(t, path, copyNow(t, j))
		if !isIncrement(path) {
			bases++
		}
		_, err = j.Archive.PruneBackups(day)
		require.NoError(t, err)
	}
	log, err := os.ReadFile(filepath.Join(bdir, backupLog))
	require.NoError(t, err)
	made := strings.Count(string(log), "made the day's base from "+nextPartial)
	assert.GreaterOrEqual(t, made, 2, "the next base built and made more than once")
	assert.Equal(t, made, bases, "every base after the first made of the partial, none written whole")
	assert.NotContains(t, string(log), "discarded", "no partial discarded on the way")
	checkBackupsRestorable(t, bdir)
}
