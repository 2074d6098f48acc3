package pos

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"testing"
	"time"

	"galla/pos/gstr"
	"galla/receipts"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// changingShop is a day of a shop whose registration changes twice, on
// 22 Nov 2026 in Maharashtra, each sale returnLines (three cables at ₹498.66
// after the line's ₹1 off, ₹1,496.00, and a case at ₹1,499.00, all 18%):
//
//	10:00  no GSTIN             sale A, a RECEIPT            T1/2627/000001
//	11:00  GSTIN, regular       sale B, a TAX INVOICE        T1/2627/000002
//	11:30  (regular)            one cable of A back           T1/C2627/00001
//	11:45  (regular)            one cable of B back           T1/C2627/00002
//	12:00  composition scheme   sale C, a BILL OF SUPPLY     T1/B2627/00001
type changingShop struct {
	r              *rig
	tl             *Till
	a, b, c        Order
	noteA, noteB   string
	regularFrom    time.Time
	compositionFor time.Time
}

func newChangingShop(t *testing.T) *changingShop {
	t.Helper()
	r, tl := newReturnTill(t)
	ctx := t.Context()
	cs := &changingShop{r: r, tl: tl}
	set := func(gstin string, composition bool) {
		t.Helper()
		_, _, err := tl.Setup.SetShop(ctx, ShopDetails{Name: "Galla Mobiles", Address: "1 MG Road, Pune", State: "27", GSTIN: gstin, Composition: composition}, managerPIN)
		require.NoError(t, err)
	}
	pay := func() Order {
		t.Helper()
		res, err := sellCash(ctx, r.e, Sale{Lines: returnLines()}, 299500)
		require.NoError(t, err)
		return *res.Order
	}
	back := func(o Order) string {
		t.Helper()
		res, err := tl.Returns.Return(ctx, ReturnRequest{Document: o.Number("T1"), Items: []ReturnQty{{SKU: "ACC-CBL", Qty: 1}},
			To: RefundToCash, Reason: "faulty", PIN: managerPIN})
		require.NoError(t, err)
		return res.CreditNote
	}
	set("", false)
	cs.a = pay()
	r.clock.Advance(time.Hour)
	set(goodGSTIN, false)
	cs.regularFrom = r.clock.Now()
	cs.b = pay()
	r.clock.Advance(30 * time.Minute)
	cs.noteA = back(cs.a)
	r.clock.Advance(15 * time.Minute)
	cs.noteB = back(cs.b)
	r.clock.Advance(15 * time.Minute)
	set(goodGSTIN, true)
	cs.compositionFor = r.clock.Now()
	cs.c = pay()
	require.Equal(t, []string{"T1/2627/000001", "T1/2627/000002", "T1/C2627/00001", "T1/C2627/00002", "T1/B2627/00001"},
		[]string{cs.a.Number("T1"), cs.b.Number("T1"), cs.noteA, cs.noteB, cs.c.Number("T1")})
	return cs
}

// TestGSTR1AcrossRegistrationChange: November's GSTR-1 of a shop that took its
// GSTIN on 22 Nov at 11:00 and joined the composition scheme at 12:00 holds
// only what it issued as a regular taxpayer under that GSTIN: sale B and its
// credit note. The receipt issued before the GSTIN, the credit note against it
// and the bill of supply under the scheme are left out and named.
//
// Sale B by hand: the cables' 1,496.00 are taxable 1,496.00 / 1.18 = 1,267.80,
// the case's 1,499.00 are 1,270.34; 2,538.14 at 18% is CGST = SGST =
// round(2,538.14 × 9%) = round(228.4326) = 228.43, and 2,538.14 + 2 × 228.43 =
// 2,995.00. One cable back is 498.66: taxable 422.59 and CGST = SGST =
// round(38.0331) = 38.03. b2cs is the sale less the note: 2,115.55 and
// 190.40 + 190.40.
func TestGSTR1AcrossRegistrationChange(t *testing.T) {
	cs := newChangingShop(t)
	ret, err := cs.tl.Documents.GSTR1(t.Context(), gstr.Month{Year: 2026, Month: time.November})
	require.NoError(t, err)
	assert.Equal(t, goodGSTIN, ret.GSTIN)
	camt := gstr.Paise(190_40)
	assert.Equal(t, []gstr.B2CS{{SplyTy: "INTRA", POS: "27", Typ: "OE", Rt: 1800, TxVal: 2115_55, CAmt: &camt, SAmt: &camt}}, ret.B2CS)
	assert.Nil(t, ret.Nil, "the receipt's and the bill of supply's values are no nil-rated or exempt supply of this GSTIN")
	require.NotNil(t, ret.DocIssue)
	assert.Equal(t, []gstr.DocDet{
		{DocNum: 1, DocTyp: "Invoices for outward supply", Docs: []gstr.DocSeries{{Num: 1, From: "T1/2627/000002", To: "T1/2627/000002", TotNum: 1, NetIssue: 1}}},
		{DocNum: 5, DocTyp: "Credit Note", Docs: []gstr.DocSeries{{Num: 1, From: "T1/C2627/00002", To: "T1/C2627/00002", TotNum: 1, NetIssue: 1}}},
	}, ret.DocIssue.DocDet)
	require.NotNil(t, ret.HSN)
	var hsnTx gstr.Paise
	for _, h := range ret.HSN.B2C {
		hsnTx += h.TxVal
	}
	assert.Equal(t, gstr.Paise(2115_55), hsnTx, "the HSN summary is of the same documents")

	var other []string
	for _, d := range ret.Other {
		other = append(other, d.Number)
	}
	assert.ElementsMatch(t, []string{"T1/2627/000001", "T1/C2627/00001", "T1/B2627/00001"}, other)
	assert.Equal(t, "3 documents were issued in the period under another registration than GSTIN 27AAPFU0939F1ZV and are not in this return: "+
		"T1/2627/000001, T1/C2627/00001 while the shop had no GSTIN; T1/B2627/00001 under the composition scheme.", OtherDocuments(ret))

	// December is wholly under the composition scheme: no GSTR-1.
	_, err = cs.tl.Documents.GSTR1(t.Context(), gstr.Month{Year: 2026, Month: time.December})
	assert.ErrorContains(t, err, "composition scheme")
}

// TestGSTR1BeforeTheGSTIN: a month before the shop had its GSTIN has no
// GSTR-1, though the shop has one now.
func TestGSTR1BeforeTheGSTIN(t *testing.T) {
	r, tl := newReturnTill(t)
	ctx := t.Context()
	_, _, err := tl.Setup.SetShop(ctx, ShopDetails{Name: "Galla Mobiles", Address: "1 MG Road, Pune", State: "27"}, managerPIN)
	require.NoError(t, err)
	_, err = sellCash(ctx, r.e, Sale{Lines: returnLines()}, 299500)
	require.NoError(t, err)
	r.clock.Advance(10 * 24 * time.Hour) // 2 December
	registerShop(t, tl)
	_, err = tl.Documents.GSTR1(ctx, gstr.Month{Year: 2026, Month: time.November})
	assert.EqualError(t, err, "The shop had no GSTIN in 2026-11 (its documents were receipts, with no tax): it files no GSTR-1 for it, so there is nothing to export.")
	dec, err := tl.Documents.GSTR1(ctx, gstr.Month{Year: 2026, Month: time.December})
	require.NoError(t, err)
	assert.Nil(t, dec.DocIssue, "nothing issued in December yet")
}

// TestLinesCSVAcrossRegistrationChange: each row of the lines CSV is its
// document as issued: the receipt and the credit note against it carry no tax,
// sale B and its note carry their tax, the bill of supply none, and the last
// column names the GSTIN each was issued under.
func TestLinesCSVAcrossRegistrationChange(t *testing.T) {
	cs := newChangingShop(t)
	var out bytes.Buffer
	day := cs.r.clock.Now()
	require.NoError(t, cs.tl.Documents.WriteLinesCSV(t.Context(), day, day, &out))
	rows, err := csv.NewReader(&out).ReadAll()
	require.NoError(t, err)
	require.Equal(t, gstr.CSVHeader, rows[0])
	col := func(name string) int {
		for i, h := range gstr.CSVHeader {
			if h == name {
				return i
			}
		}
		t.Fatalf("no column %s", name)
		return -1
	}
	type row struct{ no, kind, item, taxable, cgst, total, seller string }
	var got []row
	for _, r := range rows[1:] {
		got = append(got, row{r[col("document_no")], r[col("kind")], r[col("item")], r[col("taxable")], r[col("cgst")], r[col("total")], r[col("seller_gstin")]})
	}
	assert.Equal(t, []row{
		{"T1/2627/000001", "invoice", "Cable", "1496.00", "0.00", "1496.00", ""},
		{"T1/2627/000001", "invoice", "Phone case", "1499.00", "0.00", "1499.00", ""},
		// Sale B's CGST of 228.43 is shared by the lines in proportion to
		// their taxable values: 228.43 × 1,267.80 / 2,538.14 = 114.0986,
		// 114.10, and 114.33 for the case; so is its SGST: 1,267.80 +
		// 2 × 114.10 = 1,496.00 and 1,270.34 + 2 × 114.33 = 1,499.00.
		{"T1/2627/000002", "invoice", "Cable", "1267.80", "114.10", "1496.00", goodGSTIN},
		{"T1/2627/000002", "invoice", "Phone case", "1270.34", "114.33", "1499.00", goodGSTIN},
		{"T1/C2627/00001", "credit-note", "Cable", "-498.66", "0.00", "-498.66", ""},
		{"T1/C2627/00002", "credit-note", "Cable", "-422.59", "-38.03", "-498.65", goodGSTIN},
		{"T1/B2627/00001", "bill-of-supply", "Cable", "1496.00", "0.00", "1496.00", goodGSTIN},
		{"T1/B2627/00001", "bill-of-supply", "Phone case", "1499.00", "0.00", "1499.00", goodGSTIN},
	}, got)
}

// TestReportAcrossRegistrationChange: the day's X report states the GST of the
// documents that stated it, sale B and its credit note, and not the receipt's,
// its note's or the bill of supply's: GST 2,538.14 taxable, 228.43 + 228.43;
// reversed 422.59, 38.03 + 38.03. Its slip prints those rows, though the shop
// is under the composition scheme when it is printed.
func TestReportAcrossRegistrationChange(t *testing.T) {
	cs := newChangingShop(t)
	ctx := t.Context()
	rep, err := cs.r.e.Ledger.Report(ctx, "2026-11-22")
	require.NoError(t, err)
	assert.Equal(t, Paise(3*2995_00), rep.GrossSales, "every sale is sold, taxed or not")
	require.Len(t, rep.GST, 1)
	assert.Equal(t, RateTotal{Rate: Percent(18), Amount: 2995_00, Taxable: 2538_14, Tax: 456_86, CGST: 228_43, SGST: 228_43}, rep.GST[0])
	require.Len(t, rep.ReturnsGST, 1)
	assert.Equal(t, Paise(422_59), rep.ReturnsGST[0].Taxable)
	assert.Equal(t, Paise(38_03), rep.ReturnsGST[0].CGST)
	assert.Equal(t, Paise(38_03), rep.ReturnsGST[0].SGST)

	d, err := cs.tl.Documents.ReportDocument(ctx, rep)
	require.NoError(t, err)
	assert.False(t, d.Receipt.NoTax, "the day had tax invoices")
	var b bytes.Buffer
	require.NoError(t, receipts.Text(&b, d.Receipt, 48))
	assert.Contains(t, b.String(), "228.43")
	assert.Contains(t, b.String(), "GSTIN 27AAPFU0939F1ZV")

	// The next day, wholly under the scheme, has no GST rows.
	cs.r.clock.Advance(24 * time.Hour)
	_, err = sellCash(ctx, cs.r.e, Sale{Lines: returnLines()}, 299500)
	require.NoError(t, err)
	next, err := cs.r.e.Ledger.Report(ctx, ToDay(cs.r.clock.Now()))
	require.NoError(t, err)
	assert.Empty(t, next.GST)
	d, err = cs.tl.Documents.ReportDocument(ctx, next)
	require.NoError(t, err)
	assert.True(t, d.Receipt.NoTax)
}

// TestShopsAt: the registration in force at each moment, and the ones in
// force during a span.
func TestShopsAt(t *testing.T) {
	t0 := time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC)
	none := Shop{Name: "G"}
	reg := Shop{Name: "G", GSTIN: goodGSTIN}
	comp := Shop{Name: "G", GSTIN: goodGSTIN, Composition: true}
	shops := Shops{Today: comp, History: RegistrationHistory{{Shop: none}, {From: t0, Shop: reg}, {From: t0.Add(2 * time.Hour), Shop: comp}}}
	assert.Equal(t, none, shops.At(t0.Add(-time.Minute)))
	assert.Equal(t, reg, shops.At(t0))
	assert.Equal(t, reg, shops.At(t0.Add(time.Hour)))
	assert.Equal(t, comp, shops.At(t0.Add(2*time.Hour)))
	assert.Equal(t, []Shop{none, reg, comp}, shops.During(t0.Add(-time.Hour), t0.Add(3*time.Hour)))
	assert.Equal(t, []Shop{reg}, shops.During(t0, t0.Add(time.Hour)))
	assert.Equal(t, []Shop{comp}, ShopsOf(comp).During(t0, t0.Add(time.Hour)))
	// A shop first set up at t0 had no registration before.
	fresh := Shops{Today: reg, History: RegistrationHistory{{From: t0, Shop: none}, {From: t0.Add(time.Hour), Shop: reg}}}
	assert.Equal(t, []Shop{none, reg}, fresh.During(t0.Add(-24*time.Hour), t0.Add(2*time.Hour)))
}

// TestShopsAtBeforeTheFirstEntry: a history whose first entry is dated began
// when the shop was first set up; a document issued before it printed a shop
// with no details: no name, no GSTIN, unregistered. At gives that shop, with
// today's rate choice, and not the first entry's details nor today's, though
// both are registered.
func TestShopsAtBeforeTheFirstEntry(t *testing.T) {
	t0 := time.Date(2026, 11, 22, 11, 0, 0, 0, time.UTC)
	rates := ShopRates{{Rates: []Rate{Percent(0), Percent(18)}}}
	reg := Shop{Name: "Galla Mobiles", Address: []string{"1 MG Road, Pune"}, State: "27", GSTIN: goodGSTIN}
	today := reg
	today.Rates = rates
	comp := Shop{Name: "Galla Mobiles", State: "27", GSTIN: goodGSTIN, Composition: true}

	// Set up with its GSTIN at t0, never changed since.
	once := Shops{Today: today, History: RegistrationHistory{{From: t0, Shop: reg}}}
	before := once.At(t0.Add(-time.Minute))
	assert.Equal(t, Shop{Rates: rates}, before)
	assert.Equal(t, Unregistered, before.Registration())
	assert.Equal(t, "RECEIPT", before.Registration().Title())
	assert.False(t, once.StatesTax(t0.Add(-time.Minute)))
	assert.Equal(t, today, once.At(t0))
	assert.True(t, once.StatesTax(t0))

	// Set up under the composition scheme at t0, regular from t0 + 1h.
	twice := Shops{Today: today, History: RegistrationHistory{{From: t0, Shop: comp}, {From: t0.Add(time.Hour), Shop: reg}}}
	assert.Equal(t, Shop{Rates: rates}, twice.At(t0.Add(-24*time.Hour)))
	withRates := comp
	withRates.Rates = rates
	assert.Equal(t, withRates, twice.At(t0.Add(30*time.Minute)))
	assert.Equal(t, today, twice.At(t0.Add(time.Hour)))

	// A span wholly before the set-up takes the earliest details known; one
	// that reaches past it, the details from the set-up on.
	assert.Equal(t, []Shop{today}, once.During(t0.Add(-48*time.Hour), t0.Add(-24*time.Hour)))
	assert.Equal(t, []Shop{withRates}, twice.During(t0.Add(-48*time.Hour), t0.Add(-24*time.Hour)))
	assert.Equal(t, []Shop{withRates, today}, twice.During(t0.Add(-48*time.Hour), t0.Add(2*time.Hour)))

	// A first entry in force since an unknown date covers every earlier day.
	kept := Shops{Today: today, History: RegistrationHistory{{Shop: comp}, {From: t0, Shop: reg}}}
	assert.Equal(t, withRates, kept.At(t0.Add(-365*24*time.Hour)))
}

// TestSaleBeforeTheShopWasSetUp: a sale paid before the shop's details were
// first set printed a RECEIPT with no shop details and no tax; set up an hour
// later as a regular registrant, the shop reprints it so, and November's
// GSTR-1 and the day's X report hold only the sale made after, each a
// ₹2,995.00 sale (three cables at ₹498.66 after the ₹1 off, ₹1,496.00, and a
// case at ₹1,499.00, all 18%). By hand: taxable 1,496.00 / 1.18 = 1,267.80
// and 1,499.00 / 1.18 = 1,270.34, together 2,538.14; CGST = SGST =
// round(2,538.14 × 9%) = round(228.4326) = 228.43.
func TestSaleBeforeTheShopWasSetUp(t *testing.T) {
	r, tl := newReturnTill(t)
	ctx := t.Context()
	unset, err := LoadShop(ctx, r.j)
	require.NoError(t, err)
	require.Equal(t, Shop{}, unset, "no shop details yet")
	early, err := sellCash(ctx, r.e, Sale{Lines: returnLines()}, 299500)
	require.NoError(t, err)
	first, err := tl.Documents.ReceiptDocument(ctx, early.Order.ID, -1)
	require.NoError(t, err)
	require.Equal(t, "RECEIPT", first.Receipt.Title)
	require.NoError(t, tl.Documents.RecordCopy(ctx, first, "stdout", "escpos"))

	r.clock.Advance(time.Hour)
	registerShop(t, tl)
	later, err := sellCash(ctx, r.e, Sale{Lines: returnLines()}, 299500)
	require.NoError(t, err)

	d, err := tl.Documents.ReceiptDocument(ctx, early.Order.ID, -1)
	require.NoError(t, err)
	assert.Equal(t, "RECEIPT", d.Receipt.Title)
	text := docText(t, d.Receipt)
	assert.Contains(t, text, "DUPLICATE")
	assert.Contains(t, text, UnregisteredLegend)
	for _, not := range []string{"GSTIN", "Galla Mobiles", "CGST", "TAX INVOICE"} {
		assert.NotContains(t, text, not)
	}
	d, err = tl.Documents.ReceiptDocument(ctx, later.Order.ID, -1)
	require.NoError(t, err)
	assert.Equal(t, "TAX INVOICE", d.Receipt.Title)
	assert.Contains(t, docText(t, d.Receipt), "GSTIN 27AAPFU0939F1ZV")

	ret, err := tl.Documents.GSTR1(ctx, gstr.Month{Year: 2026, Month: time.November})
	require.NoError(t, err)
	camt := gstr.Paise(228_43)
	assert.Equal(t, []gstr.B2CS{{SplyTy: "INTRA", POS: "27", Typ: "OE", Rt: 1800, TxVal: 2538_14, CAmt: &camt, SAmt: &camt}}, ret.B2CS)
	assert.Equal(t, "1 document was issued in the period under another registration than GSTIN 27AAPFU0939F1ZV and is not in this return: "+
		early.Order.Number("T1")+" while the shop had no GSTIN.", OtherDocuments(ret))

	rep, err := r.e.Ledger.Report(ctx, "2026-11-22")
	require.NoError(t, err)
	assert.Equal(t, Paise(2*2995_00), rep.GrossSales)
	require.Len(t, rep.GST, 1)
	assert.Equal(t, RateTotal{Rate: Percent(18), Amount: 2995_00, Taxable: 2538_14, Tax: 456_86, CGST: 228_43, SGST: 228_43}, rep.GST[0])
}

// TestHistoryKeepsAnyEarlierDetail: a shop an earlier version journaled with
// a state and a phone alone (no name, GSTIN or address) printed them; the
// first change the history dates keeps them first, in force since an unknown
// date, so that a document issued before it does not reprint as a shop with
// no details.
func TestHistoryKeepsAnyEarlierDetail(t *testing.T) {
	r, tl := newReturnTill(t)
	ctx := t.Context()
	raw, err := json.Marshal(Shop{State: "27", Phone: "9000000009"})
	require.NoError(t, err)
	_, err = r.j.Append(ctx, Event{Kind: EvSettingsChanged, Time: r.clock.Now(), Setting: &Setting{Key: SettingShop, Value: raw}})
	require.NoError(t, err)
	r.clock.Advance(time.Hour)
	registerShop(t, tl)
	h, err := LoadRegistrations(ctx, r.j)
	require.NoError(t, err)
	require.Len(t, h, 2)
	assert.True(t, h[0].From.IsZero())
	assert.Equal(t, Shop{State: "27", Phone: "9000000009"}, h[0].Shop)
	assert.True(t, r.clock.Now().Equal(h[1].From), "dated at the change")
	assert.Equal(t, goodGSTIN, h[1].Shop.GSTIN)
}

// TestGSTR1ShortHSN: a shop that declared an aggregate turnover above ₹5
// crore after importing a catalog of 4-digit HSN codes sold lines carrying
// them; its GSTR-1 names them (the portal takes six digits), and a shop at or
// below the limit is told nothing.
func TestGSTR1ShortHSN(t *testing.T) {
	r, tl := newReturnTill(t)
	ctx := t.Context()
	set := func(turnover string) {
		t.Helper()
		_, _, err := tl.Setup.SetShop(ctx, ShopDetails{Name: "Galla Mobiles", Address: "1 MG Road, Pune", State: "27", GSTIN: goodGSTIN, Turnover: turnover}, managerPIN)
		require.NoError(t, err)
	}
	set("5")
	_, err := sellCash(ctx, r.e, Sale{Lines: returnLines()}, 299500) // a cable (8544) and a case (3926)
	require.NoError(t, err)
	nov := gstr.Month{Year: 2026, Month: time.November}
	ret, err := tl.Documents.GSTR1(ctx, nov)
	require.NoError(t, err)
	assert.Empty(t, ret.ShortHSN, "₹5 crore is not above the limit")
	assert.Empty(t, ShortHSN(ret))

	r.clock.Advance(time.Hour)
	set("12.5")
	ret, err = tl.Documents.GSTR1(ctx, nov)
	require.NoError(t, err)
	assert.ElementsMatch(t, []string{"8544", "3926"}, ret.ShortHSN)
	assert.ElementsMatch(t, []string{"8544", "3926"}, ret.HSNCodes())
	assert.Equal(t, "The shop declared an aggregate turnover above ₹5,00,00,000.00, and table 12 (HSN) of this return has codes of fewer than six digits: "+
		joinAnd(ret.ShortHSN)+"; the portal takes six (Notification 78/2020-Central Tax). Give the six-digit codes in the offline tool before uploading, and import the catalog with six-digit codes so that later sales carry them.", ShortHSN(ret))
}
