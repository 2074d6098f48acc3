package store

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"galla/pos"
	"galla/pos/gstr"
)

const storeGSTIN = "27AAPFU0939F1ZV"

// twoCountersAndAReturn: T1 sells two ₹1,180 chargers at 18% in cash (invoice
// T1/2627/000001) and takes one back as a note (credit note T1/C2627/00001);
// T2 sells a ₹11,800 watch at 18% (T2/2627/000001). A T2 sale of the next
// month is not in November's return.
func twoCountersAndAReturn(t *testing.T, db *DB) {
	enrolled(t, db, "T1")
	enrolled(t, db, "T2")
	t1, t2 := newCounter(t, "T1"), newCounter(t, "T2")
	total := t1.intent("T1-A", day1, pos.TenderCash, "", line("CHG", 2, 1180, 18))
	t1.add(pos.Event{Kind: pos.EvCashReceived, OrderID: "T1-A", Day: day1, Series: "2627", DocNo: 1, Cash: &pos.CashEvent{Tendered: total}})
	t1.noteReturn("T1-A", "2026-11-26", 1)
	total = t2.intent("T2-A", day1, pos.TenderCash, "", line("WAT", 1, 11800, 18))
	t2.add(pos.Event{Kind: pos.EvCashReceived, OrderID: "T2-A", Day: day1, Series: "2627", DocNo: 1, Cash: &pos.CashEvent{Tendered: total}})
	total = t2.intent("T2-B", "2026-12-01", pos.TenderCash, "", line("TEA", 1, 105, 5))
	t2.add(pos.Event{Kind: pos.EvCashReceived, OrderID: "T2-B", Day: "2026-12-01", Series: "2627", DocNo: 2, Cash: &pos.CashEvent{Tendered: total}})
	for _, c := range []*counter{t1, t2} {
		_, err := db.Events.Ingest(t.Context(), c.id, c.sent())
		require.NoError(t, err)
	}
}

func TestTheStoresGSTR1AddsUpEveryCounter(t *testing.T) {
	db := newDB(t)
	ctx := t.Context()
	twoCountersAndAReturn(t, db)
	nov := gstr.Month{Year: 2026, Month: time.November}

	_, err := db.Reports.GSTR1(ctx, nov, time.UTC)
	require.ErrorIs(t, err, ErrNoGSTIN, "no shop details yet")

	_, err = db.Master.PublishShop(ctx, pos.Shop{Name: "Galla Mobiles", Address: []string{"FC Road, Pune"}, GSTIN: storeGSTIN, State: "27"}, "meera")
	require.NoError(t, err)
	r, err := db.Reports.GSTR1(ctx, nov, time.UTC)
	require.NoError(t, err)
	assert.Equal(t, storeGSTIN, r.GSTIN)
	assert.Equal(t, "112026", r.FP)
	// b2cs at 18% within Maharashtra = sales − returns:
	// taxable 2,000 + 10,000 − 1,000 = 11,000; CGST = SGST = 180 + 900 − 90 = 990.
	require.Len(t, r.B2CS, 1)
	b := r.B2CS[0]
	assert.Equal(t, "INTRA", b.SplyTy)
	assert.Equal(t, "27", b.POS)
	assert.Equal(t, gstr.Paise(11_000_00), b.TxVal)
	require.NotNil(t, b.CAmt)
	require.NotNil(t, b.SAmt)
	assert.Equal(t, gstr.Paise(990_00), *b.CAmt)
	assert.Equal(t, gstr.Paise(990_00), *b.SAmt)
	assert.Nil(t, b.IAmt)
	raw, err := json.Marshal(r.DocIssue)
	require.NoError(t, err)
	for _, want := range []string{`"T1/2627/000001"`, `"T2/2627/000001"`, `"T1/C2627/00001"`} {
		assert.Contains(t, string(raw), want, "the documents issued")
	}
	assert.NotContains(t, string(raw), "T2/2627/000002", "December's sale")

	var buf bytes.Buffer
	require.NoError(t, db.Reports.WriteMonthCSV(ctx, nov, time.UTC, &buf))
	rows, err := csv.NewReader(&buf).ReadAll()
	require.NoError(t, err)
	require.Len(t, rows, 4, "a header, two sale lines and the returned line")
	assert.Equal(t, gstr.CSVHeader, rows[0])
	var numbers []string
	for _, row := range rows[1:] {
		numbers = append(numbers, row[0])
	}
	assert.ElementsMatch(t, []string{"T1/2627/000001", "T2/2627/000001", "T1/C2627/00001"}, numbers)
}

func TestTheStoresShopFallsBackOnACountersSettings(t *testing.T) {
	db := newDB(t)
	enrolled(t, db, "T1")
	c := newCounter(t, "T1")
	shop, err := json.Marshal(pos.Shop{Name: "Galla Mobiles", Address: []string{"Pune"}, GSTIN: storeGSTIN, State: "27"})
	require.NoError(t, err)
	c.add(pos.Event{Kind: pos.EvSettingsChanged, Staff: "meera", Setting: &pos.Setting{Key: pos.SettingShop, Value: shop}})
	_, err = db.Events.Ingest(t.Context(), "T1", c.sent())
	require.NoError(t, err)
	got, ok, err := db.Master.Shop(t.Context())
	require.NoError(t, err)
	require.True(t, ok)
	assert.Equal(t, storeGSTIN, got.GSTIN)

	_, err = db.Master.PublishShop(t.Context(), pos.Shop{Name: "Galla Mobiles Pvt", Address: []string{"Pune"}, GSTIN: storeGSTIN, State: "27"}, "meera")
	require.NoError(t, err)
	got, _, err = db.Master.Shop(t.Context())
	require.NoError(t, err)
	assert.Equal(t, "Galla Mobiles Pvt", got.Name, "the published details win")
}

// TestTheStoresGSTR1HasEveryCountersCreditNotes: T2 takes back one of the
// chargers T1 sold (a return order citing T1's invoice). The store's GSTR-1
// counts T2's credit note in doc_issue and nets it in b2cs, also after the
// projections are rebuilt from the events.
func TestTheStoresGSTR1HasEveryCountersCreditNotes(t *testing.T) {
	db := newDB(t)
	ctx := t.Context()
	enrolled(t, db, "T1")
	enrolled(t, db, "T2")
	t1, t2 := newCounter(t, "T1"), newCounter(t, "T2")
	charger := line("CHG", 2, 1180, 18)
	total := t1.intent("T1-A", day1, pos.TenderCash, "", charger)
	t1.add(pos.Event{Kind: pos.EvCashReceived, OrderID: "T1-A", Day: day1, Series: "2627", DocNo: 1, Cash: &pos.CashEvent{Tendered: total}})
	ingest(t, db, t1)
	t2.returnAt("T2-RET", "R-T2-1", 1, pos.Origin{Terminal: "T1", OrderID: "T1-A", Number: "T1/2627/000001", Tender: pos.TenderCash},
		[]pos.Line{charger}, []pos.ReturnItem{returnItem(0, "CHG", 1, pos.Rupees(1180), 18)})
	ingest(t, db, t2)
	_, err := db.Master.PublishShop(ctx, pos.Shop{Name: "Galla Mobiles", Address: []string{"FC Road, Pune"}, GSTIN: storeGSTIN, State: "27"}, "meera")
	require.NoError(t, err)
	nov := gstr.Month{Year: 2026, Month: time.November}
	check := func(stage string) {
		t.Helper()
		r, err := db.Reports.GSTR1(ctx, nov, time.UTC)
		require.NoError(t, err)
		raw, err := json.Marshal(r.DocIssue)
		require.NoError(t, err)
		assert.Contains(t, string(raw), `"T1/2627/000001"`, stage)
		assert.Contains(t, string(raw), `"T2/C2627/00001"`, "%s: the credit note T2 issued against T1's invoice", stage)
		// b2cs: 2,000.00 sold less 1,000.00 returned, CGST = SGST = 180.00 − 90.00.
		require.Len(t, r.B2CS, 1, stage)
		assert.Equal(t, gstr.Paise(1_000_00), r.B2CS[0].TxVal, stage)
		require.NotNil(t, r.B2CS[0].CAmt)
		assert.Equal(t, gstr.Paise(90_00), *r.B2CS[0].CAmt, stage)
	}
	check("projected")
	_, err = db.Projections.Rebuild(ctx)
	require.NoError(t, err)
	check("rebuilt")
}
