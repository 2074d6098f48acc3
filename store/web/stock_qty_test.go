package web

import (
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"galla/pos"
)

// TestTheStockPageShowsQuantities: T3 received ten chargers and sold three:
// the page shows seven on hand at T3.
func TestTheStockPageShowsQuantities(t *testing.T) {
	db := storeWithSales(t)
	t3 := &journal{t: t, id: "T3", prev: strings.Repeat("0", 64)}
	t3.stockEvent(pos.EvStockReceived, pos.Delivery{Supplier: "Sai", Invoice: "SD/1", Date: day, Lines: []pos.DeliveryLine{{SKU: "CHG", Qty: 10, Cost: 60_000}}})
	t3.sale("T3-A", pos.TenderCash, "", "", true, pos.Line{SKU: "CHG", Name: "Charger", HSN: "8504", Qty: 3, UnitPrice: pos.Rupees(999), GSTRate: pos.Percent(18)})
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
	assert.Equal(t, `<th>T3</th><td>CHG</td><td class="num">7</td>`, between(page, `<tr id="qty-T3-CHG">`, `</tr>`))
}
