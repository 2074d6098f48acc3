//go:build unix

package crashtest

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"galla/gateway"
	"galla/gateway/sandbox"
	"galla/internal/testclock"
	"galla/pos"
	"galla/pos/journal"
)

// The environment of the helper process.
const (
	envHelper  = "GALLA_CRASH_HELPER"  // "1": this process is the helper
	envJournal = "GALLA_CRASH_JOURNAL" // the journal file
	envURL     = "GALLA_CRASH_URL"     // the sandbox's base URL
	envFlow    = "GALLA_CRASH_FLOW"    // one of the flows below
	envCard    = "GALLA_CRASH_CARD"    // the test card number (flowPhone: the card paid with on the phone)
	envAt      = "GALLA_CRASH_AT"      // the kill point: before:N, after:N (journal commits) or poll:N (inquiries)
	envOrder   = "GALLA_CRASH_ORDER"   // flowRefund: the paid order to refund
)

// The flows a helper runs.
const (
	flowCard   = "card"   // a sale paid by one card tender, with the sandbox's OTP step
	flowEMI    = "emi"    // a sale paid by one brand-EMI tender, with an IMEI and the OTP step
	flowRefund = "refund" // a partial refund of a sale paid by card
	flowRetry  = "retry"  // a sale's card tender declined, then a second attempt on the same order
	flowPhone  = "phone"  // a sale paid on the customer's phone (iFrame mode), awaited by the terminal

	// flowReconcile is the restarted terminal's own Reconcile, for a second crash.
	flowReconcile = "reconcile"
)

const (
	managerPIN   = "432100"
	cardCVV      = "123"
	refundAmount = pos.Paise(49900)
	// expireToken moves the sandbox past the order token's lifetime: a payment whose
	// customer never authenticated fails.
	expireToken = sandbox.TokenLifetime + time.Minute
	// releaseHold moves the sandbox past the pending card's hold: it is captured.
	releaseHold = sandbox.PendingHold + time.Second
)

const (
	cardOTP     = "4111111111111111" // approved after the OTP step
	cardFrictio = "5555555555554444" // captured at once, no OTP step
	cardSlow    = "4000000000000119" // PENDING for 20 s after the OTP, then captured
	cardHDFC    = "4386280000000004" // HDFC credit card: brand EMI
	cardDecline = "4000000000000002" // declined by the issuer after the OTP step
)

const catalogJSON = `[
 {"sku":"PH-SAM-S24","name":"Samsung Galaxy S24","brand":"Samsung","product_code":"SAMSUNG-S24","price":"74999.00","gst_rate":18,"hsn":"8517","serialised":true},
 {"sku":"ACC-CASE","name":"Phone case","price":"1499.00","gst_rate":18,"hsn":"3926"},
 {"sku":"ACC-CBL","name":"Cable","price":"499.00","gst_rate":18,"hsn":"8544"}
]`

// TestMain runs the helper instead of the tests when the environment says so: the
// crash tests re-execute this test binary as the process they kill.
func TestMain(m *testing.M) {
	if os.Getenv(envHelper) == "1" {
		os.Exit(helperMain())
	}
	os.Exit(m.Run())
}

// ---- the helper process ----

// helperMain runs one flow and is killed at its kill point. Reaching the end is a
// failure the parent reports (exit 3): the kill point was never reached.
func helperMain() int {
	res, err := runHelper(context.Background())
	if err != nil {
		fmt.Fprintln(os.Stderr, "crash helper:", err)
		return 2
	}
	fmt.Fprintln(os.Stderr, "crash helper: finished without reaching its kill point:", res)
	return 3
}

func runHelper(ctx context.Context) (string, error) {
	kind, n, err := parseAt(os.Getenv(envAt))
	if err != nil {
		return "", err
	}
	j, err := journal.Open(os.Getenv(envJournal), journal.Options{})
	if err != nil {
		return "", err
	}
	client, err := newClient(os.Getenv(envURL))
	if err != nil {
		return "", err
	}
	cj := &killJournal{Journal: j.Port()}
	var gw pos.Gateway = client
	switch kind {
	case "before":
		cj.before = n
	case "after":
		cj.after = n
	case "poll":
		gw = &killGateway{Gateway: client, at: n}
	}
	e, err := newEngine(cj, gw, testclock.Real(time.Millisecond))
	if err != nil {
		return "", err
	}
	switch flow := os.Getenv(envFlow); flow {
	case flowCard, flowEMI:
		res, _, err := checkout(ctx, e, client, flow, os.Getenv(envCard))
		if err != nil {
			return "", err
		}
		return string(res.Status) + " " + res.Reason, nil
	case flowRetry:
		res, saleID, err := checkout(ctx, e, client, flowCard, cardDecline)
		if err != nil {
			return "", err
		}
		if res.Status != pos.ResultFailed || !res.CanRetry {
			return "", fmt.Errorf("the declined card ended %s: %s", res.Status, res.Reason)
		}
		res, err = settled(ctx, e, saleID)(e.Payments.PayCard(ctx, res.Order.ID, newCard(os.Getenv(envCard)), payOptions(client)))
		if err != nil {
			return "", err
		}
		return string(res.Status) + " " + res.Reason, nil
	case flowPhone:
		sale, err := newSale(flowCard)
		if err != nil {
			return "", err
		}
		s, err := e.Sales.OpenSale(ctx, sale)
		if err != nil {
			return "", err
		}
		o, err := e.Sales.OpenSaleTender(ctx, s.ID, pos.TenderPhone, 0, nil, sale.Staff, pos.PayOptions{})
		if err != nil {
			return "", err
		}
		if err := payOnPhone(ctx, client, o.Token, os.Getenv(envCard)); err != nil {
			return "", err
		}
		res, err := settled(ctx, e, s.ID)(e.Payments.Await(ctx, o.ID, pos.PayOptions{Wait: 2 * time.Minute}))
		if err != nil {
			return "", err
		}
		return string(res.Status) + " " + res.Reason, nil
	case flowSplit:
		return splitSale(ctx, e, client, os.Getenv(envCard))
	case flowVoid:
		return voidSale(ctx, e, os.Getenv(envOrder))
	case flowSalePath:
		return salePath(ctx, e, os.Getenv(envCard))
	case flowCancel:
		return cancelInvoice(ctx, e, os.Getenv(envOrder))
	case flowShift:
		return shiftHelper(ctx, e)
	case flowStock, flowStockSend, flowStockArrive, flowStockCount:
		return stockHelper(ctx, e, flow)
	case flowReconcile:
		rep, err := e.Payments.Reconcile(ctx)
		if err != nil {
			return "", err
		}
		return fmt.Sprintf("%d resolved, %d open", len(rep.Resolved), len(rep.Open)), nil
	case flowRefund:
		rr, err := e.Refunds.Refund(ctx, pos.RefundRequest{OrderID: os.Getenv(envOrder), Amount: refundAmount, PIN: managerPIN, Reason: "cable returned"})
		if err != nil {
			return "", err
		}
		return string(rr.Status) + " " + rr.Reason, nil
	default:
		return "", fmt.Errorf("unknown flow %q", flow)
	}
}

func parseAt(s string) (string, int, error) {
	kind, num, ok := strings.Cut(s, ":")
	n, err := strconv.Atoi(num)
	if !ok || err != nil || n < 1 || (kind != "before" && kind != "after" && kind != "poll") {
		return "", 0, fmt.Errorf("bad kill point %q", s)
	}
	return kind, n, nil
}

// die kills this process with SIGKILL: no deferred function, no flush, no close.
func die() {
	_ = syscall.Kill(os.Getpid(), syscall.SIGKILL)
	for {
		time.Sleep(time.Second)
	}
}

// killJournal counts the commits of the real journal and kills the process just
// before the commit numbered before, or just after the one numbered after.
type killJournal struct {
	pos.Journal
	before, after int
	n             atomic.Int64
}

// Append commits ev through the real journal, dying at the kill point.
func (k *killJournal) Append(ctx context.Context, ev pos.Event) (pos.Event, error) {
	n := int(k.n.Add(1))
	if n == k.before {
		die()
	}
	out, err := k.Journal.Append(ctx, ev)
	if n == k.after {
		die()
	}
	return out, err
}

// AppendBatch commits evs through the real journal as one commit, dying at the
// kill point as Append does.
func (k *killJournal) AppendBatch(ctx context.Context, evs []pos.Event) ([]pos.Event, error) {
	n := int(k.n.Add(1))
	if n == k.before {
		die()
	}
	out, err := k.Journal.AppendBatch(ctx, evs)
	if n == k.after {
		die()
	}
	return out, err
}

// killGateway kills the process as its at-th status inquiry is about to be sent.
type killGateway struct {
	pos.Gateway
	at int
	n  atomic.Int64
}

func (k *killGateway) tick() {
	if int(k.n.Add(1)) == k.at {
		die()
	}
}

// InquireOrder counts the inquiry, then asks the service.
func (k *killGateway) InquireOrder(ctx context.Context, serviceOrderID string) (*gateway.Inquiry, error) {
	k.tick()
	return k.Gateway.InquireOrder(ctx, serviceOrderID)
}

// InquirePayment counts the inquiry, then asks the service.
func (k *killGateway) InquirePayment(ctx context.Context, serviceOrderID, paymentID string) (*gateway.Inquiry, error) {
	k.tick()
	return k.Gateway.InquirePayment(ctx, serviceOrderID, paymentID)
}

// ---- shared by the helper and the parent ----

func newClient(baseURL string) (*gateway.Client, error) {
	return gateway.New(gateway.Config{
		BaseURL: baseURL, MerchantID: sandbox.DefaultMerchantID, AccessCode: sandbox.DefaultAccessCode,
		Secret: sandbox.DefaultSecret, ReturnURL: "http://127.0.0.1/return", Timeout: 10 * time.Second,
		Retry: gateway.Retry{Max: 2, Base: 5 * time.Millisecond, Cap: 20 * time.Millisecond},
	})
}

func newEngine(j pos.Journal, gw pos.Gateway, clock pos.Clock) (*pos.Engine, error) {
	return pos.New(pos.Config{Journal: j, Gateway: gw, Clock: clock,
		Customer: pos.Customer{Mobile: "9000000001", Email: "counter@example.com"}})
}

func newCard(number string) *gateway.Card {
	return gateway.NewCard(number, "12", "2030", cardCVV, "Test Holder")
}

func payOptions(gw pos.Gateway) pos.PayOptions {
	return pos.PayOptions{Auth: pos.SandboxOTP(gw, sandbox.TestOTP), Wait: 2 * time.Minute}
}

// newSale is the flow's cart: two accessories for a card sale, a Samsung phone
// with its IMEI for a brand-EMI sale.
func newSale(flow string) (pos.Sale, error) {
	cat, err := pos.LoadCatalogJSON([]byte(catalogJSON))
	if err != nil {
		return pos.Sale{}, err
	}
	c := pos.NewCart(cat)
	skus := []string{"ACC-CASE", "ACC-CBL"}
	if flow == flowEMI {
		skus = []string{"PH-SAM-S24"}
	}
	for _, sku := range skus {
		if _, err := c.Add(sku, 1); err != nil {
			return pos.Sale{}, err
		}
	}
	lines, _, err := c.Checkout()
	if err != nil {
		return pos.Sale{}, err
	}
	if flow == flowEMI {
		for _, b := range sandbox.TestData().Brands {
			if b.Brand == "SAMSUNG" {
				lines[0].IMEIs = []string{b.TestIMEI}
			}
		}
	}
	return pos.Sale{Lines: lines, Staff: "001"}, nil
}

// emiPlan is HDFC's no-cost 6-month Samsung offer.
func emiPlan(ctx context.Context, e *pos.Engine, sale pos.Sale) (pos.EMIPlan, error) {
	offers, err := e.Payments.EMIOffers(ctx, sale.Lines)
	if err != nil {
		return pos.EMIPlan{}, err
	}
	plan, ok := offers.Find("HDFC", 6, pos.ProgramBrand)
	if !ok {
		return pos.EMIPlan{}, errors.New("no HDFC brand offer of 6 months")
	}
	return plan, nil
}

// payOnPhone is the customer paying an order on the phone: the hosted page sends
// the payment itself; the card never passes the terminal.
func payOnPhone(ctx context.Context, client *gateway.Client, token, number string) error {
	_, err := client.CardPayment(ctx, token, newCard(number), gateway.Customer{CountryCode: "91", Mobile: "9000000002", Email: "customer@example.com"})
	return err
}

// checkout sells the flow's cart on the sale path, as the counter does: the
// sale opened (Sales.OpenSale), its one tender for the whole amount opened at
// the service (for brand EMI with the phone's IMEI) and paid, and the sale
// settled once the tender is paid. It returns the tender's result (its Order
// the sale's once complete, the tender's otherwise) and the sale's id.
func checkout(ctx context.Context, e *pos.Engine, gw pos.Gateway, flow, number string) (*pos.Result, string, error) {
	sale, err := newSale(flow)
	if err != nil {
		return nil, "", err
	}
	s, err := e.Sales.OpenSale(ctx, sale)
	if err != nil {
		return nil, "", err
	}
	res, err := payTender(ctx, e, gw, flow, s.ID, number)
	return res, s.ID, err
}

// payTender opens a tender of the flow's kind for what is left of open sale
// saleID and pays it with the card number, settling the sale once it is paid.
func payTender(ctx context.Context, e *pos.Engine, gw pos.Gateway, flow, saleID, number string) (*pos.Result, error) {
	st, err := e.Sales.SaleStatus(ctx, saleID)
	if err != nil {
		return nil, err
	}
	if flow == flowEMI {
		sale := pos.Sale{Lines: st.Sale.Lines, Staff: "001"}
		plan, err := emiPlan(ctx, e, sale)
		if err != nil {
			return nil, err
		}
		o, err := e.Sales.OpenSaleTenderChecked(ctx, saleID, 0, plan, "001", payOptions(gw), imeisOf(sale.Lines)...)
		if err != nil {
			return nil, err
		}
		return settled(ctx, e, saleID)(e.Payments.PayEMI(ctx, o.ID, newCard(number), payOptions(gw)))
	}
	o, err := e.Sales.OpenSaleTender(ctx, saleID, pos.TenderCard, 0, nil, "001", payOptions(gw))
	if err != nil {
		return nil, err
	}
	return settled(ctx, e, saleID)(e.Payments.PayCard(ctx, o.ID, newCard(number), payOptions(gw)))
}

// settled settles sale saleID once its tender's payment returned paid; the
// result's Order is then the sale.
func settled(ctx context.Context, e *pos.Engine, saleID string) func(*pos.Result, error) (*pos.Result, error) {
	return func(res *pos.Result, err error) (*pos.Result, error) {
		if err != nil || res.Status != pos.ResultPaid {
			return res, err
		}
		st, err := e.Sales.SettleSale(ctx, saleID)
		if err != nil {
			return res, err
		}
		if st.Complete() {
			res.Order = st.Sale
		}
		return res, nil
	}
}

// imeisOf is the IMEIs the lines carry, by product code.
func imeisOf(lines []pos.Line) []pos.UnitIMEI {
	var out []pos.UnitIMEI
	for _, l := range lines {
		for _, imei := range l.IMEIs {
			out = append(out, pos.UnitIMEI{ProductCode: l.ProductCode, IMEI: imei})
		}
	}
	return out
}

// ---- the parent ----

// crashCase is one kill point of one flow and what the restarted terminal must
// find.
type crashCase struct {
	name   string
	flow   string
	card   string
	at     string           // the kill point (envAt)
	inject sandbox.Endpoint // the helper's first call to this endpoint is applied and its answer dropped
	events int              // order events journaled when the helper dies (the refund flow: after those of the paid sale)
	// second, when set, is the kill point of a second helper that restarts and
	// dies inside its own Reconcile; events2 counts the order events then.
	second  string
	events2 int

	// reconciled is the state of the order journaled last (the sale's tender,
	// or the sale itself before its tender's order) after the first Reconcile;
	// "" means no order was journaled at all.
	reconciled pos.OrderState
	// advance moves the sandbox's clock after that; then is the state the second
	// Reconcile finds.
	advance time.Duration
	then    pos.OrderState
	// phonePays: the customer pays on the phone after the terminal died, before
	// the second Reconcile.
	phonePays bool
	// captures is how many payments the sandbox holds captured at the end: 1 (the
	// sale paid once, on the same order or, where no payment was ever accepted
	// for it, on a fresh one), or 0 where the sale's EMI order failed and its IMEI
	// stays blocked at the service.
	captures int
}

func crashCases() []crashCase {
	const (
		pay  = pos.StatePaid
		open = pos.StateOpen // the sale, before its tender's order is journaled
	)
	return []crashCase{
		// A card sale taken as a split sale is taken (the sale opened, then its
		// tender) commits the sale's intent (1), tender.added with the card
		// tender's intent (2), created (3), accepted (4), and the outcome with
		// sale.completed (5).
		{name: "card/before-sale", flow: flowCard, card: cardOTP, at: "before:1", events: 0, captures: 1},
		{name: "card/after-sale", flow: flowCard, card: cardOTP, at: "after:1", events: 1, reconciled: open, captures: 1},
		{name: "card/tender-unjournaled", flow: flowCard, card: cardOTP, at: "before:2", events: 1, reconciled: open, captures: 1},
		{name: "card/after-intent", flow: flowCard, card: cardOTP, at: "after:2", events: 3, reconciled: pos.StateAbandoned, captures: 1},
		{name: "card/created-unjournaled", flow: flowCard, card: cardOTP, at: "before:3", events: 3, reconciled: pos.StateAbandoned, captures: 1},
		{name: "card/after-created", flow: flowCard, card: cardOTP, at: "after:3", events: 4, reconciled: pos.StateCreated, captures: 1},
		{name: "card/accepted-unjournaled", flow: flowCard, card: cardOTP, at: "before:4", events: 4, reconciled: pos.StateAuthenticating,
			advance: expireToken, then: pos.StateFailed, captures: 1},
		{name: "card/after-accepted", flow: flowCard, card: cardOTP, at: "after:4", events: 5, reconciled: pos.StateAuthenticating,
			advance: expireToken, then: pos.StateFailed, captures: 1},
		{name: "card/charged-unjournaled", flow: flowCard, card: cardOTP, at: "before:5", events: 5, reconciled: pay, captures: 1},
		{name: "card/after-paid", flow: flowCard, card: cardOTP, at: "after:5", events: 7, reconciled: pay, captures: 1},

		// Polling: killed before the n-th inquiry, after the OTP was submitted; the
		// slow card's issuer holds it PENDING until the sandbox's clock moves on.
		{name: "poll/otp-first-inquiry", flow: flowCard, card: cardOTP, at: "poll:1", events: 5, reconciled: pay, captures: 1},
		{name: "poll/first-inquiry", flow: flowCard, card: cardSlow, at: "poll:1", events: 5, reconciled: pos.StateAuthenticating,
			advance: releaseHold, then: pay, captures: 1},
		{name: "poll/third-inquiry", flow: flowCard, card: cardSlow, at: "poll:3", events: 5, reconciled: pos.StateAuthenticating,
			advance: releaseHold, then: pay, captures: 1},

		// The payment call is applied and its answer dropped; the helper dies with
		// the tender UNKNOWN (the sale, the tender with its intent, created,
		// unknown).
		{name: "lost-answer/charged", flow: flowCard, card: cardFrictio, at: "after:4", inject: sandbox.EndpointCardPayment,
			events: 5, reconciled: pay, captures: 1},
		{name: "lost-answer/never-authenticated", flow: flowCard, card: cardOTP, at: "after:4", inject: sandbox.EndpointCardPayment,
			events: 5, reconciled: pos.StateUnknown, advance: expireToken, then: pos.StateFailed, captures: 1},
		// Create order's answer is dropped: the tender's order is abandoned and
		// it moves to a fresh id (the sale, the tender with its intent,
		// abandoned, intent, ...); killed before and after the new intent.
		{name: "lost-answer/create-order", flow: flowCard, card: cardOTP, at: "before:4", inject: sandbox.EndpointCreateOrder,
			events: 4, reconciled: pos.StateAbandoned, captures: 1},
		{name: "lost-answer/create-order-new-intent", flow: flowCard, card: cardOTP, at: "after:4", inject: sandbox.EndpointCreateOrder,
			events: 5, reconciled: pos.StateAbandoned, captures: 1},

		// A brand-EMI sale commits the sale's intent (1), tender.added with its
		// tender's intent (2), created, imei.validated, accepted (3-5), and the
		// outcome with sale.completed (6).
		{name: "emi/before-sale", flow: flowEMI, card: cardHDFC, at: "before:1", events: 0, captures: 1},
		{name: "emi/after-intent", flow: flowEMI, card: cardHDFC, at: "after:2", events: 3, reconciled: pos.StateAbandoned, captures: 1},
		{name: "emi/created-unjournaled", flow: flowEMI, card: cardHDFC, at: "before:3", events: 3, reconciled: pos.StateAbandoned, captures: 1},
		{name: "emi/after-created", flow: flowEMI, card: cardHDFC, at: "after:3", events: 4, reconciled: pos.StateCreated, captures: 1},
		{name: "emi/imei-unjournaled", flow: flowEMI, card: cardHDFC, at: "before:4", events: 4, reconciled: pos.StateCreated, captures: 1},
		{name: "emi/after-imei", flow: flowEMI, card: cardHDFC, at: "after:4", events: 5, reconciled: pos.StateCreated, captures: 1},
		{name: "emi/accepted-unjournaled", flow: flowEMI, card: cardHDFC, at: "before:5", events: 5, reconciled: pos.StateAuthenticating,
			advance: expireToken, then: pos.StateFailed, captures: 0},
		{name: "emi/after-accepted", flow: flowEMI, card: cardHDFC, at: "after:5", events: 6, reconciled: pos.StateAuthenticating,
			advance: expireToken, then: pos.StateFailed, captures: 0},
		{name: "emi/charged-unjournaled", flow: flowEMI, card: cardHDFC, at: "before:6", events: 6, reconciled: pay, captures: 1},
		{name: "emi/after-paid", flow: flowEMI, card: cardHDFC, at: "after:6", events: 8, reconciled: pay, captures: 1},

		// A declined attempt (the sale, the tender with its intent, created,
		// accepted, outcome FAILED: 5 commits), then a second attempt on the same
		// tender's order (attempt, accepted, the outcome with sale.completed).
		{name: "retry/after-attempt", flow: flowRetry, card: cardOTP, at: "after:6", events: 7, reconciled: pos.StatePaying,
			advance: expireToken, then: pos.StateFailed, captures: 1},
		{name: "retry/accepted-unjournaled", flow: flowRetry, card: cardOTP, at: "before:7", events: 7, reconciled: pos.StateAuthenticating,
			advance: expireToken, then: pos.StateFailed, captures: 1},
		{name: "retry/charged-unjournaled", flow: flowRetry, card: cardOTP, at: "before:8", events: 8, reconciled: pay, captures: 1},
		{name: "retry/after-paid", flow: flowRetry, card: cardOTP, at: "after:8", events: 10, reconciled: pay, captures: 1},

		// Paid on the customer's phone: the sale, the phone tender with its
		// intent, created, and the outcome with sale.completed.
		{name: "phone/after-created", flow: flowPhone, card: cardFrictio, at: "after:3", events: 4, reconciled: pos.StateCreated,
			phonePays: true, then: pay, captures: 1},
		{name: "phone/charged-unjournaled", flow: flowPhone, card: cardFrictio, at: "before:4", events: 4, reconciled: pay, captures: 1},
		{name: "phone/after-paid", flow: flowPhone, card: cardFrictio, at: "after:4", events: 6, reconciled: pay, captures: 1},

		// The restarted terminal dies too, inside its Reconcile, before journaling
		// what it found or did.
		{name: "restart-crash/charged", flow: flowCard, card: cardOTP, at: "before:5", events: 5,
			second: "before:1", events2: 5, reconciled: pay, captures: 1},
		{name: "restart-crash/lost-answer", flow: flowCard, card: cardFrictio, at: "after:4", inject: sandbox.EndpointCardPayment, events: 5,
			second: "before:1", events2: 5, reconciled: pay, captures: 1},
		{name: "restart-crash/refund-resent", flow: flowRefund, card: cardOTP, at: "after:1", events: 1,
			second: "before:1", events2: 1, reconciled: pos.StatePartlyRefunded, captures: 1},

		// A refund of a sale paid by its card tender commits intent and done, on
		// the sale, the money going back through the tender.
		{name: "refund/before-intent", flow: flowRefund, card: cardOTP, at: "before:1", events: 0, reconciled: pay, captures: 1},
		{name: "refund/after-intent", flow: flowRefund, card: cardOTP, at: "after:1", events: 1, reconciled: pos.StatePartlyRefunded, captures: 1},
		{name: "refund/done-unjournaled", flow: flowRefund, card: cardOTP, at: "before:2", events: 1, reconciled: pos.StatePartlyRefunded, captures: 1},
		{name: "refund/after-done", flow: flowRefund, card: cardOTP, at: "after:2", events: 2, reconciled: pos.StatePartlyRefunded, captures: 1},
	}
}

func TestCrash(t *testing.T) {
	exe, err := os.Executable()
	require.NoError(t, err)
	for _, tc := range crashCases() {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			runCase(t, exe, tc)
		})
	}
}

// world is what survives the helper: the sandbox behind a real socket, and the
// journal file.
type world struct {
	sb     *sandbox.Sandbox
	url    string
	path   string
	offset atomic.Int64 // how far the sandbox's clock is moved ahead
	client *gateway.Client
}

func newWorld(t *testing.T) *world {
	t.Helper()
	w := &world{path: filepath.Join(t.TempDir(), "galla.db")}
	sb, err := sandbox.New(sandbox.WithClock(func() time.Time { return time.Now().Add(time.Duration(w.offset.Load())) }))
	require.NoError(t, err)
	srv := httptest.NewServer(sb)
	t.Cleanup(srv.Close)
	w.sb, w.url = sb, srv.URL
	w.client, err = newClient(srv.URL)
	require.NoError(t, err)
	return w
}

// open opens the journal and an engine over it, as a restarted terminal does.
func (w *world) open(t *testing.T) (*journal.Journal, *pos.Engine) {
	t.Helper()
	j, err := journal.Open(w.path, journal.Options{LockTimeout: 5 * time.Second})
	require.NoError(t, err, "the journal opens after the kill: lock released, chain verified")
	e, err := newEngine(j.Port(), w.client, testclock.Real(time.Millisecond))
	require.NoError(t, err)
	return j, e
}

func runCase(t *testing.T, exe string, tc crashCase) {
	ctx := t.Context()
	w := newWorld(t)

	// The refund flow starts from a paid sale and a manager, made before the helper.
	saleID, baseEvents := "", 0
	if tc.flow == flowRefund {
		j, e := w.open(t)
		_, err := e.Roster().WithIterations(pos.MinPINIterations).AddStaff(ctx, "Meera", pos.RoleManager, managerPIN)
		require.NoError(t, err)
		res, id, err := checkout(ctx, e, w.client, flowCard, tc.card)
		require.NoError(t, err)
		require.Equal(t, pos.ResultPaid, res.Status, res.Reason)
		require.Equal(t, id, res.Order.ID, "the sale is complete")
		saleID = id
		baseEvents = countOrderEvents(t, j)
		require.NoError(t, j.Close())
	}
	if tc.inject != "" {
		w.sb.Controls.Inject(tc.inject, sandbox.Fault{Kind: sandbox.FaultDrop}, 1)
	}

	out := runHelperProcess(t, exe, w, tc.flow, tc.card, tc.at, saleID)
	w.sb.Controls.ClearFaults()
	events := tc.events
	if tc.second != "" {
		j, _ := w.open(t)
		checkEvents(t, j, baseEvents+tc.events)
		require.NoError(t, j.Close())
		out = append(out, runHelperProcess(t, exe, w, flowReconcile, tc.card, tc.second, saleID)...)
		events = tc.events2
	}

	j, e := w.open(t)
	defer func() { require.NoError(t, j.Close()) }()
	checkEvents(t, j, baseEvents+events)

	rep, err := e.Payments.Reconcile(ctx)
	require.NoError(t, err)
	sale := latestOrder(t, j)
	if tc.flow == flowRefund {
		sale = mustOrder(t, j, saleID)
	}
	if tc.reconciled == "" {
		assert.Nil(t, sale, "nothing was journaled")
		assert.Empty(t, w.sb.Controls.Ledger(), "nothing reached the service")
	} else {
		require.NotNil(t, sale, "the sale is in the journal")
		assert.Equal(t, tc.reconciled, sale.State, "after Reconcile: %s", sale.Reason)
		if sale.Unresolved() {
			assert.Contains(t, ids(rep.Open), sale.ID, "the reconciler lists what it could not resolve")
		}
	}
	checkLedger(t, j, w.sb)
	if sale != nil && (sale.State == pos.StatePaying || sale.State == pos.StateAuthenticating || sale.State == pos.StateUnknown) {
		// A payment whose outcome is unknown is inquired, never sent again.
		before := len(ledgerOf(t, w.sb, sale.ID).Payments)
		_, err := payAgain(ctx, e, w.client, tc, sale.ID)
		require.ErrorIs(t, err, pos.ErrPaymentInFlight)
		assert.Len(t, ledgerOf(t, w.sb, sale.ID).Payments, before, "no new payment")
	}

	if tc.advance > 0 || tc.phonePays {
		w.offset.Add(int64(tc.advance))
		if tc.phonePays {
			require.NoError(t, payOnPhone(ctx, w.client, sale.Token, tc.card))
		}
		_, err := e.Payments.Reconcile(ctx)
		require.NoError(t, err)
		sale = mustOrder(t, j, sale.ID)
		assert.Equal(t, tc.then, sale.State, "after the second Reconcile: %s", sale.Reason)
		assert.NotEmpty(t, sale.Reason+string(sale.PaymentID), "the outcome is explained")
		checkLedger(t, j, w.sb)
	}

	switch {
	case tc.flow == flowRefund:
		finishRefund(t, e, w, sale)
	case tc.captures == 1:
		finishSale(t, e, w, tc, sale)
	default:
		// The EMI tender failed after its IMEI was blocked for it: the
		// reconciler shows it FAILED with the service's reason; nothing was
		// charged, and its sale, holding no money, is dropped.
		require.NotNil(t, sale)
		assert.Equal(t, pos.StateFailed, sale.State)
		assert.NotEmpty(t, sale.Reason)
		dropSale(t, e, sale)
	}

	unresolved, err := j.Orders.Unresolved(ctx)
	require.NoError(t, err)
	assert.Empty(t, ids(unresolved), "every order is resolved in the end")
	checkLedger(t, j, w.sb)
	assert.Equal(t, tc.captures, captures(w.sb), "the sale is charged exactly this many times")

	// Event bodies are stored compressed: scan them as the journal reads them
	// back, and the raw file (order records, anything else) too.
	last, err := j.Log.LastSeq(ctx)
	require.NoError(t, err)
	var stored []byte
	for seq := uint64(1); seq <= last; seq++ {
		ev, err := j.Log.Event(ctx, seq)
		require.NoError(t, err)
		b, err := json.Marshal(ev)
		require.NoError(t, err)
		stored = append(append(stored, b...), '\n')
	}
	if sale != nil {
		require.Contains(t, string(stored), sale.ID, "the scan reads the stored events")
	}
	assert.Empty(t, cardLeaks(stored, tc.card), "card data in the journal's events")
	require.NoError(t, j.Close())
	raw, err := os.ReadFile(w.path)
	require.NoError(t, err)
	assert.Empty(t, cardLeaks(raw, tc.card), "card data in the journal file")
	assert.Empty(t, cardLeaks(out, tc.card), "card data in the helper's output")
}

// runHelperProcess runs the flow in a child process and requires that it died of
// SIGKILL (its own, at the kill point). It returns what the child wrote.
func runHelperProcess(t *testing.T, exe string, w *world, flow, card, at, orderID string) []byte {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), 45*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, exe, "-test.run=^$")
	cmd.Env = append(os.Environ(), envHelper+"=1", envJournal+"="+w.path, envURL+"="+w.url,
		envFlow+"="+flow, envCard+"="+card, envAt+"="+at, envOrder+"="+orderID)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	cmd.WaitDelay = 5 * time.Second
	err := cmd.Run()
	require.NoError(t, ctx.Err(), "the helper hung:\n%s", out.String())
	ws, ok := cmd.ProcessState.Sys().(syscall.WaitStatus)
	require.True(t, ok && ws.Signaled() && ws.Signal() == syscall.SIGKILL,
		"the %s helper was not killed at %s (%v):\n%s", flow, at, err, out.String())
	return out.Bytes()
}

// payAgain sends a new payment on orderID with the flow's card.
func payAgain(ctx context.Context, e *pos.Engine, gw pos.Gateway, tc crashCase, orderID string) (*pos.Result, error) {
	if tc.flow == flowEMI {
		return e.Payments.PayEMI(ctx, orderID, newCard(tc.card), payOptions(gw))
	}
	return e.Payments.PayCard(ctx, orderID, newCard(tc.card), payOptions(gw))
}

// finishSale takes the sale to PAID as the counter would after the restart: a
// complete sale stands; a tender paid is settled; a tender's order that takes
// another attempt is paid on the same order; a sale whose tender never took a
// payment (or whose token is spent) is paid by a new tender; where no sale was
// journaled at all, the cart is rung up afresh. The sale ends complete with the
// first document number, paid once.
func finishSale(t *testing.T, e *pos.Engine, w *world, tc crashCase, last *pos.Order) {
	t.Helper()
	ctx := t.Context()
	if last == nil {
		res, _, err := checkout(ctx, e, w.client, tc.flow, tc.card)
		require.NoError(t, err)
		require.Equal(t, pos.ResultPaid, res.Status, res.Reason)
		return
	}
	id := saleOf(last)
	require.NotEmpty(t, id, "order %s is a sale or its tender", last.ID)
	st, err := e.Sales.SaleStatus(ctx, id)
	require.NoError(t, err)
	for _, tv := range st.Tenders {
		if tv.Order == nil || tv.Paid() || tv.Order.CanPay() != nil {
			continue
		}
		res, err := payAgain(ctx, e, w.client, tc, tv.Order.ID)
		require.NoError(t, err)
		require.Contains(t, []pos.ResultStatus{pos.ResultPaid, pos.ResultFailed}, res.Status,
			"the retry on the same order is paid or refused, not left open: %s", res.Reason)
	}
	if st, err = e.Sales.SettleSale(ctx, id); err == nil && !st.Complete() {
		require.Zero(t, st.Pending, "nothing left in flight")
		require.Positive(t, st.Due)
		_, err = payTender(ctx, e, w.client, tc.flow, id, tc.card)
		require.NoError(t, err)
		st, err = e.Sales.SaleStatus(ctx, id)
	}
	require.NoError(t, err)
	require.True(t, st.Complete(), "the sale is paid")
	assert.Equal(t, uint64(1), st.Sale.DocNo, "one document number, the first")
	paid := 0
	for _, tv := range st.Tenders {
		if tv.Paid() {
			paid++
		}
	}
	assert.Equal(t, 1, paid, "one tender paid it")
}

// dropSale drops the open sale of last, whose tender failed: it holds no
// money, so the cashier drops it without a PIN.
func dropSale(t *testing.T, e *pos.Engine, last *pos.Order) {
	t.Helper()
	ctx := t.Context()
	id := saleOf(last)
	require.NotEmpty(t, id, "order %s is a sale or its tender", last.ID)
	st, err := e.Sales.SaleStatus(ctx, id)
	require.NoError(t, err)
	require.Equal(t, pos.StateOpen, st.Sale.State)
	require.True(t, st.HoldsNoMoney(), "the sale holds no money")
	st, err = e.Sales.DropSale(ctx, id, "001", "the EMI was refused")
	require.NoError(t, err)
	assert.Equal(t, pos.StateVoided, st.Sale.State)
	assert.Zero(t, st.Sale.DocNo, "a dropped sale has no invoice")
}

// saleOf is the id of the sale o is or is a tender of, or "".
func saleOf(o *pos.Order) string {
	switch {
	case o.Sale != "":
		return o.Sale
	case o.Tender == pos.TenderSplit:
		return o.ID
	}
	return ""
}

// finishRefund makes the manager's refund when the helper died before it was
// journaled, and checks it was made once, on the sale, through its card
// tender.
func finishRefund(t *testing.T, e *pos.Engine, w *world, sale *pos.Order) {
	t.Helper()
	require.Len(t, sale.Tenders, 1, "a sale of one card tender")
	tender := sale.Tenders[0].OrderID
	if len(sale.Refunds) == 0 {
		assert.Zero(t, ledgerOf(t, w.sb, tender).RefundedAmount, "no refund reached the service")
		rr, err := e.Refunds.Refund(t.Context(), pos.RefundRequest{OrderID: sale.ID, Amount: refundAmount, PIN: managerPIN})
		require.NoError(t, err)
		require.Equal(t, pos.RefundDone, rr.Status, rr.Reason)
		sale = rr.Order
	}
	require.Len(t, sale.Refunds, 1)
	assert.Equal(t, pos.RefundDone, sale.Refunds[0].Status)
	assert.Equal(t, tender, sale.Refunds[0].Tender, "back through the card tender")
	assert.Equal(t, pos.StatePartlyRefunded, sale.State)
	assert.Equal(t, refundAmount, sale.Refunded)
	assert.Equal(t, int64(refundAmount), ledgerOf(t, w.sb, tender).RefundedAmount, "refunded once, not twice")
}

// checkLedger checks the journal against what the service believes, order by
// order: every order the service holds is journaled; an abandoned order took no
// payment; no order has two captures; a journaled PAID is a capture of the same
// amount and payment, and every capture is journaled PAID once its order is
// resolved; refunded amounts agree.
func checkLedger(t *testing.T, j *journal.Journal, sb *sandbox.Sandbox) {
	t.Helper()
	orders := allOrders(t, j)
	byID := map[string]*pos.Order{}
	// refunded is what went back through each order at the service: its own
	// refunds, and a sale's refunds through the tender each names.
	refunded := map[string]pos.Paise{}
	for _, o := range orders {
		byID[o.ID] = o
		if o.Tender != pos.TenderSplit {
			refunded[o.ID] += o.Refunded
			continue
		}
		for _, rf := range o.Refunds {
			if rf.Status == pos.RefundDone && rf.Tender != "" {
				refunded[rf.Tender] += rf.Amount
			}
		}
	}
	seen := map[string]bool{}
	for _, lo := range sb.Controls.Ledger() {
		assert.False(t, seen[lo.MerchantOrderID], "merchant order %s is at the service once", lo.MerchantOrderID)
		seen[lo.MerchantOrderID] = true
		assert.LessOrEqual(t, lo.CapturedPayments, 1, "order %s captured twice", lo.MerchantOrderID)
		o := byID[lo.MerchantOrderID]
		if !assert.NotNil(t, o, "order %s at the service is not in the journal", lo.MerchantOrderID) {
			continue
		}
		if o.State == pos.StateAbandoned {
			assert.Empty(t, lo.Payments, "abandoned order %s took a payment", o.ID)
		}
		if o.ServiceOrderID != "" {
			assert.Equal(t, lo.ServiceOrderID, o.ServiceOrderID, "order %s", o.ID)
		}
		if o.State.Paid() {
			assert.Equal(t, 1, lo.CapturedPayments, "order %s is PAID in the journal", o.ID)
			assert.Equal(t, int64(o.Captured), lo.CapturedAmount, "order %s: captured", o.ID)
			assert.True(t, o.Verified, "order %s", o.ID)
			assert.Contains(t, []string{"CHARGED", "PARTIAL_REFUNDED", "REFUNDED"}, lo.Status, "order %s", o.ID)
			for _, p := range lo.Payments {
				if p.Captured {
					assert.Equal(t, p.PaymentID, o.PaymentID, "order %s: the captured payment", o.ID)
				}
			}
			assert.Equal(t, int64(refunded[o.ID]), lo.RefundedAmount, "order %s: refunded", o.ID)
		} else if !o.Unresolved() {
			assert.Zero(t, lo.CapturedPayments, "order %s is %s in the journal but captured at the service", o.ID, o.State)
		}
	}
	for _, o := range orders {
		if o.ServiceOrderID != "" {
			assert.True(t, seen[o.ID], "journaled order %s (created) is not at the service", o.ID)
		}
	}
}

// allOrders lists every order the journal holds (the days around now).
func allOrders(t *testing.T, j *journal.Journal) []*pos.Order {
	t.Helper()
	var out []*pos.Order
	seen := map[string]bool{}
	now := time.Now()
	for _, d := range []time.Time{now.AddDate(0, 0, -1), now, now.AddDate(0, 0, 1)} {
		orders, err := j.Orders.OrdersByDay(t.Context(), pos.ToDay(d))
		require.NoError(t, err)
		for _, o := range orders {
			if !seen[o.ID] {
				seen[o.ID] = true
				out = append(out, o)
			}
		}
	}
	return out
}

// latestOrder is the order journaled last (where the sale stands), or nil.
func latestOrder(t *testing.T, j *journal.Journal) *pos.Order {
	t.Helper()
	var last *pos.Order
	for _, o := range allOrders(t, j) {
		evs, err := j.Orders.Events(t.Context(), o.ID)
		require.NoError(t, err)
		require.NotEmpty(t, evs)
		if last == nil || evs[0].Seq > firstSeq(t, j, last.ID) {
			last = o
		}
	}
	return last
}

func firstSeq(t *testing.T, j *journal.Journal, id string) uint64 {
	t.Helper()
	evs, err := j.Orders.Events(t.Context(), id)
	require.NoError(t, err)
	require.NotEmpty(t, evs)
	return evs[0].Seq
}

// checkEvents checks that the helper died exactly at its kill point: the journal
// holds want order events.
func checkEvents(t *testing.T, j *journal.Journal, want int) {
	t.Helper()
	if !assert.Equal(t, want, countOrderEvents(t, j), "order events journaled before the kill") {
		logEvents(t, j)
	}
}

// logEvents lists the journal's order events, to explain a failure.
func logEvents(t *testing.T, j *journal.Journal) {
	t.Helper()
	for _, o := range allOrders(t, j) {
		evs, err := j.Orders.Events(t.Context(), o.ID)
		require.NoError(t, err)
		for _, ev := range evs {
			t.Logf("%d %s %s %s", ev.Seq, ev.OrderID, ev.Kind, ev.Reason)
		}
	}
}

func countOrderEvents(t *testing.T, j *journal.Journal) int {
	t.Helper()
	n := 0
	for _, o := range allOrders(t, j) {
		evs, err := j.Orders.Events(t.Context(), o.ID)
		require.NoError(t, err)
		n += len(evs)
	}
	return n
}

func mustOrder(t *testing.T, j *journal.Journal, id string) *pos.Order {
	t.Helper()
	o, err := j.Orders.Order(t.Context(), id)
	require.NoError(t, err)
	return o
}

func ledgerOf(t *testing.T, sb *sandbox.Sandbox, merchantOrderID string) sandbox.LedgerOrder {
	t.Helper()
	for _, lo := range sb.Controls.Ledger() {
		if lo.MerchantOrderID == merchantOrderID {
			return lo
		}
	}
	require.Failf(t, "not at the service", "order %s", merchantOrderID)
	return sandbox.LedgerOrder{}
}

func captures(sb *sandbox.Sandbox) int {
	n := 0
	for _, lo := range sb.Controls.Ledger() {
		n += lo.CapturedPayments
	}
	return n
}

func ids(orders []*pos.Order) []string {
	out := make([]string, 0, len(orders))
	for _, o := range orders {
		out = append(out, o.ID)
	}
	return out
}

// cardLeaks lists what in data looks like the card's number (with or without
// separators, or its digits after the BIN) or a CVV field.
func cardLeaks(data []byte, number string) []string {
	sep := func(s string) string {
		var b strings.Builder
		for i, r := range s {
			if i > 0 {
				b.WriteString(`[ -]?`)
			}
			b.WriteRune(r)
		}
		return b.String()
	}
	patterns := []*regexp.Regexp{
		regexp.MustCompile(sep(number)),
		regexp.MustCompile(number[6:]),
		regexp.MustCompile(`(?i)(cvv|cvc|card_?security_?code)\\?"?\s*[:=]\s*\\?"?\d{3,4}`),
		regexp.MustCompile(`(?i)(card_?number|pan)\\?"?\s*[:=]\s*\\?"?\d{12,19}`),
	}
	var found []string
	for _, p := range patterns {
		for _, m := range p.FindAll(data, -1) {
			found = append(found, string(m))
		}
	}
	return found
}

func TestCardLeaksFindsALeak(t *testing.T) {
	tests := []struct {
		name string
		data string
		want int
	}{
		{"number", "x 4111 1111 1111 1111 y", 1},
		{"digits after the BIN", "masked 4111111111111111", 2},
		{"cvv field", `{"card_security_code":"123"}`, 1},
		{"last four only", `{"card_last4":"1111","masked_card":"411111XXXXXX1111"}`, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Len(t, cardLeaks([]byte(tt.data), cardOTP), tt.want)
		})
	}
}
