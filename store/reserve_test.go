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

func TestTwoCountersRedeemingTheSameCreditNoteAtOnce(t *testing.T) {
	db, base, creds := twoCounters(t)
	for round := range 10 {
		number := fmt.Sprintf("CN/T1/%04d", round)
		// ₹1,000 note; each counter asks ₹600: only one can have it.
		require.NoError(t, db.Decisions.IssueCreditNote(t.Context(), "T1", number, pos.Rupees(1000)))
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
	left, err := db.Decisions.RedeemCreditNote(t.Context(), "T2", "CN/T1/0000", "T2-next", pos.Rupees(400))
	require.NoError(t, err)
	assert.Equal(t, pos.Paise(0), left)
	_, err = db.Decisions.RedeemCreditNote(t.Context(), "T2", "CN/T1/0000", "T2-more", 1)
	require.Error(t, err)
	_, err = db.Decisions.Release(t.Context(), "T2", "T2-next", "")
	require.NoError(t, err)
	left, err = db.Decisions.RedeemCreditNote(t.Context(), "T2", "CN/T1/0000", "T2-more", 1)
	require.NoError(t, err)
	assert.Equal(t, pos.Rupees(400)-1, left)

	_, err = db.Decisions.RedeemCreditNote(t.Context(), "T2", "CN/NOPE", "x", 100)
	require.Error(t, err)
	assert.Equal(t, "credit note CN/NOPE is not known to the store: check the number on the note, or wait until the counter that issued it has synced", err.Error())
}

func TestReturnsOfAnotherCountersInvoiceNeverExceedWhatWasPaid(t *testing.T) {
	db, base, creds := twoCounters(t)
	c := newCounter(t, "T1")
	c.cardSale("T1-B", day1, "4242", "", true, line("PHN", 1, 59000, 18))
	_, err := db.Events.Ingest(t.Context(), "T1", c.sent())
	require.NoError(t, err)

	// Two counters return ₹40,000 of the ₹59,000 invoice at once: one only.
	statuses, errs := race(t, base, creds, []string{"T1", "T2"}, api.PathReserveReturn, []any{
		api.ReserveReturn{Document: "T1/000001", RefundID: "R1", Amount: 4000000},
		api.ReserveReturn{Document: "T1/000001", RefundID: "R2", Amount: 4000000},
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

	// The refund done at T1 settles its reservation: counted once.
	winner := "R1"
	if statuses[0] != 200 {
		winner = "R2"
	}
	c.add(pos.Event{Kind: pos.EvRefundIntent, OrderID: "T1-B", Day: day1, Refund: &pos.RefundEvent{UniqueTxnID: winner, Amount: pos.Rupees(40000)}})
	c.add(pos.Event{Kind: pos.EvRefundDone, OrderID: "T1-B", Day: day1, ReceiptNo: 2, Refund: &pos.RefundEvent{UniqueTxnID: winner, Amount: pos.Rupees(40000), RefundID: "RF"}})
	_, err = db.Events.Ingest(t.Context(), "T1", c.sent())
	require.NoError(t, err)
	out, err := db.Decisions.ReserveReturn(t.Context(), "T2", "T1/000001", "R3", pos.Rupees(19000))
	require.NoError(t, err)
	assert.Equal(t, api.Reserved{SoldTerminal: "T1", SoldOrder: "T1-B"}, out)
	_, err = db.Decisions.ReserveReturn(t.Context(), "T2", "T1/000001", "R4", 1)
	require.Error(t, err)

	_, err = db.Decisions.ReserveReturn(t.Context(), "T2", "T9/000001", "R5", 1)
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
