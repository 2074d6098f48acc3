package journal

import (
	"cmp"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"time"

	"galla/pos"
)

// A day's increment (version 2) holds the pages of the day's copy that differ
// from the copy of the increment before it (its Prev, built on the same
// base), or from the base itself when it is the first after the base (Prev
// ""); after those pages it lists the number and digest of every page of its
// copy that differs from the base (its Since list), from which the next day
// knows the digests of the copy it continues without reading it. Restoring it
// writes its base's bytes, then the pages of each increment of its chain in
// order, and checks the whole against the copy's CRC.
//
// An increment of the base rewrote every page changed since the base each
// day (about 0.7 MB more each busy day: 21 MB thirty busy days after it,
// written and synced at every close-day); one of the day before writes what
// the day changed. In exchange a day's copy needs every increment of its
// chain: a damaged or missing one loses the days after it up to the next
// base. So the chain is checked where it is continued: each close-day reads
// the increment it continues whole against its CRC, the ends of all the
// others, and one of them whole in turn (the day's number modulo their
// count); one found damaged, missing or of an older version makes the day's
// increment hold every page changed since the base again (a chain of its own,
// with a line in backups.log). The keeping rule keeps every increment a kept
// day's copy needs (PruneBackups).

// incPage is a page of a copy that differs from its base: its number and
// digest.
type incPage struct{ id, digest uint64 }

// incSinceEntry is the size of an entry of the Since list.
const incSinceEntry = 16

// fromBase returns how many pages of the increment's copy differ from its
// base: its Since list (version 2), or its pages (version 1, which held all
// of them).
func (t incTrailer) fromBase() int {
	if t.Version >= 2 {
		return t.Since
	}
	return t.Pages
}

// readSinceList reads the Since list of the increment f, of trailer t.
func readSinceList(f *os.File, t incTrailer) ([]incPage, error) {
	raw := make([]byte, t.Since*incSinceEntry)
	if _, err := f.ReadAt(raw, int64(len(incMagic))+int64(t.Pages)*int64(8+t.PageSize)); err != nil {
		return nil, err
	}
	out := make([]incPage, t.Since)
	for i := range out {
		out[i] = incPage{binary.BigEndian.Uint64(raw[i*16:]), binary.BigEndian.Uint64(raw[i*16+8:])}
		if i > 0 && out[i].id <= out[i-1].id {
			return nil, errors.New("its list of the pages that differ from the base is out of order")
		}
	}
	return out, nil
}

// chainError is a link of an increment's chain that cannot be used: the
// increment it continues is missing, damaged or not the one it continued.
type chainError struct {
	name   string // the increment of the chain that cannot be used
	reason string
}

func (e *chainError) Error() string { return e.name + " " + e.reason }

// incChain returns the increments whose pages make the copy of the
// increment named name in dir (its trailer t), oldest first, ending with
// name, and their trailers, reading their ends only (readIncrementOf without
// the whole file): each must be built on the same base and be the copy its
// successor continued. The names walked are returned with the link that
// cannot be used, if one cannot.
func incChain(dir, name string, t incTrailer) ([]string, []incTrailer, *chainError) {
	names, trailers := []string{name}, []incTrailer{t}
	seen := map[string]bool{name: true}
	for t.Prev != "" {
		prev := t.Prev
		if seen[prev] {
			return names, trailers, &chainError{prev, "is continued twice in its chain"}
		}
		seen[prev] = true
		pt, _, err := readIncrementOf(filepath.Join(dir, prev), false)
		switch {
		case errors.Is(err, os.ErrNotExist):
			return names, trailers, &chainError{prev, "is missing"}
		case err != nil:
			return names, trailers, &chainError{prev, "cannot be read (" + err.Error() + ")"}
		case pt.Base != t.Base || pt.BaseSize != t.BaseSize || pt.BaseCRC != t.BaseCRC || pt.PageSize != t.PageSize:
			return names, trailers, &chainError{prev, "is built on another base"}
		case pt.CRC != t.PrevCRC:
			return names, trailers, &chainError{prev, "is not the copy it continued (it was written again since)"}
		}
		names, trailers = append(names, prev), append(trailers, pt)
		t = pt
	}
	slices.Reverse(names)
	slices.Reverse(trailers)
	return names, trailers, nil
}

// prevInc is the increment a day's increment continues: its name, its
// trailer and the digest of every page of its copy.
type prevInc struct {
	name    string
	t       incTrailer
	digests []uint64
}

// continueFrom returns the increment the day's increment continues: the
// newest increment of a day before day built on the base at base (its
// trailer bt, its digests), its chain whole (incChain; it and one other of
// the chain, in turn, read whole against their CRCs). It returns nil when
// the day's increment is the first after the base, or is to hold every page
// changed since it again because the newest increment is damaged, of an
// older version or its chain broken (with a line saying so).
func (bk *Archive) continueFrom(ctx context.Context, day, base string, bt pagesTrailer, digests []uint64) *prevInc {
	dir := bk.backupDir
	files, err := backupFiles(dir)
	if err != nil {
		return nil
	}
	baseDay, _ := backupDay(filepath.Base(base))
	var cands []dayFile
	for _, f := range dayFiles(files) {
		if f.inc && f.day < day && f.day >= baseDay {
			cands = append(cands, f)
		}
	}
	slices.SortFunc(cands, func(a, b dayFile) int { return cmp.Compare(b.day, a.day) })
	fresh := func(format string, args ...any) *prevInc {
		bk.logLine(day, "%s; the day's increment holds every page changed since %s", fmt.Sprintf(format, args...), filepath.Base(base))
		return nil
	}
	for _, f := range cands {
		if err := ctx.Err(); err != nil {
			return nil
		}
		t, _, err := readIncrementOf(filepath.Join(dir, f.name), false)
		if err != nil {
			return fresh("%s cannot be read (%v)", f.name, err)
		}
		if t.Base != filepath.Base(base) || t.BaseSize != bt.Size || t.BaseCRC != bt.CRC {
			continue // of another base
		}
		if t.Version < 2 || t.PageSize != bt.PageSize {
			return nil // written before increments were chained: the day's starts a chain
		}
		names, _, broken := incChain(dir, f.name, t)
		if broken != nil {
			return fresh("%s, which %s continues, %s", broken.name, f.name, broken.reason)
		}
		// The increment continued is read whole, and one other of its chain
		// in turn.
		if other := names[scrubIndex(day, len(names))]; other != f.name {
			if _, _, err := readIncrement(filepath.Join(dir, other)); err != nil {
				return fresh("%s, of the chain of %s, is damaged (%v)", other, f.name, err)
			}
		}
		p, err := readPrev(filepath.Join(dir, f.name), digests)
		if err != nil {
			return fresh("%s is damaged (%v)", f.name, err)
		}
		return p
	}
	return nil
}

// readPrev reads the increment at path, whole against its CRC, and the
// digests of its copy: its base's (digests) with its Since list over them.
func readPrev(path string, digests []uint64) (*prevInc, error) {
	t, _, err := readIncrement(path)
	if err != nil {
		return nil, err
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	since, err := readSinceList(f, t)
	if err != nil {
		return nil, err
	}
	n := t.Size / int64(t.PageSize)
	d := make([]uint64, n)
	copy(d, digests)
	past := 0 // pages past the base's end: each must be listed
	for _, e := range since {
		if e.id >= uint64(n) {
			return nil, errors.New("a page it lists lies past its copy's end")
		}
		d[e.id] = e.digest
		if e.id >= uint64(len(digests)) {
			past++
		}
	}
	if int64(past) != max(n-int64(len(digests)), 0) {
		return nil, errors.New("its list of the pages that differ from the base is short")
	}
	return &prevInc{name: filepath.Base(path), t: t, digests: d}, nil
}

// scrubIndex returns which of n files is read whole at the close-day of
// day: the day's number (days since 1970) modulo n.
func scrubIndex(day string, n int) int {
	t, err := time.Parse(pos.DayLayout, day)
	if err != nil || n <= 0 {
		return 0
	}
	return int((t.Unix() / 86400) % int64(n))
}

// continuedBy returns the name of an increment of a day after day in dir that
// continues the increment named name, "" when none does: that increment is
// not written again (its successors would lose their copies).
func continuedBy(dir, day, name string) string {
	files, err := backupFiles(dir)
	if err != nil {
		return ""
	}
	for _, f := range dayFiles(files) {
		if !f.inc || f.day <= day {
			continue
		}
		if t, _, err := readIncrementOf(filepath.Join(dir, f.name), false); err == nil && t.Prev == name {
			return f.name
		}
	}
	return ""
}
