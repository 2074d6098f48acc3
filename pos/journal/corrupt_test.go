package journal

import (
	"bytes"
	"context"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	bolt "go.etcd.io/bbolt"

	"galla/pos"
)

// flipKind flips the case of the first letter of the event's kind (in the JSON
// of a record of format 1, in the kind in clear of format 2): the value still
// decodes, but its bytes no longer match its hash.
func flipKind(t *testing.T, v []byte) []byte {
	t.Helper()
	v = bytes.Clone(v) // bbolt's values are read-only
	i := bytes.Index(v, []byte(`"kind":"`))
	require.GreaterOrEqual(t, i, 0, "no kind in %s", v)
	v[i+len(`"kind":"`)] ^= 0x20
	return v
}

// reseal adds a note to the event and gives it a matching own hash, with the
// unkeyed chain: the event checks out alone in an unkeyed journal, and only the
// chain shows the change.
func reseal(t *testing.T, v []byte) ([]byte, [32]byte) {
	t.Helper()
	r, err := decodeRecord(v)
	require.NoError(t, err)
	ev, err := r.event()
	require.NoError(t, err)
	ev.Extra = map[string]string{"note": "edited afterwards"}
	data, sum, err := sealEvent(&ev)
	require.NoError(t, err)
	return data, sum
}

// sealV1 encodes ev, whose Seq and PrevHash are set, as a record of format 1,
// as schema versions 1 and 2 wrote it.
func sealV1(t testing.TB, ev pos.Event) ([]byte, [32]byte) {
	t.Helper()
	prev, err := parseHash(ev.PrevHash)
	require.NoError(t, err)
	ev.Hash = ""
	body, err := json.Marshal(ev)
	require.NoError(t, err)
	sum := chainHash(prev, body)
	data := fmt.Appendf(nil, `{"v":1,"hash":"%x","event":%s}`, sum, body)
	return data, sum
}

// TestTamperIsDetected damages the events after the last checkpoint (the
// representative script's Z report is event 23), the part start-up verifies;
// TestStartUpVerifiesFromTheLastCheckpoint covers the events before it.
func TestTamperIsDetected(t *testing.T) {
	const target = 25
	tests := []struct {
		name   string
		tamper func(t *testing.T, events, meta *bolt.Bucket, last uint64) error
		want   func(last uint64) uint64 // the sequence the error must name
		head   bool                     // the head record beside the file finds it at Open, deferred or not
	}{
		{"a byte of an event flipped", func(t *testing.T, events, _ *bolt.Bucket, _ uint64) error {
			return events.Put(u64(target), flipKind(t, events.Get(u64(target))))
		}, func(uint64) uint64 { return target }, false},
		{"a byte of the last event flipped", func(t *testing.T, events, _ *bolt.Bucket, last uint64) error {
			return events.Put(u64(last), flipKind(t, events.Get(u64(last))))
		}, func(last uint64) uint64 { return last }, false},
		{"an event rewritten with its own hash redone", func(t *testing.T, events, _ *bolt.Bucket, _ uint64) error {
			data, _ := reseal(t, events.Get(u64(target)))
			return events.Put(u64(target), data)
		}, func(uint64) uint64 { return target + 1 }, false},
		{"the last event rewritten with its own hash redone", func(t *testing.T, events, _ *bolt.Bucket, last uint64) error {
			data, _ := reseal(t, events.Get(u64(last)))
			return events.Put(u64(last), data)
		}, func(last uint64) uint64 { return last }, true},
		{"an event deleted", func(_ *testing.T, events, _ *bolt.Bucket, _ uint64) error {
			return events.Delete(u64(target))
		}, func(uint64) uint64 { return target }, false},
		{"the last event deleted", func(_ *testing.T, events, _ *bolt.Bucket, last uint64) error {
			return events.Delete(u64(last))
		}, func(last uint64) uint64 { return last }, true},
		{"the hash field overwritten", func(t *testing.T, events, _ *bolt.Bucket, _ uint64) error {
			v := bytes.Clone(events.Get(u64(target)))
			v[44] ^= 1 // the first byte of the hash in the header
			return events.Put(u64(target), v)
		}, func(uint64) uint64 { return target }, false},
		{"the record format changed", func(t *testing.T, events, _ *bolt.Bucket, _ uint64) error {
			v := bytes.Clone(events.Get(u64(target)))
			v[2] = 7
			return events.Put(u64(target), v)
		}, func(uint64) uint64 { return target }, false},
		{"the keyed flag set on an unkeyed event", func(t *testing.T, events, _ *bolt.Bucket, _ uint64) error {
			v := bytes.Clone(events.Get(u64(target)))
			v[3] |= flagKeyed
			return events.Put(u64(target), v)
		}, func(uint64) uint64 { return target }, false},
		{"garbage stored as an event", func(_ *testing.T, events, _ *bolt.Bucket, _ uint64) error {
			return events.Put(u64(target), []byte("\x00\xffnot json"))
		}, func(uint64) uint64 { return target }, false},
		{"the head moved back", func(_ *testing.T, events, _ *bolt.Bucket, last uint64) error {
			// The mark of the head (schema 8) names the event before the last.
			seq, h, _ := headOfLast(u64(last-1), events.Get(u64(last-1)))
			return events.SetSequence(headMark(seq, h))
		}, func(last uint64) uint64 { return last }, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			j := openTest(t)
			var s script
			stored := appendAll(t, j, s.representative(t))
			last := uint64(len(stored))
			backup, err := j.Archive.BackupDay("2026-11-21")
			require.NoError(t, err)
			path := j.Path()
			require.NoError(t, j.Close())

			rawUpdate(t, path, func(tx *bolt.Tx) error {
				return tt.tamper(t, tx.Bucket(bucketEvents), tx.Bucket(bucketMeta), last)
			})

			j2, err := Open(path, Options{})
			if j2 != nil {
				_ = j2.Close()
			}
			require.Error(t, err, "Open of a tampered journal")
			assert.ErrorIs(t, err, ErrCorrupt)
			var ce *CorruptError
			require.True(t, errors.As(err, &ce), "a *CorruptError: %v", err)
			want := tt.want(last)
			assert.Equal(t, want, ce.Seq, "the broken sequence")
			assert.Contains(t, err.Error(), fmt.Sprintf("corrupt at event %d", want))
			assert.Contains(t, err.Error(), "the last backup is at "+backup)
			assert.Equal(t, backup, ce.Backup)

			if tt.head {
				_, derr := Open(path, Options{DeferVerify: true})
				var dce *CorruptError
				require.ErrorAs(t, derr, &dce, "Open with DeferVerify")
				assert.Equal(t, want, dce.Seq, "the sequence the head record names")
				// Without the head record, the chain's own check finds it.
				require.NoError(t, os.Remove(HeadPath(path)))
				_, err = Open(path, Options{})
				require.ErrorAs(t, err, &ce)
				assert.Equal(t, want, ce.Seq, "the broken sequence, found by the chain")
				return
			}
			// Deferred, Open does not walk the chain; Verify then finds the same
			// damage, says it the same way and remembers it.
			d, derr := Open(path, Options{DeferVerify: true})
			require.NoError(t, derr, "Open with DeferVerify of a tampered journal")
			done, verr := d.Log.Verified()
			assert.False(t, done, "verified before Verify")
			assert.NoError(t, verr)
			verr = d.Log.Verify(t.Context())
			require.ErrorIs(t, verr, ErrCorrupt)
			assert.Equal(t, err.Error(), verr.Error(), "Verify's error is Open's")
			var vce *CorruptError
			require.ErrorAs(t, verr, &vce)
			assert.Equal(t, ce.Sentence(), vce.Sentence())
			done, verr = d.Log.Verified()
			assert.True(t, done, "verified after Verify")
			assert.Equal(t, err.Error(), verr.Error())
			assert.ErrorIs(t, d.Log.Verify(t.Context()), ErrCorrupt, "a failure stays")
			require.NoError(t, d.Close())

			// The backup itself opens.
			b, err := Open(backup, Options{})
			require.NoError(t, err)
			require.NoError(t, b.Close())
		})
	}
}

// TestStartUpVerifiesFromTheLastCheckpoint: Open and Verify walk the chain from
// the last Z report's checkpoint, so an event changed before it is found by
// VerifyAll and VerifyFile (galla journal verify), not at start-up; the
// checkpoint's own event is checked at start-up.
func TestStartUpVerifiesFromTheLastCheckpoint(t *testing.T) {
	const zSeq = 23 // the day.closed of the representative script
	tests := []struct {
		name      string
		seq       uint64
		atStartUp bool // Open finds it
	}{
		{"an event before the checkpoint", 5, false},
		{"the checkpoint's own event", zSeq, true},
		{"the event after the checkpoint", zSeq + 1, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			j := openTest(t)
			var s script
			stored := appendAll(t, j, s.representative(t))
			require.Equal(t, pos.EvDayClosed, stored[zSeq-1].Kind)
			cp, ok, err := j.Days.LastCheckpoint(t.Context())
			require.NoError(t, err)
			require.True(t, ok, "a checkpoint after the Z report")
			assert.Equal(t, Checkpoint{ZNo: 1, Seq: zSeq, Hash: cp.Hash, Events: zSeq, Digest: cp.Digest}, cp)
			assert.Equal(t, stored[zSeq-1].Hash, hex.EncodeToString(cp.Hash[:]))
			path := j.Path()
			require.NoError(t, j.Close())
			rawUpdate(t, path, func(tx *bolt.Tx) error {
				events := tx.Bucket(bucketEvents)
				data, _ := reseal(t, events.Get(u64(tt.seq)))
				return events.Put(u64(tt.seq), data)
			})

			j2, err := Open(path, Options{})
			if tt.atStartUp {
				require.ErrorIs(t, err, ErrCorrupt, "Open")
			} else {
				require.NoError(t, err, "Open verifies from the checkpoint only")
				assert.ErrorIs(t, j2.Log.VerifyAll(t.Context()), ErrCorrupt, "VerifyAll")
				require.NoError(t, j2.Close())
			}
			_, err = VerifyFile(t.Context(), path)
			require.ErrorIs(t, err, ErrCorrupt, "VerifyFile")
			var ce *CorruptError
			require.ErrorAs(t, err, &ce)
			assert.Equal(t, tt.seq+1, ce.Seq, "the event whose link breaks")
		})
	}
}

// TestCheckpointDigestIsReplayed: a derived record of a closed day changed by
// hand (and the day's checkpoint digest with it) is found by VerifyFile's replay.
func TestCheckpointDigestIsReplayed(t *testing.T) {
	j := openTest(t)
	var s script
	appendAll(t, j, s.representative(t))
	path := j.Path()
	require.NoError(t, j.Close())
	rawUpdate(t, path, func(tx *bolt.Tx) error {
		b := tx.Bucket(bucketCheckpoints)
		v := bytes.Clone(b.Get(u64(1)))
		v[len(v)-1] ^= 1
		return b.Put(u64(1), v)
	})
	j2, err := Open(path, Options{})
	require.NoError(t, err, "start-up does not replay the digest")
	require.NoError(t, j2.Close())
	_, err = VerifyFile(t.Context(), path)
	require.ErrorIs(t, err, ErrDerivedMismatch)
	var me *MismatchError
	require.ErrorAs(t, err, &me)
	assert.Equal(t, "checkpoints", me.Bucket)
}

func TestCorruptWithoutBackup(t *testing.T) {
	j := openTest(t)
	var s script
	appendAll(t, j, s.cashSale("G-1", "2026-11-21", 100))
	path := j.Path()
	require.NoError(t, j.Close())
	rawUpdate(t, path, func(tx *bolt.Tx) error {
		return tx.Bucket(bucketEvents).Put(u64(1), flipKind(t, tx.Bucket(bucketEvents).Get(u64(1))))
	})
	_, err := Open(path, Options{BackupDir: filepath.Join(t.TempDir(), "none")})
	require.ErrorIs(t, err, ErrCorrupt)
	assert.Contains(t, err.Error(), "corrupt at event 1")
	assert.Contains(t, err.Error(), "no backup was found")
}

func TestDecodeEventRoundTrip(t *testing.T) {
	var s script
	for _, ev := range s.representative(t) {
		ev.Seq, ev.PrevHash = 3, hex.EncodeToString(bytes.Repeat([]byte{0xab}, 32))
		data, sum, err := sealEvent(&ev)
		require.NoError(t, err)
		got, err := DecodeEvent(data)
		require.NoError(t, err, "DecodeEvent(%s)", data)
		assert.Equal(t, hex.EncodeToString(sum[:]), got.Hash)
		assert.Equal(t, ev.Kind, got.Kind)
		assert.Equal(t, ev.OrderID, got.OrderID)
		assert.Equal(t, uint64(3), got.Seq)
		assert.Equal(t, ev.PrevHash, got.PrevHash)
	}
}

// FuzzDecodeEvent feeds the stored-event decoder anything at all: it must never
// panic, and whatever it accepts must hash to what it claims.
func FuzzDecodeEvent(f *testing.F) {
	var s script
	for i, ev := range s.representative(f) {
		ev.Seq, ev.PrevHash = uint64(i+1), hex.EncodeToString(make([]byte, 32))
		data, _, err := sealEvent(&ev)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
	f.Add([]byte(`{}`))
	f.Add([]byte(`{"v":1}`))
	f.Add([]byte(`{"v":1,"hash":"","event":{}}`))
	f.Add([]byte(`{"v":1,"hash":"00","event":{"seq":1,"prev_hash":"zz"}}`))
	f.Add([]byte(`{"v":1,"hash":"` + hex.EncodeToString(make([]byte, 32)) + `","event":[1,2]}`))
	f.Add([]byte(`{"v":1,"hash":1,"event":"x"}`))
	f.Add([]byte("\x00\xff"))
	f.Add([]byte(nil))
	for i, ev := range s.representative(f)[:4] {
		ev.Seq, ev.PrevHash = uint64(i+1), hex.EncodeToString(make([]byte, 32))
		data, _ := sealV1(f, ev)
		f.Add(data)
	}
	f.Add(append([]byte("GJ\x02\x00"), make([]byte, 80)...))
	f.Add(append([]byte("GJ\x02\x01"), make([]byte, 80)...))
	f.Fuzz(func(t *testing.T, data []byte) {
		ev, err := DecodeEvent(data)
		if err != nil {
			return
		}
		r, err := decodeRecord(data)
		if err != nil {
			t.Fatalf("DecodeEvent accepted what decodeRecord refuses: %v", err)
		}
		if ev.Seq == 0 || ev.Hash != hex.EncodeToString(r.Hash[:]) {
			t.Fatalf("DecodeEvent = seq %d hash %s; want seq > 0 and hash %x", ev.Seq, ev.Hash, r.Hash)
		}
		switch r.Format {
		case recordV1:
			if chainHash(r.Prev, r.body) != r.Hash {
				t.Fatalf("accepted an event of format 1 whose hash does not match")
			}
		case recordV2:
			if r.Keyed || mac(nil, r.Prev, data[:12], data[recordHeader:]) != r.Hash || string(ev.Kind) != r.kind {
				t.Fatalf("accepted an event of format 2 whose hash does not match")
			}
		default:
			t.Fatalf("format %d", r.Format)
		}
	})
}

func TestBrokenPageIsDetected(t *testing.T) {
	j := openTest(t)
	var s script
	appendAll(t, j, s.representative(t))
	var root uint64
	require.NoError(t, j.core.db.View(func(tx *bolt.Tx) error {
		root = uint64(tx.Bucket(bucketOrders).Root())
		return nil
	}))
	require.NotZero(t, root, "the orders bucket has a page of its own")
	pageSize := j.core.db.Info().PageSize
	path := j.Path()
	require.NoError(t, j.Close())

	// Give the page the freelist's type: a leaf no longer.
	f, err := os.OpenFile(path, os.O_RDWR, 0)
	require.NoError(t, err)
	_, err = f.WriteAt([]byte{0x10, 0x00}, int64(root)*int64(pageSize)+8)
	require.NoError(t, err)
	require.NoError(t, f.Close())

	_, err = Open(path, Options{})
	require.ErrorIs(t, err, ErrCorrupt)
	var ce *CorruptError
	require.ErrorAs(t, err, &ce)
	assert.Zero(t, ce.Seq, "no event is to blame")
	assert.Contains(t, err.Error(), "bbolt consistency check")

	d, err := Open(path, Options{DeferVerify: true})
	require.NoError(t, err, "Open with DeferVerify leaves the check to Verify")
	t.Cleanup(func() { _ = d.Close() })
	verr := d.Log.Verify(t.Context())
	require.ErrorIs(t, verr, ErrCorrupt)
	assert.Equal(t, ce.Error(), verr.Error())
}

func TestVerified(t *testing.T) {
	tests := []struct {
		name        string
		deferVerify bool
		cancel      bool // Verify with a context already ended
		wantBefore  bool // Verified right after Open
		wantAfter   bool // Verified after Verify
		wantErr     error
	}{
		{"verified inside Open", false, false, true, true, nil},
		{"deferred to Verify", true, false, false, true, nil},
		{"Verify stopped by its context", true, true, false, false, context.Canceled},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			j := openTest(t)
			var s script
			appendAll(t, j, s.representative(t))
			path := j.Path()
			require.NoError(t, j.Close())

			d, err := Open(path, Options{DeferVerify: tt.deferVerify})
			require.NoError(t, err)
			t.Cleanup(func() { _ = d.Close() })
			done, verr := d.Log.Verified()
			assert.Equal(t, tt.wantBefore, done, "Verified after Open")
			assert.NoError(t, verr)

			ctx := t.Context()
			if tt.cancel {
				c, cancel := context.WithCancel(ctx)
				cancel()
				ctx = c
			}
			err = d.Log.Verify(ctx)
			if tt.wantErr != nil {
				assert.ErrorIs(t, err, tt.wantErr)
			} else {
				assert.NoError(t, err)
			}
			done, verr = d.Log.Verified()
			assert.Equal(t, tt.wantAfter, done, "Verified after Verify")
			assert.NoError(t, verr)

			// Reads and appends work while unverified and after.
			_, err = d.Orders.LastReceiptNo(t.Context())
			assert.NoError(t, err)
			appendAll(t, d, s.cashSale("G-late", "2026-11-22", 100))
			assert.NoError(t, d.Log.Verify(t.Context()), "the chain stays whole")
		})
	}
}

func TestDeferVerifyStillVerifiesBeforeRebuild(t *testing.T) {
	j := openTest(t)
	var s script
	appendAll(t, j, s.representative(t))
	path := j.Path()
	require.NoError(t, j.Close())
	rawUpdate(t, path, func(tx *bolt.Tx) error {
		events := tx.Bucket(bucketEvents)
		if err := events.Put(u64(2), flipKind(t, events.Get(u64(2)))); err != nil {
			return err
		}
		return tx.DeleteBucket(bucketOrders)
	})
	_, err := Open(path, Options{DeferVerify: true})
	require.ErrorIs(t, err, ErrCorrupt, "a rebuild would replay damaged events")
}

// TestVerifyBesideAppends runs Verify while sales are appended, as the window
// does at startup; under -race it holds bbolt's check to a transaction that may
// run beside writers.
func TestVerifyBesideAppends(t *testing.T) {
	j := openTest(t)
	var s script
	appendAll(t, j, s.representative(t))
	path := j.Path()
	require.NoError(t, j.Close())
	d, err := Open(path, Options{DeferVerify: true})
	require.NoError(t, err)
	t.Cleanup(func() { _ = d.Close() })

	errs := make(chan error, 1)
	go func() {
		var first error
		for range 20 {
			if err := d.Log.Verify(t.Context()); err != nil && first == nil {
				first = err
			}
		}
		errs <- first
	}()
	for i := range 20 {
		appendAll(t, d, s.cashSale(fmt.Sprintf("G-beside-%d", i), "2026-11-22", 100))
	}
	require.NoError(t, <-errs)
	done, err := d.Log.Verified()
	assert.True(t, done)
	assert.NoError(t, err)
	require.NoError(t, d.Log.Verify(t.Context()), "the chain is whole after the appends")
}

// TestMigrationSealsCheckpoints opens a file of schema 1 (no checkpoints
// bucket): Open migrates it to schema 2 and the rebuild seals a checkpoint at
// every Z report, the events and their hashes untouched.
func TestMigrationSealsCheckpoints(t *testing.T) {
	j := openTest(t)
	var s script
	stored := appendAll(t, j, s.representative(t))
	want := snapshot(t, j)
	path := j.Path()
	require.NoError(t, j.Close())
	rawUpdate(t, path, func(tx *bolt.Tx) error {
		if err := tx.DeleteBucket(bucketCheckpoints); err != nil {
			return err
		}
		return asSchema(tx, 1)
	})
	_, err := VerifyFile(t.Context(), path)
	require.NoError(t, err, "VerifyFile of a file of schema 1")

	j2, err := Open(path, Options{DeferVerify: true})
	require.NoError(t, err)
	t.Cleanup(func() { _ = j2.Close() })
	assert.Equal(t, want, snapshot(t, j2), "the derived buckets, checkpoints included")
	require.NoError(t, j2.core.db.View(func(tx *bolt.Tx) error {
		assert.Equal(t, SchemaVersion(), schemaOf(tx))
		return nil
	}))
	last, err := j2.Log.LastSeq(t.Context())
	require.NoError(t, err)
	ev, err := j2.Log.Event(t.Context(), last)
	require.NoError(t, err)
	assert.Equal(t, stored[len(stored)-1].Hash, ev.Hash, "the chain is untouched")
}
