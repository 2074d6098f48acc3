package pos

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"strconv"
	"strings"
	"time"

	"galla/gateway"
)

// Payments takes one order's payment: it opens the order at the service, pays it
// by card, EMI, cash or on the customer's phone, polls and inquires until it is
// final, offers and checks EMI schemes and the IMEIs they need, cancels an order
// not paid, and reconciles the orders left unresolved.
type Payments struct{ *engineCore }

// ReconcileReport is what one reconciliation did.
type ReconcileReport struct {
	Checked  int      // unresolved orders found
	Resolved []*Order // orders whose outcome is now final (and refunds now settled)
	Open     []*Order // orders still not final: shown to the manager, inquired again later
	Busy     []string // orders something else was acting on; left alone this time
}

// open journals a sale and, for every tender but cash, creates its order at the
// payment service (DESIGN.md section 2). The intent is committed before create
// order is sent. When create order's answer is lost (or the service says the order
// id was used, after a lost answer) no payment can have been sent: the order is
// journaled ABANDONED and the sale is journaled afresh under a new order id, at
// most three times (contract section 2).
//
// plan is the chosen EMI offer for TenderEMI and nil otherwise.
func (pm *Payments) open(ctx context.Context, sale Sale, tender TenderKind, plan *EMIPlan, opt PayOptions, pt part) (*Order, error) {
	if len(sale.Lines) == 0 {
		return nil, fmt.Errorf("pos: open: %w", ErrEmptyCart)
	}
	if tender == TenderSplit || (tender.local() && tender != TenderCash && pt.Sale == "") {
		return nil, fmt.Errorf("pos: open: %w: tender %s", ErrBadEvent, tender)
	}
	if !tender.local() && pm.gw == nil {
		return nil, fmt.Errorf("pos: open: %w", ErrNoGateway)
	}
	if tender == TenderEMI && plan == nil {
		return nil, fmt.Errorf("pos: open: %w: choose an EMI offer", ErrBadEvent)
	}
	if err := pm.journalReady(ctx); err != nil {
		return nil, err
	}
	if err := pm.refuseWhileUnrecorded(); err != nil {
		return nil, err
	}
	if err := pm.dayOpen(ctx, pm.today()); err != nil {
		return nil, err
	}
	if !tender.local() {
		if err := pm.ensureReconciled(ctx); err != nil {
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
		if id, err = pm.newID(pm.cfg.Terminal); err != nil {
			return nil, err
		}
	}
	// The order is busy from its intent until its create order is answered and
	// journaled: a reconciliation running meanwhile (Check now, the start's) must
	// not take the INTENT for a lost create order and abandon it.
	release, err := pm.lock(id)
	if err != nil {
		return nil, err
	}
	defer func() { release() }()
	if pt.Sale == "" && pt.ID == "" {
		// The store server reserves the phones before anything is journaled or
		// charged: an IMEI is sold at most once in the store (DESIGN.md section 11).
		if err := pm.store.reserveIMEIs(ctx, id, lines, sale.OverrideIMEIs); err != nil {
			return nil, err
		}
	}
	for try := 0; ; try++ {
		o := &Order{}
		in := &Intent{Tender: tender, Lines: lines, Totals: totals, Amount: totals.Total, EMI: plan,
			IMEIs: allIMEIs(lines), Replaces: replaces, Customer: sale.Customer, Buyer: sale.Buyer, ReturnURL: pm.cfg.ReturnURL, Sale: pt.Sale}
		if !tender.local() {
			in.Gateway = pm.cfg.GatewayID
		}
		intent := change{o, Event{Kind: EvOrderIntent, OrderID: id, Staff: sale.Staff, Intent: in}}
		if _, err := pm.commitAll(ctx, append(slices.Clip(pt.lead), intent)...); err != nil {
			return nil, beforeMoney(err)
		}
		pt.lead = nil // journaled: an intent after a lost create order answer is the tender's alone
		opt.report(Progress{Step: StepJournaled, OrderID: id, State: o.State})
		if tender.local() {
			return o, nil
		}
		created, cerr := pm.gw.CreateOrder(ctx, pm.gatewayOrder(o, sale))
		if cerr == nil && created.ServiceOrderID != "" && created.Token != "" {
			// Create order was sent: from here on the terminal never says "try again"
			// (record). If even this event cannot be written, no payment is sent, and
			// Reconcile abandons the order journaled at INTENT.
			if _, err := pm.record(ctx, o, Event{Kind: EvOrderCreated, Created: &Created{ServiceOrderID: created.ServiceOrderID, Token: created.Token}}); err != nil {
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
			if _, err := pm.record(ctx, o, ev); err != nil {
				return nil, err
			}
			return nil, fmt.Errorf("pos: create order %q: %w", id, cerr)
		}
		next := ""
		if try < 2 {
			if next, err = pm.newID(pm.cfg.Terminal); err != nil {
				return nil, err
			}
		}
		if _, err := pm.record(ctx, o, Event{Kind: EvOrderAbandoned, Reason: "create order's answer was lost",
			Abandoned: &Abandoned{Reason: "create order's answer was lost", NewOrderID: next}}); err != nil {
			return nil, err
		}
		pm.log.LogAttrs(ctx, slog.LevelWarn, "pos: create order answer lost; order abandoned",
			slog.String("order", id), slog.String("error", cerr.Error()))
		opt.report(Progress{Step: StepAbandoned, OrderID: id, State: o.State, Message: "the answer was lost; retrying under a new order id"})
		if next == "" {
			return nil, fmt.Errorf("pos: create order %q: %w", id, cerr)
		}
		held, err := pm.lock(next)
		if err != nil {
			return nil, err
		}
		release()
		release = held
		replaces, id = id, next
	}
}

// gatewayOrder is the create-order request of o.
func (pm *Payments) gatewayOrder(o *Order, sale Sale) *gateway.Order {
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
		Description: desc, Customer: pm.customer(o.Customer), Products: products(o.Lines),
	}
}

// PayCard sends a seamless card payment for an open order (CREATED, or FAILED with
// attempts left), takes the customer through authentication and polls the
// verified status. It owns card: the number and CVV are wiped before it returns.
func (pm *Payments) PayCard(ctx context.Context, orderID string, card *gateway.Card, opt PayOptions) (*Result, error) {
	defer card.Zero()
	return pm.pay(ctx, orderID, card, opt)
}

// PayEMI sends the EMI payment of an order opened with an EMI plan: for a brand
// offer that makes IMEIs mandatory it first validates the IMEIs (once), then pays,
// authenticates and polls like PayCard. It owns card and wipes it.
func (pm *Payments) PayEMI(ctx context.Context, orderID string, card *gateway.Card, opt PayOptions) (*Result, error) {
	defer card.Zero()
	return pm.pay(ctx, orderID, card, opt)
}

// closeUnpaid closes order id when it was refused before any payment was sent
// on it (created, no attempt): a sale's or a split sale's tender alike, so the
// sale is opened afresh, or the split sale's due amount is free again.
func (pm *Payments) closeUnpaid(ctx context.Context, id, reason string) {
	cur, err := pm.j.Order(ctx, id)
	if err != nil || cur.State != StateCreated || len(cur.Attempts) > 0 {
		return
	}
	if _, err := pm.Cancel(ctx, id, reason); err != nil {
		pm.log.LogAttrs(ctx, slog.LevelWarn, "pos: cancel", slog.String("order", id), slog.String("error", err.Error()))
	}
}

// checkIMEIsFirst validates the IMEIs of EMI order o, just opened, with the
// service before any card data is sent, when its offer makes them mandatory;
// an order whose IMEIs are refused is closed (no payment was sent on it). It
// serves a sale's EMI order and a split sale's EMI tender alike.
func (pm *Payments) checkIMEIsFirst(ctx context.Context, o *Order, plan EMIPlan, opt PayOptions) (*Order, error) {
	if !plan.IMEIRequired {
		return o, nil
	}
	unlock, err := pm.lock(o.ID)
	if err != nil {
		return nil, err
	}
	verr := pm.validateIMEIs(ctx, o, opt)
	unlock()
	if verr != nil {
		if _, cerr := pm.Cancel(ctx, o.ID, "IMEIs refused before payment: "+Sentence(verr)); cerr != nil {
			pm.log.LogAttrs(ctx, slog.LevelWarn, "pos: cancel", slog.String("order", o.ID), slog.String("error", cerr.Error()))
		}
		return nil, verr
	}
	return o, nil
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
func (pm *Payments) Await(ctx context.Context, orderID string, opt PayOptions) (*Result, error) {
	if err := pm.journalReady(ctx); err != nil {
		return nil, err
	}
	unlock, err := pm.lock(orderID)
	if err != nil {
		return nil, err
	}
	defer unlock()
	o, err := pm.order(ctx, orderID)
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
	return pm.poll(ctx, o, pid, opt)
}

// pay is one payment attempt of PayCard and PayEMI.
func (pm *Payments) pay(ctx context.Context, orderID string, card *gateway.Card, opt PayOptions) (*Result, error) {
	if pm.gw == nil {
		return nil, fmt.Errorf("pos: pay: %w", ErrNoGateway)
	}
	if err := pm.journalReady(ctx); err != nil {
		return nil, err
	}
	unlock, err := pm.lock(orderID)
	if err != nil {
		return nil, fmt.Errorf("pos: pay: %w: %w", ErrPaymentInFlight, err)
	}
	defer unlock()
	if err := pm.ensureReconciled(ctx); err != nil {
		return nil, err
	}
	o, err := pm.order(ctx, orderID)
	if err != nil {
		return nil, err
	}
	if o.Tender != TenderCard && o.Tender != TenderEMI {
		return nil, fmt.Errorf("pos: pay %q: %w: a %s order takes no card", o.ID, ErrBadEvent, o.Tender)
	}
	if err := o.CanPay(); err != nil {
		return nil, fmt.Errorf("pos: pay %q: %w", o.ID, err)
	}
	if err := pm.refuseWhileUnrecorded(); err != nil {
		return nil, err
	}
	if err := pm.dayOpen(ctx, pm.today()); err != nil {
		return nil, err
	}
	if err := card.Check(pm.clock.Now()); err != nil {
		return nil, fmt.Errorf("pos: pay %q: %w", o.ID, err)
	}
	var tenure gateway.EMITenure
	if o.Tender == TenderEMI {
		if err := unmarshalTenure(o.EMI, &tenure); err != nil {
			return nil, err
		}
		if o.EMI.IMEIRequired && !o.IMEIsValidated {
			if err := pm.validateIMEIs(ctx, o, opt); err != nil {
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
		release, err := pm.sales.holdSaleFor(ctx, o)
		if err != nil {
			return nil, err
		}
		_, err = pm.commit(ctx, o, Event{Kind: EvPaymentAttempt, Attempt: att})
		release()
		if err != nil {
			return nil, beforeMoney(err)
		}
	}
	opt.report(Progress{Step: StepPaying, OrderID: o.ID, Attempt: n, State: o.State})
	cust := pm.customer(o.Customer)
	var resp *gateway.PaymentResponse
	var perr error
	if o.Tender == TenderEMI {
		resp, perr = pm.gw.EMIPayment(ctx, gateway.EMIPaymentRequest{Token: o.Token, Card: card, Customer: cust, Tenure: tenure, AcquirerID: o.EMI.AcquirerID})
	} else {
		resp, perr = pm.gw.CardPayment(ctx, o.Token, card, cust)
	}
	card.Zero()
	if perr == nil && (resp == nil || resp.PaymentID == "") {
		perr = fmt.Errorf("%w: %w: the payment was answered without a payment id", gateway.ErrOutcomeUnknown, gateway.ErrMalformed)
	}
	if perr != nil {
		return pm.payFailed(ctx, o, att, perr, opt)
	}
	att.PaymentID, att.Amount = resp.PaymentID, Paise(resp.AmountInPaise)
	if _, err := pm.record(ctx, o, Event{Kind: EvPaymentAccepted, Attempt: att}); err != nil {
		return nil, err
	}
	ch := Challenge{OrderID: o.ID, PaymentID: resp.PaymentID, Content: resp.Content}
	opt.report(Progress{Step: StepAuthenticating, OrderID: o.ID, Attempt: n, State: o.State, Challenge: &ch})
	if opt.Auth != nil && resp.Content != "" {
		if err := opt.Auth.Authenticate(ctx, ch); err != nil {
			// The step may still end elsewhere; only the inquiry knows.
			pm.log.LogAttrs(ctx, slog.LevelWarn, "pos: authentication step", slog.String("order", o.ID), slog.String("error", err.Error()))
		}
	}
	return pm.poll(ctx, o, resp.PaymentID, opt)
}

// payFailed handles a payment call that returned an error. A definite refusal
// fails the attempt (no money moved); anything else may have reached the service:
// the order is UNKNOWN and the same order is inquired, never paid again.
func (pm *Payments) payFailed(ctx context.Context, o *Order, att *AttemptEvent, perr error, opt PayOptions) (*Result, error) {
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
		if _, err := pm.record(ctx, o, Event{Kind: EvPaymentRefused, Attempt: att}); err != nil {
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
	if _, err := pm.record(ctx, o, ev); err != nil {
		pm.log.LogAttrs(ctx, slog.LevelWarn, "pos: payment answer lost", slog.String("order", o.ID), slog.String("error", perr.Error()))
		return nil, err
	}
	pm.log.LogAttrs(ctx, slog.LevelWarn, "pos: payment answer lost; inquiring", slog.String("order", o.ID), slog.String("error", perr.Error()))
	opt.report(Progress{Step: StepUnknown, OrderID: o.ID, Attempt: att.N, State: o.State, Message: reason})
	if ctx.Err() != nil {
		return &Result{Status: ResultUnknown, Order: o, Reason: reason}, nil
	}
	return pm.poll(ctx, o, "", opt)
}

// poll inquires the order on the schedule of pollDelay until a verified answer
// decides it or the wait ends; then the order is left UNKNOWN for the reconciler.
// The caller holds the order's lock.
func (pm *Payments) poll(ctx context.Context, o *Order, paymentID string, opt PayOptions) (*Result, error) {
	wait := pm.maxWait
	if opt.Wait > 0 && opt.Wait < wait {
		wait = opt.Wait
	}
	start := pm.clock.Now()
	unverified, mismatch := false, ""
	opt.report(Progress{Step: StepVerifying, OrderID: o.ID, State: o.State})
	for k := 0; ; {
		res, err := pm.inquire(ctx, o, paymentID)
		if err != nil {
			return nil, err
		}
		if res.decided {
			return pm.result(o, opt), nil
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
		elapsed := pm.clock.Now().Sub(start)
		d := pollDelay(elapsed, k)
		if elapsed >= 10*time.Second {
			k++
		}
		if elapsed+d > wait || ctx.Err() != nil {
			break
		}
		if err := pm.clock.Sleep(ctx, d); err != nil {
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
		if _, err := pm.record(ctx, o, Event{Kind: EvOrderUnknown, Reason: reason}); err != nil {
			return nil, err
		}
	}
	r := pm.result(o, opt)
	if unverified && r.Status == ResultUnknown {
		r.Status = ResultUnverified
	}
	return r, nil
}

// result turns an order's state into a Result and reports it.
func (pm *Payments) result(o *Order, opt PayOptions) *Result {
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

// inquire asks the service once about o (its payment when the id is known) and
// journals what the answer changes. Transport errors are logged and leave o as it
// was.
func (pm *Payments) inquire(ctx context.Context, o *Order, paymentID string) (inquiry, error) {
	var q *gateway.Inquiry
	var err error
	if paymentID != "" {
		q, err = pm.gw.InquirePayment(ctx, o.ServiceOrderID, paymentID)
		if errors.Is(err, gateway.ErrNotFound) {
			q, err = pm.gw.InquireOrder(ctx, o.ServiceOrderID)
		}
	} else {
		q, err = pm.gw.InquireOrder(ctx, o.ServiceOrderID)
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
		if _, cerr := pm.record(ctx, o, Event{Kind: EvAnswerUnverified, Reason: unverifiedReason, Outcome: &out}); cerr != nil {
			return inquiry{}, cerr
		}
		return inquiry{unverified: true}, nil
	case err != nil:
		if errors.Is(err, gateway.ErrUnauthorized) || errors.Is(err, gateway.ErrSecureHash) {
			return inquiry{}, fmt.Errorf("pos: inquire %q: %w", o.ID, err)
		}
		if ctx.Err() == nil {
			pm.log.LogAttrs(ctx, slog.LevelWarn, "pos: inquiry", slog.String("order", o.ID), slog.String("error", err.Error()))
		}
		return inquiry{}, nil
	}
	out := outcomeOf(q)
	if why := o.AnswerMismatch(&out); why != "" {
		// A verified answer that does not match the journal decides nothing: it is
		// kept for the audit trail and the order is inquired again on the schedule
		// (only the schedule's end leaves it UNKNOWN).
		ev := Event{Kind: EvAnswerIgnored, Reason: why, Outcome: &out, Extra: map[string]string{"body": boundedBody(q.Raw)}}
		if _, cerr := pm.record(ctx, o, ev); cerr != nil {
			return inquiry{}, cerr
		}
		pm.log.LogAttrs(ctx, slog.LevelWarn, "pos: verified answer does not match the sale", slog.String("order", o.ID), slog.String("why", why))
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
	if cerr := pm.recordOutcome(ctx, o, ev); cerr != nil {
		return inquiry{}, cerr
	}
	decided := o.State.Paid() || o.State == StateFailed || (decisive && o.State == StateUnknown && o.Reason != unverifiedReason)
	res := inquiry{decided: decided, paymentID: out.PaymentID}
	if o.Tender == TenderPhone && !decided {
		res.attemptFailed = newlyFailed(attempts, o.Attempts)
	}
	return res, nil
}

// recordOutcome records ev, a verified answer about o. When o is a tender
// this answer pays and its sale is then covered, the sale's completion (its
// document number) is journaled in the same commit (Sales.journalTender); a
// sale something else is acting on (a void, a settlement) is left to it.
func (pm *Payments) recordOutcome(ctx context.Context, o *Order, ev Event) error {
	if o.Sale != "" {
		if unlock, err := pm.lockSale(o.Sale); err == nil {
			defer unlock()
			return pm.sales.journalTender(ctx, o.Sale, o, ev, true)
		}
	}
	_, err := pm.record(ctx, o, ev)
	return err
}

// Cancel abandons a card or EMI order that was created but never paid (no payment
// attempt was sent), for example when the customer walks away or the IMEIs must be
// entered again; the sale is then opened afresh.
func (pm *Payments) Cancel(ctx context.Context, orderID, reason string) (*Order, error) {
	unlock, err := pm.lock(orderID)
	if err != nil {
		return nil, err
	}
	defer unlock()
	o, err := pm.order(ctx, orderID)
	if err != nil {
		return nil, err
	}
	if (o.State != StateCreated && o.State != StateIntent) || len(o.Attempts) > 0 || o.Tender == TenderPhone || o.Tender == TenderCash {
		return nil, fmt.Errorf("pos: cancel %q: %w", o.ID, ErrNotCancellable)
	}
	if reason == "" {
		reason = "cancelled at the counter before payment"
	}
	if _, err := pm.commit(ctx, o, Event{Kind: EvOrderAbandoned, Reason: reason, Abandoned: &Abandoned{Reason: reason}}); err != nil {
		return nil, err
	}
	return o, nil
}

// EMIOffers asks the EMI calculator for the offers on lines (the whole cart, or
// one product) and groups them for the screen. A cart with no offer gets
// ErrNoEMIOffer.
func (pm *Payments) EMIOffers(ctx context.Context, lines []Line) (*OfferSet, error) {
	if pm.gw == nil {
		return nil, fmt.Errorf("pos: EMI offers: %w", ErrNoGateway)
	}
	if len(lines) == 0 {
		return nil, fmt.Errorf("pos: EMI offers: %w", ErrEmptyCart)
	}
	total := ComputeTotals(lines).Total
	offers, err := pm.gw.EMICalculator(ctx, int64(total), products(lines))
	if err != nil {
		return nil, fmt.Errorf("pos: EMI offers: %w", err)
	}
	set := &OfferSet{Amount: total, AcquirerID: offers.AcquirerID}
	for _, is := range offers.Issuers {
		io := IssuerOffers{Issuer: is.IssuerName, Debit: is.IsDebitEMIIssuer}
		for _, t := range is.Tenures {
			p, err := planOf(is, t, lines, offers.AcquirerID)
			if err != nil {
				return nil, err
			}
			io.Plans = append(io.Plans, p)
		}
		slices.SortStableFunc(io.Plans, func(a, b EMIPlan) int {
			if a.TenureMonths != b.TenureMonths {
				return a.TenureMonths - b.TenureMonths
			}
			return strings.Compare(a.Program, b.Program)
		})
		if len(io.Plans) > 0 {
			set.Issuers = append(set.Issuers, io)
		}
	}
	if len(set.Issuers) == 0 {
		return nil, fmt.Errorf("pos: EMI offers: %w", ErrNoEMIOffer)
	}
	return set, nil
}

// ValidateScheme checks with the service that plan applies to card for amount
// (the sale's total), once the card number is entered and before the order is
// created. It explains 14826 and 14819 with ErrOfferNotForCard and
// ErrOfferOutdated. It does not wipe card.
func (pm *Payments) ValidateScheme(ctx context.Context, plan EMIPlan, amount Paise, card *gateway.Card) error {
	if pm.gw == nil {
		return fmt.Errorf("pos: validate scheme: %w", ErrNoGateway)
	}
	var t gateway.EMITenure
	if err := unmarshalTenure(&plan, &t); err != nil {
		return err
	}
	err := pm.gw.ValidateScheme(ctx, int64(amount), card, t, plan.AcquirerID)
	switch {
	case err == nil:
		return nil
	case errors.Is(err, gateway.ErrOfferNotApplicable):
		return fmt.Errorf("pos: validate scheme: %w: %w", ErrOfferNotForCard, err)
	case errors.Is(err, gateway.ErrOfferOutdated):
		return fmt.Errorf("pos: validate scheme: %w: %w", ErrOfferOutdated, err)
	}
	return fmt.Errorf("pos: validate scheme: %w", err)
}

// validateIMEIs sends the order's IMEIs to the service and journals success. The
// caller holds the order's lock.
func (pm *Payments) validateIMEIs(ctx context.Context, o *Order, opt PayOptions) error {
	var items []gateway.IMEIItem
	sku, name := map[string]string{}, map[string]string{}
	for _, l := range o.Lines {
		if !l.Serialised {
			continue
		}
		code := l.ProductCode
		if code == "" {
			code = l.SKU
		}
		for _, s := range l.IMEIs {
			items = append(items, gateway.IMEIItem{ProductCode: code, IMEI: s})
			sku[s], name[s] = l.SKU, l.Name
		}
	}
	if len(items) == 0 {
		return fmt.Errorf("pos: IMEI validation: %w", ErrIMEIMissing)
	}
	res, err := pm.gw.ValidateIMEI(ctx, o.Token, items)
	if err != nil || !res.OK() {
		ie := &IMEIError{cause: err}
		if res != nil {
			for _, it := range res.Items {
				if it.Status.ResponseCode != gateway.CodeIMEISuccess {
					ie.Problems = append(ie.Problems, IMEIProblem{SKU: sku[it.IMEI], Name: name[it.IMEI], IMEI: it.IMEI, Reason: imeiReason(it.Status)})
				}
			}
		}
		if len(ie.Problems) == 0 && err != nil {
			return fmt.Errorf("pos: IMEI validation: %w", err)
		}
		return ie
	}
	imeis := make([]string, len(items))
	for i, it := range items {
		imeis[i] = it.IMEI
	}
	if _, err := pm.commit(ctx, o, Event{Kind: EvIMEIValidated, IMEIs: imeis}); err != nil {
		return err
	}
	opt.report(Progress{Step: StepIMEIValidated, OrderID: o.ID, State: o.State})
	return nil
}

// Reconcile resolves every order whose outcome is not final (DESIGN.md section 2,
// Restart): an order whose create order was never answered is abandoned (no
// payment can have been sent); every other one is inquired on the same service
// order and verified answers are applied; pending refunds are inquired and, when
// the service does not show them, sent again with the same unique_txn_id. Nothing
// is ever paid again under a new order id. It runs by itself before the engine's
// first new payment and on demand.
func (pm *Payments) Reconcile(ctx context.Context) (*ReconcileReport, error) {
	if err := pm.journalReady(ctx); err != nil {
		return nil, err
	}
	pm.recMu.Lock()
	defer pm.recMu.Unlock()
	orders, err := pm.j.Unresolved(ctx)
	if err != nil {
		return nil, fmt.Errorf("pos: reconcile: %w", err)
	}
	rep := &ReconcileReport{Checked: len(orders)}
	for _, o := range orders {
		if err := ctx.Err(); err != nil {
			return rep, err
		}
		unlock, err := pm.lock(o.ID)
		if err != nil {
			rep.Busy = append(rep.Busy, o.ID)
			continue
		}
		err = pm.reconcileOne(ctx, o)
		unlock()
		if err != nil {
			if ctx.Err() != nil {
				return rep, err
			}
			// A day closed today takes no more events until tomorrow; the order
			// stays open and is listed.
			pm.log.LogAttrs(ctx, slog.LevelWarn, "pos: reconcile", slog.String("order", o.ID), slog.String("error", err.Error()))
		}
		if o.Unresolved() {
			rep.Open = append(rep.Open, o)
		} else {
			rep.Resolved = append(rep.Resolved, o)
		}
	}
	pm.reconciled = true
	pm.releaseRecorded(ctx)
	pm.sales.settleOpenSales(ctx)
	var settled []string
	for _, o := range rep.Resolved {
		if o.cancelling() {
			settled = append(settled, o.ID)
		}
	}
	pm.refunds.finishCancellations(ctx, settled)
	return rep, nil
}

// reconcileOne tries once to resolve o. The caller holds its lock.
func (pm *Payments) reconcileOne(ctx context.Context, o *Order) error {
	// Re-read: the list may be older than the order.
	fresh, err := pm.j.Order(ctx, o.ID)
	if err != nil {
		return err
	}
	*o = *fresh
	switch {
	case o.State == StateIntent && o.Tender == TenderNote:
		// A credit-note tender stopped between its intent and its payment:
		// finish it (the note is redeemed once, whatever was journaled).
		return pm.sales.finishNoteTender(ctx, o)
	case o.State == StateIntent:
		// Create order may have been sent, and even answered, without order.created
		// reaching the journal (a crash, or a full disk: Engine.record). The service
		// has no inquiry by merchant order id (contract section 2), so the order is
		// not looked up: it is abandoned, which is safe because no payment call is
		// ever sent before order.created is journaled, so no money can have moved on
		// it. An order whose order.created was journaled is inquired by its service
		// order id below, whatever later events the journal missed.
		reason := "the terminal stopped before create order was answered"
		_, err := pm.commit(ctx, o, Event{Kind: EvOrderAbandoned, Reason: reason, Abandoned: &Abandoned{Reason: reason}})
		return err
	case o.PendingRefund() != nil:
		if pm.gw == nil && RefundDestination(o, o.PendingRefund().To) == RefundToCard {
			return ErrNoGateway
		}
		_, err := pm.refunds.settleRefund(ctx, o, o.PendingRefund().UniqueTxnID, true)
		return err
	case !o.State.Final():
		if pm.gw == nil {
			return ErrNoGateway
		}
		// A phone order is inquired as an order: the customer may have paid on the
		// phone with an attempt the till never saw.
		_, err := pm.inquire(ctx, o, inquiryPaymentID(o))
		return err
	}
	return nil
}
