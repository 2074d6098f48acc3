package web

import (
	"encoding/json"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"galla/pos"
	"galla/store"
)

func (j *journal) shift(kind pos.EventKind, rec pos.ShiftRecord) {
	data, err := json.Marshal(rec)
	require.NoError(j.t, err)
	j.add(pos.Event{Kind: kind, Day: day, Staff: "asha", Data: data})
}

func TestTheDayShowsCreditNotesAndShifts(t *testing.T) {
	db, err := store.Open(t.Context(), cluster.Database(t), storeKey(t))
	require.NoError(t, err)
	t.Cleanup(db.Close)
	_, err = db.Migrate(t.Context())
	require.NoError(t, err)
	j := &journal{t: t, id: "T1", prev: strings.Repeat("0", 64)}
	j.shift(pos.EvShiftOpened, pos.ShiftRecord{ID: "S1", Float: pos.Rupees(2000)})
	j.sale("T1-A", pos.TenderCash, "", "", true, pos.Line{SKU: "CHG", Name: "Charger", HSN: "8504", Qty: 2, UnitPrice: pos.Rupees(1180), GSTRate: pos.Percent(18)})
	// One charger back in cash (₹1,180: ₹1,000 taxable, ₹180 GST), one as a note.
	item := pos.ReturnItem{Line: 0, SKU: "CHG", Qty: 1, Amount: pos.Rupees(1180), Taxable: pos.Rupees(1000), Tax: pos.Rupees(180), CGST: pos.Rupees(90), Rate: pos.Percent(18)}
	for i, to := range []pos.RefundTo{pos.RefundToCash, pos.RefundToNote} {
		uid := "R" + string(to)
		j.add(pos.Event{Kind: pos.EvRefundIntent, OrderID: "T1-A", Day: day, Staff: "meera", Refund: &pos.RefundEvent{UniqueTxnID: uid, Amount: pos.Rupees(1180), To: to, Items: []pos.ReturnItem{item}}})
		j.receipt++
		j.add(pos.Event{Kind: pos.EvRefundDone, OrderID: "T1-A", Day: day, ReceiptNo: j.receipt, Series: "C2627", DocNo: uint64(i + 1), Refund: &pos.RefundEvent{UniqueTxnID: uid, Amount: pos.Rupees(1180)}})
	}
	j.shift(pos.EvShiftCash, pos.ShiftRecord{ID: "S1", Move: &pos.CashMove{Kind: pos.CashOut, Amount: pos.Rupees(40), Reason: "tea"}})
	// Expected: 2,000 + 2,360 − 1,180 (the cash return) − 40 = 3,140; counted 3,130.
	j.shift(pos.EvShiftClosed, pos.ShiftRecord{ID: "S1", Counted: pos.Rupees(3130), Expected: pos.Rupees(3140), Variance: pos.Rupees(-10)})
	code, _, err := db.Access.EnrolCode(t.Context(), "T1")
	require.NoError(t, err)
	_, err = db.Access.Enrol(t.Context(), code, newPublicKey(t))
	require.NoError(t, err)
	_, err = db.Events.Ingest(t.Context(), "T1", j.events)
	require.NoError(t, err)
	require.NoError(t, db.Projections.Project(t.Context()))
	_, err = AddManager(t.Context(), db, "Meera", "246810")
	require.NoError(t, err)

	srv := httptest.NewTLSServer(New(db, nil))
	defer srv.Close()
	c := client(t)
	body(t, signin(t, c, srv.URL, "Meera", "246810"))
	r, err := c.Get(srv.URL + "/manager/?day=" + day)
	require.NoError(t, err)
	page := body(t, r)
	returns := between(page, `<table id="returns">`, `</table>`)
	assert.Contains(t, returns, `<tr><th>T1</th><td>cash</td><td class="num">1</td><td class="num">₹1,180.00</td><td class="num">₹1,000.00</td><td class="num">₹180.00</td></tr>`)
	assert.Contains(t, returns, `<tr><th>T1</th><td>note</td><td class="num">1</td><td class="num">₹1,180.00</td><td class="num">₹1,000.00</td><td class="num">₹180.00</td></tr>`)
	shift := between(page, `<tr id="shift-T1-S1">`, `</tr>`)
	for _, want := range []string{"asha", "₹2,000.00", "₹40.00", "₹3,140.00", "₹3,130.00", `<td class="num warn">-₹10.00</td>`} {
		assert.Contains(t, shift, want)
	}
}
