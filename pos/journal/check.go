package journal

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"

	bolt "go.etcd.io/bbolt"

	"galla/pos"
)

// ErrDerivedMismatch is matched (errors.Is) by the error of CheckDay and
// VerifyFile when a derived record (an order, a day's list, the unresolved list, a
// counter, a Z report) is not what replaying the events gives: the file was
// edited or damaged. It is a *MismatchError, and matches ErrDamaged too.
var ErrDerivedMismatch = errors.New("journal's derived records do not match its events")

// MismatchError names the first derived record that replay does not reproduce.
type MismatchError struct {
	Path   string // the journal file
	Bucket string // the derived bucket
	Key    string // the record, readable
	Reason string // what differs
	Backup string // the newest backup, or ""
}

// Error names the record.
func (e *MismatchError) Error() string {
	return fmt.Sprintf("journal: %s: %s %q: %s: %v", e.Path, e.Bucket, e.Key, e.Reason, ErrDerivedMismatch)
}

// Is makes errors.Is(err, ErrDerivedMismatch) and errors.Is(err, ErrDamaged) hold.
func (e *MismatchError) Is(target error) bool {
	return target == ErrDerivedMismatch || target == ErrDamaged
}

// Sentence is what the manager reads (pos.Sentencer).
func (e *MismatchError) Sentence() string {
	backup := "BACKUP"
	if e.Backup != "" {
		backup = e.Backup
	}
	return fmt.Sprintf("The journal %s has been changed outside Galla: the record %s in %s does not match the sales recorded (%s), so its reports cannot be trusted. Close Galla and run \"galla journal salvage %s --backup %s --out NEW\", which rebuilds every record from the sales.",
		e.Path, e.Key, e.Bucket, e.Reason, e.Path, backup)
}

// mismatch builds the MismatchError of j.
func (j *Journal) mismatch(bucket, key, reason string) error {
	backup, _ := LatestBackup(j.backupDir)
	return &MismatchError{Path: j.path, Bucket: bucket, Key: key, Reason: reason, Backup: backup}
}

// CheckDay replays the events of day and compares what they give with the derived
// records kept for it: every order listed under the day (its stored state against
// Order.Apply folded over its events, its place in the unresolved list), every
// order with an event on the day being listed, the receipt and Z counters against
// the newest numbers handed out, and the day's Z report. It returns nil, or a
// *MismatchError (ErrDerivedMismatch) naming the first record that differs. The
// engine calls it before the Z report of the day.
//
// It reads the day's orders through their own event index and the events from the
// newest back to the first order event of an earlier day, so its cost is that of
// the day (and the days after it), not of the whole journal.
func (j *Journal) CheckDay(ctx context.Context, day string) error {
	if err := checkDay(day); err != nil {
		return fmt.Errorf("journal: check day: %w", err)
	}
	err := j.view(func(tx *bolt.Tx) error {
		// The orders listed under the day, by their first sequence.
		listed := map[string]uint64{}
		prefix := dayPrefix(day)
		dc := tx.Bucket(bucketDays).Cursor()
		for k, id := dc.Seek(prefix); k != nil && bytes.HasPrefix(k, prefix); k, id = dc.Next() {
			if len(k) != len(prefix)+8 {
				return j.mismatch("days", string(k), "a malformed key")
			}
			listed[string(id)] = beU64(k[len(prefix):])
		}
		// The events of the day, newest first.
		onDay := map[string]bool{}
		var (
			newest  Numbers // the newest numbers handed out, as far as the scan reaches
			seenRec bool
			seenZ   bool
			zEvent  *pos.DayClose
		)
		ec := tx.Bucket(bucketEvents).Cursor()
		for k, v := ec.Last(); k != nil; k, v = ec.Prev() {
			if err := ctx.Err(); err != nil {
				return err
			}
			ev, err := j.storedEvent(k, v)
			if err != nil {
				return err
			}
			if ev.Day != "" && ev.Day < day && ev.Kind.IsOrderEvent() {
				break
			}
			if ev.Day == day && ev.Kind.IsOrderEvent() {
				onDay[ev.OrderID] = true
			}
			if ev.DocNo != 0 && newest.Series[ev.Series] == 0 { // the newest of its series: the first met
				if newest.Series == nil {
					newest.Series = map[string]uint64{}
				}
				newest.Series[ev.Series] = ev.DocNo
			}
			switch {
			case ev.Kind == pos.EvDayClosed && ev.DayClose != nil:
				if !seenZ {
					newest.Z, seenZ = ev.DayClose.ZNo, true
				}
				if ev.DayClose.Day == day {
					zEvent = ev.DayClose
				}
			case ev.Kind == EvNumbersContinued:
				var d numbersEvent
				if json.Unmarshal(ev.Data, &d) == nil {
					newest = newest.max(d.Numbers)
				}
			case ev.ReceiptNo != 0 && !seenRec:
				newest.Receipt, seenRec = max(newest.Receipt, ev.ReceiptNo), true
			}
		}
		for id := range onDay {
			if _, ok := listed[id]; !ok {
				return j.mismatch("days", day+" "+id, "the order has events on the day but is not listed under it")
			}
		}
		for id, first := range listed {
			if err := j.checkOrder(tx, id, day, first); err != nil {
				return err
			}
		}
		have := numbersOf(tx)
		if have.Receipt < newest.Receipt {
			return j.mismatch("meta", "receipt_no", fmt.Sprintf("the counter is %d, but receipt number %d was handed out", have.Receipt, newest.Receipt))
		}
		if have.Z < newest.Z {
			return j.mismatch("meta", "z_no", fmt.Sprintf("the counter is %d, but Z report %d was taken", have.Z, newest.Z))
		}
		if s, behind := have.behindSeries(newest); behind {
			return j.mismatch("documents", s, fmt.Sprintf("the counter is %d, but number %d was handed out", have.Series[s], newest.Series[s]))
		}
		return j.checkZ(tx, day, zEvent)
	})
	if err != nil {
		var me *MismatchError
		var ce *CorruptError
		if errors.As(err, &me) || errors.As(err, &ce) {
			return err
		}
		return fmt.Errorf("journal: check day %s: %w", day, err)
	}
	return nil
}

// checkOrder replays the events of order id and compares the result with its
// stored record, its listing under day (first) and in unresolved. With day ""
// (start-up) the listing under a day is not checked, and first is the order's
// first event as its index says.
func (j *Journal) checkOrder(tx *bolt.Tx, id, day string, first uint64) error {
	orders, events := tx.Bucket(bucketOrders), tx.Bucket(bucketEvents)
	raw := orders.Get([]byte(id))
	if raw == nil && day == "" {
		return j.mismatch("orders", id, "the order has events but no record")
	}
	if raw == nil {
		return j.mismatch("orders", id, "listed under "+day+" but has no record")
	}
	var (
		o      = new(pos.Order)
		n      int
		seqs   []uint64
		hasDay bool
	)
	prefix := orderEventPrefix(id)
	c := orders.Cursor()
	for k, _ := c.Seek(prefix); k != nil && bytes.HasPrefix(k, prefix); k, _ = c.Next() {
		if len(k) != len(prefix)+8 {
			continue
		}
		seqs = append(seqs, beU64(k[len(prefix):]))
	}
	if day == "" && len(seqs) > 0 {
		first = seqs[0]
	}
	if len(seqs) == 0 || seqs[0] != first {
		return j.mismatch("days", day+" "+id, "the listing does not name the order's first event")
	}
	for _, seq := range seqs {
		ev, err := j.rec.eventAt(events, seq)
		if err != nil {
			return j.mismatch("orders", id, fmt.Sprintf("its event index names event %d: %v", seq, err))
		}
		if ev.OrderID != id {
			return j.mismatch("orders", id, fmt.Sprintf("its event index names event %d of order %q", seq, ev.OrderID))
		}
		hasDay = hasDay || ev.Day == day || day == ""
		ev.Hash = ""
		next := o.Clone()
		if err := next.Apply(ev); err != nil {
			if errors.Is(err, pos.ErrStaleEvent) {
				continue
			}
			return j.mismatch("orders", id, fmt.Sprintf("event %d does not apply: %v", seq, err))
		}
		o = next
		n++
	}
	if !hasDay {
		return j.mismatch("days", day+" "+id, "listed under the day but has no event on it")
	}
	want, err := json.Marshal(o)
	if err != nil {
		return err
	}
	if !bytes.Equal(want, raw) {
		return j.mismatch("orders", id, fmt.Sprintf("the stored record is not what its %d events give", n))
	}
	listed := tx.Bucket(bucketUnresolved).Get(u64(first)) != nil
	if listed != o.Unresolved() {
		return j.mismatch("unresolved", id, fmt.Sprintf("listed %v, but the order's outcome is final %v", listed, !o.Unresolved()))
	}
	return nil
}

// checkZ compares the closed day and Z report of day with its day.closed event
// (nil when the scan found none).
func (j *Journal) checkZ(tx *bolt.Tx, day string, ev *pos.DayClose) error {
	zno := tx.Bucket(bucketClosedDays).Get([]byte(day))
	switch {
	case ev == nil && zno == nil:
		return nil
	case ev == nil:
		return j.mismatch("closed_days", day, "the day is marked closed but no day.closed event closes it")
	case zno == nil || beU64(zno) != ev.ZNo:
		return j.mismatch("closed_days", day, fmt.Sprintf("the day was closed by Z report %d", ev.ZNo))
	}
	want, err := json.Marshal(ev)
	if err != nil {
		return err
	}
	if !bytes.Equal(want, tx.Bucket(bucketZ).Get(zno)) {
		return j.mismatch("z_reports", fmt.Sprint(ev.ZNo), "the stored Z report is not the one its day.closed event sealed")
	}
	return nil
}

// Report is what VerifyFile found.
type Report struct {
	Path      string  // the file checked
	Events    uint64  // the events in its log
	Numbers   Numbers // its counters
	HighWater Numbers // the high-water file beside it (zero when there is none)
	Verified  bool    // bbolt's check, the hash chain and the derived records all passed
}

// VerifyFile checks the journal file at path the whole way (galla journal
// verify): the file's size and meta pages, bbolt's consistency check, the hash
// chain, every derived bucket and counter against a replay of every event (into
// a temporary file), and the counters against the high-water file. It opens the
// file read-only, so it refuses a journal the terminal has open
// (ErrAlreadyRunning). The error matches ErrDamaged (a *CorruptError or a
// *MismatchError), ErrBehind or ErrMissing; the Report holds what could be read.
func VerifyFile(ctx context.Context, path string) (Report, error) {
	return VerifyFileWith(ctx, path, Options{})
}

// VerifyFileWith is VerifyFile with the options of the journal: opts.ChainKey is
// the key its keyed events, checkpoints and head are checked with (a journal
// whose events are keyed does not verify without it), opts.BackupDir where the
// sentences look for backups. The other options are not used.
func VerifyFileWith(ctx context.Context, path string, opts Options) (Report, error) {
	rep := Report{Path: path}
	hw, _, err := ReadNumbers(path)
	if err != nil {
		return rep, err
	}
	rep.HighWater = hw
	j, err := Open(path, Options{ReadOnly: true, DeferVerify: true, Create: CreateNever, ChainKey: opts.ChainKey, BackupDir: opts.BackupDir})
	if err != nil {
		return rep, err
	}
	defer j.Close()
	if rep.Numbers, err = j.Numbers(); err != nil {
		return rep, err
	}
	if rep.Events, err = j.LastSeq(ctx); err != nil {
		return rep, err
	}
	if err := j.VerifyAll(ctx); err != nil {
		return rep, err
	}
	if err := j.checkDerived(ctx); err != nil {
		return rep, err
	}
	if rep.Numbers.behind(hw) {
		backup, _ := LatestBackup(j.backupDir)
		return rep, &BehindError{Path: path, Numbers: NumbersPath(path), Journal: rep.Numbers, HighWater: hw, Backup: backup}
	}
	rep.Verified = true
	return rep, nil
}

// checkDerived replays every event into a temporary file and compares each
// derived bucket and the counters with the journal's, key by key.
func (j *Journal) checkDerived(ctx context.Context) error {
	dir, err := os.MkdirTemp("", "galla-verify-")
	if err != nil {
		return fmt.Errorf("journal: verify: %w", err)
	}
	defer os.RemoveAll(dir)
	replay, err := bolt.Open(filepath.Join(dir, "replay.db"), 0o600, &bolt.Options{Timeout: time.Second, NoSync: true})
	if err != nil {
		return fmt.Errorf("journal: verify: %w", err)
	}
	defer replay.Close()
	return j.view(func(src *bolt.Tx) error {
		return replay.Update(func(dst *bolt.Tx) error {
			if err := createBuckets(dst); err != nil {
				return err
			}
			c := src.Bucket(bucketEvents).Cursor()
			for k, v := c.First(); k != nil; k, v = c.Next() {
				if err := ctx.Err(); err != nil {
					return err
				}
				r, err := j.rec.decode(v)
				if err != nil {
					return j.corrupt(beU64(k), err.Error())
				}
				ev, err := r.event()
				if err != nil {
					return j.corrupt(beU64(k), err.Error())
				}
				ev.Hash = ""
				if err := derive(dst, &ev, nil); err != nil {
					return j.corrupt(ev.Seq, fmt.Sprintf("replay of %s: %v", ev.Kind, err))
				}
				if err := sealCheckpoint(dst, &ev, r.Hash, j.rec.keyOf(r)); err != nil {
					return err
				}
			}
			known := map[string]bool{string(bucketMeta): true, string(bucketEvents): true}
			for _, name := range derivedBuckets {
				known[string(name)] = true
			}
			if err := src.ForEach(func(name []byte, _ *bolt.Bucket) error {
				if !known[string(name)] {
					return j.mismatch(string(name), "", "the file holds a bucket the schema does not have")
				}
				return nil
			}); err != nil {
				return err
			}
			for _, name := range derivedBuckets {
				if bytes.Equal(name, bucketCheckpoints) && schemaOf(src) < schemaCheckpoints {
					continue // a file of schema 1 (a backup) has none yet
				}
				if bytes.Equal(name, bucketDocuments) && src.Bucket(name) == nil && dst.Bucket(name).Stats().KeyN == 0 {
					continue // made before document series, and none numbered since
				}
				if err := j.compareBucket(src.Bucket(name), dst.Bucket(name), string(name)); err != nil {
					return err
				}
			}
			if have, want := numbersOf(src), numbersOf(dst); have.behind(want) || want.behind(have) {
				return j.mismatch("meta", "counters", fmt.Sprintf("receipt %d and Z %d stored, the events give receipt %d and Z %d", have.Receipt, have.Z, want.Receipt, want.Z))
			}
			return nil
		})
	})
}

// compareBucket reports the first key whose value differs between have (the
// journal) and want (the replay).
func (j *Journal) compareBucket(have, want *bolt.Bucket, name string) error {
	if have == nil {
		return j.mismatch(name, "", "the bucket is missing")
	}
	hc, wc := have.Cursor(), want.Cursor()
	hk, hv := hc.First()
	wk, wv := wc.First()
	for hk != nil || wk != nil {
		switch c := bytes.Compare(hk, wk); {
		case hk == nil || (wk != nil && c > 0):
			return j.mismatch(name, printable(wk), "missing: the events give it")
		case wk == nil || c < 0:
			return j.mismatch(name, printable(hk), "stored, but no event gives it")
		case !bytes.Equal(hv, wv):
			return j.mismatch(name, printable(hk), "the stored value is not what the events give")
		}
		hk, hv = hc.Next()
		wk, wv = wc.Next()
	}
	return nil
}

// printable shows a key with its binary parts (sequences) as numbers.
func printable(k []byte) string {
	if i := bytes.IndexByte(k, sep); i >= 0 && len(k) == i+9 {
		return fmt.Sprintf("%s %d", k[:i], beU64(k[i+1:]))
	}
	if len(k) == 8 {
		return fmt.Sprint(beU64(k))
	}
	return string(k)
}

// VerifyBackup checks a backup file whole (pos.BackupVerifier): VerifyFile.
func (j *Journal) VerifyBackup(ctx context.Context, path string) error {
	_, err := VerifyFileWith(ctx, path, Options{ChainKey: j.rec.key})
	return err
}
