package pos

import (
	"errors"
	"fmt"
)

// A split-tender sale (DESIGN.md section 2, docs/adr/0005-split-tender.md) is an
// order of tender "split" that holds the cart and, once paid, the document
// number. Each of its tenders is its own order, named in the sale by
// tender.added before that order's intent is journaled: card, EMI and phone
// tenders are orders at the payment service with their own merchant_order_id and
// amount, driven by the same state machine as a whole sale; cash, UPI and
// credit-note tenders are journaled here. The sale is completed, and its number
// allocated, when its paid tenders cover its amount and none is in flight.

// TenderView is one tender of a split sale as its order stands now.
type TenderView struct {
	SaleTender
	Order *Order // the tender's order (after any move); nil when its intent never reached the journal
	State OrderState
	// Verified is a tender paid on a verified answer, in cash, or from the
	// credit-note ledger; a UPI tender is confirmed by the cashier only.
	Verified bool
}

// Paid reports whether the tender's money is taken.
func (v TenderView) Paid() bool { return v.Order != nil && v.State.Paid() }

// Pending reports whether the tender's outcome is not final yet.
func (v TenderView) Pending() bool { return v.Order != nil && !v.State.Final() }

// Failed reports whether the tender ended without taking money: refused or
// verifiably not charged (FAILED), or closed before any payment was sent
// (ABANDONED), or never journaled past tender.added. It reserves nothing of
// the sale's Due; a FAILED card or EMI tender with attempts left may be paid
// again on its own order (PayRequest.OrderID), or the sale paid another way.
func (v TenderView) Failed() bool {
	return v.Order == nil || v.State == StateFailed || v.State == StateAbandoned
}

// SaleStatus is where a split sale stands.
type SaleStatus struct {
	Sale    *Order
	Tenders []TenderView
	Paid    Paise // the tenders paid
	Pending Paise // the tenders whose outcome is not final
	Due     Paise // what is left to tender: the amount less paid and pending
}

// Complete reports whether the sale is paid and has its document number.
func (s *SaleStatus) Complete() bool { return s.Sale.State.Paid() }

// Errors of split tender.
var (
	// ErrNotSplitSale reports an order id that is not a split-tender sale.
	ErrNotSplitSale = errors.New("not a split-tender sale")
	// ErrTenderTooLarge reports a tender of more than is left to pay.
	ErrTenderTooLarge = errors.New("the tender is more than is left to pay")
	// ErrSaleClosed reports a tender or void on a sale that is paid or voided.
	ErrSaleClosed = errors.New("the sale is no longer open")
	// ErrNoNotes reports a credit-note tender on a terminal with no credit-note ledger.
	ErrNoNotes = sentenceError{"no credit-note ledger", "Credit notes cannot be redeemed on this terminal; take another payment method."}
)

// saleStateWords says where a split sale stands, for a sentence.
func saleStateWords(s OrderState) string {
	switch {
	case s.Paid():
		return "paid in full"
	case s == StateVoided:
		return "voided"
	}
	return string(s)
}

// TenderError refuses a tender of more than is left to pay (or of nothing).
type TenderError struct {
	Amount, Due, Pending Paise
}

func (e *TenderError) Error() string {
	return fmt.Sprintf("pos: tender of %s with %s due: %s", e.Amount, e.Due, ErrTenderTooLarge)
}

// Is matches ErrTenderTooLarge.
func (e *TenderError) Is(target error) bool { return target == ErrTenderTooLarge }

// Sentence says what is left and what to do.
func (e *TenderError) Sentence() string {
	switch {
	case e.Due == 0 && e.Pending > 0:
		return fmt.Sprintf("Nothing is left to pay while a payment of %s is being checked; wait for its result.", e.Pending)
	case e.Due == 0:
		return "Nothing is left to pay on this sale."
	case e.Amount <= 0:
		return fmt.Sprintf("Type an amount for this tender; %s is left to pay.", e.Due)
	}
	return fmt.Sprintf("Only %s is left to pay; type at most that for this tender.", e.Due)
}

// openSalesDays is how many days back OpenSales reads in a journal whose Z
// reports do not list the sales open at their close (written before they did);
// maxOpenSalesDays bounds the reading back to the last Z that lists them (days
// with no sale cost one index look-up each).
const (
	openSalesDays    = 62
	maxOpenSalesDays = 400
)
