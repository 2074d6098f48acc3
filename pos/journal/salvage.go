package journal

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"time"

	bolt "go.etcd.io/bbolt"

	"galla/pos"
)

// SalvageReport says what Salvage recovered and what it could not.
type SalvageReport struct {
	Out         string   // the new journal
	Recovered   int      // events copied into it
	FromDamaged int      // of those, found in the damaged file
	FromBackup  int      // of those, found only in the backup
	Numbers     Numbers  // the counters of the new journal: past the highest ever handed out
	Lost        []string // what could not be recovered, one line each
	Unresolved  []string // orders left open: reconcile asks the service about them
}

// candidate is one intact event found by Salvage.
type candidate struct {
	r      *record
	backup bool // found in the backup only
}

// Salvage copies every intact event of the damaged journal file and of the
// backup (either may be ""; an increment, journal-DAY.inc, is read as the copy
// it stands for with its base) into a new journal at out (galla journal salvage
// DAMAGED --backup FILE --out NEW). An event is intact when its value decodes and
// matches its own hash; events are taken from bbolt's tree where bbolt can read
// it and otherwise from a scan of the file's bytes, de-duplicated by sequence and
// hash, and where two versions of one sequence exist the one that links to the
// event kept before it wins. They are appended in sequence order and chained
// anew; an event the rules refuse (its order's start was lost, a receipt number
// already used) is listed in Lost with the sequences that are missing. Every
// number series then continues past the highest ever handed out: in either file's
// events and counters, and in the high-water file of damaged. Orders whose
// outcome is not final stay unresolved, so reconcile asks the service about them.
// out must not exist; nothing is written to damaged or backup.
func Salvage(ctx context.Context, damagedPath, backupPath, out string) (SalvageReport, error) {
	return SalvageWith(ctx, damagedPath, backupPath, out, Options{})
}

// SalvageWith is Salvage with the options of the journals: opts.ChainKey checks
// the keyed events of damaged and backup (a keyed event that does not match it
// is not recovered) and keys the new journal. The other options are not used.
func SalvageWith(ctx context.Context, damagedPath, backupPath, out string, opts Options) (SalvageReport, error) {
	rep := SalvageReport{Out: out}
	rec := &sealer{key: chainKey(opts), v: newVault(chainKey(opts))}
	fail := func(err error) (SalvageReport, error) {
		return rep, fmt.Errorf("journal: salvage: %w", err)
	}
	if _, err := os.Stat(out); !errors.Is(err, fs.ErrNotExist) {
		return fail(fmt.Errorf("%s already exists; name a new file", out))
	}
	if isIncrement(backupPath) {
		// The events of an increment are those of the copy it stands for.
		img := out + ".backup"
		defer os.Remove(img)
		if err := materialize(ctx, backupPath, img); err != nil {
			return fail(err)
		}
		backupPath = img
	}
	var (
		cands   = map[uint64][]candidate{}
		highest Numbers
		tail    string // the damaged file is not whole: its last events may be gone
	)
	for _, src := range []struct {
		path   string
		backup bool
	}{{damagedPath, false}, {backupPath, true}} {
		if src.path == "" {
			continue
		}
		recs, nums, reason, err := readIntactWhy(src.path, rec)
		if err != nil {
			return fail(err)
		}
		if !src.backup && reason != "" {
			tail = fmt.Sprintf("%s is damaged (%s): events recorded after the last one recovered may be lost; check the day's sales against the payment service's records", src.path, reason)
		}
		highest = highest.max(nums)
		for _, r := range recs {
			dup := false
			for _, c := range cands[r.Seq] {
				dup = dup || c.r.Hash == r.Hash
			}
			if !dup {
				cands[r.Seq] = append(cands[r.Seq], candidate{r: r, backup: src.backup})
			}
		}
	}
	if damagedPath != "" {
		hw, _, err := ReadNumbers(damagedPath)
		if err != nil {
			return fail(err)
		}
		highest = highest.max(hw)
	}
	seqs := make([]uint64, 0, len(cands))
	for s := range cands {
		seqs = append(seqs, s)
	}
	sort.Slice(seqs, func(a, b int) bool { return seqs[a] < seqs[b] })

	j, err := Open(out, Options{Create: CreateAnyway, BackupDir: filepath.Join(filepath.Dir(out), defaultBackupDir), ChainKey: rec.key})
	if err != nil {
		return fail(err)
	}
	defer j.Close()
	var (
		prev     [32]byte
		wantSeq  uint64 = 1
		receipts Numbers
	)
	for _, seq := range seqs {
		if err := ctx.Err(); err != nil {
			return fail(err)
		}
		if seq > wantSeq {
			rep.Lost = append(rep.Lost, lostRange(wantSeq, seq-1))
		}
		c := pick(cands[seq], prev, cands[seq+1])
		prev, wantSeq = c.r.Hash, seq+1
		ev, err := c.r.event()
		if err != nil {
			rep.Lost = append(rep.Lost, fmt.Sprintf("event %d: %v", seq, err))
			continue
		}
		// A number handed out by a lost event leaves a gap: continue past it.
		switch {
		case ev.ReceiptNo > receipts.Receipt+1:
			if err := j.continueNumbers(Numbers{Receipt: ev.ReceiptNo - 1}, fmt.Sprintf("salvage: receipt numbers %d to %d are in lost events", receipts.Receipt+1, ev.ReceiptNo-1)); err != nil {
				return fail(err)
			}
		case ev.DocNo > receipts.Series[ev.Series]+1 && validSeries(ev.Series):
			last := receipts.Series[ev.Series]
			if err := j.continueNumbers(Numbers{Series: map[string]uint64{ev.Series: ev.DocNo - 1}}, fmt.Sprintf("salvage: %s numbers %d to %d are in lost events", ev.Series, last+1, ev.DocNo-1)); err != nil {
				return fail(err)
			}
		case ev.Kind == pos.EvDayClosed && ev.DayClose != nil && ev.DayClose.ZNo > receipts.Z+1:
			if err := j.continueNumbers(Numbers{Z: ev.DayClose.ZNo - 1}, fmt.Sprintf("salvage: Z reports %d to %d are in lost events", receipts.Z+1, ev.DayClose.ZNo-1)); err != nil {
				return fail(err)
			}
		}
		ev.Seq, ev.PrevHash, ev.Hash = 0, "", ""
		if _, err := j.Log.Append(ctx, ev); err != nil {
			rep.Lost = append(rep.Lost, fmt.Sprintf("event %d (%s %s): %v", seq, ev.Kind, ev.OrderID, err))
			continue
		}
		if receipts, err = j.Numbers(); err != nil {
			return fail(err)
		}
		rep.Recovered++
		if c.backup {
			rep.FromBackup++
		} else {
			rep.FromDamaged++
		}
	}
	if tail != "" {
		rep.Lost = append(rep.Lost, tail)
	}
	if highest.behind(receipts) {
		highest = highest.max(receipts)
	}
	if receipts.behind(highest) {
		if err := j.continueNumbers(highest, "salvage: continue past the highest number ever handed out"); err != nil {
			return fail(err)
		}
	}
	by := opts.RecoveredBy
	if opts.Authorise != nil {
		if by, err = opts.Authorise(ctx, j.Staff); err != nil {
			// Not allowed: the new journal is not left behind.
			_ = j.Close()
			for _, p := range []string{out, HeadPath(out), NumbersPath(out), writtenPath(out)} {
				_ = os.Remove(p)
			}
			return fail(err)
		}
	}
	if err := j.noteRecovery(ctx, recovered{How: "salvage", By: by, From: damagedPath, Backup: backupPath, Lost: rep.Lost}); err != nil {
		return fail(err)
	}
	if rep.Numbers, err = j.Numbers(); err != nil {
		return fail(err)
	}
	open, err := j.Orders.Unresolved(ctx)
	if err != nil {
		return fail(err)
	}
	for _, o := range open {
		rep.Unresolved = append(rep.Unresolved, o.ID)
	}
	if err := j.Close(); err != nil {
		return fail(err)
	}
	return rep, nil
}

// lostRange says which sequences are missing.
func lostRange(from, to uint64) string {
	if from == to {
		return fmt.Sprintf("event %d: not found intact in either file", from)
	}
	return fmt.Sprintf("events %d to %d: not found intact in either file", from, to)
}

// pick chooses among the versions of one sequence: the one that links to the
// event kept before it, else the one the next sequence links to, else the first
// found (the damaged file's before the backup's).
func pick(cs []candidate, prev [32]byte, next []candidate) candidate {
	for _, c := range cs {
		if c.r.Prev == prev {
			return c
		}
	}
	for _, c := range cs {
		for _, n := range next {
			if n.r.Prev == c.r.Hash {
				return c
			}
		}
	}
	return cs[0]
}

// readIntact returns every intact event of the journal file at path and the
// highest counters it can read. bbolt's tree is read where bbolt can open the file
// (guarded); the file's bytes are scanned as well, for events on pages the tree
// no longer reaches.
func readIntact(path string, rec *sealer) ([]*record, Numbers, error) {
	out, nums, _, err := readIntactWhy(path, rec)
	return out, nums, err
}

// readIntactWhy is readIntact that also says why the file is not whole ("" when
// its size and meta pages are sound): events past the last one found may then be
// lost without a trace in the file.
func readIntactWhy(path string, rec *sealer) ([]*record, Numbers, string, error) {
	var (
		out  []*record
		nums Numbers
	)
	state, reason, err := preflight(path)
	if err != nil {
		return nil, nums, reason, err
	}
	if state == fileMissing {
		return nil, nums, reason, fmt.Errorf("%s: %w", path, fs.ErrNotExist)
	}
	if state == fileBolt && reason == "" {
		_ = guard(func() error {
			db, err := bolt.Open(path, 0o600, &bolt.Options{ReadOnly: true, Timeout: DefaultLockTimeout})
			if err != nil {
				return err
			}
			defer db.Close()
			return db.View(func(tx *bolt.Tx) error {
				if err := walkTree(tx, false); err != nil {
					return err // the tree is not safe to follow: the scan below is
				}
				nums = numbersOf(tx)
				events := tx.Bucket(bucketEvents)
				if events == nil {
					return nil
				}
				return events.ForEach(func(_, v []byte) error {
					if r, err := rec.decode(v); err == nil {
						r.body = bytes.Clone(r.body)
						out = append(out, r)
					}
					return nil
				})
			})
		})
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, nums, reason, err
	}
	out = append(out, scanRecords(data, rec)...)
	for _, r := range out {
		var ev struct {
			ReceiptNo uint64        `json:"receipt_no"`
			Series    string        `json:"series"`
			DocNo     uint64        `json:"doc_no"`
			DayClose  *pos.DayClose `json:"day_close"`
		}
		if raw, err := r.json(); err == nil && json.Unmarshal(raw, &ev) == nil {
			nums.Receipt = max(nums.Receipt, ev.ReceiptNo)
			if ev.DocNo != 0 && validSeries(ev.Series) {
				if nums.Series == nil {
					nums.Series = map[string]uint64{}
				}
				nums.Series[ev.Series] = max(nums.Series[ev.Series], ev.DocNo)
			}
			if ev.DayClose != nil {
				nums.Z = max(nums.Z, ev.DayClose.ZNo)
			}
		}
	}
	return out, nums, reason, nil
}

// recordStart opens every stored event value of format 1; recordMagic opens
// those of format 2.
var recordStart = []byte(`{"v":1,"hash":"`)

// scanRecords finds every intact event value in raw file bytes: each place a
// value of either format starts, read to its end (format 1: one JSON value;
// format 2: the length in its header) and checked against its own hash with
// rec's key. A value larger than a page lies on contiguous overflow pages, so it
// is whole in the bytes too.
func scanRecords(data []byte, rec *sealer) []*record {
	var out []*record
	for _, start := range [][]byte{recordStart, recordMagic} {
		for i := 0; i < len(data); {
			k := bytes.Index(data[i:], start)
			if k < 0 {
				break
			}
			at := i + k
			i = at + 1
			var raw []byte
			if start[0] == recordMagic[0] {
				_, n, err := splitV2(data[at:])
				if err != nil {
					continue
				}
				raw = data[at : at+n]
			} else {
				dec := json.NewDecoder(bytes.NewReader(data[at:]))
				var msg json.RawMessage
				if dec.Decode(&msg) != nil {
					continue
				}
				raw = msg
			}
			if r, err := rec.decode(raw); err == nil {
				out = append(out, r)
			}
		}
	}
	return out
}

// Restore puts the backup in place of the journal at dst (galla journal restore
// BACKUP). An increment (journal-DAY.inc) is first made into the copy it
// stands for with its base, beside dst; it refuses with an *IncrementError,
// dst untouched, when it or its base is damaged or missing. The backup must
// verify whole (VerifyFile). The file at dst, if any,
// is moved aside to dst.damaged-TIME, never deleted; the backup is copied to dst
// (a temporary file, synced, renamed), and when its counters are below the
// high-water file beside dst (or below the file set aside) the restored journal
// records a numbers.continued event that lifts them, so no number is handed out
// twice. The sales recorded after the backup are not in it: Salvage keeps them.
// It refuses while the terminal holds dst open (ErrAlreadyRunning).
func Restore(ctx context.Context, backup, dst string) error {
	return RestoreWith(ctx, backup, dst, Options{})
}

// RestoreWith is Restore with the options of the journal: opts.ChainKey verifies
// the backup's keyed events and keys the events the restored journal appends.
// The other options are not used.
func RestoreWith(ctx context.Context, backup, dst string, opts Options) error {
	fail := func(err error) error { return fmt.Errorf("journal: restore %s: %w", backup, err) }
	key := chainKey(opts)
	from := backup
	if isIncrement(backup) {
		// The copy the increment stands for, made beside dst and checked
		// whole before anything at dst is touched.
		if err := os.MkdirAll(filepath.Dir(dst), 0o700); err != nil {
			return fail(err)
		}
		img := dst + ".restoring"
		defer os.Remove(img)
		if err := materialize(ctx, backup, img); err != nil {
			return fail(err)
		}
		backup = img
	}
	if _, err := VerifyFileWith(ctx, backup, Options{ChainKey: key}); err != nil && !errors.Is(err, ErrBehind) {
		return fail(fmt.Errorf("the backup does not verify: %w", err))
	}
	by := opts.RecoveredBy
	if opts.Authorise != nil {
		b, err := Open(backup, Options{ReadOnly: true, Create: CreateNever, ChainKey: key})
		if err != nil {
			return fail(err)
		}
		by, err = opts.Authorise(ctx, b.Staff)
		_ = b.Close()
		if err != nil {
			return fail(err)
		}
	}
	hw, _, err := ReadNumbers(dst)
	if err != nil {
		return fail(err)
	}
	if state, reason, err := preflight(dst); err == nil && state == fileBolt {
		// The current file's counters count too, as far as it can be read; a
		// lock held by a running terminal stops the restore here.
		lockErr := guard(func() error {
			db, err := bolt.Open(dst, 0o600, &bolt.Options{ReadOnly: true, Timeout: DefaultLockTimeout})
			if err != nil {
				return err
			}
			defer db.Close()
			if reason != "" {
				return nil
			}
			return db.View(func(tx *bolt.Tx) error {
				if walkTree(tx, false) == nil {
					hw = hw.max(numbersOf(tx))
				}
				return nil
			})
		})
		if errors.Is(lockErr, errTimeout) {
			return fail(&alreadyRunningError{path: dst})
		}
		_, nums, _ := readIntact(dst, &sealer{key: key, v: newVault(key)})
		hw = hw.max(nums)
	}
	if err := os.MkdirAll(filepath.Dir(dst), 0o700); err != nil {
		return fail(err)
	}
	aside := ""
	if _, err := os.Stat(dst); err == nil {
		aside = dst + damagedInfix + time.Now().UTC().Format("20060102T150405.000000000")
		if err := os.Rename(dst, aside); err != nil {
			return fail(err)
		}
	}
	// The head record names the last event of the journal replaced (set aside
	// or lost); the backup ends before it.
	if err := os.Remove(HeadPath(dst)); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fail(err)
	}
	if err := copyFile(backup, dst); err != nil {
		return fail(err)
	}
	if err := writeNumbers(dst, hw); err != nil {
		return fail(err)
	}
	j, err := Open(dst, Options{Create: CreateNever, continueNumbers: "restore of " + from, ChainKey: key, recovery: true})
	if err != nil {
		return fail(err)
	}
	if err := j.noteRecovery(ctx, recovered{How: "restore", By: by, From: from, Aside: aside}); err != nil {
		_ = j.Close()
		return fail(err)
	}
	if err := j.Close(); err != nil {
		return fail(err)
	}
	return nil
}
