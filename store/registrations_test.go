package store

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"galla/pos"
	"galla/pos/gstr"
)

// setShop journals a change of the counter's shop as a counter does
// (pos.Setup.SetShop): its registration history with shop in force from now,
// then the shop itself.
func (c *counter) setShop(history pos.RegistrationHistory, shop pos.Shop) pos.RegistrationHistory {
	c.t.Helper()
	history = append(history, pos.RegisteredShop{From: c.clock.Add(time.Minute), Shop: shop})
	for _, s := range []struct {
		key string
		v   any
	}{{pos.SettingRegistrations, history}, {pos.SettingShop, shop}} {
		raw, err := json.Marshal(s.v)
		require.NoError(c.t, err)
		c.add(pos.Event{Kind: pos.EvSettingsChanged, Staff: "meera", Setting: &pos.Setting{Key: s.key, Value: raw}})
	}
	return history
}

// TestTheStoresGSTR1TakesEachCountersRegistration: counter T1 was set up
// without a GSTIN and registered later on 24 Nov 2026; T2 journaled no shop
// details and takes the store's. The store's GSTR-1 under the GSTIN holds
// only the documents issued under it, T1's receipt from before the GSTIN
// left out, and its day report states only their GST, as the counters do;
// a rebuild of the projections gives the same.
//
// By hand: T1's receipt ₹1,180.00 (no tax); T1's invoice ₹11,800.00 at 18%:
// taxable 11,800 / 1.18 = 10,000.00, CGST = SGST = 900.00; T2's invoice
// 2 × ₹1,180.00: taxable 2,000.00, CGST = SGST = 180.00. b2cs: 12,000.00,
// 1,080.00 + 1,080.00.
func TestTheStoresGSTR1TakesEachCountersRegistration(t *testing.T) {
	db := newDB(t)
	ctx := t.Context()
	enrolled(t, db, "T1")
	enrolled(t, db, "T2")
	t1, t2 := newCounter(t, "T1"), newCounter(t, "T2")
	h := t1.setShop(nil, pos.Shop{Name: "Galla Mobiles", Address: []string{"FC Road, Pune"}, State: "27"})
	total := t1.intent("T1-A", day1, pos.TenderCash, "", line("CHG", 1, 1180, 18))
	t1.add(pos.Event{Kind: pos.EvCashReceived, OrderID: "T1-A", Day: day1, Series: "2627", DocNo: 1, Cash: &pos.CashEvent{Tendered: total}})
	t1.setShop(h, storeShop)
	total = t1.intent("T1-B", day1, pos.TenderCash, "", line("WAT", 1, 11800, 18))
	t1.add(pos.Event{Kind: pos.EvCashReceived, OrderID: "T1-B", Day: day1, Series: "2627", DocNo: 2, Cash: &pos.CashEvent{Tendered: total}})
	total = t2.intent("T2-A", day1, pos.TenderCash, "", line("CHG", 2, 1180, 18))
	t2.add(pos.Event{Kind: pos.EvCashReceived, OrderID: "T2-A", Day: day1, Series: "2627", DocNo: 1, Cash: &pos.CashEvent{Tendered: total}})
	for _, c := range []*counter{t1, t2} {
		_, err := db.Events.Ingest(ctx, c.id, c.sent())
		require.NoError(t, err)
	}
	_, err := db.Master.PublishShop(ctx, storeShop, "meera")
	require.NoError(t, err)

	nov := gstr.Month{Year: 2026, Month: time.November}
	check := func(stage string) {
		t.Helper()
		r, err := db.Reports.GSTR1(ctx, nov, time.UTC)
		require.NoError(t, err)
		assert.Equal(t, storeGSTIN, r.GSTIN, stage)
		camt := gstr.Paise(1080_00)
		assert.Equal(t, []gstr.B2CS{{SplyTy: "INTRA", POS: "27", Typ: "OE", Rt: 1800, TxVal: 12000_00, CAmt: &camt, SAmt: &camt}}, r.B2CS, stage)
		assert.Nil(t, r.Nil, "%s: the receipt's value is no supply of this GSTIN", stage)
		require.NotNil(t, r.DocIssue, stage)
		var issued []string
		for _, d := range r.DocIssue.DocDet {
			for _, s := range d.Docs {
				issued = append(issued, s.From+".."+s.To)
			}
		}
		assert.Equal(t, []string{"T1/2627/000002..T1/2627/000002", "T2/2627/000001..T2/2627/000001"}, issued, stage)
		var other []string
		for _, d := range r.Other {
			other = append(other, d.Number)
		}
		assert.Equal(t, []string{"T1/2627/000001"}, other, "%s: the receipt issued before the GSTIN", stage)

		day, err := db.Reports.DayReport(ctx, day1)
		require.NoError(t, err)
		require.Len(t, day.Counters, 2, stage)
		c1, c2 := day.Counters[0], day.Counters[1]
		assert.Equal(t, pos.Rupees(1180+11800), c1.GrossSales, "%s: every sale is sold", stage)
		assert.Equal(t, []pos.RateTotal{{Rate: pos.Percent(18), Amount: pos.Rupees(11800), Taxable: pos.Rupees(10000), Tax: pos.Rupees(1800), CGST: pos.Rupees(900), SGST: pos.Rupees(900)}}, c1.GST, stage)
		assert.Equal(t, []pos.RateTotal{{Rate: pos.Percent(18), Amount: pos.Rupees(2360), Taxable: pos.Rupees(2000), Tax: pos.Rupees(360), CGST: pos.Rupees(180), SGST: pos.Rupees(180)}}, c2.GST, stage)
	}
	check("projected")
	_, err = db.Projections.Rebuild(ctx)
	require.NoError(t, err)
	check("rebuilt")
}

// TestTheStoresGSTR1OfAnEarlierGSTIN: counter T1 sold under GSTIN
// 29AAPFU0939F1ZR in Karnataka, then moved to the store's registration in
// Maharashtra (storeGSTIN). The store's GSTR-1 of the earlier GSTIN holds
// only the invoice issued under it, that of the published GSTIN only the
// later one; a valid GSTIN no counter issued under, and a malformed one, are
// refused with a sentence.
//
// By hand: T1-A ₹1,180.00 at 18% in Karnataka: taxable 1,000.00, CGST = SGST
// = 90.00; T1-B ₹11,800.00 at 18% in Maharashtra: taxable 10,000.00, CGST =
// SGST = 900.00.
func TestTheStoresGSTR1OfAnEarlierGSTIN(t *testing.T) {
	const earlier = "29AAPFU0939F1ZR"
	db := newDB(t)
	ctx := t.Context()
	enrolled(t, db, "T1")
	t1 := newCounter(t, "T1")
	h := t1.setShop(nil, pos.Shop{Name: "Galla Mobiles", Address: []string{"MG Road, Bengaluru"}, GSTIN: earlier, State: "29"})
	total := t1.intent("T1-A", day1, pos.TenderCash, "", line("CHG", 1, 1180, 18))
	t1.add(pos.Event{Kind: pos.EvCashReceived, OrderID: "T1-A", Day: day1, Series: "2627", DocNo: 1, Cash: &pos.CashEvent{Tendered: total}})
	t1.setShop(h, storeShop)
	total = t1.intent("T1-B", day1, pos.TenderCash, "", line("WAT", 1, 11800, 18))
	t1.add(pos.Event{Kind: pos.EvCashReceived, OrderID: "T1-B", Day: day1, Series: "2627", DocNo: 2, Cash: &pos.CashEvent{Tendered: total}})
	_, err := db.Events.Ingest(ctx, t1.id, t1.sent())
	require.NoError(t, err)
	_, err = db.Master.PublishShop(ctx, storeShop, "meera")
	require.NoError(t, err)

	nov := gstr.Month{Year: 2026, Month: time.November}
	b2cs := func(r *gstr.Return) []string {
		var out []string
		for _, row := range r.B2CS {
			out = append(out, row.POS+" "+row.TxVal.Rupees()+" "+row.CAmt.Rupees())
		}
		return out
	}
	old, err := db.Reports.GSTR1Of(ctx, nov, time.UTC, " 29aapfu0939f1zr ")
	require.NoError(t, err)
	assert.Equal(t, earlier, old.GSTIN)
	assert.Equal(t, []string{"29 1000.00 90.00"}, b2cs(old))
	now, err := db.Reports.GSTR1Of(ctx, nov, time.UTC, "")
	require.NoError(t, err)
	assert.Equal(t, storeGSTIN, now.GSTIN)
	assert.Equal(t, []string{"27 10000.00 900.00"}, b2cs(now))

	_, err = db.Reports.GSTR1Of(ctx, nov, time.UTC, "29AAGCB7383J1Z4")
	require.ErrorIs(t, err, ErrGSTINNotHeld)
	assert.Contains(t, err.Error(), "no counter issued a document of 2026-11 under GSTIN 29AAGCB7383J1Z4")
	_, err = db.Reports.GSTR1Of(ctx, nov, time.UTC, "29AAPFU0939F1Z")
	require.ErrorIs(t, err, ErrGSTINNotHeld)
	assert.Contains(t, err.Error(), `"29AAPFU0939F1Z" is not a GSTIN`)
	assert.NotContains(t, err.Error(), ".", "one sentence, its full stop added where it is shown")
}
