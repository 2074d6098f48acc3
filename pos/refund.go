package pos

import (
	"context"
	"errors"
	"fmt"
	"log/slog"

	"galla/gateway"
)

// MinRefund is the smallest refund the payment service takes (contract section 7).
// Cash refunds have no minimum.
const MinRefund = Paise(100)

// RefundRequest asks for a refund of a paid order.
type RefundRequest struct {
	OrderID string
	Amount  Paise  // 0: all that is left to refund (or, with Items, their money)
	PIN     string // a manager's PIN
	Reason  string // why, as the manager says it
	// Cashier, when set, is the staff id of the cashier whose own PIN PIN is:
	// the refund is theirs to give alone up to their refund limit.
	Cashier string
	// To is where the money goes ("": the way the sale was paid).
	To RefundTo
	// Items are the goods returned (Order.ReturnItems); none refunds Amount as a
	// price adjustment, or the whole sale when nothing of it was refunded yet.
	Items []ReturnItem
	// cancel makes it a cancellation's refund (cancel.go): no credit note.
	cancel bool
	// reserveAt is, for a return of this counter's own invoice, its number as
	// printed: the refund's amount is reserved at the store first, when the
	// terminal is enrolled (reserveOwnReturn), so that returns of it at every
	// counter never add up to more than was paid.
	reserveAt string
	// drawer, when set, is the counter's drawer: a refund to a destination
	// that pays cash out of it is refused while it cannot take it
	// (refundNeedsShift), asked once the destination is decided, before
	// anything is journaled. The Returns gives its Drawer.
	drawer cashDrawer
}

// cashDrawer is the counter's drawer as a refund needs it: whether cash may be
// paid out of it now (Drawer.CashNeedsShift).
type cashDrawer interface {
	CashNeedsShift(ctx context.Context) error
}

// refundNeedsShift refuses a refund to to that pays cash out of the drawer
// (RefundTo.MovesCash) while the counter keeps shifts and none is open: cash
// paid back leaves a counted drawer, like cash taken. A refund to a card or onto
// a credit note needs no shift; with no drawer (nil) nothing is asked.
func refundNeedsShift(ctx context.Context, drawer cashDrawer, to RefundTo) error {
	if drawer == nil || !to.MovesCash() {
		return nil
	}
	return drawer.CashNeedsShift(ctx)
}

// refundItems are the items of a refund of amount of o asked without goods: the
// whole sale's lines when it was never refunded and amount is all of it, else a
// price adjustment split over its lines.
func refundItems(o *Order, amount Paise) []ReturnItem {
	if len(o.Refunds) == 0 && amount == o.Captured {
		var ask []ReturnQty
		for _, l := range o.Lines {
			ask = append(ask, ReturnQty{SKU: l.SKU, Qty: l.Qty})
		}
		if items, err := o.ReturnItems(ask); err == nil && ItemsAmount(items) == amount {
			return items
		}
	}
	return o.AdjustmentItems(amount)
}

// RefundResult is how a refund ended: RefundDone (confirmed by a verified answer),
// RefundFailed (refused; nothing refunded) or RefundPending (the answer is not in:
// the reconciler settles it with the same unique_txn_id, never a second refund).
type RefundResult struct {
	Status  RefundStatus
	Order   *Order
	Refund  Refund
	Manager Staff
	Reason  string // RefundFailed, RefundPending: why, in plain words
}

// Refund refunds all or part of a paid order, authorised by a manager's PIN
// (DESIGN.md section 2): the refund is journaled with a fresh unique_txn_id before
// the call, and done only on a verified answer. A reused id (1170) or a lost answer
// is settled by inquiring the order. A full refund of a brand-EMI sale frees its
// IMEIs at the service.
func (e *Refunds) Refund(ctx context.Context, r RefundRequest) (*RefundResult, error) {
	mgr, err := e.refundGate(ctx, r.PIN, r.Cashier != "")
	if err != nil {
		return nil, err
	}
	unlock, err := e.lock(r.OrderID)
	if err != nil {
		return nil, err
	}
	defer unlock()
	o, err := e.order(ctx, r.OrderID)
	if err != nil {
		return nil, err
	}
	if !o.State.Paid() || o.State == StateRefunded {
		return nil, fmt.Errorf("pos: refund %q: %w: the sale is %s", o.ID, ErrNotRefundable, o.State)
	}
	if o.PendingRefund() != nil {
		return nil, fmt.Errorf("pos: refund %q: %w: another refund is pending", o.ID, ErrNotRefundable)
	}
	refundable := o.Refundable()
	var split *splitLeft
	if o.Tender == TenderSplit {
		left, err := e.sales.splitLeft(ctx, o)
		if err != nil {
			return nil, err
		}
		split, refundable = &left, left.Total
	}
	amount := r.Amount
	if len(r.Items) > 0 {
		if amount != 0 && amount != ItemsAmount(r.Items) {
			return nil, fmt.Errorf("pos: refund %q: %w: %s asked for goods of %s", o.ID, ErrNotRefundable, amount, ItemsAmount(r.Items))
		}
		amount = ItemsAmount(r.Items)
		if amount > refundable {
			return nil, wrapf(ErrNotRefundable, "The goods come to %s but only %s of the sale is left to refund; return fewer, or make a price adjustment of at most %s.",
				amount, refundable, refundable)
		}
	}
	if amount == 0 {
		amount = refundable
	}
	if split != nil && amount <= 0 {
		return nil, wrapf(ErrNotRefundable, "Nothing of sale %s is left to refund.", o.NumberText())
	}
	if err := CheckRefundTo(o, r.To); err != nil {
		return nil, err
	}
	to, tender := RefundDestination(o, r.To), ""
	if split != nil {
		if to, tender, err = splitRoute(o.NumberText(), *split, amount, r.To); err != nil {
			return nil, err
		}
	}
	if amount <= 0 || amount > refundable || (to == RefundToCard && amount < MinRefund) {
		return nil, fmt.Errorf("pos: refund %q: %w: %s asked, %s left", o.ID, ErrNotRefundable, amount, refundable)
	}
	if to == RefundToCard && e.gw == nil {
		return nil, fmt.Errorf("pos: refund: %w", ErrNoGateway)
	}
	if err := refundNeedsShift(ctx, r.drawer, to); err != nil {
		return nil, err
	}
	if r.Cashier != "" {
		// A cashier's own refund, within their limit (Roster.CashierWithin).
		if mgr, err = e.roster.CashierWithin(ctx, r.Cashier, r.PIN, amount, e.clock.Now()); err != nil {
			return nil, err
		}
	}
	items := r.Items
	if len(items) == 0 {
		items = refundItems(o, amount)
	}
	uid, err := e.newID("R")
	if err != nil {
		return nil, err
	}
	release, err := e.store.reserveOwnReturn(ctx, r.reserveAt, uid, amount) // store-wide, when the return asks it
	if err != nil {
		return nil, err
	}
	ev := Event{Kind: EvRefundIntent, Staff: mgr.ID, Refund: &RefundEvent{UniqueTxnID: uid, Amount: amount, Reason: r.Reason, To: to, Tender: tender, Items: items, Cancel: r.cancel}}
	if _, err := e.commit(ctx, o, ev); err != nil {
		return nil, release(err)
	}
	res, err := e.settleRefund(ctx, o, uid, false)
	if err != nil {
		return nil, err
	}
	if res.Status == RefundFailed {
		_ = release(nil) // refused by the service: nothing refunded
	}
	res.Manager = *mgr
	return res, nil
}

// refundGate is what every refund passes before its order is touched: the
// journal checked, no payment whose outcome is not journaled, the manager's PIN
// (none for a cashier's own refund, which their limit decides once its amount
// is known), and the business day open. It returns the manager.
func (e *Refunds) refundGate(ctx context.Context, pin string, cashiers bool) (*Staff, error) {
	if err := e.journalReady(ctx); err != nil {
		return nil, err
	}
	if err := e.refuseWhileUnrecorded(); err != nil {
		return nil, err
	}
	var mgr *Staff
	if !cashiers {
		m, err := e.roster.AuthoriseManager(ctx, pin, e.clock.Now())
		if err != nil {
			return nil, err
		}
		mgr = m
	}
	if err := e.dayOpen(ctx, e.today()); err != nil {
		return nil, err
	}
	return mgr, nil
}

// settleRefund sends (or, for the reconciler, first inquires) the pending refund
// uid of o and journals its end when one is known. The caller holds o's lock.
func (e *Refunds) settleRefund(ctx context.Context, o *Order, uid string, inquireFirst bool) (*RefundResult, error) {
	idx := -1
	for i, rf := range o.Refunds {
		if rf.UniqueTxnID == uid {
			idx = i
		}
	}
	if idx < 0 || o.Refunds[idx].Status != RefundPending {
		return nil, fmt.Errorf("pos: refund %q: %w: no pending refund %s", o.ID, ErrBadEvent, uid)
	}
	pending := o.Refunds[idx]
	done := func(refundID string, refunded Paise) (*RefundResult, error) {
		ev := Event{Kind: EvRefundDone, Refund: &RefundEvent{UniqueTxnID: uid, Amount: pending.Amount, RefundID: refundID, Refunded: refunded}}
		if _, err := e.commit(ctx, o, ev); err != nil {
			return nil, err
		}
		return e.refundResult(o, uid, ""), nil
	}
	if RefundDestination(o, pending.To) != RefundToCard {
		// Cash from the drawer, or a credit note to spend: no service call.
		return done("", o.Refunded+pending.Amount)
	}
	// svc is the order at the service the money goes back through: o, or a
	// split sale's card tender, which the service knows and refunds.
	svc, base, err := e.refundThrough(ctx, o, pending)
	if err != nil {
		return nil, err
	}
	want := base + pending.Amount // the service's refunded total once this one is applied
	// reflected inquires the order: does the service show this refund?
	reflected := func() (bool, Paise) {
		q, err := e.gw.InquireOrder(ctx, svc.ServiceOrderID)
		if err != nil || q == nil || !q.Verified {
			return false, 0
		}
		out := outcomeOf(q)
		return out.Refunded >= want, out.Refunded
	}
	if inquireFirst {
		if ok, total := reflected(); ok {
			return done("", total)
		}
	}
	pid := svc.PaymentID
	if pid == "" {
		if a := svc.LastAttempt(); a != nil {
			pid = a.PaymentID
		}
	}
	q, err := e.gw.Refund(ctx, gateway.RefundRequest{UniqueTxnID: uid, AmountInPaise: int64(pending.Amount), ServiceOrderID: svc.ServiceOrderID, PaymentID: pid, MerchantOrderID: svc.ID})
	var ge *gateway.Error
	switch {
	case err == nil && q != nil && q.Verified:
		out := outcomeOf(q)
		if out.Refunded >= want {
			return done(q.PaymentInfoData.RefundID, out.Refunded)
		}
		e.log.LogAttrs(ctx, slog.LevelWarn, "pos: refund answer does not show the refund", slog.String("order", o.ID),
			slog.Int64("refunded", int64(out.Refunded)), slog.Int64("want", int64(want)))
	case errors.Is(err, gateway.ErrDuplicateRefund), errors.Is(err, gateway.ErrSignature),
		errors.Is(err, gateway.ErrOutcomeUnknown), errors.Is(err, gateway.ErrServer), !errors.As(err, &ge):
		if ok, total := reflected(); ok {
			return done("", total)
		}
		if err != nil {
			e.log.LogAttrs(ctx, slog.LevelWarn, "pos: refund outcome unknown", slog.String("order", o.ID), slog.String("error", err.Error()))
		}
	default: // a definite refusal
		ev := Event{Kind: EvRefundFailed, Reason: ge.Message, Refund: &RefundEvent{UniqueTxnID: uid, Amount: pending.Amount, Code: ge.Code, Message: ge.Message}}
		if _, cerr := e.commit(ctx, o, ev); cerr != nil {
			return nil, errors.Join(err, cerr)
		}
		return e.refundResult(o, uid, Sentence(err)), nil
	}
	return e.refundResult(o, uid, "The refund's answer was not confirmed; it will be checked again and never made twice."), nil
}

func (e *Refunds) refundResult(o *Order, uid, reason string) *RefundResult {
	r := &RefundResult{Order: o, Reason: reason}
	for _, rf := range o.Refunds {
		if rf.UniqueTxnID == uid {
			r.Refund = rf
			r.Status = rf.Status
		}
	}
	return r
}

// refundThrough is the order the service refunds for o's pending refund, and
// what the service had refunded of it before: o itself, or, for a split sale's
// card refund, the tender's order it names, whose own refunds and the sale's
// earlier refunds through it the service has made.
func (e *Refunds) refundThrough(ctx context.Context, o *Order, pending Refund) (*Order, Paise, error) {
	if o.Tender != TenderSplit {
		return o, o.Refunded, nil
	}
	c, err := e.sales.tenderOrder(ctx, pending.Tender)
	if err != nil {
		return nil, 0, err
	}
	if c == nil || pending.Tender == "" {
		return nil, 0, fmt.Errorf("pos: refund %q: %w: no tender %q to refund through", o.ID, ErrBadEvent, pending.Tender)
	}
	base := c.Refunded
	for _, rf := range o.Refunds {
		if rf.Status == RefundDone && rf.Tender == c.ID && rf.UniqueTxnID != pending.UniqueTxnID {
			base += rf.Amount
		}
	}
	return c, base, nil
}
