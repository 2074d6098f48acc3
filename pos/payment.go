package pos

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"

	"galla/gateway"
)

// Sale is what the counter hands the engine to take a payment: the cart's lines
// (IMEIs included) and who sells to whom.
type Sale struct {
	Lines       []Line
	Staff       string    // the cashier's staff ID or name
	Customer    *Customer // nil: Config.Customer
	Buyer       *Buyer    // the buyer named on the invoice; nil: none
	Description string    // order_desc; empty: the first line's name
	// OverrideIMEIs approves the sale's phones when the store server cannot
	// be asked to reserve them (ErrStoreOffline); nil refuses the sale then.
	OverrideIMEIs IMEIApprover
}

// ResultStatus is how a checkout ended.
type ResultStatus string

// The results of a checkout.
const (
	ResultPaid       ResultStatus = "PAID"       // verified paid
	ResultFailed     ResultStatus = "FAILED"     // a verified failure; Result.CanRetry tells whether the same order takes another attempt
	ResultUnverified ResultStatus = "UNVERIFIED" // the last answer could not be verified: outcome unknown, left to the reconciler
	ResultUnknown    ResultStatus = "UNKNOWN"    // no final answer: left to the reconciler, never charged again
)

// Result is the end of one checkout or one payment attempt.
type Result struct {
	Status   ResultStatus
	Order    *Order // the order as journaled
	Reason   string // FAILED, UNVERIFIED, UNKNOWN: why, in plain words
	CanRetry bool   // FAILED: a new attempt on the same order is allowed
}

// Step names a stage of a checkout for the screen.
type Step string

// The steps a checkout reports.
const (
	StepJournaled      Step = "journaled"       // the sale is journaled with its order id
	StepCreated        Step = "created"         // the service created the order
	StepAbandoned      Step = "abandoned"       // create order's answer was lost; the sale moves to a fresh order id
	StepIMEIValidated  Step = "imei-validated"  // the service validated the IMEIs
	StepPaying         Step = "paying"          // the payment is being sent
	StepAuthenticating Step = "authenticating"  // the customer authenticates (3-D Secure)
	StepVerifying      Step = "verifying"       // polling the verified status
	StepUnverified     Step = "unverified"      // an answer could not be verified; still polling
	StepPaid           Step = "paid"            //
	StepFailed         Step = "failed"          //
	StepUnknown        Step = "unknown"         //
	StepWaiting        Step = "waiting-payment" // the customer pays on the phone
)

// Progress is one report to the screen during a checkout.
type Progress struct {
	Step    Step
	OrderID string
	Attempt int
	State   OrderState
	Message string
	// Challenge is set with StepAuthenticating: what the authentication needs.
	Challenge *Challenge
}

// Challenge is the authentication step of a payment: Content is the HTML page with
// the auto-submitting form the service sent (contract section 4). It holds no card
// data.
type Challenge struct {
	OrderID   string
	PaymentID string
	Content   string
}

// Authenticator takes the customer through the issuer's authentication step. With
// the live service it opens Content in the system browser; with the embedded
// sandbox the terminal may submit the one-time password itself (see SandboxOTP).
// It returns once the step is done or handed over; the outcome is known only from
// the verified status inquiry that follows.
type Authenticator interface {
	Authenticate(ctx context.Context, ch Challenge) error
}

// AuthenticatorFunc adapts a function to Authenticator.
type AuthenticatorFunc func(ctx context.Context, ch Challenge) error

// Authenticate calls f.
func (f AuthenticatorFunc) Authenticate(ctx context.Context, ch Challenge) error { return f(ctx, ch) }

// SandboxOTP returns an Authenticator that completes the sandbox's authentication
// step headless by posting the form of the challenge with the one-time password
// (contract section 4: 123456 approves).
func SandboxOTP(gw Gateway, otp string) Authenticator {
	return AuthenticatorFunc(func(ctx context.Context, ch Challenge) error {
		return gw.SubmitAuthentication(ctx, ch.Content, url.Values{"otp": {otp}})
	})
}

// PayOptions are the options of one payment.
type PayOptions struct {
	// Auth takes the customer through authentication; nil skips the step (the
	// customer completes it elsewhere, or the card needs none).
	Auth Authenticator
	// Progress receives the steps; nil ignores them. It is called on the
	// checkout's goroutine and must not block.
	Progress func(Progress)
	// Wait bounds the polling; 0 or more than Config.MaxWait means Config.MaxWait.
	Wait time.Duration
}

func (p PayOptions) report(pr Progress) {
	if p.Progress != nil {
		p.Progress(pr)
	}
}

// Open journals a sale and, for every tender but cash, creates its order at the
// payment service (DESIGN.md section 2). The intent is committed before create
// order is sent. When create order's answer is lost (or the service says the order
// id was used, after a lost answer) no payment can have been sent: the order is
// journaled ABANDONED and the sale is journaled afresh under a new order id, at
// most three times (contract section 2).
//
// plan is the chosen EMI offer for TenderEMI and nil otherwise.
func (e *Payments) Open(ctx context.Context, sale Sale, tender TenderKind, plan *EMIPlan, opt PayOptions) (*Order, error) {
	return e.open(ctx, sale, tender, plan, opt, part{})
}

// part names, for open, the split-tender sale a tender's order pays part of: its
// id, the id the tender.added event gave the order, and the amount. The zero
// part opens a whole sale.
type part struct {
	Sale, ID string
	Amount   Paise
	IMEIs    []UnitIMEI // the serialised units' IMEIs, for a brand-EMI tender
}

func (e *Payments) open(ctx context.Context, sale Sale, tender TenderKind, plan *EMIPlan, opt PayOptions, pt part) (*Order, error) {
	if len(sale.Lines) == 0 {
		return nil, fmt.Errorf("pos: open: %w", ErrEmptyCart)
	}
	if tender == TenderSplit || (tender.local() && tender != TenderCash && pt.Sale == "") {
		return nil, fmt.Errorf("pos: open: %w: tender %s", ErrBadEvent, tender)
	}
	if !tender.local() && e.gw == nil {
		return nil, fmt.Errorf("pos: open: %w", ErrNoGateway)
	}
	if tender == TenderEMI && plan == nil {
		return nil, fmt.Errorf("pos: open: %w: choose an EMI offer", ErrBadEvent)
	}
	if err := e.journalReady(ctx); err != nil {
		return nil, err
	}
	if err := e.refuseWhileUnrecorded(); err != nil {
		return nil, err
	}
	if err := e.dayOpen(ctx, e.today()); err != nil {
		return nil, err
	}
	if !tender.local() {
		if err := e.ensureReconciled(ctx); err != nil {
			return nil, err
		}
	}
	lines := make([]Line, len(sale.Lines))
	for i, l := range sale.Lines {
		lines[i] = l.clone()
	}
	totals := ComputeTotals(lines)
	if pt.Sale != "" {
		// A tender's order: the products of its part, and no tax of its own
		// (the sale's document carries the tax once).
		lines = withIMEIs(partLines(lines, pt.Amount), pt.IMEIs)
		totals = Totals{Total: pt.Amount}
	}
	if plan != nil && plan.IMEIRequired {
		if err := checkIMEIs(lines, plan); err != nil {
			return nil, err
		}
	}
	replaces := ""
	id := pt.ID
	if id == "" {
		var err error
		if id, err = e.newID(e.cfg.Terminal); err != nil {
			return nil, err
		}
	}
	// The order is busy from its intent until its create order is answered and
	// journaled: a reconciliation running meanwhile (Check now, the start's) must
	// not take the INTENT for a lost create order and abandon it.
	release, err := e.lock(id)
	if err != nil {
		return nil, err
	}
	defer func() { release() }()
	if pt.Sale == "" && pt.ID == "" {
		// The store server reserves the phones before anything is journaled or
		// charged: an IMEI is sold at most once in the store (DESIGN.md section 11).
		if err := e.store.reserveIMEIs(ctx, id, lines, sale.OverrideIMEIs); err != nil {
			return nil, err
		}
	}
	for try := 0; ; try++ {
		o := &Order{}
		in := &Intent{Tender: tender, Lines: lines, Totals: totals, Amount: totals.Total, EMI: plan,
			IMEIs: allIMEIs(lines), Replaces: replaces, Customer: sale.Customer, Buyer: sale.Buyer, ReturnURL: e.cfg.ReturnURL, Sale: pt.Sale}
		if !tender.local() {
			in.Gateway = e.cfg.GatewayID
		}
		if _, err := e.commit(ctx, o, Event{Kind: EvOrderIntent, OrderID: id, Staff: sale.Staff, Intent: in}); err != nil {
			return nil, beforeMoney(err)
		}
		opt.report(Progress{Step: StepJournaled, OrderID: id, State: o.State})
		if tender.local() {
			return o, nil
		}
		created, cerr := e.gw.CreateOrder(ctx, e.gatewayOrder(o, sale))
		if cerr == nil && created.ServiceOrderID != "" && created.Token != "" {
			// Create order was sent: from here on the terminal never says "try again"
			// (record). If even this event cannot be written, no payment is sent, and
			// Reconcile abandons the order journaled at INTENT.
			if _, err := e.record(ctx, o, Event{Kind: EvOrderCreated, Created: &Created{ServiceOrderID: created.ServiceOrderID, Token: created.Token}}); err != nil {
				return nil, err
			}
			opt.report(Progress{Step: StepCreated, OrderID: id, State: o.State})
			return o, nil
		}
		if cerr == nil {
			cerr = fmt.Errorf("%w: create order answered without a service order id or token", gateway.ErrMalformed)
		}
		// The client marks an answer that may have been lost with ErrOutcomeUnknown;
		// 1130 after such a loss (its own retry) means the order exists unseen. Any
		// other error is a definite refusal, or the request never left (no
		// connection): no order exists at the service.
		lost := errors.Is(cerr, gateway.ErrOutcomeUnknown) || errors.Is(cerr, gateway.ErrDuplicateOrder)
		if _, ok := errors.AsType[*gateway.Error](cerr); !ok && !lost {
			cerr = fmt.Errorf("%w: %w", ErrServiceUnreachable, cerr)
		}
		if !lost || ctx.Err() != nil {
			// A definite refusal: no order exists at the service. Or the caller gave up.
			kind, reason := EvOrderFailed, cerr.Error()
			if lost {
				kind, reason = EvOrderAbandoned, "the checkout was stopped before create order was answered"
			}
			ev := Event{Kind: kind, Reason: reason}
			if kind == EvOrderAbandoned {
				ev.Abandoned = &Abandoned{Reason: reason}
			}
			if _, err := e.record(ctx, o, ev); err != nil {
				return nil, err
			}
			return nil, fmt.Errorf("pos: create order %q: %w", id, cerr)
		}
		next := ""
		if try < 2 {
			if next, err = e.newID(e.cfg.Terminal); err != nil {
				return nil, err
			}
		}
		if _, err := e.record(ctx, o, Event{Kind: EvOrderAbandoned, Reason: "create order's answer was lost",
			Abandoned: &Abandoned{Reason: "create order's answer was lost", NewOrderID: next}}); err != nil {
			return nil, err
		}
		e.log.LogAttrs(ctx, slog.LevelWarn, "pos: create order answer lost; order abandoned",
			slog.String("order", id), slog.String("error", cerr.Error()))
		opt.report(Progress{Step: StepAbandoned, OrderID: id, State: o.State, Message: "the answer was lost; retrying under a new order id"})
		if next == "" {
			return nil, fmt.Errorf("pos: create order %q: %w", id, cerr)
		}
		held, err := e.lock(next)
		if err != nil {
			return nil, err
		}
		release()
		release = held
		replaces, id = id, next
	}
}

// ErrServiceUnreachable reports a call that could not reach the payment service
// (no connection was made), so nothing happened there.
var ErrServiceUnreachable = sentenceError{"the payment service cannot be reached",
	"The payment service cannot be reached; check the network and try again, or take another payment method."}

// gatewayOrder is the create-order request of o.
func (e *Payments) gatewayOrder(o *Order, sale Sale) *gateway.Order {
	desc := sale.Description
	if desc == "" && len(o.Lines) > 0 {
		desc = o.Lines[0].Name
		if len(o.Lines) > 1 {
			desc += " and " + strconv.Itoa(len(o.Lines)-1) + " more"
		}
	}
	if r := []rune(desc); len(r) > 200 {
		desc = string(r[:200])
	}
	return &gateway.Order{
		MerchantOrderID: o.ID, ReturnURL: o.ReturnURL, Amount: int64(o.Amount), CurrencyCode: gateway.DefaultCurrency,
		Description: desc, Customer: e.customer(o.Customer), Products: products(o.Lines),
	}
}

// products groups lines by product code (the SKU when a line has none) with their
// amounts, in first-seen order; the amounts add up to the lines' total.
func products(lines []Line) []gateway.ProductAmount {
	var out []gateway.ProductAmount
	idx := map[string]int{}
	for _, l := range lines {
		code := l.ProductCode
		if code == "" {
			code = l.SKU
		}
		if i, ok := idx[code]; ok {
			out[i].Amount += int64(l.Amount())
			continue
		}
		idx[code] = len(out)
		out = append(out, gateway.ProductAmount{Code: code, Amount: int64(l.Amount())})
	}
	return out
}

func allIMEIs(lines []Line) []string {
	var out []string
	for _, l := range lines {
		for _, s := range l.IMEIs {
			if s != "" {
				out = append(out, s)
			}
		}
	}
	return out
}

// PayCard sends a seamless card payment for an open order (CREATED, or FAILED with
// attempts left), takes the customer through authentication and polls the
// verified status. It owns card: the number and CVV are wiped before it returns.
func (e *Payments) PayCard(ctx context.Context, orderID string, card *gateway.Card, opt PayOptions) (*Result, error) {
	defer card.Zero()
	return e.pay(ctx, orderID, card, opt)
}

// PayEMI sends the EMI payment of an order opened with an EMI plan: for a brand
// offer that makes IMEIs mandatory it first validates the IMEIs (once), then pays,
// authenticates and polls like PayCard. It owns card and wipes it.
func (e *Payments) PayEMI(ctx context.Context, orderID string, card *gateway.Card, opt PayOptions) (*Result, error) {
	defer card.Zero()
	return e.pay(ctx, orderID, card, opt)
}

// CheckoutCard opens a card sale and pays it: Open then PayCard. It owns card.
func (e *Payments) CheckoutCard(ctx context.Context, sale Sale, card *gateway.Card, opt PayOptions) (*Result, error) {
	defer card.Zero()
	if err := card.Check(e.clock.Now()); err != nil {
		return nil, fmt.Errorf("pos: checkout: %w", err)
	}
	o, err := e.Open(ctx, sale, TenderCard, nil, opt)
	if err != nil {
		return nil, err
	}
	return e.PayCard(ctx, o.ID, card, opt)
}

// CheckoutEMI validates the chosen offer against the card, opens the sale and pays
// it: ValidateScheme, Open, PayEMI. It owns card.
func (e *Payments) CheckoutEMI(ctx context.Context, sale Sale, plan EMIPlan, card *gateway.Card, opt PayOptions) (*Result, error) {
	defer card.Zero()
	if err := card.Check(e.clock.Now()); err != nil {
		return nil, fmt.Errorf("pos: checkout: %w", err)
	}
	if err := e.ValidateScheme(ctx, plan, ComputeTotals(sale.Lines).Total, card); err != nil {
		return nil, err
	}
	o, err := e.Open(ctx, sale, TenderEMI, &plan, opt)
	if err != nil {
		return nil, err
	}
	res, err := e.PayEMI(ctx, o.ID, card, opt)
	if err != nil {
		// Refused before any payment (the IMEIs, most often): the IMEIs are part of
		// the order, so the sale is opened afresh once corrected.
		e.closeUnpaid(ctx, o.ID, "refused before payment: "+Sentence(err))
	}
	return res, err
}

// closeUnpaid closes order id when it was refused before any payment was sent
// on it (created, no attempt): a sale's or a split sale's tender alike, so the
// sale is opened afresh, or the split sale's due amount is free again.
func (e *Payments) closeUnpaid(ctx context.Context, id, reason string) {
	cur, err := e.j.Order(ctx, id)
	if err != nil || cur.State != StateCreated || len(cur.Attempts) > 0 {
		return
	}
	if _, err := e.Cancel(ctx, id, reason); err != nil {
		e.log.LogAttrs(ctx, slog.LevelWarn, "pos: cancel", slog.String("order", id), slog.String("error", err.Error()))
	}
}

// checkIMEIsFirst validates the IMEIs of EMI order o, just opened, with the
// service before any card data is sent, when its offer makes them mandatory;
// an order whose IMEIs are refused is closed (no payment was sent on it). It
// serves a sale's EMI order and a split sale's EMI tender alike.
func (e *Payments) checkIMEIsFirst(ctx context.Context, o *Order, plan EMIPlan, opt PayOptions) (*Order, error) {
	if !plan.IMEIRequired {
		return o, nil
	}
	unlock, err := e.lock(o.ID)
	if err != nil {
		return nil, err
	}
	verr := e.validateIMEIs(ctx, o, opt)
	unlock()
	if verr != nil {
		if _, cerr := e.Cancel(ctx, o.ID, "IMEIs refused before payment: "+Sentence(verr)); cerr != nil {
			e.log.LogAttrs(ctx, slog.LevelWarn, "pos: cancel", slog.String("order", o.ID), slog.String("error", cerr.Error()))
		}
		return nil, verr
	}
	return o, nil
}

// OpenEMIChecked opens an EMI sale and, for a brand offer that makes IMEIs
// mandatory, validates them with the service at once, before any card data is
// sent: a wrong brand or a used IMEI is said before the payment, and the order
// whose IMEIs were refused is closed (no payment was sent on it), so the next try
// opens a fresh one with the IMEIs corrected. The IMEI validation needs the
// order's token, so the order is created first (contract section 5).
func (e *Payments) OpenEMIChecked(ctx context.Context, sale Sale, plan EMIPlan, opt PayOptions) (*Order, error) {
	o, err := e.Open(ctx, sale, TenderEMI, &plan, opt)
	if err != nil {
		return nil, err
	}
	return e.checkIMEIsFirst(ctx, o, plan, opt)
}

// PayCash takes a cash sale: journaled intent, then the cash received with the
// change due. No network.
func (e *Payments) PayCash(ctx context.Context, sale Sale, tendered Paise) (*Result, error) {
	total := ComputeTotals(sale.Lines).Total
	change, err := CashTender{Tendered: tendered}.Change(total)
	if err != nil {
		return nil, err
	}
	o, err := e.Open(ctx, sale, TenderCash, nil, PayOptions{})
	if err != nil {
		return nil, err
	}
	if _, err := e.commit(ctx, o, Event{Kind: EvCashReceived, Staff: sale.Staff, Cash: &CashEvent{Tendered: tendered, Change: change}}); err != nil {
		return nil, err
	}
	return &Result{Status: ResultPaid, Order: o}, nil
}

// OpenOnPhone opens a sale to be paid on the customer's phone (iFrame mode): the
// order is created and its token returned in the order; the caller serves the
// checkout page and calls Await.
func (e *Payments) OpenOnPhone(ctx context.Context, sale Sale, opt PayOptions) (*Order, error) {
	return e.Open(ctx, sale, TenderPhone, nil, opt)
}

// Await polls the verified status of an order until it is paid or failed, or the
// wait ends (then it is UNKNOWN for the reconciler). It serves the phone tender and
// the resumption of an interrupted payment.
//
// A phone order is awaited as an order, not as one payment: the customer may make
// several attempts on it in the hosted checkout (contract sections 4 and 8), so each
// poll inquires the order, a payment id the till has not seen is adopted and
// journaled, and a failed attempt is journaled while the wait goes on as long as the
// service's order status is not terminal. It ends FAILED only on the service's
// verified FAILED order status (no attempt left, or the token expired unpaid).
func (e *Payments) Await(ctx context.Context, orderID string, opt PayOptions) (*Result, error) {
	if err := e.journalReady(ctx); err != nil {
		return nil, err
	}
	unlock, err := e.lock(orderID)
	if err != nil {
		return nil, err
	}
	defer unlock()
	o, err := e.order(ctx, orderID)
	if err != nil {
		return nil, err
	}
	if o.State == StateIntent || o.ServiceOrderID == "" {
		return nil, fmt.Errorf("pos: await %q: %w: the order was never created", orderID, ErrBadEvent)
	}
	pid := inquiryPaymentID(o)
	if o.Tender == TenderPhone {
		opt.report(Progress{Step: StepWaiting, OrderID: o.ID, State: o.State})
	}
	return e.poll(ctx, o, pid, opt)
}

// inquiryPaymentID is the payment an inquiry about o asks for: its latest attempt's,
// or "" for the order with its latest payment. A phone order is always inquired as
// an order: the customer's attempts are made on the phone, unknown to the till
// until the service reports them.
func inquiryPaymentID(o *Order) string {
	if a := o.LastAttempt(); a != nil && o.Tender != TenderPhone {
		return a.PaymentID
	}
	return ""
}

// pay is one payment attempt of PayCard and PayEMI.
func (e *Payments) pay(ctx context.Context, orderID string, card *gateway.Card, opt PayOptions) (*Result, error) {
	if e.gw == nil {
		return nil, fmt.Errorf("pos: pay: %w", ErrNoGateway)
	}
	if err := e.journalReady(ctx); err != nil {
		return nil, err
	}
	unlock, err := e.lock(orderID)
	if err != nil {
		return nil, fmt.Errorf("pos: pay: %w: %w", ErrPaymentInFlight, err)
	}
	defer unlock()
	if err := e.ensureReconciled(ctx); err != nil {
		return nil, err
	}
	o, err := e.order(ctx, orderID)
	if err != nil {
		return nil, err
	}
	if o.Tender != TenderCard && o.Tender != TenderEMI {
		return nil, fmt.Errorf("pos: pay %q: %w: a %s order takes no card", o.ID, ErrBadEvent, o.Tender)
	}
	if err := o.CanPay(); err != nil {
		return nil, fmt.Errorf("pos: pay %q: %w", o.ID, err)
	}
	if err := e.refuseWhileUnrecorded(); err != nil {
		return nil, err
	}
	if err := e.dayOpen(ctx, e.today()); err != nil {
		return nil, err
	}
	if err := card.Check(e.clock.Now()); err != nil {
		return nil, fmt.Errorf("pos: pay %q: %w", o.ID, err)
	}
	var tenure gateway.EMITenure
	if o.Tender == TenderEMI {
		if err := unmarshalTenure(o.EMI, &tenure); err != nil {
			return nil, err
		}
		if o.EMI.IMEIRequired && !o.IMEIsValidated {
			if err := e.validateIMEIs(ctx, o, opt); err != nil {
				return nil, err
			}
		}
	}
	n := len(o.Attempts) + 1
	att := &AttemptEvent{N: n, CardBrand: card.Brand(), CardLast4: card.Last4()}
	if o.State == StateFailed {
		// A new attempt after a failure: journal it first, so the order is not final
		// while the payment is in the air. A split sale's tender is paid again only
		// while its sale is open and its amount still due, checked under the sale's
		// lock: from the attempt on it is pending and reserves its amount.
		release, err := e.sales.holdSaleFor(ctx, o)
		if err != nil {
			return nil, err
		}
		_, err = e.commit(ctx, o, Event{Kind: EvPaymentAttempt, Attempt: att})
		release()
		if err != nil {
			return nil, beforeMoney(err)
		}
	}
	opt.report(Progress{Step: StepPaying, OrderID: o.ID, Attempt: n, State: o.State})
	cust := e.customer(o.Customer)
	var resp *gateway.PaymentResponse
	var perr error
	if o.Tender == TenderEMI {
		resp, perr = e.gw.EMIPayment(ctx, gateway.EMIPaymentRequest{Token: o.Token, Card: card, Customer: cust, Tenure: tenure, AcquirerID: o.EMI.AcquirerID})
	} else {
		resp, perr = e.gw.CardPayment(ctx, o.Token, card, cust)
	}
	card.Zero()
	if perr == nil && (resp == nil || resp.PaymentID == "") {
		perr = fmt.Errorf("%w: %w: the payment was answered without a payment id", gateway.ErrOutcomeUnknown, gateway.ErrMalformed)
	}
	if perr != nil {
		return e.payFailed(ctx, o, att, perr, opt)
	}
	att.PaymentID, att.Amount = resp.PaymentID, Paise(resp.AmountInPaise)
	if _, err := e.record(ctx, o, Event{Kind: EvPaymentAccepted, Attempt: att}); err != nil {
		return nil, err
	}
	ch := Challenge{OrderID: o.ID, PaymentID: resp.PaymentID, Content: resp.Content}
	opt.report(Progress{Step: StepAuthenticating, OrderID: o.ID, Attempt: n, State: o.State, Challenge: &ch})
	if opt.Auth != nil && resp.Content != "" {
		if err := opt.Auth.Authenticate(ctx, ch); err != nil {
			// The step may still end elsewhere; only the inquiry knows.
			e.log.LogAttrs(ctx, slog.LevelWarn, "pos: authentication step", slog.String("order", o.ID), slog.String("error", err.Error()))
		}
	}
	return e.poll(ctx, o, resp.PaymentID, opt)
}

// payFailed handles a payment call that returned an error. A definite refusal
// fails the attempt (no money moved); anything else may have reached the service:
// the order is UNKNOWN and the same order is inquired, never paid again.
func (e *Payments) payFailed(ctx context.Context, o *Order, att *AttemptEvent, perr error, opt PayOptions) (*Result, error) {
	var ge *gateway.Error
	definite := errors.As(perr, &ge) && !errors.Is(perr, gateway.ErrOutcomeUnknown) && !errors.Is(perr, gateway.ErrServer) &&
		!errors.Is(perr, gateway.ErrAlreadyPaid)
	notSent := !errors.As(perr, &ge) && !errors.Is(perr, gateway.ErrOutcomeUnknown) &&
		(errors.Is(perr, gateway.ErrInvalidCard) || errors.Is(perr, gateway.ErrInvalidInput))
	if definite || notSent {
		if ge != nil {
			att.Code, att.Message = ge.Code, ge.Message
		} else {
			att.Message = perr.Error()
		}
		if _, err := e.record(ctx, o, Event{Kind: EvPaymentRefused, Attempt: att}); err != nil {
			return nil, err
		}
		opt.report(Progress{Step: StepFailed, OrderID: o.ID, Attempt: att.N, State: o.State, Message: Sentence(perr)})
		return &Result{Status: ResultFailed, Order: o, Reason: Sentence(perr), CanRetry: o.CanPay() == nil}, nil
	}
	reason := "the payment's answer was lost"
	if errors.Is(perr, gateway.ErrAlreadyPaid) {
		reason = "the payment service says the order is already paid"
	}
	ev := Event{Kind: EvOrderUnknown, Reason: reason, Attempt: att}
	if _, err := e.record(ctx, o, ev); err != nil {
		e.log.LogAttrs(ctx, slog.LevelWarn, "pos: payment answer lost", slog.String("order", o.ID), slog.String("error", perr.Error()))
		return nil, err
	}
	e.log.LogAttrs(ctx, slog.LevelWarn, "pos: payment answer lost; inquiring", slog.String("order", o.ID), slog.String("error", perr.Error()))
	opt.report(Progress{Step: StepUnknown, OrderID: o.ID, Attempt: att.N, State: o.State, Message: reason})
	if ctx.Err() != nil {
		return &Result{Status: ResultUnknown, Order: o, Reason: reason}, nil
	}
	return e.poll(ctx, o, "", opt)
}

// PollScheduleText says in words how a payment's verified status is polled (the
// schedule of pollDelay and DefaultMaxWait), for the cashier.
const PollScheduleText = "Checked every second for 10 s, then after 2 s, 5 s, 10 s and 30 s, then each minute for up to 20 minutes; after that the order stays UNKNOWN for the manager."

// pollDelay returns the wait before the next inquiry: every second for the first
// 10 s, then 2 s, 5 s, 10 s and 30 s, then each minute (DESIGN.md section 3). k
// counts the inquiries made after the first 10 s.
func pollDelay(elapsed time.Duration, k int) time.Duration {
	if elapsed < 10*time.Second {
		return time.Second
	}
	steps := [...]time.Duration{2 * time.Second, 5 * time.Second, 10 * time.Second, 30 * time.Second}
	if k < len(steps) {
		return steps[k]
	}
	return time.Minute
}

// poll inquires the order on the schedule of pollDelay until a verified answer
// decides it or the wait ends; then the order is left UNKNOWN for the reconciler.
// The caller holds the order's lock.
func (e *Payments) poll(ctx context.Context, o *Order, paymentID string, opt PayOptions) (*Result, error) {
	wait := e.maxWait
	if opt.Wait > 0 && opt.Wait < wait {
		wait = opt.Wait
	}
	start := e.clock.Now()
	unverified, mismatch := false, ""
	opt.report(Progress{Step: StepVerifying, OrderID: o.ID, State: o.State})
	for k := 0; ; {
		res, err := e.inquire(ctx, o, paymentID)
		if err != nil {
			return nil, err
		}
		if res.decided {
			return e.result(o, opt), nil
		}
		if res.mismatch != "" {
			mismatch = res.mismatch
			opt.report(Progress{Step: StepVerifying, OrderID: o.ID, State: o.State, Message: res.mismatch})
		}
		if res.unverified {
			unverified = true
			opt.report(Progress{Step: StepUnverified, OrderID: o.ID, State: o.State, Message: o.Reason})
		}
		if res.attemptFailed != nil {
			a := res.attemptFailed
			opt.report(Progress{Step: StepWaiting, OrderID: o.ID, Attempt: a.N, State: o.State,
				Message: fmt.Sprintf("Attempt %d on the phone did not go through (%s); the customer may try again.", a.N, a.Reason)})
		}
		if res.paymentID != "" && o.Tender != TenderPhone {
			paymentID = res.paymentID
		}
		elapsed := e.clock.Now().Sub(start)
		d := pollDelay(elapsed, k)
		if elapsed >= 10*time.Second {
			k++
		}
		if elapsed+d > wait || ctx.Err() != nil {
			break
		}
		if err := e.clock.Sleep(ctx, d); err != nil {
			break
		}
	}
	if !o.State.Final() && o.State != StateUnknown {
		reason := fmt.Sprintf("no final answer within %s", wait)
		if mismatch != "" {
			reason = fmt.Sprintf("no answer matching the sale within %s (%s)", wait, mismatch)
		}
		if ctx.Err() != nil {
			reason = "the checkout stopped waiting for the payment's answer"
		}
		if _, err := e.record(ctx, o, Event{Kind: EvOrderUnknown, Reason: reason}); err != nil {
			return nil, err
		}
	}
	r := e.result(o, opt)
	if unverified && r.Status == ResultUnknown {
		r.Status = ResultUnverified
	}
	return r, nil
}

// result turns an order's state into a Result and reports it.
func (e *Payments) result(o *Order, opt PayOptions) *Result {
	r := &Result{Order: o, Reason: o.Reason}
	step := StepUnknown
	switch {
	case o.State.Paid():
		r.Status, r.Reason, step = ResultPaid, "", StepPaid
	case o.State == StateFailed:
		r.Status, step = ResultFailed, StepFailed
		r.CanRetry = o.CanPay() == nil
	default:
		r.Status = ResultUnknown
		if r.Reason == "" {
			r.Reason = "the payment's outcome is not known yet"
		}
	}
	opt.report(Progress{Step: step, OrderID: o.ID, State: o.State, Message: r.Reason})
	return r
}

// inquiry is what one inquiry found.
type inquiry struct {
	decided       bool     // PAID or FAILED, or a verified answer that contradicts the journal
	unverified    bool     // the answer could not be verified
	paymentID     string   // the payment id the answer named
	attemptFailed *Attempt // a phone order: the attempt this answer newly recorded as failed, the order still open
	mismatch      string   // a verified answer that does not match the sale: why (recorded, not applied)
}

// MaxRecordedBody bounds the answer body kept in the journal with an ignored
// answer (DESIGN.md section 4: events stay compact).
const MaxRecordedBody = 1024

// boundedBody is at most MaxRecordedBody bytes of an answer's body, marked when
// cut. Inquiry answers carry masked card numbers only.
func boundedBody(raw []byte) string {
	if len(raw) <= MaxRecordedBody {
		return string(raw)
	}
	return strings.ToValidUTF8(string(raw[:MaxRecordedBody]), "") + "…[cut]"
}

// inquire asks the service once about o (its payment when the id is known) and
// journals what the answer changes. Transport errors are logged and leave o as it
// was.
func (e *Payments) inquire(ctx context.Context, o *Order, paymentID string) (inquiry, error) {
	var q *gateway.Inquiry
	var err error
	if paymentID != "" {
		q, err = e.gw.InquirePayment(ctx, o.ServiceOrderID, paymentID)
		if errors.Is(err, gateway.ErrNotFound) {
			q, err = e.gw.InquireOrder(ctx, o.ServiceOrderID)
		}
	} else {
		q, err = e.gw.InquireOrder(ctx, o.ServiceOrderID)
	}
	switch {
	case errors.Is(err, gateway.ErrSignature) || (q != nil && !q.Verified):
		var out Outcome
		if q != nil {
			out = outcomeOf(q)
		}
		if o.State == StateUnknown && o.Reason != "" && o.Reason == unverifiedReason {
			return inquiry{unverified: true}, nil // already recorded: UNKNOWN stays
		}
		if _, cerr := e.record(ctx, o, Event{Kind: EvAnswerUnverified, Reason: unverifiedReason, Outcome: &out}); cerr != nil {
			return inquiry{}, cerr
		}
		return inquiry{unverified: true}, nil
	case err != nil:
		if errors.Is(err, gateway.ErrUnauthorized) || errors.Is(err, gateway.ErrSecureHash) {
			return inquiry{}, fmt.Errorf("pos: inquire %q: %w", o.ID, err)
		}
		if ctx.Err() == nil {
			e.log.LogAttrs(ctx, slog.LevelWarn, "pos: inquiry", slog.String("order", o.ID), slog.String("error", err.Error()))
		}
		return inquiry{}, nil
	}
	out := outcomeOf(q)
	if why := o.AnswerMismatch(&out); why != "" {
		// A verified answer that does not match the journal decides nothing: it is
		// kept for the audit trail and the order is inquired again on the schedule
		// (only the schedule's end leaves it UNKNOWN).
		ev := Event{Kind: EvAnswerIgnored, Reason: why, Outcome: &out, Extra: map[string]string{"body": boundedBody(q.Raw)}}
		if _, cerr := e.record(ctx, o, ev); cerr != nil {
			return inquiry{}, cerr
		}
		e.log.LogAttrs(ctx, slog.LevelWarn, "pos: verified answer does not match the sale", slog.String("order", o.ID), slog.String("why", why))
		return inquiry{mismatch: why}, nil
	}
	ev := Event{Kind: EvPaymentOutcome, OrderID: o.ID, Outcome: &out}
	before, attempts := o.State, slices.Clone(o.Attempts)
	probe := o.Clone()
	perr := probe.Apply(ev)
	failed := q.Failed()
	if o.Tender == TenderPhone {
		// The customer may try again on the phone: a failed payment decides nothing
		// until the service's order itself has failed (contract section 6).
		failed = q.Verified && out.OrderStatus == gateway.OrderFailed
	}
	decisive := q.Charged() || failed || out.OrderStatus == gateway.OrderPartialRefunded || out.OrderStatus == gateway.OrderRefunded
	// A phone order's failed attempt, already recorded, is answered again on every
	// poll while the customer has not tried again: stale, and not journaled again.
	quiet := perr == nil || (o.Tender == TenderPhone && errors.Is(perr, ErrStaleEvent))
	if quiet && probe.State == before && !decisive && sameAttempts(probe.Attempts, o.Attempts) {
		return inquiry{paymentID: out.PaymentID}, nil // pending, or an attempt already recorded: nothing to journal
	}
	if _, cerr := e.record(ctx, o, ev); cerr != nil {
		return inquiry{}, cerr
	}
	decided := o.State.Paid() || o.State == StateFailed || (decisive && o.State == StateUnknown && o.Reason != unverifiedReason)
	res := inquiry{decided: decided, paymentID: out.PaymentID}
	if o.Tender == TenderPhone && !decided {
		res.attemptFailed = newlyFailed(attempts, o.Attempts)
	}
	return res, nil
}

// sameAttempts reports whether two lists of attempts say the same: the same
// attempts with the same payment ids and statuses.
func sameAttempts(a, b []Attempt) bool {
	return slices.EqualFunc(a, b, func(x, y Attempt) bool {
		return x.N == y.N && x.PaymentID == y.PaymentID && x.Status == y.Status
	})
}

// newlyFailed returns the attempt of after that failed since before, or nil.
func newlyFailed(before, after []Attempt) *Attempt {
	for i := range after {
		if after[i].Status == AttemptFailed && (i >= len(before) || before[i].Status != AttemptFailed) {
			a := after[i]
			return &a
		}
	}
	return nil
}

const unverifiedReason = "the payment service's answer could not be verified"

// outcomeOf copies an inquiry answer into an event payload.
func outcomeOf(q *gateway.Inquiry) Outcome {
	p := q.PaymentInfoData
	return Outcome{
		MerchantOrderID: q.MerchantData.OrderID, ServiceOrderID: q.ServiceOrderID(), PaymentID: p.PaymentID,
		OrderStatus: q.OrderData.OrderStatus, PaymentStatus: p.PaymentStatus, Amount: Paise(q.OrderData.Amount),
		Captured: Paise(p.CapturedAmountInPaisa), Refunded: Paise(max(q.OrderData.RefundAmount, p.RefundAmountInPaisa)),
		ResponseCode: p.PaymentResponseCode, ResponseMessage: p.PaymentResponseMessage, PaymentMode: p.PaymentMode,
		Issuer: p.IssuerName, MaskedCard: p.MaskedCardNumber, AuthCode: p.AuthCode, RRN: p.RRN,
		CompletedAt: p.PaymentCompletionDateTime,
	}
}

// ErrNotCancellable reports a cancel of an order that a payment may still reach:
// one with a payment attempt, or one paid on the customer's phone (its token left
// the terminal).
var ErrNotCancellable = sentenceError{"order not cancellable",
	"This sale cannot be cancelled: a payment may already have been made; check its status first."}

// Cancel abandons a card or EMI order that was created but never paid (no payment
// attempt was sent), for example when the customer walks away or the IMEIs must be
// entered again; the sale is then opened afresh.
func (e *Payments) Cancel(ctx context.Context, orderID, reason string) (*Order, error) {
	unlock, err := e.lock(orderID)
	if err != nil {
		return nil, err
	}
	defer unlock()
	o, err := e.order(ctx, orderID)
	if err != nil {
		return nil, err
	}
	if (o.State != StateCreated && o.State != StateIntent) || len(o.Attempts) > 0 || o.Tender == TenderPhone || o.Tender == TenderCash {
		return nil, fmt.Errorf("pos: cancel %q: %w", o.ID, ErrNotCancellable)
	}
	if reason == "" {
		reason = "cancelled at the counter before payment"
	}
	if _, err := e.commit(ctx, o, Event{Kind: EvOrderAbandoned, Reason: reason, Abandoned: &Abandoned{Reason: reason}}); err != nil {
		return nil, err
	}
	return o, nil
}
