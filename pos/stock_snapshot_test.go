package pos

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// sealStock seals the stock book's snapshot now and returns its size in
// bytes.
func sealStock(t *testing.T, tl *Till, sj *stockJournal) int {
	t.Helper()
	ctx := t.Context()
	b := &tl.c.sb
	b.mu.Lock()
	b.mark.seq, b.mark.at = 0, b.mark.last.Add(-SnapshotAge)
	err := b.catchUp(ctx, sj)
	b.mu.Unlock()
	require.NoError(t, err)
	sn, ok, err := sj.Snapshot(ctx, snapStock)
	require.NoError(t, err)
	require.True(t, ok)
	return len(sn.Data)
}

// TestStockSnapshotBoundedBySales: the stock book's snapshot holds what is on
// hand, not the history of sales. Ten phones and a box of cables are
// received; a thousand sales each sell a cable, and every hundredth also a
// phone that is then returned to the shelf. The snapshot after the thousandth
// sale is the size it was after the hundredth (the digits of the cables' count
// aside), and a till made again from it agrees with the events.
func TestStockSnapshotBoundedBySales(t *testing.T) {
	r, tl, sj := stockRig(t)
	ctx := t.Context()
	var imeis []string
	for i := range 10 {
		imeis = append(imeis, testIMEI(i+1))
	}
	_, err := tl.Stock.ReceiveItems(ctx, "Sai", "SD/1", "2026-11-22", "PH-SAM-S24:10@6500000,ACC-CBL:5000@12000", imeis, managerPIN)
	require.NoError(t, err)
	phone, ok := tl.Shelf.Lookup("PH-SAM-S24")
	require.True(t, ok)
	cable, ok := tl.Shelf.Lookup("ACC-CBL")
	require.True(t, ok)

	var sizes []int
	for i := range 1000 {
		req := PayRequest{Lines: []CartLine{{Product: cable, Qty: 1}}, Tender: TenderCash, Cashier: "Meera"}
		if i%100 == 50 {
			imei := imeis[(i/100)%len(imeis)]
			req = phoneSale(t, tl, imei)
			out, err := tl.Checkout.Pay(ctx, req, nil)
			require.NoError(t, err)
			require.Equal(t, StatePaid, out.State)
			_, err = tl.Returns.Return(ctx, ReturnRequest{Document: out.SaleID(), Items: []ReturnQty{{SKU: phone.SKU, Qty: 1, IMEIs: []string{imei}}},
				To: RefundToCash, Reason: "changed mind", PIN: managerPIN})
			require.NoError(t, err)
		} else {
			out, err := tl.Checkout.Pay(ctx, req, nil)
			require.NoError(t, err)
			require.Equal(t, StatePaid, out.State)
		}
		if i == 99 || i == 999 {
			sizes = append(sizes, sealStock(t, tl, sj))
		}
	}
	n, on := onHand(t, tl, phone.SKU)
	assert.Equal(t, int64(10), n, "every phone sold came back")
	assert.Len(t, on, 10)
	n, _ = onHand(t, tl, "ACC-CBL")
	assert.Equal(t, int64(5000-990-10*2), n, "the cables of the phones' sales were kept")
	t.Logf("stock snapshot: %d bytes after 100 sales, %d after 1000", sizes[0], sizes[1])
	assert.LessOrEqual(t, sizes[1], sizes[0]+8, "the snapshot does not grow with the sales")

	want, err := tl.Stock.List(ctx, "", 0, true)
	require.NoError(t, err)
	tl2, err := NewTill(ctx, TillConfig{Engine: r.e, SampleCatalog: catalogJSON(t)})
	require.NoError(t, err)
	got, err := tl2.Stock.List(ctx, "", 0, true)
	require.NoError(t, err)
	assert.Equal(t, want, got, "a till made from the snapshot agrees")

	// A sale made before the snapshot and returned after it: a till made from
	// the snapshot folds the order again from its own events.
	late := testIMEI(11)
	_, err = tl.Stock.ReceiveItems(ctx, "Sai", "SD/2", "2026-11-22", "PH-SAM-S24:1@6500000", []string{late}, managerPIN)
	require.NoError(t, err)
	out, err := tl.Checkout.Pay(ctx, phoneSale(t, tl, late), nil)
	require.NoError(t, err)
	sealStock(t, tl, sj)
	tl3, err := NewTill(ctx, TillConfig{Engine: r.e, SampleCatalog: catalogJSON(t)})
	require.NoError(t, err)
	n, on = onHand(t, tl3, phone.SKU)
	assert.Equal(t, int64(10), n)
	assert.NotContains(t, on, late)
	_, err = tl.Returns.Return(ctx, ReturnRequest{Document: out.SaleID(), Items: []ReturnQty{{SKU: phone.SKU, Qty: 1, IMEIs: []string{late}}, {SKU: "ACC-CBL", Qty: 1}},
		To: RefundToCash, Reason: "changed mind", PIN: managerPIN})
	require.NoError(t, err)
	want, err = tl.Stock.List(ctx, "", 0, true)
	require.NoError(t, err)
	got, err = tl3.Stock.List(ctx, "", 0, true)
	require.NoError(t, err)
	assert.Equal(t, want, got, "the return read after the snapshot")
	n, on = onHand(t, tl3, phone.SKU)
	assert.Equal(t, int64(11), n)
	assert.Contains(t, on, late)
	n, _ = onHand(t, tl3, "ACC-CBL")
	assert.Equal(t, int64(3990-2+1), n)
	u, ok, err := tl3.Stock.History(ctx, late)
	require.NoError(t, err)
	require.True(t, ok)
	require.Len(t, u.History, 3, "received, sold before the snapshot, returned after it: %v", u.History)
	assert.Equal(t, "back in stock from sale "+out.SaleID()+" (returned, or its invoice cancelled)", u.History[2].What)
}
