package pos

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strings"

	"galla/gateway"
)

// Refunds gives money back: a refund of a paid order the way it was paid, and
// the cancellation of a document with each of its tenders.
type Refunds struct{ *engineCore }

// Refund refunds all or part of a paid order, authorised by a manager's PIN
// (DESIGN.md section 2): the refund is journaled with a fresh unique_txn_id before
// the call, and done only on a verified answer. A reused id (1170) or a lost answer
// is settled by inquiring the order. A full refund of a brand-EMI sale frees its
// IMEIs at the service.
func (rf *Refunds) Refund(ctx context.Context, r RefundRequest) (*RefundResult, error) {
	mgr, err := rf.refundGate(ctx, r.PIN, r.Cashier != "")
	if err != nil {
		return nil, err
	}
	unlock, err := rf.lock(r.OrderID)
	if err != nil {
		return nil, err
	}
	defer unlock()
	o, err := rf.order(ctx, r.OrderID)
	if err != nil {
		return nil, err
	}
	if !o.State.Paid() || o.State == StateRefunded {
		return nil, fmt.Errorf("pos: refund %q: %w: the sale is %s", o.ID, ErrNotRefundable, o.State)
	}
	if o.PendingRefund() != nil {
		return nil, fmt.Errorf("pos: refund %q: %w: another refund is pending", o.ID, ErrNotRefundable)
	}
	sale, err := rf.sales.saleOf(ctx, o)
	if err != nil {
		return nil, err
	}
	refundable, _ := sale.returnable()
	var split *splitLeft
	if sale.split {
		left := sale.left()
		split = &left
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
	if to == RefundToCard && rf.gw == nil {
		return nil, fmt.Errorf("pos: refund: %w", ErrNoGateway)
	}
	if err := refundNeedsShift(ctx, r.drawer, to); err != nil {
		return nil, err
	}
	if r.Cashier != "" {
		// A cashier's own refund, within their limit (Roster.CashierWithin).
		if mgr, err = rf.roster.CashierWithin(ctx, r.Cashier, r.PIN, amount, rf.clock.Now()); err != nil {
			return nil, err
		}
	}
	items := r.Items
	if len(items) == 0 {
		items = refundItems(o, amount)
	}
	uid, err := rf.newID("R")
	if err != nil {
		return nil, err
	}
	release, err := rf.store.reserveOwnReturn(ctx, o, rf.reserveAt(o, r), uid, amount, items) // store-wide
	if err != nil {
		return nil, err
	}
	ev := Event{Kind: EvRefundIntent, Staff: mgr.ID, Refund: &RefundEvent{UniqueTxnID: uid, Amount: amount, Reason: r.Reason, To: to, Tender: tender, Items: items, Cancel: r.cancel}}
	if _, err := rf.commit(ctx, o, ev); err != nil {
		return nil, release(err)
	}
	res, err := rf.settleRefund(ctx, o, uid, false)
	if err != nil {
		return nil, err
	}
	if res.Status == RefundFailed {
		_ = release(nil) // refused by the service: nothing refunded
	}
	res.Manager = *mgr
	return res, nil
}

// reserveAt is the invoice number a refund of o is reserved under at the
// store: the return's (RefundRequest.reserveAt), or, for any other refund of
// a numbered sale of this counter (a refund by amount, a cancellation), the
// sale's own number, so that no refund of an invoice returned at another
// counter bypasses the store. A tender's order of a split sale has no number
// of its own and reserves nothing.
func (rf *Refunds) reserveAt(o *Order, r RefundRequest) string {
	if r.reserveAt != "" || (o.DocNo == 0 && o.ReceiptNo == 0) {
		return r.reserveAt
	}
	return o.Number(rf.cfg.Terminal)
}

// refundGate is what every refund passes before its order is touched: the
// journal checked, no payment whose outcome is not journaled, the manager's PIN
// (none for a cashier's own refund, which their limit decides once its amount
// is known), and the business day open. It returns the manager.
func (rf *Refunds) refundGate(ctx context.Context, pin string, cashiers bool) (*Staff, error) {
	if err := rf.journalReady(ctx); err != nil {
		return nil, err
	}
	if err := rf.refuseWhileUnrecorded(); err != nil {
		return nil, err
	}
	var mgr *Staff
	if !cashiers {
		m, err := rf.roster.AuthoriseManager(ctx, pin, rf.clock.Now())
		if err != nil {
			return nil, err
		}
		mgr = m
	}
	if err := rf.dayOpen(ctx, rf.today()); err != nil {
		return nil, err
	}
	return mgr, nil
}

// settleRefund sends (or, for the reconciler, first inquires) the pending refund
// uid of o and journals its end when one is known. The caller holds o's lock.
func (rf *Refunds) settleRefund(ctx context.Context, o *Order, uid string, inquireFirst bool) (*RefundResult, error) {
	idx := -1
	for i, ref := range o.Refunds {
		if ref.UniqueTxnID == uid {
			idx = i
		}
	}
	if idx < 0 || o.Refunds[idx].Status != RefundPending {
		return nil, fmt.Errorf("pos: refund %q: %w: no pending refund %s", o.ID, ErrBadEvent, uid)
	}
	pending := o.Refunds[idx]
	done := func(refundID string, refunded Paise) (*RefundResult, error) {
		ev := Event{Kind: EvRefundDone, Refund: &RefundEvent{UniqueTxnID: uid, Amount: pending.Amount, RefundID: refundID, Refunded: refunded}}
		if _, err := rf.commit(ctx, o, ev); err != nil {
			return nil, err
		}
		return rf.refundResult(o, uid, ""), nil
	}
	if RefundDestination(o, pending.To) != RefundToCard {
		// Cash from the drawer, or a credit note to spend: no service call.
		return done("", o.Refunded+pending.Amount)
	}
	// svc is the order at the service the money goes back through: o, or a
	// split sale's card tender, which the service knows and refunds.
	svc, base, err := rf.refundThrough(ctx, o, pending)
	if err != nil {
		return nil, err
	}
	want := base + pending.Amount // the service's refunded total once this one is applied
	// reflected inquires the order: does the service show this refund?
	reflected := func() (bool, Paise) {
		q, err := rf.gw.InquireOrder(ctx, svc.ServiceOrderID)
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
	q, err := rf.gw.Refund(ctx, gateway.RefundRequest{UniqueTxnID: uid, AmountInPaise: int64(pending.Amount), ServiceOrderID: svc.ServiceOrderID, PaymentID: pid, MerchantOrderID: svc.ID})
	var ge *gateway.Error
	switch {
	case err == nil && q != nil && q.Verified:
		out := outcomeOf(q)
		if out.Refunded >= want {
			return done(q.PaymentInfoData.RefundID, out.Refunded)
		}
		rf.log.LogAttrs(ctx, slog.LevelWarn, "pos: refund answer does not show the refund", slog.String("order", o.ID),
			slog.Int64("refunded", int64(out.Refunded)), slog.Int64("want", int64(want)))
	case errors.Is(err, gateway.ErrDuplicateRefund), errors.Is(err, gateway.ErrSignature),
		errors.Is(err, gateway.ErrOutcomeUnknown), errors.Is(err, gateway.ErrServer), !errors.As(err, &ge):
		if ok, total := reflected(); ok {
			return done("", total)
		}
		if err != nil {
			rf.log.LogAttrs(ctx, slog.LevelWarn, "pos: refund outcome unknown", slog.String("order", o.ID), slog.String("error", err.Error()))
		}
	default: // a definite refusal
		ev := Event{Kind: EvRefundFailed, Reason: ge.Message, Refund: &RefundEvent{UniqueTxnID: uid, Amount: pending.Amount, Code: ge.Code, Message: ge.Message}}
		if _, cerr := rf.commit(ctx, o, ev); cerr != nil {
			return nil, errors.Join(err, cerr)
		}
		return rf.refundResult(o, uid, Sentence(err)), nil
	}
	return rf.refundResult(o, uid, "The refund's answer was not confirmed; it will be checked again and never made twice."), nil
}

func (rf *Refunds) refundResult(o *Order, uid, reason string) *RefundResult {
	r := &RefundResult{Order: o, Reason: reason}
	for _, ref := range o.Refunds {
		if ref.UniqueTxnID == uid {
			r.Refund = ref
			r.Status = ref.Status
		}
	}
	return r
}

// refundThrough is the order the service refunds for o's pending refund, and
// what the service had refunded of it before: o itself, or, for a split sale's
// card refund, the tender's order it names, whose own refunds and the sale's
// earlier refunds through it the service has made.
func (rf *Refunds) refundThrough(ctx context.Context, o *Order, pending Refund) (*Order, Paise, error) {
	sale, err := rf.sales.saleOf(ctx, o)
	if err != nil {
		return nil, 0, err
	}
	c := sale.through(pending.Tender)
	if c == nil {
		return nil, 0, fmt.Errorf("pos: refund %q: %w: no tender %q to refund through", o.ID, ErrBadEvent, pending.Tender)
	}
	base := c.Refunded
	for _, ref := range o.Refunds {
		if ref.Status == RefundDone && ref.Tender == c.ID && ref.UniqueTxnID != pending.UniqueTxnID {
			base += ref.Amount
		}
	}
	return c, base, nil
}

// CancelDocument cancels the document of sale orderID on a manager's PIN, with
// the reason printed on it. See the comment at the top of cancel.go.
func (rf *Refunds) CancelDocument(ctx context.Context, orderID, pin, reason string) (*CancelResult, error) {
	return rf.cancelDocument(ctx, orderID, pin, reason, "")
}

// cancelDocument is CancelDocument with the terminal's name the document's
// number is printed with ("" prints it without).
func (rf *Refunds) cancelDocument(ctx context.Context, orderID, pin, reason, terminal string) (*CancelResult, error) {
	if err := rf.journalReady(ctx); err != nil {
		return nil, err
	}
	reason = strings.TrimSpace(reason)
	if reason == "" {
		return nil, Errorf("Type why the invoice is cancelled (for example \"customer left before delivery\"); the reason is printed on it.")
	}
	mgr, err := rf.roster.AuthoriseManager(ctx, pin, rf.clock.Now())
	if err != nil {
		return nil, err
	}
	unlock, err := rf.lock("cancel:" + orderID)
	if err != nil {
		return nil, err
	}
	defer unlock()
	o, err := rf.order(ctx, orderID)
	if err != nil {
		return nil, err
	}
	tenders, err := rf.cancelRefusal(ctx, o, terminal)
	if err != nil {
		return nil, err
	}
	num := firstNonEmpty(o.Number(terminal), o.ID)
	res := &CancelResult{Status: CancelDone, Number: num, OrderID: o.ID, Reason: reason, Manager: mgr.Name}
	for _, t := range tenders {
		if !t.State.Paid() {
			continue
		}
		ct, err := rf.cancelTender(ctx, t, pin, mgr.ID, reason)
		if err != nil {
			return nil, err
		}
		res.Tenders = append(res.Tenders, ct)
		switch ct.Status {
		case RefundPending:
			res.Status = CancelPending
			res.Pending = fmt.Sprintf("The refund of %s to the %s is not confirmed yet; it will be checked, never made twice, and invoice %s is cancelled as soon as it is confirmed (Check now, or the next check by itself).", ct.Amount, ct.Tender, num)
		case RefundFailed:
			return res, wrapf(ErrNoCancel, "The payment service refused the refund of %s to the %s, so invoice %s is not cancelled; check the payment, then cancel again or make a return.", ct.Amount, ct.Tender, num)
		}
	}
	if res.Status == CancelPending {
		res.Order = o
		return res, nil
	}
	// Every tender is given back: the document is cancelled.
	o, err = rf.order(ctx, o.ID)
	if err != nil {
		return nil, err
	}
	if err := rf.markCancelled(ctx, o, mgr.ID, reason); err != nil {
		return nil, err
	}
	res.Order = o
	return res, nil
}

// markCancelled journals document.cancelled on sale o, every tender's money
// being back, and gives its phones back at the store: they never left the shop,
// so any counter may sell them before this one syncs (without an answer the
// synced cancellation frees them there).
func (rf *Refunds) markCancelled(ctx context.Context, o *Order, staff, reason string) error {
	if _, err := rf.commit(ctx, o, Event{Kind: EvDocumentCancelled, Staff: staff, Reason: reason}); err != nil {
		return err
	}
	if d := rf.store.decisions(); d != nil {
		if err := rf.store.releaseAtStore(ctx, d, o.ID, nil); err != nil {
			rf.log.LogAttrs(ctx, slog.LevelWarn, "pos: release a cancelled sale at the store", slog.String("order", o.ID), slog.String("error", err.Error()))
		}
	}
	return nil
}

// finishCancellations journals document.cancelled for each sale among ids
// (orders, or tenders of split sales) whose cancellation was left pending on a
// refund that has since been confirmed: every tender's money is back, by the
// cancellation's refunds only. The reconciler calls it after settling refunds,
// so the manager need not cancel the invoice again; the manager and reason are
// those the cancellation's refunds were journaled with.
func (rf *Refunds) finishCancellations(ctx context.Context, ids []string) {
	seen := map[string]bool{}
	for _, id := range ids {
		o, err := rf.order(ctx, id)
		if err == nil && o.Sale != "" {
			o, err = rf.order(ctx, o.Sale)
		}
		if err != nil || seen[o.ID] || o.Cancelled != nil {
			continue
		}
		seen[o.ID] = true
		if err := rf.finishCancellation(ctx, o.ID); err != nil {
			rf.log.LogAttrs(ctx, slog.LevelWarn, "pos: finish a cancellation", slog.String("order", o.ID), slog.String("error", err.Error()))
		}
	}
}

// finishCancellation journals document.cancelled for sale id when its
// cancellation's refunds are all done and nothing else was refunded.
func (rf *Refunds) finishCancellation(ctx context.Context, id string) error {
	unlock, err := rf.lock("cancel:" + id)
	if err != nil {
		return nil // a cancellation is under way at the counter: it finishes itself
	}
	defer unlock()
	o, err := rf.order(ctx, id)
	if err != nil || o.Cancelled != nil || !o.State.Paid() {
		return err
	}
	tenders, err := rf.cancelTenders(ctx, o)
	if err != nil {
		return err
	}
	var staff, reason string
	for _, t := range tenders {
		if t.returnedAgainst() || t.Refundable() > 0 {
			return nil // not all given back, or given back by a return: no cancellation to finish
		}
		for _, r := range t.Refunds {
			switch {
			case r.Status == RefundFailed:
			case !r.Cancel || r.Status != RefundDone:
				return nil
			default:
				staff, reason = r.Staff, r.Reason
			}
		}
	}
	if reason == "" {
		return nil // no cancellation's refund: nothing begun
	}
	o, err = rf.order(ctx, id)
	if err != nil {
		return err
	}
	return rf.markCancelled(ctx, o, staff, reason)
}

// cancelRefusal is the one pre-check of a cancellation of sale o's document,
// before anything is given back: nil when it may go ahead, with the orders
// whose money it gives back (cancelTenders), else why not as a sentence for
// the cashier (ErrNoCancel, ErrAlreadyCancelled, or the day's). A tender's
// order has no document of its own; a document with a credit note against it
// (a return of the sale, or of one of its tenders in an older journal) is
// final; a cancellation not begun yet is of today's invoice only, on an open
// day, with none of its payments still being checked; one begun is finished
// whatever the day. The counter's cancel (cancelDocument) and the journal
// screen's offer of it (Returns.CanCancel) both ask it; terminal is the name
// the document's number is printed with.
func (rf *Refunds) cancelRefusal(ctx context.Context, o *Order, terminal string) ([]*Order, error) {
	if o.Sale != "" {
		return nil, wrapf(ErrNoCancel, "Order %s is one tender of split sale %s: cancel that sale's invoice.", o.ID, o.Sale)
	}
	num := firstNonEmpty(o.Number(terminal), o.ID)
	if o.Cancelled != nil {
		return nil, wrapf(ErrAlreadyCancelled, "Invoice %s is already cancelled (%s).", num, o.Cancelled.Reason)
	}
	if !o.State.Paid() || (o.DocNo == 0 && o.ReceiptNo == 0) {
		if o.State == StateOpen {
			return nil, wrapf(ErrNoCancel, "Sale %s is not paid in full and has no invoice yet: void the sale instead.", o.ID)
		}
		return nil, wrapf(ErrNoCancel, "Sale %s is %s: it has no invoice to cancel.", o.ID, o.State)
	}
	tenders, err := rf.cancelTenders(ctx, o)
	if err != nil {
		return nil, err
	}
	begun := false
	for _, t := range append([]*Order{o}, tenders...) { // a sale's returns are the sale's, not its tenders'
		if t.returnedAgainst() {
			return nil, wrapf(ErrNoCancel, "Invoice %s has a credit note against it, so it can no longer be cancelled; make a return (credit note) for the rest instead.", num)
		}
		begun = begun || t.cancelling()
	}
	if begun {
		return tenders, nil
	}
	if o.PaidDay != rf.today() {
		return nil, wrapf(ErrNoCancel, "Invoice %s was issued on %s; only an invoice of today's business day can be cancelled: make a return (credit note) instead.", num, o.PaidDay)
	}
	if err := rf.dayOpen(ctx, rf.today()); err != nil {
		return nil, err
	}
	for _, t := range tenders {
		if !t.State.Final() {
			return nil, wrapf(ErrNoCancel, "A payment of invoice %s is still being checked; use Check now, then cancel it.", num)
		}
	}
	return tenders, nil
}

// cancelTenders are the orders whose money a cancellation of o gives back: o
// itself, or each tender's order of a split sale.
func (rf *Refunds) cancelTenders(ctx context.Context, o *Order) ([]*Order, error) {
	sale, err := rf.sales.saleOf(ctx, o)
	if err != nil {
		return nil, err
	}
	return sale.orders(), nil
}

// cancelTender gives back what is left of tender's order o: a cancellation's
// refund pending from before is settled (inquired first, then the same
// unique_txn_id); otherwise a new one is journaled, marked Cancel, and made.
func (rf *Refunds) cancelTender(ctx context.Context, o *Order, pin, staff, reason string) (CancelTender, error) {
	ct := CancelTender{OrderID: o.ID, Tender: o.Tender, Amount: o.Captured - o.Refunded, Status: RefundDone}
	if o.Note != nil {
		ct.NoteNo = o.Note.Number
	}
	if o.NoteNo != "" {
		ct.NoteNo = o.NoteNo
	}
	if p := o.PendingRefund(); p != nil {
		// Begun before (the terminal stopped, or the answer was lost).
		ct.Amount = p.Amount
		if RefundDestination(o, p.To) == RefundToCard && rf.gw == nil {
			return ct, fmt.Errorf("pos: cancel: %w", ErrNoGateway)
		}
		unlock, err := rf.lock(o.ID)
		if err != nil {
			return ct, err
		}
		defer unlock()
		res, err := rf.settleRefund(ctx, o, p.UniqueTxnID, true)
		if err != nil {
			return ct, err
		}
		ct.Status = res.Status
		return ct, nil
	}
	if o.Refundable() <= 0 {
		return ct, nil // given back already
	}
	ct.Amount = o.Refundable()
	if !o.Tender.local() {
		res, err := rf.Refund(ctx, RefundRequest{OrderID: o.ID, PIN: pin, Reason: reason, To: RefundToCard, cancel: true})
		if err != nil {
			return ct, err
		}
		ct.Status = res.Status
		return ct, nil
	}
	return ct, rf.sales.giveBackLocal(ctx, o, ct.NoteNo, staff, reason, true)
}
