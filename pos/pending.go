package pos

import (
	"context"
	"errors"
	"time"
)

// Pending is the counter's view of payments that are not final (DESIGN.md
// section 3): a payment whose authentication step was cancelled or whose screen
// was left stays pending, in the status bar and the journal, with "Check now";
// the cart it belongs to is locked until it is final; one that resolves after
// the cashier moved on raises a notice with the receipt to print (DESIGN.md
// section 10); and the reconciliation of every payment not final is its too.
// It owns the core's inFlight and follow maps.
type Pending struct{ *core }

// PendingPayment is a payment whose outcome is not final and that no payment call
// is waiting for, as the status bar names it.
type PendingPayment struct {
	OrderID string
	Amount  Paise
	State   OrderState
}

// PayNotice is a payment the counter had left pending that is now final.
type PayNotice struct {
	OrderID   string
	State     OrderState // PAID (or a refund state), FAILED or ABANDONED
	Amount    Paise
	ReceiptNo string // the receipt to print when it was paid
	// Sale is, for a tender that completed its sale, the sale's id: its
	// receipt is the one to print.
	Sale string
	// Text is the notice as the status bar shows it: "Order X: PAID — receipt 7".
	Text string
}

// Paid reports whether the notice is of a paid order, whose receipt can be printed.
func (n PayNotice) Paid() bool { return n.State.Paid() }

// CartLock says whether a cart whose payment is order id may take a tender or
// change a line.
type CartLock struct {
	// Locked is true while the payment is in flight or its outcome is unknown: no
	// second tender, no line changed.
	Locked bool
	// Paid is true when the payment was verified PAID: the cart is sold.
	Paid bool
	// Reason is the sentence for the cashier.
	Reason string
}

// followState is what the till remembers of a payment left pending: when it was
// first seen pending and when it is next inquired by FollowUp.
type followState struct {
	since time.Time
	next  time.Time
	k     int // inquiries made after the first 10 s, for pollDelay
}

// paying marks order id as having a payment call in flight (Pay has not returned).
func (pd *Pending) paying(id string) {
	if id == "" {
		return
	}
	pd.mu.Lock()
	pd.inFlight[id] = true
	pd.mu.Unlock()
}

// payReturned records how a payment call of order id ended: a final outcome was
// handed to the front end, which shows it; anything else is followed up.
func (pd *Pending) payReturned(id string, final bool) {
	if id == "" {
		return
	}
	pd.mu.Lock()
	defer pd.mu.Unlock()
	delete(pd.inFlight, id)
	if final {
		delete(pd.follow, id)
		return
	}
	if _, ok := pd.follow[id]; !ok {
		now := pd.eng.Now()
		pd.follow[id] = &followState{since: now, next: now}
	}
}

// watch follows up the unresolved orders that no payment call waits for and
// returns them: the payments whose outcome is unknown. The others are in
// progress (inProgress).
func (pd *Pending) watch(orders []*Order) []PendingPayment {
	pd.mu.Lock()
	defer pd.mu.Unlock()
	var out []PendingPayment
	for _, o := range orders {
		if pd.inProgress(o) {
			continue
		}
		if _, ok := pd.follow[o.ID]; !ok {
			now := pd.eng.Now()
			pd.follow[o.ID] = &followState{since: now, next: now}
		}
		out = append(out, PendingPayment{OrderID: o.ID, Amount: o.Amount, State: o.State})
	}
	return out
}

// inProgress reports whether an unresolved order is in progress rather than
// of unknown outcome: its payment call is running (the order being created, the
// customer at the OTP or 3-D Secure step, the service being polled), or it was
// journaled or created and no payment was sent on it (card and EMI), so no
// money can have moved (a brand-EMI order whose IMEIs were validated, waiting for the card).
// pd.mu is held.
func (pd *Pending) inProgress(o *Order) bool {
	if pd.inFlight[o.ID] || o.State == StateIntent {
		return true
	}
	// A phone order is paid on the customer's phone without the till sending
	// anything: created is enough for money to move.
	return o.State == StateCreated && len(o.Attempts) == 0 && o.Tender != TenderPhone && o.PendingRefund() == nil
}

// CheckOrder inquires the payment of order id now (the cashier's "Check now") and
// returns where it stands. A verified answer decides it; otherwise it stays
// UNKNOWN and is inquired again. An order with a payment call in flight is left
// to that call.
func (pd *Pending) CheckOrder(ctx context.Context, id string) (PayOutcome, error) {
	pd.mu.Lock()
	busy := pd.inFlight[id]
	pd.mu.Unlock()
	if busy {
		return PayOutcome{}, Errorf("The payment of order %s is being checked already; wait for its result.", id)
	}
	o, err := pd.eng.Order(ctx, id)
	if err != nil {
		return PayOutcome{}, err
	}
	if o.Unresolved() {
		if err := pd.inquireOne(ctx, o); err != nil {
			pd.noteErr(err)
			return PayOutcome{}, err
		}
		if o, err = pd.eng.Order(ctx, id); err != nil {
			return PayOutcome{}, err
		}
	}
	return orderOutcome(o, pd.cfg.Terminal), nil
}

// inquireOne asks the service once about o. An UNKNOWN order is inquired alone
// (the engine's await with no wait); anything else unresolved (a pending refund,
// an order a crash left in its authentication step) goes through the reconciler.
func (pd *Pending) inquireOne(ctx context.Context, o *Order) error {
	if o.State == StateUnknown && o.PendingRefund() == nil {
		_, err := pd.eng.Payments.Await(ctx, o.ID, PayOptions{Wait: time.Nanosecond})
		if errors.Is(err, ErrOrderBusy) {
			return Errorf("Order %s is being checked already; wait for its result.", o.ID)
		}
		return err
	}
	rep, err := pd.eng.Payments.Reconcile(ctx)
	if err != nil {
		return err
	}
	for _, b := range rep.Busy {
		if b == o.ID {
			return Errorf("Order %s is being checked already; wait for its result.", o.ID)
		}
	}
	return nil
}

// orderOutcome is the front ends' outcome of a journaled order; its document
// number is printed with terminal.
func orderOutcome(o *Order, terminal string) PayOutcome {
	res := &Result{Order: o, Reason: o.Reason, Status: ResultUnknown}
	switch {
	case o.State.Paid():
		res.Status, res.Reason = ResultPaid, ""
	case o.State == StateFailed:
		res.Status, res.CanRetry = ResultFailed, o.CanPay() == nil
	}
	out := payOutcomeOf(res, terminal)
	if o.State == StateAbandoned {
		out.State = StateAbandoned
	}
	return out
}

// CartLock says whether the cart whose payment is order id is locked to it: while
// the payment is in flight or its outcome is unknown, no second tender is taken
// and no line changes, until it is verified PAID or verified not charged. An empty
// id (no payment yet) or an order the journal does not hold locks nothing.
func (pd *Pending) CartLock(ctx context.Context, id string) CartLock {
	if id == "" {
		return CartLock{}
	}
	pd.mu.Lock()
	busy := pd.inFlight[id]
	pd.mu.Unlock()
	if busy {
		return CartLock{Locked: true, Reason: "The payment of order " + id + " is in progress: wait for its result before another tender or a change to the cart."}
	}
	o, err := pd.eng.Order(ctx, id)
	switch {
	case errors.Is(err, ErrOrderNotFound):
		return CartLock{}
	case err != nil:
		return CartLock{Locked: true, Reason: "The payment of order " + id + " cannot be read now (" + Sentence(err) + "); the cart stays locked to it."}
	case o.State.Paid():
		return CartLock{Paid: true, Reason: "Order " + id + " is PAID" + receiptText(o) + "."}
	case o.State == StateFailed || o.State == StateAbandoned:
		return CartLock{Reason: "Order " + id + " was not charged (" + string(o.State) + "); the cart may be paid again."}
	}
	return CartLock{Locked: true, Reason: "The payment of order " + id + " is pending: its outcome is not known yet. " +
		"No other tender and no change to this cart until it is checked (Check now, Ctrl+K); New sale (Ctrl+N) serves the next customer."}
}

func receiptText(o *Order) string {
	if o.NumberText() == "" {
		return ""
	}
	return " — receipt " + o.NumberText()
}

// FollowUp inquires the payments left pending once each when their turn comes (the
// poll schedule of a payment, from when the till first saw them pending: every
// second at first, then at most each minute) and returns those that became final
// since it was last asked, whoever resolved them: this call, "Check now", the
// reconciler at start. A payment whose call is still in flight is left to it; its
// outcome goes to its caller. The window calls it with the status bar.
func (pd *Pending) FollowUp(ctx context.Context) ([]PayNotice, error) {
	un, err := pd.j.Unresolved(ctx)
	if err != nil {
		return nil, err
	}
	pd.watch(un)
	now := pd.eng.Now()
	var due []*Order
	pd.mu.Lock()
	for _, o := range un {
		f := pd.follow[o.ID]
		if f == nil || pd.inFlight[o.ID] || o.State != StateUnknown || now.Before(f.next) {
			continue
		}
		elapsed := now.Sub(f.since)
		f.next = now.Add(pollDelay(elapsed, f.k))
		if elapsed >= 10*time.Second {
			f.k++
		}
		due = append(due, o)
	}
	pd.mu.Unlock()
	var errs []error
	for _, o := range due {
		if err := pd.inquireOne(ctx, o); err != nil && ctx.Err() == nil {
			pd.noteErr(err)
			errs = append(errs, err)
		}
	}
	pd.mu.Lock()
	ids := make([]string, 0, len(pd.follow))
	for id := range pd.follow {
		if !pd.inFlight[id] {
			ids = append(ids, id)
		}
	}
	pd.mu.Unlock()
	var out []PayNotice
	for _, id := range ids {
		o, err := pd.eng.Order(ctx, id)
		if err != nil || o.Unresolved() {
			continue
		}
		pd.mu.Lock()
		_, still := pd.follow[id]
		if still && !pd.inFlight[id] {
			delete(pd.follow, id)
		} else {
			still = false
		}
		pd.mu.Unlock()
		if still {
			out = append(out, pd.noticeOf(ctx, o))
		}
	}
	return out, errors.Join(errs...)
}

// noticeOf is the notice of an order that became final: a tender paid
// completes its sale when it covers it, and the notice names the sale's
// document.
func (pd *Pending) noticeOf(ctx context.Context, o *Order) PayNotice {
	n := noticeOf(o)
	if o.Sale == "" || !o.State.Paid() {
		return n
	}
	st, err := pd.eng.Sales.SettleSale(ctx, o.Sale)
	if err != nil {
		pd.noteErr(err)
		return n
	}
	if st.Complete() {
		n.Sale, n.ReceiptNo = st.Sale.ID, st.Sale.NumberText()
		n.Text = "Order " + o.ID + ": PAID " + o.Amount.String() + receiptText(st.Sale)
	}
	return n
}

// noticeOf is the notice of an order that became final.
func noticeOf(o *Order) PayNotice {
	n := PayNotice{OrderID: o.ID, State: o.State, Amount: o.Amount}
	n.ReceiptNo = o.NumberText()
	switch {
	case o.State.Paid():
		n.Text = "Order " + o.ID + ": PAID " + o.Amount.String() + receiptText(o)
	default:
		n.Text = "Order " + o.ID + ": " + string(o.State) + " — not charged"
	}
	return n
}

// Reconcile resolves every payment whose outcome is not final (DESIGN.md section 2,
// "Restart").
func (pd *Pending) Reconcile(ctx context.Context) (*ReconcileReport, error) {
	rep, err := pd.eng.Payments.Reconcile(ctx)
	if err != nil {
		pd.noteErr(err)
	}
	return rep, err
}
