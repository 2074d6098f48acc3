package pos

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"galla/gateway"
	"galla/gateway/sandbox"
	"galla/internal/testclock"
)

// rig is one engine wired to a real gateway client and the in-process sandbox.
type rig struct {
	e     *Engine
	sb    *sandbox.Sandbox
	j     *memJournal
	clock *testclock.Clock
	gw    *gateway.Client
	td    sandbox.TestDataSet
	cat   *Catalog
}

const managerPIN = "432100"

func newRig(t *testing.T) *rig { return newRigVia(t, nil) }

// newRigVia is newRig whose gateway client reaches the sandbox through
// via(the sandbox's transport) when via is not nil.
func newRigVia(t *testing.T, via func(http.RoundTripper) http.RoundTripper) *rig {
	t.Helper()
	clock := testclock.New(time.Date(2026, 11, 22, 10, 0, 0, 0, time.Local))
	sb, err := sandbox.New(sandbox.WithClock(clock.Now))
	require.NoError(t, err)
	tr := sb.Transport()
	if via != nil {
		tr = via(tr)
	}
	gw, err := gateway.New(gateway.Config{
		BaseURL: "http://sandbox.test", MerchantID: sandbox.DefaultMerchantID, AccessCode: sandbox.DefaultAccessCode,
		Secret: sandbox.DefaultSecret, ReturnURL: "http://127.0.0.1/return", HTTPClient: &http.Client{Transport: tr},
		Now: clock.Now, Timeout: 2 * time.Second, Retry: gateway.Retry{Max: 2, Base: time.Millisecond, Cap: 2 * time.Millisecond},
	})
	require.NoError(t, err)
	j := newMemJournal()
	e, err := New(Config{Journal: j, Gateway: gw, Clock: clock, Customer: Customer{Mobile: "9000000001", Email: "counter@example.com"}})
	require.NoError(t, err)
	_, err = e.Roster().WithIterations(MinPINIterations).AddStaff(t.Context(), "Meera", RoleManager, managerPIN)
	require.NoError(t, err)
	cat, err := LoadCatalogJSON(catalogJSON(t))
	require.NoError(t, err)
	return &rig{e: e, sb: sb, j: j, clock: clock, gw: gw, td: sandbox.TestData(), cat: cat}
}

// catalogJSON is a small catalog with the sandbox's product codes.
func catalogJSON(t *testing.T) []byte {
	t.Helper()
	return []byte(`[
 {"sku":"PH-SAM-S24","name":"Samsung Galaxy S24","brand":"Samsung","product_code":"SAMSUNG-S24","price":"74999.00","gst_rate":18,"hsn":"8517","serialised":true},
 {"sku":"TV-LG-OLED55C4","name":"LG OLED 55","brand":"LG","product_code":"LG-OLED55C4","price":"149990.00","gst_rate":18,"hsn":"8528"},
 {"sku":"ACC-CASE","name":"Phone case","price":"1499.00","gst_rate":18,"hsn":"3926"},
 {"sku":"ACC-CBL","name":"Cable","price":"499.00","gst_rate":18,"hsn":"8544"}
]`)
}

func (r *rig) sale(t *testing.T, items ...string) Sale {
	t.Helper()
	c := NewCart(r.cat)
	for _, sku := range items {
		_, err := c.Add(sku, 1)
		require.NoError(t, err)
	}
	lines, _, err := c.Checkout()
	require.NoError(t, err)
	return Sale{Lines: lines, Staff: "001"}
}

func card(number string) *gateway.Card {
	cvv := "123"
	if strings.HasPrefix(number, "34") || strings.HasPrefix(number, "37") {
		cvv = "1234"
	}
	return gateway.NewCard(number, "12", "2030", cvv, "Test Holder")
}

// registeredShop is a regular registrant in Maharashtra: its documents are tax
// invoices and its reports state their GST.
var registeredShop = Shop{Name: "Galla Mobiles", Address: []string{"1 MG Road, Pune"}, State: "27", GSTIN: goodGSTIN}

// register journals shop as the shop's details the way a journal written
// before the registration history was kept holds them: the shop setting alone,
// with no history of its changes.
func (r *rig) register(t *testing.T, shop Shop) {
	t.Helper()
	raw, err := json.Marshal(shop)
	require.NoError(t, err)
	_, err = r.j.Append(t.Context(), Event{V: EventVersion, Time: r.clock.Now(), Kind: EvSettingsChanged, Setting: &Setting{Key: SettingShop, Value: raw}})
	require.NoError(t, err)
}

func (r *rig) otp() PayOptions { return PayOptions{Auth: SandboxOTP(r.gw, r.td.OTP)} }

// ledger returns the sandbox's view of the order with this merchant order id.
func (r *rig) ledger(t *testing.T, merchantOrderID string) sandbox.LedgerOrder {
	t.Helper()
	for _, lo := range r.sb.Controls.Ledger() {
		if lo.MerchantOrderID == merchantOrderID {
			return lo
		}
	}
	t.Fatalf("ledger has no order %q", merchantOrderID)
	return sandbox.LedgerOrder{}
}

// captures counts captured payments over the whole sandbox.
func (r *rig) captures() int {
	n := 0
	for _, lo := range r.sb.Controls.Ledger() {
		n += lo.CapturedPayments
	}
	return n
}

func TestCardCheckoutPaid(t *testing.T) {
	tests := []struct {
		name   string
		number string
		auth   bool
	}{
		{"otp visa", "4111111111111111", true},
		{"frictionless", "5555555555554444", false},
		{"amex", "378282246310005", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := newRig(t)
			var steps []Step
			opt := PayOptions{Progress: func(p Progress) { steps = append(steps, p.Step) }}
			if tt.auth {
				opt.Auth = r.otp().Auth
			}
			c := card(tt.number)
			res, err := sellCard(t.Context(), r.e, r.sale(t, "ACC-CASE", "ACC-CBL"), c, opt)
			require.NoError(t, err)
			assert.Equal(t, ResultPaid, res.Status, res.Reason)
			o := res.Order // the sale
			st, paid := soleTender(t, r.e, o.ID)
			assert.True(t, st.Complete())
			assert.Equal(t, StatePaid, o.State)
			assert.True(t, o.Verified)
			assert.Equal(t, Paise(199800), o.Amount)
			assert.Equal(t, StatePaid, paid.State)
			assert.True(t, paid.Verified)
			assert.Equal(t, o.Amount, paid.Amount, "one tender for the whole amount")
			assert.Equal(t, o.Amount, paid.Captured)
			assert.Equal(t, uint64(1), o.DocNo, "the first tax invoice of the year")
			assert.Equal(t, tt.number[len(tt.number)-4:], paid.CardLast4)
			assert.Empty(t, c.Last4(), "the card is wiped after the payment")
			assert.Contains(t, steps, StepCreated)
			assert.Contains(t, steps, StepPaid)
			lo := r.ledger(t, paid.ID)
			assert.Equal(t, "CHARGED", lo.Status)
			assert.Equal(t, 1, lo.CapturedPayments)
			assert.LessOrEqual(t, r.j.commitCount(), 4, "fsync'd commits per card checkout (DESIGN.md section 7)")
			for _, want := range []*Order{o, paid} {
				stored, err := r.j.Order(t.Context(), want.ID)
				require.NoError(t, err)
				assert.Equal(t, StatePaid, stored.State, "the journal's derived order matches the engine's")
			}
			for _, ev := range r.j.allEvents() {
				raw, _ := json.Marshal(ev)
				assert.NotContains(t, string(raw), tt.number, "no card number in the journal")
				assert.NotContains(t, string(raw), tt.number[6:], "no card number in the journal")
			}
		})
	}
}

func TestDeclineThenRetryOnTheSameOrder(t *testing.T) {
	r := newRig(t)
	ctx := t.Context()
	res, err := sellCard(ctx, r.e, r.sale(t, "ACC-CASE"), card("4000000000000002"), r.otp())
	require.NoError(t, err)
	require.Equal(t, ResultFailed, res.Status)
	assert.True(t, res.CanRetry)
	assert.Contains(t, res.Reason, "declined")
	id := res.Order.ID

	res, err = r.e.Payments.PayCard(ctx, id, card("4111111111111111"), r.otp())
	require.NoError(t, err)
	assert.Equal(t, ResultPaid, res.Status, res.Reason)
	assert.Equal(t, id, res.Order.ID, "the retry is on the same order")
	assert.Len(t, res.Order.Attempts, 2)
	lo := r.ledger(t, id)
	assert.Len(t, lo.Payments, 2)
	assert.Equal(t, 1, lo.CapturedPayments)
	assert.Len(t, r.sb.Controls.Ledger(), 1, "no second order was created")

	_, err = r.e.Payments.PayCard(ctx, id, card("4111111111111111"), r.otp())
	assert.ErrorIs(t, err, ErrOrderPaid)
}

func TestAttemptsRunOut(t *testing.T) {
	r := newRig(t)
	ctx := t.Context()
	res, err := sellCard(ctx, r.e, r.sale(t, "ACC-CASE"), card("4000000000009995"), r.otp())
	require.NoError(t, err)
	id := res.Order.ID
	for i := 2; i <= MaxAttempts; i++ {
		res, err = r.e.Payments.PayCard(ctx, id, card("4000000000000069"), r.otp())
		require.NoError(t, err)
		require.Equal(t, ResultFailed, res.Status)
	}
	assert.False(t, res.CanRetry)
	_, err = r.e.Payments.PayCard(ctx, id, card("4111111111111111"), r.otp())
	assert.ErrorIs(t, err, ErrAttemptsUsed)
	assert.Zero(t, r.captures())
}

func TestWrongOTPFails(t *testing.T) {
	r := newRig(t)
	res, err := sellCard(t.Context(), r.e, r.sale(t, "ACC-CASE"), card("4111111111111111"),
		PayOptions{Auth: SandboxOTP(r.gw, "000000")})
	require.NoError(t, err)
	assert.Equal(t, ResultFailed, res.Status)
	assert.True(t, res.CanRetry)
}

func TestUnverifiedAnswerIsUnknownThenReconciled(t *testing.T) {
	r := newRig(t)
	ctx := t.Context()
	r.sb.Controls.Inject(sandbox.EndpointInquirePayment, sandbox.Fault{Kind: sandbox.FaultBadSignature}, 1000)
	r.sb.Controls.Inject(sandbox.EndpointInquireOrder, sandbox.Fault{Kind: sandbox.FaultBadSignature}, 1000)
	opt := r.otp()
	opt.Wait = 30 * time.Second
	res, err := sellCard(ctx, r.e, r.sale(t, "ACC-CASE"), card("4111111111111111"), opt)
	require.NoError(t, err)
	assert.Equal(t, ResultUnverified, res.Status)
	assert.Equal(t, StateUnknown, res.Order.State, "an unverified CHARGED is never PAID")
	assert.False(t, res.Order.Verified)
	assert.Equal(t, 1, r.captures(), "the service did charge")

	rep, err := r.e.Payments.Reconcile(ctx)
	require.NoError(t, err)
	assert.Len(t, rep.Open, 1, "still unverified: still open")

	r.sb.Controls.ClearFaults()
	rep, err = r.e.Payments.Reconcile(ctx)
	require.NoError(t, err)
	require.Len(t, rep.Resolved, 1)
	o, err := r.e.Order(ctx, res.Order.ID)
	require.NoError(t, err)
	assert.Equal(t, StatePaid, o.State)
	assert.True(t, o.Verified)
	assert.Equal(t, 1, r.captures())
}

func TestDroppedPaymentAnswerIsInquiredNeverRepaid(t *testing.T) {
	r := newRig(t)
	ctx := t.Context()
	r.sb.Controls.Inject(sandbox.EndpointCardPayment, sandbox.Fault{Kind: sandbox.FaultDrop}, 1)
	res, err := sellCard(ctx, r.e, r.sale(t, "ACC-CASE"), card("5555555555554444"), PayOptions{})
	require.NoError(t, err)
	assert.Equal(t, ResultPaid, res.Status, res.Reason)
	assert.Len(t, r.sb.Controls.Ledger(), 1, "the same order was inquired, not re-created")
	_, paid := soleTender(t, r.e, res.Order.ID)
	lo := r.ledger(t, paid.ID)
	assert.Len(t, lo.Payments, 1, "the payment was not sent twice")
	assert.Equal(t, 1, lo.CapturedPayments)
	assert.Equal(t, lo.Payments[0].PaymentID, paid.PaymentID, "the lost payment id was learned from the inquiry")
}

func TestDroppedCreateOrderAnswerMovesToAFreshOrder(t *testing.T) {
	r := newRig(t)
	ctx := t.Context()
	r.sb.Controls.Inject(sandbox.EndpointCreateOrder, sandbox.Fault{Kind: sandbox.FaultDrop}, 1)
	res, err := sellCard(ctx, r.e, r.sale(t, "ACC-CASE"), card("4111111111111111"), r.otp())
	require.NoError(t, err)
	require.Equal(t, ResultPaid, res.Status, res.Reason)
	st, o := soleTender(t, r.e, res.Order.ID)
	assert.True(t, st.Complete())
	require.NotEmpty(t, o.Replaces, "the tender moved to a fresh order")
	assert.Equal(t, o.Replaces, st.Tenders[0].OrderID, "the sale names the tender's first order")
	old, err := r.e.Order(ctx, o.Replaces)
	require.NoError(t, err)
	assert.Equal(t, StateAbandoned, old.State)
	assert.Equal(t, o.ID, old.MovedTo)
	assert.Empty(t, old.Attempts, "nothing was paid on the abandoned order")
	assert.Equal(t, 1, r.captures())
}

func TestPatientPollingWithAFakeClock(t *testing.T) {
	r := newRig(t)
	res, err := sellCard(t.Context(), r.e, r.sale(t, "ACC-CASE"), card("4000000000000119"), r.otp())
	require.NoError(t, err)
	assert.Equal(t, ResultPaid, res.Status, res.Reason)
	w := r.clock.Sleeps()
	require.GreaterOrEqual(t, len(w), 12, "polled through the 20 s hold")
	for i := range 10 {
		assert.Equal(t, time.Second, w[i], "wait %d", i)
	}
	assert.Equal(t, 2*time.Second, w[10])
	assert.Equal(t, 5*time.Second, w[11])
}

func TestPollScheduleGivesUpAsUnknown(t *testing.T) {
	r := newRig(t)
	// No authentication: the payment stays PENDING until the token expires.
	opt := PayOptions{Wait: 10 * time.Minute}
	res, err := sellCard(t.Context(), r.e, r.sale(t, "ACC-CASE"), card("4111111111111111"), opt)
	require.NoError(t, err)
	assert.Equal(t, ResultUnknown, res.Status)
	assert.Equal(t, StateUnknown, res.Order.State)
	var total time.Duration
	w := r.clock.Sleeps()
	for _, d := range w {
		total += d
	}
	assert.LessOrEqual(t, total, 10*time.Minute)
	assert.Equal(t, time.Minute, w[len(w)-1], "each minute after the first 57 s")
	want := []time.Duration{2 * time.Second, 5 * time.Second, 10 * time.Second, 30 * time.Second, time.Minute}
	assert.Equal(t, want, w[10:15])
}

func TestCancelledPollingIsUnknown(t *testing.T) {
	r := newRig(t)
	ctx, cancel := context.WithCancel(t.Context())
	opt := PayOptions{Progress: func(p Progress) {
		if p.Step == StepVerifying {
			cancel()
		}
	}}
	res, err := sellCard(ctx, r.e, r.sale(t, "ACC-CASE"), card("4111111111111111"), opt)
	require.NoError(t, err)
	assert.Equal(t, ResultUnknown, res.Status)
	o, err := r.e.Order(t.Context(), res.Order.ID)
	require.NoError(t, err)
	assert.Equal(t, StateUnknown, o.State, "journaled for the reconciler")
}

func TestCrashBeforeTheOutcomeIsJournaled(t *testing.T) {
	r := newRig(t)
	ctx := t.Context()
	crash := errors.New("power cut")
	r.j.failNext = func(ev Event) error {
		if ev.Kind == EvPaymentAccepted || ev.Kind == EvPaymentOutcome {
			return crash
		}
		return nil
	}
	_, err := sellCard(ctx, r.e, r.sale(t, "ACC-CASE"), card("5555555555554444"), PayOptions{})
	require.ErrorIs(t, err, crash)
	r.j.failNext = nil

	// A restarted terminal: a new engine over the same journal.
	e2, err := New(Config{Journal: r.j, Gateway: r.gw, Clock: r.clock})
	require.NoError(t, err)
	unresolved, err := r.j.Unresolved(ctx)
	require.NoError(t, err)
	require.Len(t, unresolved, 1)
	assert.Equal(t, StateCreated, unresolved[0].State)
	rep, err := e2.Payments.Reconcile(ctx)
	require.NoError(t, err)
	require.Len(t, rep.Resolved, 1)
	assert.Equal(t, StatePaid, rep.Resolved[0].State)
	assert.Equal(t, 1, r.captures())
}

func TestReconcileAbandonsAnUnansweredIntent(t *testing.T) {
	r := newRig(t)
	ctx := t.Context()
	r.j.failNext = func(ev Event) error {
		if ev.Kind == EvOrderCreated {
			return errors.New("crash")
		}
		return nil
	}
	_, err := openOneTender(ctx, r.e, r.sale(t, "ACC-CASE"), TenderCard, nil, PayOptions{})
	require.Error(t, err)
	r.j.failNext = nil
	rep, err := r.e.Payments.Reconcile(ctx)
	require.NoError(t, err)
	require.Len(t, rep.Resolved, 1)
	assert.Equal(t, StateAbandoned, rep.Resolved[0].State)
}

func TestOnePaymentInFlightPerOrder(t *testing.T) {
	r := newRig(t)
	ctx := t.Context()
	o, err := openOneTender(ctx, r.e, r.sale(t, "ACC-CASE"), TenderCard, nil, PayOptions{})
	require.NoError(t, err)
	entered := make(chan struct{})
	release := make(chan struct{})
	auth := AuthenticatorFunc(func(ctx context.Context, ch Challenge) error {
		close(entered)
		<-release
		return r.gw.SubmitAuthentication(ctx, ch.Content, map[string][]string{"otp": {r.td.OTP}})
	})
	done := make(chan *Result)
	go func() {
		res, _ := r.e.Payments.PayCard(ctx, o.ID, card("4111111111111111"), PayOptions{Auth: auth})
		done <- res
	}()
	<-entered
	_, err = r.e.Payments.PayCard(ctx, o.ID, card("4111111111111111"), r.otp())
	assert.ErrorIs(t, err, ErrPaymentInFlight, "a second Pay on the same order is refused")
	close(release)
	res := <-done
	assert.Equal(t, ResultPaid, res.Status)
	assert.Equal(t, 1, r.captures())
}

func TestCashSale(t *testing.T) {
	j := newMemJournal()
	clock := testclock.New(time.Date(2026, 11, 22, 10, 0, 0, 0, time.Local))
	e, err := New(Config{Journal: j, Clock: clock})
	require.NoError(t, err)
	cat, err := LoadCatalogJSON(catalogJSON(t))
	require.NoError(t, err)
	c := NewCart(cat)
	_, err = c.Add("ACC-CBL", 2)
	require.NoError(t, err)
	lines, _, err := c.Checkout()
	require.NoError(t, err)
	res, err := sellCash(t.Context(), e, Sale{Lines: lines}, Rupees(1000))
	require.NoError(t, err)
	assert.Equal(t, ResultPaid, res.Status)
	sale := res.Order
	assert.Equal(t, StatePaid, sale.State)
	assert.Equal(t, Paise(99800), sale.Amount)
	assert.Equal(t, uint64(1), sale.DocNo)
	_, cash := soleTender(t, e, sale.ID)
	assert.Equal(t, TenderCash, cash.Tender)
	assert.Equal(t, Paise(99800), cash.Amount)
	assert.Equal(t, Paise(200), cash.Change)
	assert.Equal(t, 2, j.commitCount())

	// Too little cash is refused, and takes nothing: the sale stays open for
	// the cash counted again.
	short, err := e.Sales.OpenSale(t.Context(), Sale{Lines: lines})
	require.NoError(t, err)
	_, _, err = e.Sales.SaleCash(t.Context(), short.ID, 0, Rupees(500), "")
	assert.ErrorIs(t, err, ErrCashShort)
	st, err := e.Sales.SaleStatus(t.Context(), short.ID)
	require.NoError(t, err)
	assert.Empty(t, st.Tenders, "refused before a tender was journaled")
	assert.True(t, st.HoldsNoMoney(), "nothing was taken")
	assert.Equal(t, Paise(99800), st.Due)
	_, st, err = e.Sales.SaleCash(t.Context(), short.ID, 0, Rupees(1000), "")
	require.NoError(t, err)
	assert.True(t, st.Complete())

	_, err = sellCard(t.Context(), e, Sale{Lines: lines}, card("4111111111111111"), PayOptions{})
	assert.ErrorIs(t, err, ErrNoGateway)
}

func TestPayOnPhone(t *testing.T) {
	r := newRig(t)
	ctx := t.Context()
	o, err := sellOnPhone(ctx, r.e, r.sale(t, "ACC-CASE"), PayOptions{})
	require.NoError(t, err)
	require.NotEmpty(t, o.Token)
	// The customer pays on the phone: the hosted page sends the payment itself.
	_, err = r.gw.CardPayment(ctx, o.Token, card("5555555555554444"), gateway.Customer{Mobile: "9000000002", Email: "c@example.com"})
	require.NoError(t, err)
	res, err := r.e.Payments.Await(ctx, o.ID, PayOptions{})
	require.NoError(t, err)
	assert.Equal(t, ResultPaid, res.Status, res.Reason)
	assert.Len(t, res.Order.Attempts, 1)
}

func TestEMIBrandOfferWithIMEI(t *testing.T) {
	r := newRig(t)
	ctx := t.Context()
	sale := r.sale(t, "PH-SAM-S24")
	var imei string
	for _, b := range r.td.Brands {
		if b.Brand == "SAMSUNG" {
			imei = b.TestIMEI
		}
	}
	require.NotEmpty(t, imei)
	offers, err := r.e.Payments.EMIOffers(ctx, sale.Lines)
	require.NoError(t, err)
	plan, ok := offers.Find("HDFC", 6, ProgramBrand)
	require.True(t, ok, "HDFC offers SAMSUNG's no-cost 6 months")
	assert.Equal(t, SubventionNoCost, plan.Subvention)
	assert.True(t, plan.IMEIRequired)
	assert.Equal(t, Paise(7499900), plan.AuthAmount)
	assert.Positive(t, plan.Monthly)
	assert.InDelta(t, float64(plan.AuthAmount), float64(plan.TotalPayable), 600, "no-cost: the price over the tenure")

	_, err = sellEMI(ctx, r.e, sale, plan, card("4386280000000004"), r.otp())
	assert.ErrorIs(t, err, ErrIMEIMissing, "IMEIs are entered before the order is created")
	assert.Empty(t, r.sb.Controls.Ledger(), "no order was created at the service")
	assert.Zero(t, r.captures())

	sale.Lines[0].IMEIs = []string{imei}
	res, err := sellEMI(ctx, r.e, sale, plan, card("4386280000000004"), r.otp())
	require.NoError(t, err)
	assert.Equal(t, ResultPaid, res.Status, res.Reason)
	assert.Equal(t, []string{imei}, res.Order.IMEIs, "the sale carries the phone's IMEI")
	_, emi := soleTender(t, r.e, res.Order.ID)
	assert.Equal(t, TenderEMI, emi.Tender)
	assert.True(t, emi.IMEIsValidated)
	assert.Equal(t, []string{imei}, emi.IMEIs)
	require.NotNil(t, emi.EMI)
	assert.Equal(t, "HDFC", emi.EMI.Issuer)

	rep, err := r.e.Ledger.Report(ctx, r.e.Today())
	require.NoError(t, err)
	require.Len(t, rep.EMIPlans, 1)
	assert.Equal(t, PlanTotal{Issuer: "HDFC", Program: ProgramBrand, Months: 6, Count: 1, Amount: 7499900}, rep.EMIPlans[0])

	// A full refund frees the IMEI for another sale.
	_, err = r.e.Refunds.Refund(ctx, RefundRequest{OrderID: res.Order.ID, PIN: managerPIN})
	require.NoError(t, err)
	res2, err := sellEMI(ctx, r.e, sale, plan, card("4386280000000004"), r.otp())
	require.NoError(t, err)
	assert.Equal(t, ResultPaid, res2.Status, res2.Reason)
	assert.Equal(t, []string{imei}, res2.Order.IMEIs)
}

func TestEMISchemeErrorsInPlainWords(t *testing.T) {
	r := newRig(t)
	ctx := t.Context()
	sale := r.sale(t, "TV-LG-OLED55C4")
	offers, err := r.e.Payments.EMIOffers(ctx, sale.Lines)
	require.NoError(t, err)
	plan, ok := offers.Find("ICICI", 18, ProgramBank)
	require.True(t, ok)
	_, err = sellEMI(ctx, r.e, sale, plan, card("4386280000000004"), r.otp())
	require.ErrorIs(t, err, ErrOfferNotForCard)
	assert.Contains(t, Sentence(err), "not available on this card")

	stale := plan
	var tenure map[string]any
	require.NoError(t, json.Unmarshal(plan.Tenure, &tenure))
	tenure["monthly_installment"] = tenure["monthly_installment"].(float64) + 1
	stale.Tenure, _ = json.Marshal(tenure)
	_, err = sellEMI(ctx, r.e, sale, stale, card("5522600000000005"), r.otp())
	require.ErrorIs(t, err, ErrOfferOutdated)
	assert.Empty(t, r.sb.Controls.Ledger(), "no order is created for an offer the card does not take")

	lg, ok := offers.Find("ICICI", 6, ProgramBrand)
	require.True(t, ok, "LG's low-cost offer")
	assert.False(t, lg.IMEIRequired)
	res, err := sellEMI(ctx, r.e, sale, lg, card("5522600000000005"), r.otp())
	require.NoError(t, err)
	assert.Equal(t, ResultPaid, res.Status, res.Reason)

	_, err = r.e.Payments.EMIOffers(ctx, r.sale(t, "ACC-CBL").Lines)
	assert.ErrorIs(t, err, ErrNoEMIOffer)
}

func TestRefunds(t *testing.T) {
	r := newRig(t)
	ctx := t.Context()
	res, err := sellCard(ctx, r.e, r.sale(t, "ACC-CASE", "ACC-CBL"), card("4111111111111111"), r.otp())
	require.NoError(t, err)
	id := res.Order.ID

	_, err = r.e.Refunds.Refund(ctx, RefundRequest{OrderID: id, Amount: 1000, PIN: "9999"})
	assert.ErrorIs(t, err, ErrWrongPIN)
	_, err = r.e.Refunds.Refund(ctx, RefundRequest{OrderID: id, Amount: 50, PIN: managerPIN})
	assert.ErrorIs(t, err, ErrNotRefundable, "under the service's minimum")

	rr, err := r.e.Refunds.Refund(ctx, RefundRequest{OrderID: id, Amount: 49900, PIN: managerPIN, Reason: "cable returned"})
	require.NoError(t, err)
	assert.Equal(t, RefundDone, rr.Status, rr.Reason)
	assert.Equal(t, StatePartlyRefunded, rr.Order.State)
	assert.Equal(t, uint64(1), rr.Refund.DocNo, "the first credit note of the year")
	assert.Equal(t, "C"+FinancialYear(rr.Refund.Time), rr.Refund.Series)
	assert.Equal(t, "Meera", rr.Manager.Name)

	_, err = r.e.Refunds.Refund(ctx, RefundRequest{OrderID: id, Amount: 200000, PIN: managerPIN})
	assert.ErrorIs(t, err, ErrNotRefundable, "more than is left")

	r.sb.Controls.Inject(sandbox.EndpointRefund, sandbox.Fault{Kind: sandbox.FaultDrop}, 1)
	rr, err = r.e.Refunds.Refund(ctx, RefundRequest{OrderID: id, PIN: managerPIN})
	require.NoError(t, err)
	assert.Equal(t, RefundDone, rr.Status, "a lost refund answer is settled by inquiry")
	assert.Equal(t, StateRefunded, rr.Order.State)
	assert.Equal(t, id, rr.Order.ID, "the refunds are the sale's")
	_, paid := soleTender(t, r.e, id)
	lo := r.ledger(t, paid.ID) // the money went back through the card tender's order
	assert.Equal(t, int64(199800), lo.RefundedAmount, "refunded once, not twice")

	_, err = r.e.Refunds.Refund(ctx, RefundRequest{OrderID: id, PIN: managerPIN})
	assert.ErrorIs(t, err, ErrNotRefundable)
}

func TestUnconfirmedRefundIsSettledByTheReconciler(t *testing.T) {
	r := newRig(t)
	ctx := t.Context()
	res, err := sellCard(ctx, r.e, r.sale(t, "ACC-CASE"), card("4111111111111111"), r.otp())
	require.NoError(t, err)
	r.sb.Controls.Inject(sandbox.EndpointRefund, sandbox.Fault{Kind: sandbox.FaultReset}, 10)
	r.sb.Controls.Inject(sandbox.EndpointInquireOrder, sandbox.Fault{Kind: sandbox.FaultReset}, 10)
	rr, err := r.e.Refunds.Refund(ctx, RefundRequest{OrderID: res.Order.ID, PIN: managerPIN})
	require.NoError(t, err)
	assert.Equal(t, RefundPending, rr.Status)
	assert.True(t, rr.Order.Unresolved())
	r.sb.Controls.ClearFaults()
	rep, err := r.e.Payments.Reconcile(ctx)
	require.NoError(t, err)
	require.Len(t, rep.Resolved, 1)
	assert.Equal(t, res.Order.ID, rep.Resolved[0].ID, "the sale's refund is settled")
	assert.Equal(t, StateRefunded, rep.Resolved[0].State)
	_, paid := soleTender(t, r.e, res.Order.ID)
	assert.Equal(t, int64(149900), r.ledger(t, paid.ID).RefundedAmount)
}

func TestReportsAndDayClose(t *testing.T) {
	r := newRig(t)
	r.register(t, registeredShop) // its X and Z state GST
	ctx := t.Context()
	day := r.e.Today()
	_, err := sellCash(ctx, r.e, r.sale(t, "ACC-CBL"), Rupees(500))
	require.NoError(t, err)
	paid, err := sellCard(ctx, r.e, r.sale(t, "ACC-CASE"), card("4111111111111111"), r.otp())
	require.NoError(t, err)
	declined, err := sellCard(ctx, r.e, r.sale(t, "ACC-CASE"), card("4000000000000002"), r.otp())
	require.NoError(t, err)
	require.Equal(t, ResultFailed, declined.Status)
	assert.Equal(t, StateFailed, declined.Order.State, "the declined tender")
	refused, err := r.e.Sales.SaleStatus(ctx, declined.Order.Sale)
	require.NoError(t, err)
	assert.Equal(t, StateOpen, refused.Sale.State, "a declined card leaves its sale open")
	assert.True(t, refused.HoldsNoMoney())
	_, err = r.e.Refunds.Refund(ctx, RefundRequest{OrderID: paid.Order.ID, Amount: 10000, PIN: managerPIN})
	require.NoError(t, err)

	x, err := r.e.Ledger.Report(ctx, day)
	require.NoError(t, err)
	assert.Equal(t, "X", x.Kind)
	assert.Equal(t, []TenderTotal{{TenderCard, 1, 149900}, {TenderCash, 1, 49900}}, x.Sales)
	assert.Equal(t, Paise(199800), x.GrossSales)
	assert.Equal(t, Paise(10000), x.Refunded)
	assert.Equal(t, Paise(189800), x.NetSales)
	assert.Equal(t, Count{1, 149900}, x.Failed)
	assert.Equal(t, Paise(49900), x.CashExpected)
	require.Len(t, x.GST, 1)
	assert.Equal(t, Percent(18), x.GST[0].Rate)
	assert.Equal(t, Paise(199800), x.GST[0].Amount)
	assert.Equal(t, x.GST[0].Amount, x.GST[0].Taxable+x.GST[0].Tax)
	assert.Len(t, x.Orders, 3)

	var csvOut bytes.Buffer
	require.NoError(t, x.WriteCSV(&csvOut))
	rows := strings.Split(strings.TrimSpace(csvOut.String()), "\n")
	assert.Len(t, rows, 4, "a header and one row per order")
	assert.Contains(t, csvOut.String(), "PARTLY_REFUNDED")
	var text bytes.Buffer
	require.NoError(t, x.WriteText(&text))
	assert.Contains(t, text.String(), "Cash expected")

	// Another day's report reads nothing of this day.
	other, err := r.e.Ledger.Report(ctx, "2026-11-21")
	require.NoError(t, err)
	assert.Empty(t, other.Orders)

	_, err = r.e.Ledger.CloseDay(ctx, day, "0000")
	assert.ErrorIs(t, err, ErrWrongPIN)
	_, err = r.e.Ledger.CloseDay(ctx, "2026-11-23", managerPIN)
	assert.ErrorIs(t, err, ErrBadDay, "a future day")
	z, err := r.e.Ledger.CloseDay(ctx, day, managerPIN)
	require.NoError(t, err)
	assert.Equal(t, "Z", z.Kind)
	assert.Equal(t, uint64(1), z.ZNo)
	assert.Equal(t, x.NetSales, z.NetSales)
	refused, err = r.e.Sales.SaleStatus(ctx, refused.Sale.ID)
	require.NoError(t, err)
	assert.Equal(t, StateVoided, refused.Sale.State, "the Z drops the declined sale, which holds nothing")

	again, err := r.e.Ledger.Report(ctx, day)
	require.NoError(t, err)
	zj, _ := json.Marshal(z)
	aj, _ := json.Marshal(again)
	assert.JSONEq(t, string(zj), string(aj), "the sealed Z report is returned")
	_, err = r.e.Ledger.CloseDay(ctx, day, managerPIN)
	assert.ErrorIs(t, err, ErrDayClosed, "a Z report is never redone")
	assert.Equal(t, "Sun 22 Nov 2026 is closed (Z 1); nothing was sold after it.", Sentence(err))

	// Selling and refunds go on after the Z, on the same date (ADR 0010): the
	// date's next period.
	after, err := sellCash(ctx, r.e, r.sale(t, "ACC-CBL"), Rupees(500))
	require.NoError(t, err)
	assert.Equal(t, day, after.Order.Day, "the sale after the Z keeps its calendar date")
	assert.Equal(t, day, r.e.Today())
	_, err = r.e.Refunds.Refund(ctx, RefundRequest{OrderID: paid.Order.ID, Amount: 10000, PIN: managerPIN})
	require.NoError(t, err)
	x2, err := r.e.Ledger.XReport(ctx, day)
	require.NoError(t, err)
	assert.Equal(t, "X", x2.Kind)
	assert.Equal(t, 2, x2.Period)
	assert.Equal(t, []TenderTotal{{TenderCash, 1, 49900}}, x2.Sales, "the X report is the open period's")
	whole, err := r.e.Ledger.Report(ctx, day)
	require.NoError(t, err)
	assert.Equal(t, "Day", whole.Kind)
	assert.Equal(t, Paise(249700), whole.GrossSales, "the date's report sums every period")
	assert.Len(t, whole.Orders, 4)
	var wholeText bytes.Buffer
	require.NoError(t, whole.WriteText(&wholeText))
	assert.Contains(t, wholeText.String(), "Day report — 2026-11-22")

	// The second Z of the date closes period 2, numbered on.
	z2, err := r.e.Ledger.CloseDay(ctx, day, managerPIN)
	require.NoError(t, err)
	assert.Equal(t, uint64(2), z2.ZNo)
	assert.Equal(t, 2, z2.Period)
	assert.Equal(t, day, z2.Day)
	assert.Equal(t, Paise(49900), z2.GrossSales)
	require.Len(t, z2.Orders, 1)
	assert.Equal(t, after.Order.ID, z2.Orders[0].OrderID)
	var text2 bytes.Buffer
	require.NoError(t, z2.WriteText(&text2))
	assert.Contains(t, text2.String(), "Z report no. 2 — 2026-11-22, Z 2 of 22 Nov")
	whole, err = r.e.Ledger.Report(ctx, day)
	require.NoError(t, err)
	assert.Equal(t, Paise(249700), whole.GrossSales, "closed, the date's report still sums both periods")
	_, err = r.e.Ledger.CloseDay(ctx, day, managerPIN)
	assert.ErrorIs(t, err, ErrDayClosed, "nothing sold after the second Z")

	// The next day goes on, with the next Z number; the closed date takes no
	// more.
	r.clock.Advance(24 * time.Hour)
	_, err = sellCash(ctx, r.e, r.sale(t, "ACC-CBL"), Rupees(500))
	require.NoError(t, err)
	z3, err := r.e.Ledger.CloseDay(ctx, r.e.Today(), managerPIN)
	require.NoError(t, err)
	assert.Equal(t, uint64(3), z3.ZNo)
	assert.Zero(t, z3.Period)
	_, err = r.e.Ledger.CloseDay(ctx, day, managerPIN)
	assert.ErrorIs(t, err, ErrDayClosed)
}

func TestCancelAnUnpaidOrder(t *testing.T) {
	r := newRig(t)
	ctx := t.Context()
	o, err := openOneTender(ctx, r.e, r.sale(t, "ACC-CASE"), TenderCard, nil, PayOptions{})
	require.NoError(t, err)
	got, err := r.e.Payments.Cancel(ctx, o.ID, "")
	require.NoError(t, err)
	assert.Equal(t, StateAbandoned, got.State)
	_, err = r.e.Payments.PayCard(ctx, o.ID, card("4111111111111111"), r.otp())
	assert.Error(t, err, "an abandoned order takes no payment")

	res, err := sellCard(ctx, r.e, r.sale(t, "ACC-CASE"), card("4000000000000002"), r.otp())
	require.NoError(t, err)
	_, err = r.e.Payments.Cancel(ctx, res.Order.ID, "")
	assert.ErrorIs(t, err, ErrNotCancellable, "a payment was attempted")
	phone, err := sellOnPhone(ctx, r.e, r.sale(t, "ACC-CASE"), PayOptions{})
	require.NoError(t, err)
	_, err = r.e.Payments.Cancel(ctx, phone.ID, "")
	assert.ErrorIs(t, err, ErrNotCancellable, "the phone may still pay")
}

func TestCreateOrderErrors(t *testing.T) {
	t.Run("server fault then success moves to a fresh order", func(t *testing.T) {
		r := newRig(t)
		r.sb.Controls.Inject(sandbox.EndpointCreateOrder, sandbox.Fault{Kind: sandbox.FaultServerError}, 3)
		res, err := sellCard(t.Context(), r.e, r.sale(t, "ACC-CASE"), card("5555555555554444"), PayOptions{})
		require.NoError(t, err)
		assert.Equal(t, ResultPaid, res.Status)
		assert.Equal(t, 1, r.captures())
		st, paid := soleTender(t, r.e, res.Order.ID)
		assert.True(t, st.Complete())
		assert.NotEmpty(t, paid.Replaces, "the tender was paid on a fresh order")
	})
	t.Run("unreachable service fails the order without a fresh one", func(t *testing.T) {
		r := newRig(t)
		gw, err := gateway.New(gateway.Config{BaseURL: "http://127.0.0.1:1", MerchantID: sandbox.DefaultMerchantID,
			AccessCode: sandbox.DefaultAccessCode, Secret: sandbox.DefaultSecret, ReturnURL: "http://127.0.0.1/return",
			Retry: gateway.Retry{Max: -1}, Timeout: time.Second})
		require.NoError(t, err)
		e, err := New(Config{Journal: r.j, Gateway: gw, Clock: r.clock, Customer: Customer{Mobile: "9000000001", Email: "c@example.com"}})
		require.NoError(t, err)
		_, err = sellCard(t.Context(), e, r.sale(t, "ACC-CASE"), card("4111111111111111"), PayOptions{})
		require.ErrorIs(t, err, ErrServiceUnreachable)
		assert.Contains(t, Sentence(err), "cannot be reached")
		day, err := r.j.OrdersByDay(t.Context(), e.Today())
		require.NoError(t, err)
		require.Len(t, day, 2, "the sale and its one tender's order, failed; no fresh ids tried")
		sale := day[0]
		if sale.Tender != TenderSplit {
			sale = day[1]
		}
		st, failed := soleTender(t, e, sale.ID)
		assert.Equal(t, StateOpen, st.Sale.State, "the sale stays open, to be paid another way")
		assert.True(t, st.HoldsNoMoney())
		assert.Equal(t, StateFailed, failed.State)
		assert.Empty(t, failed.MovedTo)
		assert.Equal(t, st.Tenders[0].OrderID, failed.ID)
	})
}

func TestReconcileRunsBeforeTheFirstNewPayment(t *testing.T) {
	r := newRig(t)
	ctx := t.Context()
	r.j.failNext = func(ev Event) error {
		if ev.Kind == EvPaymentAccepted {
			return errors.New("crash")
		}
		return nil
	}
	_, err := sellCard(ctx, r.e, r.sale(t, "ACC-CASE"), card("5555555555554444"), PayOptions{})
	require.Error(t, err)
	r.j.failNext = nil
	before, err := r.j.Unresolved(ctx)
	require.NoError(t, err)
	require.Len(t, before, 1)

	e2, err := New(Config{Journal: r.j, Gateway: r.gw, Clock: r.clock, Customer: Customer{Mobile: "9000000001", Email: "c@example.com"}})
	require.NoError(t, err)
	res, err := sellCard(ctx, e2, r.sale(t, "ACC-CBL"), card("5555555555554444"), PayOptions{})
	require.NoError(t, err)
	assert.Equal(t, ResultPaid, res.Status)
	old, err := r.j.Order(ctx, before[0].ID)
	require.NoError(t, err)
	assert.Equal(t, StatePaid, old.State, "the interrupted sale was resolved before the new payment")
	assert.Equal(t, 2, r.captures())
}

func TestIMEIRefusedByTheService(t *testing.T) {
	r := newRig(t)
	ctx := t.Context()
	sale := r.sale(t, "PH-SAM-S24")
	var apple string
	for _, b := range r.td.Brands {
		if b.Brand == "APPLE" {
			apple = b.TestIMEI
		}
	}
	require.NotEmpty(t, apple)
	sale.Lines[0].IMEIs = []string{apple}
	offers, err := r.e.Payments.EMIOffers(ctx, sale.Lines)
	require.NoError(t, err)
	plan, ok := offers.Find("HDFC", 3, ProgramBrand)
	require.True(t, ok)
	_, err = sellEMI(ctx, r.e, sale, plan, card("4386280000000004"), r.otp())
	var ie *IMEIError
	require.ErrorAs(t, err, &ie)
	require.Len(t, ie.Problems, 1)
	assert.Equal(t, "PH-SAM-S24", ie.Problems[0].SKU)
	assert.Contains(t, Sentence(err), "not a phone of this brand")
	assert.Zero(t, r.captures(), "no payment without validated IMEIs")
	unresolved, err := r.j.Unresolved(ctx)
	require.NoError(t, err)
	assert.Empty(t, unresolved, "the refused order was cancelled, not left open")

	sale.Lines[0].IMEIs = []string{"490154203237519"}
	sale.Lines[0].IMEIs[0] = sale.Lines[0].IMEIs[0][:14] + "0" // a wrong check digit
	_, err = sellEMI(ctx, r.e, sale, plan, card("4386280000000004"), r.otp())
	require.ErrorIs(t, err, ErrBadIMEI, "checked before any call")
}
