package pos

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestReturnOfAnotherCountersSaleComesIntoStockHere: a phone and cables sold
// at counter T2 and brought back at this counter come into this counter's
// stock (the unit it never received too), and the phone can then be set aside
// as damaged; the unit's history says where it came from.
func TestReturnOfAnotherCountersSaleComesIntoStockHere(t *testing.T) {
	_, tl, _ := stockRig(t)
	ctx := t.Context()
	_, err := tl.Stock.ReceiveItems(ctx, "Sai", "SD/1", "2026-11-22", "PH-SAM-S24:1,ACC-CBL:5", []string{testIMEI(1)}, managerPIN)
	require.NoError(t, err)

	phone, ok := tl.Shelf.Lookup("PH-SAM-S24")
	require.True(t, ok)
	lines := []Line{
		{SKU: phone.SKU, Name: phone.Name, HSN: phone.HSN, Qty: 2, UnitPrice: phone.Price, GSTRate: phone.GSTRate, Serialised: true, IMEIs: []string{testIMEI(60), testIMEI(61)}},
		{SKU: "ACC-CBL", Name: "Cable", HSN: "8544", Qty: 3, UnitPrice: 49900, GSTRate: Percent(18)},
	}
	totals := ComputeTotals(lines)
	paid := time.Date(2026, 11, 22, 9, 0, 0, 0, IST)
	sold := &Order{ID: "T2-1", State: StatePaid, Tender: TenderCash, Lines: lines, Totals: totals, Amount: totals.Total, Captured: totals.Total,
		Verified: true, Series: "2627", DocNo: 1, Day: "2026-11-22", PaidDay: "2026-11-22", PaidAt: paid, Opened: paid}
	st := &invoiceStore{inv: StoreInvoice{Number: "T2/2627/000001", Terminal: "T2", Order: sold, Returnable: totals.Total}}
	tl.c.eng.StoreDesk.SetDecisions(st)

	ret, err := tl.Returns.Return(ctx, ReturnRequest{Document: st.inv.Number,
		Items: []ReturnQty{{SKU: phone.SKU, Qty: 1, IMEIs: []string{testIMEI(61)}}, {SKU: "ACC-CBL", Qty: 2}}, To: RefundToNote, Reason: "not wanted", PIN: managerPIN})
	require.NoError(t, err)
	require.Equal(t, RefundDone, ret.Status)

	n, imeis := onHand(t, tl, phone.SKU)
	assert.Equal(t, int64(2), n, "the returned unit is on this counter's shelf")
	assert.Equal(t, []string{testIMEI(1), testIMEI(61)}, imeis)
	n, _ = onHand(t, tl, "ACC-CBL")
	assert.Equal(t, int64(7), n, "the cables came back here")
	u, ok, err := tl.Stock.History(ctx, testIMEI(61))
	require.NoError(t, err)
	require.True(t, ok)
	assert.Equal(t, UnitInStock, u.State)
	require.NotEmpty(t, u.History)
	assert.Equal(t, "returned here on invoice T2/2627/000001 of counter T2 (return order "+ret.Order.ID+")", u.History[len(u.History)-1].What)
	_, ok, err = tl.Stock.Unit(ctx, testIMEI(60))
	require.NoError(t, err)
	assert.False(t, ok, "the unit not returned is not this counter's")

	require.NoError(t, tl.Stock.SetAside(ctx, testIMEI(61), "Meera", ""), "a unit returned here can be set aside")
	n, imeis = onHand(t, tl, phone.SKU)
	assert.Equal(t, int64(1), n)
	assert.Equal(t, []string{testIMEI(1)}, imeis)
	u, _, err = tl.Stock.Unit(ctx, testIMEI(61))
	require.NoError(t, err)
	assert.Equal(t, UnitDamaged, u.State)
}
