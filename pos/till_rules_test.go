package pos

import (
	"context"
	"encoding/csv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestOfferMatches(t *testing.T) {
	noCost := EMIPlan{Issuer: "HDFC", Brand: "SAMSUNG", Subvention: "no-cost", TenureMonths: 6}
	std16 := EMIPlan{Issuer: "HDFC", Subvention: "standard", TenureMonths: 18}
	tests := []struct {
		q    string
		o    EMIPlan
		want bool
	}{
		{"", noCost, true},
		{"hdfc 6", noCost, true},
		{"HDFC samsung no-cost", noCost, true},
		{"icici 6", noCost, false},
		{"hdfc 6", std16, false},
		{"1", std16, false},
		{"18", std16, true},
		{"standard", noCost, false},
	}
	for _, tt := range tests {
		got := OfferMatches(tt.o, strings.Fields(strings.ToLower(tt.q)))
		assert.Equal(t, tt.want, got, "OfferMatches(%+v, %q)", tt.o, tt.q)
	}
}

// offers is a set where the cheapest instalment is not the cheapest total cost:
// a standard 24-month plan has the lowest instalment, and a no-cost 6-month plan
// costs the customer least.
func offers() []EMIPlan {
	return []EMIPlan{
		{Issuer: "ICICI", Subvention: "standard", TenureMonths: 24, Monthly: 3_800_00, TotalPayable: 91_200_00},
		{Issuer: "HDFC", Subvention: "no-cost", TenureMonths: 6, Monthly: 12_500_00, TotalPayable: 75_000_00},
		{Issuer: "AXIS", Subvention: "low-cost", TenureMonths: 12, Monthly: 6_400_00, TotalPayable: 76_800_00},
		{Issuer: "HDFC", Subvention: "no-cost", TenureMonths: 9, Monthly: 8_333_33, TotalPayable: 75_000_00},
	}
}

func TestSortOffersByTotalCostLeadsWithNoCost(t *testing.T) {
	list := offers()
	SortOffers(list, ByTotalCost)
	var got []int
	for _, o := range list {
		got = append(got, o.TenureMonths)
	}
	// 75,000 twice (the lower instalment first), then 76,800, then 91,200.
	assert.Equal(t, []int{9, 6, 12, 24}, got)
	SortOffers(list, ByMonthly)
	assert.Equal(t, 24, list[0].TenureMonths)
	SortOffers(list, ByIssuer)
	assert.Equal(t, "AXIS", list[0].Issuer)
	SortOffers(list, ByTenure)
	assert.Equal(t, 6, list[0].TenureMonths)
	assert.Len(t, OfferSorts, int(ByIssuer)+1)
}

func TestEMIFrom(t *testing.T) {
	best, ok := EMIFrom(offers())
	require.True(t, ok)
	assert.Equal(t, 9, best.TenureMonths, "the no-cost plan with the lowest instalment, not the 24-month standard plan")

	noNoCost := offers()[:1]
	noNoCost = append(noNoCost, offers()[2])
	best, ok = EMIFrom(noNoCost)
	require.True(t, ok)
	assert.Equal(t, "AXIS", best.Issuer, "without a no-cost plan, the lowest total cost")

	_, ok = EMIFrom(nil)
	assert.False(t, ok)
}

func TestAddToCartMergesUndiscountedLines(t *testing.T) {
	phone := Product{SKU: "S24", ProductCode: "P1", Price: 74_999_00, GSTRate: Percent(18), Serialised: true}
	cable := Product{SKU: "CABLE", Price: 499_00, GSTRate: Percent(18)}
	lines, i := AddToCart(nil, phone)
	assert.Equal(t, 0, i)
	lines, i = AddToCart(lines, cable)
	assert.Equal(t, 1, i)
	lines, i = AddToCart(lines, phone)
	assert.Equal(t, 0, i)
	assert.Equal(t, 2, lines[0].Qty)
	lines[0].Discount = 100_00
	lines, i = AddToCart(lines, phone)
	assert.Equal(t, 2, i, "a discounted line keeps its quantity; the new unit gets a line of its own")
	assert.Equal(t, 1, lines[2].Qty)
}

func TestSaleLinesGivesIMEIsPerProduct(t *testing.T) {
	phone := Product{SKU: "S24", ProductCode: "P1", Price: 100_00, GSTRate: Percent(18), Serialised: true}
	other := Product{SKU: "A15", ProductCode: "P2", Price: 50_00, GSTRate: Percent(18), Serialised: true}
	lines := []CartLine{{Product: phone, Qty: 2}, {Product: other, Qty: 1}, {Product: phone, Qty: 1, Discount: 10_00}}
	imeis := []UnitIMEI{{"P2", "B1"}, {"P1", "A1"}, {"P1", "A2"}, {"P1", "A3"}}
	got := SaleLines(lines, imeis)
	require.Len(t, got, 3)
	assert.Equal(t, []string{"A1", "A2"}, got[0].IMEIs)
	assert.Equal(t, []string{"B1"}, got[1].IMEIs)
	assert.Equal(t, []string{"A3"}, got[2].IMEIs)
	assert.Equal(t, Paise(10_00), got[2].Discount)
}

func TestRefundRange(t *testing.T) {
	tests := []struct {
		name        string
		o           Order
		most, least Paise
		refusal     bool
	}{
		{"paid card", Order{State: StatePaid, Tender: TenderCard, Amount: 500_00, Captured: 500_00}, 500_00, MinRefund, false},
		{"partly refunded card", partly(TenderCard, 200_00), 300_00, MinRefund, false},
		{"card with less left than the service takes", partly(TenderCard, 499_50), 0, 0, true},
		{"cash has no minimum", partly(TenderCash, 499_50), 50, 1, false},
		{"a credit-note sale goes back onto a note, with no minimum", partly(TenderNote, 499_50), 50, 1, false},
		{"a UPI sale goes back in cash, with no minimum", partly(TenderUPI, 499_50), 50, 1, false},
		{"a split sale's default is its card, with the service's minimum", partly(TenderSplit, 499_50), 0, 0, true},
		{"failed", Order{State: StateFailed, Tender: TenderCard, Amount: 500_00}, 0, 0, true},
		{"refunded", Order{State: StateRefunded, Tender: TenderCard, Amount: 500_00, Refunded: 500_00}, 0, 0, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			most, least, no := refundRange(&tt.o)
			assert.Equal(t, tt.most, most)
			assert.Equal(t, tt.least, least)
			assert.Equal(t, tt.refusal, no != "", no)
		})
	}
}

// partly is a ₹500 order of tender with refunded refunded.
func partly(tender TenderKind, refunded Paise) Order {
	return Order{State: StatePartlyRefunded, Tender: tender, Amount: 500_00, Captured: 500_00, Refunded: refunded,
		Refunds: []Refund{{Amount: refunded, Status: RefundDone}}}
}

func TestSandboxedDocuments(t *testing.T) {
	sandbox := ReceiptOptions{Sandbox: true}
	live := ReceiptOptions{}
	tests := []struct {
		name string
		o    Order
		opt  ReceiptOptions
		want bool
	}{
		{"a sandbox sale, printed on the sandbox", Order{Gateway: GatewaySandbox}, sandbox, true},
		{"a sandbox sale, printed after going live", Order{Gateway: GatewaySandbox}, live, true},
		{"a live sale, printed on the sandbox", Order{Gateway: "live https://pay.example.in merchant 1"}, sandbox, false},
		{"a cash sale on the sandbox", Order{Tender: TenderCash}, sandbox, true},
		{"a cash sale live", Order{Tender: TenderCash}, live, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.want, ReceiptFor(tt.o, Shop{}, tt.opt).Sandbox)
		})
	}
}

// TestCSVNeutralisesFormulas writes a report whose text cells start as formulas
// (a reason the service sent, a plan name): each is read as text, amounts stay
// numbers.
func TestCSVNeutralisesFormulas(t *testing.T) {
	r := &Report{Orders: []ReportRow{{OrderID: "T1-1", Plan: "+HDFC 6m", Status: StateFailed, Amount: -100,
		Reason: `=HYPERLINK("http://evil.example","click")`, Card: "@VISA 1111"}}}
	var b strings.Builder
	require.NoError(t, r.WriteCSV(&b))
	rows, err := csv.NewReader(strings.NewReader(b.String())).ReadAll()
	require.NoError(t, err)
	require.Len(t, rows, 2)
	for _, cell := range rows[1] {
		if cell == "" || cell[0] == '\'' || cell == "-1.00" {
			continue
		}
		assert.NotContains(t, "=+@", string(cell[0]), "cell %q would be a formula", cell)
	}
	assert.Contains(t, rows[1], `'=HYPERLINK("http://evil.example","click")`)
	assert.Contains(t, rows[1], "-1.00", "an amount stays a number")
	for in, want := range map[string]string{"=1+1": "'=1+1", "-2": "'-2", "+91 98": "'+91 98", "@x": "'@x", "\tx": "'\tx", "plain": "plain", "": ""} {
		assert.Equal(t, want, CSVText(in), in)
	}
}

// TestCashierCannotLockOutAManager tries wrong manager PINs at one till: no
// manager is locked, the till takes no more after MaxOverrideAttempts, and a
// manager's sign-in there lifts the stop.
func TestCashierCannotLockOutAManager(t *testing.T) {
	r := newRig(t)
	tl := r.till(t)
	ctx := t.Context()
	for range MaxOverrideAttempts {
		_, err := tl.Crew.Authorize(ctx, "0000", Override{What: "discount"})
		assert.ErrorIs(t, err, ErrWrongPIN)
	}
	_, err := tl.Crew.Authorize(ctx, managerPIN, Override{What: "discount"})
	assert.ErrorIs(t, err, ErrTooManyOverrides, "even the right PIN waits for a manager's sign-in here")
	_, err = tl.Returns.RefundOrder(ctx, RefundRequest{OrderID: "X", PIN: managerPIN})
	assert.ErrorIs(t, err, ErrTooManyOverrides)
	all, err := r.j.List(ctx)
	require.NoError(t, err)
	for _, s := range all {
		assert.False(t, s.Locked(r.clock.Now()), "%s is not locked out", s.Name)
		assert.Zero(t, s.FailedAttempts, s.Name)
	}
	_, err = tl.Crew.SignIn(ctx, "Meera", managerPIN)
	require.NoError(t, err)
	_, err = tl.Crew.Authorize(ctx, managerPIN, Override{What: "discount"})
	assert.NoError(t, err)
}

// TestEventSentences: the journal's history says what happened in words, with the
// card as brand and last four only, never an event code.
func TestEventSentences(t *testing.T) {
	tests := []struct {
		ev   Event
		want string
	}{
		{Event{Kind: EvOrderIntent, Intent: &Intent{Tender: TenderCard, Amount: 149900}}, "Sale of ₹1,499.00 journaled, paid by card"},
		{Event{Kind: EvPaymentAttempt, Attempt: &AttemptEvent{N: 2, CardBrand: "VISA", CardLast4: "1111"}}, "Payment attempt 2 sent: VISA •••• 1111"},
		{Event{Kind: EvPaymentOutcome, Outcome: &Outcome{OrderStatus: "CHARGED", PaymentStatus: "CAPTURED"}}, "Verified: order CHARGED, payment CAPTURED"},
		{Event{Kind: EvOrderUnknown, Reason: "the answer was lost."}, "The outcome is not known yet; it is checked again, never charged again: the answer was lost"},
		{Event{Kind: EvRefundDone, Refund: &RefundEvent{Amount: 10000}}, "Refund of ₹100.00 verified"},
		{Event{Kind: EvCashReceived, Cash: &CashEvent{Tendered: 50000, Change: 100}}, "Cash received ₹500.00, change ₹1.00"},
	}
	for _, tt := range tests {
		assert.Equal(t, tt.want, EventSentence(tt.ev, "T1"), tt.ev.Kind)
	}
	for _, k := range []EventKind{EvOrderIntent, EvOrderCreated, EvOrderFailed, EvOrderAbandoned, EvOrderUnknown, EvIMEIValidated,
		EvPaymentAttempt, EvPaymentAccepted, EvPaymentRefused, EvPaymentOutcome, EvAnswerUnverified, EvAnswerIgnored,
		EvCashReceived, EvRefundIntent, EvRefundDone, EvRefundFailed, EvReceiptPrinted, EvReceiptReprinted, EvPrintFailed} {
		s := EventSentence(Event{Kind: k}, "T1")
		assert.NotContains(t, s, ".", "%s: a sentence, not the code %q", k, s)
	}
}

// TestFrictionlessCardAsksNoOTP pays at the till with the sandbox's frictionless
// card, as the window does (waiting for an OTP if one were needed): PAID on a
// verified answer, and the screen is never asked for a one-time password.
func TestFrictionlessCardAsksNoOTP(t *testing.T) {
	r := newRig(t)
	tl := r.till(t)
	p, ok := tl.Shelf.Lookup("ACC-CASE")
	require.True(t, ok)
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second) // a hang would wait for an OTP nobody types
	defer cancel()
	out, err := tl.Checkout.Pay(ctx, PayRequest{Lines: []CartLine{{Product: p, Qty: 1}}, Tender: TenderCard, Card: card("5555555555554444"), Cashier: "Ravi"},
		func(pp PayProgress) { assert.False(t, pp.OTP, "the frictionless card asks for no OTP") })
	require.NoError(t, err)
	assert.Equal(t, StatePaid, out.State)
	assert.Equal(t, 1, r.captures())
}
