package store

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"galla/pos"
	"galla/store/api"
)

// refused journals ev as add does, an event pos refuses: the counter's order
// stays as it was (pos.Order.Apply), and the store gets it as any other.
// It checks that ev, folded in place (pos.Order.ApplyInPlace), leaves a copy
// of the order partly changed: the case the projector must undo.
func (c *counter) refused(ev pos.Event) {
	c.t.Helper()
	c.seq++
	c.clock = c.clock.Add(time.Minute)
	ev.V, ev.Seq, ev.Time, ev.PrevHash = pos.EventVersion, c.seq, c.clock, c.prev
	h := sha256.Sum256(fmt.Appendf(nil, "%s|%s|%d|%s", c.id, c.prev, c.seq, ev.Kind))
	ev.Hash = hex.EncodeToString(h[:])
	o := c.orders[ev.OrderID]
	require.NotNil(c.t, o, "the order of the refused event")
	was := o.Clone()
	require.Error(c.t, o.Apply(ev))
	require.Equal(c.t, was, o, "a refused Apply leaves the order as it was")
	partly := o.Clone()
	require.Error(c.t, partly.ApplyInPlace(ev))
	require.NotEqual(c.t, was, partly, "the event, folded in place, leaves the order partly changed")
	body, err := json.Marshal(ev)
	require.NoError(c.t, err)
	c.events = append(c.events, api.Event{Seq: ev.Seq, Hash: ev.Hash, PrevHash: ev.PrevHash, Kind: string(ev.Kind), Day: ev.Day, Body: body})
	c.prev = ev.Hash
}

// refusedThenPaid journals, for card order id (created, no attempt yet),
// times a payment.accepted without a payment id, which pos refuses after
// recording the attempt it starts (so in place it leaves the order PAYING
// with an attempt), then the attempt and the charge that the order as it was
// takes.
func (c *counter) refusedThenPaid(id, day string, times int) {
	for range times {
		c.refused(pos.Event{Kind: pos.EvPaymentAccepted, OrderID: id, Day: day, Attempt: &pos.AttemptEvent{N: 1, CardBrand: "VISA", CardLast4: "4242"}})
	}
	amount := c.orders[id].Amount
	c.add(pos.Event{Kind: pos.EvPaymentAttempt, OrderID: id, Day: day, Attempt: &pos.AttemptEvent{N: 1, CardBrand: "VISA", CardLast4: "1111"}})
	c.receipt++
	c.add(pos.Event{Kind: pos.EvPaymentOutcome, OrderID: id, Day: day, ReceiptNo: c.receipt, Outcome: &pos.Outcome{
		MerchantOrderID: id, ServiceOrderID: "S-" + id, PaymentID: "P-" + id, OrderStatus: "CHARGED", PaymentStatus: "CAPTURED",
		Amount: amount, Captured: amount, MaskedCard: "XXXX1111"}})
}

// createdCard journals a card sale's intent and its order created.
func (c *counter) createdCard(id, day string) {
	c.intent(id, day, pos.TenderCard, "", line("CASE-A55", 1, 499, 18))
	c.add(pos.Event{Kind: pos.EvOrderCreated, OrderID: id, Day: day, Created: &pos.Created{ServiceOrderID: "S-" + id, Token: "tok"}})
}

// An event pos refuses in the middle of a batch leaves its order as it was
// before it, for the batch's later events and in the row stored: the
// projector folds the events in place (pos.Order.ApplyInPlace), which leaves
// an order it refuses partly changed. Three orders: one new in the batch
// (refused in its first part), one stored by an earlier batch (refused
// twice), one new
// whose refusal comes after the batch's first part was written. Each order
// stored is the counter's own, folded by pos.Order.Apply.
func TestRefusedEventMidBatchLeavesTheOrderAsItWas(t *testing.T) {
	db := newDB(t)
	enrolled(t, db, "T1")
	ctx := t.Context()
	c := newCounter(t, "T1")

	c.createdCard("T1-STORED", day1)
	first := c.sent()
	_, err := db.Events.Ingest(ctx, "T1", first)
	require.NoError(t, err)
	require.NoError(t, db.Projections.ProjectBatch(ctx, "T1", first))

	c.createdCard("T1-NEW", day1)
	c.refusedThenPaid("T1-NEW", day1, 1)
	c.refusedThenPaid("T1-STORED", day1, 2) // the second applied by Apply (careful)
	const part = 250                        // events a part (subChunk in a catch-up)
	c.events = daySales(c, 2*part)          // the same batch
	c.createdCard("T1-LATE", day1)
	c.refusedThenPaid("T1-LATE", day1, 1)
	second := c.sent()
	require.Greater(t, len(second), part+50, "the last refusal comes after the first part's writes")
	_, err = db.Events.Ingest(ctx, "T1", second)
	require.NoError(t, err)
	// In one go, in parts.
	tx, err := db.Pool().Begin(ctx)
	require.NoError(t, err)
	defer func() { _ = tx.Rollback(ctx) }()
	rows, err := readEvents(ctx, tx, db.core.vault(), "T1", int64(first[len(first)-1].Seq), len(second))
	require.NoError(t, err)
	require.Len(t, rows, len(second))
	require.NoError(t, projectRows(ctx, tx, db.core.vault(), "T1", rows, part))
	require.NoError(t, tx.Commit(ctx))
	var alarms int
	require.NoError(t, db.Pool().QueryRow(ctx, "SELECT count(*) FROM alarms WHERE terminal_id = 'T1'").Scan(&alarms))
	require.Zero(t, alarms, "no event was skipped")

	for _, id := range []string{"T1-NEW", "T1-STORED", "T1-LATE"} {
		var snap []byte
		var state string
		require.NoError(t, db.Pool().QueryRow(ctx, "SELECT snapshot, state FROM orders WHERE terminal_id = 'T1' AND order_id = $1", id).Scan(&snap, &state))
		want, err := json.Marshal(c.orders[id])
		require.NoError(t, err)
		assert.JSONEq(t, string(want), string(snap), "order %s as the counter folds it", id)
		assert.Equal(t, string(pos.StatePaid), state, id)
		var got pos.Order
		require.NoError(t, json.Unmarshal(snap, &got))
		if assert.Len(t, got.Attempts, 1, id) {
			assert.Equal(t, "1111", got.Attempts[0].CardLast4, "%s: the attempt journaled, not the refused answer's", id)
		}
	}
}
