package journal

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"galla/pos"
)

// emiTenure is a tenure object as the EMI calculator sends it (kept verbatim in
// the EMI plan of an order.intent).
var emiTenure = json.RawMessage(`{"offer_scheme":{"product_details":[{"schemes":[{"scheme_id":"48213","program_type":105,"is_cashback":false,"offer":{"discount":{"discount_type":"PERCENTAGE","amount":1971,"percentage":4.93}}}],"product_code":"SAMSUNG-S24","product_amount":7499900,"subvention_amount":197100,"is_subvention_applicable":true}],"emi_scheme":null},"tenure_id":"6","tenure_in_month":"6","monthly_installment":1249984,"bank_interest_rate":150000,"interest_pay_to_bank":197100,"total_offerred_discount_cashback_amount":197100,"loan_amount":7302800,"auth_amount":7302800}`)

// busyDay is a realistic day of a busy counter: n sales (about 55% card, 30%
// cash, 15% brand EMI with an IMEI), one sale in twenty refunded the same day,
// every paid sale's receipt printed, one card sale in twenty-five refused once
// before it is paid, and the day's Z report (made as pos.Engine.Ledger.CloseDay makes
// it). Order ids are those of the terminal (day-based, ascending).
func (s *script) busyDay(day string, n int, zno uint64) []pos.Event {
	var evs []pos.Event
	add := func(e ...pos.Event) { evs = append(evs, e...) }
	start := s.at
	date, _ := time.Parse(pos.DayLayout, day)
	if s.at.Before(date.Add(9 * time.Hour)) {
		s.at = date.Add(9 * time.Hour)
	}
	prefix := s.idPrefix
	if prefix == "" {
		prefix = "G"
	}
	for i := range n {
		id := fmt.Sprintf("%s%s-%04d", prefix, date.Format("060102"), i+1)
		switch {
		case i%20 == 3 || i%20 == 11 || i%20 == 17:
			add(s.emiSale(id, day, 7499900)...)
		case i%10 == 1 || i%10 == 5 || i%10 == 8:
			add(s.cashSale(id, day, pos.Paise(49900+100*i))...)
		default:
			if i%25 == 7 {
				add(pos.Event{Kind: pos.EvOrderIntent, OrderID: id + "R", Day: day, Time: s.next(), Staff: "001",
					Intent: s.intent(id, day, pos.TenderCard, pos.Paise(199900+1000*i)).Intent})
				add(pos.Event{Kind: pos.EvOrderCreated, OrderID: id + "R", Day: day, Time: s.next(), Created: &pos.Created{ServiceOrderID: "S" + id + "R", Token: "tok-" + id + "R"}})
				add(pos.Event{Kind: pos.EvPaymentAttempt, OrderID: id + "R", Day: day, Time: s.next(), Attempt: &pos.AttemptEvent{N: 1, CardBrand: "VISA", CardLast4: testCardLast4}})
				add(pos.Event{Kind: pos.EvPaymentRefused, OrderID: id + "R", Day: day, Time: s.next(),
					Attempt: &pos.AttemptEvent{N: 1, CardBrand: "VISA", CardLast4: testCardLast4, Code: "14826", Message: "card declined by the issuer"}})
			}
			add(s.cardSale(id, day, pos.Paise(199900+1000*i))...)
		}
		if i%20 == 9 {
			add(s.refund(id, day, pos.Paise(199900+1000*i))...)
		}
	}
	_ = start
	add(pos.Event{Kind: pos.EvDayClosed, Day: day, Time: s.next(), Staff: "001",
		DayClose: &pos.DayClose{Day: day, ZNo: zno}})
	return evs
}

// phoneIMEI is the IMEI of the next phone the script sells: as a shop's
// units are, each its own, 15 digits with a valid check digit (an 8-digit
// type allocation code of Samsung's, moved on every million units, and the
// unit's serial).
func (s *script) phoneIMEI() string {
	s.phones++
	body := fmt.Sprintf("%08d%06d", 35693803+s.phones/1_000_000, s.phones%1_000_000)
	d, ok := pos.LuhnCheckDigit(body)
	if !ok {
		panic("not digits: " + body)
	}
	return body + string(d)
}

// emiSale is a brand EMI sale of a serialised phone, with its own IMEI:
// intent with the plan and the IMEI, create, IMEI validated, attempt,
// accepted, verified, printed.
func (s *script) emiSale(id, day string, amount pos.Paise) []pos.Event {
	imei := s.phoneIMEI()
	lines := []pos.Line{{SKU: "SAMSUNG-S24", Name: "Galaxy S24 256 GB", Brand: "SAMSUNG", ProductCode: "SAMSUNG-S24",
		HSN: "8517", Qty: 1, UnitPrice: amount, GSTRate: pos.Percent(18), Serialised: true, IMEIs: []string{imei}}}
	plan := &pos.EMIPlan{Issuer: "HDFC Bank", Brand: "SAMSUNG", Program: "brand", Subvention: "no-cost", TenureMonths: 6,
		TenureID: "6", RateBP: 150000, Monthly: 1249984, Interest: 197100, Benefit: 197100, TotalPayable: amount,
		Loan: 7302800, AuthAmount: 7302800, IMEIRequired: true, AcquirerID: 7, Tenure: emiTenure}
	svc, pay := "S"+id, "P"+id
	s.receipt++
	return []pos.Event{
		{Kind: pos.EvOrderIntent, OrderID: id, Day: day, Time: s.next(), Staff: "001",
			Intent: &pos.Intent{Tender: pos.TenderEMI, Lines: lines, Totals: pos.ComputeTotals(lines), Amount: amount, EMI: plan,
				IMEIs: []string{imei}, Customer: &pos.Customer{CountryCode: "91", Mobile: "9876543210"}}},
		{Kind: pos.EvOrderCreated, OrderID: id, Day: day, Time: s.next(), Created: &pos.Created{ServiceOrderID: svc, Token: "tok-" + id}},
		{Kind: pos.EvIMEIValidated, OrderID: id, Day: day, Time: s.next(), IMEIs: []string{imei}},
		{Kind: pos.EvPaymentAttempt, OrderID: id, Day: day, Time: s.next(), Attempt: &pos.AttemptEvent{N: 1, CardBrand: "VISA", CardLast4: testCardLast4}},
		{Kind: pos.EvPaymentAccepted, OrderID: id, Day: day, Time: s.next(), Attempt: &pos.AttemptEvent{N: 1, PaymentID: pay, Amount: 7302800}},
		{Kind: pos.EvPaymentOutcome, OrderID: id, Day: day, Time: s.next(), ReceiptNo: s.receipt, Outcome: &pos.Outcome{
			MerchantOrderID: id, ServiceOrderID: svc, PaymentID: pay, OrderStatus: "CHARGED", PaymentStatus: "CAPTURED",
			Amount: amount, Captured: plan.AuthAmount, PaymentMode: "EMI", Issuer: "HDFC Bank", MaskedCard: "411111XXXXXX1111", AuthCode: "A1", RRN: "R1"}},
		{Kind: pos.EvReceiptPrinted, OrderID: id, Day: day, Time: s.next(), Print: &pos.PrintEvent{Printer: "file", Format: "text"}},
	}
}

// The growth generator sells each phone with its own IMEI, as a shop's sales
// are: every IMEI of its sales passes the check digit, none is sold twice,
// and the journal keeps one record per phone.
func TestGrowthIMEIsDistinct(t *testing.T) {
	var s script
	seen := map[string]string{}
	for i := range 5 {
		day := pos.ToDay(time.Date(2026, 1, 1+i, 0, 0, 0, 0, time.UTC))
		for _, ev := range s.busyDay(day, 200, uint64(i+1)) {
			sold, _ := pos.IMEIEffect(ev)
			for _, imei := range sold {
				require.NoError(t, pos.CheckIMEI(imei), "IMEI %s of %s", imei, ev.OrderID)
				prev, dup := seen[imei]
				require.False(t, dup, "IMEI %s sold in %s and again in %s", imei, prev, ev.OrderID)
				seen[imei] = ev.OrderID
			}
		}
	}
	assert.Equal(t, 5*30, len(seen), "30 phones a day of 200 sales")
	assert.Equal(t, uint64(len(seen)), s.phones)

	path := filepath.Join(t.TempDir(), "journal.db")
	bulkDays(t, path, 3000, 3000)
	j, err := Open(path, Options{})
	require.NoError(t, err)
	defer j.Close()
	records := bucketBytes(t, j, bucketIMEIs)
	assert.GreaterOrEqual(t, len(records), 60, "one record per phone")
	for imei := range records {
		r, err := j.IMEIs.IMEI(t.Context(), imei)
		require.NoError(t, err)
		assert.Len(t, r.Orders, 1, "IMEI %s: sold once", imei)
	}
}

// Every order the growth generator writes ends as a real sale ends (an EMI
// sale captured at its EMI amount, a refused card through create and
// attempt): the journal it makes holds no unresolved order, as a counter's
// does once its payments are known.
func TestGrowthOrdersEnd(t *testing.T) {
	p := filepath.Join(t.TempDir(), "journal.db")
	bulkJournal(t, p, 2000)
	j, err := Open(p, Options{})
	require.NoError(t, err)
	defer j.Close()
	un, err := j.Orders.Unresolved(t.Context())
	require.NoError(t, err)
	for _, o := range un {
		t.Errorf("order %s (%s) left %s", o.ID, o.Tender, o.State)
	}
	paid := 0
	for _, d := range []string{"2026-01-01", "2026-01-02"} {
		orders, err := j.Orders.OrdersByDay(t.Context(), d)
		require.NoError(t, err)
		for _, o := range orders {
			if o.State.Paid() {
				paid++
			}
		}
	}
	assert.Greater(t, paid, 300, "two busy days of sales, paid")
}
