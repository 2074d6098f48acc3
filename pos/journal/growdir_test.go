package journal

import (
	"encoding/hex"
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"galla/pos"
)

// The growth generator's journal in a terminal's data directory, keyed with
// the data directory's own journal key, for the whole-process benchmark of the
// real binary (scripts/bench-500k.sh, docs/benchmarks.md "500 thousand
// events, whole process").

// secretsFile and secretJournalKey are the data directory's fallback store
// of secrets and the name of the journal's key in it (internal/config's
// SecretsFile and SecretJournalKey, where no keyring answers).
const (
	secretsFile      = "secrets.json"
	secretJournalKey = "journal-key"
)

// dataDirKey reads the journal key of the data directory dir from its
// secrets file: nil when the file or the key is not there.
func dataDirKey(tb testing.TB, dir string) []byte {
	tb.Helper()
	raw, err := os.ReadFile(filepath.Join(dir, secretsFile))
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	require.NoError(tb, err)
	var m map[string]string
	require.NoError(tb, json.Unmarshal(raw, &m))
	if m[secretJournalKey] == "" {
		return nil
	}
	key, err := hex.DecodeString(m[secretJournalKey])
	require.NoError(tb, err)
	return key
}

// growDataDir writes into the data directory dir, whose journal is empty or
// not there yet, the growth generator's journal of at least n events keyed
// with dir's journal key: busy days ending the day before today, the last
// openDays of them never closed by a Z report. It returns the events written.
func growDataDir(tb testing.TB, dir string, n, openDays int, today time.Time) uint64 {
	tb.Helper()
	perDay := len(new(script).busyDay("2026-01-01", 200, 1))
	days := (n + perDay - 1) / perDay
	first := time.Date(today.Year(), today.Month(), today.Day(), 0, 0, 0, 0, time.UTC).AddDate(0, 0, -days)
	openFrom := n
	if openDays > 0 {
		openFrom = (days - openDays) * perDay
	}
	return bulkDaysAt(tb, filepath.Join(dir, "journal.db"), n, openFrom, growth{key: dataDirKey(tb, dir), first: first})
}

// keyedDataDir is a temporary data directory whose secrets file holds a
// journal key of its own (its first byte b), as the binary's first command
// leaves one; it returns the directory and the key.
func keyedDataDir(t *testing.T, b byte) (string, []byte) {
	t.Helper()
	dir := t.TempDir()
	key := make([]byte, 32)
	key[0] = b
	secrets, err := json.Marshal(map[string]string{secretJournalKey: hex.EncodeToString(key)})
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(filepath.Join(dir, secretsFile), secrets, 0o600))
	return dir, key
}

// TestGrowDataDir writes the grown journal of a data directory. With
// GALLA_GROW_DIR set it writes into that data directory (made by the binary's
// first command, so that its secrets file holds the journal key) the journal
// of GALLA_GROW_EVENTS events (500 thousand unless set) with the last
// GALLA_GROW_OPEN_DAYS days (100 unless set) never closed. Without it, it
// writes two days (the last never closed) into a temporary data directory
// with a key of its own, and checks what the benchmark relies on: the
// journal opens with the key and not without it, it ends the day before
// today, its last days have no Z report, and its proofs and chain check out
// in full.
func TestGrowDataDir(t *testing.T) {
	dir, n, open := os.Getenv("GALLA_GROW_DIR"), 1500, 1
	if dir != "" {
		n, open = 500_000, 100
		if v := os.Getenv("GALLA_GROW_EVENTS"); v != "" {
			var err error
			n, err = strconv.Atoi(v)
			require.NoError(t, err, "GALLA_GROW_EVENTS")
		}
		if v := os.Getenv("GALLA_GROW_OPEN_DAYS"); v != "" {
			var err error
			open, err = strconv.Atoi(v)
			require.NoError(t, err, "GALLA_GROW_OPEN_DAYS")
		}
		require.NotNil(t, dataDirKey(t, dir), "%s holds no journal key: run a command of the binary on it first", dir)
		start := time.Now()
		events := growDataDir(t, dir, n, open, time.Now())
		t.Logf("%d events written to %s in %v", events, dir, time.Since(start).Round(time.Second))
		return
	}
	dir, key := keyedDataDir(t, 7)
	today := time.Date(2026, 11, 27, 10, 0, 0, 0, time.UTC)
	events := growDataDir(t, dir, n, open, today)
	require.GreaterOrEqual(t, events, uint64(n))
	path := filepath.Join(dir, "journal.db")

	_, err := Open(path, Options{Create: CreateNever})
	require.ErrorIs(t, err, ErrKey, "the grown journal is keyed")
	j, err := Open(path, Options{Create: CreateNever, ChainKey: key})
	require.NoError(t, err)
	last, err := j.Log.Event(t.Context(), events)
	require.NoError(t, err)
	assert.Equal(t, "2026-11-26", last.Day, "the last day is the day before today")
	cp, ok, err := j.Days.LastCheckpoint(t.Context())
	require.NoError(t, err)
	require.True(t, ok)
	closed, err := j.Log.Event(t.Context(), cp.Seq)
	require.NoError(t, err)
	assert.Equal(t, pos.EvDayClosed, closed.Kind)
	assert.Equal(t, "2026-11-25", closed.Day, "the last day is left open")
	require.NoError(t, j.Close())
	rep, err := VerifyFileWith(t.Context(), path, Options{ChainKey: key})
	require.NoError(t, err)
	assert.True(t, rep.Verified)
	assert.Equal(t, events, rep.Events)
}

// TestGrowDaysSinceBase appends to a data directory busy days of 200 sales
// through Append, one commit an event as a till writes them, each closed by
// its backup as a close-day would, after a base made the day before the
// first: a counter some weeks after its base was made, whose increments
// continue each other (chain.go) while the pages changed since the base grow
// about 0.7 MB a day (issue 25, scripts/bench-500k.sh LATE=1). With
// GALLA_GROW_SINCE_DIR set it replaces that data directory's backups so, and
// appends GALLA_GROW_SINCE_DAYS days (30 unless set) up to yesterday, their
// order ids and IMEIs none of the grown journal's, with the building of the
// next base held back (the bench times a chunk day, or the day the base is
// made, on copies of it). Without it, it appends three days to a small data
// directory of its own and checks what the benchmark relies on: the record of
// the pages written since the base is kept across them, each day's increment
// continues the day before's and stands for its day's copy, and the last
// holds fewer pages than changed since the base.
func TestGrowDaysSinceBase(t *testing.T) {
	dir, days, today := os.Getenv("GALLA_GROW_SINCE_DIR"), 3, time.Date(2026, 11, 27, 10, 0, 0, 0, time.UTC)
	bench := dir != ""
	if bench {
		days, today = 30, time.Now()
		if v := os.Getenv("GALLA_GROW_SINCE_DAYS"); v != "" {
			var err error
			days, err = strconv.Atoi(v)
			require.NoError(t, err, "GALLA_GROW_SINCE_DAYS")
		}
		require.NoError(t, os.RemoveAll(filepath.Join(dir, defaultBackupDir)))
	} else {
		dir, _ = keyedDataDir(t, 8)
		growDataDir(t, dir, 20000, days, today)
	}
	key := dataDirKey(t, dir)
	require.NotNil(t, key, "%s holds no journal key", dir)
	j, err := Open(filepath.Join(dir, "journal.db"), Options{Create: CreateNever, ChainKey: key})
	require.NoError(t, err)
	defer j.Close()
	j.Archive.next.off = true
	dayOf := func(i int) string {
		return time.Date(today.Year(), today.Month(), today.Day(), 0, 0, 0, 0, time.UTC).AddDate(0, 0, i-days).Format(pos.DayLayout)
	}
	_, err = j.Archive.BackupDay(dayOf(-1))
	require.NoError(t, err)
	require.True(t, j.core.written.on.Load(), "the record of the pages written since the base is kept")
	n, err := j.Numbers()
	require.NoError(t, err)
	s := &script{receipt: n.Receipt, phones: 5_000_000, idPrefix: "L"}
	var prev string
	for i := range days {
		appendAll(t, j, s.busyDay(dayOf(i), 200, n.Z+uint64(i)+1))
		inc, err := j.Archive.BackupDay(dayOf(i))
		require.NoError(t, err)
		require.True(t, isIncrement(inc), "%s", inc)
		if !bench {
			requireStandsFor(t, inc, copyNow(t, j))
			tr, _, err := readIncrement(inc)
			require.NoError(t, err)
			assert.Equal(t, prev, tr.Prev)
			if i > 0 {
				assert.Less(t, tr.Pages, tr.Since, "the day's pages, fewer than those changed since the base")
			}
			prev = filepath.Base(inc)
		}
	}
	require.True(t, j.core.written.on.Load(), "the record is kept across the days")
	if bench {
		t.Logf("%d busy days appended to %s, each backed up", days, dir)
		return
	}
	set := requireCovers(t, j)
	written := 0
	for id := range set.hw0 {
		if set.has(id) {
			written++
		}
	}
	assert.Positive(t, written, "pages of the base's range written since")
}
