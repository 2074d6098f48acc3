package journal

import (
	"bytes"
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"

	bolt "go.etcd.io/bbolt"

	"galla/pos"
)

// Days reads the closed days: a day's Z report, the last Z number, the
// checkpoints Z reports seal and their digests (pos.ZDigester), and CheckDay,
// the replay of a day's derived records the engine runs before its Z report
// (pos.DayChecker).
type Days struct{ *journalCore }

// DayClose returns the sealed Z report of day's last period (ADR 0010: a date
// may have more than one), or nil when no Z report closed the date.
func (dy *Days) DayClose(ctx context.Context, day string) (*pos.DayClose, error) {
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("journal: day close %s: %w", day, err)
	}
	var dc *pos.DayClose
	err := dy.view(func(tx *bolt.Tx) error {
		zno := tx.Bucket(bucketClosedDays).Get([]byte(day))
		if zno == nil {
			return nil
		}
		raw, err := dy.provedGet(tx, bucketZ, zno)
		if err != nil {
			return err
		}
		if raw == nil {
			return fmt.Errorf("the Z report of a closed day is missing")
		}
		dc = new(pos.DayClose)
		if err := json.Unmarshal(raw, dc); err != nil {
			return err
		}
		if dc.Day != day {
			// The index closed_days carries no proof of its own: the Z
			// report it names must be the date's.
			return dy.refuse(string(bucketClosedDays), day, fmt.Sprintf("the index gives the date Z report %d, which closed %s: the index was changed outside Galla", beU64(zno), dc.Day))
		}
		if cps := tx.Bucket(bucketCheckpoints); cps != nil {
			if cp, ok := decodeCheckpoint(beU64(zno), cps.Get(zno)); ok {
				dc.Seq = cp.Seq
			}
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("journal: day close %s: %w", day, err)
	}
	return dc, nil
}

// LastZ returns the number of the last Z report, 0 when none.
func (dy *Days) LastZ(ctx context.Context) (uint64, error) {
	return dy.counter(ctx, "last Z", func(meta *bolt.Bucket) uint64 { return getU64(meta, metaZ) })
}

// LastCheckpoint returns the checkpoint of the newest Z report; ok is false when
// no day was closed yet. Its Digest is the one to print on the Z report and to
// send to the store server: an anchor outside the file.
func (dy *Days) LastCheckpoint(ctx context.Context) (c Checkpoint, ok bool, err error) {
	if err := ctx.Err(); err != nil {
		return Checkpoint{}, false, fmt.Errorf("journal: last checkpoint: %w", err)
	}
	err = dy.view(func(tx *bolt.Tx) error {
		var err error
		c, ok, err = lastCheckpoint(tx)
		return err
	})
	if err != nil {
		return Checkpoint{}, false, fmt.Errorf("journal: last checkpoint: %w", err)
	}
	return c, ok, nil
}

// ZDigest is the seal of Z report zno to print on it and send to the store server
// (pos.ZDigester): hex SHA-256 of the checkpoint's chain hash, event count and
// derived-state digest, 64 hex digits; an HMAC-SHA256 with the chain key of the
// same when the Z report's event is keyed, so that only the terminal's key can
// make it.
func (dy *Days) ZDigest(ctx context.Context, zno uint64) (string, error) {
	if err := ctx.Err(); err != nil {
		return "", fmt.Errorf("journal: Z digest: %w", err)
	}
	var (
		c     Checkpoint
		found bool
		key   []byte
	)
	err := dy.view(func(tx *bolt.Tx) error {
		b := tx.Bucket(bucketCheckpoints)
		if b == nil {
			return nil
		}
		if c, found = decodeCheckpoint(zno, b.Get(u64(zno))); !found {
			return nil
		}
		r, err := dy.rec.decode(tx.Bucket(bucketEvents).Get(u64(c.Seq)))
		if err != nil {
			return dy.corrupt(c.Seq, err.Error())
		}
		key = dy.rec.keyOf(r)
		return nil
	})
	if err != nil {
		return "", fmt.Errorf("journal: Z digest %d: %w", zno, err)
	}
	if !found {
		return "", nil // a Z report of before checkpoints: no seal
	}
	h := sha256.New()
	if key != nil {
		h = hmac.New(sha256.New, key)
	}
	h.Write(c.Hash[:])
	h.Write(binary.BigEndian.AppendUint64(nil, c.Events))
	h.Write(c.Digest[:])
	return hex.EncodeToString(h.Sum(nil)), nil
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
func (dy *Days) CheckDay(ctx context.Context, day string) error {
	if err := checkDay(day); err != nil {
		return fmt.Errorf("journal: check day: %w", err)
	}
	err := dy.view(func(tx *bolt.Tx) error {
		// The orders listed under the day, by their first sequence.
		listed := map[string]uint64{}
		prefix := dayPrefix(day)
		dc := tx.Bucket(bucketDays).Cursor()
		for k, id := dc.Seek(prefix); k != nil && bytes.HasPrefix(k, prefix); k, id = dc.Next() {
			if len(k) != len(prefix)+8 {
				return dy.mismatch("days", string(k), "a malformed key")
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
			ev, err := dy.storedEvent(k, v)
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
				if ev.DayClose.Day == day && zEvent == nil {
					zEvent = ev.DayClose // the date's last Z (ADR 0010)
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
				return dy.mismatch("days", day+" "+id, "the order has events on the day but is not listed under it")
			}
		}
		for id, first := range listed {
			if err := dy.checkOrder(tx, id, day, first); err != nil {
				return err
			}
		}
		have := numbersOf(tx)
		if have.Receipt < newest.Receipt {
			return dy.mismatch("meta", "receipt_no", fmt.Sprintf("the counter is %d, but receipt number %d was handed out", have.Receipt, newest.Receipt))
		}
		if have.Z < newest.Z {
			return dy.mismatch("meta", "z_no", fmt.Sprintf("the counter is %d, but Z report %d was taken", have.Z, newest.Z))
		}
		if s, behind := have.behindSeries(newest); behind {
			return dy.mismatch("documents", s, fmt.Sprintf("the counter is %d, but number %d was handed out", have.Series[s], newest.Series[s]))
		}
		return dy.checkZ(tx, day, zEvent)
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

// checkZ compares the closed day and Z report of day with its last day.closed
// event (nil when the scan found none).
func (dy *Days) checkZ(tx *bolt.Tx, day string, ev *pos.DayClose) error {
	zno := tx.Bucket(bucketClosedDays).Get([]byte(day))
	switch {
	case ev == nil && zno == nil:
		return nil
	case ev == nil:
		return dy.mismatch("closed_days", day, "the day is marked closed but no day.closed event closes it")
	case zno == nil || beU64(zno) != ev.ZNo:
		return dy.mismatch("closed_days", day, fmt.Sprintf("the day was closed by Z report %d", ev.ZNo))
	}
	want, err := json.Marshal(ev)
	if err != nil {
		return err
	}
	if !bytes.Equal(want, tx.Bucket(bucketZ).Get(zno)) {
		return dy.mismatch("z_reports", fmt.Sprint(ev.ZNo), "the stored Z report is not the one its day.closed event sealed")
	}
	return nil
}
