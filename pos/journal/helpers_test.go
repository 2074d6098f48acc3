package journal

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	bolt "go.etcd.io/bbolt"

	"galla/pos"
)

// The test card. The journal must never hold its number or CVV.
const (
	testCardNumber = "4111111111111111"
	testCardCVV    = "737"
	testCardLast4  = "1111"
)

// t0 is the tests' clock origin.
var t0 = time.Date(2026, 11, 21, 10, 0, 0, 0, time.UTC)

// openTest opens a journal in a fresh directory and closes it when the test ends.
func openTest(t testing.TB) *Journal {
	t.Helper()
	j, err := Open(filepath.Join(t.TempDir(), "data", "journal.db"), Options{Now: func() time.Time { return t0 }})
	require.NoError(t, err)
	t.Cleanup(func() { _ = j.Close() })
	return j
}

// script builds the events of sales, numbering receipts as a real terminal would.
type script struct {
	receipt  uint64
	at       time.Time
	phones   uint64 // the phones sold so far, each its own IMEI (phoneIMEI)
	idPrefix string // begins busyDay's order ids; "" is "G"
}

// next advances the script's clock by a second and returns it.
func (s *script) next() time.Time {
	if s.at.IsZero() {
		s.at = t0
	}
	s.at = s.at.Add(time.Second)
	return s.at
}

// line is the one cart line of a test sale.
func line(price pos.Paise) []pos.Line {
	return []pos.Line{{SKU: "SAMSUNG-A55", Name: "Galaxy A55 <128 GB> & case", Brand: "SAMSUNG",
		ProductCode: "SAMSUNG-A55", HSN: "8517", Qty: 1, UnitPrice: price, GSTRate: pos.Percent(18)}}
}

// intent is the order.intent of a sale of amount paid by tender.
func (s *script) intent(id, day string, tender pos.TenderKind, amount pos.Paise) pos.Event {
	lines := line(amount)
	return pos.Event{Kind: pos.EvOrderIntent, OrderID: id, Day: day, Time: s.next(), Staff: "001",
		Intent: &pos.Intent{Tender: tender, Lines: lines, Totals: pos.ComputeTotals(lines), Amount: amount,
			Customer: &pos.Customer{CountryCode: "91", Mobile: "9876543210"}}}
}

// cardSale is a whole card sale: intent, create, attempt, accepted, verified
// CHARGED with the next receipt number, receipt printed.
func (s *script) cardSale(id, day string, amount pos.Paise) []pos.Event {
	svc := "S" + id
	pay := "P" + id
	s.receipt++
	return []pos.Event{
		s.intent(id, day, pos.TenderCard, amount),
		{Kind: pos.EvOrderCreated, OrderID: id, Day: day, Time: s.next(), Created: &pos.Created{ServiceOrderID: svc, Token: "tok-" + id}},
		{Kind: pos.EvPaymentAttempt, OrderID: id, Day: day, Time: s.next(), Attempt: &pos.AttemptEvent{N: 1, CardBrand: "VISA", CardLast4: testCardLast4}},
		{Kind: pos.EvPaymentAccepted, OrderID: id, Day: day, Time: s.next(), Attempt: &pos.AttemptEvent{N: 1, PaymentID: pay, Amount: amount}},
		{Kind: pos.EvPaymentOutcome, OrderID: id, Day: day, Time: s.next(), ReceiptNo: s.receipt, Outcome: &pos.Outcome{
			MerchantOrderID: id, ServiceOrderID: svc, PaymentID: pay, OrderStatus: "CHARGED", PaymentStatus: "CAPTURED",
			Amount: amount, Captured: amount, PaymentMode: "CREDIT_CARD", MaskedCard: "411111XXXXXX1111", AuthCode: "A1", RRN: "R1"}},
		{Kind: pos.EvReceiptPrinted, OrderID: id, Day: day, Time: s.next(), Print: &pos.PrintEvent{Printer: "file", Format: "text"}},
	}
}

// cashSale is a cash sale with the next receipt number.
func (s *script) cashSale(id, day string, amount pos.Paise) []pos.Event {
	s.receipt++
	return []pos.Event{
		s.intent(id, day, pos.TenderCash, amount),
		{Kind: pos.EvCashReceived, OrderID: id, Day: day, Time: s.next(), ReceiptNo: s.receipt,
			Cash: &pos.CashEvent{Tendered: amount + 500, Change: 500}},
	}
}

// unknownSale is a card sale whose payment answer was lost: UNKNOWN.
func (s *script) unknownSale(id, day string, amount pos.Paise) []pos.Event {
	return []pos.Event{
		s.intent(id, day, pos.TenderCard, amount),
		{Kind: pos.EvOrderCreated, OrderID: id, Day: day, Time: s.next(), Created: &pos.Created{ServiceOrderID: "S" + id, Token: "tok"}},
		{Kind: pos.EvPaymentAttempt, OrderID: id, Day: day, Time: s.next(), Attempt: &pos.AttemptEvent{N: 1, CardBrand: "VISA", CardLast4: testCardLast4}},
		{Kind: pos.EvOrderUnknown, OrderID: id, Day: day, Time: s.next(), Reason: "the answer was lost"},
	}
}

// refund is a full refund of a paid order on day.
func (s *script) refund(id, day string, amount pos.Paise) []pos.Event {
	s.receipt++
	return []pos.Event{
		{Kind: pos.EvRefundIntent, OrderID: id, Day: day, Time: s.next(), Staff: "001", Refund: &pos.RefundEvent{UniqueTxnID: "U" + id, Amount: amount, Reason: "returned"}},
		{Kind: pos.EvRefundDone, OrderID: id, Day: day, Time: s.next(), ReceiptNo: s.receipt, Refund: &pos.RefundEvent{UniqueTxnID: "U" + id, Amount: amount, RefundID: "RF" + id, Refunded: amount}},
	}
}

// representative is a day and a half of a shop's events: card, cash, unknown,
// refunds, a stale late answer, staff, settings, catalog and a day close.
func (s *script) representative(t testing.TB) []pos.Event {
	t.Helper()
	var evs []pos.Event
	add := func(e ...pos.Event) { evs = append(evs, e...) }
	staff, err := json.Marshal(pos.Staff{ID: "001", Name: "Asha", Role: pos.RoleManager, PINHash: []byte("0123456789abcdef0123456789abcdef"), Salt: []byte("salt-salt-salt-s"), Iterations: pos.MinPINIterations})
	require.NoError(t, err)
	add(pos.Event{Kind: pos.EvStaffAdded, Time: s.next(), Data: staff})
	add(pos.Event{Kind: pos.EvSettingsChanged, Time: s.next(), Staff: "001", Setting: &pos.Setting{Key: "printer", Value: json.RawMessage(`{"kind":"file","path":"/tmp/r.txt"}`)}})
	add(pos.Event{Kind: pos.EvCatalogImported, Time: s.next(), Staff: "001", Data: json.RawMessage(`[{"sku":"SAMSUNG-A55","name":"Galaxy A55","price":"39999.00","gst_rate":18,"hsn":"8517","brand":"SAMSUNG","product_code":"SAMSUNG-A55","serialised":true}]`)})
	add(s.cardSale("G-0001", "2026-11-21", 3999900)...)
	add(s.cashSale("G-0002", "2026-11-21", 49900)...)
	add(s.unknownSale("G-0003", "2026-11-21", 129900)...)
	add(s.cardSale("G-0004", "2026-11-21", 250000)...)
	// A late, replayed FAILED answer for a paid order: stale, stored, ignored.
	add(pos.Event{Kind: pos.EvPaymentOutcome, OrderID: "G-0001", Day: "2026-11-21", Time: s.next(), Outcome: &pos.Outcome{
		MerchantOrderID: "G-0001", ServiceOrderID: "SG-0001", PaymentID: "PG-0001", OrderStatus: "FAILED", PaymentStatus: "FAILED", Amount: 3999900}})
	add(pos.Event{Kind: pos.EvDayClosed, Day: "2026-11-21", Time: s.next(), Staff: "001",
		DayClose: &pos.DayClose{Day: "2026-11-21", ZNo: 1, Report: json.RawMessage(`{"sales":4,"total":4429700}`)}})
	add(s.refund("G-0004", "2026-11-22", 250000)...)
	add(s.cardSale("G-0005", "2026-11-22", 99900)...)
	return evs
}

// appendAll appends evs in order and returns them as stored.
func appendAll(t testing.TB, j *Journal, evs []pos.Event) []pos.Event {
	t.Helper()
	out := make([]pos.Event, 0, len(evs))
	for _, ev := range evs {
		got, err := j.Log.Append(context.Background(), ev)
		require.NoError(t, err, "Append(%s %s)", ev.Kind, ev.OrderID)
		out = append(out, got)
	}
	return out
}

// snapshot copies every bucket but events, key by key, for comparisons.
func snapshot(t testing.TB, j *Journal) map[string]map[string]string {
	t.Helper()
	out := map[string]map[string]string{}
	require.NoError(t, j.core.db.View(func(tx *bolt.Tx) error {
		return tx.ForEach(func(name []byte, b *bolt.Bucket) error {
			if bytes.Equal(name, bucketEvents) {
				return nil
			}
			m := map[string]string{}
			out[string(name)] = m
			return b.ForEach(func(k, v []byte) error {
				m[string(k)] = string(v)
				return nil
			})
		})
	}))
	return out
}

// rawUpdate runs fn on the file at path with bbolt directly, the journal closed.
func rawUpdate(t testing.TB, path string, fn func(tx *bolt.Tx) error) {
	t.Helper()
	db, err := bolt.Open(path, 0o600, &bolt.Options{Timeout: time.Second})
	require.NoError(t, err)
	require.NoError(t, db.Update(fn))
	require.NoError(t, db.Close())
}

// asSchema makes the file in tx claim schema version: a schema before 8 keeps
// its head in meta (the last event's sequence and hash) and no mark of it in
// the events bucket's sequence, as those schemas wrote it.
func asSchema(tx *bolt.Tx, version uint64) error {
	meta, events := tx.Bucket(bucketMeta), tx.Bucket(bucketEvents)
	if version < schemaHeadInEvents {
		seq, h, ok := headIn(events)
		if !ok {
			return errors.New("the last event is malformed")
		}
		if err := meta.Put(metaHead, headValue(seq, h)); err != nil {
			return err
		}
		if err := events.SetSequence(0); err != nil {
			return err
		}
	}
	return putU64(meta, metaSchema, version)
}
