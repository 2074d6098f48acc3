package store

import (
	"crypto/ed25519"
	"encoding/json"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"galla/pos"
	"galla/store/api"
)

// The store decides from the chain, not from claims (issue 22): each attack a
// counter can make with its own credential, scripted against the server,
// refused with nothing changed and an alarm where a counter spoke for another;
// and the honest flows beside them.

// threeCounters is a server with enrolled terminals T1, T2 and T3.
func threeCounters(t *testing.T) (*DB, string, map[string]ed25519.PrivateKey) {
	db, base, creds := twoCounters(t)
	creds["T3"] = enrolled(t, db, "T3")
	return db, base, creds
}

// ask sends terminal's signed request body to path with its own credential
// and returns the status and the refusal, if any.
func ask(t *testing.T, base string, creds map[string]ed25519.PrivateKey, terminal, path string, body any) (int, api.Error) {
	t.Helper()
	b, err := json.Marshal(body)
	require.NoError(t, err)
	var out json.RawMessage
	status := post(t, base, "POST", path, terminal, creds[terminal], time.Now(), newNonce(), b, &out)
	var e api.Error
	if status != 200 {
		require.NoError(t, json.Unmarshal(out, &e))
	}
	return status, e
}

// claimAlarms returns the details of terminal's alarms of kind claim.
func claimAlarms(t *testing.T, db *DB, terminal string) []string {
	t.Helper()
	rs, err := db.Pool().Query(t.Context(), "SELECT detail FROM alarms WHERE terminal_id = $1 AND kind = $2 ORDER BY id", terminal, AlarmClaim)
	require.NoError(t, err)
	var out []string
	for rs.Next() {
		var d string
		require.NoError(t, rs.Scan(&d))
		out = append(out, d)
	}
	require.NoError(t, rs.Err())
	return out
}

// rows returns the number of a query's count(*).
func rows(t *testing.T, db *DB, sql string, args ...any) int {
	t.Helper()
	var n int
	require.NoError(t, db.Pool().QueryRow(t.Context(), sql, args...).Scan(&n))
	return n
}

// ingest sends c's events not yet sent and projects them.
func ingest(t *testing.T, db *DB, c *counter) {
	t.Helper()
	_, err := db.Events.Ingest(t.Context(), c.id, c.sent())
	require.NoError(t, err)
	require.NoError(t, db.Projections.Project(t.Context()))
}

// TestAForgedCreditNoteIsNeverSpentAtAnotherCounter: T3 registers a ₹50,000
// credit note of its own series that no journal issued. T2 cannot spend it:
// the store holds no event of it. When T3's events come in after the claim
// without the note, the claim is void with an alarm, and T3 cannot spend it
// either.
func TestAForgedCreditNoteIsNeverSpentAtAnotherCounter(t *testing.T) {
	db, base, creds := threeCounters(t)
	const forged = "T3/C2627/00001"
	status, _ := ask(t, base, creds, "T3", api.PathIssueCreditNote, api.IssueCreditNote{Number: forged, Value: 5000000})
	require.Equal(t, 200, status, "a counter may claim a note of its own series")

	status, e := ask(t, base, creds, "T2", api.PathReserveCreditNote, api.ReserveCreditNote{Number: forged, OrderID: "T2-X", Amount: 5000000})
	assert.Equal(t, 404, status)
	assert.Equal(t, api.CodeNotFound, e.Code)
	assert.Equal(t, "credit note T3/C2627/00001 is not verified at the store yet: counter T3 has not sent the event that issued it; spend it at counter T3, or wait until it has synced", e.Message)
	assert.Zero(t, rows(t, db, "SELECT count(*) FROM credit_note_redemptions"), "nothing redeemed")
	assert.Zero(t, rows(t, db, "SELECT redeemed FROM credit_note_balances WHERE number = $1", forged))

	// T3's journal goes on after the claim, with no such note in it.
	c3 := newCounter(t, "T3")
	c3.clock = time.Now().Add(2 * claimSkew)
	c3.cashSale("T3-A", day1, line("TEA", 1, 105, 5))
	ingest(t, db, c3)
	var state string
	require.NoError(t, db.Pool().QueryRow(t.Context(), "SELECT state FROM credit_note_balances WHERE number = $1", forged).Scan(&state))
	assert.Equal(t, "void", state)
	assert.Equal(t, []string{"counter T3 claimed credit note T3/C2627/00001 with ₹50,000.00 left, but the events it sent since hold no such note: the claim is void"},
		claimAlarms(t, db, "T3"))

	for _, term := range []string{"T3", "T2"} {
		status, e = ask(t, base, creds, term, api.PathReserveCreditNote, api.ReserveCreditNote{Number: forged, OrderID: term + "-Y", Amount: 100})
		assert.Equal(t, 409, status, term)
		assert.Contains(t, e.Message, "credit note T3/C2627/00001 cannot be spent", term)
	}
	assert.Zero(t, rows(t, db, "SELECT count(*) FROM credit_note_redemptions"), "nothing redeemed")
}

// TestAnotherCountersNoteNumberCannotBeSquatted: T3 claims T1's next credit
// note number with ₹1: refused with an alarm, nothing recorded. T1's real
// ₹5,000 note, claimed by T1 before it synced, is spent at T1 on the claim,
// refused at T2 until T1's events arrive, then spent at T2 up to what is left.
func TestAnotherCountersNoteNumberCannotBeSquatted(t *testing.T) {
	db, base, creds := threeCounters(t)
	status, e := ask(t, base, creds, "T3", api.PathIssueCreditNote, api.IssueCreditNote{Number: "T1/C2627/00001", Value: 100})
	assert.Equal(t, 403, status)
	assert.Equal(t, api.CodeForeign, e.Code)
	assert.Equal(t, "credit note T1/C2627/00001 is a number of counter T1: a counter records only its own credit notes", e.Message)
	assert.Zero(t, rows(t, db, "SELECT count(*) FROM credit_note_balances"), "nothing recorded")
	assert.Equal(t, []string{"counter T3 claimed credit note T1/C2627/00001 of ₹1.00, a number of counter T1's series: refused"}, claimAlarms(t, db, "T3"))

	// T1 issues the note in its journal and, before it syncs, spends ₹1,000 of
	// it at T1 through the store: the store records T1's claim first.
	c1 := newCounter(t, "T1")
	number := c1.noteSale("T1-A", 5000, 1)
	require.Equal(t, "T1/C2627/00001", number)
	status, e = ask(t, base, creds, "T1", api.PathReserveCreditNote, api.ReserveCreditNote{Number: number, OrderID: "T1-S", Amount: 100000})
	require.Equal(t, 404, status, "%+v", e)
	status, _ = ask(t, base, creds, "T1", api.PathIssueCreditNote, api.IssueCreditNote{Number: number, Value: 500000})
	require.Equal(t, 200, status)
	status, _ = ask(t, base, creds, "T1", api.PathReserveCreditNote, api.ReserveCreditNote{Number: number, OrderID: "T1-S", Amount: 100000})
	require.Equal(t, 200, status, "T1 spends its own note on its claim")
	status, e = ask(t, base, creds, "T2", api.PathReserveCreditNote, api.ReserveCreditNote{Number: number, OrderID: "T2-S", Amount: 100000})
	assert.Equal(t, 404, status, "another counter waits for T1's event")
	assert.Contains(t, e.Message, "is not verified at the store yet")

	// T1 syncs: the event verifies the claim; T2 spends the rest, not more.
	ingest(t, db, c1)
	var state string
	require.NoError(t, db.Pool().QueryRow(t.Context(), "SELECT state FROM credit_note_balances WHERE number = $1", number).Scan(&state))
	assert.Equal(t, "verified", state)
	status, e = ask(t, base, creds, "T2", api.PathReserveCreditNote, api.ReserveCreditNote{Number: number, OrderID: "T2-S", Amount: 400001})
	assert.Equal(t, 409, status)
	assert.Equal(t, "credit note T1/C2627/00001 has ₹4,000.00 left of ₹5,000.00; ₹4,000.01 cannot be taken from it", e.Message)
	left, err := db.Decisions.RedeemCreditNote(t.Context(), "T2", number, "T2-S", pos.Rupees(4000))
	require.NoError(t, err)
	assert.Equal(t, pos.Paise(0), left)
	assert.Empty(t, claimAlarms(t, db, "T1"), "an honest claim raises nothing")
}

// TestAClaimAboveItsNoteIsCutByTheEvent: a counter that claims more of its
// own note than its event issued is cut to the event's value, with an alarm;
// a claim of a refund that went back as cash is void.
func TestAClaimAboveItsNoteIsCutByTheEvent(t *testing.T) {
	db := newDB(t)
	enrolled(t, db, "T1")
	ctx := t.Context()
	c1 := newCounter(t, "T1")
	number := c1.noteSale("T1-A", 500, 1)
	require.NoError(t, db.Decisions.IssueCreditNote(ctx, "T1", number, pos.Rupees(50000)))
	c1.cashSale("T1-B", day1, line("CHG", 1, 1180, 18))
	// Its cash refund is numbered T1/C2627/00002 too: claimed as a note to spend.
	require.NoError(t, db.Decisions.IssueCreditNote(ctx, "T1", "T1/C2627/00002", pos.Rupees(1180)))
	c1.add(pos.Event{Kind: pos.EvRefundIntent, OrderID: "T1-B", Day: day1, Refund: &pos.RefundEvent{UniqueTxnID: "R-B2", Amount: pos.Rupees(1180), To: pos.RefundToCash}})
	c1.receipt++
	c1.add(pos.Event{Kind: pos.EvRefundDone, OrderID: "T1-B", Day: day1, ReceiptNo: c1.receipt, Series: "C2627", DocNo: 2, Refund: &pos.RefundEvent{UniqueTxnID: "R-B2", Amount: pos.Rupees(1180)}})
	ingest(t, db, c1)

	var value int64
	var state string
	require.NoError(t, db.Pool().QueryRow(ctx, "SELECT value, state FROM credit_note_balances WHERE number = $1", number).Scan(&value, &state))
	assert.Equal(t, int64(50000), value, "cut to the ₹500 the event issued")
	assert.Equal(t, "verified", state)
	require.NoError(t, db.Pool().QueryRow(ctx, "SELECT state FROM credit_note_balances WHERE number = 'T1/C2627/00002'").Scan(&state))
	assert.Equal(t, "void", state)
	assert.Equal(t, []string{
		"counter T1 claimed credit note T1/C2627/00001 with ₹50,000.00 left, but its event issued it for ₹500.00: cut to that",
		"counter T1 claimed credit note T1/C2627/00002 to spend, but its event refunded it as money: the claim is void",
	}, claimAlarms(t, db, "T1"))
	_, err := db.Decisions.RedeemCreditNote(ctx, "T1", number, "T1-C", pos.Rupees(501))
	require.Error(t, err)
	_, err = db.Decisions.RedeemCreditNote(ctx, "T1", "T1/C2627/00002", "T1-C", 1)
	require.Error(t, err)
}

// TestAReturnRestsOnTheInvoicesOwnEvents: T3 reserves a ₹74,990 return of an
// invoice no counter's events hold: refused, nothing reserved. An invoice T3
// made up in its own chain is T3's word only until T3's real journal meets it:
// the chain forks, T3 is blocked, and no counter may return T3's invoices
// until a manager has looked.
func TestAReturnRestsOnTheInvoicesOwnEvents(t *testing.T) {
	db, base, creds := threeCounters(t)
	tv := []api.ReturnLine{{Line: 0, SKU: "TV", Qty: 1, Amount: 7499000}}
	status, e := ask(t, base, creds, "T3", api.PathReserveReturn, api.ReserveReturn{Document: "T1/2627/000099", RefundID: "R1", Amount: 7499000, Lines: tv})
	assert.Equal(t, 404, status)
	assert.Equal(t, "invoice T1/2627/000099 is not known to the store: check the number on the receipt, or wait until its counter has synced", e.Message)

	// Two events in T3's chain make a ₹74,990 cash invoice T3/000001.
	fake := newCounter(t, "T3")
	fake.cashSale("T3-F", day1, line("TV", 1, 74990, 18))
	ingest(t, db, fake)
	inv, err := db.Decisions.Invoice(t.Context(), "T3/000001")
	require.NoError(t, err)
	assert.Equal(t, int64(7499000), inv.Returnable, "the store holds it as T3's word")
	// Made up under the order id of T1's sale, it is not what T2 finds by
	// that id: the order id names two invoices and is refused.
	c1 := newCounter(t, "T1")
	c1.cashSale("T1-X", day1, line("CBL", 1, 499, 18))
	ingest(t, db, c1)
	fake.cashSale("T1-X", day1, line("TV", 1, 74990, 18))
	ingest(t, db, fake)
	_, err = db.Decisions.Invoice(t.Context(), "T1-X")
	require.Error(t, err)
	assert.Equal(t, "order T1-X names invoices T1/000001 and T3/000002: name the invoice by its number as printed", err.Error())
	byNumber, err := db.Decisions.Invoice(t.Context(), "T1/000001")
	require.NoError(t, err)
	assert.Equal(t, "T1", byNumber.Terminal)

	// T3's real journal syncs: another event under sequence 1. T3 is blocked.
	real := newCounter(t, "T3")
	real.cashSale("T3-R", day1, line("TEA", 1, 105, 5))
	_, err = db.Events.Ingest(t.Context(), "T3", real.sent())
	require.Error(t, err)
	status, e = ask(t, base, creds, "T2", api.PathReserveReturn, api.ReserveReturn{Document: "T3/000001", RefundID: "R2", Amount: 7499000, Lines: tv})
	assert.Equal(t, 409, status)
	assert.Equal(t, "invoice T3/000001 is of counter T3, which the store has blocked or does not know: a manager looks at its alarms first", e.Message)
	assert.Zero(t, rows(t, db, "SELECT count(*) FROM return_reservations"), "nothing reserved")
}

// TestTheSameCableIsNotReturnedTwice: T1 sells one ₹499 cable and a ₹2,000
// charger in cash. T2 takes the cable back in cash; T3 (or T2 again) asking
// for the same cable is refused line by line, before T2's refund reaches the
// store (its reservation) and after (its event), even once the reservation
// would have expired; a counter that names no lines is refused. The charger
// can still come back.
func TestTheSameCableIsNotReturnedTwice(t *testing.T) {
	db, base, creds := threeCounters(t)
	c1 := newCounter(t, "T1")
	cable, charger := line("CBL", 1, 499, 18), line("CHG", 1, 2000, 18)
	c1.cashSale("T1-A", day1, cable, charger)
	ingest(t, db, c1)
	inv, err := db.Decisions.Invoice(t.Context(), "T1/000001")
	require.NoError(t, err)
	assert.Equal(t, int64(249900), inv.Returnable)

	cableBack := []api.ReturnLine{{Line: 0, SKU: "CBL", Qty: 1, Amount: 49900}}
	status, e := ask(t, base, creds, "T2", api.PathReserveReturn, api.ReserveReturn{Document: "T1/000001", RefundID: "R-T2-1", Amount: 49900, Lines: cableBack})
	require.Equal(t, 200, status, "%+v", e)

	refusedAgain := func(term, refundID string) {
		t.Helper()
		status, e := ask(t, base, creds, term, api.PathReserveReturn, api.ReserveReturn{Document: "T1/000001", RefundID: refundID, Amount: 49900, Lines: cableBack})
		assert.Equal(t, 409, status)
		assert.Equal(t, api.CodeExceeded, e.Code)
		assert.Equal(t, "invoice T1/000001, line 1 (CBL): 1 sold, 1 returned or being returned already: at most 0 more can come back, not 1", e.Message)
	}
	refusedAgain("T3", "R-T3-1")
	status, e = ask(t, base, creds, "T3", api.PathReserveReturn, api.ReserveReturn{Document: "T1/000001", RefundID: "R-T3-2", Amount: 49900})
	assert.Equal(t, 409, status)
	assert.Equal(t, api.CodeLinesNeeded, e.Code)
	status, e = ask(t, base, creds, "T3", api.PathReserveReturn, api.ReserveReturn{Document: "T1/000001", RefundID: "R-T3-3", Amount: 60000,
		Lines: []api.ReturnLine{{Line: 1, SKU: "CHG", Qty: 0, Amount: 60000}, {Line: 0, SKU: "CBL", Qty: 0, Amount: 0}}})
	assert.Equal(t, 200, status, "a price adjustment of the charger's line: %+v", e)
	_, err = db.Decisions.Release(t.Context(), "T3", "", "R-T3-3")
	require.NoError(t, err)

	// T2 pays the cable back in cash and syncs: its reservation is settled.
	c2 := newCounter(t, "T2")
	c2.returnAt("T2-RET", "R-T2-1", 1, pos.Origin{Terminal: "T1", OrderID: "T1-A", Number: "T1/000001", Tender: pos.TenderCash},
		[]pos.Line{cable, charger}, []pos.ReturnItem{returnItem(0, "CBL", 1, pos.Rupees(499), 18)})
	ingest(t, db, c2)
	assert.Equal(t, 1, rows(t, db, "SELECT count(*) FROM return_reservations WHERE settled"))
	refusedAgain("T2", "R-T2-2")
	assert.Equal(t, 1, rows(t, db, "SELECT count(*) FROM return_reservations"), "nothing more reserved")

	// Hours later, the events still count the cable; the charger comes back.
	db.Now = func() time.Time { return time.Now().Add(ReserveHold + time.Hour) }
	_, err = db.Decisions.ReserveReturn(t.Context(), "T3", "T1/000001", "R-T3-4", pos.Rupees(499), cableBack)
	require.Error(t, err)
	out, err := db.Decisions.ReserveReturn(t.Context(), "T3", "T1/000001", "R-T3-5", pos.Rupees(2000),
		[]api.ReturnLine{{Line: 1, SKU: "CHG", Qty: 1, Amount: 200000}})
	require.NoError(t, err)
	assert.Equal(t, api.Reserved{SoldTerminal: "T1", SoldOrder: "T1-A"}, out)
}

// TestAReturnLineIsCheckedAgainstTheInvoice: lines the invoice does not have,
// more money than a line came to, an IMEI not sold on it, or lines that do
// not add up to the amount, are refused with nothing reserved.
func TestAReturnLineIsCheckedAgainstTheInvoice(t *testing.T) {
	db, _, _ := threeCounters(t)
	c1 := newCounter(t, "T1")
	const imei = "356938035643809"
	c1.cashSale("T1-A", day1, line("CBL", 2, 499, 18), line("PHN", 1, 20000, 18, imei))
	ingest(t, db, c1)
	for _, tc := range []struct {
		name   string
		amount pos.Paise
		lines  []api.ReturnLine
		want   string
	}{
		{"a line not sold", 49900, []api.ReturnLine{{Line: 0, SKU: "TV", Qty: 1, Amount: 49900}}, "invoice T1/000001 has no line 1 of TV: check the item code"},
		{"beyond the line", 49900, []api.ReturnLine{{Line: 0, SKU: "CBL", Qty: 3, Amount: 49900}}, "invoice T1/000001, line 1 (CBL): 2 sold, 0 returned or being returned already: at most 2 more can come back, not 3"},
		{"more money than the line", 100000, []api.ReturnLine{{Line: 0, SKU: "CBL", Qty: 1, Amount: 100000}}, "invoice T1/000001, line 1 (CBL) came to ₹998.00, of which ₹0.00 went back for units returned before: at most ₹998.00 more for its units, not ₹1,000.00"},
		{"another IMEI", 2000000, []api.ReturnLine{{Line: 1, SKU: "PHN", Qty: 1, Amount: 2000000, IMEIs: []string{"356938035643817"}}}, "IMEI 356938035643817 was not sold on invoice T1/000001, line 2, or was returned already"},
		{"lines off the amount", 100, []api.ReturnLine{{Line: 0, SKU: "CBL", Qty: 1, Amount: 49900}}, "the return's lines come to ₹499.00, not its amount ₹1.00"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := db.Decisions.ReserveReturn(t.Context(), "T2", "T1/000001", "R-"+tc.name, tc.amount, tc.lines)
			require.Error(t, err)
			assert.Equal(t, tc.want, err.Error())
		})
	}
	assert.Zero(t, rows(t, db, "SELECT count(*) FROM return_reservations"), "nothing reserved")
	_, err := db.Decisions.ReserveReturn(t.Context(), "T2", "T1/000001", "R-ok", pos.Rupees(20000),
		[]api.ReturnLine{{Line: 1, SKU: "PHN", Qty: 1, Amount: 2000000, IMEIs: []string{imei}}})
	require.NoError(t, err, "the phone sold, by its IMEI")
}

// TestReservationsExpireWithNoEventBehindThem: T3 reserves an IMEI for a sale
// it never makes, and a return of all of T1's invoice that it never pays:
// other counters are refused for ReserveHold, then served. T3's redemption of
// all of T1's credit note for a sale it never makes holds for ClaimHold.
func TestReservationsExpireWithNoEventBehindThem(t *testing.T) {
	db, base, creds := threeCounters(t)
	c1 := newCounter(t, "T1")
	c1.cashSale("T1-A", day1, line("CBL", 1, 499, 18))
	note := c1.noteSale("T1-N", 1000, 1)
	ingest(t, db, c1)
	status, _ := ask(t, base, creds, "T3", api.PathReserveCreditNote, api.ReserveCreditNote{Number: note, OrderID: "T3-NEVER", Amount: 100000})
	require.Equal(t, 200, status)
	status, e := ask(t, base, creds, "T2", api.PathReserveCreditNote, api.ReserveCreditNote{Number: note, OrderID: "T2-N", Amount: 100000})
	assert.Equal(t, 409, status)
	assert.Equal(t, api.CodeExceeded, e.Code)
	db.Now = func() time.Time { return time.Now().Add(ClaimHold + time.Minute) }
	left, err := db.Decisions.RedeemCreditNote(t.Context(), "T2", note, "T2-N", pos.Rupees(1000))
	require.NoError(t, err, "expired: free again")
	assert.Equal(t, pos.Paise(0), left)
	db.Now = time.Now

	const imei = "356938035643809"
	status, _ = ask(t, base, creds, "T3", api.PathReserveIMEI, api.ReserveIMEI{OrderID: "T3-NEVER", IMEIs: []string{imei}})
	require.Equal(t, 200, status)
	cableBack := []api.ReturnLine{{Line: 0, SKU: "CBL", Qty: 1, Amount: 49900}}
	status, _ = ask(t, base, creds, "T3", api.PathReserveReturn, api.ReserveReturn{Document: "T1/000001", RefundID: "R-T3", Amount: 49900, Lines: cableBack})
	require.Equal(t, 200, status)

	status, _ = ask(t, base, creds, "T2", api.PathReserveIMEI, api.ReserveIMEI{OrderID: "T2-A", IMEIs: []string{imei}})
	assert.Equal(t, 409, status)
	status, _ = ask(t, base, creds, "T2", api.PathReserveReturn, api.ReserveReturn{Document: "T1/000001", RefundID: "R-T2", Amount: 49900, Lines: cableBack})
	assert.Equal(t, 409, status)

	db.Now = func() time.Time { return time.Now().Add(ReserveHold + time.Minute) }
	require.NoError(t, db.Decisions.ReserveIMEIs(t.Context(), "T2", "T2-A", []string{imei}), "expired: free again")
	_, err = db.Decisions.ReserveReturn(t.Context(), "T2", "T1/000001", "R-T2", pos.Rupees(499), cableBack)
	require.NoError(t, err, "expired: free again")

	// A unit whose sale the events hold is held past the hold: sold.
	c2 := newCounter(t, "T2")
	c2.cashSale("T2-A", day1, line("PHN", 1, 20000, 18, imei))
	ingest(t, db, c2)
	db.Now = func() time.Time { return time.Now().Add(3 * ReserveHold) }
	err = db.Decisions.ReserveIMEIs(t.Context(), "T3", "T3-B", []string{imei})
	require.Error(t, err)
	assert.Contains(t, err.Error(), "is sold already at counter T2 (order T2-A)")
}
