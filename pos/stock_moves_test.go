package pos

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestStockMoves: a day with a delivery, a sale from stock, its return, the
// returned phone set aside as damaged, a count's variance and a transfer
// lists each movement once, in the journal's order, with its document; the
// next day's delivery is not in it, and a shift lists what was moved while
// it was open.
func TestStockMoves(t *testing.T) {
	r, tl, _ := stockRig(t)
	ctx := t.Context()
	_, err := tl.Stock.ReceiveItems(ctx, "Sai Distributors", "SD/1", "2026-11-22", "PH-SAM-S24:2@6500000,ACC-CBL:5@12000",
		[]string{testIMEI(1), testIMEI(3)}, managerPIN)
	require.NoError(t, err)
	r.clock.Advance(time.Hour)
	_, err = tl.Drawer.OpenShift(ctx, "Meera", 0)
	require.NoError(t, err)
	out, err := tl.Checkout.Pay(ctx, phoneSale(t, tl, testIMEI(1)), nil)
	require.NoError(t, err)
	r.clock.Advance(time.Hour)
	_, err = tl.Returns.Return(ctx, ReturnRequest{Document: out.SaleID(), Items: []ReturnQty{{SKU: "PH-SAM-S24", Qty: 1, IMEIs: []string{testIMEI(1)}}, {SKU: "ACC-CBL", Qty: 1}},
		To: RefundToCash, Reason: "screen cracked", PIN: managerPIN})
	require.NoError(t, err)
	require.NoError(t, tl.Stock.SetAside(ctx, testIMEI(1), "Meera", ""))
	_, err = tl.Stock.ApplyCount(ctx, StockCount{SKU: "ACC-CBL", Counted: 3}, "one lost", managerPIN)
	require.NoError(t, err)
	_, err = tl.Stock.Send(ctx, "Store 2", "PH-SAM-S24:1", []string{testIMEI(3)}, managerPIN)
	require.NoError(t, err)

	r.clock.Advance(24 * time.Hour)
	_, err = tl.Stock.ReceiveItems(ctx, "Sai Distributors", "SD/2", "2026-11-23", "ACC-CBL:4", nil, managerPIN)
	require.NoError(t, err)

	at := func(h int) time.Time { return time.Date(2026, 11, 22, h, 0, 0, 0, time.Local) }
	unseq := func(ms []StockMovement) []StockMovement {
		for i := range ms {
			require.NotZero(t, ms[i].Seq)
			ms[i].Seq = 0
			ms[i].Time = ms[i].Time.Local()
		}
		return ms
	}
	day := []StockMovement{
		{Time: at(10), Kind: MoveReceived, SKU: "PH-SAM-S24", IMEI: testIMEI(1), Qty: 1, Document: "Sai Distributors SD/1", Staff: "001"},
		{Time: at(10), Kind: MoveReceived, SKU: "PH-SAM-S24", IMEI: testIMEI(3), Qty: 1, Document: "Sai Distributors SD/1", Staff: "001"},
		{Time: at(10), Kind: MoveReceived, SKU: "ACC-CBL", Qty: 5, Document: "Sai Distributors SD/1", Staff: "001"},
		{Time: at(11), Kind: MoveSold, SKU: "ACC-CBL", Qty: -2, Document: "invoice T1/2627/000001", Staff: "Meera"},
		{Time: at(11), Kind: MoveSold, SKU: "PH-SAM-S24", IMEI: testIMEI(1), Qty: -1, Document: "invoice T1/2627/000001", Staff: "Meera"},
		{Time: at(12), Kind: MoveReturned, SKU: "ACC-CBL", Qty: 1, Document: "credit note T1/C2627/00001", Staff: "001"},
		{Time: at(12), Kind: MoveReturned, SKU: "PH-SAM-S24", IMEI: testIMEI(1), Qty: 1, Document: "credit note T1/C2627/00001", Staff: "001"},
		{Time: at(12), Kind: MoveDamaged, SKU: "PH-SAM-S24", IMEI: testIMEI(1), Qty: -1, Document: "returned damaged", Staff: "Meera"},
		{Time: at(12), Kind: MoveCounted, SKU: "ACC-CBL", Qty: -1, Document: "count: one lost", Staff: "001"},
		{Time: at(12), Kind: MoveSent, SKU: "PH-SAM-S24", IMEI: testIMEI(3), Qty: -1, Document: "transfer T1/TR/1", Staff: "001"},
	}
	got, err := tl.Stock.MovesOfDay(ctx, "2026-11-22")
	require.NoError(t, err)
	assert.Equal(t, day, unseq(got))

	// The movements of a day add up to the change of what is on hand.
	var cables int64
	for _, m := range day {
		if m.SKU == "ACC-CBL" {
			cables += m.Qty
		}
	}
	n, _ := onHand(t, tl, "ACC-CBL")
	assert.Equal(t, n-4, cables, "on hand now, less the next day's delivery")

	got, err = tl.Stock.MovesOfDay(ctx, "2026-11-23")
	require.NoError(t, err)
	assert.Equal(t, []StockMovement{{Time: at(12).Add(24 * time.Hour), Kind: MoveReceived, SKU: "ACC-CBL", Qty: 4, Document: "Sai Distributors SD/2", Staff: "001"}}, unseq(got))

	// The shift opened after the delivery and is still open: the rest.
	sh, err := tl.Drawer.CurrentShift(ctx)
	require.NoError(t, err)
	require.NotNil(t, sh)
	got, err = tl.Stock.MovesOfShift(ctx, sh)
	require.NoError(t, err)
	assert.Equal(t, append(day[3:len(day):len(day)], StockMovement{Time: at(12).Add(24 * time.Hour), Kind: MoveReceived, SKU: "ACC-CBL", Qty: 4, Document: "Sai Distributors SD/2", Staff: "001"}), unseq(got))

	_, err = tl.Stock.MovesOfDay(ctx, "22-11-2026")
	assert.Error(t, err, "a day that is not a date")
}
