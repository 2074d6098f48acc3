package web

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"galla/pos"
	"galla/store"
)

func TestTheMonthsGSTR1AndCSVDownload(t *testing.T) {
	db, err := store.Open(t.Context(), cluster.Database(t), storeKey(t))
	require.NoError(t, err)
	t.Cleanup(db.Close)
	_, err = db.Migrate(t.Context())
	require.NoError(t, err)
	// T1 sells a ₹1,180 charger, T2 two (₹2,360), both at 18% in cash; T2
	// takes one back in cash (₹1,180: ₹1,000 taxable, ₹180 GST).
	for _, c := range []struct {
		id  string
		qty int
	}{{"T1", 1}, {"T2", 2}} {
		j := &journal{t: t, id: c.id, prev: strings.Repeat("0", 64)}
		line := pos.Line{SKU: "CHG", Name: "Charger", HSN: "8504", Qty: c.qty, UnitPrice: pos.Rupees(1180), GSTRate: pos.Percent(18)}
		totals := pos.ComputeTotals([]pos.Line{line})
		j.add(pos.Event{Kind: pos.EvOrderIntent, OrderID: c.id + "-A", Day: day, Staff: "asha",
			Intent: &pos.Intent{Tender: pos.TenderCash, Lines: []pos.Line{line}, Totals: totals, Amount: totals.Total}})
		j.add(pos.Event{Kind: pos.EvCashReceived, OrderID: c.id + "-A", Day: day, Series: "2627", DocNo: 1, Cash: &pos.CashEvent{Tendered: totals.Total}})
		if c.id == "T2" {
			item := pos.ReturnItem{Line: 0, SKU: "CHG", Qty: 1, Amount: pos.Rupees(1180), Taxable: pos.Rupees(1000), Tax: pos.Rupees(180), CGST: pos.Rupees(90), Rate: pos.Percent(18)}
			j.add(pos.Event{Kind: pos.EvRefundIntent, OrderID: "T2-A", Day: day, Staff: "meera", Refund: &pos.RefundEvent{UniqueTxnID: "R1", Amount: pos.Rupees(1180), To: pos.RefundToCash, Items: []pos.ReturnItem{item}}})
			j.add(pos.Event{Kind: pos.EvRefundDone, OrderID: "T2-A", Day: day, Series: "C2627", DocNo: 1, Refund: &pos.RefundEvent{UniqueTxnID: "R1", Amount: pos.Rupees(1180)}})
		}
		code, _, err := db.Access.EnrolCode(t.Context(), c.id)
		require.NoError(t, err)
		_, err = db.Access.Enrol(t.Context(), code, newPublicKey(t))
		require.NoError(t, err)
		_, err = db.Events.Ingest(t.Context(), c.id, j.events)
		require.NoError(t, err)
	}
	_, err = AddManager(t.Context(), db, "Meera", "246810")
	require.NoError(t, err)
	p := New(db, nil)
	p.Now = func() time.Time { return time.Date(2026, 11, 30, 18, 0, 0, 0, time.UTC) }
	srv := httptest.NewTLSServer(p)
	defer srv.Close()
	c := client(t)
	body(t, signin(t, c, srv.URL, "Meera", "246810"))

	r, err := c.Get(srv.URL + "/manager/gstr1.json?month=2026-11")
	require.NoError(t, err)
	assert.Equal(t, http.StatusConflict, r.StatusCode)
	assert.Contains(t, body(t, r), "GSTR-1 is filed under the store&#39;s GSTIN, which is not known")

	_, err = db.Master.PublishShop(t.Context(), pos.Shop{Name: "Galla Mobiles", Address: []string{"Pune"}, GSTIN: "27AAPFU0939F1ZV", State: "27"}, "meera")
	require.NoError(t, err)
	r, err = c.Get(srv.URL + "/manager/gstr1.json?month=2026-11")
	require.NoError(t, err)
	require.Equal(t, http.StatusOK, r.StatusCode)
	assert.Equal(t, `attachment; filename="GSTR1-27AAPFU0939F1ZV-112026.json"`, r.Header.Get("Content-Disposition"))
	var ret struct {
		FP   string `json:"fp"`
		B2CS []struct {
			TxVal json.Number `json:"txval"`
			CAmt  json.Number `json:"camt"`
			SAmt  json.Number `json:"samt"`
		} `json:"b2cs"`
	}
	dec := json.NewDecoder(strings.NewReader(body(t, r)))
	dec.UseNumber()
	require.NoError(t, dec.Decode(&ret))
	assert.Equal(t, "112026", ret.FP)
	// b2cs = sales − returns: taxable 1,000 + 2,000 − 1,000 = 2,000; CGST = SGST = 90 + 180 − 90 = 180.
	require.Len(t, ret.B2CS, 1)
	assert.Equal(t, "2000.00", ret.B2CS[0].TxVal.String())
	assert.Equal(t, "180.00", ret.B2CS[0].CAmt.String())
	assert.Equal(t, "180.00", ret.B2CS[0].SAmt.String())

	r, err = c.Get(srv.URL + "/manager/lines.csv?month=2026-11")
	require.NoError(t, err)
	require.Equal(t, http.StatusOK, r.StatusCode)
	csv := body(t, r)
	for _, n := range []string{"T1/2627/000001", "T2/2627/000001", "T2/C2627/00001"} {
		assert.Contains(t, csv, n)
	}

	// A GSTIN under which no counter issued a document of the month.
	r, err = c.Get(srv.URL + "/manager/gstr1.json?month=2026-11&gstin=29AAGCB7383J1Z4")
	require.NoError(t, err)
	assert.Equal(t, http.StatusConflict, r.StatusCode)
	assert.Contains(t, body(t, r), "no counter issued a document of 2026-11 under GSTIN 29AAGCB7383J1Z4")

	r, err = c.Get(srv.URL + "/manager/gstr1.json?month=November")
	require.NoError(t, err)
	assert.Equal(t, http.StatusBadRequest, r.StatusCode)
	assert.Contains(t, body(t, r), "The month is written YYYY-MM")

	r, err = c.Get(srv.URL + "/manager/?day=" + day)
	require.NoError(t, err)
	assert.Contains(t, body(t, r), `href="/manager/gstr1.json?month=2026-11"`)
}
