package pos

import (
	"context"
	"fmt"
	"log/slog"
)

// ReconcileReport is what one reconciliation did.
type ReconcileReport struct {
	Checked  int      // unresolved orders found
	Resolved []*Order // orders whose outcome is now final (and refunds now settled)
	Open     []*Order // orders still not final: shown to the manager, inquired again later
	Busy     []string // orders something else was acting on; left alone this time
}

// Reconcile resolves every order whose outcome is not final (DESIGN.md section 2,
// Restart): an order whose create order was never answered is abandoned (no
// payment can have been sent); every other one is inquired on the same service
// order and verified answers are applied; pending refunds are inquired and, when
// the service does not show them, sent again with the same unique_txn_id. Nothing
// is ever paid again under a new order id. It runs by itself before the engine's
// first new payment and on demand.
func (e *Payments) Reconcile(ctx context.Context) (*ReconcileReport, error) {
	if err := e.journalReady(ctx); err != nil {
		return nil, err
	}
	e.recMu.Lock()
	defer e.recMu.Unlock()
	orders, err := e.j.Unresolved(ctx)
	if err != nil {
		return nil, fmt.Errorf("pos: reconcile: %w", err)
	}
	rep := &ReconcileReport{Checked: len(orders)}
	for _, o := range orders {
		if err := ctx.Err(); err != nil {
			return rep, err
		}
		unlock, err := e.lock(o.ID)
		if err != nil {
			rep.Busy = append(rep.Busy, o.ID)
			continue
		}
		err = e.reconcileOne(ctx, o)
		unlock()
		if err != nil {
			if ctx.Err() != nil {
				return rep, err
			}
			// A day closed today takes no more events until tomorrow; the order
			// stays open and is listed.
			e.log.LogAttrs(ctx, slog.LevelWarn, "pos: reconcile", slog.String("order", o.ID), slog.String("error", err.Error()))
		}
		if o.Unresolved() {
			rep.Open = append(rep.Open, o)
		} else {
			rep.Resolved = append(rep.Resolved, o)
		}
	}
	e.reconciled = true
	e.releaseRecorded(ctx)
	e.sales.settleOpenSales(ctx)
	var settled []string
	for _, o := range rep.Resolved {
		if o.cancelling() {
			settled = append(settled, o.ID)
		}
	}
	e.refunds.finishCancellations(ctx, settled)
	return rep, nil
}

// reconcileOne tries once to resolve o. The caller holds its lock.
func (e *Payments) reconcileOne(ctx context.Context, o *Order) error {
	// Re-read: the list may be older than the order.
	fresh, err := e.j.Order(ctx, o.ID)
	if err != nil {
		return err
	}
	*o = *fresh
	switch {
	case o.State == StateIntent && o.Tender == TenderNote:
		// A sale paid by a credit note stopped between its intent and its
		// payment: finish it (the note is redeemed once, whatever was journaled).
		_, err := e.store.settleNote(ctx, o, false)
		return err
	case o.State == StateIntent:
		// Create order may have been sent, and even answered, without order.created
		// reaching the journal (a crash, or a full disk: Engine.record). The service
		// has no inquiry by merchant order id (contract section 2), so the order is
		// not looked up: it is abandoned, which is safe because no payment call is
		// ever sent before order.created is journaled, so no money can have moved on
		// it. An order whose order.created was journaled is inquired by its service
		// order id below, whatever later events the journal missed.
		reason := "the terminal stopped before create order was answered"
		_, err := e.commit(ctx, o, Event{Kind: EvOrderAbandoned, Reason: reason, Abandoned: &Abandoned{Reason: reason}})
		return err
	case o.PendingRefund() != nil:
		if e.gw == nil && RefundDestination(o, o.PendingRefund().To) == RefundToCard {
			return ErrNoGateway
		}
		_, err := e.refunds.settleRefund(ctx, o, o.PendingRefund().UniqueTxnID, true)
		return err
	case !o.State.Final():
		if e.gw == nil {
			return ErrNoGateway
		}
		// A phone order is inquired as an order: the customer may have paid on the
		// phone with an attempt the till never saw.
		_, err := e.inquire(ctx, o, inquiryPaymentID(o))
		return err
	}
	return nil
}
