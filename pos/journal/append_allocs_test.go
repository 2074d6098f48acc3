package journal

import (
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	bolt "go.etcd.io/bbolt"

	"galla/pos"
)

// marshalSeal is a record of format 2 as seal wrote it before it encoded the
// body into its codec's buffer: json.Marshal of a copy of the event with its
// chain cleared, the kind built as a string. The reference of
// TestSealMatchesMarshal.
func marshalSeal(s *sealer, ev *pos.Event) ([]byte, [32]byte, error) {
	prev, err := parseHash(ev.PrevHash)
	if err != nil {
		return nil, [32]byte{}, err
	}
	e := *ev
	e.Seq, e.PrevHash, e.Hash = 0, "", ""
	body, err := json.Marshal(&e)
	if err != nil {
		return nil, [32]byte{}, err
	}
	kind := kindOpen + string(ev.Kind) + `"`
	data := make([]byte, recordHeader)
	copy(data, recordMagic)
	if s.keyed() {
		data[3] = flagKeyed
	}
	binary.BigEndian.PutUint64(data[4:12], ev.Seq)
	copy(data[12:44], prev[:])
	data = binary.AppendUvarint(data, uint64(len(kind)))
	data = append(data, kind...)
	data, _ = s.zip.deflateBody(data, body)
	sum := mac(s.key, prev, data[:12], data[recordHeader:])
	copy(data[44:76], sum[:])
	return data, sum, nil
}

// TestSealMatchesMarshal seals the events of a representative day and a busy
// one, a named buyer's sale among them, keyed and unkeyed, and compares each
// record with the one json.Marshal of the event gives: the same bytes, and for
// a body sealed with the data key (whose nonce is new each time) the same hash
// of the plaintext record. The events are left as they were given.
func TestSealMatchesMarshal(t *testing.T) {
	var s script
	evs := s.representative(t)
	evs = append(evs, buyerEvents(t, &s)...)
	evs = append(evs, s.busyDay("2026-11-23", 40, 2)...)
	for _, key := range [][]byte{nil, testKey} {
		t.Run(fmt.Sprintf("keyed %v", key != nil), func(t *testing.T) {
			rec, ref := newSealer(key), newSealer(key)
			ref.v = nil // the reference's records in clear: their hash is the one to match
			var prev [32]byte
			for i, ev := range evs {
				ev.Seq, ev.V, ev.PrevHash, ev.Hash = uint64(i+1), pos.EventVersion, hex.EncodeToString(prev[:]), ""
				before := ev
				data, sum, err := rec.sealPrev(&ev, prev)
				require.NoError(t, err)
				assert.Equal(t, before, ev, "event %d (%s) after it was sealed", ev.Seq, ev.Kind)
				want, wantSum, err := marshalSeal(&ref, &ev)
				require.NoError(t, err)
				assert.Equal(t, wantSum, sum, "hash of event %d (%s)", ev.Seq, ev.Kind)
				if data[3]&flagSealed == 0 {
					assert.Equal(t, want, data, "record of event %d (%s)", ev.Seq, ev.Kind)
				}
				r, err := rec.decode(data)
				require.NoError(t, err, "event %d (%s) decodes", ev.Seq, ev.Kind)
				assert.Equal(t, sum, r.Hash)
				prev = sum
			}
		})
	}
}

// unresolvedListed reports whether the order whose first event is first is in
// unresolved.
func unresolvedListed(t *testing.T, j *Journal, first uint64) bool {
	t.Helper()
	var listed bool
	require.NoError(t, j.core.db.View(func(tx *bolt.Tx) error {
		listed = tx.Bucket(bucketUnresolved).Get(u64(first)) != nil
		return nil
	}))
	return listed
}

// TestMemoForgetsOtherWrites checks the rule of derivedMemo: what an Append
// found in the indexes is believed by the next Append only when no other
// transaction committed between them and its own was not rolled back.
func TestMemoForgetsOtherWrites(t *testing.T) {
	ctx := t.Context()

	t.Run("a commit of another writer between two Appends", func(t *testing.T) {
		j := openTest(t)
		var s script
		sale := s.cardSale("G-MEMO-1", "2026-11-21", 3999900)
		intent := appendAll(t, j, sale[:1])[0]
		require.True(t, unresolvedListed(t, j, intent.Seq))
		// Another writer drops the listing: the next event, which leaves the
		// order unresolved, lists it again, as derive on the file does.
		require.NoError(t, j.core.update(func(tx *bolt.Tx) error {
			return tx.Bucket(bucketUnresolved).Delete(u64(intent.Seq))
		}))
		appendAll(t, j, sale[1:2])
		assert.True(t, unresolvedListed(t, j, intent.Seq), "listed again after the other writer's commit")
		appendAll(t, j, sale[2:])
		assert.False(t, unresolvedListed(t, j, intent.Seq), "paid")
		require.NoError(t, j.Log.checkDerived(ctx))
	})

	t.Run("an Append rolled back after its order was derived", func(t *testing.T) {
		j := openTest(t)
		var s script
		sale := s.cardSale("G-MEMO-2", "2026-11-21", 3999900)
		got := appendAll(t, j, sale[:4])
		// The CHARGED answer with a receipt number out of sequence: its
		// order is derived (paid, no longer unresolved) before the number is
		// refused, and the transaction rolls back.
		wrong := sale[4]
		wrong.ReceiptNo += 5
		_, err := j.Log.Append(ctx, wrong)
		require.ErrorIs(t, err, pos.ErrSequence)
		require.True(t, unresolvedListed(t, j, got[0].Seq), "the refused answer changed nothing")
		appendAll(t, j, sale[4:])
		assert.False(t, unresolvedListed(t, j, got[0].Seq), "paid by the answer appended after the refused one")
		require.NoError(t, j.Log.checkDerived(ctx))
	})

	t.Run("interleaved sales, batches, stale answers, closes and a rebuild", func(t *testing.T) {
		j := openTest(t)
		var s script
		// Made in the order their receipt numbers are handed out.
		sales := [][]pos.Event{
			s.cashSale("G-MEMO-4", "2026-11-21", 49900),
			s.cardSale("G-MEMO-3", "2026-11-21", 3999900),
			s.unknownSale("G-MEMO-5", "2026-11-21", 129900),
			s.cardSale("G-MEMO-6", "2026-11-21", 250000),
		}
		// Round robin over the sales: no two events of one order in a row.
		for step := 0; ; step++ {
			done := true
			for _, sale := range sales {
				if step < len(sale) {
					appendAll(t, j, sale[step:step+1])
					done = false
				}
			}
			if done {
				break
			}
		}
		// A late FAILED answer for a paid order: stale.
		appendAll(t, j, []pos.Event{{Kind: pos.EvPaymentOutcome, OrderID: "G-MEMO-3", Day: "2026-11-21", Time: s.next(), Outcome: &pos.Outcome{
			MerchantOrderID: "G-MEMO-3", ServiceOrderID: "SG-MEMO-3", PaymentID: "PG-MEMO-3", OrderStatus: "FAILED", PaymentStatus: "FAILED", Amount: 3999900}}})
		// An event refused as the first of a batch, then the batch right.
		_, err := j.Log.AppendBatch(ctx, []pos.Event{{Kind: pos.EvOrderCreated, OrderID: "G-MEMO-NONE", Day: "2026-11-21", Time: s.next(), Created: &pos.Created{ServiceOrderID: "S", Token: "t"}}})
		require.ErrorIs(t, err, pos.ErrOrderNotFound)
		_, err = j.Log.AppendBatch(ctx, s.cardSale("G-MEMO-7", "2026-11-21", 99900))
		require.NoError(t, err)
		require.NoError(t, j.Log.Rebuild(ctx))
		appendAll(t, j, s.refund("G-MEMO-6", "2026-11-21", 250000))
		appendAll(t, j, []pos.Event{{Kind: pos.EvDayClosed, Day: "2026-11-21", Time: s.next(), Staff: "001",
			DayClose: &pos.DayClose{Day: "2026-11-21", ZNo: 1, Report: json.RawMessage(`{"sales":4}`)}}})
		_, err = j.Log.Append(ctx, s.intent("G-MEMO-8", "2026-11-20", pos.TenderCash, 100))
		assert.True(t, errors.Is(err, pos.ErrDayClosed), "an event dated before the close: %v", err)
		appendAll(t, j, s.cashSale("G-MEMO-9", "2026-11-22", 49900))
		require.NoError(t, j.Log.checkDerived(ctx))
	})
}

// TestHeadMemoForgetsARollBack: the head an Append chains to is the one the
// Append before left only when its transaction committed; a batch refused after
// its first event was stored (the head it remembered rolled back with it) and
// another writer's events (a raw commit) are chained after as they are.
func TestHeadMemoForgetsARollBack(t *testing.T) {
	ctx := t.Context()
	j := openTest(t)
	var s script
	sale := s.cashSale("G-HEAD-1", "2026-11-21", 49900)
	appendAll(t, j, sale[:1])
	// The second event of the batch is refused: the first, stored in the same
	// transaction, rolls back with it.
	_, err := j.Log.AppendBatch(ctx, []pos.Event{sale[1], {Kind: pos.EvOrderCreated, OrderID: "G-NONE", Day: "2026-11-21", Time: s.next()}})
	require.ErrorIs(t, err, pos.ErrOrderNotFound)
	stored := appendAll(t, j, sale[1:])
	assert.Equal(t, uint64(2), stored[0].Seq, "chained after the event committed")
	// Another writer's commit moves the head without the memo.
	require.NoError(t, j.core.update(func(tx *bolt.Tx) error {
		events := tx.Bucket(bucketEvents)
		seq, h, _ := headIn(events)
		ev := pos.Event{Kind: pos.EvSettingsChanged, V: pos.EventVersion, Seq: seq + 1, PrevHash: hex.EncodeToString(h[:]), Time: s.next(),
			Setting: &pos.Setting{Key: "raw", Value: []byte(`1`)}}
		require.NoError(t, derive(tx, &ev, nil, j.core.proofs))
		data, sum, err := j.core.rec.seal(&ev)
		require.NoError(t, err)
		require.NoError(t, events.Put(u64(ev.Seq), data))
		return events.SetSequence(headMark(ev.Seq, sum))
	}))
	next := appendAll(t, j, []pos.Event{{Kind: pos.EvSettingsChanged, Time: s.next(), Setting: &pos.Setting{Key: "after", Value: []byte(`2`)}}})
	assert.Equal(t, uint64(4), next[0].Seq, "chained after the other writer's event")
	require.NoError(t, j.Log.VerifyAll(ctx))
}
