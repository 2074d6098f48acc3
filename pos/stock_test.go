package pos

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// stockJournal is the in-memory journal with its events readable in order
// (EventRanger) and its snapshots kept, as pos/journal's: the books derived
// from the events (the IMEIs, the stock) need them.
type stockJournal struct {
	*memJournal
	snaps map[string]Snapshot
}

func (l *stockJournal) EventsFrom(ctx context.Context, from uint64, fn func(Event) error) error {
	l.mu.Lock()
	var raws [][]byte
	if from >= 1 && from <= uint64(len(l.events)) {
		raws = slices.Clone(l.events[from-1:])
	}
	l.mu.Unlock()
	for _, raw := range raws {
		var ev Event
		if err := json.Unmarshal(raw, &ev); err != nil {
			return err
		}
		if err := fn(ev); err != nil {
			return err
		}
	}
	return nil
}

func (l *stockJournal) Snapshot(_ context.Context, name string) (Snapshot, bool, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	sn, ok := l.snaps[name]
	return sn, ok, nil
}

func (l *stockJournal) SaveSnapshot(_ context.Context, name string, sn Snapshot) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.snaps[name] = sn
	return nil
}

// stockRig is a till over a journal whose events are read back, with a rig's
// engine otherwise.
func stockRig(t *testing.T) (*rig, *Till, *stockJournal) {
	t.Helper()
	r := newRig(t)
	sj := &stockJournal{memJournal: r.j, snaps: map[string]Snapshot{}}
	e, err := New(Config{Journal: sj, Gateway: r.gw, Clock: r.clock, Customer: Customer{Mobile: "9000000001"}})
	require.NoError(t, err)
	r.e = e
	return r, r.till(t), sj
}

// testIMEI is the n-th IMEI of a made-up range, with its check digit.
func testIMEI(n int) string {
	body := fmt.Sprintf("35693803%06d", n)
	for d := '0'; d <= '9'; d++ {
		if s := body + string(d); Luhn(s) {
			return s
		}
	}
	panic("no check digit")
}

// phoneSale is a cash sale of one Samsung with imei, and a cable.
func phoneSale(t *testing.T, tl *Till, imei string) PayRequest {
	t.Helper()
	phone, ok := tl.Shelf.Lookup("PH-SAM-S24")
	require.True(t, ok)
	cable, ok := tl.Shelf.Lookup("ACC-CBL")
	require.True(t, ok)
	return PayRequest{Lines: []CartLine{{Product: phone, Qty: 1}, {Product: cable, Qty: 2}},
		IMEIs: []UnitIMEI{{ProductCode: phone.ProductCode, IMEI: imei}}, Tender: TenderCash, Cashier: "Meera"}
}

func onHand(t *testing.T, tl *Till, sku string) (int64, []string) {
	t.Helper()
	rows, err := tl.Stock.List(t.Context(), "", 0, true)
	require.NoError(t, err)
	for _, r := range rows {
		if r.SKU == sku {
			return r.OnHand, r.IMEIs
		}
	}
	return 0, nil
}

// TestReceiveRefusesBadDeliveries: each bad delivery is refused with a
// sentence and journals nothing; a good one is one event.
func TestReceiveRefusesBadDeliveries(t *testing.T) {
	r, tl, _ := stockRig(t)
	ctx := t.Context()
	good := Delivery{Supplier: "Sai Distributors", Invoice: "SD/114", Date: "2026-11-21", Lines: []DeliveryLine{
		{SKU: "ph-sam-s24", Qty: 2, Cost: 6_500_000, Units: []Unit{{IMEI: testIMEI(1), IMEI2: testIMEI(2)}, {IMEI: testIMEI(3)}}},
		{SKU: "ACC-CBL", Qty: 10, Cost: 12_000}}}
	bad := testIMEI(4)
	bad = bad[:14] + string('0'+(bad[14]-'0'+1)%10)
	tests := []struct {
		name string
		d    func(d Delivery) Delivery
		want string
	}{
		{"unknown SKU", func(d Delivery) Delivery { d.Lines[1].SKU = "NOPE"; return d }, "NOPE is not in the catalog"},
		{"check digit", func(d Delivery) Delivery { d.Lines[0].Units[1].IMEI = bad; return d }, "of box 2 (PH-SAM-S24) is wrong"},
		{"two boxes", func(d Delivery) Delivery { d.Lines[0].Units[1].IMEI = testIMEI(2); return d }, "is in box 1 and in box 2"},
		{"too few IMEIs", func(d Delivery) Delivery { d.Lines[0].Units = d.Lines[0].Units[:1]; return d }, "2 units need 2 IMEIs, 1 were given"},
		{"IMEI on a cable", func(d Delivery) Delivery { d.Lines[1].Units = []Unit{{IMEI: testIMEI(9)}}; return d }, "carries no IMEI"},
		{"no supplier", func(d Delivery) Delivery { d.Supplier = " "; return d }, "Name the supplier"},
		{"future date", func(d Delivery) Delivery { d.Date = "2026-12-01"; return d }, "is in the future"},
		{"bad date", func(d Delivery) Delivery { d.Date = "21/11/2026"; return d }, "is not a date"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d := good
			d.Lines = []DeliveryLine{good.Lines[0], good.Lines[1]}
			d.Lines[0].Units = append([]Unit(nil), good.Lines[0].Units...)
			before := len(r.j.allEvents())
			_, err := tl.Stock.Receive(ctx, tt.d(d), managerPIN)
			require.ErrorIs(t, err, ErrBadDelivery)
			assert.Contains(t, Sentence(err), tt.want)
			assert.Contains(t, Sentence(err), "nothing was recorded")
			assert.Len(t, r.j.allEvents(), before, "nothing journaled")
		})
	}
	_, err := tl.Stock.Receive(ctx, good, "999999")
	require.ErrorIs(t, err, ErrWrongPIN, "a manager's PIN")

	before := len(r.j.allEvents())
	d, err := tl.Stock.Receive(ctx, good, managerPIN)
	require.NoError(t, err)
	assert.Equal(t, "PH-SAM-S24", d.Lines[0].SKU, "the catalog's spelling")
	evs := r.j.allEvents()[before:]
	require.Len(t, evs, 1, "one event per delivery")
	assert.Equal(t, EvStockReceived, evs[0].Kind)

	_, err = tl.Stock.Receive(ctx, good, managerPIN)
	require.ErrorIs(t, err, ErrInvoiceReceived)
	assert.Contains(t, Sentence(err), "Invoice SD/114 of Sai Distributors was received already")
	again := good
	again.Invoice, again.Supplier = "SD/115", "sai  distributors"
	again.Lines = []DeliveryLine{{SKU: "PH-SAM-S24", Qty: 1, Units: []Unit{{IMEI: testIMEI(2)}}}}
	_, err = tl.Stock.Receive(ctx, again, managerPIN)
	require.ErrorIs(t, err, ErrBadDelivery)
	assert.Contains(t, Sentence(err), fmt.Sprintf("IMEI %s (PH-SAM-S24, box 1) is already in stock", testIMEI(2)), "a second IMEI counts")
	again.Invoice = "sd/114"
	_, err = tl.Stock.Receive(ctx, again, managerPIN)
	require.ErrorIs(t, err, ErrInvoiceReceived, "the same invoice, spelt otherwise")

	n, imeis := onHand(t, tl, "PH-SAM-S24")
	assert.Equal(t, int64(2), n)
	assert.Equal(t, []string{testIMEI(1), testIMEI(3)}, imeis)
	n, _ = onHand(t, tl, "ACC-CBL")
	assert.Equal(t, int64(10), n)
}

// TestSellFromStock: a terminal with no stock sells any valid IMEI; once goods
// are received a phone is sold only from stock, a manager may allow one that
// is not, a sale takes units out, a return puts the unit back (or aside as
// damaged), and a second till reading the snapshot agrees unit by unit.
func TestSellFromStock(t *testing.T) {
	r, tl, sj := stockRig(t)
	ctx := t.Context()
	st, err := tl.Stock.Enforced(ctx)
	require.NoError(t, err)
	assert.False(t, st.Kept)
	assert.Contains(t, st.Sentence(), "Stock is not kept")

	// Before stock: any valid IMEI sells, and does not count.
	_, err = tl.Checkout.Pay(ctx, phoneSale(t, tl, testIMEI(50)), nil)
	require.NoError(t, err)

	_, err = tl.Stock.ReceiveItems(ctx, "Sai Distributors", "SD/1", "2026-11-22", "PH-SAM-S24:2@6500000,ACC-CBL:3@12000",
		[]string{testIMEI(1) + "/" + testIMEI(2), testIMEI(3)}, managerPIN)
	require.NoError(t, err)
	st, err = tl.Stock.Enforced(ctx)
	require.NoError(t, err)
	assert.True(t, st.Kept)
	assert.Equal(t, 2, st.Units)

	// A unit never received is refused, with nothing journaled.
	before := len(r.j.allEvents())
	_, err = tl.Checkout.Pay(ctx, phoneSale(t, tl, testIMEI(51)), nil)
	require.ErrorIs(t, err, ErrNotInStock)
	assert.True(t, MayOverrideStock(err))
	assert.Contains(t, Sentence(err), fmt.Sprintf("IMEI %s was never received into stock", testIMEI(51)))
	assert.Len(t, r.j.allEvents(), before)
	assert.ErrorIs(t, tl.IMEIs.CheckIMEIFree(ctx, testIMEI(51)), ErrNotInStock, "said as it is scanned")
	require.NoError(t, tl.IMEIs.CheckIMEIFree(ctx, testIMEI(2)), "a unit's second IMEI is the unit")

	// A unit in stock sells; the cables go below what is on hand after two sales.
	out, err := tl.Checkout.Pay(ctx, phoneSale(t, tl, testIMEI(1)), nil)
	require.NoError(t, err)
	require.Equal(t, StatePaid, out.State)
	n, imeis := onHand(t, tl, "PH-SAM-S24")
	assert.Equal(t, int64(1), n)
	assert.Equal(t, []string{testIMEI(3)}, imeis)
	n, _ = onHand(t, tl, "ACC-CBL")
	assert.Equal(t, int64(1), n)
	cable, _ := tl.Shelf.Lookup("ACC-CBL")
	short, err := tl.Stock.Short(ctx, []CartLine{{Product: cable, Qty: 2}})
	require.NoError(t, err)
	assert.Equal(t, []string{"ACC-CBL"}, short, "the warning before stock goes negative")
	u, ok, err := tl.Stock.Unit(ctx, testIMEI(2))
	require.NoError(t, err)
	require.True(t, ok)
	assert.Equal(t, UnitSold, u.State)
	assert.Equal(t, out.SaleID(), u.Order)

	// Sold once: the IMEI book refuses it again before stock is asked.
	_, err = tl.Checkout.Pay(ctx, phoneSale(t, tl, testIMEI(1)), nil)
	require.ErrorIs(t, err, ErrIMEISold)

	// A manager allows a unit not in stock; the override is journaled.
	_, err = tl.Stock.AllowIMEIs(ctx, []string{testIMEI(51)}, "1111", "Meera")
	require.Error(t, err)
	_, err = tl.Stock.AllowIMEIs(ctx, []string{testIMEI(51)}, managerPIN, "Meera")
	require.NoError(t, err)
	ov := eventsOf(t, r, EvOverride, before)
	require.NotEmpty(t, ov)
	assert.Equal(t, "stock", ov[len(ov)-1].Extra["what"])
	over, err := tl.Checkout.Pay(ctx, phoneSale(t, tl, testIMEI(51)), nil)
	require.NoError(t, err)
	n, _ = onHand(t, tl, "ACC-CBL")
	assert.Equal(t, int64(-1), n, "not serialised: stock goes negative")

	// Returns put the units back: the received one on the shelf, the allowed
	// one too (it is in the counter's hands now); a damaged one aside.
	_, err = tl.Returns.Return(ctx, ReturnRequest{Document: out.SaleID(), Items: []ReturnQty{{SKU: "PH-SAM-S24", Qty: 1, IMEIs: []string{testIMEI(1)}}, {SKU: "ACC-CBL", Qty: 2}},
		To: RefundToCash, Reason: "changed mind", PIN: managerPIN})
	require.NoError(t, err)
	_, err = tl.Returns.Return(ctx, ReturnRequest{Document: over.SaleID(), Items: []ReturnQty{{SKU: "PH-SAM-S24", Qty: 1, IMEIs: []string{testIMEI(51)}}},
		To: RefundToCash, Reason: "screen cracked", PIN: managerPIN})
	require.NoError(t, err)
	require.NoError(t, tl.Stock.SetAside(ctx, testIMEI(51), "Meera", ""))
	n, imeis = onHand(t, tl, "PH-SAM-S24")
	assert.Equal(t, int64(2), n)
	assert.Equal(t, []string{testIMEI(1), testIMEI(3)}, imeis)
	n, _ = onHand(t, tl, "ACC-CBL")
	assert.Equal(t, int64(1), n)
	rows, err := tl.Stock.List(ctx, "samsung", 0, false)
	require.NoError(t, err)
	require.Len(t, rows, 1)
	assert.Equal(t, 1, rows[0].Damaged)
	assert.Equal(t, Paise(2*6_500_000), rows[0].Cost, "each unit at its cost")

	// A second till over the same journal, from the snapshot when one was
	// sealed and from the events otherwise, agrees.
	want, err := tl.Stock.List(ctx, "", 0, true)
	require.NoError(t, err)
	for _, snap := range []bool{false, true} {
		if snap {
			b := &tl.c.sb
			b.mu.Lock()
			b.mark.seq, b.mark.at = 0, b.mark.last.Add(-SnapshotAge)
			require.NoError(t, b.catchUp(ctx, sj))
			b.mu.Unlock()
			_, ok, err := sj.Snapshot(ctx, snapStock)
			require.NoError(t, err)
			require.True(t, ok)
		}
		tl2, err := NewTill(ctx, TillConfig{Engine: r.e, SampleCatalog: catalogJSON(t)})
		require.NoError(t, err)
		got, err := tl2.Stock.List(ctx, "", 0, true)
		require.NoError(t, err)
		assert.Equal(t, want, got, "snapshot %v", snap)
	}
}

// TestStockOfferAndSearch: the IMEI offer by prefix, and the list searched by
// name or by an IMEI's digits.
func TestStockOfferAndSearch(t *testing.T) {
	_, tl, _ := stockRig(t)
	ctx := t.Context()
	var imeis []string
	for i := range 20 {
		imeis = append(imeis, testIMEI(100+i))
	}
	_, err := tl.Stock.ReceiveItems(ctx, "Sai", "1", "2026-11-22", "PH-SAM-S24:20,ACC-CASE:5", imeis, managerPIN)
	require.NoError(t, err)
	got, err := tl.Stock.Offer(ctx, "ph-sam-s24", testIMEI(110)[:13], 0)
	require.NoError(t, err)
	assert.Equal(t, imeis[10:20], got)
	got, err = tl.Stock.Offer(ctx, "PH-SAM-S24", "", 3)
	require.NoError(t, err)
	assert.Equal(t, imeis[:3], got)
	rows, err := tl.Stock.List(ctx, testIMEI(105)[:14], 0, false)
	require.NoError(t, err)
	require.Len(t, rows, 1)
	assert.Equal(t, []string{testIMEI(105)}, rows[0].IMEIs)
	rows, err = tl.Stock.List(ctx, "case", 0, false)
	require.NoError(t, err)
	require.Len(t, rows, 1)
	assert.Equal(t, int64(5), rows[0].OnHand)
	assert.Nil(t, rows[0].IMEIs)
}

// TestStockCount: a count of the shelf against the book, its variance (units
// missing and found, a quantity short), applied by a manager with a reason as
// one stock.adjusted; a count that agrees records nothing.
func TestStockCount(t *testing.T) {
	r, tl, _ := stockRig(t)
	ctx := t.Context()
	_, err := tl.Stock.ReceiveItems(ctx, "Sai", "1", "2026-11-22", "PH-SAM-S24:3,ACC-CBL:10",
		[]string{testIMEI(1) + "/" + testIMEI(2), testIMEI(3), testIMEI(4)}, managerPIN)
	require.NoError(t, err)

	// The shelf: units 1 (by its second IMEI, twice) and 4, and one never received.
	count := StockCount{SKU: "PH-SAM-S24", IMEIs: []string{testIMEI(2), testIMEI(4), testIMEI(2), testIMEI(7)}}
	v, err := tl.Stock.Count(ctx, count)
	require.NoError(t, err)
	assert.Equal(t, Variance{SKU: "PH-SAM-S24", Book: 3, Counted: 3, Missing: []string{testIMEI(3)}, Found: []string{testIMEI(7)}}, v)
	_, err = tl.Stock.Count(ctx, StockCount{SKU: "PH-SAM-S24", Counted: 2})
	require.ErrorIs(t, err, ErrBadDelivery, "a phone is counted by IMEI")

	before := len(r.j.allEvents())
	_, err = tl.Stock.ApplyCount(ctx, count, "", managerPIN)
	require.ErrorIs(t, err, ErrBadDelivery, "a reason is needed")
	_, err = tl.Stock.ApplyCount(ctx, count, "monthly count", "1111")
	require.Error(t, err)
	assert.Len(t, r.j.allEvents(), before)
	_, err = tl.Stock.ApplyCount(ctx, count, "monthly count", managerPIN)
	require.NoError(t, err)
	_, err = tl.Stock.ApplyCount(ctx, StockCount{SKU: "ACC-CBL", Counted: 8}, "two lost", managerPIN)
	require.NoError(t, err)
	evs := eventsOf(t, r, EvStockAdjusted, before)
	require.Len(t, evs, 2)
	assert.Contains(t, string(evs[0].Data), `"reason":"count: monthly count"`)

	n, imeis := onHand(t, tl, "PH-SAM-S24")
	assert.Equal(t, int64(3), n)
	assert.Equal(t, []string{testIMEI(1), testIMEI(4), testIMEI(7)}, imeis)
	u, ok, err := tl.Stock.Unit(ctx, testIMEI(3))
	require.NoError(t, err)
	require.True(t, ok)
	assert.Equal(t, UnitMissing, u.State)
	n, _ = onHand(t, tl, "ACC-CBL")
	assert.Equal(t, int64(8), n)

	before = len(r.j.allEvents())
	v, err = tl.Stock.ApplyCount(ctx, StockCount{SKU: "ACC-CBL", Counted: 8}, "again", managerPIN)
	require.NoError(t, err)
	assert.True(t, v.None())
	assert.Len(t, r.j.allEvents(), before, "a count that agrees records nothing")
}

// TestStockTransferAgeingHistory: a phone sent from one counter is in
// transit there and in stock at the other once received, which takes the
// transfer once; the ageing counts days in stock; an IMEI's history tells its
// story at each end.
func TestStockTransferAgeingHistory(t *testing.T) {
	_, t1, _ := stockRig(t)
	r2, t2, _ := stockRig(t)
	ctx := t.Context()
	_, err := t1.Stock.ReceiveItems(ctx, "Sai Distributors", "SD/9", "2026-11-01", "PH-SAM-S24:2@6500000,ACC-CBL:4",
		[]string{testIMEI(1), testIMEI(3)}, managerPIN)
	require.NoError(t, err)

	_, err = t1.Stock.Send(ctx, "Store 2", "PH-SAM-S24:1", []string{testIMEI(51)}, managerPIN)
	require.ErrorIs(t, err, ErrNotInStock, "only a unit in stock is sent")
	tr, err := t1.Stock.Send(ctx, "Store 2", "PH-SAM-S24:1,ACC-CBL:3", []string{testIMEI(3)}, managerPIN)
	require.NoError(t, err)
	assert.Equal(t, "T1/TR/1", tr.ID)
	n, imeis := onHand(t, t1, "PH-SAM-S24")
	assert.Equal(t, int64(1), n)
	assert.Equal(t, []string{testIMEI(1)}, imeis)
	n, _ = onHand(t, t1, "ACC-CBL")
	assert.Equal(t, int64(1), n)
	u, _, err := t1.Stock.Unit(ctx, testIMEI(3))
	require.NoError(t, err)
	assert.Equal(t, UnitInTransit, u.State)

	_, err = t2.Stock.Arrive(ctx, "T1", tr.ID, "PH-SAM-S24:1,ACC-CBL:3", []string{testIMEI(3)}, managerPIN)
	require.NoError(t, err)
	_, err = t2.Stock.Arrive(ctx, "T1", tr.ID, "PH-SAM-S24:1,ACC-CBL:3", []string{testIMEI(3)}, managerPIN)
	require.ErrorIs(t, err, ErrInvoiceReceived, "a transfer is received once")
	n, imeis = onHand(t, t2, "PH-SAM-S24")
	assert.Equal(t, int64(1), n)
	assert.Equal(t, []string{testIMEI(3)}, imeis)

	r2.clock.Advance(40 * 24 * time.Hour)
	_, err = t2.Stock.ReceiveItems(ctx, "Sai Distributors", "SD/10", "2026-12-31", "PH-SAM-S24:1", []string{testIMEI(5)}, managerPIN)
	require.NoError(t, err)
	age, err := t2.Stock.Ageing(ctx)
	require.NoError(t, err)
	require.Len(t, age, 1)
	assert.Equal(t, AgeingRow{SKU: "PH-SAM-S24", Name: "Samsung Galaxy S24", Brand: "Samsung", Units: 2, Days30: 1, Days60: 1, Oldest: 40,
		OldestI: testIMEI(3)}, age[0])

	h, ok, err := t1.Stock.History(ctx, testIMEI(3))
	require.NoError(t, err)
	require.True(t, ok)
	require.Len(t, h.History, 2)
	assert.Equal(t, "received from Sai Distributors on invoice SD/9 of 2026-11-01 as PH-SAM-S24", h.History[0].What)
	assert.Equal(t, "sent to Store 2 on transfer T1/TR/1", h.History[1].What)
	h, _, err = t2.Stock.History(ctx, testIMEI(3))
	require.NoError(t, err)
	require.Len(t, h.History, 1)
	assert.Equal(t, "received from T1 on transfer T1/TR/1 as PH-SAM-S24", h.History[0].What)
}

// TestCancelledInvoicePutsUnitsBack: an invoice of today cancelled (voided)
// puts its phone and its cables back in stock.
func TestCancelledInvoicePutsUnitsBack(t *testing.T) {
	_, tl, _ := stockRig(t)
	ctx := t.Context()
	_, err := tl.Stock.ReceiveItems(ctx, "Sai", "1", "2026-11-22", "PH-SAM-S24:1,ACC-CBL:5", []string{testIMEI(1)}, managerPIN)
	require.NoError(t, err)
	out, err := tl.Checkout.Pay(ctx, phoneSale(t, tl, testIMEI(1)), nil)
	require.NoError(t, err)
	require.Equal(t, StatePaid, out.State)
	n, _ := onHand(t, tl, "PH-SAM-S24")
	require.Equal(t, int64(0), n)
	res, err := tl.Returns.CancelDocument(ctx, out.SaleOrder().Number("T1"), managerPIN, "customer left before delivery")
	require.NoError(t, err)
	require.Equal(t, CancelDone, res.Status, res.Pending)
	n, imeis := onHand(t, tl, "PH-SAM-S24")
	assert.Equal(t, int64(1), n)
	assert.Equal(t, []string{testIMEI(1)}, imeis)
	n, _ = onHand(t, tl, "ACC-CBL")
	assert.Equal(t, int64(5), n)
	u, _, err := tl.Stock.History(ctx, testIMEI(1))
	require.NoError(t, err)
	require.Len(t, u.History, 3)
	assert.Equal(t, "back in stock from sale "+out.SaleID()+" (returned, or its invoice cancelled)", u.History[2].What)
}
