package journal

import (
	"cmp"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	bolt "go.etcd.io/bbolt"

	"galla/pos"
)

// The keeping rule of the day backups (journal-DAY.db), counted back from the
// day being closed:
//
//   - every day of the last keepDays days, that day included;
//   - the month-end backup (the last of its calendar month) of each of the last
//     keepMonths months;
//   - the financial-year-end backup (the last of a year April to March: the one
//     of 31 March, or the last before it) of every year, never pruned.
//
// A file in the backup directory that is not a day backup (a copy kept before a
// schema migration, a journal set aside) is never pruned, and neither is a
// backup dated after the day being closed. A day's backup is its base or its
// increment (increment.go); a base is kept as long as a kept increment is
// built on it.
const (
	keepDays   = 14
	keepMonths = 24
)

// backupDay returns the day of a backup's file name (journal-DAY.db), or false
// for any other name.
func backupDay(name string) (string, bool) {
	day, ok := strings.CutPrefix(name, backupPrefix)
	if !ok {
		return "", false
	}
	if day, ok = strings.CutSuffix(day, backupSuffix); !ok {
		return "", false
	}
	if _, err := time.Parse(pos.DayLayout, day); err != nil {
		return "", false
	}
	return day, true
}

// keptBackups splits the days of day backups into those the keeping rule keeps
// and those it prunes, counted back from today (pos.DayLayout). Both come back
// sorted.
func keptBackups(days []string, today string) (keep, prune []string) {
	t, err := time.Parse(pos.DayLayout, today)
	if err != nil {
		return slices.Sorted(slices.Values(days)), nil
	}
	firstDay := t.AddDate(0, 0, -(keepDays - 1)).Format(pos.DayLayout)
	// The first of the earliest month whose month-end is kept.
	firstMonth := time.Date(t.Year(), t.Month()-(keepMonths-1), 1, 0, 0, 0, 0, time.UTC).Format("2006-01")
	sorted := slices.Sorted(slices.Values(days))
	lastOf := func(i int, key func(string) string) bool {
		return i+1 == len(sorted) || key(sorted[i+1]) != key(sorted[i])
	}
	for i, d := range sorted {
		switch {
		case d > today, d >= firstDay,
			lastOf(i, fyOf),
			lastOf(i, monthOf) && monthOf(d) >= firstMonth:
			keep = append(keep, d)
		default:
			prune = append(prune, d)
		}
	}
	return keep, prune
}

// monthOf is the calendar month of day: "2026-11".
func monthOf(day string) string { return day[:7] }

// fyOf names the financial year (April to March) of day by the year it ends in:
// 2026-03-31 and 2025-04-01 are both "2026".
func fyOf(day string) string {
	t, err := time.Parse(pos.DayLayout, day)
	if err != nil {
		return day
	}
	if t.Month() >= time.April {
		return fmt.Sprint(t.Year() + 1)
	}
	return fmt.Sprint(t.Year())
}

// PruneBackups removes the day backups the keeping rule no longer keeps,
// counted back from day (the day being closed), and returns what it removed
// and what the backup directory holds after (pos.BackupKeeper), with why a
// next base being built was discarded at the backup of day, if it was
// (nextDiscarded): the manager reads it in the Z report's note. A day's
// backup is its base (journal-DAY.db, with its page digests) or its increment
// (journal-DAY.inc), or both; a base that a kept increment is built on is kept
// with it, whatever its own day, so every day kept stays restorable. A backup
// that cannot be removed is left and named in the error; the others are
// removed.
func (bk *Archive) PruneBackups(day string) (pos.BackupPrune, error) {
	var res pos.BackupPrune
	if err := checkDay(day); err != nil {
		return res, fmt.Errorf("journal: prune backups: %w", err)
	}
	files, err := backupFiles(bk.backupDir)
	if err != nil {
		return res, fmt.Errorf("journal: prune backups: %w", err)
	}
	df := dayFiles(files)
	var days []string
	for _, f := range df {
		if !slices.Contains(days, f.day) {
			days = append(days, f.day)
		}
	}
	keep, _ := keptBackups(days, day)
	needed := map[string]bool{} // the bases and increments kept increments are built on
	// The newest first: a chain walked once marks the older days' own.
	for _, f := range slices.Backward(slices.SortedFunc(slices.Values(df), func(a, b dayFile) int { return cmp.Compare(a.day, b.day) })) {
		if _, kept := slices.BinarySearch(keep, f.day); kept && f.inc && !needed[f.name] {
			t, _, err := readIncrementOf(filepath.Join(bk.backupDir, f.name), false)
			if err != nil {
				continue
			}
			needed[t.Base] = true
			// Each increment of its chain (as far as it can be walked:
			// the rest cannot make its copy anyway).
			names, _, _ := incChain(bk.backupDir, f.name, t)
			for _, n := range names {
				needed[n] = true
			}
		}
	}
	size := map[string]int64{}
	for _, f := range files {
		size[f.name] = f.size
	}
	var errs []error
	for _, f := range df {
		if _, kept := slices.BinarySearch(keep, f.day); kept || needed[f.name] {
			continue
		}
		names := []string{f.name}
		if !f.inc {
			names = append(names, f.name+pagesSuffix)
		}
		for i, name := range names {
			if _, ok := size[name]; !ok {
				continue
			}
			if err := os.Remove(filepath.Join(bk.backupDir, name)); err != nil && !errors.Is(err, fs.ErrNotExist) {
				errs = append(errs, err)
				continue
			}
			if i == 0 {
				res.Removed = append(res.Removed, name)
			}
			res.Freed += size[name]
		}
	}
	res.Discarded = nextDiscarded(bk.backupDir, day)
	res.Kept, err = bk.BackupSpace()
	if err == nil {
		err = errors.Join(errs...)
	}
	if err != nil {
		return res, fmt.Errorf("journal: prune backups: %w", err)
	}
	return res, nil
}

// BackupSpace returns how many files the backup directory holds and their
// size (pos.BackupKeeper): the day backups and any other copy kept there (a
// base's page digests, the next base being built, its state and the backups'
// log are counted in the size, not as files of their own), and which of them
// hold customers' details in clear (holdsClear).
func (bk *Archive) BackupSpace() (pos.BackupSpace, error) {
	files, err := backupFiles(bk.backupDir)
	if err != nil {
		return pos.BackupSpace{}, fmt.Errorf("journal: backup space: %w", err)
	}
	var s pos.BackupSpace
	for _, f := range files {
		s.Bytes += f.size
		if strings.HasSuffix(f.name, backupSuffix+pagesSuffix) || f.name == nextPartial || f.name == nextState || f.name == backupLog {
			continue // part of its base, or of the bases to come
		}
		s.Files++
		if strings.HasSuffix(f.name, backupSuffix) && holdsClear(filepath.Join(bk.backupDir, f.name)) {
			s.Clear = append(s.Clear, f.name)
		}
	}
	return s, nil
}

// holdsClear reports whether the journal copy at path holds customers'
// details in clear: it was made before its journal sealed them (meta's
// personal_sealed short of sealedCompact, as in every copy of a schema
// before 5, and in the copy taken before the migration to it). A file that
// cannot be read as a journal is not counted; the check of the backups says
// what is wrong with it.
func holdsClear(path string) bool {
	if st, reason, err := preflight(path); err != nil || reason != "" || st == fileMissing || st == fileEmpty {
		return false
	}
	clear := false
	_ = guard(func() error {
		db, err := bolt.Open(path, 0o600, &bolt.Options{ReadOnly: true, Timeout: 100 * time.Millisecond})
		if err != nil {
			return err
		}
		defer db.Close()
		return db.View(func(tx *bolt.Tx) error {
			if meta := tx.Bucket(bucketMeta); meta != nil {
				clear = getU64(meta, metaSealed) != sealedCompact
			}
			return nil
		})
	})
	return clear
}

// backupFile is a file of the backup directory.
type backupFile struct {
	name string
	size int64
}

// backupFiles lists the regular files of dir (none when it is missing).
func backupFiles(dir string) ([]backupFile, error) {
	entries, err := os.ReadDir(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var out []backupFile
	for _, e := range entries {
		if !e.Type().IsRegular() {
			continue
		}
		info, err := e.Info()
		if err != nil {
			continue // removed meanwhile
		}
		out = append(out, backupFile{name: e.Name(), size: info.Size()})
	}
	return out, nil
}
