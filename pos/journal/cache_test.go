package journal

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	bolt "go.etcd.io/bbolt"

	"galla/pos"
)

// storedOrder decodes the order stored under id straight from the file,
// bypassing the cache.
func storedOrder(t *testing.T, j *Journal, id string) *pos.Order {
	t.Helper()
	var o pos.Order
	require.NoError(t, j.core.db.View(func(tx *bolt.Tx) error {
		raw := tx.Bucket(bucketOrders).Get([]byte(id))
		require.NotNil(t, raw, "order %s is stored", id)
		return json.Unmarshal(raw, &o)
	}))
	return &o
}

// TestOrderReadsMatchTheFile checks that Order, which serves the order Append
// wrote last from memory, returns exactly what the file holds after every step
// of a sale, and that changing a returned order changes neither the file nor
// the next read.
func TestOrderReadsMatchTheFile(t *testing.T) {
	j := openTest(t)
	ctx := t.Context()
	var s script
	const id = "G-CACHE-1"
	for _, ev := range s.cardSale(id, "2026-11-21", 3999900) {
		_, err := j.Log.Append(ctx, ev)
		require.NoError(t, err)
		got, err := j.Orders.Order(ctx, id)
		require.NoError(t, err)
		assert.Equal(t, storedOrder(t, j, id), got, "Order(%s) after %s", id, ev.Kind)

		got.State, got.Attempts = pos.StateFailed, nil
		again, err := j.Orders.Order(ctx, id)
		require.NoError(t, err)
		assert.Equal(t, storedOrder(t, j, id), again, "Order(%s) after the caller changed its copy", id)
	}
}

// TestOrderCacheNeedsTheStoredBytes checks that the cache never serves an order
// whose stored bytes differ from the ones it remembers (a rebuild or another
// writer changed them): Order then decodes the file.
func TestOrderCacheNeedsTheStoredBytes(t *testing.T) {
	j := openTest(t)
	ctx := t.Context()
	var s script
	const id = "G-CACHE-2"
	appendAll(t, j, s.cashSale(id, "2026-11-21", 49900))

	want := storedOrder(t, j, id)
	want.Reason = "changed behind the cache's back"
	data, err := json.Marshal(want)
	require.NoError(t, err)
	// Written with its proof, as the journal would write it: the cache must
	// serve the new bytes, not the ones it remembers.
	require.NoError(t, j.core.db.Update(func(tx *bolt.Tx) error {
		orders := tx.Bucket(bucketOrders)
		k, _ := lastOrderEvent(orders, []byte(id))
		require.NoError(t, orders.Put(k, j.core.proofs.sum(bucketOrders, k, data)))
		return orders.Put([]byte(id), data)
	}))

	got, err := j.Orders.Order(ctx, id)
	require.NoError(t, err)
	assert.Equal(t, "changed behind the cache's back", got.Reason)
}
