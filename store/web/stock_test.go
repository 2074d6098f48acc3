package web

import (
	"encoding/json"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"galla/pos"
)

// stockEvent journals a stock event with its record.
func (j *journal) stockEvent(kind pos.EventKind, v any) {
	data, err := json.Marshal(v)
	require.NoError(j.t, err)
	j.add(pos.Event{Kind: kind, Day: day, Staff: "meera", Data: data})
}

// TestTheStockPage: T3 received three phones, sold one, sent one to T4 that
// has not received it: the page lists the one on hand with its cost, the
// one in transit set aside and its transfer in transit; a search by IMEI
// digits narrows it.
func TestTheStockPage(t *testing.T) {
	db := storeWithSales(t)
	const a, b, c = "356938035643817", "490154203237518", "356938035643825"
	t3 := &journal{t: t, id: "T3", prev: strings.Repeat("0", 64)}
	t3.stockEvent(pos.EvStockReceived, pos.Delivery{Supplier: "Sai", Invoice: "SD/1", Date: day, Lines: []pos.DeliveryLine{
		{SKU: "PHN", Qty: 3, Cost: 5_000_000, Units: []pos.Unit{{IMEI: a}, {IMEI: b}, {IMEI: c}}}}})
	t3.sale("T3-A", pos.TenderCash, "", "", true, pos.Line{SKU: "PHN", Name: "Phone X", HSN: "8517", Qty: 1, UnitPrice: pos.Rupees(59000), GSTRate: pos.Percent(18), Serialised: true, IMEIs: []string{b}})
	t3.stockEvent(pos.EvStockSent, pos.Transfer{ID: "T3/TR/1", To: "T4", Lines: []pos.DeliveryLine{{SKU: "PHN", Qty: 1, Units: []pos.Unit{{IMEI: c}}}}})
	code, _, err := db.Access.EnrolCode(t.Context(), "T3")
	require.NoError(t, err)
	_, err = db.Access.Enrol(t.Context(), code, newPublicKey(t))
	require.NoError(t, err)
	_, err = db.Events.Ingest(t.Context(), "T3", t3.events)
	require.NoError(t, err)

	srv := httptest.NewTLSServer(New(db, nil))
	defer srv.Close()
	cl := client(t)
	body(t, signin(t, cl, srv.URL, "Meera", "246810"))
	r, err := cl.Get(srv.URL + "/manager/stock")
	require.NoError(t, err)
	page := body(t, r)
	assert.Contains(t, page, `<a href="/manager/stock">Stock</a>`)
	assert.Contains(t, page, "1 phones on hand at the counters, ₹50,000.00 at cost.")
	row := between(page, `<tr id="stock-T3-PHN">`, `</tr>`)
	assert.Contains(t, row, `<td class="num">1</td><td class="num">₹50,000.00</td>`)
	assert.Contains(t, row, a)
	assert.NotContains(t, row, b, "sold")
	assert.Contains(t, between(page, `<table id="stock-aside">`, `</table>`), "<td>"+c+"</td><td>in_transit</td>")
	assert.Contains(t, between(page, `<tr id="transfer-T3/TR/1">`, `</tr>`), "<td>in transit</td>")

	r, err = cl.Get(srv.URL + "/manager/stock?q=4901")
	require.NoError(t, err)
	page = body(t, r)
	assert.Contains(t, page, "No phone on hand: no counter has received goods yet, or none matches.")
}
