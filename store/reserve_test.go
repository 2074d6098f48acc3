package store

import (
	"crypto/ed25519"
	"encoding/json"
	"fmt"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"galla/pos"
	"galla/store/api"
)

// race sends one signed request from each of terminals at the same moment and
// returns their HTTP statuses and answers.
func race(t *testing.T, base string, creds map[string]ed25519.PrivateKey, terminals []string, path string, bodies []any) ([]int, []api.Error) {
	t.Helper()
	statuses, errs := make([]int, len(terminals)), make([]api.Error, len(terminals))
	var start, done sync.WaitGroup
	start.Add(1)
	for i, term := range terminals {
		body, err := json.Marshal(bodies[i])
		require.NoError(t, err)
		done.Add(1)
		go func() {
			defer done.Done()
			start.Wait()
			var out json.RawMessage
			statuses[i] = post(t, base, "POST", path, term, creds[term], time.Now(), newNonce(), body, &out)
			_ = json.Unmarshal(out, &errs[i])
		}()
	}
	start.Done()
	done.Wait()
	return statuses, errs
}

// twoCounters is a server with enrolled terminals T1 and T2.
func twoCounters(t *testing.T) (*DB, string, map[string]ed25519.PrivateKey) {
	db := newDB(t)
	srv := httptest.NewServer(NewServer(db, nil))
	t.Cleanup(srv.Close)
	return db, srv.URL, map[string]ed25519.PrivateKey{"T1": enrolled(t, db, "T1"), "T2": enrolled(t, db, "T2")}
}

func TestTwoCountersSellingTheSameIMEIAtOnce(t *testing.T) {
	db, base, creds := twoCounters(t)
	const imei = "356938035643809"
	for round := range 10 {
		unit := fmt.Sprintf("35693803564%03d", round)
		unit += string('0' + luhnDigit(unit))
		statuses, errs := race(t, base, creds, []string{"T1", "T2"}, api.PathReserveIMEI, []any{
			api.ReserveIMEI{OrderID: "T1-" + unit, IMEIs: []string{unit}},
			api.ReserveIMEI{OrderID: "T2-" + unit, IMEIs: []string{unit}},
		})
		won := 0
		for i, s := range statuses {
			switch s {
			case 200:
				won++
			case 409:
				assert.Equal(t, api.CodeTaken, errs[i].Code)
				assert.Contains(t, errs[i].Message, "IMEI "+unit+" is sold already at counter T")
			default:
				t.Fatalf("round %d: status %d: %+v", round, s, errs[i])
			}
		}
		assert.Equal(t, 1, won, "round %d: exactly one counter sells the unit", round)
	}
	var n int
	require.NoError(t, db.Pool().QueryRow(t.Context(), "SELECT count(*) FROM imei_reservations").Scan(&n))
	assert.Equal(t, 10, n)

	// The same order asking again is answered yes; another order no; after the
	// sale is released (it took no money) another counter may sell the unit.
	require.NoError(t, db.Decisions.ReserveIMEIs(t.Context(), "T1", "O1", []string{imei}))
	require.NoError(t, db.Decisions.ReserveIMEIs(t.Context(), "T1", "O1", []string{imei}))
	err := db.Decisions.ReserveIMEIs(t.Context(), "T2", "O2", []string{imei})
	require.Error(t, err)
	assert.Equal(t, "IMEI 356938035643809 is sold already at counter T1 (order O1): check the unit; a manager may look it up on the store's pages", err.Error())
	released, err := db.Decisions.Release(t.Context(), "T1", "O1", "")
	require.NoError(t, err)
	assert.Equal(t, 1, released)
	require.NoError(t, db.Decisions.ReserveIMEIs(t.Context(), "T2", "O2", []string{imei}))

	err = db.Decisions.ReserveIMEIs(t.Context(), "T2", "O3", []string{"356938035643808"})
	require.Error(t, err)
	assert.Contains(t, err.Error(), "is not an IMEI")
}

// luhnDigit is the check digit of the 14 digits s.
func luhnDigit(s string) byte {
	sum := 0
	for i := len(s) - 1; i >= 0; i-- {
		d := int(s[i] - '0')
		if (len(s)-1-i)%2 == 0 {
			d *= 2
			if d > 9 {
				d -= 9
			}
		}
		sum += d
	}
	return byte((10 - sum%10) % 10)
}

// noteSale journals at c a cash sale id of one item at rupees, taken back onto
// a credit note to spend of the same value, numbered C2627/docNo, and returns
// the note's number.
func (c *counter) noteSale(id string, rupees int64, docNo uint64) string {
	c.t.Helper()
	c.cashSale(id, day1, pos.Line{SKU: "GIFT", Name: "Gift box", Qty: 1, UnitPrice: pos.Rupees(rupees), GSTRate: pos.Percent(0)})
	uid := "R-" + id
	item := pos.ReturnItem{Line: 0, SKU: "GIFT", Qty: 1, Amount: pos.Rupees(rupees), Taxable: pos.Rupees(rupees)}
	c.add(pos.Event{Kind: pos.EvRefundIntent, OrderID: id, Day: day1, Staff: "meera",
		Refund: &pos.RefundEvent{UniqueTxnID: uid, Amount: pos.Rupees(rupees), To: pos.RefundToNote, Items: []pos.ReturnItem{item}}})
	c.receipt++
	c.add(pos.Event{Kind: pos.EvRefundDone, OrderID: id, Day: day1, ReceiptNo: c.receipt, Series: "C2627", DocNo: docNo,
		Refund: &pos.RefundEvent{UniqueTxnID: uid, Amount: pos.Rupees(rupees)}})
	return pos.DocNumber(c.id, "C2627", docNo)
}

func TestTwoCountersRedeemingTheSameCreditNoteAtOnce(t *testing.T) {
	db, base, creds := twoCounters(t)
	c := newCounter(t, "T1")
	var numbers []string
	for round := range 10 {
		numbers = append(numbers, c.noteSale(fmt.Sprintf("T1-N%d", round), 1000, uint64(round+1)))
	}
	_, err := db.Events.Ingest(t.Context(), "T1", c.sent())
	require.NoError(t, err)
	for round, number := range numbers {
		// ₹1,000 note; each counter asks ₹600: only one can have it.
		statuses, errs := race(t, base, creds, []string{"T1", "T2"}, api.PathReserveCreditNote, []any{
			api.ReserveCreditNote{Number: number, OrderID: "T1-" + number, Amount: 60000},
			api.ReserveCreditNote{Number: number, OrderID: "T2-" + number, Amount: 60000},
		})
		won := 0
		for i, s := range statuses {
			switch s {
			case 200:
				won++
			case 409:
				assert.Equal(t, api.CodeExceeded, errs[i].Code)
				assert.Equal(t, "credit note "+number+" has ₹400.00 left of ₹1,000.00; ₹600.00 cannot be taken from it", errs[i].Message)
			default:
				t.Fatalf("status %d: %+v", s, errs[i])
			}
		}
		assert.Equal(t, 1, won, "round %d", round)
		var redeemed int64
		require.NoError(t, db.Pool().QueryRow(t.Context(), "SELECT redeemed FROM credit_note_balances WHERE number = $1", number).Scan(&redeemed))
		assert.Equal(t, int64(60000), redeemed)
	}
	// The rest can be taken, not a paisa more; a release gives it back.
	first := numbers[0]
	left, err := db.Decisions.RedeemCreditNote(t.Context(), "T2", first, "T2-next", pos.Rupees(400))
	require.NoError(t, err)
	assert.Equal(t, pos.Paise(0), left)
	_, err = db.Decisions.RedeemCreditNote(t.Context(), "T2", first, "T2-more", 1)
	require.Error(t, err)
	_, err = db.Decisions.Release(t.Context(), "T2", "T2-next", "")
	require.NoError(t, err)
	left, err = db.Decisions.RedeemCreditNote(t.Context(), "T2", first, "T2-more", 1)
	require.NoError(t, err)
	assert.Equal(t, pos.Rupees(400)-1, left)

	_, err = db.Decisions.RedeemCreditNote(t.Context(), "T2", "CN/NOPE", "x", 100)
	require.Error(t, err)
	assert.Equal(t, "credit note CN/NOPE is not known to the store: check the number on the note, or wait until the counter that issued it has synced", err.Error())
}

// returnItem is qty units and amount of line n (sku, at rate percent) given
// back, with its tax split.
func returnItem(n int, sku string, qty int, amount pos.Paise, rate int) pos.ReturnItem {
	tx := pos.TaxOf(amount, pos.Percent(rate))
	return pos.ReturnItem{Line: n, SKU: sku, Qty: qty, Amount: amount, Taxable: tx.Taxable, Tax: tx.Tax, CGST: tx.CGST, Rate: pos.Percent(rate)}
}

// returnAt journals at c a return order id of another counter's invoice
// (origin, whose lines it copies) with its refund uid of items in cash, done
// and numbered C2627/docNo.
func (c *counter) returnAt(id, uid string, docNo uint64, origin pos.Origin, lines []pos.Line, items []pos.ReturnItem) {
	c.t.Helper()
	var amount pos.Paise
	for _, it := range items {
		amount += it.Amount
	}
	origin.Returnable = amount
	totals := pos.ComputeTotals(lines)
	c.add(pos.Event{Kind: pos.EvOrderIntent, OrderID: id, Day: day1, Staff: "meera",
		Intent: &pos.Intent{Tender: pos.TenderCash, Lines: lines, Totals: totals, Amount: totals.Total, Origin: &origin}})
	c.add(pos.Event{Kind: pos.EvRefundIntent, OrderID: id, Day: day1, Staff: "meera",
		Refund: &pos.RefundEvent{UniqueTxnID: uid, Amount: amount, To: pos.RefundToCash, Items: items}})
	c.receipt++
	c.add(pos.Event{Kind: pos.EvRefundDone, OrderID: id, Day: day1, ReceiptNo: c.receipt, Series: "C2627", DocNo: docNo,
		Refund: &pos.RefundEvent{UniqueTxnID: uid, Amount: amount}})
}

func TestReturnsOfAnotherCountersInvoiceNeverExceedWhatWasPaid(t *testing.T) {
	db, base, creds := twoCounters(t)
	c := newCounter(t, "T1")
	phone := line("PHN", 1, 59000, 18)
	c.cardSale("T1-B", day1, "4242", "", true, phone)
	_, err := db.Events.Ingest(t.Context(), "T1", c.sent())
	require.NoError(t, err)

	// Two counters return ₹40,000 of the ₹59,000 invoice at once (a price
	// adjustment of its one line): one only.
	adjust := func(amount int64) []api.ReturnLine {
		return []api.ReturnLine{{Line: 0, SKU: "PHN", Amount: amount}}
	}
	statuses, errs := race(t, base, creds, []string{"T1", "T2"}, api.PathReserveReturn, []any{
		api.ReserveReturn{Document: "T1/000001", RefundID: "R1", Amount: 4000000, Lines: adjust(4000000)},
		api.ReserveReturn{Document: "T1/000001", RefundID: "R2", Amount: 4000000, Lines: adjust(4000000)},
	})
	won := 0
	for i, s := range statuses {
		if s == 200 {
			won++
			continue
		}
		require.Equal(t, 409, s, "%+v", errs[i])
		assert.Equal(t, "invoice T1/000001 was paid ₹59,000.00, of which ₹40,000.00 is refunded or being refunded: at most ₹19,000.00 can be returned, not ₹40,000.00", errs[i].Message)
	}
	assert.Equal(t, 1, won)

	// The winner's refund reaches the store from the counter that reserved it
	// (on the invoice at T1, on a return order citing it at T2) and settles
	// its reservation: counted once, by the events.
	item := returnItem(0, "PHN", 0, pos.Rupees(40000), 18)
	if statuses[0] == 200 {
		c.add(pos.Event{Kind: pos.EvRefundIntent, OrderID: "T1-B", Day: day1, Refund: &pos.RefundEvent{UniqueTxnID: "R1", Amount: pos.Rupees(40000), Items: []pos.ReturnItem{item}}})
		c.add(pos.Event{Kind: pos.EvRefundDone, OrderID: "T1-B", Day: day1, ReceiptNo: 2, Refund: &pos.RefundEvent{UniqueTxnID: "R1", Amount: pos.Rupees(40000), RefundID: "RF"}})
		_, err = db.Events.Ingest(t.Context(), "T1", c.sent())
	} else {
		c2 := newCounter(t, "T2")
		c2.returnAt("T2-RET", "R2", 1, pos.Origin{Terminal: "T1", OrderID: "T1-B", Number: "T1/000001", Tender: pos.TenderCard}, []pos.Line{phone}, []pos.ReturnItem{item})
		_, err = db.Events.Ingest(t.Context(), "T2", c2.sent())
	}
	require.NoError(t, err)
	require.NoError(t, db.Projections.Project(t.Context()))
	var settled bool
	require.NoError(t, db.Pool().QueryRow(t.Context(), "SELECT settled FROM return_reservations").Scan(&settled))
	assert.True(t, settled, "the refund's event settles its reservation")
	out, err := db.Decisions.ReserveReturn(t.Context(), "T2", "T1/000001", "R3", pos.Rupees(19000), adjust(1900000))
	require.NoError(t, err)
	assert.Equal(t, api.Reserved{SoldTerminal: "T1", SoldOrder: "T1-B"}, out)
	_, err = db.Decisions.ReserveReturn(t.Context(), "T2", "T1/000001", "R4", 1, adjust(1))
	require.Error(t, err)

	_, err = db.Decisions.ReserveReturn(t.Context(), "T2", "T9/000001", "R5", 1, nil)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "invoice T9/000001 is not known to the store")
}

func TestReserveRefusesBadRequests(t *testing.T) {
	_, base, creds := twoCounters(t)
	var e api.Error
	status := post(t, base, "POST", api.PathReserveIMEI, "T1", creds["T1"], time.Now(), newNonce(), []byte(`{"order_id":"O","imeis":["1"],"extra":1}`), &e)
	assert.Equal(t, 400, status)
	assert.Contains(t, e.Message, "nothing was reserved")
	status = post(t, base, "POST", api.PathReserveCreditNote, "T1", creds["T1"], time.Now(), newNonce(), []byte(`{"number":"CN","order_id":"O","amount":-5}`), &e)
	assert.Equal(t, 400, status)
	assert.Equal(t, "the redemption needs a credit note number, an order and an amount above zero", e.Message)
	status = post(t, base, "POST", api.PathReserveIMEI, "T1", nil, time.Now(), newNonce(), []byte(`{}`), &e)
	assert.Equal(t, 401, status, "unsigned")
}
