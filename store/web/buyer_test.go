package web

import (
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"galla/pos"
)

// TestThePagesShowTheBuyerSealedInTheDatabase: a B2B sale's buyer is kept
// sealed in the database (its name, phone, address and GSTIN are in no
// event's body or order's snapshot as text), and the order's page, found by
// its document number, shows them, opened with the store key; every page says
// where that key is kept.
func TestThePagesShowTheBuyerSealedInTheDatabase(t *testing.T) {
	db := storeWithSales(t)
	buyer := pos.Buyer{Name: "Kaveri Traders", Phone: "9845012345", Address: "14 Residency Road, Bengaluru", State: "29", GSTIN: "29AAGCB7383J1Z4"}
	j := &journal{t: t, id: "T3"}
	j.prev = strings.Repeat("0", 64)
	l := pos.Line{SKU: "LAP", Name: "Laptop", HSN: "8471", Qty: 1, UnitPrice: pos.Rupees(59000), GSTRate: pos.Percent(18)}
	totals := pos.ComputeTotals([]pos.Line{l})
	j.add(pos.Event{Kind: pos.EvOrderIntent, OrderID: "T3-B2B", Day: day, Staff: "asha",
		Intent: &pos.Intent{Tender: pos.TenderCash, Lines: []pos.Line{l}, Totals: totals, Amount: totals.Total, Buyer: &buyer}})
	j.add(pos.Event{Kind: pos.EvCashReceived, OrderID: "T3-B2B", Day: day, ReceiptNo: 1, Cash: &pos.CashEvent{Tendered: totals.Total}})
	code, _, err := db.Access.EnrolCode(t.Context(), "T3")
	require.NoError(t, err)
	_, err = db.Access.Enrol(t.Context(), code, newPublicKey(t))
	require.NoError(t, err)
	_, err = db.Events.Ingest(t.Context(), "T3", j.events)
	require.NoError(t, err)
	require.NoError(t, db.Projections.Project(t.Context()))

	var stored string
	require.NoError(t, db.Pool().QueryRow(t.Context(), `SELECT string_agg(body::text, ' ') FROM events WHERE terminal_id = 'T3'`).Scan(&stored))
	var snap string
	require.NoError(t, db.Pool().QueryRow(t.Context(), `SELECT snapshot::text FROM orders WHERE order_id = 'T3-B2B'`).Scan(&snap))
	for _, w := range []string{buyer.Name, buyer.Phone, buyer.Address, buyer.GSTIN} {
		assert.NotContains(t, stored+snap, w, "the database holds the buyer sealed")
	}

	p := New(db, nil)
	now := db.Now()
	p.Now = func() time.Time { return now }
	srv := httptest.NewTLSServer(p)
	defer srv.Close()
	c := client(t)
	body(t, signin(t, c, srv.URL, "Meera", "246810"))
	r, err := c.Get(srv.URL + "/manager/search?q=T3/000001")
	require.NoError(t, err)
	found := body(t, r)
	assert.Contains(t, found, "/manager/order/T3/T3-B2B", "found by its document number")
	assert.Contains(t, found, "The store key, which seals the buyers&#39; details in the database")
	assert.Contains(t, found, db.KeyWhere(), "the page says where the key is kept")
	r, err = c.Get(srv.URL + "/manager/order/T3/T3-B2B")
	require.NoError(t, err)
	page := body(t, r)
	assert.Contains(t, page, `<dd id="buyer">Kaveri Traders, GSTIN 29AAGCB7383J1Z4, 9845012345, 14 Residency Road, Bengaluru</dd>`)

	// The buyer's phone finds the sale, by its keyed digest.
	for _, q := range []string{"9845012345", "+91 98450 12345"} {
		kind, got, err := search(t.Context(), db, q)
		require.NoError(t, err)
		assert.Equal(t, "phone", kind)
		require.Len(t, got, 1, q)
		assert.Equal(t, "T3-B2B", got[0].OrderID, q)
	}
}
