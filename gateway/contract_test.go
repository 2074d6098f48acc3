package gateway_test

// Contract tests: the real client against the real sandbox (contract
// ../shared/spec/service-contract.md), over a real socket (httptest.NewServer) and
// in process (Sandbox.Transport). Every endpoint, the error rows of section 2 the
// client can provoke, every test card of section 4, bank and brand EMI, IMEI
// validation, refunds, token expiry and every fault of section 10.

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"galla/gateway"
	"galla/gateway/sandbox"
	"galla/internal/testclock"
)

// env is one sandbox and a client of it.
type env struct {
	sb     *sandbox.Sandbox
	c      *gateway.Client
	clock  *testclock.Clock
	cfg    gateway.Config
	orders atomic.Int64
}

// transports are the two ways the client reaches the sandbox.
var transports = []string{"socket", "in-process"}

func newEnv(t *testing.T, mode string, opts ...sandbox.Option) *env {
	t.Helper()
	e := &env{clock: testclock.New(time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC))}
	sb, err := sandbox.New(append([]sandbox.Option{sandbox.WithClock(e.clock.Now)}, opts...)...)
	require.NoError(t, err)
	e.sb = sb
	e.cfg = gateway.Config{
		MerchantID: sandbox.DefaultMerchantID,
		AccessCode: sandbox.DefaultAccessCode,
		Secret:     sandbox.DefaultSecret,
		ReturnURL:  "http://shop.invalid/return",
		Now:        e.clock.Now,
		Timeout:    2 * time.Second,
		Retry:      gateway.Retry{Max: 3, Base: 5 * time.Millisecond, Cap: 20 * time.Millisecond},
	}
	switch mode {
	case "socket":
		srv := httptest.NewServer(sb)
		t.Cleanup(srv.Close)
		e.cfg.BaseURL = srv.URL
	case "in-process":
		e.cfg.BaseURL = "http://sandbox.test"
		e.cfg.HTTPClient = &http.Client{Transport: sb.Transport()}
	default:
		t.Fatalf("unknown mode %q", mode)
	}
	e.c, err = gateway.New(e.cfg)
	require.NoError(t, err)
	return e
}

// client builds another client of the same sandbox with cfg changed.
func (e *env) client(t *testing.T, mutate func(*gateway.Config)) *gateway.Client {
	t.Helper()
	cfg := e.cfg
	mutate(&cfg)
	c, err := gateway.New(cfg)
	require.NoError(t, err)
	return c
}

var customer = gateway.Customer{CountryCode: "91", Mobile: "9876543210", Email: "asha@example.in"}

// order creates an order of amount paise (with products when given).
func (e *env) order(t *testing.T, amount int64, products ...gateway.ProductAmount) (*gateway.CreateOrderResponse, string) {
	t.Helper()
	moid := fmt.Sprintf("T-%d-%d", time.Now().UnixNano(), e.orders.Add(1))
	res, err := e.c.CreateOrder(t.Context(), &gateway.Order{MerchantOrderID: moid, Amount: amount,
		Description: "contract test", Customer: customer, Products: products})
	require.NoError(t, err)
	require.NotEmpty(t, res.Token)
	require.NotEmpty(t, res.ServiceOrderID)
	return res, moid
}

func testCard(number string) *gateway.Card {
	cvv := "123"
	if strings.HasPrefix(number, "34") || strings.HasPrefix(number, "37") {
		cvv = "1234"
	}
	return gateway.NewCard(number, "12", "2030", cvv, "Asha Rao")
}

// inquire asks for the order and requires a verified answer.
func (e *env) inquire(t *testing.T, id string) *gateway.Inquiry {
	t.Helper()
	q, err := e.c.InquireOrder(t.Context(), id)
	require.NoError(t, err)
	require.True(t, q.Verified)
	return q
}

// ledger returns the sandbox's view of one order.
func (e *env) ledger(t *testing.T, serviceOrderID string) sandbox.LedgerOrder {
	t.Helper()
	for _, o := range e.sb.Controls.Ledger() {
		if o.ServiceOrderID == serviceOrderID {
			return o
		}
	}
	t.Fatalf("order %s is not in the ledger", serviceOrderID)
	return sandbox.LedgerOrder{}
}

func otp(code string) url.Values { return url.Values{"otp": {code}} }

// cardOutcome is what contract section 4 says each test card does.
type cardOutcome struct {
	otp          bool   // the OTP step is needed
	status       string // payment status after it
	pendingFirst bool   // PENDING for 20 s first
}

var cardOutcomes = map[string]cardOutcome{
	"4111111111111111": {true, gateway.PaymentCaptured, false},
	"5555555555554444": {false, gateway.PaymentCaptured, false},
	"378282246310005":  {true, gateway.PaymentCaptured, false},
	"4000000000000002": {true, gateway.PaymentFailed, false},
	"4000000000009995": {true, gateway.PaymentFailed, false},
	"4000000000000119": {true, gateway.PaymentCaptured, true},
	"4000000000000069": {true, gateway.PaymentFailed, false},
	"4386280000000004": {true, gateway.PaymentCaptured, false},
	"5522600000000005": {true, gateway.PaymentCaptured, false},
	"5126520000000005": {true, gateway.PaymentCaptured, false},
}

func TestContractTestDataListsEveryCard(t *testing.T) {
	td := sandbox.TestData()
	var got []string
	for _, c := range td.Cards {
		got = append(got, c.Number)
		card := gateway.NewCard(c.Number, "12", "2030", c.CVV, "A")
		assert.Equal(t, c.Brand, card.Brand(), "brand of %s", card)
		assert.NoError(t, card.Check(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)), "test card %s", card)
	}
	var want []string
	for n := range cardOutcomes {
		want = append(want, n)
	}
	assert.ElementsMatch(t, want, got)
}

// TestContractCards pays with every test card through the OTP step and checks the
// verified outcome.
func TestContractCards(t *testing.T) {
	for _, mode := range transports {
		for number, want := range cardOutcomes {
			t.Run(mode+"/"+number, func(t *testing.T) {
				e := newEnv(t, mode)
				ord, moid := e.order(t, 25000)
				q := e.inquire(t, ord.ServiceOrderID)
				assert.Equal(t, gateway.OrderCreated, q.OrderData.OrderStatus)
				assert.Empty(t, q.PaymentInfoData.PaymentID, "NA before any payment")

				card := testCard(number)
				pay, err := e.c.CardPayment(t.Context(), ord.Token, card, gateway.Customer{})
				require.NoError(t, err)
				card.Zero()
				assert.Equal(t, gateway.CodeSuccess, pay.ResponseCode)
				assert.Equal(t, "SUCCESS", pay.ResponseMessage)
				assert.Equal(t, ord.ServiceOrderID, pay.OrderID)
				assert.Equal(t, int64(25000), pay.AmountInPaise)
				assert.Contains(t, pay.Content, "<form")

				if want.otp {
					q = e.inquire(t, ord.ServiceOrderID)
					assert.Equal(t, gateway.PaymentPending, q.PaymentInfoData.PaymentStatus, "pending until authenticated")
					assert.False(t, q.Charged())
					require.NoError(t, e.c.SubmitAuthentication(t.Context(), pay.Content, otp("123456")))
				}
				if want.pendingFirst {
					q = e.inquire(t, ord.ServiceOrderID)
					assert.Equal(t, gateway.OrderPending, q.OrderData.OrderStatus)
					assert.Equal(t, gateway.PaymentPending, q.PaymentInfoData.PaymentStatus)
					e.clock.Advance(sandbox.PendingHold + time.Second)
				}
				q = e.inquire(t, ord.ServiceOrderID)
				qp, err := e.c.InquirePayment(t.Context(), ord.ServiceOrderID, pay.PaymentID)
				require.NoError(t, err)
				assert.True(t, qp.Verified)
				for _, q := range []*gateway.Inquiry{q, qp} {
					assert.Equal(t, moid, q.MerchantData.OrderID)
					assert.Equal(t, ord.ServiceOrderID, q.ServiceOrderID())
					assert.Equal(t, pay.PaymentID, q.PaymentInfoData.PaymentID)
					assert.Equal(t, int64(25000), q.OrderData.Amount)
					assert.Equal(t, want.status, q.PaymentInfoData.PaymentStatus)
					assert.True(t, strings.HasSuffix(q.PaymentInfoData.MaskedCardNumber, number[len(number)-4:]))
					assert.NotContains(t, string(q.Raw), number, "the full number never comes back")
				}
				led := e.ledger(t, ord.ServiceOrderID)
				require.Len(t, led.Payments, 1)
				if want.status == gateway.PaymentCaptured {
					assert.True(t, q.Charged())
					assert.Equal(t, gateway.OrderCharged, q.OrderData.OrderStatus)
					assert.Equal(t, int64(25000), q.PaymentInfoData.CapturedAmountInPaisa)
					assert.Equal(t, int64(gateway.CodeSuccess), q.PaymentInfoData.PaymentResponseCode)
					_, ok := q.CompletedAt()
					assert.True(t, ok)
					assert.Equal(t, 1, led.CapturedPayments)
					assert.Equal(t, int64(25000), led.CapturedAmount)
				} else {
					assert.True(t, q.Failed())
					assert.False(t, q.Charged())
					assert.NotEqual(t, int64(gateway.CodeSuccess), q.PaymentInfoData.PaymentResponseCode)
					assert.NotEmpty(t, q.PaymentInfoData.PaymentResponseMessage)
					assert.Zero(t, led.CapturedPayments)
				}
			})
		}
	}
}

func TestContractAuthenticationFailures(t *testing.T) {
	for _, mode := range transports {
		t.Run(mode, func(t *testing.T) {
			e := newEnv(t, mode)
			ord, _ := e.order(t, 30000)
			for i, fields := range []url.Values{otp("000000"), {"action": {"cancel"}}} {
				pay, err := e.c.CardPayment(t.Context(), ord.Token, testCard("4111111111111111"), gateway.Customer{})
				require.NoError(t, err, "attempt %d", i+1)
				require.NoError(t, e.c.SubmitAuthentication(t.Context(), pay.Content, fields))
				q, err := e.c.InquirePayment(t.Context(), ord.ServiceOrderID, pay.PaymentID)
				require.NoError(t, err)
				assert.True(t, q.Failed())
				assert.Equal(t, gateway.PaymentFailed, q.PaymentInfoData.PaymentStatus)
				if fields.Has("action") {
					assert.Equal(t, "Cancelled by user", q.PaymentInfoData.PaymentResponseMessage)
				}
			}
			// A third attempt is allowed and succeeds; then the order is paid.
			pay, err := e.c.CardPayment(t.Context(), ord.Token, testCard("4111111111111111"), gateway.Customer{})
			require.NoError(t, err)
			require.NoError(t, e.c.SubmitAuthentication(t.Context(), pay.Content, otp("123456")))
			assert.True(t, e.inquire(t, ord.ServiceOrderID).Charged())
			_, err = e.c.CardPayment(t.Context(), ord.Token, testCard("4111111111111111"), gateway.Customer{})
			assert.ErrorIs(t, err, gateway.ErrAlreadyPaid)
			led := e.ledger(t, ord.ServiceOrderID)
			assert.Len(t, led.Payments, 3)
			assert.Equal(t, 1, led.CapturedPayments)
		})
	}
}

func TestContractAttemptsRunOut(t *testing.T) {
	e := newEnv(t, "in-process")
	ord, _ := e.order(t, 30000)
	for range sandbox.MaxAttempts {
		pay, err := e.c.CardPayment(t.Context(), ord.Token, testCard("4000000000000002"), gateway.Customer{})
		require.NoError(t, err)
		require.NoError(t, e.c.SubmitAuthentication(t.Context(), pay.Content, otp("123456")))
	}
	q := e.inquire(t, ord.ServiceOrderID)
	assert.Equal(t, gateway.OrderFailed, q.OrderData.OrderStatus)
	_, err := e.c.CardPayment(t.Context(), ord.Token, testCard("4111111111111111"), gateway.Customer{})
	require.Error(t, err, "no fourth attempt")
	var ge *gateway.Error
	assert.True(t, errors.As(err, &ge), "a service error: %v", err)
	assert.NotErrorIs(t, err, gateway.ErrOutcomeUnknown)
}

// TestContractErrorRows provokes the rows of contract section 2 through the client.
func TestContractErrorRows(t *testing.T) {
	for _, mode := range transports {
		t.Run(mode, func(t *testing.T) {
			e := newEnv(t, mode)
			ctx := t.Context()
			check := func(t *testing.T, err error, want error, status int) {
				t.Helper()
				require.ErrorIs(t, err, want)
				var ge *gateway.Error
				require.ErrorAs(t, err, &ge)
				assert.Equal(t, status, ge.HTTPStatus)
				assert.NotEmpty(t, ge.Raw)
				assert.NotErrorIs(t, err, gateway.ErrOutcomeUnknown)
			}
			t.Run("1160 wrong secret", func(t *testing.T) {
				c := e.client(t, func(c *gateway.Config) { c.Secret = strings.Repeat("AB", 16) })
				_, err := c.CreateOrder(ctx, &gateway.Order{MerchantOrderID: "X-1160", Amount: 10000})
				check(t, err, gateway.ErrSecureHash, 400)
			})
			t.Run("1130 duplicate order", func(t *testing.T) {
				_, moid := e.order(t, 10000)
				_, err := e.c.CreateOrder(ctx, &gateway.Order{MerchantOrderID: moid, Amount: 10000})
				check(t, err, gateway.ErrDuplicateOrder, 400)
			})
			t.Run("14845 create order", func(t *testing.T) {
				_, err := e.c.CreateOrder(ctx, &gateway.Order{MerchantOrderID: "X-small", Amount: 99})
				check(t, err, gateway.ErrInvalidRequest, 400)
				_, err = e.c.CreateOrder(ctx, &gateway.Order{MerchantOrderID: "bad id!", Amount: 10000})
				check(t, err, gateway.ErrInvalidRequest, 400)
			})
			t.Run("1150 product amounts", func(t *testing.T) {
				_, err := e.c.CreateOrder(ctx, &gateway.Order{MerchantOrderID: "X-1150", Amount: 10000,
					Products: []gateway.ProductAmount{{Code: "LG-WM9KG", Amount: 9000}}})
				check(t, err, gateway.ErrAmountMismatch, 400)
			})
			t.Run("413 too large", func(t *testing.T) {
				_, err := e.c.CreateOrder(ctx, &gateway.Order{MerchantOrderID: "X-413", Amount: 10000,
					Description: strings.Repeat("x", sandbox.MaxBodyBytes)})
				check(t, err, gateway.ErrPayloadTooLarge, 413)
			})
			t.Run("14845 card payment", func(t *testing.T) {
				ord, _ := e.order(t, 10000)
				_, err := e.c.CardPayment(ctx, ord.Token, gateway.NewCard("4111111111111112", "12", "2030", "123", "A"), gateway.Customer{})
				check(t, err, gateway.ErrInvalidRequest, 400)
				_, err = e.c.CardPayment(ctx, ord.Token, gateway.NewCard("4111111111111111", "12", "2020", "123", "A"), gateway.Customer{})
				check(t, err, gateway.ErrInvalidRequest, 400)
				_, err = e.c.CardPayment(ctx, ord.Token, gateway.NewCard("378282246310005", "12", "2030", "123", "A"), gateway.Customer{})
				check(t, err, gateway.ErrInvalidRequest, 400)
				assert.Empty(t, e.ledger(t, ord.ServiceOrderID).Payments)
			})
			t.Run("14845 customer data missing", func(t *testing.T) {
				res, err := e.c.CreateOrder(ctx, &gateway.Order{MerchantOrderID: fmt.Sprintf("X-nocust-%d", time.Now().UnixNano()), Amount: 10000})
				require.NoError(t, err)
				_, err = e.c.CardPayment(ctx, res.Token, testCard("4111111111111111"), gateway.Customer{})
				check(t, err, gateway.ErrInvalidRequest, 400)
				pay, err := e.c.CardPayment(ctx, res.Token, testCard("4111111111111111"), customer)
				require.NoError(t, err, "customer data given with the payment")
				assert.NotEmpty(t, pay.PaymentID)
			})
			t.Run("401 unauthorized", func(t *testing.T) {
				ord, _ := e.order(t, 10000)
				c := e.client(t, func(c *gateway.Config) { c.AccessCode = "wrong" })
				_, err := c.InquireOrder(ctx, ord.ServiceOrderID)
				check(t, err, gateway.ErrUnauthorized, 401)
				_, err = c.InquirePayment(ctx, ord.ServiceOrderID, "1")
				check(t, err, gateway.ErrUnauthorized, 401)
				_, err = c.Refund(ctx, gateway.RefundRequest{UniqueTxnID: "R", AmountInPaise: 100, ServiceOrderID: ord.ServiceOrderID, PaymentID: "1"})
				// Wrong credentials name no merchant whose key could sign the
				// answer, and a refund's unsigned refusal is no refusal (contract
				// section 1): the outcome is unknown.
				require.ErrorIs(t, err, gateway.ErrUnauthorized)
				assert.ErrorIs(t, err, gateway.ErrOutcomeUnknown)
				assert.ErrorIs(t, err, gateway.ErrSignature)
			})
			t.Run("refund refused, signed", func(t *testing.T) {
				ord, pay := e.paid(t, 10000)
				_, err := e.c.Refund(ctx, gateway.RefundRequest{UniqueTxnID: "R-TOO-MUCH", AmountInPaise: 20000,
					ServiceOrderID: ord.ServiceOrderID, PaymentID: pay.PaymentID})
				// Every refund answer is signed, refusals too: this one is the
				// service's word, not an unknown outcome.
				require.Error(t, err)
				assert.NotErrorIs(t, err, gateway.ErrOutcomeUnknown)
				assert.NotErrorIs(t, err, gateway.ErrSignature)
			})
			t.Run("4011 unknown token", func(t *testing.T) {
				_, err := e.c.CardPayment(ctx, "bm90LWEtdG9rZW4%3D", testCard("4111111111111111"), customer)
				check(t, err, gateway.ErrTokenExpired, 401)
			})
			t.Run("404 and 4040", func(t *testing.T) {
				_, err := e.c.InquireOrder(ctx, "999999999")
				check(t, err, gateway.ErrNotFound, 404)
				ord, _ := e.order(t, 10000)
				_, err = e.c.InquirePayment(ctx, ord.ServiceOrderID, "999999999")
				check(t, err, gateway.ErrNotFound, 404)
				var ge *gateway.Error
				require.ErrorAs(t, err, &ge)
				assert.Equal(t, "4040", ge.Code)
			})
		})
	}
}

func TestContractRateLimit(t *testing.T) {
	for _, mode := range transports {
		t.Run(mode, func(t *testing.T) {
			e := newEnv(t, mode, sandbox.WithRateLimit(2, time.Minute))
			c := e.client(t, func(c *gateway.Config) { c.Retry.Max = -1 })
			ord, err := c.CreateOrder(t.Context(), &gateway.Order{MerchantOrderID: "RL-1", Amount: 10000})
			require.NoError(t, err)
			_, err = c.InquireOrder(t.Context(), ord.ServiceOrderID)
			require.NoError(t, err)
			_, err = c.InquireOrder(t.Context(), ord.ServiceOrderID)
			require.ErrorIs(t, err, gateway.ErrRateLimited)
			var ge *gateway.Error
			require.ErrorAs(t, err, &ge)
			assert.Equal(t, http.StatusTooManyRequests, ge.HTTPStatus)
			assert.Positive(t, ge.RetryAfter, "Retry-After is read")
			e.clock.Advance(time.Minute + time.Second)
			_, err = c.InquireOrder(t.Context(), ord.ServiceOrderID)
			assert.NoError(t, err, "a new window")
		})
	}
}

func TestContractTokenExpiry(t *testing.T) {
	for _, mode := range transports {
		t.Run(mode, func(t *testing.T) {
			e := newEnv(t, mode)
			ord, _ := e.order(t, 10000)
			e.clock.Advance(sandbox.TokenLifetime - time.Second)
			_, err := e.c.CardPayment(t.Context(), ord.Token, testCard("4111111111111111"), gateway.Customer{})
			require.NoError(t, err, "still valid just before 30 minutes")

			ord2, _ := e.order(t, 10000)
			e.clock.Advance(sandbox.TokenLifetime + time.Second)
			_, err = e.c.CardPayment(t.Context(), ord2.Token, testCard("4111111111111111"), gateway.Customer{})
			assert.ErrorIs(t, err, gateway.ErrTokenExpired)
			assert.NotErrorIs(t, err, gateway.ErrOutcomeUnknown)
			q := e.inquire(t, ord2.ServiceOrderID)
			assert.Equal(t, gateway.OrderFailed, q.OrderData.OrderStatus, "an unpaid order reads FAILED after expiry")
			assert.Empty(t, e.ledger(t, ord2.ServiceOrderID).Payments)
		})
	}
}

// emiOffer finds the tenure of months from issuer (bank EMI, program 105) or, when
// brand is true, the brand tenure (program 106).
func emiOffer(t *testing.T, offers *gateway.EMIOffers, issuer string, months int, brand bool) gateway.EMITenure {
	t.Helper()
	program := gateway.ProgramBankEMI
	if brand {
		program = gateway.ProgramBrandEMI
	}
	for _, is := range offers.Issuers {
		if is.IssuerName != issuer {
			continue
		}
		for _, tn := range is.Tenures {
			if tn.Months() == months && tn.ProgramType() == program {
				return tn
			}
		}
	}
	t.Fatalf("no %s offer of %d months (program %d)", issuer, months, program)
	return gateway.EMITenure{}
}

// emiOrder creates an order matching a tenure: the tenure's auth amount and its
// products.
func (e *env) emiOrder(t *testing.T, tn gateway.EMITenure) *gateway.CreateOrderResponse {
	t.Helper()
	var products []gateway.ProductAmount
	for _, p := range tn.OfferScheme.ProductDetails {
		products = append(products, gateway.ProductAmount{Code: p.ProductCode, Amount: p.ProductAmount})
	}
	ord, _ := e.order(t, tn.AuthAmount, products...)
	return ord
}

func TestContractBankEMI(t *testing.T) {
	cases := []struct {
		issuer, card, mode string
	}{
		{"HDFC", "4386280000000004", "EMI"},
		{"ICICI", "5522600000000005", "EMI"},
		{"AXIS", "5126520000000005", "DEBIT_EMI"},
	}
	for _, mode := range transports {
		for _, tc := range cases {
			t.Run(mode+"/"+tc.issuer, func(t *testing.T) {
				e := newEnv(t, mode)
				ctx := t.Context()
				products := []gateway.ProductAmount{{Code: "LG-FRIDGE655", Amount: 450000}}
				offers, err := e.c.EMICalculator(ctx, 450000, products)
				require.NoError(t, err)
				assert.Equal(t, int64(sandbox.AcquirerID), offers.AcquirerID)
				tn := emiOffer(t, offers, tc.issuer, 18, false)
				assert.Equal(t, "18", tn.TenureInMonth)
				assert.Positive(t, tn.MonthlyInstallment)
				assert.Equal(t, gateway.SubventionStandard, tn.OfferScheme.ProductDetails[0].SubventionType)

				card := testCard(tc.card)
				defer card.Zero()
				require.NoError(t, e.c.ValidateScheme(ctx, 450000, card, tn, offers.AcquirerID))
				// Another issuer's card: 14826.
				other := "4386280000000004"
				if tc.issuer == "HDFC" {
					other = "5522600000000005"
				}
				err = e.c.ValidateScheme(ctx, 450000, testCard(other), tn, offers.AcquirerID)
				assert.ErrorIs(t, err, gateway.ErrOfferNotApplicable)
				// An amount changed: 14819.
				stale := tn
				stale.MonthlyInstallment++
				err = e.c.ValidateScheme(ctx, 450000, card, stale, offers.AcquirerID)
				assert.ErrorIs(t, err, gateway.ErrOfferOutdated)

				// An invalid body: 14845 in the response_code envelope.
				err = e.c.ValidateScheme(ctx, 450000, card, gateway.EMITenure{}, offers.AcquirerID)
				assert.ErrorIs(t, err, gateway.ErrInvalidRequest)

				ord := e.emiOrder(t, tn)
				_, err = e.c.EMIPayment(ctx, gateway.EMIPaymentRequest{Token: ord.Token, Card: gateway.NewCard(tc.card[:15]+"9", "12", "2030", "123", "A"), Customer: customer, Tenure: tn, AcquirerID: offers.AcquirerID})
				assert.ErrorIs(t, err, gateway.ErrInvalidRequest, "a mistyped card number")
				wrongOrder, _ := e.order(t, tn.AuthAmount-100)
				_, err = e.c.EMIPayment(ctx, gateway.EMIPaymentRequest{Token: wrongOrder.Token, Card: card, Customer: customer, Tenure: tn, AcquirerID: offers.AcquirerID})
				assert.ErrorIs(t, err, gateway.ErrAmountMismatch, "the tenure's amount differs from the order's")
				_, err = e.c.EMIPayment(ctx, gateway.EMIPaymentRequest{Token: ord.Token, Card: card, Customer: customer, Tenure: stale, AcquirerID: offers.AcquirerID})
				assert.ErrorIs(t, err, gateway.ErrOfferOutdated, "the EMI payment validates again")
				pay, err := e.c.EMIPayment(ctx, gateway.EMIPaymentRequest{Token: ord.Token, Card: card, Customer: customer, Tenure: tn, AcquirerID: offers.AcquirerID})
				require.NoError(t, err)
				assert.Equal(t, gateway.CodeEMISuccess, pay.ResponseCode)
				assert.Equal(t, tn.AuthAmount, pay.AmountInPaise)
				require.NoError(t, e.c.SubmitAuthentication(ctx, pay.Content, otp("123456")))
				q := e.inquire(t, ord.ServiceOrderID)
				assert.True(t, q.Charged())
				assert.Equal(t, tc.mode, q.PaymentInfoData.PaymentMode)
				assert.Equal(t, tc.issuer, q.PaymentInfoData.IssuerName)
				led := e.ledger(t, ord.ServiceOrderID)
				assert.Equal(t, 1, led.CapturedPayments)
				assert.Equal(t, tn.AuthAmount, led.CapturedAmount)
			})
		}
	}
}

func TestContractEMICalculatorEdges(t *testing.T) {
	e := newEnv(t, "socket")
	offers, err := e.c.EMICalculator(t.Context(), sandbox.MinEMIAmount-1, []gateway.ProductAmount{{Code: "SONY-WH1000XM5", Amount: sandbox.MinEMIAmount - 1}})
	require.NoError(t, err)
	assert.Empty(t, offers.Issuers, "under ₹3,000: no offer")
	_, err = e.c.EMICalculator(t.Context(), 0, nil)
	assert.ErrorIs(t, err, gateway.ErrInvalidRequest)
}

func TestContractBrandEMIWithIMEI(t *testing.T) {
	td := sandbox.TestData()
	brandIMEI := func(brand string, serial int) string {
		for _, b := range td.Brands {
			if b.Brand == brand {
				return sandbox.TestIMEI(b.TACs[0], serial)
			}
		}
		t.Fatalf("no brand %s", brand)
		return ""
	}
	for _, mode := range transports {
		t.Run(mode, func(t *testing.T) {
			e := newEnv(t, mode)
			ctx := t.Context()
			products := []gateway.ProductAmount{{Code: "SAMSUNG-S24", Amount: 600000}}
			offers, err := e.c.EMICalculator(ctx, 600000, products)
			require.NoError(t, err)
			tn := emiOffer(t, offers, "HDFC", 6, true)
			assert.Equal(t, gateway.SubventionNoCost, tn.OfferScheme.ProductDetails[0].SubventionType)
			card := testCard("4386280000000004")
			require.NoError(t, e.c.ValidateScheme(ctx, 600000, card, tn, offers.AcquirerID))

			ord := e.emiOrder(t, tn)
			_, err = e.c.EMIPayment(ctx, gateway.EMIPaymentRequest{Token: ord.Token, Card: card, Customer: customer, Tenure: tn, AcquirerID: offers.AcquirerID})
			require.ErrorIs(t, err, gateway.ErrIMEIRequired, "IMEI first")

			// Each per-item failure.
			failures := []struct {
				imei string
				code int
			}{
				{"490154203237519", gateway.CodeInvalidIMEI},
				{"12345", gateway.CodeInvalidIMEI},
				{brandIMEI("APPLE", 7), gateway.CodeIMEINotBrand},
			}
			for _, f := range failures {
				res, err := e.c.ValidateIMEI(ctx, ord.Token, []gateway.IMEIItem{{ProductCode: "SAMSUNG-S24", IMEI: f.imei}})
				require.ErrorIs(t, err, gateway.ErrIMEIRejected, "IMEI %s", f.imei)
				require.NotNil(t, res)
				assert.Equal(t, gateway.CodeIMEIFailed, res.ResponseCode)
				require.Len(t, res.Items, 1)
				assert.Equal(t, f.code, res.Items[0].Status.ResponseCode, "IMEI %s", f.imei)
			}

			imei := brandIMEI("SAMSUNG", 11)
			res, err := e.c.ValidateIMEI(ctx, ord.Token, []gateway.IMEIItem{{ProductCode: "SAMSUNG-S24", IMEI: imei}})
			require.NoError(t, err)
			assert.True(t, res.OK())
			res, err = e.c.ValidateIMEI(ctx, ord.Token, []gateway.IMEIItem{{ProductCode: "SAMSUNG-S24", IMEI: imei}})
			require.NoError(t, err, "validating again for the same order is harmless (retries rely on it)")
			assert.True(t, res.OK())

			// The same IMEI on another order is blocked.
			ord2 := e.emiOrder(t, tn)
			res, err = e.c.ValidateIMEI(ctx, ord2.Token, []gateway.IMEIItem{{ProductCode: "SAMSUNG-S24", IMEI: imei}})
			require.ErrorIs(t, err, gateway.ErrIMEIRejected)
			assert.Equal(t, gateway.CodeIMEIBlocked, res.Items[0].Status.ResponseCode)

			pay, err := e.c.EMIPayment(ctx, gateway.EMIPaymentRequest{Token: ord.Token, Card: card, Customer: customer, Tenure: tn, AcquirerID: offers.AcquirerID})
			require.NoError(t, err)
			require.NoError(t, e.c.SubmitAuthentication(ctx, pay.Content, otp("123456")))
			q := e.inquire(t, ord.ServiceOrderID)
			require.True(t, q.Charged())

			// A full refund frees the IMEI for the other order.
			_, err = e.c.Refund(ctx, gateway.RefundRequest{UniqueTxnID: "RF-" + ord.ServiceOrderID, AmountInPaise: tn.AuthAmount,
				ServiceOrderID: ord.ServiceOrderID, PaymentID: pay.PaymentID})
			require.NoError(t, err)
			res, err = e.c.ValidateIMEI(ctx, ord2.Token, []gateway.IMEIItem{{ProductCode: "SAMSUNG-S24", IMEI: imei}})
			require.NoError(t, err)
			assert.True(t, res.OK())
		})
	}
}

func TestContractBrandEMIWithoutIMEI(t *testing.T) {
	e := newEnv(t, "in-process")
	ctx := t.Context()
	offers, err := e.c.EMICalculator(ctx, 900000, []gateway.ProductAmount{{Code: "LG-OLED55C4", Amount: 900000}})
	require.NoError(t, err)
	tn := emiOffer(t, offers, "ICICI", 12, true)
	assert.Equal(t, gateway.SubventionLowCost, tn.OfferScheme.ProductDetails[0].SubventionType)
	card := testCard("5522600000000005")
	require.NoError(t, e.c.ValidateScheme(ctx, 900000, card, tn, offers.AcquirerID))
	ord := e.emiOrder(t, tn)
	pay, err := e.c.EMIPayment(ctx, gateway.EMIPaymentRequest{Token: ord.Token, Card: card, Customer: customer, Tenure: tn, AcquirerID: offers.AcquirerID})
	require.NoError(t, err, "no IMEI needed for LG")
	require.NoError(t, e.c.SubmitAuthentication(ctx, pay.Content, otp("123456")))
	assert.True(t, e.inquire(t, ord.ServiceOrderID).Charged())
}

// paid creates an order of amount and pays it with the frictionless card.
func (e *env) paid(t *testing.T, amount int64) (*gateway.CreateOrderResponse, *gateway.PaymentResponse) {
	t.Helper()
	ord, _ := e.order(t, amount)
	pay, err := e.c.CardPayment(t.Context(), ord.Token, testCard("4111111111111111"), gateway.Customer{})
	require.NoError(t, err)
	require.NoError(t, e.c.SubmitAuthentication(t.Context(), pay.Content, otp("123456")))
	require.True(t, e.inquire(t, ord.ServiceOrderID).Charged())
	return ord, pay
}

func TestContractRefunds(t *testing.T) {
	for _, mode := range transports {
		t.Run(mode, func(t *testing.T) {
			e := newEnv(t, mode)
			ctx := t.Context()
			t.Run("full", func(t *testing.T) {
				ord, pay := e.paid(t, 50000)
				q, err := e.c.Refund(ctx, gateway.RefundRequest{UniqueTxnID: "full-" + ord.ServiceOrderID, AmountInPaise: 50000,
					ServiceOrderID: ord.ServiceOrderID, PaymentID: pay.PaymentID})
				require.NoError(t, err)
				assert.True(t, q.Verified)
				assert.NotEmpty(t, q.PaymentInfoData.RefundID)
				assert.Equal(t, gateway.OrderRefunded, q.OrderData.OrderStatus)
				assert.Equal(t, gateway.PaymentRefunded, q.PaymentInfoData.PaymentStatus)
				assert.Equal(t, int64(50000), q.OrderData.RefundAmount)
				assert.Equal(t, int64(50000), e.ledger(t, ord.ServiceOrderID).RefundedAmount)
			})
			t.Run("partial, over-refund, duplicate", func(t *testing.T) {
				ord, pay := e.paid(t, 50000)
				rr := gateway.RefundRequest{UniqueTxnID: "p1-" + ord.ServiceOrderID, AmountInPaise: 20000,
					ServiceOrderID: ord.ServiceOrderID, PaymentID: pay.PaymentID}
				q, err := e.c.Refund(ctx, rr)
				require.NoError(t, err)
				assert.Equal(t, gateway.OrderPartialRefunded, q.OrderData.OrderStatus)
				assert.Equal(t, gateway.PaymentPartiallyRefunded, q.PaymentInfoData.PaymentStatus)
				assert.Equal(t, int64(20000), q.PaymentInfoData.RefundAmountInPaisa)

				_, err = e.c.Refund(ctx, rr)
				assert.ErrorIs(t, err, gateway.ErrDuplicateRefund, "the same unique_txn_id")

				over := rr
				over.UniqueTxnID, over.AmountInPaise = "p2-"+ord.ServiceOrderID, 30001
				_, err = e.c.Refund(ctx, over)
				assert.ErrorIs(t, err, gateway.ErrInvalidRequest, "more than what is left")
				small := rr
				small.UniqueTxnID, small.AmountInPaise = "p3-"+ord.ServiceOrderID, 99
				_, err = e.c.Refund(ctx, small)
				assert.ErrorIs(t, err, gateway.ErrInvalidRequest, "under 100 paise")

				rest := rr
				rest.UniqueTxnID, rest.AmountInPaise = "p4-"+ord.ServiceOrderID, 30000
				q, err = e.c.Refund(ctx, rest)
				require.NoError(t, err)
				assert.Equal(t, gateway.OrderRefunded, q.OrderData.OrderStatus)
				assert.Equal(t, int64(50000), e.ledger(t, ord.ServiceOrderID).RefundedAmount)
			})
			t.Run("unpaid order", func(t *testing.T) {
				ord, _ := e.order(t, 10000)
				_, err := e.c.Refund(ctx, gateway.RefundRequest{UniqueTxnID: "u-" + ord.ServiceOrderID, AmountInPaise: 100,
					ServiceOrderID: ord.ServiceOrderID, PaymentID: "1"})
				assert.ErrorIs(t, err, gateway.ErrNotFound)
			})
		})
	}
}

// faultCase is one fault on one endpoint and what the client must make of it.
type faultCase struct {
	ep    sandbox.Endpoint
	kind  sandbox.FaultKind
	check func(t *testing.T, e *env)
}

func faultCases() []faultCase {
	var cases []faultCase
	add := func(ep sandbox.Endpoint, kinds []sandbox.FaultKind, check func(t *testing.T, e *env, kind sandbox.FaultKind)) {
		for _, k := range kinds {
			cases = append(cases, faultCase{ep, k, func(t *testing.T, e *env) { check(t, e, k) }})
		}
	}
	all := sandbox.FaultKinds()

	// Create order: retried with the same bytes; an applied-then-lost call comes back
	// as a duplicate; a malformed answer is an unknown outcome; never two orders.
	add(sandbox.EndpointCreateOrder, all, func(t *testing.T, e *env, kind sandbox.FaultKind) {
		moid := "F-" + string(kind)
		e.sb.Controls.Inject(sandbox.EndpointCreateOrder, fault(kind), 1)
		res, err := e.c.CreateOrder(t.Context(), &gateway.Order{MerchantOrderID: moid, Amount: 10000, Customer: customer})
		switch kind {
		case sandbox.FaultDrop:
			assert.ErrorIs(t, err, gateway.ErrDuplicateOrder, "applied, answer lost, retry is a duplicate")
			assert.NotErrorIs(t, err, gateway.ErrOutcomeUnknown)
		case sandbox.FaultMalformedJSON:
			assert.ErrorIs(t, err, gateway.ErrOutcomeUnknown)
			assert.ErrorIs(t, err, gateway.ErrMalformed)
		default:
			require.NoError(t, err)
			assert.NotEmpty(t, res.ServiceOrderID)
		}
		n := 0
		for _, o := range e.sb.Controls.Ledger() {
			if o.MerchantOrderID == moid {
				n++
			}
		}
		assert.Equal(t, 1, n, "exactly one order")
	})

	// Card payment: never re-sent; a possibly-applied call is an unknown outcome; at
	// most one payment in the ledger.
	add(sandbox.EndpointCardPayment, all, func(t *testing.T, e *env, kind sandbox.FaultKind) {
		ord, _ := e.order(t, 10000)
		e.sb.Controls.Inject(sandbox.EndpointCardPayment, fault(kind), 1)
		pay, err := e.c.CardPayment(t.Context(), ord.Token, testCard("5555555555554444"), gateway.Customer{})
		led := e.ledger(t, ord.ServiceOrderID)
		switch kind {
		case sandbox.FaultServerError, sandbox.FaultHang, sandbox.FaultReset:
			assert.ErrorIs(t, err, gateway.ErrOutcomeUnknown)
			assert.Empty(t, led.Payments, "not applied")
		case sandbox.FaultDrop, sandbox.FaultMalformedJSON:
			assert.ErrorIs(t, err, gateway.ErrOutcomeUnknown)
			assert.Len(t, led.Payments, 1, "applied once, never re-sent")
		case sandbox.FaultWrongAmount:
			require.NoError(t, err)
			assert.NotEqual(t, int64(10000), pay.AmountInPaise, "the wrong amount is passed on for the caller's check")
			assert.Len(t, led.Payments, 1)
		default: // delay, bad signature: the payment answer carries no signature
			require.NoError(t, err)
			assert.Len(t, led.Payments, 1)
		}
		if err != nil {
			// The outcome is found by inquiry, never by paying again.
			q := e.inquire(t, ord.ServiceOrderID)
			assert.Equal(t, len(led.Payments) == 1, q.PaymentInfoData.PaymentID != "")
		}
	})

	// EMI payment: the same rules.
	add(sandbox.EndpointEMIPayment, all, func(t *testing.T, e *env, kind sandbox.FaultKind) {
		offers, err := e.c.EMICalculator(t.Context(), 450000, []gateway.ProductAmount{{Code: "LG-FRIDGE655", Amount: 450000}})
		require.NoError(t, err)
		tn := emiOffer(t, offers, "HDFC", 3, false)
		ord := e.emiOrder(t, tn)
		e.sb.Controls.Inject(sandbox.EndpointEMIPayment, fault(kind), 1)
		_, err = e.c.EMIPayment(t.Context(), gateway.EMIPaymentRequest{Token: ord.Token, Card: testCard("4386280000000004"), Customer: customer, Tenure: tn, AcquirerID: offers.AcquirerID})
		led := e.ledger(t, ord.ServiceOrderID)
		switch kind {
		case sandbox.FaultServerError, sandbox.FaultHang, sandbox.FaultReset:
			assert.ErrorIs(t, err, gateway.ErrOutcomeUnknown)
			assert.Empty(t, led.Payments)
		case sandbox.FaultDrop, sandbox.FaultMalformedJSON:
			assert.ErrorIs(t, err, gateway.ErrOutcomeUnknown)
			assert.Len(t, led.Payments, 1)
		default:
			require.NoError(t, err)
			assert.Len(t, led.Payments, 1)
		}
	})

	// Reads: retried until a good answer, except a bad signature, which is reported.
	for _, ep := range []sandbox.Endpoint{sandbox.EndpointInquireOrder, sandbox.EndpointInquirePayment} {
		add(ep, all, func(t *testing.T, e *env, kind sandbox.FaultKind) {
			ord, pay := e.paid(t, 10000)
			e.sb.Controls.Inject(ep, fault(kind), 1)
			var q *gateway.Inquiry
			var err error
			if ep == sandbox.EndpointInquireOrder {
				q, err = e.c.InquireOrder(t.Context(), ord.ServiceOrderID)
			} else {
				q, err = e.c.InquirePayment(t.Context(), ord.ServiceOrderID, pay.PaymentID)
			}
			switch kind {
			case sandbox.FaultBadSignature:
				assert.ErrorIs(t, err, gateway.ErrSignature)
				require.NotNil(t, q)
				assert.False(t, q.Verified)
				assert.False(t, q.Charged(), "unverified is never success")
				assert.False(t, q.Failed(), "nor failure")
			case sandbox.FaultWrongAmount:
				require.NoError(t, err)
				assert.True(t, q.Verified, "re-signed by the service")
				assert.NotEqual(t, int64(10000), q.OrderData.Amount, "only the caller's amount check catches it")
			default:
				require.NoError(t, err)
				assert.True(t, q.Charged())
				assert.Equal(t, int64(10000), q.OrderData.Amount)
			}
		})
	}

	// Refund: retried with the same unique id; never applied twice.
	add(sandbox.EndpointRefund, all, func(t *testing.T, e *env, kind sandbox.FaultKind) {
		ord, pay := e.paid(t, 10000)
		e.sb.Controls.Inject(sandbox.EndpointRefund, fault(kind), 1)
		q, err := e.c.Refund(t.Context(), gateway.RefundRequest{UniqueTxnID: "RF-" + string(kind), AmountInPaise: 4000,
			ServiceOrderID: ord.ServiceOrderID, PaymentID: pay.PaymentID})
		switch kind {
		case sandbox.FaultDrop:
			// Applied, answer lost; the retry's signed 1170 says it is done
			// (the caller inquires: "already done").
			assert.ErrorIs(t, err, gateway.ErrDuplicateRefund, "applied, answer lost, the retry finds it done")
			assert.NotErrorIs(t, err, gateway.ErrOutcomeUnknown, "a signed duplicate is the service's word")
			assert.Equal(t, int64(4000), e.inquire(t, ord.ServiceOrderID).OrderData.RefundAmount, "the inquiry shows the refund")
		case sandbox.FaultMalformedJSON:
			assert.ErrorIs(t, err, gateway.ErrOutcomeUnknown)
		case sandbox.FaultBadSignature:
			assert.ErrorIs(t, err, gateway.ErrSignature)
			assert.ErrorIs(t, err, gateway.ErrOutcomeUnknown)
			require.NotNil(t, q)
			assert.False(t, q.Verified)
		case sandbox.FaultWrongAmount:
			require.NoError(t, err)
			assert.NotEqual(t, int64(10000), q.OrderData.Amount)
		default:
			require.NoError(t, err)
			assert.True(t, q.Verified)
		}
		assert.Equal(t, int64(4000), e.ledger(t, ord.ServiceOrderID).RefundedAmount, "refunded exactly once")
	})

	// Calculator, scheme and IMEI validation: retried until a good answer.
	add(sandbox.EndpointEMICalculator, all, func(t *testing.T, e *env, kind sandbox.FaultKind) {
		e.sb.Controls.Inject(sandbox.EndpointEMICalculator, fault(kind), 1)
		offers, err := e.c.EMICalculator(t.Context(), 450000, []gateway.ProductAmount{{Code: "LG-FRIDGE655", Amount: 450000}})
		require.NoError(t, err)
		assert.NotEmpty(t, offers.Issuers)
	})
	add(sandbox.EndpointSchemeValidation, all, func(t *testing.T, e *env, kind sandbox.FaultKind) {
		offers, err := e.c.EMICalculator(t.Context(), 450000, []gateway.ProductAmount{{Code: "LG-FRIDGE655", Amount: 450000}})
		require.NoError(t, err)
		tn := emiOffer(t, offers, "HDFC", 3, false)
		e.sb.Controls.Inject(sandbox.EndpointSchemeValidation, fault(kind), 1)
		assert.NoError(t, e.c.ValidateScheme(t.Context(), 450000, testCard("4386280000000004"), tn, offers.AcquirerID))
	})
	add(sandbox.EndpointIMEIValidation, all, func(t *testing.T, e *env, kind sandbox.FaultKind) {
		offers, err := e.c.EMICalculator(t.Context(), 600000, []gateway.ProductAmount{{Code: "SAMSUNG-S24", Amount: 600000}})
		require.NoError(t, err)
		ord := e.emiOrder(t, emiOffer(t, offers, "HDFC", 3, true))
		var tac string
		for _, b := range sandbox.TestData().Brands {
			if b.Brand == "SAMSUNG" {
				tac = b.TACs[0]
			}
		}
		e.sb.Controls.Inject(sandbox.EndpointIMEIValidation, fault(kind), 1)
		res, err := e.c.ValidateIMEI(t.Context(), ord.Token, []gateway.IMEIItem{{ProductCode: "SAMSUNG-S24", IMEI: sandbox.TestIMEI(tac, 500)}})
		require.NoError(t, err, "a retried validation of the same order still succeeds")
		assert.True(t, res.OK())
	})

	// The authentication step: never re-sent; a lost answer is an unknown outcome
	// that the inquiry resolves.
	add(sandbox.EndpointACS, all, func(t *testing.T, e *env, kind sandbox.FaultKind) {
		ord, _ := e.order(t, 10000)
		pay, err := e.c.CardPayment(t.Context(), ord.Token, testCard("4111111111111111"), gateway.Customer{})
		require.NoError(t, err)
		e.sb.Controls.Inject(sandbox.EndpointACS, fault(kind), 1)
		err = e.c.SubmitAuthentication(t.Context(), pay.Content, otp("123456"))
		q := e.inquire(t, ord.ServiceOrderID)
		switch kind {
		case sandbox.FaultServerError, sandbox.FaultHang, sandbox.FaultReset:
			assert.ErrorIs(t, err, gateway.ErrOutcomeUnknown)
			assert.False(t, q.Charged(), "not applied")
		case sandbox.FaultDrop:
			assert.ErrorIs(t, err, gateway.ErrOutcomeUnknown)
			assert.True(t, q.Charged(), "applied; the inquiry tells")
		default:
			assert.NoError(t, err)
			assert.True(t, q.Charged())
		}
		assert.LessOrEqual(t, e.ledger(t, ord.ServiceOrderID).CapturedPayments, 1)
	})
	return cases
}

func fault(kind sandbox.FaultKind) sandbox.Fault {
	return sandbox.Fault{Kind: kind, Delay: 50 * time.Millisecond}
}

// TestContractFaults runs every fault of contract section 10 on every endpoint.
func TestContractFaults(t *testing.T) {
	covered := map[sandbox.Endpoint]int{}
	for _, fc := range faultCases() {
		covered[fc.ep]++
	}
	for _, ep := range sandbox.Endpoints() {
		assert.Equal(t, len(sandbox.FaultKinds()), covered[ep], "every fault on %s", ep)
	}
	for _, mode := range transports {
		for _, fc := range faultCases() {
			t.Run(fmt.Sprintf("%s/%s/%s", mode, fc.ep, fc.kind), func(t *testing.T) {
				e := newEnv(t, mode)
				// A short deadline for the hang fault; longer than the delay fault.
				e.c = e.client(t, func(c *gateway.Config) { c.Timeout = 400 * time.Millisecond })
				fc.check(t, e)
			})
		}
	}
}

// TestContractDelayBeyondDeadline: a delayed answer the client gave up on is not
// applied by the sandbox; a read is retried, a payment is not.
func TestContractDelayBeyondDeadline(t *testing.T) {
	for _, mode := range transports {
		t.Run(mode, func(t *testing.T) {
			e := newEnv(t, mode)
			e.c = e.client(t, func(c *gateway.Config) { c.Timeout = 100 * time.Millisecond })
			ord, _ := e.order(t, 10000)
			e.sb.Controls.Inject(sandbox.EndpointCardPayment, sandbox.Fault{Kind: sandbox.FaultDelay, Delay: time.Second}, 1)
			_, err := e.c.CardPayment(t.Context(), ord.Token, testCard("4111111111111111"), gateway.Customer{})
			assert.ErrorIs(t, err, gateway.ErrOutcomeUnknown)
			assert.ErrorIs(t, err, context.DeadlineExceeded)
			assert.LessOrEqual(t, len(e.ledger(t, ord.ServiceOrderID).Payments), 1)

			e.sb.Controls.Inject(sandbox.EndpointInquireOrder, sandbox.Fault{Kind: sandbox.FaultDelay, Delay: time.Second}, 1)
			q, err := e.c.InquireOrder(t.Context(), ord.ServiceOrderID)
			require.NoError(t, err, "the read is retried")
			assert.True(t, q.Verified)
		})
	}
}

// TestContractPaymentIDsAreText checks the lenient decoding of the ids the sandbox
// sends as numbers.
func TestContractPaymentIDsAreText(t *testing.T) {
	e := newEnv(t, "in-process", sandbox.WithIDs(sandbox.Sequential()))
	ord, _ := e.order(t, 10000)
	assert.Equal(t, "100000001", ord.ServiceOrderID)
	assert.Contains(t, ord.Token, "%3D", "the sequential token needs URL encoding")
	pay, err := e.c.CardPayment(t.Context(), ord.Token, testCard("4111111111111111"), gateway.Customer{})
	require.NoError(t, err, "the token was sent verbatim, encoded once")
	_, err = strconv.ParseInt(pay.PaymentID, 10, 64)
	assert.NoError(t, err)
	assert.Equal(t, ord.ServiceOrderID, pay.OrderID)
}

// ExampleClient pays an order with a test card against the in-process sandbox: create
// order, card payment, the OTP step without a browser, and the verified status.
func ExampleClient() {
	now := func() time.Time { return time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC) }
	sb, err := sandbox.New(sandbox.WithClock(now), sandbox.WithIDs(sandbox.Sequential()))
	if err != nil {
		panic(err)
	}
	c, err := gateway.New(gateway.Config{
		BaseURL:    "http://sandbox.test",
		MerchantID: sandbox.DefaultMerchantID,
		AccessCode: sandbox.DefaultAccessCode,
		Secret:     sandbox.DefaultSecret,
		ReturnURL:  "http://shop.invalid/return",
		HTTPClient: &http.Client{Transport: sb.Transport()},
		Now:        now,
	})
	if err != nil {
		panic(err)
	}
	ctx := context.Background()
	order, err := c.CreateOrder(ctx, &gateway.Order{MerchantOrderID: "SALE-0001", Amount: 129900,
		Customer: gateway.Customer{CountryCode: "91", Mobile: "9876543210", Email: "asha@example.in"}})
	if err != nil {
		panic(err)
	}
	card := gateway.NewCard("4111 1111 1111 1111", "12", "2030", "123", "Asha Rao")
	pay, err := c.CardPayment(ctx, order.Token, card, gateway.Customer{})
	shown := card.String() // what may be printed or journaled
	card.Zero()            // the digits are not needed any more
	if err != nil {
		panic(err)
	}
	if err := c.SubmitAuthentication(ctx, pay.Content, url.Values{"otp": {"123456"}}); err != nil {
		panic(err)
	}
	q, err := c.InquireOrder(ctx, order.ServiceOrderID)
	if err != nil {
		panic(err)
	}
	fmt.Println(shown, q.ServiceOrderID(), q.Verified, q.OrderData.OrderStatus, q.PaymentInfoData.PaymentStatus, q.OrderData.Amount)
	// Output:
	// VISA •••• 1111 100000001 true CHARGED CAPTURED 129900
}
