package journal

import (
	"encoding/json"
	"fmt"
	"reflect"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"galla/pos"
)

// checkEventJSON fails t unless appendEventJSON writes json.Marshal's bytes for
// ev, or fails where json.Marshal fails. It reports whether json.Marshal
// encoded ev.
func checkEventJSON(t *testing.T, ev *pos.Event, what string) bool {
	t.Helper()
	want, wantErr := json.Marshal(ev)
	got, err := appendEventJSON(nil, ev)
	if wantErr != nil {
		assert.Error(t, err, what)
		return false
	}
	require.NoError(t, err, what)
	assert.Equal(t, string(want), string(got), what)
	return true
}

// TestEventJSONMatchesMarshal checks that appendEventJSON writes json.Marshal's
// bytes: for every event of the test scripts (card, cash, unknown, refunded,
// EMI and phone sales, a named buyer's, a busy day with its Z), as stored (Seq
// 0, no chain) and as read back; for an event with every field of every type
// it holds set (so that a field added to Event or one of its payloads and not
// to the encoder fails here); for the zero event and empty payloads; and for
// strings json escapes and times it writes its own way.
func TestEventJSONMatchesMarshal(t *testing.T) {
	t.Run("the scripts' events", func(t *testing.T) {
		var s script
		evs := s.representative(t)
		evs = append(evs, buyerEvents(t, &s)...)
		evs = append(evs, s.busyDay("2026-11-23", 40, 2)...)
		evs = append(evs, s.emiSale("G-EMI-1", "2026-11-24", 4999900)...)
		kinds := map[pos.EventKind]bool{}
		for i, ev := range evs {
			kinds[ev.Kind] = true
			require.True(t, checkEventJSON(t, &ev, fmt.Sprintf("%s of %s", ev.Kind, ev.OrderID)))
			ev.Seq, ev.PrevHash, ev.Hash = uint64(i+1), fmt.Sprintf("%064x", i), fmt.Sprintf("%064x", i+1)
			checkEventJSON(t, &ev, fmt.Sprintf("%s of %s, chained", ev.Kind, ev.OrderID))
		}
		assert.GreaterOrEqual(t, len(kinds), 10, "kinds of event compared")
	})

	t.Run("every field set", func(t *testing.T) {
		var ev pos.Event
		for n := 1; n <= 3; n++ { // n elements in each slice, other values
			fill(reflect.ValueOf(&ev).Elem(), n)
			require.True(t, checkEventJSON(t, &ev, fmt.Sprintf("every field set (%d)", n)), "json.Marshal encodes the filled event")
		}
	})

	t.Run("empty and zero", func(t *testing.T) {
		for _, ev := range []pos.Event{
			{},
			{Intent: &pos.Intent{}, Created: &pos.Created{}, Abandoned: &pos.Abandoned{}, Attempt: &pos.AttemptEvent{}, Outcome: &pos.Outcome{}, Cash: &pos.CashEvent{}, Print: &pos.PrintEvent{}, Sale: &pos.SaleEvent{}},
			{Intent: &pos.Intent{Lines: []pos.Line{}, IMEIs: []string{}, Customer: &pos.Customer{}}, IMEIs: []string{}, Data: json.RawMessage{}, Extra: map[string]string{}},
			{Sale: &pos.SaleEvent{Tender: &pos.SaleTender{}, Covered: []string{}}},
			{Sale: &pos.SaleEvent{Verified: true}},
			{Print: &pos.PrintEvent{Error: "paper out"}},
			{Intent: &pos.Intent{Customer: &pos.Customer{Email: "a@b"}}},
			{Data: json.RawMessage(" { \"a\" : [1, 2] } "), Extra: map[string]string{"b": "2", "a": "<1>"}},
		} {
			checkEventJSON(t, &ev, fmt.Sprintf("%+v", ev))
		}
	})

	t.Run("strings json escapes and times", func(t *testing.T) {
		for _, s := range jsonEscapeCases {
			ev := pos.Event{Kind: pos.EventKind(s), OrderID: s, Reason: s, IMEIs: []string{s},
				Intent:  &pos.Intent{Lines: []pos.Line{{Name: s}}, ReturnURL: s, Customer: &pos.Customer{Email: s}},
				Attempt: &pos.AttemptEvent{Message: s}, Outcome: &pos.Outcome{ResponseMessage: s},
				Print: &pos.PrintEvent{Error: s}, Sale: &pos.SaleEvent{PaidBy: s, Tender: &pos.SaleTender{NoteNo: s}},
				Extra: map[string]string{s: s}}
			checkEventJSON(t, &ev, s)
		}
		for _, tm := range jsonTimeCases {
			checkEventJSON(t, &pos.Event{Time: tm}, tm.String())
		}
		checkEventJSON(t, &pos.Event{Data: json.RawMessage(`{"a":`)}, "data that is not JSON")
	})
}

// FuzzEventJSON compares appendEventJSON with json.Marshal on events of a sale
// whose strings and numbers are fuzzed.
func FuzzEventJSON(f *testing.F) {
	f.Add("G-1", "card", "VISA", "1111", int64(3999900), uint64(7), "CHARGED", "<&>", int64(1764230400))
	f.Add("", "", "", "", int64(0), uint64(0), "", "", int64(0))
	f.Add("\xff", "\u2028", "\x00", "é", int64(-1), uint64(1<<63), "\"", "\\", int64(-62135596800))
	f.Fuzz(func(t *testing.T, id, tender, brand, last4 string, amount int64, n uint64, status, msg string, unix int64) {
		tm := time.Unix(unix, int64(n%1e9)).In(time.FixedZone("IST", 5*3600+1800))
		ev := pos.Event{V: int(n % 5), Seq: n, Time: tm, Kind: pos.EventKind(status), OrderID: id, Day: msg, Staff: brand,
			ReceiptNo: n, Series: last4, DocNo: n / 2, Reason: msg, IMEIs: []string{id, msg},
			Intent: &pos.Intent{Tender: pos.TenderKind(tender), Amount: pos.Paise(amount),
				Lines:    []pos.Line{{SKU: id, Name: msg, Qty: int(n % 7), UnitPrice: pos.Paise(amount), IMEIs: []string{last4}}},
				Totals:   pos.Totals{Total: pos.Paise(amount), ByRate: []pos.RateTotal{{Amount: pos.Paise(amount)}}},
				Customer: &pos.Customer{Mobile: last4}, Sale: id, Gateway: tender},
			Created:   &pos.Created{ServiceOrderID: id, Token: msg},
			Abandoned: &pos.Abandoned{Reason: msg, NewOrderID: id},
			Attempt:   &pos.AttemptEvent{N: int(n % 4), CardBrand: brand, CardLast4: last4, Amount: pos.Paise(amount), Message: msg},
			Outcome:   &pos.Outcome{MerchantOrderID: id, OrderStatus: status, Amount: pos.Paise(amount), ResponseCode: amount, MaskedCard: last4},
			Cash:      &pos.CashEvent{Tendered: pos.Paise(amount), Change: pos.Paise(-amount)},
			Print:     &pos.PrintEvent{Printer: brand, Error: msg},
			Sale:      &pos.SaleEvent{Tender: &pos.SaleTender{OrderID: id, Kind: pos.TenderKind(tender), Amount: pos.Paise(amount)}, Covered: []string{id}, PaidBy: msg, Verified: n%2 == 0},
			Extra:     map[string]string{brand: msg, last4: id},
		}
		checkEventJSON(t, &ev, "fuzzed")
	})
}
