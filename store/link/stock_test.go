package link_test

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"galla/assets"
	"galla/pos"
)

// imeiOf is the n-th IMEI of a made-up range, with its check digit.
func imeiOf(n int) string {
	body := fmt.Sprintf("35693803%06d", n)
	for d := '0'; d <= '9'; d++ {
		if s := body + string(d); pos.Luhn(s) {
			return s
		}
	}
	panic("no check digit")
}

// sellPhone sells at c, for cash, the phone sku with imei and chargers chargers.
func (c *till) sellPhone(t *testing.T, sku, imei string, chargers int) pos.PayOutcome {
	t.Helper()
	p, ok := c.Shelf.Lookup(sku)
	require.True(t, ok)
	chg, ok := c.Shelf.Lookup("ACC-CHG-SAM25W")
	require.True(t, ok)
	lines := []pos.CartLine{{Product: p, Qty: 1}}
	if chargers > 0 {
		lines = append(lines, pos.CartLine{Product: chg, Qty: chargers})
	}
	out, err := c.Checkout.Pay(t.Context(), pos.PayRequest{Lines: lines, IMEIs: []pos.UnitIMEI{{ProductCode: p.ProductCode, IMEI: imei}},
		Tender: pos.TenderCash, Cashier: "Meera"}, nil)
	require.NoError(t, err)
	require.Equal(t, pos.StatePaid, out.State, out.Reason)
	return out
}

// counterStock is c's stock as its stock list says: each unit's state by
// "counter IMEI", and the quantity on hand of each item not serialised by
// "counter SKU".
func counterStock(t *testing.T, c *till, units map[string]string, qty map[string]int64) {
	t.Helper()
	rows, err := c.Stock.List(t.Context(), "", 0, true)
	require.NoError(t, err)
	for _, r := range rows {
		if !r.Serialised {
			qty[c.name+" "+r.SKU] = r.OnHand
		}
	}
	for _, imei := range []string{imeiOf(1), imeiOf(2), imeiOf(3), imeiOf(4)} {
		u, ok, err := c.Stock.Unit(t.Context(), imei)
		require.NoError(t, err)
		if ok {
			units[c.name+" "+imei] = string(u.State)
		}
	}
}

// TestStoreStockAgreesWithTheCounters: two counters receive goods, sell
// phones and chargers from stock, take a phone back at the counter that sold
// it and another at the other counter (which sets it aside as damaged): the
// store's units and quantities agree with each counter's stock list unit by
// unit, before and after a rebuild.
func TestStoreStockAgreesWithTheCounters(t *testing.T) {
	s := newStoreServer(t)
	t1, t2 := newTill(t, s, "T1"), newTill(t, s, "T2")
	ctx := t.Context()
	for _, c := range []*till{t1, t2} { // sold from the sample catalog, with its phones
		tl, err := pos.NewTill(ctx, pos.TillConfig{Engine: c.e, Terminal: c.name, SampleCatalog: assets.SampleCatalog()})
		require.NoError(t, err)
		c.Till = tl
	}
	const phone = "PH-SAM-A55-128"
	_, err := t1.Stock.ReceiveItems(ctx, "Sai", "SD/1", "2026-11-22", phone+":3@3000000,ACC-CHG-SAM25W:10@12000",
		[]string{imeiOf(1), imeiOf(2), imeiOf(3)}, managerPIN)
	require.NoError(t, err)
	_, err = t2.Stock.ReceiveItems(ctx, "Sai", "SD/2", "2026-11-22", "ACC-CHG-SAM25W:5@12000,"+phone+":1@3000000", []string{imeiOf(4)}, managerPIN)
	require.NoError(t, err)

	// T1 sells a phone and two chargers, takes them back onto a note (the phone
	// and one charger), sells its second phone and its third with a charger.
	a := t1.sellPhone(t, phone, imeiOf(1), 2)
	ret, err := t1.Returns.Return(ctx, pos.ReturnRequest{Document: a.ReceiptNo, Items: []pos.ReturnQty{{SKU: phone, Qty: 1, IMEIs: []string{imeiOf(1)}}, {SKU: "ACC-CHG-SAM25W", Qty: 1}},
		To: pos.RefundToNote, Reason: "changed mind", PIN: managerPIN})
	require.NoError(t, err)
	require.Equal(t, pos.RefundDone, ret.Status)
	b := t1.sellPhone(t, phone, imeiOf(2), 0)
	t1.sellPhone(t, phone, imeiOf(3), 1)
	t1.sync(t)

	// The second phone comes back at T2, damaged; T2 sells a charger and its own
	// phone.
	back, err := t2.Returns.Return(ctx, pos.ReturnRequest{Document: b.ReceiptNo, Items: []pos.ReturnQty{{SKU: phone, Qty: 1, IMEIs: []string{imeiOf(2)}}},
		To: pos.RefundToNote, Reason: "screen cracked", PIN: managerPIN})
	require.NoError(t, err)
	require.Equal(t, pos.RefundDone, back.Status)
	require.NoError(t, t2.Stock.SetAside(ctx, imeiOf(2), "Meera", "returned damaged"))
	t2.sellPhone(t, phone, imeiOf(4), 1)
	t2.sync(t)

	units, qty := map[string]string{}, map[string]int64{}
	counterStock(t, t1, units, qty)
	counterStock(t, t2, units, qty)
	assert.Equal(t, map[string]string{
		"T1 " + imeiOf(1): "in_stock", "T1 " + imeiOf(2): "sold", "T1 " + imeiOf(3): "sold",
		"T2 " + imeiOf(2): "damaged", "T2 " + imeiOf(4): "sold",
	}, units, "the counters")
	assert.Equal(t, map[string]int64{"T1 ACC-CHG-SAM25W": 10 - 2 + 1 - 1, "T2 ACC-CHG-SAM25W": 5 - 1}, qty, "the counters")

	check := func(what string) {
		t.Helper()
		got, err := s.db.Projections.StockUnits(ctx, true)
		require.NoError(t, err)
		storeUnits := map[string]string{}
		for _, u := range got {
			storeUnits[u.Terminal+" "+u.IMEI] = u.State
		}
		assert.Equal(t, units, storeUnits, "the store's units %s", what)
		qs, err := s.db.Projections.StockQty(ctx)
		require.NoError(t, err)
		storeQty := map[string]int64{}
		for _, q := range qs {
			storeQty[q.Terminal+" "+q.SKU] = q.Qty
		}
		assert.Equal(t, qty, storeQty, "the store's quantities %s", what)
		onHand, err := s.db.Projections.StockUnits(ctx, false)
		require.NoError(t, err)
		var shown []string
		for _, u := range onHand {
			shown = append(shown, u.Terminal+" "+u.IMEI+" "+u.State)
		}
		assert.Equal(t, []string{"T1 " + imeiOf(1) + " in_stock", "T2 " + imeiOf(2) + " damaged"}, shown, "the stock page's units %s", what)
	}
	check("as projected")
	_, err = s.db.Projections.Rebuild(ctx)
	require.NoError(t, err)
	check("after a rebuild")
}
